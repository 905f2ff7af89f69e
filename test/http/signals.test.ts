// Signals reach the server however it was started (issue 41): with `npm start` in the background
// (SIGTERM to npm), with `npm start` in a terminal (Ctrl-C: SIGINT to the whole process group),
// under a process manager as the README's systemd unit runs it (node directly: SIGTERM, SIGHUP),
// and while it is still starting. Each time the server exits 0, and a new server then starts on
// the same ports and DATA_DIR, so it freed them and its lock. npm runs with --ignore-scripts: the
// start script itself, without the build `prestart` runs (the build would replace dist/ under
// the tests that run from it).
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LOCK_FILE } from '../../http/data_dir/lock.js';
import type { Holder } from '../../http/holders.js';
import { SERVER_NODE_FLAGS } from '../../http/node_flags.js';
import { endsWithin } from '../support/process_end.js';
import { mainPath, removeDataDir, request, runMain, startServer, temporaryDataDir, type Urls } from '../support/server.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const LIGHT = { SHARDS: '1', SEED_DEMO: '0', VERIFY_THREADS: '0' } as const;
const readyPattern = /^listening clob=(\S+) catalog=(\S+) data=(\S+)$/m;
const READY_TIMEOUT_MS = 40_000;
const STOP_TIMEOUT_MS = 20_000;
const npmVersion = spawnSync('npm', ['--version'], { encoding: 'utf8' });
const noNpm = npmVersion.status === 0 ? false : 'npm is not on PATH';

interface Launched {
  readonly child: ChildProcess;
  readonly urls: Urls;
  /** The server's pid, as its lock file names it (npm's child when npm started it). */
  readonly serverPid: number;
  output(): string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs `command` in the repository's root, as an operator would, and waits for the ready line. */
function launch(command: string, args: readonly string[], dataDir: string, options: { env?: Record<string, string>; detached?: boolean } = {}): Promise<Launched> {
  const child = spawn(command, args, {
    cwd: root,
    detached: options.detached ?? false,
    env: {
      ...process.env, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', RATE_LIMITS: 'off', ...LIGHT,
      npm_config_update_notifier: 'false', npm_config_fund: 'false', ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`not ready within ${READY_TIMEOUT_MS} ms\n${stdout}${stderr}`));
    }, READY_TIMEOUT_MS);
    const onData = (): void => {
      const match = readyPattern.exec(stdout);
      if (match === null) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      const holder = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as Holder;
      resolve({ child, urls: { clob: match[1] ?? '', catalog: match[2] ?? '', data: match[3] ?? '' }, serverPid: holder.pid, output: () => stdout + stderr, exit });
    };
    child.stdout?.on('data', onData);
    void exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code ?? signal}) before it was ready\n${stdout}${stderr}`));
    });
  });
}

function portEnv(urls: Urls): Record<string, string> {
  const port = (url: string) => new URL(url).port;
  return { PORT: port(urls.clob), CATALOG_PORT: port(urls.catalog), DATA_PORT: port(urls.data) };
}

/** The stopped server freed its ports and DATA_DIR: a new one starts on exactly them, answers, and stops with 0. */
async function assertFreed(dataDir: string, urls: Urls): Promise<void> {
  const next = await startServer({ dataDir, env: { ...LIGHT, ...portEnv(urls) } });
  try {
    assert.deepEqual(next.urls, urls);
    assert.equal((await request(next.urls.clob + '/')).status, 200);
  } finally {
    assert.equal(await next.stop(), 0);
  }
}

async function assertStopped(launched: Launched, expectedExit: { code: number | null; signal: NodeJS.Signals | null }): Promise<void> {
  const exit = await Promise.race([launched.exit, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), STOP_TIMEOUT_MS).unref())]);
  assert.deepEqual(exit, expectedExit, launched.output());
  assert.ok(await endsWithin(launched.serverPid, STOP_TIMEOUT_MS), 'the server process ended');
  assert.match(launched.output(), /"event":"shutdown_complete"/);
}

test('npm start in the background: SIGTERM to npm reaches the server, which exits 0 and frees its ports and DATA_DIR', { skip: noNpm }, async () => {
  const dataDir = temporaryDataDir();
  try {
    const launched = await launch('npm', ['start', '--ignore-scripts'], dataDir);
    assert.notEqual(launched.serverPid, launched.child.pid, 'npm runs the server as its child');
    launched.child.kill('SIGTERM');
    await assertStopped(launched, { code: 0, signal: null });
    assert.match(launched.output(), /"event":"shutdown_started","signal":"SIGTERM"/);
    await assertFreed(dataDir, launched.urls);
  } finally {
    removeDataDir(dataDir);
  }
});

test('npm start in a terminal: Ctrl-C (SIGINT to the process group) stops the server with exit 0', { skip: noNpm }, async () => {
  const dataDir = temporaryDataDir();
  try {
    const launched = await launch('npm', ['start', '--ignore-scripts'], dataDir, { detached: true });
    process.kill(-(launched.child.pid ?? 0), 'SIGINT');
    await assertStopped(launched, { code: 0, signal: null });
    await assertFreed(dataDir, launched.urls);
  } finally {
    removeDataDir(dataDir);
  }
});

/** The README's systemd unit's ExecStart line, as words. */
function unitExecStart(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const line = readme.split('\n').find((text) => text.startsWith('ExecStart='));
  assert.ok(line !== undefined, 'the README has a systemd unit with an ExecStart line');
  return line.slice('ExecStart='.length).trim().split(/\s+/);
}

test('under a process manager, as the README\'s systemd unit runs it (node directly): SIGTERM, then SIGHUP, stop it with exit 0', async () => {
  const [node, ...args] = unitExecStart();
  assert.match(node ?? '', /^\/.*\/node$/, 'ExecStart names node by an absolute path');
  assert.deepEqual(args, [...SERVER_NODE_FLAGS, 'dist/http/main.js'], 'the server\'s Node options and the entry point, relative to WorkingDirectory');
  assert.ok(existsSync(join(root, 'dist/http/main.js')));
  assert.equal(join(root, 'dist/http/main.js'), mainPath);
  const dataDir = temporaryDataDir();
  try {
    // A service runs in a session of its own, as systemd starts it.
    const first = await launch(process.execPath, args, dataDir, { detached: true });
    assert.equal(first.serverPid, first.child.pid);
    first.child.kill('SIGTERM');
    await assertStopped(first, { code: 0, signal: null });
    const second = await launch(process.execPath, args, dataDir, { detached: true, env: portEnv(first.urls) });
    assert.deepEqual(second.urls, first.urls, 'the first freed its ports and DATA_DIR');
    second.child.kill('SIGHUP');
    await assertStopped(second, { code: 0, signal: null });
    assert.match(second.output(), /"event":"shutdown_started","signal":"SIGHUP"/);
  } finally {
    removeDataDir(dataDir);
  }
});

test('a SIGTERM while the server is still starting stops it as soon as it can: exit 0, no ready line, a sound directory', async () => {
  const dataDir = temporaryDataDir();
  try {
    const child = spawn(process.execPath, [mainPath], {
      env: { ...process.env, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...LIGHT },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // The lock file names the process once it holds DATA_DIR, which it takes after its signal handlers are in place.
    const lockFile = join(dataDir, LOCK_FILE);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(existsSync(lockFile) && readFileSync(lockFile, 'utf8').includes(`"pid":${child.pid}`)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    child.kill('SIGTERM');
    assert.equal(await exit, 0, output);
    assert.doesNotMatch(output, /^listening /m);
    assert.match(output, /"event":"shutdown_complete"/);
    const verified = await runMain({ dataDir, args: ['verify'], env: LIGHT, timeoutMs: 60_000 });
    assert.equal(verified.code, 0, verified.stderr);
  } finally {
    removeDataDir(dataDir);
  }
});

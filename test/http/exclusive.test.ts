// One exchange per port and per data directory (issue 41): a second server on a port a server
// holds, on any of its listeners, or on its DATA_DIR, refuses to start with exit code 2, naming
// the port (and its setting) or the directory and the process holding it; so does a port a
// program that is not clobd holds, even one bound with SO_REUSEPORT as uWS binds by default;
// verify and import refuse a directory a server holds; and a server killed with SIGKILL leaves
// nothing that stops a restart on the same ports and directory.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LOCK_FILE } from '../../http/data_dir/lock.js';
import type { Holder } from '../../http/holders.js';
import { removeDataDir, request, runMain, startServer, temporaryDataDir, type Finished, type RunningServer } from '../support/server.js';

/** A light server: one shard, no demo, signatures checked on the front end. */
const LIGHT = { SHARDS: '1', SEED_DEMO: '0', VERIFY_THREADS: '0' } as const;
/** A refused start takes well under a second; one that serves instead is killed after this. */
const REFUSED_WITHIN_MS = 30_000;

function lockHolder(dataDir: string): Holder {
  return JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as Holder;
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** The run ended by itself with exit code 2, printed no ready line, and its last line matches `pattern`. */
function assertRefused(finished: Finished, pattern: RegExp): void {
  assert.equal(finished.signal, null, `it started and was killed: ${finished.stdout}${finished.stderr}`);
  assert.equal(finished.code, 2, finished.stderr);
  assert.doesNotMatch(finished.stdout, /listening/);
  assert.match(finished.stderr.trim().split('\n').at(-1) ?? '', pattern);
}

describe('a running server holds its ports and its data directory', () => {
  let server: RunningServer;
  let ports: Record<string, number>;
  before(async () => {
    server = await startServer({ env: { ...LIGHT, COMPAT_PORT: '0' } });
    ports = { ...lockHolder(server.dataDir).ports };
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
    removeDataDir(server.dataDir);
  });

  test('its lock file names it, its command and every port it listens on', () => {
    const holder = lockHolder(server.dataDir);
    assert.equal(holder.pid, server.process.pid);
    assert.equal(holder.command, 'serve');
    assert.equal(holder.dataDir, server.dataDir);
    assert.deepEqual(Object.keys(ports).sort(), ['catalog', 'clob', 'compat', 'data']);
    assert.deepEqual([ports['clob'], ports['catalog'], ports['data']], [portOf(server.urls.clob), portOf(server.urls.catalog), portOf(server.urls.data)]);
  });

  test('a second server on any one of its ports refuses: exit 2, the port, its setting and the clobd holding it', async () => {
    const dataDir = temporaryDataDir();
    try {
      const cases = [['PORT', 'clob'], ['CATALOG_PORT', 'catalog'], ['DATA_PORT', 'data'], ['COMPAT_PORT', 'compat']] as const;
      for (const [setting, listener] of cases) {
        const port = ports[listener];
        const finished = await runMain({ dataDir, env: { ...LIGHT, [setting]: String(port) }, timeoutMs: REFUSED_WITHIN_MS });
        assertRefused(finished, new RegExp(`^clobd: port ${port} \\(${setting}\\) is in use by clobd pid ${server.process.pid} \\(serve since .*DATA_DIR ${server.dataDir}\\)$`));
      }
      // 0.0.0.0:port and 127.0.0.1:port overlap: the lock is the port's, whatever HOST says.
      const wildcard = await runMain({ dataDir, env: { ...LIGHT, HOST: '0.0.0.0', PORT: String(ports['clob']) }, timeoutMs: REFUSED_WITHIN_MS });
      assertRefused(wildcard, new RegExp(`^clobd: port ${ports['clob']} \\(PORT\\) is in use by clobd pid ${server.process.pid} `));
    } finally {
      removeDataDir(dataDir);
    }
    // The first server still answers every request itself.
    for (let index = 0; index < 5; index++) assert.equal((await request(server.urls.clob + '/')).status, 200);
  });

  test('a second server on its DATA_DIR (other ports) refuses: exit 2, the directory and the pid holding it', async () => {
    const finished = await runMain({ dataDir: server.dataDir, env: LIGHT, timeoutMs: REFUSED_WITHIN_MS });
    assertRefused(finished, new RegExp(`^clobd: data directory ${server.dataDir} is in use by clobd pid ${server.process.pid} \\(serve since [^)]*ports clob ${ports['clob']} [^)]*\\): stop it first, or give this server another DATA_DIR$`));
  });

  test('both at once are named in one line', async () => {
    const finished = await runMain({ dataDir: server.dataDir, env: { ...LIGHT, DATA_PORT: String(ports['data']) }, timeoutMs: REFUSED_WITHIN_MS });
    assertRefused(finished, new RegExp(`^clobd: data directory ${server.dataDir} is in use by clobd pid ${server.process.pid} .*; port ${ports['data']} \\(DATA_PORT\\) is in use by clobd pid ${server.process.pid} `));
  });

  test('verify and import refuse the directory while it runs (exit 2), and leave it as it is', async () => {
    const verified = await runMain({ dataDir: server.dataDir, args: ['verify'], env: LIGHT, timeoutMs: REFUSED_WITHIN_MS });
    assertRefused(verified, new RegExp(`^clobd: data directory ${server.dataDir} is in use by clobd pid ${server.process.pid} .*: verify checks the directory of a stopped exchange: stop it first$`));
    const files = temporaryDataDir();
    try {
      writeFileSync(join(files, 'events.json'), '[]');
      const imported = await runMain({ dataDir: server.dataDir, args: ['import', join(files, 'events.json')], env: LIGHT, timeoutMs: REFUSED_WITHIN_MS });
      assertRefused(imported, /import writes to the catalog of a stopped exchange: stop it first, or create the events through POST \/admin\/events$/);
    } finally {
      removeDataDir(files);
    }
    assert.equal(lockHolder(server.dataDir).pid, server.process.pid, 'the lock file still names the server');
    assert.equal((await request(server.urls.catalog + '/events?limit=1')).status, 200);
  });
});

/** A program that is not clobd holding a loopback port the way uWS binds by default (SO_REUSEPORT). */
async function sharedPortHolder(): Promise<{ child: ChildProcess; port: number }> {
  const uwsPath = createRequire(import.meta.url).resolve('@trufflesuite/uws-js-unofficial');
  const source = `const uws = require(${JSON.stringify(uwsPath)}); uws.App().listen('127.0.0.1', 0, (socket) => console.log(uws.us_socket_local_port(socket)));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', (line: string) => resolve(Number(line.trim())));
    child.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
  });
  return { child, port };
}

test('a port held by a program that is not clobd, even through SO_REUSEPORT, is refused naming that program', async () => {
  const { child, port } = await sharedPortHolder();
  const dataDir = temporaryDataDir();
  try {
    const finished = await runMain({ dataDir, env: { ...LIGHT, CATALOG_PORT: String(port) }, timeoutMs: REFUSED_WITHIN_MS });
    const named = process.platform === 'linux' ? `pid ${child.pid} \\(${process.execPath.replaceAll(/[.*+?^${}()|[\]\\/]/g, '\\$&')} -e ` : 'another process';
    assertRefused(finished, new RegExp(`^clobd: port ${port} \\(CATALOG_PORT\\) is in use by ${named}`));
  } finally {
    child.kill('SIGKILL');
    removeDataDir(dataDir);
  }
});

test('after kill -9 a restart on the same ports and DATA_DIR starts: no stale lock', async () => {
  const first = await startServer({ env: LIGHT });
  const dataDir = first.dataDir;
  try {
    const env = { ...LIGHT, PORT: String(portOf(first.urls.clob)), CATALOG_PORT: String(portOf(first.urls.catalog)), DATA_PORT: String(portOf(first.urls.data)) };
    assert.equal(await first.stop('SIGKILL'), null);
    const second = await startServer({ dataDir, env });
    try {
      assert.deepEqual([second.urls.clob, second.urls.catalog, second.urls.data], [first.urls.clob, first.urls.catalog, first.urls.data]);
      assert.equal(lockHolder(dataDir).pid, second.process.pid);
      assert.equal((await request(second.urls.clob + '/')).status, 200);
    } finally {
      assert.equal(await second.stop(), 0);
    }
    // Stopped cleanly, the directory is free for verify.
    const verified = await runMain({ dataDir, args: ['verify'], env: LIGHT, timeoutMs: 60_000 });
    assert.equal(verified.code, 0, verified.stderr);
  } finally {
    removeDataDir(dataDir);
  }
});

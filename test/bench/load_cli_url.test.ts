// The load CLI (`npm run load -- ... --url`) against a real server it did not start, as someone
// load testing their own exchange runs it: twice on one DATA_DIR, without the admin token, with
// the default request caps and socket limit, WebSocket subscribers with their own order flow,
// books and orders at once, and several generator threads.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeDataDir, startServer, temporaryDataDir, type RunningServer } from '../support/server.js';

const cli = fileURLToPath(new URL('../../bench/load/cli.js', import.meta.url));
const TOKEN = 'load-cli-test-token';
const AUTH_WINDOW_S = 4;

interface Figures {
  readonly requests: number; readonly statusCounts: Record<string, number>; readonly errors: number; readonly socketErrors: number;
  readonly errorSamples: Record<string, string>; readonly perWorker: readonly number[];
  readonly latency: { readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number };
}

interface Row {
  readonly scenario: string;
  readonly workers: number;
  readonly startedAtMs: number;
  readonly signedAtMs?: number;
  readonly result: Figures;
  // ws
  readonly subscribers?: number;
  readonly deliveredPerSecond?: number;
  readonly timed?: number;
  readonly closed?: number;
}

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runCli(args: readonly string[]): Promise<Run> {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
  return new Promise((resolve) => child.once('close', (status) => {
    clearTimeout(timer);
    resolve({ status, stdout, stderr });
  }));
}

async function rows(args: readonly string[]): Promise<{ rows: Row[]; stderr: string }> {
  const run = await runCli([...args, '--json']);
  assert.equal(run.status, 0, run.stderr);
  return { rows: JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Row[], stderr: run.stderr };
}

/** A refusal: non-zero exit, one line on stderr after whatever progress came before it, no stack trace. */
async function refusal(args: readonly string[]): Promise<string> {
  const run = await runCli(args);
  assert.ok(run.status !== 0 && run.status !== null, `exit ${run.status}\n${run.stderr}`);
  assert.doesNotMatch(run.stderr, /^\s+at /m, 'no stack trace');
  assert.equal(run.stdout, '');
  const line = run.stderr.trimEnd().split('\n').at(-1)!;
  assert.match(line, /^load: /);
  return line;
}

function accepted(figures: Figures): void {
  const ok = figures.statusCounts['200'] ?? 0;
  assert.ok(figures.requests >= 50 && ok >= 0.9 * figures.requests, JSON.stringify(figures));
}

let open: RunningServer;
let capped: RunningServer;
const dataDirs: string[] = [];

before(async () => {
  // Request caps off (the test server's default) and the default WS_SOCKETS_PER_IP (64).
  open = await startServer({ env: { ADMIN_TOKEN: TOKEN } });
  // The defaults of every cap but WebSocket upgrades, lowered so that a few subscribers meet it.
  const capsDir = temporaryDataDir();
  dataDirs.push(capsDir);
  const caps = join(capsDir, 'caps.json');
  writeFileSync(caps, JSON.stringify({ 'WS upgrades': { requests: 4, windowSeconds: 60 } }));
  // And a narrow AUTH_WINDOW_S, which a run's L2 headers, made before it, must still fit.
  capped = await startServer({ env: { ADMIN_TOKEN: TOKEN, RATE_LIMITS: caps, AUTH_WINDOW_S: String(AUTH_WINDOW_S) } });
});

after(async () => {
  await Promise.all([open?.stop(), capped?.stop()]);
  for (const server of [open, capped]) if (server !== undefined) removeDataDir(server.dataDir);
  for (const dir of dataDirs) removeDataDir(dir);
});

test('orders runs again and again on one DATA_DIR: fresh wallets each run', async () => {
  for (let round = 0; round < 2; round++) {
    const { rows: [row] } = await rows(['orders', '--url', open.urls.clob, '--admin-token', TOKEN, '--duration', '1', '--rate', '100', '--accounts', '4', '--connections', '4']);
    assert.equal(row!.scenario, 'orders');
    accepted(row!.result);
  }
});

test('orders without --admin-token, or with a wrong one, is one line naming --admin-token', async () => {
  const missing = await refusal(['orders', '--url', open.urls.clob, '--duration', '1']);
  assert.match(missing, /--admin-token/);
  // Found out by the server, inside the generator threads: the same one line.
  const wrong = await refusal(['orders', '--url', open.urls.clob, '--admin-token', 'nope', '--duration', '1', '--workers', '2', '--connections', '2']);
  assert.match(wrong, /--admin-token/);
  assert.match(wrong, /ADMIN_TOKEN/);
});

test('books against the default caps: 429s are errors, in the progress lines and the result, and RATE_LIMITS is named', async () => {
  const { rows: [row], stderr } = await rows(['books', '--url', capped.urls.clob, '--duration', '2', '--connections', '4']);
  const tooMany = row!.result.statusCounts['429'] ?? 0;
  assert.ok(tooMany > 0, JSON.stringify(row!.result.statusCounts));
  assert.equal(row!.result.errors, row!.result.requests - (row!.result.statusCounts['200'] ?? 0) + row!.result.socketErrors);
  assert.ok(row!.result.errors >= tooMany);
  // stderr is a pipe here, not a terminal: one progress line per interval, each ending its line.
  assert.doesNotMatch(stderr, /\r/);
  const progress = stderr.split('\n').filter((line) => /^\s*\d+(\.\d)?s\s+books/.test(line));
  assert.ok(progress.length >= 1, stderr);
  assert.ok(progress.some((line) => /errors [1-9]/.test(line) && /429/.test(line)), progress.join('\n'));
  assert.match(stderr, /RATE_LIMITS/);
});

test('ws refused by WS_SOCKETS_PER_IP, or by the upgrades cap of RATE_LIMITS: one line naming the setting', async () => {
  const sockets = await refusal(['ws', '--url', open.urls.clob, '--subscribers', '70', '--flow', '0', '--duration', '1']);
  assert.match(sockets, /WS_SOCKETS_PER_IP/);
  const upgrades = await refusal(['ws', '--url', capped.urls.clob, '--subscribers', '6', '--flow', '0', '--duration', '1']);
  assert.match(upgrades, /RATE_LIMITS/);
  const noToken = await refusal(['ws', '--url', open.urls.clob, '--subscribers', '4', '--duration', '1']);
  assert.match(noToken, /--admin-token/);
});

test('ws --url with --admin-token drives its own signed order flow on the subscribed market', async () => {
  const { rows: found } = await rows([
    'ws', '--url', open.urls.clob, '--admin-token', TOKEN, '--subscribers', '10', '--flow', '100', '--duration', '2', '--accounts', '4',
  ]);
  const ws = found.find((row) => row.scenario === 'ws')!;
  const flow = found.find((row) => row.scenario === 'ws flow')!;
  accepted(flow.result);
  assert.equal(ws.subscribers, 10);
  assert.equal(ws.closed, 0);
  // Each order changes the book its subscribers watch: far more than the snapshots of a still market.
  assert.ok(ws.deliveredPerSecond! >= 10 * 100 * 0.5, JSON.stringify(ws));
  assert.ok(ws.timed! > 0, JSON.stringify(ws));
});

test('mixed: every order is signed before the books half starts measuring', async () => {
  const { rows: found, stderr } = await rows(['mixed', '--url', open.urls.clob, '--admin-token', TOKEN, '--duration', '1', '--rate', '200', '--accounts', '4', '--connections', '4']);
  const books = found.find((row) => row.scenario === 'books')!;
  const orders = found.find((row) => row.scenario === 'orders')!;
  accepted(orders.result);
  assert.ok(books.result.requests > 50);
  assert.ok(orders.signedAtMs! <= books.startedAtMs && orders.signedAtMs! <= orders.startedAtMs, JSON.stringify({ books, orders }));
  const lines = stderr.split('\n');
  const measuring = lines.findIndex((line) => /^measuring/.test(line));
  const firstProgress = lines.findIndex((line) => /^\s*\d+(\.\d)?s\s+books/.test(line));
  assert.ok(measuring !== -1 && firstProgress > measuring, stderr);
});

test('--workers 2: two generator threads, one merged row', async () => {
  const { rows: [books] } = await rows(['books', '--url', open.urls.clob, '--duration', '1', '--connections', '4', '--workers', '2']);
  assert.equal(books!.workers, 2);
  const { perWorker, requests, latency } = books!.result;
  assert.equal(perWorker.length, 2);
  assert.ok(perWorker.every((count) => count > 0), JSON.stringify(perWorker));
  assert.equal(perWorker[0]! + perWorker[1]!, requests);
  assert.ok(latency.p50Ms <= latency.p99Ms && latency.p99Ms <= latency.maxMs, JSON.stringify(latency));
  const { rows: [orders] } = await rows([
    'orders', '--url', open.urls.clob, '--admin-token', TOKEN, '--duration', '1', '--rate', '100', '--accounts', '4', '--connections', '4', '--workers', '2',
  ]);
  assert.equal(orders!.workers, 2);
  accepted(orders!.result);
  assert.ok(orders!.result.perWorker.every((count) => count > 0), JSON.stringify(orders!.result.perWorker));
});

test("a run longer than the server's AUTH_WINDOW_S: headers made before it are stamped for when they are sent", async () => {
  const durationS = 10;
  const { rows: [row] } = await rows([
    'orders', '--url', capped.urls.clob, '--admin-token', TOKEN, '--duration', String(durationS), '--rate', '30', '--accounts', '4', '--connections', '4',
  ]);
  // Stamped all at once, every order sent more than the window after the headers were made would be a 401: most of them.
  const unauthorized = row!.result.statusCounts['401'] ?? 0;
  assert.ok(unauthorized <= 0.02 * row!.result.requests, JSON.stringify(row!.result));
  accepted(row!.result);
});

// The load-testing CLI (`npm run load`) runs end to end on a local server it starts itself, so it
// cannot rot: a short books run and a short open-loop orders run, their JSON results checked.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../bench/load/cli.js', import.meta.url));

interface Result {
  readonly scenario: string;
  readonly result: {
    readonly requests: number; readonly statusCounts: Record<string, number>; readonly errors: number;
    readonly latency: { readonly p50Ms: number; readonly maxMs: number };
    readonly sendLag: { readonly p50Ms: number; readonly maxMs: number };
  };
}

function run(args: readonly string[]): Result[] {
  const child = spawnSync(process.execPath, [cli, ...args, '--json'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Result[];
}

test('load books: every read answered 200', () => {
  const [row] = run(['books', '--duration', '1', '--connections', '4']);
  assert.equal(row!.scenario, 'books');
  assert.ok(row!.result.requests > 100);
  assert.deepEqual(Object.keys(row!.result.statusCounts), ['200']);
  assert.equal(row!.result.errors, 0);
  // A closed loop sends the moment a connection is free: there is no schedule to be late for.
  assert.equal(row!.result.sendLag.maxMs, 0);
});

test('load orders: funded accounts place signed orders at a fixed rate, nearly all accepted', () => {
  const [row] = run(['orders', '--duration', '1', '--rate', '100', '--accounts', '4', '--connections', '4']);
  assert.equal(row!.scenario, 'orders');
  const ok = row!.result.statusCounts['200'] ?? 0;
  assert.ok(ok >= 0.9 * row!.result.requests && row!.result.requests >= 100, JSON.stringify(row!.result.statusCounts));
  // The open loop reports how late its own sends were, a part of each latency (never more).
  const { latency, sendLag } = row!.result;
  assert.ok(sendLag.maxMs > 0 && sendLag.p50Ms <= latency.p50Ms && sendLag.maxMs <= latency.maxMs, JSON.stringify({ latency, sendLag }));
});

test('an unknown scenario prints the usage and exits 2', () => {
  const child = spawnSync(process.execPath, [cli, 'nope'], { encoding: 'utf8' });
  assert.equal(child.status, 2);
  assert.match(child.stderr, /usage: npm run load/);
});

test('--help prints the usage on stdout and exits 0', () => {
  const child = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, /usage: npm run load/);
  assert.match(child.stdout, /--workers/);
});

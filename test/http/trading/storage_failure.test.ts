// A shard whose disk refuses writes. The server runs as a child process; its file-size limit
// (RLIMIT_FSIZE, set on the running process with prlimit) plays a full disk: a write past it
// fails with EFBIG, which LMDB's commit reports as an I/O error, exactly where a full disk's
// ENOSPC would. While it lasts the shard is down and says why (/ready, /metrics, the log), orders
// get 503 with Retry-After, and the worker is restarted after pauses that grow instead of in a
// tight loop. Once the limit is lifted the shard serves again by itself, and every order that was
// acknowledged is there.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { startTrading, type Trader } from '../orders/trader.js';

let server: RunningServer;
let trader: Trader;
let yes = '';

before(async () => {
  const setup = await startTrading([21], { SHARDS: '1', LOG_LEVEL: 'info' });
  server = setup.server;
  trader = setup.traders[0]!;
  yes = setup.markets[0]!.yes;
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

function setFileSizeLimit(limit: number | 'unlimited'): void {
  execFileSync('prlimit', ['--pid', String(server.process.pid), `--fsize=${limit}:unlimited`]);
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name}\\{shard="0"\\} (\\S+)$`, 'm').exec(text);
  assert.ok(match !== null, `${name} is exported`);
  return Number(match[1]);
}

let salt = 1_000_000;
async function placeResting(): Promise<{ status: number; orderId: string; retryAfter: string | null; text: string }> {
  const placed = await trader.place({ tokenId: yes, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000, salt: salt++ });
  return { status: placed.status, orderId: placed.orderId, retryAfter: placed.headers.get('retry-after'), text: placed.text };
}

test('a full disk stops the shard with 503 and Retry-After, visibly, and it comes back by itself with nothing acknowledged lost', async () => {
  const acknowledged: string[] = [];
  for (let index = 0; index < 20; index++) {
    const placed = await placeResting();
    assert.equal(placed.status, 200, placed.text);
    acknowledged.push(placed.orderId);
  }
  const shardFile = join(server.dataDir, 'shard-0', 'data.mdb');
  setFileSizeLimit(statSync(shardFile).size + 64 * 1024);

  // Orders, a few at a time, until the shard's file reaches the limit and a commit fails.
  let refused: Awaited<ReturnType<typeof placeResting>> | undefined;
  for (let round = 0; round < 2_000 && refused === undefined; round++) {
    for (const placed of await Promise.all(Array.from({ length: 8 }, placeResting))) {
      if (placed.status === 200) acknowledged.push(placed.orderId);
      else refused ??= placed;
    }
  }
  assert.ok(refused !== undefined, 'the disk filled up');
  assert.equal(refused.status, 503, refused.text);
  assert.ok(Number(refused.retryAfter) >= 1, 'a 503 says when to retry');

  // While the disk stays full: down, and saying why.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const ready = await request<{ shards: { shard: number; ready: boolean; storageError?: string }[] }>(`${server.urls.clob}/ready`);
  assert.equal(ready.status, 503);
  assert.equal(ready.body.shards[0]?.ready, false);
  assert.match(ready.body.shards[0]?.storageError ?? '', /Input\/output error|File too large|No space/);
  const during = await placeResting();
  assert.equal(during.status, 503);
  assert.match(during.text, /cannot write to its storage/);
  assert.ok(Number(during.retryAfter) >= 1);
  const metrics = (await request<string>(`${server.urls.clob}/metrics`)).text;
  assert.equal(metric(metrics, 'clobd_shard_ready'), 0);
  assert.ok(metric(metrics, 'clobd_shard_storage_failures_total') >= 1);
  // Backing off: over ~2 s of failure, a handful of restarts (0, 0.1, 0.2, 0.4, 0.8 s...), not a loop.
  assert.ok(metric(metrics, 'clobd_shard_restarts_total') <= 8, `restarts: ${metric(metrics, 'clobd_shard_restarts_total')}`);
  assert.match(server.output().stderr, /shard storage failed; restarting/);

  // Space again: the shard serves by itself within its longest pause.
  setFileSizeLimit('unlimited');
  const deadline = Date.now() + 20_000;
  while ((await request(`${server.urls.clob}/ready`)).status !== 200) {
    assert.ok(Date.now() < deadline, 'the shard came back');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const afterwards = await placeResting();
  assert.equal(afterwards.status, 200, afterwards.text);
  acknowledged.push(afterwards.orderId);
  assert.match(server.output().stderr, /shard storage works again/);

  for (const orderId of acknowledged) {
    const read = await trader.send<{ order: { status: string } }>('GET', `/data/order/${orderId}`);
    assert.equal(read.status, 200, `acknowledged order ${orderId} is there`);
    assert.equal(read.body.order.status, 'LIVE');
  }
});

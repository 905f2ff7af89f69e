// A signed order runs at most once. The shard refuses a place whose id it has seen before, wherever
// it remembers it: the engine (live orders and its bounded history of finished ones), the orders
// the batch being committed finished, and the stored orders. The case that slipped through was
// [X, Y, X] in one batch, where Y finished more orders than the engine's history holds (or one,
// with ORDER_HISTORY=1): the second X was neither in the engine nor stored yet, and ran again.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { OrderType, Side } from '../../../engine/command.js';
import { Reject } from '../../../engine/events/reject.js';
import type { Server } from '../../../http/server.js';
import type { PlaceOrder, TradeResult } from '../../../http/trading/client.js';
import {
  accountAddress, canonicalId, MIN_SHARES, ONE_MICROS, removeDataDir, restOrders, startInProcess, temporaryDataDir, testMarketKey,
} from './support.js';

const SHARES = MIN_SHARES * ONE_MICROS;
const TAKER = accountAddress(5000);

function duplicateRefused(result: TradeResult, orderId: string): boolean {
  return result.events.some((event) => event.kind === 'ORDER_REJECTED' && event.orderId === orderId && event.reason === Reject.DUPLICATE_ORDER);
}

function filledMicros(result: TradeResult): number {
  return result.events.reduce((sum, event) => sum + (event.kind === 'FILL' ? event.sizeMicros : 0), 0);
}

/** A BUY NO at 0.99 that fills resting YES bids at 0.01 (a mint), up to `makers` of them. */
function taker(marketKey: string, orderId: string, makers: number): PlaceOrder {
  return { account: TAKER, orderId, marketKey, outcome: 1, side: Side.Buy, orderType: OrderType.FAK, priceUnits: 9900, sizeMicros: makers * SHARES };
}

async function noSharesOf(server: Server, marketKey: string): Promise<number> {
  const { client } = server.trading;
  const place = client.placeOf(marketKey)!;
  const balance = await client.balance(TAKER);
  return balance.shards[place.shard]?.positions.find((entry) => entry.market === place.market && entry.outcome === 1)?.freeMicros ?? 0;
}

describe('a signed order runs at most once', () => {
  const dataDirs: string[] = [];
  let server: Server | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    for (const dir of dataDirs.splice(0)) removeDataDir(dir);
  });

  async function start(env: Record<string, string> = {}, shards = 1): Promise<Server> {
    const dataDir = temporaryDataDir();
    dataDirs.push(dataDir);
    server = await startInProcess(dataDir, shards, 'silent', env);
    assert.equal(server.trading.client.deposit(TAKER, 1_000_000 * ONE_MICROS), true);
    return server;
  }

  /**
   * [X, Y, X] in one batch: a blocker (a taker that fills `blockerMakers` orders, some
   * milliseconds of matching) goes first, so the shard is still busy with it when X, Y and X are
   * in its ring, and drains all three into the batch it is filling.
   */
  async function xyxInOneBatch(server: Server, marketKey: string, yMakers: number, blockerMakers: number): Promise<TradeResult[]> {
    const { client } = server.trading;
    await restOrders(client, marketKey, 0, 100, 1 + yMakers + blockerMakers, 0, 1);
    const x = taker(marketKey, canonicalId(9, 1), 1);
    const sent = [
      client.placeOrder(taker(marketKey, canonicalId(9, 0), blockerMakers)),
      client.placeOrder(x),
      client.placeOrder(taker(marketKey, canonicalId(9, 2), yMakers)),
      client.placeOrder(x),
    ];
    return Promise.all(sent);
  }

  test('[X, Y, X] in one batch, Y finishing more orders than the engine remembers: the second X is a duplicate', async () => {
    const server = await start();
    const marketKey = testMarketKey(0);
    const [, first, y, second] = await xyxInOneBatch(server, marketKey, 4_200, 2_000);
    assert.equal(filledMicros(first!), SHARES, 'X filled once');
    assert.equal(filledMicros(y!), 4_200 * SHARES);
    assert.ok(duplicateRefused(second!, canonicalId(9, 1)), `the second X is refused: ${JSON.stringify(second!.events.slice(0, 2))}`);
    assert.equal(filledMicros(second!), 0);
    assert.equal(await noSharesOf(server, marketKey), (2_000 + 1 + 4_200) * SHARES, 'the taker holds what it signed for, once');
  });

  test('with ORDER_HISTORY=1 a Y of one fill is enough, and the second X is still refused', async () => {
    const server = await start({ ORDER_HISTORY: '1' });
    const marketKey = testMarketKey(1);
    const [, first, y, second] = await xyxInOneBatch(server, marketKey, 1, 2_000);
    assert.equal(filledMicros(first!), SHARES);
    assert.equal(filledMicros(y!), SHARES);
    assert.ok(duplicateRefused(second!, canonicalId(9, 1)));
    assert.equal(await noSharesOf(server, marketKey), (2_000 + 2) * SHARES);
  });

  test('a copy sent after a restart is refused (the stored orders), on every shard count', async () => {
    for (const shards of [1, 2]) {
      const dataDir = temporaryDataDir();
      dataDirs.push(dataDir);
      server = await startInProcess(dataDir, shards, 'silent', { ORDER_HISTORY: '1' });
      const { client } = server.trading;
      assert.equal(client.deposit(TAKER, 1_000_000 * ONE_MICROS), true);
      const marketKey = testMarketKey(2);
      await restOrders(client, marketKey, 0, 100, 3, 0, 1);
      const x = taker(marketKey, canonicalId(9, 1), 1);
      assert.equal(filledMicros(await client.placeOrder(x)), SHARES);
      assert.equal(filledMicros(await client.placeOrder(taker(marketKey, canonicalId(9, 2), 1))), SHARES);
      await server.stop();
      server = await startInProcess(dataDir, shards, 'silent', { ORDER_HISTORY: '1' });
      const again = await server.trading.client.placeOrder(x);
      assert.ok(duplicateRefused(again, x.orderId), `SHARDS=${shards}: the copy after the restart is a duplicate`);
      assert.equal(await noSharesOf(server, marketKey), 2 * SHARES);
      await server.stop();
      server = undefined;
    }
  });
});

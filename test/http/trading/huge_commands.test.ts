// Commands whose answers are huge complete whole, and the shard stays up. A resolution of a
// market with 100 000 resting orders and 70 000 holders (more than a 16-bit count holds: the
// answer's redemption and credit counts used to wrap and the decoder threw), made through the
// admin API, cancels every order, pays every holder and closes the catalog. A GTD expiry of
// 100 000 orders in one tick expires them all, and their owners' user channels hear of each.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import WebSocket from 'ws';
import { OrderType, Side } from '../../../engine/command.js';
import { openDurable } from '../../../engine/durable_env.js';
import { request } from '../../support/server.js';
import { ADMIN_TOKEN, Trader } from '../orders/trader.js';
import { accountAddress, canonicalId, MIN_SHARES, ONE_MICROS, restOrders, startWithMarket, suiteServer, waitUntil } from './support.js';

const SHARES = MIN_SHARES * ONE_MICROS;
const LANES = 64;

/** Runs `count` jobs, LANES at a time. */
async function inLanes(count: number, job: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: LANES }, async () => {
    while (next < count) await job(next++);
  }));
}

describe('a resolution of a market with 100 000 resting orders and 70 000 holders', () => {
  const suite = suiteServer(async (dataDir) => ({ dataDir, ...(await startWithMarket(dataDir)) }));

  test('cancels every order, pays every holder and closes the catalog, and the shard stays up', async () => {
    const { server, market, dataDir } = suite();
    const { client, pool } = server.trading;
    const pairs = 35_000;
    const yesHolder = (index: number): string => accountAddress(100_000 + index);
    const noHolder = (index: number): string => accountAddress(200_000 + index);
    for (let from = 0; from < pairs; from += 10_000) {
      const batch = Array.from({ length: Math.min(10_000, pairs - from) }, (_, offset) => from + offset);
      assert.equal(client.depositMany(batch.flatMap((index): [string, number][] => [[yesHolder(index), SHARES], [noHolder(index), SHARES]])), true);
    }
    // 35 000 YES bids at 0.50, each taken by a NO buyer at 0.50: 35 000 mints, 70 000 holders of 5 shares.
    await inLanes(pairs, async (index) => {
      const rested = await client.placeOrder({
        account: yesHolder(index), orderId: canonicalId(3, index), marketKey: market.conditionId, outcome: 0, side: Side.Buy,
        orderType: OrderType.GTC, priceUnits: 5000, sizeMicros: SHARES,
      });
      assert.ok(rested.events.some((event) => event.kind === 'ORDER_ACCEPTED'));
    });
    await inLanes(pairs, async (index) => {
      const minted = await client.placeOrder({
        account: noHolder(index), orderId: canonicalId(4, index), marketKey: market.conditionId, outcome: 1, side: Side.Buy,
        orderType: OrderType.FOK, priceUnits: 5000, sizeMicros: SHARES,
      });
      assert.ok(minted.events.some((event) => event.kind === 'FILL'), 'every NO buyer mints');
    });
    await restOrders(client, market.conditionId, 0, 100, 100_000, 0, 5);
    const restarts = pool.restarts(0);

    const resolved = await request<Record<string, unknown>>(`${server.urls.clob}/admin/markets/${market.conditionId}/resolve`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ winner: market.outcomes[0] }),
    });
    assert.equal(resolved.status, 200, resolved.text);
    assert.equal(pool.restarts(0), restarts, 'the shard did not restart');
    const catalog = await request<{ closed: boolean; acceptingOrders: boolean }>(`${server.urls.catalog}/markets/${market.conditionId}`);
    assert.deepEqual([catalog.body.closed, catalog.body.acceptingOrders], [true, false]);

    const [status] = await client.statuses();
    assert.ok(status!.invariantsHold, status!.invariantError);
    assert.equal(status!.stats['ordersLive'], 0, 'every resting order was cancelled');
    // Every holder's payout is stored for the activity feed: one redemption per holder.
    const shard = openDurable(join(dataDir, 'shard-0'), 16);
    assert.equal(shard.openDB({ name: 'redemptions', encoding: 'msgpack', keyEncoding: 'ordered-binary' }).getCount(), 2 * pairs);
    // A winner got 1.00 a share back; a loser nothing; a resting bidder its reserve.
    assert.equal(server.trading.treasury.freeOf(yesHolder(7)), SHARES - SHARES / 2 + SHARES);
    assert.equal(server.trading.treasury.freeOf(noHolder(7)), SHARES - SHARES / 2);
    assert.equal(server.trading.treasury.freeOf(accountAddress(0)), 10_000 * SHARES);
    const activity = await request<{ type: string }[]>(`${server.urls.data}/activity?user=${yesHolder(pairs - 1)}`);
    assert.equal(activity.status, 200, activity.text);
    assert.equal(activity.body.filter((item) => item.type === 'REDEEM').length, 1);
  });
});

describe('a GTD expiry of 100 000 orders in one tick', () => {
  let offsetMs = 0;
  const now = (): number => Date.now() + offsetMs;
  const suite = suiteServer((dataDir) => startWithMarket(dataDir, {}, now));

  test('expires them all in one command, and each owner\'s user channel hears of each of its orders', async () => {
    const { server, market } = suite();
    const { client, pool } = server.trading;
    const owner = new Trader(server.urls.clob, 0x38_000_002, () => Math.floor(now() / 1000));
    const credentials = await owner.createKey();
    // A GTD order must live at least 60 s: all expire at once, far enough ahead for the last one placed.
    const expirationMs = now() + 600_000;
    const count = 100_000;
    // The first 10 000 orders are the wallet's, the rest other accounts'.
    await restOrders(client, market.conditionId, 0, 100, count, 0, 6, {
      expirationMs, account: (index) => (index === 0 ? owner.address : accountAddress(index)),
    });
    const ws = new WebSocket(`${server.urls.clob.replace('http', 'ws')}/ws/user`);
    let cancellations = 0;
    let subscribed: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (subscribed = resolve));
    ws.on('message', (data) => {
      const text = String(data);
      if (text === 'PONG') return subscribed();
      const message = JSON.parse(text) as Record<string, unknown>;
      if (message['event_type'] === 'order' && message['type'] === 'CANCELLATION') cancellations++;
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send(JSON.stringify({ auth: credentials, type: 'user' }));
    ws.send('PING');
    await ready;
    const restarts = pool.restarts(0);
    const committed = pool.counters(0).commandsCommitted;

    offsetMs += 601_000;
    // The next tick (every second) expires every order in the one ExpireOrders command it sends.
    await waitUntil(() => cancellations >= 10_000, 60_000, 'the owner\'s 10 000 cancellations');
    const [status] = await client.statuses();
    assert.equal(status!.stats['ordersLive'], 0);
    assert.ok(status!.invariantsHold, status!.invariantError);
    assert.equal(pool.restarts(0), restarts, 'the shard did not restart');
    assert.ok(pool.counters(0).commandsCommitted - committed <= 3, 'in one tick (a tick or two more may pass while the test looks)');
    assert.equal(cancellations, 10_000);
    const order = await client.order(canonicalId(6, count - 1));
    assert.equal(order?.remainingMicros, 0);
    assert.equal(order?.cancelReason, 2, 'EXPIRED');
    const book = await request<{ bids: unknown[] }>(`${server.urls.clob}/book?token_id=${market.yes}`);
    assert.deepEqual(book.body.bids, []);
    ws.close();
  });
});

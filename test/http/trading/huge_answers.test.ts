// Answers of any size reach their callers. A taker that fills more resting orders than one ring
// frame can describe (the limit was ~9 600 fills: the worker died after committing the trade and
// the caller got a 503) gets its whole answer, over the trading client and over HTTP with a
// signed order, and its fills reach the WebSocket channels; a worker that dies after committing
// such an answer and before the front end read it has it answered by the next worker. The shard
// stays up and the ledger is exact. (Resolutions and expiries of deep books: huge_commands.test.ts.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import WebSocket from 'ws';
import { OrderType, Side } from '../../../engine/command.js';
import type { EngineEvent } from '../../../engine/events/event_objects.js';
import type { Server } from '../../../http/server.js';
import type { TradeResult } from '../../../http/trading/client.js';
import { FRAGMENT_BYTES } from '../../../engine/shard/answer_stream.js';
import { request } from '../../support/server.js';
import { Trader } from '../orders/trader.js';
import {
  accountAddress, assertRuntimeState, canonicalId, MIN_SHARES, ONE_MICROS, readRuntimeState, restOrders, startInProcess, startWithMarket,
  suiteServer, testMarketKey, waitUntil,
} from './support.js';

function count(events: readonly EngineEvent[], kind: EngineEvent['kind']): number {
  return events.reduce((sum, event) => sum + (event.kind === kind ? 1 : 0), 0);
}

/**
 * Rests `makers` bids of YES at 0.01 and sends a funded BUY NO at 0.99 (FAK) that fills them
 * all: one mint a maker; resolves with its answer.
 */
async function sweep(server: Server, makers: number): Promise<{ answer: Promise<TradeResult>; taker: string }> {
  const { client } = server.trading;
  const marketKey = testMarketKey(0);
  await restOrders(client, marketKey, 0, 100, makers, 0, 1);
  const taker = accountAddress(1000);
  assert.equal(client.deposit(taker, makers * MIN_SHARES * ONE_MICROS), true);
  const answer = client.placeOrder({
    account: taker, orderId: canonicalId(2, 0), marketKey, outcome: 1, side: Side.Buy, orderType: OrderType.FAK,
    priceUnits: 9900, sizeMicros: makers * MIN_SHARES * ONE_MICROS,
  });
  return { answer, taker };
}

describe('a taker that fills more orders than one answer frame holds', () => {
  const suite = suiteServer(async (dataDir) => ({ server: await startInProcess(dataDir, 1) }));

  test('gets its whole answer, and the shard stays up', async () => {
    const { server } = suite();
    const { client, pool } = server.trading;
    const makers = 11_000;
    const restarts = pool.restarts(0);
    const { answer, taker } = await sweep(server, makers);
    const result = await answer;
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
  const suite = suiteServer(async (dataDir) => ({ server: await startInProcess(dataDir, 1) }));

  test('the next worker answers it from the journal, whole, and the treasury stays exact', async () => {
    const { server } = suite();
    const { client, pool } = server.trading;
    const makers = 30_000;
    const restarts = pool.restarts(0);
    const { answer, taker } = await sweep(server, makers);
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

/** A socket that counts the messages it receives by event_type. */
async function counting(url: string, subscribe: unknown): Promise<{ ws: WebSocket; counts: Map<string, number> }> {
  const ws = new WebSocket(url);
  const counts = new Map<string, number>();
  let subscribed: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (subscribed = resolve));
  ws.on('message', (data) => {
    const text = String(data);
    if (text === 'PONG') return subscribed();
    for (const message of ([] as Record<string, unknown>[]).concat(JSON.parse(text) as Record<string, unknown>)) {
      const type = String(message['event_type']);
      counts.set(type, (counts.get(type) ?? 0) + 1);
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify(subscribe));
  // Messages are handled in order: the PONG comes once the subscription is in.
  ws.send('PING');
  await ready;
  return { ws, counts };
}

describe('a signed taker over HTTP that fills 100 000 resting orders', () => {
  const suite = suiteServer((dataDir) => startWithMarket(dataDir));

  test('gets its whole answer, and every fill reaches the WebSocket channels, the feeds and the account reads', async () => {
    const { server, market } = suite();
    const { client, pool } = server.trading;
    const makers = 100_000;
    const shares = makers * MIN_SHARES * ONE_MICROS;
    await restOrders(client, market.conditionId, 0, 100, makers, 0, 1);
    const taker = new Trader(server.urls.clob, 0x38_000_001);
    const credentials = await taker.createKey();
    assert.equal(client.deposit(taker.address, shares), true);
    const wsBase = server.urls.clob.replace('http', 'ws');
    const user = await counting(`${wsBase}/ws/user`, { auth: credentials, type: 'user' });
    const trades = await counting(`${wsBase}/ws/market`, { assets_ids: [market.no], type: 'market' });
    const restarts = pool.restarts(0);

    const placed = await taker.place<Record<string, unknown>>({ tokenId: market.no, side: 'BUY', priceUnits: 9900, sizeMicros: shares, orderType: 'FAK' });
    assert.equal(placed.status, 200, placed.text.slice(0, 500));
    assert.deepEqual(placed.body, {
      success: true, errorMsg: '', orderID: placed.orderId, status: 'matched',
      makingAmount: String(makers * MIN_SHARES * 0.99), takingAmount: String(makers * MIN_SHARES),
    });
    assert.equal(pool.restarts(0), restarts, 'the shard did not restart');

    // Every fill on the taker's user channel and as a last trade of the NO token; no socket was
    // closed for falling behind.
    await waitUntil(() => (user.counts.get('trade') ?? 0) >= makers && (trades.counts.get('last_trade_price') ?? 0) >= makers, 120_000, 'every fill on the sockets');
    assert.equal(user.counts.get('trade'), makers);
    assert.equal(trades.counts.get('last_trade_price'), makers);
    assert.equal(user.ws.readyState, WebSocket.OPEN);
    assert.equal(trades.ws.readyState, WebSocket.OPEN);
    user.ws.close();
    trades.ws.close();

    // The account reads page through all of them, 500 a page, each page seeking where the last stopped.
    const seen = new Set<string>();
    let cursor = 'MA==';
    for (let pages = 0; cursor !== 'LTE='; pages++) {
      assert.ok(pages <= makers / 500 + 1, 'the pages end');
      const page = await taker.send<{ data: { id: string; type: string }[]; next_cursor: string }>('GET', `/data/trades?next_cursor=${cursor}`);
      assert.equal(page.status, 200, page.text.slice(0, 300));
      for (const row of page.body.data) seen.add(row.id);
      cursor = page.body.next_cursor;
    }
    assert.equal(seen.size, makers, 'every fill once in the account trades');
    // So does the public feed, 10 000 a page, past where an offset stops.
    let publicItems = 0;
    let next: string | null = '';
    for (let pages = 0; next !== null; pages++) {
      assert.ok(pages <= makers / 10_000 + 1, 'the pages end');
      const page: Awaited<ReturnType<typeof request<unknown[]>>> = await request<unknown[]>(`${server.urls.data}/trades?user=${taker.address}&limit=10000${next === '' ? '' : `&cursor=${next}`}`);
      assert.equal(page.status, 200, page.text.slice(0, 300));
      publicItems += page.body.length;
      next = page.headers.get('x-next-cursor');
    }
    assert.equal(publicItems, makers, 'every fill once in the public feed');

    const balance = await client.balance(taker.address);
    assert.equal(balance.shards[0]?.positions.find((entry) => entry.outcome === 1)?.freeMicros, shares);
    assertRuntimeState(await readRuntimeState(server.trading, [taker.address, ...Array.from({ length: 10 }, (_, index) => accountAddress(index))]), false);
  });
});

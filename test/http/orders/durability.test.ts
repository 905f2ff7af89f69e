// An order acknowledged with 200 survives kill -9: after a SIGKILL right after the answers and a
// restart on the same DATA_DIR, every acknowledged order is there with its status and fills,
// trades and balances are as they were, and the credentials still work.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { removeDataDir, request, startServer } from '../../support/server.js';
import { ADMIN_TOKEN, mintAgainstBids, startTrading, type Trader } from './trader.js';

type Row = Record<string, unknown>;

test('acknowledged orders, fills and balances survive kill -9', async () => {
  const { server, markets, traders } = await startTrading([41, 42]);
  const [maker, taker] = traders as [Trader, Trader];
  const acked: { trader: Trader; orderId: string; status: string }[] = [];
  for (const [index, market] of markets.slice(0, 4).entries()) {
    const bid = await maker.place({ tokenId: market.yes, side: 'BUY', priceUnits: 4000 + 100 * index, sizeMicros: 10_000_000 });
    assert.equal(bid.status, 200, bid.text);
    acked.push({ trader: maker, orderId: bid.orderId, status: 'LIVE' });
    const hit = await taker.place({ tokenId: market.no, side: 'BUY', priceUnits: 6000 - 100 * index, sizeMicros: 5_000_000, orderType: 'FOK' });
    assert.equal(hit.status, 200, hit.text);
    acked.push({ trader: taker, orderId: hit.orderId, status: 'MATCHED' });
  }
  const balancesBefore = await Promise.all(traders.map((t) => t.send('GET', '/balance-allowance?asset_type=COLLATERAL')));
  const tradesBefore = await taker.send<{ data: Row[] }>('GET', '/data/trades');
  assert.equal(tradesBefore.body.data.length, 4);

  assert.equal(await server.stop('SIGKILL'), null, 'killed by the signal');
  const restarted = await startServer({ dataDir: server.dataDir, env: { ADMIN_TOKEN, SHARDS: '2' } });
  try {
    // The same wallets and credentials, pointed at the restarted server.
    for (const trader of traders) trader.clobUrl = restarted.urls.clob;
    const again = (trader: Trader): Trader => trader;
    for (const { trader, orderId, status } of acked) {
      const read = await again(trader).send<{ order: Row }>('GET', `/data/order/${orderId}`);
      assert.equal(read.status, 200, `${orderId} after restart: ${read.text}`);
      assert.equal(read.body.order['status'], status);
    }
    const balancesAfter = await Promise.all(traders.map((t) => again(t).send('GET', '/balance-allowance?asset_type=COLLATERAL')));
    assert.deepEqual(balancesAfter.map((r) => r.body), balancesBefore.map((r) => r.body));
    const tradesAfter = await again(taker).send<{ data: Row[] }>('GET', '/data/trades');
    assert.deepEqual(tradesAfter.body.data, tradesBefore.body.data);
  } finally {
    await restarted.stop();
    removeDataDir(server.dataDir);
  }
});

test('after kill -9 the public feeds, last trades and books catch up with every committed fill', async () => {
  const { server, markets, traders } = await startTrading([43, 44]);
  const [maker, taker] = traders as [Trader, Trader];
  const prices = await mintAgainstBids(maker, taker, markets);
  const expected = markets.map((market, index) => ({ conditionId: market.conditionId, yes: market.yes, no: market.no, priceUnits: prices[index]! }));
  // Killed at once, right after the last answer: what was answered is committed.
  assert.equal(await server.stop('SIGKILL'), null, 'killed by the signal');
  const restarted = await startServer({ dataDir: server.dataDir, env: { ADMIN_TOKEN, SHARDS: '2' } });
  try {
    const get = async <T>(url: string): Promise<T> => {
      const response = await request<T>(url);
      assert.equal(response.status, 200, `${url}: ${response.status}`);
      return response.body;
    };
    const trades = await get<Row[]>(`${restarted.urls.data}/trades?user=${taker.address}`);
    assert.equal(trades.length, expected.length, 'one taker item per fill');
    for (const { conditionId, yes, no, priceUnits } of expected) {
      const item = trades.find((trade) => trade['conditionId'] === conditionId);
      assert.ok(item !== undefined, `the fill in ${conditionId} is in the feed`);
      assert.deepEqual([item['side'], item['size'], item['price'], item['outcomeIndex']], ['BUY', 10, (10_000 - priceUnits) / 10_000, 1]);
      const last = await get<{ price: string; side: string }>(`${restarted.urls.clob}/last-trade-price?token_id=${yes}`);
      assert.equal(Number(last.price), priceUnits / 10_000);
      const book = await get<{ bids: { price: string; size: string }[] }>(`${restarted.urls.clob}/book?token_id=${yes}`);
      assert.deepEqual(book.bids, [{ price: String(priceUnits / 10_000), size: '10' }]);
      const history = await get<{ history: { p: number }[] }>(`${restarted.urls.clob}/prices-history?market=${no}&interval=max`);
      assert.equal(history.history.at(-1)?.p, (10_000 - priceUnits) / 10_000);
    }
    const activity = await get<Row[]>(`${restarted.urls.data}/activity?user=${maker.address}`);
    assert.equal(activity.filter((item) => item['type'] === 'TRADE').length, expected.length, 'the maker sees every fill');
  } finally {
    await restarted.stop();
    removeDataDir(server.dataDir);
  }
});

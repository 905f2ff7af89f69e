// Orders the matching engine no longer remembers (ORDER_HISTORY finished orders per worker; the
// orders table keeps every one): a cancel of one still says it is done or someone else's, it
// still reads as it finished, and its id is still refused as a duplicate.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { removeDataDir, type RunningServer } from '../../support/server.js';
import { startTrading, type PlainMarket, type Trader } from './trader.js';

const HISTORY = 4;

let server: RunningServer;
let market: PlainMarket;
let owner: Trader;
let stranger: Trader;

before(async () => {
  const setup = await startTrading([31, 32], { ORDER_HISTORY: String(HISTORY), SHARDS: '1' });
  server = setup.server;
  market = setup.markets[0]!;
  [owner, stranger] = setup.traders as [Trader, Trader];
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

test('a cancelled order the engine has forgotten still cancels, reads and refuses its id as it would when remembered', async () => {
  // The very same signed body is sent again at the end (a new signature would be a new order).
  const signed = owner.placementBody({ tokenId: market.yes, side: 'BUY', priceUnits: 2000, sizeMicros: 5_000_000 });
  const first = { ...(await owner.send('POST', '/order', signed.body)), orderId: signed.orderId };
  assert.equal(first.status, 200, first.text);
  const cancelled = await owner.send('DELETE', '/order', { orderID: first.orderId });
  assert.deepEqual(cancelled.body, { canceled: [first.orderId], not_canceled: {} });
  // Enough finished orders after it that the engine's history has let it go.
  for (let index = 0; index < 3 * HISTORY; index++) {
    const placed = await owner.place({ tokenId: market.yes, side: 'BUY', priceUnits: 1000 + 100 * (index % 5), sizeMicros: 5_000_000 });
    assert.equal(placed.status, 200, placed.text);
    assert.equal((await owner.send('DELETE', '/order', { orderID: placed.orderId })).status, 200);
  }

  const again = await owner.send('DELETE', '/order', { orderID: first.orderId });
  assert.deepEqual(again.body, { canceled: [], not_canceled: { [first.orderId]: 'order already matched or canceled' } });
  const foreign = await stranger.send('DELETE', '/order', { orderID: first.orderId });
  assert.deepEqual(foreign.body, { canceled: [], not_canceled: { [first.orderId]: 'the order owner is not the caller' } });
  const unknown = `0x${'ab'.repeat(32)}`;
  const missing = await owner.send('DELETE', '/order', { orderID: unknown });
  assert.deepEqual(missing.body, { canceled: [], not_canceled: { [unknown]: 'order not found' } });

  const read = await owner.send<{ order: Record<string, unknown> }>('GET', `/data/order/${first.orderId}`);
  assert.equal(read.status, 200, read.text);
  assert.deepEqual([read.body.order['id'], read.body.order['status'], read.body.order['original_size']], [first.orderId, 'CANCELED', '5']);

  const replayed = await owner.send('POST', '/order', signed.body);
  assert.equal(replayed.status, 400, replayed.text);
  assert.deepEqual(replayed.body, { error: `order ${first.orderId} is invalid. Duplicated.` });
});

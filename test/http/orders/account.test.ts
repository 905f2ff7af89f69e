// Account reads over HTTP: the caller's live orders with filters and cursors, one order of any
// status (never someone else's), and trades from the taker's and the maker's side.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { removeDataDir, type RunningServer } from '../../support/server.js';
import { startTrading, type PlainMarket, type Trader } from './trader.js';

interface Page<T> {
  data: T[];
  next_cursor: string;
  limit: number;
  count: number;
}

type Row = Record<string, unknown>;

let server: RunningServer;
let markets: readonly PlainMarket[] = [];
let maker: Trader;
let taker: Trader;
let stranger: Trader;

before(async () => {
  const setup = await startTrading([11, 12, 13]);
  ({ server, markets } = setup);
  [maker, taker, stranger] = setup.traders as [Trader, Trader, Trader];
  assert.ok(markets.length >= 3);
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

test('live orders across markets and shards, filtered by market and token, every field', async () => {
  const placed: string[] = [];
  for (const market of markets.slice(0, 3)) {
    placed.push((await maker.place({ tokenId: market.yes, side: 'BUY', priceUnits: 2000, sizeMicros: 7_000_000 })).orderId);
    placed.push((await maker.place({ tokenId: market.no, side: 'BUY', priceUnits: 3000, sizeMicros: 5_000_000 })).orderId);
  }
  const all = await maker.send<Page<Row>>('GET', '/data/orders');
  assert.equal(all.status, 200, all.text);
  assert.deepEqual(new Set(all.body.data.map((row) => row['id'])), new Set(placed));
  assert.equal(all.body.count, 6);
  assert.equal(all.body.limit, 500);
  assert.equal(all.body.next_cursor, '');
  const first = all.body.data.find((row) => row['id'] === placed[0])!;
  assert.deepEqual(Object.keys(first).sort(), [
    'assetId', 'asset_id', 'associateTrades', 'associate_trades', 'createdAt', 'created_at', 'expiration', 'id', 'makerAddress',
    'maker_address', 'market', 'order_type', 'originalSize', 'original_size', 'outcome', 'owner', 'price', 'side', 'sizeMatched',
    'size_matched', 'status', 'type',
  ]);
  assert.deepEqual([first['status'], first['market'], first['assetId'], first['price'], first['originalSize'], first['sizeMatched'], first['side'], first['type'], first['outcome'], first['makerAddress'], first['owner']],
    ['LIVE', markets[0]!.conditionId, markets[0]!.yes, '0.2', '7', '0', 'BUY', 'GTC', markets[0]!.outcomes[0], maker.address, maker.credentials?.apiKey]);
  assert.match(String(first['createdAt']), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

  const byMarket = await maker.send<Page<Row>>('GET', `/data/orders?market=${markets[1]!.conditionId}`);
  assert.deepEqual(byMarket.body.data.map((row) => row['id']).sort(), [placed[2], placed[3]].sort());
  const byToken = await maker.send<Page<Row>>('GET', `/data/orders?asset_id=${markets[2]!.no}`);
  assert.deepEqual(byToken.body.data.map((row) => row['id']), [placed[5]]);
  const byId = await maker.send<Page<Row>>('GET', `/data/orders?id=${placed[4]}`);
  assert.deepEqual(byId.body.data.map((row) => row['id']), [placed[4]]);
  assert.equal((await maker.send('GET', '/data/orders?next_cursor=MA==')).status, 200);
  assert.equal((await maker.send('GET', '/data/orders?next_cursor=%21%21')).status, 400);

  const theirs = await stranger.send<Page<Row>>('GET', `/data/orders?id=${placed[0]}`);
  assert.deepEqual(theirs.body.data, [], 'another account never sees the order');
  assert.equal((await stranger.send('GET', `/data/order/${placed[0]}`)).status, 404);
  const own = await maker.send<{ order: Row }>('GET', `/data/order/${placed[0]}`);
  assert.equal(own.body.order['id'], placed[0]);
  assert.ok('updatedAt' in own.body.order);
});

test('trades from both sides; cancelled orders keep their status', async () => {
  const market = markets[0]!;
  // taker sells nothing it lacks: it buys NO against the maker's resting YES bid at 0.20 (MINT).
  const fill = await taker.place({ tokenId: market.no, side: 'BUY', priceUnits: 8000, sizeMicros: 5_000_000 });
  assert.equal((fill.body as Row)['status'], 'matched');
  const takerTrades = await taker.send<Page<Row>>('GET', '/data/trades');
  assert.equal(takerTrades.status, 200, takerTrades.text);
  assert.equal(takerTrades.body.count, 1);
  const trade = takerTrades.body.data[0]!;
  assert.deepEqual([trade['type'], trade['taker_order_id'], trade['market'], trade['asset_id'], trade['side'], trade['size'], trade['price'], trade['status'], trade['maker_address']],
    ['TAKER', fill.orderId, market.conditionId, market.no, 'BUY', '5', '0.8', 'CONFIRMED', maker.address]);
  const makerOrders = trade['maker_orders'] as Row[];
  assert.equal(makerOrders.length, 1);
  assert.deepEqual([makerOrders[0]!['asset_id'], makerOrders[0]!['price'], makerOrders[0]!['matched_amount'], makerOrders[0]!['side']], [market.yes, '0.2', '5', 'BUY']);
  assert.equal(takerTrades.body.next_cursor, 'LTE=');

  const makerTrades = await maker.send<Page<Row>>('GET', '/data/trades');
  assert.equal(makerTrades.body.data[0]!['type'], 'MAKER');
  assert.equal(makerTrades.body.data[0]!['id'], trade['id']);
  assert.deepEqual((await stranger.send<Page<Row>>('GET', '/data/trades')).body.data, []);
  assert.equal((await maker.send<Page<Row>>('GET', `/data/trades?id=${String(trade['id'])}`)).body.count, 1);
  assert.equal((await maker.send<Page<Row>>('GET', `/data/trades?maker=${stranger.address}`)).body.count, 0);
  assert.equal((await maker.send<Page<Row>>('GET', '/data/trades?before=1000')).body.count, 0);
  assert.equal((await maker.send<Page<Row>>('GET', '/data/trades?after=1000')).body.count, 1);

  const partly = await maker.send<{ order: Row }>('GET', `/data/order/${String(makerOrders[0]!['order_id'])}`);
  assert.deepEqual([partly.body.order['status'], partly.body.order['sizeMatched']], ['LIVE', '5']);
  const liveIds = (await maker.send<Page<Row>>('GET', '/data/orders')).body.data.map((row) => String(row['id']));
  await maker.send('DELETE', '/orders', liveIds);
  const cancelled = await maker.send<{ order: Row }>('GET', `/data/order/${liveIds[0]}`);
  assert.equal(cancelled.body.order['status'], 'CANCELED');
  assert.equal((await maker.send<Page<Row>>('GET', '/data/orders')).body.count, 0);
});

test('balance-allowance: collateral held vs usable, and token positions', async () => {
  const market = markets[1]!;
  const collateral = async (trader: Trader) => (await trader.send<{ balance: string; allowance: string }>('GET', '/balance-allowance?asset_type=COLLATERAL')).body;
  assert.deepEqual(await collateral(stranger), { balance: '1000000000', allowance: '1000000000' });
  const order = await stranger.place({ tokenId: market.yes, side: 'BUY', priceUnits: 5000, sizeMicros: 5_000_000 });
  assert.deepEqual(await collateral(stranger), { balance: '1000000000', allowance: '997500000' });
  await stranger.send('DELETE', '/order', { orderID: order.orderId });
  assert.deepEqual(await collateral(stranger), { balance: '1000000000', allowance: '1000000000' });
  // The taker holds the 5 NO shares it bought in markets[0] in the previous test.
  const position = await taker.send('GET', `/balance-allowance?asset_type=CONDITIONAL&token_id=${markets[0]!.no}`);
  assert.deepEqual(position.body, { balance: '5000000', allowance: '5000000' });
  assert.equal((await taker.send('GET', '/balance-allowance')).status, 400);
  assert.equal((await taker.send('GET', '/balance-allowance?asset_type=CONDITIONAL&token_id=1')).status, 400);
});

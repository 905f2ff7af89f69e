// The CLOB routes Polymarket's official V2 TypeScript client (@polymarket/clob-client-v2,
// unchanged) calls that clobd answered 404 to: updateBalanceAllowance (GET
// /balance-allowance/update, which bots call before trading), getClosedOnlyMode (GET
// /auth/ban-status/closed-only), getNotifications and dropNotifications (GET and DELETE
// /notifications), isOrderScoring (GET /order-scoring), areOrdersScoring (POST /orders-scoring)
// and getMarketTradesEvents (GET /markets/live-activity/{condition_id}, public). Each is driven
// through the client, and its answer is what the client's types declare and what Polymarket
// answers; the errors and bounds are checked with plain requests. The client is pointed at the
// server's default CLOB URL and signs for its default domain (chain 80002), as in
// official_client_v2.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AssetType, Chain, ClobClient, OrderType, Side, type ApiKeyCreds, type MarketTradeEvent } from '@polymarket/clob-client-v2';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { createMarket, startOfficialServer, walletOf } from './official_setup.js';
import { ADMIN_TOKEN, deposit, Trader, type PlainMarket } from './trader.js';

const DEPOSIT_MICROS = 100_000_000;

let server: RunningServer;
let clobUrl = '';
let market: PlainMarket;

interface Bot {
  readonly client: ClobClient;
  readonly plain: Trader;
  readonly creds: ApiKeyCreds;
}

async function fundedBot(seed: number): Promise<Bot> {
  const plain = new Trader(server.urls.clob, seed);
  await deposit(server.urls.clob, plain.address, DEPOSIT_MICROS);
  const creds = await new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(plain.secret) }).createApiKey(0);
  plain.credentials = { apiKey: creds.key, secret: creds.secret, passphrase: creds.passphrase };
  const client = new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(plain.secret), creds });
  return { client, plain, creds };
}

let maker: Bot;
let taker: Bot;

before(async () => {
  ({ server, url: clobUrl } = await startOfficialServer());
  market = await createMarket(server.urls.clob, 'Extras bot', { question: 'Will a bot call every route?' });
  maker = await fundedBot(711);
  taker = await fundedBot(712);
});

after(async () => {
  await server?.stop();
  if (server !== undefined) removeDataDir(server.dataDir);
});

test('updateBalanceAllowance answers 200 with an empty body, as Polymarket does, and changes nothing', async () => {
  const before = await maker.client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
  // The client returns the body as axios read it: "" for an empty body.
  assert.equal(await maker.client.updateBalanceAllowance({ asset_type: AssetType.COLLATERAL }), '');
  assert.equal(await maker.client.updateBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: market.yes }), '');
  assert.deepEqual(await maker.client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL }), before);
  const plain = await maker.plain.send('GET', '/balance-allowance/update?asset_type=COLLATERAL&signature_type=0');
  assert.deepEqual([plain.status, plain.text, plain.headers.get('content-length')], [200, '', '0']);
  // The query of GET /balance-allowance, with its errors.
  const missing = await maker.plain.send('GET', '/balance-allowance/update');
  assert.deepEqual([missing.status, missing.body], [400, { error: 'asset_type is required: COLLATERAL or CONDITIONAL' }]);
  const unknown = await maker.plain.send('GET', '/balance-allowance/update?asset_type=CONDITIONAL&token_id=123');
  assert.equal(unknown.status, 400, unknown.text);
  assert.equal((await request(`${server.urls.clob}/balance-allowance/update?asset_type=COLLATERAL`)).status, 401);
});

test('getClosedOnlyMode: {closed_only: false}', async () => {
  assert.deepEqual(await maker.client.getClosedOnlyMode(), { closed_only: false });
  assert.equal((await request(`${server.urls.clob}/auth/ban-status/closed-only`)).status, 401);
});

test('getNotifications is [] and dropNotifications answers 200 with an empty body', async () => {
  assert.deepEqual(await maker.client.getNotifications(), []);
  assert.equal(await maker.client.dropNotifications({ ids: ['1', '2'] }), '');
  assert.equal(await maker.client.dropNotifications(), '');
  assert.deepEqual(await maker.client.getNotifications(), []);
  assert.equal((await request(`${server.urls.clob}/notifications?signature_type=0`)).status, 401);
  assert.equal((await request(`${server.urls.clob}/notifications?ids=1`, { method: 'DELETE' })).status, 401);
});

test('isOrderScoring and areOrdersScoring: no order earns rewards here, so every one is false; at most 500 ids', async () => {
  const placed = await maker.client.createAndPostOrder({ tokenID: market.yes, price: 0.3, size: 10, side: Side.BUY });
  assert.equal(placed.status, 'live', JSON.stringify(placed));
  assert.deepEqual(await maker.client.isOrderScoring({ order_id: placed.orderID }), { scoring: false });
  assert.deepEqual(await maker.client.areOrdersScoring({ orderIds: [placed.orderID, '0xabc'] }), { [placed.orderID]: false, '0xabc': false });
  assert.deepEqual(await maker.client.areOrdersScoring({ orderIds: [] }), {});
  const tooMany = await maker.plain.send('POST', '/orders-scoring', Array.from({ length: 501 }, (_, index) => `0x${index}`));
  assert.deepEqual([tooMany.status, tooMany.body], [400, { error: 'at most 500 order ids per request' }]);
  const notIds = await maker.plain.send('POST', '/orders-scoring', { orderIds: ['0x1'] });
  assert.equal(notIds.status, 400, notIds.text);
  const noId = await maker.plain.send('GET', '/order-scoring');
  assert.equal(noId.status, 400, noId.text);
  assert.equal((await request(`${server.urls.clob}/order-scoring?order_id=0x1`)).status, 401);
  await maker.client.cancelAll();
});

test("getMarketTradesEvents: the market's latest fills, newest first, as the client's MarketTradeEvent; 404 for an unknown market", async () => {
  assert.deepEqual(await taker.client.getMarketTradesEvents(market.conditionId), []);
  const profile = await request(`${server.urls.clob}/admin/profiles/${taker.plain.address}`, {
    method: 'PUT', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'taker-bot', profileImage: 'https://example.com/taker.png' }),
  });
  assert.equal(profile.status, 200, profile.text);
  const resting = await maker.client.createAndPostOrder({ tokenID: market.yes, price: 0.4, size: 20, side: Side.BUY });
  assert.equal(resting.status, 'live', JSON.stringify(resting));
  // Two fills: BUY NO at 0.60 against the YES bid at 0.40 (a mint), 5 then 7 shares.
  for (const size of [5, 7]) {
    const fill = await taker.client.createAndPostOrder({ tokenID: market.no, price: 0.6, size, side: Side.BUY });
    assert.equal(fill.status, 'matched', JSON.stringify(fill));
  }
  const events: MarketTradeEvent[] = await taker.client.getMarketTradesEvents(market.conditionId);
  const direct = await request<MarketTradeEvent[]>(`${server.urls.clob}/markets/live-activity/${market.conditionId}`);
  assert.deepEqual(events, direct.body);
  assert.equal(events.length, 2);
  const publicTrades = await request<{ transactionHash: string; timestamp: number }[]>(`${server.urls.clob}/trades?market=${market.conditionId}`);
  assert.deepEqual(events.map((event) => event.transaction_hash), publicTrades.body.map((trade) => trade.transactionHash), 'the fills of GET /trades, newest first');
  const [newest] = events as [MarketTradeEvent];
  assert.deepEqual(Object.keys(newest).sort(), [
    'event_type', 'fee_rate_bps', 'market', 'outcome', 'outcome_index', 'price', 'side', 'size', 'timestamp', 'transaction_hash', 'user',
  ]);
  assert.deepEqual({ ...newest, transaction_hash: undefined, timestamp: undefined }, {
    event_type: 'trade',
    market: { condition_id: market.conditionId, asset_id: market.no, question: 'Will a bot call every route?', icon: '', slug: newest.market.slug },
    user: {
      address: taker.plain.address, username: 'taker-bot', profile_picture: 'https://example.com/taker.png',
      optimized_profile_picture: 'https://example.com/taker.png', pseudonym: newest.user.pseudonym,
    },
    side: 'BUY', size: '7', fee_rate_bps: '0', price: '0.6', outcome: market.outcomes[1], outcome_index: 1,
    transaction_hash: undefined, timestamp: undefined,
  });
  assert.equal(newest.timestamp, String(publicTrades.body[0]!.timestamp));
  assert.ok(newest.user.pseudonym.length > 0);
  assert.equal(events[1]!.size, '5');

  const unknown = await taker.client.getMarketTradesEvents(`0x${'0'.repeat(64)}`) as unknown as { error: unknown; status: number };
  assert.deepEqual(unknown, { error: 'market not found', status: 404 });
  await maker.client.cancelAll();
});

test('getMarketTradesEvents shows the latest 100 fills: those GET /trades?limit=100 shows first', async () => {
  const busy = await createMarket(server.urls.clob, 'Busy market', { question: 'Will 105 fills happen?' });
  // 105 YES bids at 0.01 of 5 shares, posted 15 to a request.
  for (let from = 0; from < 105; from += 15) {
    const orders = [];
    for (let index = 0; index < 15; index++) {
      orders.push({ order: await maker.client.createOrder({ tokenID: busy.yes, price: 0.01, size: 5, side: Side.BUY }), orderType: OrderType.GTC });
    }
    const posted = await maker.client.postOrders(orders);
    assert.ok(posted.every((answer) => answer.success), JSON.stringify(posted));
  }
  await deposit(server.urls.clob, taker.plain.address, 1_000_000_000);
  // One command, 105 fills: BUY NO at 0.99 against the 105 YES bids.
  const sweep = await taker.client.createAndPostOrder({ tokenID: busy.no, price: 0.99, size: 525, side: Side.BUY });
  assert.equal(sweep.status, 'matched', JSON.stringify(sweep));
  const events = await taker.client.getMarketTradesEvents(busy.conditionId);
  assert.equal(events.length, 100);
  const latest = await request<{ transactionHash: string }[]>(`${server.urls.clob}/trades?market=${busy.conditionId}&limit=100`);
  assert.deepEqual(events.map((event) => event.transaction_hash), latest.body.map((trade) => trade.transactionHash));
  assert.ok(events.every((event) => event.side === 'BUY' && event.price === '0.99' && event.size === '5' && event.market.asset_id === busy.no));
});

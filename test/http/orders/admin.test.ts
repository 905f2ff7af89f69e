// Admin trading controls over HTTP: pause and resume a market, and resolve one, which cancels
// its orders (CANCELED_MARKET_RESOLVED), pays 1.00 per winning share and shows in balances and
// in the catalog.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { ADMIN_TOKEN, startTrading, type PlainMarket, type Trader } from './trader.js';

let server: RunningServer;
let markets: readonly PlainMarket[];
let yesBuyer: Trader;
let noBuyer: Trader;

before(async () => {
  const setup = await startTrading([31, 32], {}, 100_000_000);
  ({ server, markets } = setup);
  [yesBuyer, noBuyer] = setup.traders as [Trader, Trader];
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

function admin(path: string, body?: unknown, token = ADMIN_TOKEN) {
  return request<Record<string, unknown>>(`${server.urls.clob}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const collateral = async (trader: Trader) =>
  (await trader.send<{ balance: string; allowance: string }>('GET', '/balance-allowance?asset_type=COLLATERAL')).body;

test('pause refuses new orders with the contract text; resume accepts them again', async () => {
  const market = markets[0]!;
  assert.equal((await admin(`/admin/markets/${market.conditionId}/pause`)).status, 200);
  const refused = await yesBuyer.place({ tokenId: market.yes, side: 'BUY', priceUnits: 5000, sizeMicros: 5_000_000 });
  assert.deepEqual([refused.status, refused.body], [400, { error: 'the market is not yet ready to process new orders' }]);
  const catalog = await request<{ acceptingOrders: boolean }>(`${server.urls.catalog}/markets/${market.conditionId}`);
  assert.equal(catalog.body.acceptingOrders, false);
  assert.equal((await admin(`/admin/markets/${market.conditionId}/resume`)).status, 200);
  const accepted = await yesBuyer.place({ tokenId: market.yes, side: 'BUY', priceUnits: 5000, sizeMicros: 5_000_000 });
  assert.equal(accepted.status, 200, accepted.text);
  await yesBuyer.send('DELETE', '/cancel-all');
  assert.equal((await admin(`/admin/markets/${market.conditionId}/pause`, undefined, 'wrong')).status, 401);
  assert.equal((await admin(`/admin/markets/0x${'12'.repeat(32)}/pause`)).status, 404);
});

test('resolution cancels resting orders, pays the winners and closes the market', async () => {
  const market = markets[1]!;
  // Mint 10 sets: YES at 0.30 against NO at 0.70.
  await yesBuyer.place({ tokenId: market.yes, side: 'BUY', priceUnits: 3000, sizeMicros: 10_000_000 });
  const mint = await noBuyer.place({ tokenId: market.no, side: 'BUY', priceUnits: 7000, sizeMicros: 10_000_000 });
  assert.equal((mint.body as Record<string, unknown>)['status'], 'matched');
  const resting = await yesBuyer.place({ tokenId: market.yes, side: 'BUY', priceUnits: 1000, sizeMicros: 5_000_000 });
  assert.deepEqual(await collateral(yesBuyer), { balance: '97000000', allowance: '96500000' });

  assert.equal((await admin(`/admin/markets/${market.conditionId}/resolve`, { winner: 'Maybe' })).status, 400);
  const resolved = await admin(`/admin/markets/${market.conditionId}/resolve`, { winner: market.outcomes[0] });
  assert.equal(resolved.status, 200, resolved.text);
  assert.equal(resolved.body['winner_token_id'], market.yes);

  const cancelled = await yesBuyer.send<{ order: Record<string, unknown> }>('GET', `/data/order/${resting.orderId}`);
  assert.equal(cancelled.body.order['status'], 'CANCELED_MARKET_RESOLVED');
  assert.deepEqual(await collateral(yesBuyer), { balance: '107000000', allowance: '107000000' }, '10 winning shares paid 1.00 each');
  assert.deepEqual(await collateral(noBuyer), { balance: '93000000', allowance: '93000000' }, 'the losing side keeps nothing');
  const position = await yesBuyer.send('GET', `/balance-allowance?asset_type=CONDITIONAL&token_id=${market.yes}`);
  assert.deepEqual(position.body, { balance: '0', allowance: '0' });
  // Repeating it is safe: the same answer, and nothing paid twice; another winner is refused.
  const again = await admin(`/admin/markets/${market.conditionId}/resolve`, { winner: market.outcomes[0] });
  assert.deepEqual([again.status, again.body], [200, resolved.body]);
  assert.deepEqual(await collateral(yesBuyer), { balance: '107000000', allowance: '107000000' });
  const other = await admin(`/admin/markets/${market.conditionId}/resolve`, { winner: market.outcomes[1] });
  assert.deepEqual([other.status, other.body], [400, { error: `the market is already resolved; its winner is ${market.outcomes[0]}` }]);
  const catalog = await request<{ closed: boolean; acceptingOrders: boolean }>(`${server.urls.catalog}/markets/${market.conditionId}`);
  assert.deepEqual([catalog.body.closed, catalog.body.acceptingOrders], [true, false]);
});

test('profiles: set some fields, keep the rest, refuse unknown fields and bad addresses', async () => {
  const put = (address: string, body: unknown) => request<Record<string, unknown>>(`${server.urls.clob}/admin/profiles/${address}`, {
    method: 'PUT', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const first = await put(yesBuyer.checksumLikeAddress, { name: 'Yes Buyer', bio: 'buys yes' });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.body['address'], yesBuyer.address);
  assert.deepEqual([first.body['name'], first.body['bio'], first.body['profileImage']], ['Yes Buyer', 'buys yes', '']);
  assert.match(String(first.body['pseudonym']), /^[A-Z][a-z]+-[A-Z][a-z]+$/, 'a derived pseudonym until one is set');
  const second = await put(yesBuyer.address, { pseudonym: 'yb' });
  assert.deepEqual([second.body['name'], second.body['pseudonym']], ['Yes Buyer', 'yb']);
  assert.equal((await put(yesBuyer.address, { email: 'x' })).status, 400);
  assert.equal((await put(yesBuyer.address, { name: 7 })).status, 400);
  assert.equal((await put('0x1234', { name: 'x' })).status, 400);
});

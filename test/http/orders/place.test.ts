// Order placement and cancels over HTTP against the real server, with real keys: credentials
// from L1, L2 on every call, orders signed with @noble/curves. Covers the life cycle of resting,
// crossing (NORMAL and MINT), FOK and FAK orders, every edge rejection text, batches with partial
// failures, and cancels of own, foreign, filled and unknown orders.
import assert from 'node:assert/strict';
import { after, before, suite, test } from 'node:test';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { startTrading, type Trader } from './trader.js';

let server: RunningServer;
let yes = '';
let no = '';
let conditionId = '';
let alice: Trader;
let bob: Trader;
let carol: Trader;

before(async () => {
  const setup = await startTrading([1, 2, 3]);
  server = setup.server;
  const market = setup.markets[0];
  assert.ok(market !== undefined, 'the demo catalog has a plain 0.01-tick market');
  ({ yes, no, conditionId } = market);
  [alice, bob, carol] = setup.traders as [Trader, Trader, Trader];
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

const shares = (count: number): number => count * 1_000_000;

suite('credentials', () => {
  test('derive returns the created credentials; a second create for the same nonce is refused', async () => {
    const derived = await request(`${server.urls.clob}/auth/derive-api-key`, { headers: alice.l1Headers() });
    assert.equal(derived.status, 200);
    assert.deepEqual(derived.body, alice.credentials);
    const again = await request(`${server.urls.clob}/auth/api-key`, { method: 'POST', headers: alice.l1Headers() });
    assert.equal(again.status, 400);
    const listed = await alice.send<{ apiKeys: string[] }>('GET', '/auth/api-keys');
    assert.deepEqual(listed.body, { apiKeys: [alice.credentials?.apiKey] });
  });

  test('a bad L1 signature, a stale L1 timestamp and a missing header are 401 Invalid L1 Request headers', async () => {
    const forged = { ...alice.l1Headers(5), 'SERVICE-SIGNATURE': bob.l1Headers(5)['SERVICE-SIGNATURE']! };
    const stale = alice.l1Headers(5, Math.floor(Date.now() / 1000) - 3600);
    const { 'SERVICE-SIGNATURE': _dropped, ...missing } = alice.l1Headers(5);
    for (const headers of [forged, stale, missing]) {
      const response = await request(`${server.urls.clob}/auth/api-key`, { method: 'POST', headers });
      assert.equal(response.status, 401);
      assert.deepEqual(response.body, { error: 'Invalid L1 Request headers' });
    }
  });

  test('L2 failures over HTTP are the same 401: bad HMAC, stale timestamp, body altered after signing', async () => {
    const path = '/order';
    const body = JSON.stringify({ orderID: '0x01' });
    const cases = [
      alice.l2Headers('DELETE', path, body, { signature: '00'.repeat(32) }),
      alice.l2Headers('DELETE', path, body, { timestamp: String(Math.floor(Date.now() / 1000) - 3600) }),
      alice.l2Headers('DELETE', path, JSON.stringify({ orderID: '0x02' })),
    ];
    for (const headers of cases) {
      const response = await request(`${server.urls.clob}${path}`, { method: 'DELETE', headers, body });
      assert.equal(response.status, 401);
      assert.deepEqual(response.body, { error: 'Unauthorized/Invalid api key' });
    }
  });
});

suite('placing', () => {
  test('a resting BUY is live; a crossing SELL is matched with the amounts filled at once', async () => {
    // bob needs YES shares to sell: he mints by buying NO against alice's YES bid... so first
    // carol and bob mint a complete set through crossing BUYs (MINT).
    const bid = await alice.place({ tokenId: yes, side: 'BUY', priceUnits: 4000, sizeMicros: shares(10) });
    assert.equal(bid.status, 200, bid.text);
    assert.deepEqual(bid.body, { success: true, errorMsg: '', orderID: bid.orderId, status: 'live', makingAmount: '0', takingAmount: '0' });
    const mint = await bob.place({ tokenId: no, side: 'BUY', priceUnits: 6000, sizeMicros: shares(6) });
    assert.equal(mint.status, 200, mint.text);
    assert.equal((mint.body as { status: string }).status, 'matched');
    assert.equal((mint.body as { makingAmount: string }).makingAmount, '3.6');
    assert.equal((mint.body as { takingAmount: string }).takingAmount, '6');
    // alice now holds 6 YES; she sells 5 into carol's bid at 0.45 (price improvement for nobody: maker's price).
    const carolBid = await carol.place({ tokenId: yes, side: 'BUY', priceUnits: 4500, sizeMicros: shares(5) });
    assert.equal((carolBid.body as { status: string }).status, 'live');
    const sell = await alice.place({ tokenId: yes, side: 'SELL', priceUnits: 4400, sizeMicros: shares(5) });
    assert.equal(sell.status, 200, sell.text);
    assert.deepEqual(sell.body, { success: true, errorMsg: '', orderID: sell.orderId, status: 'matched', makingAmount: '5', takingAmount: '2.25' });
  });

  test('the same signed order twice is a duplicate', async () => {
    const { body, orderId } = alice.placementBody({ tokenId: yes, side: 'BUY', priceUnits: 1000, sizeMicros: shares(5) });
    assert.equal((await alice.send('POST', '/order', body)).status, 200);
    const again = await alice.send('POST', '/order', body);
    assert.equal(again.status, 400);
    assert.deepEqual(again.body, { error: `order ${orderId} is invalid. Duplicated.` });
  });

  test('edge rejections carry the contract texts', async () => {
    const offTick = await alice.place({ tokenId: yes, side: 'BUY', priceUnits: 4050, sizeMicros: shares(10) });
    assert.deepEqual(offTick.body, { error: `order ${offTick.orderId} is invalid. Price (0.405) breaks minimum tick size rule: 0.01` });
    const small = await alice.place({ tokenId: yes, side: 'BUY', priceUnits: 4000, sizeMicros: shares(4) });
    assert.deepEqual(small.body, { error: `order ${small.orderId} is invalid. Size (4) lower than the minimum: 5` });
    const broke = await carol.place({ tokenId: yes, side: 'BUY', priceUnits: 9900, sizeMicros: shares(5_000) });
    assert.deepEqual(broke.body, { error: 'not enough balance / allowance' });
    const fok = await carol.place({ tokenId: no, side: 'BUY', priceUnits: 100, sizeMicros: shares(5), orderType: 'FOK' });
    assert.deepEqual(fok.body, { error: "order couldn't be fully filled. FOK orders are fully filled or killed." });
    const fak = await carol.place({ tokenId: no, side: 'BUY', priceUnits: 100, sizeMicros: shares(5), orderType: 'FAK' });
    assert.deepEqual(fak.body, { error: 'no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.' });
    const gtd = await carol.place({ tokenId: yes, side: 'BUY', priceUnits: 100, sizeMicros: shares(5), orderType: 'GTD', expiration: String(Math.floor(Date.now() / 1000) + 10) });
    assert.deepEqual(gtd.body, { error: 'invalid expiration' });
    for (const response of [offTick, small, broke, fok, fak, gtd]) assert.equal(response.status, 400);
  });

  test('a signature by another key, an owner that is not the caller, and a signer that is not the key', async () => {
    const forged = alice.placementBody({ tokenId: yes, side: 'BUY', priceUnits: 1000, sizeMicros: shares(5) }, bob);
    assert.deepEqual((await alice.send('POST', '/order', forged.body)).body, { error: 'invalid signature' });
    const owned = alice.placementBody({ tokenId: yes, side: 'BUY', priceUnits: 1000, sizeMicros: shares(5) });
    const wrongOwner = await alice.send('POST', '/order', { ...owned.body, owner: bob.credentials?.apiKey });
    assert.deepEqual(wrongOwner.body, { error: 'the order owner has to be the owner of the API KEY' });
    // bob signs his own order correctly but sends it with alice's credentials and owner.
    const bobs = bob.placementBody({ tokenId: yes, side: 'BUY', priceUnits: 1000, sizeMicros: shares(5) });
    const viaAlice = await alice.send('POST', '/order', { ...bobs.body, owner: alice.credentials?.apiKey });
    assert.deepEqual(viaAlice.body, { error: 'the order signer address has to be the address of the API KEY' });
  });

  test('a batch answers each order on its own', async () => {
    const good = alice.placementBody({ tokenId: yes, side: 'BUY', priceUnits: 1100, sizeMicros: shares(5) });
    const bad = alice.placementBody({ tokenId: yes, side: 'BUY', priceUnits: 1150, sizeMicros: shares(5) });
    const response = await alice.send<Record<string, unknown>[]>('POST', '/orders', [good.body, bad.body]);
    assert.equal(response.status, 200);
    assert.equal(response.body[0]?.['success'], true);
    assert.equal(response.body[0]?.['orderID'], good.orderId);
    assert.equal(response.body[1]?.['success'], false);
    assert.match(String(response.body[1]?.['errorMsg']), /breaks minimum tick size rule/);
    const tooMany = await alice.send('POST', '/orders', Array.from({ length: 16 }, () => good.body));
    assert.equal(tooMany.status, 400);
  });
});

suite('cancelling', () => {
  test('own orders cancel; foreign, unknown and already cancelled ones do not', async () => {
    const mine = await alice.place({ tokenId: yes, side: 'BUY', priceUnits: 200, sizeMicros: shares(5) });
    const theirs = await bob.place({ tokenId: yes, side: 'BUY', priceUnits: 200, sizeMicros: shares(5) });
    const foreign = await alice.send('DELETE', '/order', { orderID: theirs.orderId });
    assert.deepEqual(foreign.body, { canceled: [], not_canceled: { [theirs.orderId]: 'the order owner is not the caller' } });
    const own = await alice.send('DELETE', '/order', { orderID: mine.orderId });
    assert.deepEqual(own.body, { canceled: [mine.orderId], not_canceled: {} });
    const twice = await alice.send('DELETE', '/order', { orderID: mine.orderId });
    assert.deepEqual(twice.body, { canceled: [], not_canceled: { [mine.orderId]: 'order already matched or canceled' } });
    const unknown = `0x${'ab'.repeat(32)}`;
    const none = await alice.send('DELETE', '/orders', [unknown]);
    assert.deepEqual(none.body, { canceled: [], not_canceled: { [unknown]: 'order not found' } });
  });

  test('cancel-market-orders and cancel-all cancel exactly the caller\'s open orders', async () => {
    const a = await carol.place({ tokenId: yes, side: 'BUY', priceUnits: 300, sizeMicros: shares(5) });
    const b = await carol.place({ tokenId: no, side: 'BUY', priceUnits: 300, sizeMicros: shares(5) });
    const byToken = await carol.send<{ canceled: string[] }>('DELETE', '/cancel-market-orders', { asset_id: no });
    assert.deepEqual(byToken.body.canceled, [b.orderId]);
    const byMarket = await carol.send<{ canceled: string[] }>('DELETE', '/cancel-market-orders', { market: conditionId });
    assert.ok(byMarket.body.canceled.includes(a.orderId));
    const rest = await carol.send<{ canceled: string[] }>('DELETE', '/cancel-all');
    assert.equal(rest.status, 200);
    const again = await carol.send<{ canceled: string[] }>('DELETE', '/cancel-all');
    assert.deepEqual(again.body, { canceled: [], not_canceled: {} });
  });
});

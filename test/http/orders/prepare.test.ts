// An order prepared on a front-end thread (FRONT_ENDS > 1): the thread works out the order's id
// and who signed it from the body alone and what it was told of the token's exchange, and the
// main thread uses that only when it agrees with the token's market. A preparation made for the
// other exchange is ignored (the order is checked in full, and the thread is told the right one),
// and a signature the thread could not recover is refused as any bad signature is. (A thread
// recovers on its own pool; here the recovery runs on the calling thread.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recoverAddress } from '../../../http/auth/recover.js';
import { signaturesBusy, verifyThreadsEach } from '../../../http/auth/verifier.js';
import { HttpError } from '../../../http/errors.js';
import type { MarketRecord } from '../../../http/catalog/model.js';
import { prepareOrder, readSignedOrder, SIGNATURES_BUSY, type OrderContext, type OrderToken, type PreparedOrder, type PreparedOrders } from '../../../http/trading/order_request.js';
import { CHAIN_ID, DOMAIN_NAME, EXCHANGE_ADDRESS, NEG_RISK_EXCHANGE_ADDRESS, Trader } from './trader.js';

const PLAIN_TOKEN = '1001';
const NEG_RISK_TOKEN = '2002';
const domains = { chainId: CHAIN_ID, domainName: DOMAIN_NAME, exchangeAddress: EXCHANGE_ADDRESS, negRiskExchangeAddress: NEG_RISK_EXCHANGE_ADDRESS };
const alice = new Trader('', 401);
const bob = new Trader('', 402);
const API_KEY = 'alice-key';

function market(negRisk: boolean): MarketRecord {
  return { conditionId: `0x${(negRisk ? 'b' : 'a').repeat(64)}`, negRisk, tickUnits: 100, minSizeMicros: 5_000_000 } as MarketRecord;
}

const markets = new Map([[PLAIN_TOKEN, market(false)], [NEG_RISK_TOKEN, market(true)]]);
const told = new Map([[PLAIN_TOKEN, false], [NEG_RISK_TOKEN, true]]);

/** A thread's preparation, recovering on the calling thread. */
async function prepare(placed: unknown, negRiskOf: (tokenId: string) => boolean | undefined): Promise<PreparedOrder | undefined> {
  const prepared = await prepareOrder(placed, domains, negRiskOf, (digest, signature) => Promise.resolve(recoverAddress(digest, signature)));
  assert.notEqual(prepared, SIGNATURES_BUSY);
  return prepared as PreparedOrder | undefined;
}

/** The main thread's context; `recover` counts what it recovered itself. */
function context(): OrderContext & { recovered: number } {
  const made = {
    ...domains, recovered: 0,
    key: { apiKey: API_KEY, address: alice.address, secretBytes: Buffer.alloc(32), passphrase: '' },
    token: (tokenId: string) => (markets.has(tokenId) ? { market: markets.get(tokenId)!, outcome: 0 } : undefined),
    recover: (digest: Uint8Array, signature: string) => {
      made.recovered++;
      return Promise.resolve(recoverAddress(digest, signature));
    },
  };
  return made;
}

function body(tokenId: string, options: { negRisk?: boolean; signer?: Trader } = {}): { body: Record<string, unknown>; orderId: string } {
  const { order, orderId } = alice.signOrder({ tokenId, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000, negRisk: options.negRisk ?? tokenId === NEG_RISK_TOKEN }, options.signer);
  return { body: { order, owner: API_KEY, orderType: 'GTC' }, orderId };
}

/** A request's preparations, recording what the main thread used and told. */
function preparing(orders: (PreparedOrder | typeof SIGNATURES_BUSY | undefined)[]): PreparedOrders & { usedCount: number; learned: [string, boolean][] } {
  const made = {
    orders, usedCount: 0, learned: [] as [string, boolean][],
    used: () => void made.usedCount++,
    learn: (tokenId: string, token: OrderToken) => void made.learned.push([tokenId, token.market.negRisk]),
    authenticated: () => undefined,
  };
  return made;
}

test('a thread prepares the id and the signer the main thread would work out, for either exchange', async () => {
  for (const tokenId of [PLAIN_TOKEN, NEG_RISK_TOKEN]) {
    const { body: placed, orderId } = body(tokenId);
    assert.deepEqual(await prepare(placed, (id) => told.get(id)), { orderId, negRisk: tokenId === NEG_RISK_TOKEN, signer: alice.address });
  }
  // Signed by another key: prepared, with the signer it recovers (the main thread refuses it).
  assert.equal((await prepare(body(PLAIN_TOKEN, { signer: bob }).body, (id) => told.get(id)))?.signer, bob.address);
  // Signed for the other exchange: the id is the one of the token's exchange, and the signer is nobody in particular.
  const wrong = await prepare(body(NEG_RISK_TOKEN, { negRisk: false }).body, (id) => told.get(id));
  assert.notEqual(wrong?.signer, alice.address);
});

test('a thread prepares nothing it cannot read, nor an order of a token it was not told about', async () => {
  const { body: placed } = body(PLAIN_TOKEN);
  assert.equal(await prepare(placed, () => undefined), undefined, 'a token not told');
  assert.equal(await prepare(42, (id) => told.get(id)), undefined, 'not an object');
  assert.equal(await prepare({ ...placed, order: { ...(placed['order'] as object), signature: 7 } }, (id) => told.get(id)), undefined, 'no signature text');
  assert.equal(await prepare({ ...placed, order: { ...(placed['order'] as object), maker: '0x12' } }, (id) => told.get(id)), undefined, 'a maker that does not encode');
  // A signature that is not one: prepared, recovering nobody.
  assert.equal((await prepare({ ...placed, order: { ...(placed['order'] as object), signature: '0x1234' } }, (id) => told.get(id)))?.signer, '');
});

test('the main thread uses a preparation that agrees with the token\'s exchange, and recovers nothing itself', async () => {
  const { body: placed, orderId } = body(NEG_RISK_TOKEN);
  const made = context();
  const prepared = preparing([await prepare(placed, (id) => told.get(id))]);
  const order = await readSignedOrder(placed, made, Date.now(), prepared.orders[0], prepared);
  assert.equal(order.orderId, orderId);
  assert.equal(order.place.account, alice.address);
  assert.equal(made.recovered, 0);
  assert.equal(prepared.usedCount, 1);
  assert.deepEqual(prepared.learned, []);
});

test('a preparation for the other exchange is ignored: the order is checked in full and the thread told the token\'s', async () => {
  const { body: placed, orderId } = body(PLAIN_TOKEN);
  const made = context();
  // A thread that believed the plain token neg-risk: its id and signer would be wrong.
  const believed = (await prepare(placed, () => true))!;
  assert.notEqual(believed.orderId, orderId);
  const prepared = preparing([believed]);
  const order = await readSignedOrder(placed, made, Date.now(), believed, prepared);
  assert.equal(order.orderId, orderId);
  assert.equal(made.recovered, 1);
  assert.equal(prepared.usedCount, 0);
  assert.deepEqual(prepared.learned, [[PLAIN_TOKEN, false]]);
});

test('a prepared signature that recovered nobody, or someone else, is refused as invalid', async () => {
  const { body: placed } = body(PLAIN_TOKEN);
  for (const signer of ['', bob.address]) {
    const prepared = preparing([{ ...(await prepare(placed, (id) => told.get(id)))!, signer }]);
    await assert.rejects(readSignedOrder(placed, context(), Date.now(), prepared.orders[0], prepared), /invalid signature/);
  }
});

test('the signature pool threads are shared evenly among the front ends, at least one each unless none', () => {
  assert.deepEqual([[16, 4], [8, 3], [2, 2], [1, 3], [2, 1], [0, 4]].map(([total, frontEnds]) => verifyThreadsEach(total!, frontEnds!)), [4, 3, 1, 1, 2, 0]);
});

test('an order a thread\'s full pool refused is refused as the pool refuses (503, retry), not recovered on the main thread', async () => {
  const { body: placed } = body(PLAIN_TOKEN);
  const full = await prepareOrder(placed, domains, (id) => told.get(id), () => Promise.reject(signaturesBusy()));
  assert.equal(full, SIGNATURES_BUSY);
  const made = context();
  const prepared = preparing([SIGNATURES_BUSY]);
  await assert.rejects(readSignedOrder(placed, made, Date.now(), SIGNATURES_BUSY, prepared), (error: unknown) => {
    assert.ok(error instanceof HttpError);
    assert.deepEqual([error.status, error.message, error.headers], [503, 'signature checks are busy, retry shortly', [['retry-after', '1']]]);
    return true;
  });
  assert.equal(made.recovered, 0);
  // The order's own 400s come first, as with one front end.
  await assert.rejects(readSignedOrder({ ...placed, owner: 7 }, made, Date.now(), SIGNATURES_BUSY, prepared), /owner must be a string/);
});

// Orders built and signed by Polymarket's official TypeScript client (@polymarket/clob-client,
// unchanged) and posted to the default CLOB URL: createOrder asks /tick-size,
// /neg-risk and /fee-rate, signs with the wallet, and postOrder sends the order with L2 headers.
// The server runs with the client's own Polygon Amoy (V1) exchange addresses (the client has them built
// in), on a market with a taker fee, so the fee the client signs is the market's.
//
// What stops the last step: client 5.8.1 signs the CTF Exchange's first Order type (taker,
// expiration, nonce and feeRateBps; domain version "1"), while contract §4 has the server verify
// the second (timestamp, metadata and builder; version "2"). The first test checks the client's
// signature against the first type, so the difference is pinned down; posting is a todo until the
// server also accepts that type (a contract decision, not this suite's).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Chain, ClobClient, Side } from '@polymarket/clob-client';
import { recoverTypedDataAddress } from 'viem';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { createMarket, startOfficialServer, walletOf } from './official_setup.js';
import { deposit, Trader, type PlainMarket } from './trader.js';

/** The addresses @polymarket/clob-client signs for on Polygon Amoy (its config.js, chain 80002). */
const CLIENT_EXCHANGE = '0xdFE02Eb6733538f8Ea35D585af8DE5958AD99E40';
const CLIENT_NEG_RISK_EXCHANGE = '0xC5d563A36AE78145C45a50134d48A1215220f80a';
const FEE_BPS = 20;

let server: RunningServer;
let clobUrl = '';
let market: PlainMarket;

/** The order type client 5.8.1 signs (its order-utils/exchange.order.const.js). */
const CLIENT_ORDER_TYPE = [
  { name: 'salt', type: 'uint256' }, { name: 'maker', type: 'address' }, { name: 'signer', type: 'address' }, { name: 'taker', type: 'address' },
  { name: 'tokenId', type: 'uint256' }, { name: 'makerAmount', type: 'uint256' }, { name: 'takerAmount', type: 'uint256' },
  { name: 'expiration', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'feeRateBps', type: 'uint256' },
  { name: 'side', type: 'uint8' }, { name: 'signatureType', type: 'uint8' },
] as const;

/** The official client of a funded wallet with its API credentials, and the wallet's address. */
async function officialTrader(seed: number): Promise<{ client: ClobClient; address: string }> {
  const wallet = new Trader(server.urls.clob, seed);
  await deposit(server.urls.clob, wallet.address, 100_000_000);
  const creds = await new ClobClient(clobUrl, Chain.AMOY, walletOf(wallet.secret)).createApiKey(0);
  // The last argument makes an error answer throw (ApiError) instead of being returned.
  const client = new ClobClient(clobUrl, Chain.AMOY, walletOf(wallet.secret), creds, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, true);
  return { client, address: wallet.address };
}

before(async () => {
  ({ server, url: clobUrl } = await startOfficialServer({ EXCHANGE_ADDRESS: CLIENT_EXCHANGE, NEG_RISK_EXCHANGE_ADDRESS: CLIENT_NEG_RISK_EXCHANGE }));
  market = await createMarket(server.urls.clob, 'Client-built orders', { question: 'Will a client-built order rest?', takerBaseFee: FEE_BPS });
});

after(async () => {
  await server?.stop();
  if (server !== undefined) removeDataDir(server.dataDir);
});

test("createOrder asks /fee-rate, signs the market's taker fee into the order, and signs the client's order type", async () => {
  const { client, address } = await officialTrader(601);
  const order = await client.createOrder({ tokenID: market.yes, price: 0.3, size: 10, side: Side.BUY });
  assert.equal(order.feeRateBps, String(FEE_BPS));
  assert.equal(order.tokenId, market.yes);
  // 10 shares at 0.30: 3 USDC for 10 shares, in micro-units.
  assert.deepEqual([order.makerAmount, order.takerAmount], ['3000000', '10000000']);
  await assert.rejects(client.createOrder({ tokenID: market.yes, price: 0.3, size: 10, side: Side.BUY, feeRateBps: FEE_BPS + 1 }), /fee rate for the market must be 20/);
  const { signature, ...message } = order;
  const signer = await recoverTypedDataAddress({
    domain: { name: 'Polymarket CTF Exchange', version: '1', chainId: Chain.AMOY, verifyingContract: CLIENT_EXCHANGE },
    types: { Order: CLIENT_ORDER_TYPE }, primaryType: 'Order',
    message: { ...message, salt: BigInt(message.salt), tokenId: BigInt(message.tokenId), makerAmount: BigInt(message.makerAmount), takerAmount: BigInt(message.takerAmount),
      expiration: BigInt(message.expiration), nonce: BigInt(message.nonce), feeRateBps: BigInt(message.feeRateBps), maker: message.maker as `0x${string}`,
      signer: message.signer as `0x${string}`, taker: message.taker as `0x${string}` },
    signature: signature as `0x${string}`,
  });
  assert.equal(signer.toLowerCase(), address, 'the signature is over the first Order type, domain version "1"');
  assert.ok(!('timestamp' in order) && !('metadata' in order) && !('builder' in order), "none of the contract's second-type fields");
});

test('an order the official client builds, signs and posts rests, and a second one fills against it', {
  todo: 'client 5.8.1 signs the first Order type (domain version "1"); contract §4 verifies the second, so POST /order answers 400 invalid signature',
}, async () => {
  const maker = await officialTrader(602);
  const taker = await officialTrader(603);
  const resting = await maker.client.createAndPostOrder({ tokenID: market.yes, price: 0.3, size: 10, side: Side.BUY }) as Record<string, unknown>;
  assert.deepEqual([resting['success'], resting['status']], [true, 'live'], JSON.stringify(resting));
  const fill = await taker.client.createAndPostOrder({ tokenID: market.no, price: 0.7, size: 4, side: Side.BUY }) as Record<string, unknown>;
  assert.deepEqual([fill['success'], fill['status']], [true, 'matched'], JSON.stringify(fill));
  const book = await request<{ bids: { price: string; size: string }[] }>(`${server.urls.clob}/book?token_id=${market.yes}`);
  assert.deepEqual(book.body.bids, [{ price: '0.3', size: '6' }]);
  const open = await maker.client.getOpenOrders();
  assert.deepEqual(open.map((order) => [order.id, order.size_matched]), [[resting['orderID'], '4']]);
});

// A bot written with Polymarket's official V2 TypeScript client (@polymarket/clob-client-v2,
// unchanged) trading on the real server at its default CLOB URL, with the server's default
// signing domain (chain 80002, the V2 exchanges the client carries for it): L1 key creation and derivation, resting limit orders
// (createAndPostOrder), open orders, a second account's order crossing them, market orders (FOK
// and FAK, buying and selling, via createAndPostMarketOrder), trades and balances from both
// sides, and cancels one, many, by market and all. Every answer the client returns is checked
// against the server's own endpoints read with plain L2-signed HTTP (the test trader, same key).
//
// The client signs the CLOB V2 Order type (domain "Polymarket CTF Exchange" version "2";
// timestamp, metadata and builder) for its own exchange addresses, which are the server's
// defaults; the second test recovers the signer of a client-built order under that domain and
// type to pin that down.
//
// Two of the client's reads are Polymarket's rather than the interface's, and clobd serves them:
// GET /version, asked before every order unless the caller names the version, and GET
// /markets-by-token/{token_id}, with which the client resolves a token to its market before a
// market order unless it has already read the market's settings (the last two tests).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AssetType, Chain, ClobClient, getContractConfig, isV2Order, OrderType, Side, type ApiKeyCreds, type OpenOrder } from '@polymarket/clob-client-v2';
import { recoverTypedDataAddress } from 'viem';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { createMarket, startOfficialServer, walletOf } from './official_setup.js';
import { deposit, Trader, type PlainMarket } from './trader.js';

const CONTRACTS = getContractConfig(Chain.AMOY);
const DEPOSIT_MICROS = 100_000_000;
/** Contract §4's Order type, written out here rather than taken from the client. */
const ORDER_TYPE = [
  { name: 'salt', type: 'uint256' }, { name: 'maker', type: 'address' }, { name: 'signer', type: 'address' },
  { name: 'tokenId', type: 'uint256' }, { name: 'makerAmount', type: 'uint256' }, { name: 'takerAmount', type: 'uint256' },
  { name: 'side', type: 'uint8' }, { name: 'signatureType', type: 'uint8' }, { name: 'timestamp', type: 'uint256' },
  { name: 'metadata', type: 'bytes32' }, { name: 'builder', type: 'bytes32' },
] as const;

let server: RunningServer;
let clobUrl = '';
let market: PlainMarket;

/** A bot: the V2 client with its API credentials, and the same wallet as a plain HTTP trader. */
interface Bot {
  readonly client: ClobClient;
  readonly plain: Trader;
  readonly creds: ApiKeyCreds;
}

async function fundedBot(seed: number): Promise<Bot> {
  const plain = new Trader(server.urls.clob, seed);
  await deposit(server.urls.clob, plain.address, DEPOSIT_MICROS);
  const l1 = new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(plain.secret) });
  const creds = await l1.createApiKey(0);
  plain.credentials = { apiKey: creds.key, secret: creds.secret, passphrase: creds.passphrase };
  // The client's default options: an error answer comes back as {error, status}, which every
  // comparison below would show. (With throwOnError: true, see the last tests.)
  const client = new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(plain.secret), creds });
  return { client, plain, creds };
}

/** A plain L2-signed GET on the CLOB listener; must answer 200. */
async function plainRead<T>(bot: Bot, path: string): Promise<T> {
  const response = await bot.plain.send<T>('GET', path);
  assert.equal(response.status, 200, `GET ${path}: ${response.text}`);
  return response.body;
}

async function openOrderIds(bot: Bot): Promise<string[]> {
  const open = await bot.client.getOpenOrders({ market: market.conditionId });
  const page = await plainRead<{ data: { id: string }[] }>(bot, `/data/orders?market=${market.conditionId}`);
  assert.deepEqual(open, page.data, 'getOpenOrders is the server\'s /data/orders');
  return open.map((order) => order.id).sort();
}

/**
 * One order through getOrder, checked against the plain read. The client types the answer as
 * the order itself; the server answers {order} (interface.md), which the client passes through.
 */
async function orderOf(bot: Bot, id: string): Promise<OpenOrder> {
  const got = await bot.client.getOrder(id) as unknown as { order: OpenOrder };
  assert.deepEqual(got, await plainRead(bot, `/data/order/${id}`));
  return got.order;
}

/**
 * Collateral and one token's [balance, allowance] in micros through the client, checked against
 * the plain read. The client types the answer {balance, allowances: {spender: amount}}; the
 * server answers {balance, allowance} (docs/api.md) and the client passes the body through.
 */
async function holdings(bot: Bot, tokenId: string): Promise<{ collateral: [string, string]; shares: [string, string] }> {
  const read = async (query: string, params: Parameters<ClobClient['getBalanceAllowance']>[0]): Promise<[string, string]> => {
    const got = await bot.client.getBalanceAllowance(params) as unknown as Record<string, string>;
    assert.deepEqual(got, await plainRead(bot, `/balance-allowance?${query}`));
    return [got['balance']!, got['allowance']!];
  };
  return {
    collateral: await read('asset_type=COLLATERAL', { asset_type: AssetType.COLLATERAL }),
    shares: await read(`asset_type=CONDITIONAL&token_id=${tokenId}`, { asset_type: AssetType.CONDITIONAL, token_id: tokenId }),
  };
}

async function bookOf(tokenId: string): Promise<{ bids: { price: string; size: string }[]; asks: { price: string; size: string }[] }> {
  const book = await request<{ bids: { price: string; size: string }[]; asks: { price: string; size: string }[] }>(`${server.urls.clob}/book?token_id=${tokenId}`);
  assert.equal(book.status, 200, book.text);
  return { bids: book.body.bids, asks: book.body.asks };
}

let maker: Bot;
let taker: Bot;

before(async () => {
  ({ server, url: clobUrl } = await startOfficialServer());
  market = await createMarket(server.urls.clob, 'V2 client bot', { question: 'Will a V2 client bot trade?' });
});

after(async () => {
  await server?.stop();
  if (server !== undefined) removeDataDir(server.dataDir);
});

test('createApiKey, deriveApiKey and createOrDeriveApiKey give one set of credentials (L1 with POLY_ headers)', async () => {
  maker = await fundedBot(701);
  taker = await fundedBot(702);
  assert.match(maker.creds.key, /^[0-9a-f-]{36}$/);
  const l1 = new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(maker.plain.secret) });
  assert.deepEqual(await l1.deriveApiKey(0), maker.creds);
  // createApiKey is refused for a nonce already used, and createOrDeriveApiKey falls back to derive.
  assert.deepEqual(await l1.createOrDeriveApiKey(0), maker.creds);
  assert.deepEqual((await maker.client.getApiKeys()).apiKeys, [maker.creds.key]);
});

test('createOrder signs contract §4\'s Order type under domain version "2" for the exchange the server is configured with', async () => {
  const order = await maker.client.createOrder({ tokenID: market.yes, price: 0.3, size: 10, side: Side.BUY });
  assert.ok(isV2Order(order), 'the client builds the second Order type (timestamp, metadata, builder)');
  assert.equal(order.tokenId, market.yes);
  assert.deepEqual([order.makerAmount, order.takerAmount, order.signatureType], ['3000000', '10000000', 0]);
  const signer = await recoverTypedDataAddress({
    domain: { name: 'Polymarket CTF Exchange', version: '2', chainId: Chain.AMOY, verifyingContract: CONTRACTS.exchangeV2 as `0x${string}` },
    types: { Order: ORDER_TYPE }, primaryType: 'Order',
    message: {
      salt: BigInt(order.salt), maker: order.maker as `0x${string}`, signer: order.signer as `0x${string}`, tokenId: BigInt(order.tokenId),
      makerAmount: BigInt(order.makerAmount), takerAmount: BigInt(order.takerAmount), side: order.side === Side.BUY ? 0 : 1,
      signatureType: order.signatureType, timestamp: BigInt(order.timestamp), metadata: order.metadata as `0x${string}`, builder: order.builder as `0x${string}`,
    },
    signature: order.signature as `0x${string}`,
  });
  assert.equal(signer.toLowerCase(), maker.plain.address);
});

let restingId = '';

test('a GTC limit order rests (createAndPostOrder), shows in getOpenOrders and getOrder, and reserves its collateral', async () => {
  const placed = await maker.client.createAndPostOrder({ tokenID: market.yes, price: 0.3, size: 20, side: Side.BUY }, undefined, OrderType.GTC);
  assert.deepEqual([placed.success, placed.status, placed.errorMsg], [true, 'live', ''], JSON.stringify(placed));
  restingId = placed.orderID;
  assert.deepEqual(await openOrderIds(maker), [restingId]);
  const order = await orderOf(maker, restingId);
  assert.deepEqual([order.status, order.side, order.price, order.original_size, order.size_matched, order.order_type], ['LIVE', 'BUY', '0.3', '20', '0', 'GTC']);
  assert.deepEqual(await bookOf(market.yes), { bids: [{ price: '0.3', size: '20' }], asks: [] });
  // 20 shares at 0.30 hold 6 USDC of the 100 deposited.
  assert.deepEqual(await holdings(maker, market.yes), { collateral: ['100000000', '94000000'], shares: ['0', '0'] });
});

test("a second bot's limit order crosses it: both see the trade, balances move", async () => {
  // BUY NO at 0.70 meets BUY YES at 0.30: a complete set is minted, 5 shares each.
  const fill = await taker.client.createAndPostOrder({ tokenID: market.no, price: 0.7, size: 5, side: Side.BUY });
  assert.deepEqual([fill.success, fill.status, fill.makingAmount, fill.takingAmount], [true, 'matched', '3.5', '5'], JSON.stringify(fill));
  assert.deepEqual(await bookOf(market.yes), { bids: [{ price: '0.3', size: '15' }], asks: [] });
  assert.deepEqual(await openOrderIds(taker), []);
  for (const [bot, side, asset] of [[maker, 'MAKER', market.no], [taker, 'TAKER', market.no]] as const) {
    const trades = await bot.client.getTrades({ market: market.conditionId });
    const page = await plainRead<{ data: unknown[] }>(bot, `/data/trades?market=${market.conditionId}`);
    assert.deepEqual(trades, page.data);
    assert.equal(trades.length, 1);
    assert.deepEqual([trades[0]!.trader_side, trades[0]!.size, trades[0]!.price, trades[0]!.asset_id, trades[0]!.status], [side, '5', '0.7', asset, 'CONFIRMED']);
  }
  assert.deepEqual(await holdings(maker, market.yes), { collateral: ['98500000', '94000000'], shares: ['5000000', '5000000'] });
  assert.deepEqual(await holdings(taker, market.no), { collateral: ['96500000', '96500000'], shares: ['5000000', '5000000'] });
  const open = await maker.client.getOpenOrders();
  assert.deepEqual(open.map((order) => [order.id, order.size_matched]), [[restingId, '5']]);
});

test('market orders: a FOK buy fills wholly, a FAK buy fills what rests and drops the rest, a FOK sell merges', async () => {
  // The client reads the market's settings before a market order (tick size, neg risk, fees).
  const info = await taker.client.getClobMarketInfo(market.conditionId);
  const direct = await request(`${server.urls.clob}/clob-markets/${market.conditionId}`);
  assert.deepEqual(info, direct.body);
  await maker.client.getClobMarketInfo(market.conditionId);

  // 3.5 USDC of NO at the best ask (0.70, the other side of the YES bid): 5 shares.
  const fok = await taker.client.createAndPostMarketOrder({ tokenID: market.no, side: Side.BUY, amount: 3.5, orderType: OrderType.FOK }, undefined, OrderType.FOK);
  assert.deepEqual([fok.success, fok.status, fok.makingAmount, fok.takingAmount], [true, 'matched', '3.5', '5'], JSON.stringify(fok));
  // 14 USDC would buy 20 shares; 10 rest, so 10 fill and the rest is cancelled.
  const fak = await taker.client.createAndPostMarketOrder({ tokenID: market.no, side: Side.BUY, amount: 14, orderType: OrderType.FAK }, undefined, OrderType.FAK);
  assert.deepEqual([fak.success, fak.status, fak.makingAmount, fak.takingAmount], [true, 'matched', '7', '10'], JSON.stringify(fak));
  assert.deepEqual(await bookOf(market.yes), { bids: [], asks: [] });
  assert.deepEqual(await openOrderIds(maker), []);
  // A FOK buy with nothing to buy fails in the client, before anything is sent.
  await assert.rejects(taker.client.createAndPostMarketOrder({ tokenID: market.no, side: Side.BUY, amount: 1, orderType: OrderType.FOK }), /no match/);

  // The taker offers NO at 0.60 (a YES bid at 0.40); the maker sells 5 YES into it: a merge.
  const offer = await taker.client.createAndPostOrder({ tokenID: market.no, price: 0.6, size: 5, side: Side.SELL });
  assert.deepEqual([offer.success, offer.status], [true, 'live'], JSON.stringify(offer));
  const sell = await maker.client.createAndPostMarketOrder({ tokenID: market.yes, side: Side.SELL, amount: 5, orderType: OrderType.FOK }, undefined, OrderType.FOK);
  assert.deepEqual([sell.success, sell.status, sell.makingAmount, sell.takingAmount], [true, 'matched', '5', '2'], JSON.stringify(sell));

  // Maker: paid 6 for 20 YES, got 2 for 5 of them. Taker: paid 14 for 20 NO, got 3 for 5.
  assert.deepEqual(await holdings(maker, market.yes), { collateral: ['96000000', '96000000'], shares: ['15000000', '15000000'] });
  assert.deepEqual(await holdings(taker, market.no), { collateral: ['89000000', '89000000'], shares: ['15000000', '15000000'] });
  assert.equal((await maker.client.getTrades({ market: market.conditionId })).length, 4);
  assert.equal((await taker.client.getTrades({ market: market.conditionId })).length, 4);
});

test('cancelOrder, cancelOrders, cancelMarketOrders and cancelAll', async () => {
  const place = async (price: number): Promise<string> => {
    const placed = await maker.client.createAndPostOrder({ tokenID: market.yes, price, size: 5, side: Side.BUY });
    assert.equal(placed.status, 'live', JSON.stringify(placed));
    return placed.orderID;
  };
  const [a, b, c, d, e] = [await place(0.1), await place(0.11), await place(0.12), await place(0.13), await place(0.14)];
  assert.deepEqual(await openOrderIds(maker), [a, b, c, d, e].sort());
  // The canceled ids in any order (one shard's list for a market, several shards' for all).
  const canceled = (answer: unknown): unknown => {
    const { canceled: ids, ...rest } = answer as { canceled: string[] };
    return { canceled: [...ids].sort(), ...rest };
  };
  assert.deepEqual(canceled(await maker.client.cancelOrder({ orderID: a })), { canceled: [a], not_canceled: {} });
  assert.deepEqual(canceled(await maker.client.cancelOrders([b, c])), { canceled: [b, c].sort(), not_canceled: {} });
  assert.deepEqual(canceled(await maker.client.cancelMarketOrders({ asset_id: market.yes })), { canceled: [d, e].sort(), not_canceled: {} });
  const f = await place(0.15);
  assert.deepEqual(canceled(await maker.client.cancelAll()), { canceled: [f], not_canceled: {} });
  assert.deepEqual(await openOrderIds(maker), []);
  assert.equal((await orderOf(maker, a)).status, 'CANCELED');
  // Nothing is held any more.
  assert.deepEqual((await holdings(maker, market.yes)).collateral, ['96000000', '96000000']);
});

test('a bot made with throwOnError: true that names the order version: createOrder(…, {version: 2}) and postOrder', async () => {
  const client = new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(maker.plain.secret), creds: maker.creds, throwOnError: true });
  const order = await client.createOrder({ tokenID: market.yes, price: 0.2, size: 5, side: Side.BUY }, { version: 2 });
  const placed = await client.postOrder(order, OrderType.GTC);
  assert.deepEqual([placed.success, placed.status], [true, 'live'], JSON.stringify(placed));
  assert.deepEqual(await openOrderIds(maker), [placed.orderID]);
  assert.deepEqual(await client.cancelOrder({ orderID: placed.orderID }), { canceled: [placed.orderID], not_canceled: {} });
  // An error answer throws, with the server's text.
  await assert.rejects(client.postOrder(order, OrderType.GTC), (error: Error) => error.message.includes('Duplicated'));
});

test('a bot made with throwOnError: true places orders with createAndPostOrder (the client asks GET /version first)', async () => {
  assert.deepEqual((await request(`${server.urls.clob}/version`)).body, { version: 2 });
  const client = new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(maker.plain.secret), creds: maker.creds, throwOnError: true });
  const placed = await client.createAndPostOrder({ tokenID: market.yes, price: 0.2, size: 5, side: Side.BUY });
  assert.equal(placed.status, 'live');
  await client.cancelAll();
});

test("a market order from a bot that has not read the market's settings (the client asks GET /markets-by-token first)", async () => {
  assert.deepEqual((await request(`${server.urls.clob}/markets-by-token/${market.no}`)).body, { condition_id: market.conditionId, primary_token_id: market.yes, secondary_token_id: market.no });
  const resting = await maker.client.createAndPostOrder({ tokenID: market.yes, price: 0.3, size: 5, side: Side.BUY });
  assert.equal(resting.status, 'live', JSON.stringify(resting));
  try {
    const fresh = new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(taker.plain.secret), creds: taker.creds });
    const fok = await fresh.createAndPostMarketOrder({ tokenID: market.no, side: Side.BUY, amount: 3.5, orderType: OrderType.FOK }, undefined, OrderType.FOK);
    assert.equal(fok.status, 'matched', JSON.stringify(fok));
  } finally {
    await maker.client.cancelAll();
  }
});

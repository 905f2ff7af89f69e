// The rest of Polymarket's official V2 TypeScript client (@polymarket/clob-client-v2, unchanged)
// at the server's default CLOB URL and signing domain, beyond what official_client_v2.test.ts
// drives: every public read (markets, books, prices, midpoints, spreads, last trades, price
// history, the client's own book hash and market-price calculation) on an empty book, a quoted
// one and after a trade; GTD, post-only and neg-risk orders; batches of orders; FAK sells;
// heartbeats (and the dead-man switch, the server being started with a short
// HEARTBEAT_TIMEOUT_MS); key listing and deletion; and the account reads with their filters.
// Every answer the client returns is checked against the server's own endpoint read with plain
// HTTP (L2-signed with the same key where the route needs one), or against what the client
// itself computes where it decodes or hashes.
//
// Left out here on purpose, being added elsewhere: balance-allowance/update, closed-only mode,
// notifications, order scoring, market trade events, and market BUYs whose share amount needs
// more than two decimals (every market order below buys whole hundredths of a share).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  AssetType, Chain, ClobClient, getContractConfig, OrderType, PriceHistoryInterval, Side,
  type ApiKeyCreds, type OrderBookSummary, type OrderResponse, type SignedOrder,
} from '@polymarket/clob-client-v2';
import { hashTypedData, recoverTypedDataAddress } from 'viem';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { createMarket, startOfficialServer, walletOf } from './official_setup.js';
import { deposit, Trader, type PlainMarket } from './trader.js';

const CONTRACTS = getContractConfig(Chain.AMOY);
const DEPOSIT_MICROS = 100_000_000;
/** Short enough for the test to wait it out, long enough for a loaded machine's requests. */
const HEARTBEAT_TIMEOUT_MS = 5000;
/** Contract §4's Order type, written out here rather than taken from the client. */
const ORDER_TYPE = [
  { name: 'salt', type: 'uint256' }, { name: 'maker', type: 'address' }, { name: 'signer', type: 'address' },
  { name: 'tokenId', type: 'uint256' }, { name: 'makerAmount', type: 'uint256' }, { name: 'takerAmount', type: 'uint256' },
  { name: 'side', type: 'uint8' }, { name: 'signatureType', type: 'uint8' }, { name: 'timestamp', type: 'uint256' },
  { name: 'metadata', type: 'bytes32' }, { name: 'builder', type: 'bytes32' },
] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NO_BOOK = 'No orderbook exists for the requested token id';

/**
 * The client types getPricesHistory's answer as the points themselves; Polymarket answers
 * {"history": [...]}, as clobd does, and the client passes that through.
 */
async function historyOf(client: ClobClient, params: Parameters<ClobClient['getPricesHistory']>[0]): Promise<{ history: { t: number; p: number }[] }> {
  return await client.getPricesHistory(params) as unknown as { history: { t: number; p: number }[] };
}

let server: RunningServer;
let clobUrl = '';
/** Tick 0.01, min size 1 (so partial fills of a few shares are allowed), no fee. */
let market: PlainMarket;
let negRisk: PlainMarket;
/** Only read: a taker fee of 2.5 %, a tick of 0.001. */
let feeMarket: PlainMarket;

interface Bot {
  readonly client: ClobClient;
  readonly plain: Trader;
  readonly creds: ApiKeyCreds;
}

async function fundedBot(seed: number, nonce = 0): Promise<Bot> {
  const plain = new Trader(server.urls.clob, seed);
  await deposit(server.urls.clob, plain.address, DEPOSIT_MICROS);
  const l1 = new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(plain.secret) });
  const creds = await l1.createApiKey(nonce);
  plain.credentials = { apiKey: creds.key, secret: creds.secret, passphrase: creds.passphrase };
  return { client: botClient(plain, creds), plain, creds };
}

/** A fresh client (nothing cached) for the wallet and key. */
function botClient(plain: Trader, creds: ApiKeyCreds): ClobClient {
  return new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(plain.secret), creds });
}

/** A client without a wallet or key: what a market-data bot makes. */
function publicClient(): ClobClient {
  return new ClobClient({ host: clobUrl, chain: Chain.AMOY });
}

/** A public GET on the CLOB listener; must answer `status`. */
async function publicRead<T = unknown>(path: string, status = 200): Promise<T> {
  const response = await request<T>(`${clobUrl}${path}`);
  assert.equal(response.status, status, `GET ${path}: ${response.text}`);
  return response.body;
}

/** A public POST with a JSON body on the CLOB listener; must answer 200. */
async function publicPost<T = unknown>(path: string, body: unknown): Promise<T> {
  const response = await request<T>(`${clobUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(response.status, 200, `POST ${path}: ${response.text}`);
  return response.body;
}

/** A plain L2-signed GET with the bot's key; must answer 200. */
async function plainRead<T = unknown>(bot: Bot, path: string): Promise<T> {
  const response = await bot.plain.send<T>('GET', path);
  assert.equal(response.status, 200, `GET ${path}: ${response.text}`);
  return response.body;
}

/** What the client's default options make of an error answer: the body's fields and the status. */
function clientError(status: number, error: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { error, ...extra, status };
}

function placed(answer: OrderResponse, status: string, making = '0', taking = '0'): void {
  // Contract §4's placement object: no tradeIDs or transactionsHashes, which the client's types
  // leave optional (it then returns the answer without looking the trades up).
  assert.deepEqual(Object.keys(answer), ['success', 'errorMsg', 'orderID', 'status', 'makingAmount', 'takingAmount']);
  assert.deepEqual([answer.success, answer.errorMsg, answer.status, answer.makingAmount, answer.takingAmount], [true, '', status, making, taking], JSON.stringify(answer));
}

/** The EIP-712 hash of a client-built order under the exchange it names: the server's order id. */
function orderHash(order: SignedOrder, verifyingContract: string): { hash: string; signer: Promise<string> } {
  const v2 = order as SignedOrder & { timestamp: string; metadata: string; builder: string };
  const typed = {
    domain: { name: 'Polymarket CTF Exchange', version: '2', chainId: Chain.AMOY, verifyingContract: verifyingContract as `0x${string}` },
    types: { Order: ORDER_TYPE }, primaryType: 'Order' as const,
    message: {
      salt: BigInt(v2.salt), maker: v2.maker as `0x${string}`, signer: v2.signer as `0x${string}`, tokenId: BigInt(v2.tokenId),
      makerAmount: BigInt(v2.makerAmount), takerAmount: BigInt(v2.takerAmount), side: v2.side === Side.BUY ? 0 : 1,
      signatureType: v2.signatureType, timestamp: BigInt(v2.timestamp), metadata: v2.metadata as `0x${string}`, builder: v2.builder as `0x${string}`,
    },
  };
  return { hash: hashTypedData(typed), signer: recoverTypedDataAddress({ ...typed, signature: v2.signature as `0x${string}` }).then((address) => address.toLowerCase()) };
}

/**
 * Every price read of the client for `tokens`, single and batch, equals the server's own answer
 * (a 404 of a side without orders as the client returns it: {error, status}).
 */
async function pricesAgree(client: ClobClient, tokens: readonly string[]): Promise<void> {
  const single = async (got: unknown, path: string): Promise<void> => {
    const response = await request(`${clobUrl}${path}`);
    assert.deepEqual(got, response.status === 200 ? response.body : { ...(response.body as object), status: response.status }, path);
  };
  for (const token of tokens) {
    await single(await client.getMidpoint(token), `/midpoint?token_id=${token}`);
    await single(await client.getSpread(token), `/spread?token_id=${token}`);
    await single(await client.getLastTradePrice(token), `/last-trade-price?token_id=${token}`);
    for (const side of [Side.BUY, Side.SELL]) await single(await client.getPrice(token, side), `/price?token_id=${token}&side=${side}`);
  }
  const items = tokens.flatMap((token) => [{ token_id: token, side: Side.BUY }, { token_id: token, side: Side.SELL }]);
  assert.deepEqual(await client.getMidpoints(items), await publicPost('/midpoints', items));
  assert.deepEqual(await client.getSpreads(items), await publicPost('/spreads', items));
  assert.deepEqual(await client.getPrices(items), await publicPost('/prices', items));
  assert.deepEqual(await client.getLastTradesPrices(items), await publicPost('/last-trades-prices', items));
  assert.deepEqual(await client.getOrderBooks(items), await publicPost('/books', items));
}

async function liveIds(bot: Bot, params: { market?: string; asset_id?: string; id?: string } = {}): Promise<string[]> {
  const open = await bot.client.getOpenOrders(params);
  const query = new URLSearchParams(params as Record<string, string>).toString();
  const page = await plainRead<{ data: { id: string }[] }>(bot, `/data/orders${query === '' ? '' : `?${query}`}`);
  assert.deepEqual(open, page.data, `getOpenOrders(${query}) is the server's /data/orders`);
  return open.map((order) => order.id).sort();
}

let maker: Bot;
let taker: Bot;

before(async () => {
  ({ server, url: clobUrl } = await startOfficialServer({ HEARTBEAT_TIMEOUT_MS: String(HEARTBEAT_TIMEOUT_MS) }));
  market = await createMarket(server.urls.clob, 'V2 client surface', { question: 'Will every read answer?', orderMinSize: 1 });
  negRisk = await createMarket(server.urls.clob, 'V2 client neg risk', { question: 'Will a neg-risk order sign?', negRisk: true, orderMinSize: 1 });
  feeMarket = await createMarket(server.urls.clob, 'V2 client fees', { question: 'Will the fee read?', takerBaseFee: 250, orderPriceMinTickSize: 0.001 });
  maker = await fundedBot(801);
  taker = await fundedBot(802);
});

after(async () => {
  await server?.stop();
  if (server !== undefined) removeDataDir(server.dataDir);
});

test('getOk, getServerTime and getVersion', async () => {
  const client = publicClient();
  assert.equal(await client.getOk(), 'OK');
  assert.equal(await client.getOk(), await publicRead('/ok'));
  const [time, plainTime] = [await client.getServerTime(), await publicRead<number>('/time')];
  assert.equal(typeof time, 'number');
  assert.ok(Math.abs(time - plainTime) <= 2 && Math.abs(time - Date.now() / 1000) <= 5, `${time} ${plainTime}`);
  assert.equal(await client.getVersion(), 2);
  assert.deepEqual(await publicRead('/version'), { version: 2 });
});

test('the four market lists and getMarket are the server\'s pages, cursor and all', async () => {
  const client = publicClient();
  type Page = { data: { condition_id: string }[]; next_cursor: string; limit: number; count: number };
  for (const [name, path] of [
    ['getMarkets', '/markets'], ['getSimplifiedMarkets', '/simplified-markets'],
    ['getSamplingMarkets', '/sampling-markets'], ['getSamplingSimplifiedMarkets', '/sampling-simplified-markets'],
  ] as const) {
    const page = await client[name]() as Page;
    assert.deepEqual(page, await publicRead(`${path}?next_cursor=MA==`), name);
    assert.deepEqual([page.next_cursor, page.limit, page.count], ['LTE=', 1000, 3], name);
    assert.deepEqual(page.data.map((entry) => entry.condition_id), [market.conditionId, negRisk.conditionId, feeMarket.conditionId], name);
    // The client pages with the cursor it was given; past the end is an empty page.
    assert.deepEqual(await client[name]('LTE='), { data: [], next_cursor: 'LTE=', limit: 1000, count: 0 }, name);
  }
  const one = await client.getMarket(market.conditionId) as { condition_id: string; question: string; neg_risk: boolean; minimum_tick_size: number; minimum_order_size: number; tokens: { token_id: string; outcome: string }[] };
  assert.deepEqual(one, await publicRead(`/markets/${market.conditionId}`));
  assert.deepEqual([one.condition_id, one.question, one.neg_risk, one.minimum_tick_size, one.minimum_order_size], [market.conditionId, 'Will every read answer?', false, 0.01, 1]);
  assert.deepEqual(one.tokens.map((token) => [token.token_id, token.outcome]), [[market.yes, 'Yes'], [market.no, 'No']]);
  assert.deepEqual(await client.getMarket(`0x${'ab'.repeat(32)}`), clientError(404, 'market not found'));
});

test('getClobMarketInfo, getTickSize, getNegRisk, getFeeRateBps and getFeeExponent read what the server serves', async () => {
  for (const [target, tick, nr, feeBps, feeRate] of [
    [market, '0.01', false, 0, 0], [negRisk, '0.01', true, 0, 0], [feeMarket, '0.001', false, 250, 0.025],
  ] as const) {
    // A fresh client for each, so each method asks the server rather than its cache.
    const info = await publicClient().getClobMarketInfo(target.conditionId);
    assert.deepEqual(info, await publicRead(`/clob-markets/${target.conditionId}`));
    assert.deepEqual([info.c, info.t.map((token) => token.t), info.mts, info.nr, info.tbf, info.fd], [target.conditionId, [target.yes, target.no], Number(tick), nr, feeBps, { r: feeRate, e: 1, to: true }]);

    assert.equal(await publicClient().getTickSize(target.yes), tick);
    assert.deepEqual(await publicRead(`/tick-size?token_id=${target.yes}`), { minimum_tick_size: Number(tick) });
    assert.equal(await publicClient().getNegRisk(target.no), nr);
    assert.deepEqual(await publicRead(`/neg-risk?token_id=${target.no}`), { neg_risk: nr });
    assert.equal(await publicClient().getFeeRateBps(target.yes), feeBps);
    assert.deepEqual(await publicRead(`/fee-rate?token_id=${target.yes}`), { base_fee: feeBps });
    // The exponent is read from /clob-markets' fd.e, after /markets-by-token names the market.
    assert.equal(await publicClient().getFeeExponent(target.no), 1);
  }
  // An unknown token: the server's 404, as the client returns it.
  assert.deepEqual(await publicClient().getOrderBook('12345'), clientError(404, NO_BOOK));
  assert.deepEqual(await publicRead('/neg-risk?token_id=12345', 404), { error: NO_BOOK });
});

test('an empty book: getOrderBook, its hash, the last trade price, no midpoint/price/spread, no history', async () => {
  const client = publicClient();
  const book = await client.getOrderBook(market.yes);
  assert.deepEqual(book, await publicRead(`/book?token_id=${market.yes}`));
  assert.deepEqual([book.bids, book.asks, book.min_order_size, book.tick_size, book.neg_risk, book.last_trade_price], [[], [], '1', '0.01', false, '0.5']);
  assert.equal(await client.getOrderBookHash({ ...book }), book.hash);
  for (const [method, path] of [['getMidpoint', '/midpoint'], ['getSpread', '/spread']] as const) {
    assert.deepEqual(await client[method](market.yes), clientError(404, NO_BOOK), method);
    await publicRead(`${path}?token_id=${market.yes}`, 404);
  }
  assert.deepEqual(await client.getPrice(market.yes, Side.BUY), clientError(404, NO_BOOK));
  // The batch reads leave a token with an empty side out.
  assert.deepEqual(await client.getMidpoints([{ token_id: market.yes, side: Side.BUY }]), {});
  assert.deepEqual(await client.getSpreads([{ token_id: market.yes, side: Side.BUY }]), {});
  assert.deepEqual(await client.getPrices([{ token_id: market.yes, side: Side.BUY }]), { [market.yes]: {} });
  assert.deepEqual(await client.getLastTradePrice(market.yes), { price: '0.5', side: '' });
  assert.deepEqual(await client.getLastTradesPrices([{ token_id: market.yes, side: Side.BUY }]), [{ token_id: market.yes, price: '0.5', side: '' }]);
  await pricesAgree(client, [market.yes, market.no]);
  assert.deepEqual(await historyOf(client, { market: market.yes, interval: PriceHistoryInterval.MAX }), { history: [] });
  // The client itself refuses a history read with neither an interval nor both ends.
  await assert.rejects(client.getPricesHistory({ market: market.yes, startTs: 1 }), /requires either interval or both startTs and endTs/);
  await assert.rejects(client.calculateMarketPrice(market.yes, Side.BUY, 1), /no match/);
});

/** The resting orders of the quoted book (filled in by the next test). */
const quotes = { bidHigh: '', bidLow: '', noBid: '' };

test('a quoted book: every price read, the book hash the client computes, and calculateMarketPrice', async () => {
  // YES bids at 0.40 (10) and 0.38 (20) from the maker; a NO bid at 0.45 (20) from the taker is a
  // YES ask at 0.55.
  const bidHigh = await maker.client.createAndPostOrder({ tokenID: market.yes, price: 0.4, size: 10, side: Side.BUY });
  const bidLow = await maker.client.createAndPostOrder({ tokenID: market.yes, price: 0.38, size: 20, side: Side.BUY });
  const noBid = await taker.client.createAndPostOrder({ tokenID: market.no, price: 0.45, size: 20, side: Side.BUY });
  for (const answer of [bidHigh, bidLow, noBid]) placed(answer, 'live');
  Object.assign(quotes, { bidHigh: bidHigh.orderID, bidLow: bidLow.orderID, noBid: noBid.orderID });

  const client = publicClient();
  const book = await client.getOrderBook(market.yes);
  assert.deepEqual(book, await publicRead(`/book?token_id=${market.yes}`));
  assert.deepEqual([book.bids, book.asks], [[{ price: '0.38', size: '20' }, { price: '0.4', size: '10' }], [{ price: '0.55', size: '20' }]]);
  // The client hashes the book as served, keys in the server's order, with hash "".
  assert.equal(await client.getOrderBookHash({ ...book }), book.hash);
  const books = await client.getOrderBooks([{ token_id: market.yes, side: Side.BUY }, { token_id: market.no, side: Side.SELL }]);
  assert.deepEqual(books, await publicPost('/books', [{ token_id: market.yes }, { token_id: market.no }]));
  assert.deepEqual(books[0], book);
  const noBook = books[1] as OrderBookSummary;
  assert.deepEqual([noBook.bids, noBook.asks], [[{ price: '0.45', size: '20' }], [{ price: '0.62', size: '20' }, { price: '0.6', size: '10' }]]);
  assert.equal(await client.getOrderBookHash({ ...noBook }), noBook.hash);

  const both = [{ token_id: market.yes, side: Side.BUY }, { token_id: market.no, side: Side.BUY }];
  assert.deepEqual(await client.getMidpoint(market.yes), { mid: '0.475' });
  assert.deepEqual(await client.getMidpoint(market.no), await publicRead(`/midpoint?token_id=${market.no}`));
  assert.deepEqual(await client.getMidpoints(both), { [market.yes]: '0.475', [market.no]: '0.525' });
  assert.deepEqual(await client.getMidpoints(both), await publicPost('/midpoints', both));
  assert.deepEqual(await client.getPrice(market.yes, Side.BUY), { price: '0.4' });
  assert.deepEqual(await client.getPrice(market.yes, Side.SELL), await publicRead(`/price?token_id=${market.yes}&side=SELL`));
  assert.deepEqual(await client.getPrice(market.yes, Side.SELL), { price: '0.55' });
  const prices = [{ token_id: market.yes, side: Side.BUY }, { token_id: market.yes, side: Side.SELL }, { token_id: market.no, side: Side.SELL }];
  assert.deepEqual(await client.getPrices(prices), { [market.yes]: { BUY: '0.4', SELL: '0.55' }, [market.no]: { SELL: '0.6' } });
  assert.deepEqual(await client.getPrices(prices), await publicPost('/prices', prices));
  assert.deepEqual(await client.getSpread(market.yes), { spread: '0.15' });
  assert.deepEqual(await client.getSpreads(both), { [market.yes]: '0.15', [market.no]: '0.15' });
  assert.deepEqual(await client.getSpreads(both), await publicPost('/spreads', both));
  await pricesAgree(client, [market.yes, market.no]);

  // BUY: dollars walked up the asks; SELL: shares walked down the bids (the client's own sums).
  assert.equal(await client.calculateMarketPrice(market.yes, Side.BUY, 11, OrderType.FOK), 0.55);
  await assert.rejects(client.calculateMarketPrice(market.yes, Side.BUY, 11.01, OrderType.FOK), /no match/);
  assert.equal(await client.calculateMarketPrice(market.yes, Side.BUY, 50, OrderType.FAK), 0.55);
  assert.equal(await client.calculateMarketPrice(market.yes, Side.SELL, 10, OrderType.FOK), 0.4);
  assert.equal(await client.calculateMarketPrice(market.yes, Side.SELL, 11, OrderType.FOK), 0.38);
  assert.equal(await client.calculateMarketPrice(market.no, Side.BUY, 6, OrderType.FOK), 0.6);
  assert.equal(await client.calculateMarketPrice(market.no, Side.BUY, 6.01, OrderType.FOK), 0.62);
});

let tradeStart = 0;

test('after a trade: last trade prices, price history by interval and by range, the book and its hash', async () => {
  tradeStart = Math.floor(Date.now() / 1000);
  // The maker buys 10 YES with 5.50 USDC at the 0.55 ask: a mint against the taker's NO bid.
  const buy = await maker.client.createAndPostMarketOrder({ tokenID: market.yes, side: Side.BUY, amount: 5.5, orderType: OrderType.FOK }, undefined, OrderType.FOK);
  placed(buy, 'matched', '5.5', '10');
  const client = publicClient();
  assert.deepEqual(await client.getLastTradePrice(market.yes), { price: '0.55', side: 'BUY' });
  assert.deepEqual(await client.getLastTradePrice(market.no), await publicRead(`/last-trade-price?token_id=${market.no}`));
  const last: { price: string }[] = await client.getLastTradesPrices([{ token_id: market.yes, side: Side.BUY }, { token_id: market.no, side: Side.BUY }]);
  assert.deepEqual(last, await publicPost('/last-trades-prices', [{ token_id: market.yes }, { token_id: market.no }]));
  assert.deepEqual(last.map((entry) => entry.price), ['0.55', '0.45']);

  const book = await client.getOrderBook(market.yes);
  assert.deepEqual([book.asks, book.last_trade_price], [[{ price: '0.55', size: '10' }], '0.55']);
  assert.equal(await client.getOrderBookHash({ ...book }), book.hash);
  assert.deepEqual(await client.getMidpoint(market.yes), { mid: '0.475' });
  await pricesAgree(client, [market.yes, market.no]);
  // The market's token prices are the midpoints now.
  const listed = await client.getMarket(market.conditionId) as { tokens: { price: number }[] };
  assert.deepEqual(listed, await publicRead(`/markets/${market.conditionId}`));
  assert.deepEqual(listed.tokens.map((token) => token.price), [0.475, 0.525]);
  assert.deepEqual(await client.getSimplifiedMarkets(), await publicRead('/simplified-markets?next_cursor=MA=='));

  const hour = await historyOf(client, { market: market.yes, interval: PriceHistoryInterval.ONE_HOUR, fidelity: 1 });
  assert.deepEqual(hour, await publicRead(`/prices-history?market=${market.yes}&interval=1h&fidelity=1`));
  assert.ok(hour.history.length >= 1, JSON.stringify(hour));
  assert.equal(hour.history.at(-1)!.p, 0.55);
  const endTs = Math.floor(Date.now() / 1000) + 60;
  const range = await historyOf(client, { market: market.yes, startTs: tradeStart - 120, endTs, fidelity: 1 });
  assert.deepEqual(range, await publicRead(`/prices-history?market=${market.yes}&startTs=${tradeStart - 120}&endTs=${endTs}&fidelity=1`));
  assert.deepEqual(range.history.map((point: { p: number }) => point.p).at(-1), 0.55);
  const no = await historyOf(client, { market: market.no, interval: PriceHistoryInterval.ONE_DAY });
  assert.deepEqual(no, await publicRead(`/prices-history?market=${market.no}&interval=1d`));
  assert.equal(no.history.at(-1)!.p, 0.45);
  // An interval and a range together: the server's 400, passed through.
  assert.equal((await historyOf(client, { market: market.yes, interval: PriceHistoryInterval.ONE_DAY, startTs: 1, endTs: 2 }) as unknown as { status: number }).status, 400);

  // After the trade: the sell walk meets the two bids, the buy walk the rest of the ask.
  assert.equal(await client.calculateMarketPrice(market.yes, Side.BUY, 5.5, OrderType.FOK), 0.55);
  await assert.rejects(client.calculateMarketPrice(market.yes, Side.BUY, 5.51, OrderType.FOK), /no match/);
});

test('a GTD order rests until its expiration, shows in getOpenOrders with it, and cancels', async () => {
  const expiration = Math.floor(Date.now() / 1000) + 120;
  const order = await maker.client.createOrder({ tokenID: market.yes, price: 0.3, size: 5, side: Side.BUY, expiration });
  assert.equal(order.expiration, String(expiration));
  const answer = await maker.client.postOrder(order, OrderType.GTD);
  placed(answer, 'live');
  const open = (await maker.client.getOpenOrders({ id: answer.orderID }))[0]!;
  assert.deepEqual([open.order_type, open.expiration, open.price, open.original_size, open.status], ['GTD', String(expiration), '0.3', '5', 'LIVE']);
  assert.deepEqual(await liveIds(maker, { id: answer.orderID }), [answer.orderID]);
  assert.ok((await liveIds(maker, { market: market.conditionId })).includes(answer.orderID));
  // GTD with an expiration under a minute ahead, or a GTC with one, is refused.
  const soon = await maker.client.createOrder({ tokenID: market.yes, price: 0.3, size: 5, side: Side.BUY, expiration: Math.floor(Date.now() / 1000) + 10 });
  assert.deepEqual(await maker.client.postOrder(soon, OrderType.GTD), clientError(400, 'invalid expiration'));
  assert.deepEqual(await maker.client.cancelOrder({ orderID: answer.orderID }), { canceled: [answer.orderID], not_canceled: {} });
  assert.equal((await maker.client.getOrder(answer.orderID) as unknown as { order: { status: string } }).order.status, 'CANCELED');
});

test("post-only: a resting one is placed, a crossing one is refused with Polymarket's text, and the client refuses it for FOK", async () => {
  const resting = await maker.client.createOrder({ tokenID: market.yes, price: 0.41, size: 5, side: Side.BUY });
  placed(await maker.client.postOrder(resting, OrderType.GTC, true), 'live');
  // BUY YES at 0.55 would take the 0.55 ask.
  const crossing = await maker.client.createOrder({ tokenID: market.yes, price: 0.55, size: 5, side: Side.BUY });
  assert.deepEqual(await maker.client.postOrder(crossing, OrderType.GTC, true), clientError(400, 'invalid post-only order: order crosses book'));
  const plain = await maker.plain.send('POST', '/order', { order: { ...crossing, salt: Number(crossing.salt) }, owner: maker.creds.key, orderType: 'GTC', postOnly: true });
  assert.deepEqual([plain.status, plain.body], [400, { error: 'invalid post-only order: order crosses book' }]);
  await assert.rejects(maker.client.postOrder(crossing, OrderType.FOK, true), /postOnly is not supported for FOK\/FAK orders/);
  const book = await publicClient().getOrderBook(market.yes);
  assert.deepEqual(book.bids.at(-1), { price: '0.41', size: '5' });
  assert.deepEqual(await maker.client.cancelMarketOrders({ asset_id: market.yes, market: market.conditionId }).then((answer) => (answer as { canceled: string[] }).canceled.length), 3);
});

test('a neg-risk market: a fresh client asks /neg-risk and signs for the neg-risk exchange, which the server verifies', async () => {
  const fresh = botClient(maker.plain, maker.creds);
  const order = await fresh.createOrder({ tokenID: negRisk.yes, price: 0.25, size: 10, side: Side.BUY });
  const signed = orderHash(order, CONTRACTS.negRiskExchangeV2);
  assert.equal(await signed.signer, maker.plain.address);
  const answer = await fresh.postOrder(order, OrderType.GTC);
  placed(answer, 'live');
  assert.equal(answer.orderID, signed.hash, 'the order id is its hash under the neg-risk exchange');
  // The same order signed for the ordinary exchange is refused there.
  const wrong = await botClient(maker.plain, maker.creds).createOrder({ tokenID: negRisk.yes, price: 0.25, size: 10, side: Side.BUY }, { tickSize: '0.01', negRisk: false });
  assert.deepEqual(await fresh.postOrder(wrong, OrderType.GTC), clientError(400, 'invalid signature'));

  const book = await publicClient().getOrderBook(negRisk.yes);
  assert.deepEqual([book.neg_risk, book.bids], [true, [{ price: '0.25', size: '10' }]]);
  assert.equal(await publicClient().getOrderBookHash({ ...book }), book.hash);
  // The taker crosses it: a NO bid at 0.75, then a FOK NO buy for the rest (6 shares at 0.75).
  placed(await taker.client.createAndPostOrder({ tokenID: negRisk.no, price: 0.75, size: 4, side: Side.BUY }), 'matched', '3', '4');
  placed(await taker.client.createAndPostMarketOrder({ tokenID: negRisk.no, side: Side.BUY, amount: 4.5, orderType: OrderType.FOK }, undefined, OrderType.FOK), 'matched', '4.5', '6');
  assert.deepEqual(await liveIds(maker, { market: negRisk.conditionId }), []);
  const order2 = await maker.client.getOrder(answer.orderID) as unknown as { order: { status: string; size_matched: string } };
  assert.deepEqual([order2.order.status, order2.order.size_matched], ['MATCHED', '10']);
});

test('postOrders: a batch of GTC and FOK orders, each answered on its own, in order', async () => {
  // The book: the taker's NO bid rests 10 at 0.45 (a YES ask at 0.55).
  const bid = await maker.client.createOrder({ tokenID: market.yes, price: 0.2, size: 5, side: Side.BUY });
  const bid2 = await maker.client.createOrder({ tokenID: market.yes, price: 0.21, size: 5, side: Side.BUY });
  const fok = await maker.client.createMarketOrder({ tokenID: market.yes, side: Side.BUY, amount: 2.2, orderType: OrderType.FOK });
  // A price given by the caller is not checked against the book by the client: the server kills it.
  const tooBig = await maker.client.createMarketOrder({ tokenID: market.yes, side: Side.BUY, amount: 11, price: 0.55, orderType: OrderType.FOK });
  const answers = await maker.client.postOrders([
    { order: bid, orderType: OrderType.GTC }, { order: fok, orderType: OrderType.FOK },
    { order: tooBig, orderType: OrderType.FOK }, { order: bid, orderType: OrderType.GTC }, { order: bid2, orderType: OrderType.GTC },
  ]) as OrderResponse[];
  assert.equal(answers.length, 5);
  placed(answers[0]!, 'live');
  placed(answers[1]!, 'matched', '2.2', '4');
  const failed = (text: string) => ({ success: false, errorMsg: text, orderID: '', status: '', makingAmount: '', takingAmount: '' });
  assert.deepEqual(answers[2], failed("order couldn't be fully filled. FOK orders are fully filled or killed."));
  assert.deepEqual(answers[3], failed(`order ${answers[0]!.orderID} is invalid. Duplicated.`));
  placed(answers[4]!, 'live');
  assert.deepEqual(await liveIds(maker, { market: market.conditionId }), [answers[0]!.orderID, answers[4]!.orderID].sort());
  for (const [at, status] of [[0, 'LIVE'], [1, 'MATCHED'], [4, 'LIVE']] as const) {
    const read = await maker.client.getOrder(answers[at]!.orderID);
    assert.deepEqual(read, await plainRead(maker, `/data/order/${answers[at]!.orderID}`));
    assert.equal((read as unknown as { order: { status: string } }).order.status, status);
  }
  // Post-only applies to every order of the batch; the client refuses it with a FOK among them.
  await assert.rejects(maker.client.postOrders([{ order: bid, orderType: OrderType.GTC }, { order: fok, orderType: OrderType.FOK }], true), /postOnly is not supported/);
  const cross = await maker.client.createOrder({ tokenID: market.yes, price: 0.56, size: 1, side: Side.BUY });
  const rest = await maker.client.createOrder({ tokenID: market.yes, price: 0.22, size: 5, side: Side.BUY });
  const postOnly = await maker.client.postOrders([{ order: cross, orderType: OrderType.GTC }, { order: rest, orderType: OrderType.GTC }], true) as OrderResponse[];
  assert.deepEqual(postOnly[0], failed('invalid post-only order: order crosses book'));
  placed(postOnly[1]!, 'live');
  await maker.client.cancelAll();
  assert.deepEqual(await liveIds(maker), []);
});

test('FAK sells: what rests is sold, the rest is dropped; nothing to sell into is refused', async () => {
  // The maker holds 14 YES (10 + 4 bought above), the taker 14 NO, and the taker still bids 6 NO
  // at 0.45 (a YES ask at 0.55). The taker bids 5 YES at 0.50, and the maker sells its 14 YES FAK:
  // a YES sell meets YES bids (and NO asks: none), so 5 fill at 0.50 and 9 are dropped.
  placed(await taker.client.createAndPostOrder({ tokenID: market.yes, price: 0.5, size: 5, side: Side.BUY }), 'live');
  const before = await maker.client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: market.yes }) as unknown as { balance: string };
  assert.equal(before.balance, '14000000');
  const fak = await maker.client.createAndPostMarketOrder({ tokenID: market.yes, side: Side.SELL, amount: 14, orderType: OrderType.FAK }, undefined, OrderType.FAK);
  placed(fak, 'matched', '5', '2.5');
  const after = await maker.client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: market.yes });
  assert.deepEqual(after, await plainRead(maker, `/balance-allowance?asset_type=CONDITIONAL&token_id=${market.yes}&signature_type=0`));
  assert.deepEqual(after, { balance: '9000000', allowance: '9000000' });
  assert.deepEqual(await liveIds(maker), [], 'nothing of the FAK rests');
  // The taker withdraws its NO bid, the maker bids 4 NO at 0.40, and the taker sells 10 NO FAK:
  // 4 fill at 0.40, 6 are dropped.
  await taker.client.cancelMarketOrders({ asset_id: market.no });
  placed(await maker.client.createAndPostOrder({ tokenID: market.no, price: 0.4, size: 4, side: Side.BUY }), 'live');
  const noSell = await taker.client.createAndPostMarketOrder({ tokenID: market.no, side: Side.SELL, amount: 10, orderType: OrderType.FAK }, undefined, OrderType.FAK);
  placed(noSell, 'matched', '4', '1.6');
  // With a price the caller names (the client then skips its own walk), an empty side is the
  // server's FAK refusal.
  const nothing = await taker.client.createMarketOrder({ tokenID: market.no, side: Side.SELL, amount: 5, price: 0.4, orderType: OrderType.FAK });
  assert.deepEqual(await taker.client.postOrder(nothing, OrderType.FAK), clientError(400, 'no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.'));
  await taker.client.cancelAll();
});

test('heartbeats: "" starts a session, its id continues it, a stale id is refused, and silence cancels the orders', async () => {
  const bot = await fundedBot(803);
  placed(await bot.client.createAndPostOrder({ tokenID: market.yes, price: 0.1, size: 5, side: Side.BUY }), 'live');
  const first = await bot.client.postHeartbeat('');
  assert.match(first.heartbeat_id, UUID);
  const second = await bot.client.postHeartbeat(first.heartbeat_id);
  assert.match(second.heartbeat_id, UUID);
  assert.notEqual(second.heartbeat_id, first.heartbeat_id);
  // A stale id: the server's 400 names the one it expects.
  assert.deepEqual(await bot.client.postHeartbeat(first.heartbeat_id), clientError(400, 'Invalid Heartbeat ID', { heartbeat_id: second.heartbeat_id }));
  // The id the client got continues the session for a plain request with the same key.
  const plain = await bot.plain.send<{ heartbeat_id: string }>('POST', '/v1/heartbeats', { heartbeat_id: second.heartbeat_id });
  assert.equal(plain.status, 200, plain.text);
  const third = await bot.client.postHeartbeat(plain.body.heartbeat_id);
  assert.match(third.heartbeat_id, UUID);
  assert.equal((await liveIds(bot)).length, 1);

  // Silence past HEARTBEAT_TIMEOUT_MS: the account's open orders are cancelled.
  const deadline = Date.now() + HEARTBEAT_TIMEOUT_MS + 5000;
  while ((await bot.client.getOpenOrders()).length > 0) {
    assert.ok(Date.now() < deadline, 'the orders were not cancelled after the heartbeat timeout');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.deepEqual(await liveIds(bot), []);
  // The session is over: "" starts a new one.
  assert.match((await bot.client.postHeartbeat('')).heartbeat_id, UUID);
  await bot.client.postHeartbeat('').then((answer) => assert.equal((answer as unknown as { status: number }).status, 400));
});

test('getApiKeys lists every key of the wallet; deleteApiKey deletes the one that signs, which stops working', async () => {
  const bot = await fundedBot(804);
  const l1 = new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(bot.plain.secret) });
  const second = await l1.createApiKey(1);
  const secondClient = botClient(bot.plain, second);
  const listed = await bot.client.getApiKeys();
  assert.deepEqual(listed, { apiKeys: [bot.creds.key, second.key] });
  assert.deepEqual(await secondClient.getApiKeys(), await plainRead(bot, '/auth/api-keys'));

  assert.equal(await secondClient.deleteApiKey(), 'OK');
  assert.deepEqual(await secondClient.getApiKeys(), clientError(401, 'Unauthorized/Invalid api key'));
  const withDeleted = new Trader(server.urls.clob, bot.plain.secret);
  withDeleted.credentials = { apiKey: second.key, secret: second.secret, passphrase: second.passphrase };
  assert.equal((await withDeleted.send('GET', '/data/orders')).status, 401);
  assert.deepEqual(await bot.client.getApiKeys(), { apiKeys: [bot.creds.key] });
  // Its nonce makes a new key; the deleted one is not derived again.
  const again = await l1.createOrDeriveApiKey(1);
  assert.notEqual(again.key, second.key);
  assert.deepEqual((await bot.client.getApiKeys()).apiKeys, [bot.creds.key, again.key]);
});

test('getTrades with each filter, getTradesPaginated, getOpenOrders with each filter, and balances', async () => {
  const all = await maker.client.getTrades();
  assert.deepEqual(all, (await plainRead<{ data: unknown[] }>(maker, '/data/trades')).data);
  // The maker's fills: the 10 YES bought (mint), 4 YES in the batch, 5 YES sold (FAK), 10 on the
  // neg-risk market (two fills), 4 NO bought from the taker's FAK sell.
  assert.equal(all.length, 6, JSON.stringify(all.map((trade) => [trade.asset_id, trade.size, trade.trader_side])));
  const check = async (params: Parameters<ClobClient['getTrades']>[0], query: string, expected: number): Promise<void> => {
    const trades = await maker.client.getTrades(params);
    assert.deepEqual(trades, (await plainRead<{ data: unknown[] }>(maker, `/data/trades?${query}`)).data, query);
    assert.equal(trades.length, expected, `${query}: ${JSON.stringify(trades.map((trade) => [trade.asset_id, trade.size]))}`);
  };
  await check({ market: market.conditionId }, `market=${market.conditionId}`, 4);
  await check({ market: negRisk.conditionId }, `market=${negRisk.conditionId}`, 2);
  await check({ id: all[0]!.id }, `id=${all[0]!.id}`, 1);
  await check({ before: String(tradeStart - 10) }, `before=${tradeStart - 10}`, 0);
  await check({ after: String(tradeStart - 10) }, `after=${tradeStart - 10}`, 6);
  // asset_id: the trade's asset_id (the taker's token), as the trades show it.
  const yesTrades = all.filter((trade) => trade.asset_id === market.yes).length;
  await check({ asset_id: market.yes }, `asset_id=${market.yes}`, yesTrades);
  await check({ market: market.conditionId, asset_id: market.no }, `market=${market.conditionId}&asset_id=${market.no}`, all.filter((trade) => trade.asset_id === market.no).length);
  // maker_address: the trades of that address (the caller's own: all of them).
  await check({ maker_address: maker.plain.address }, `maker_address=${maker.plain.address}`, 6);
  await check({ maker_address: taker.plain.address }, `maker_address=${taker.plain.address}`, 6);
  await check({ maker_address: `0x${'11'.repeat(20)}` }, `maker_address=0x${'11'.repeat(20)}`, 0);

  const page = await maker.client.getTradesPaginated({ market: market.conditionId });
  const plainPage = await plainRead<{ data: unknown[]; next_cursor: string; limit: number; count: number }>(maker, `/data/trades?market=${market.conditionId}&next_cursor=MA==`);
  assert.deepEqual(page, { trades: plainPage.data, next_cursor: plainPage.next_cursor, limit: plainPage.limit, count: plainPage.count });
  assert.deepEqual([page.trades.length, page.next_cursor, page.limit, page.count], [4, 'LTE=', 500, 4]);
  assert.deepEqual(await maker.client.getTradesPaginated({}, 'LTE='), { trades: [], next_cursor: 'LTE=', limit: 500, count: 0 });

  // Open orders: two on YES and one on NO, then each filter.
  const yes1 = await maker.client.createAndPostOrder({ tokenID: market.yes, price: 0.1, size: 5, side: Side.BUY });
  const yes2 = await maker.client.createAndPostOrder({ tokenID: market.yes, price: 0.11, size: 5, side: Side.BUY });
  const no = await maker.client.createAndPostOrder({ tokenID: market.no, price: 0.12, size: 5, side: Side.BUY });
  const nr = await maker.client.createAndPostOrder({ tokenID: negRisk.no, price: 0.12, size: 5, side: Side.BUY });
  assert.deepEqual(await liveIds(maker), [yes1.orderID, yes2.orderID, no.orderID, nr.orderID].sort());
  assert.deepEqual(await liveIds(maker, { market: market.conditionId }), [yes1.orderID, yes2.orderID, no.orderID].sort());
  assert.deepEqual(await liveIds(maker, { market: market.conditionId, asset_id: market.no }), [no.orderID]);
  assert.deepEqual(await liveIds(maker, { asset_id: market.yes }), [yes1.orderID, yes2.orderID].sort());
  assert.deepEqual(await liveIds(maker, { market: negRisk.conditionId, asset_id: negRisk.no }), [nr.orderID]);
  assert.deepEqual(await liveIds(maker, { id: yes2.orderID }), [yes2.orderID]);
  assert.deepEqual(await liveIds(maker, { market: negRisk.conditionId, asset_id: market.yes }), []);

  // Balances: collateral and each token, through the client (which adds signature_type=0).
  for (const [query, params] of [
    ['asset_type=COLLATERAL', { asset_type: AssetType.COLLATERAL }],
    [`asset_type=CONDITIONAL&token_id=${market.yes}`, { asset_type: AssetType.CONDITIONAL, token_id: market.yes }],
    [`asset_type=CONDITIONAL&token_id=${market.no}`, { asset_type: AssetType.CONDITIONAL, token_id: market.no }],
    [`asset_type=CONDITIONAL&token_id=${negRisk.yes}`, { asset_type: AssetType.CONDITIONAL, token_id: negRisk.yes }],
  ] as const) {
    // The client types it {balance, allowances}; clobd answers {balance, allowance} (docs/api.md).
    const got = await maker.client.getBalanceAllowance(params) as unknown as { balance: string; allowance: string };
    assert.deepEqual(got, await plainRead(maker, `/balance-allowance?${query}`), query);
    assert.deepEqual(Object.keys(got), ['balance', 'allowance']);
  }
  const shares = await maker.client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: negRisk.yes });
  assert.deepEqual(shares, { balance: '10000000', allowance: '10000000' });
  const missing = await maker.client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL });
  assert.equal((missing as unknown as { status: number }).status, 400);
  await maker.client.cancelAll();
});

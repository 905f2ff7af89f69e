// Polymarket's official TypeScript client (@polymarket/clob-client, unchanged) reading market data
// from the real server: health and time, the trading markets (every page of /markets, of the
// sampling lists and of the simplified list, following next_cursor to the end cursor), one
// market, books (single and batch, and the client's own book hash), prices, midpoint, spread,
// last trade (single and batch), tick size, neg risk, fee rate and price history. Each answer
// must equal what the same endpoint answers to a plain fetch, on the CLOB listener and through
// the compatibility relay (COMPAT_PORT) alike: no credentials are involved, so both work. The
// books are made non-trivial first with resting orders and a fill placed by the test trader.
//
// What the client changes: getTickSize returns minimum_tick_size as a string (String(number)),
// and after getOrderBook(s) it answers from the book's tick_size without asking /tick-size;
// getNegRisk returns the bare neg_risk boolean (cached per token); getPricesHistory is typed
// MarketPrice[] but returns the {history} object as the server sends it. Everything else is the
// parsed JSON body, unchanged.
//
// The client methods whose endpoints are Polymarket's but not interface.md's: getSimplifiedMarkets
// (with the sampling lists), and at the end getMidpoints, getSpreads, getLastTradesPrices and
// getFeeRateBps.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Chain, ClobClient, PriceHistoryInterval, Side, type OrderBookSummary, type PaginationPayload } from '@polymarket/clob-client';
import { removeDataDir, request } from '../../support/server.js';
import type { RunningServer } from '../../support/server.js';
import { compatUrlOf } from '../orders/official_setup.js';
import { ADMIN_TOKEN, startTrading, type PlainMarket, type Trader } from '../orders/trader.js';

const END_CURSOR = 'LTE=';
/** Markets in each of the two extra events: with the demo and test markets, /markets has two pages. */
const BULK_MARKETS = 500;

let server: RunningServer;
/** A: books, prices and a fill. B: never traded (empty books). */
let A: PlainMarket;
let B: PlainMarket;
/** The official client on the CLOB listener and on the compatibility relay. */
let hosts: { name: string; url: string; client: ClobClient }[];

/** The client as a user makes it, except that an error answer throws (ApiError) instead of being returned. */
function officialClient(url: string): ClobClient {
  return new ClobClient(url, Chain.POLYGON, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, true);
}

async function direct(url: string, init: RequestInit = {}): Promise<unknown> {
  const response = await request(url, init);
  assert.equal(response.status, 200, `${init.method ?? 'GET'} ${url}: ${response.text.slice(0, 300)}`);
  return response.body;
}

function post(url: string, body: unknown): Promise<unknown> {
  return direct(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/**
 * The client's answer equals the plain fetch's. The fetch runs before and, when they differ,
 * again after the client's call, so an answer that moves with the clock (/time, a history range
 * ending now) is compared with the server's answer of the same second or minute.
 */
async function sameAsDirect<T>(call: () => Promise<T>, fetchDirect: () => Promise<unknown>, transform: (raw: unknown) => unknown = (raw) => raw): Promise<T> {
  const first = await fetchDirect();
  const got = await call();
  if (JSON.stringify(got) !== JSON.stringify(transform(first))) assert.deepEqual(got, transform(await fetchDirect()));
  return got;
}

/** Creates an event of `markets` (Gamma-shaped market fields) with the admin endpoint; its markets as created. */
async function adminEvent(title: string, markets: Record<string, unknown>[]): Promise<{ conditionId: string; clobTokenIds: string }[]> {
  const created = await request<{ markets: { conditionId: string; clobTokenIds: string }[] }>(`${server.urls.clob}/admin/events`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title, endDate: '2031-01-01T00:00:00Z', markets }),
  });
  assert.equal(created.status, 201, created.text.slice(0, 300));
  return created.body.markets;
}

async function placed(trader: Trader, input: Parameters<Trader['place']>[0], status: string): Promise<void> {
  const response = await trader.place(input);
  assert.equal(response.status, 200, response.text);
  assert.equal((response.body as Record<string, unknown>)['status'], status, response.text);
}

before(async () => {
  const setup = await startTrading([831, 832, 833], { COMPAT_PORT: '0', LOG_LEVEL: 'info' });
  server = setup.server;
  [A, B] = setup.markets as [PlainMarket, PlainMarket];
  const [alice, bob, carol] = setup.traders as [Trader, Trader, Trader];
  const compatUrl = compatUrlOf(server);
  hosts = [{ name: 'clob', url: server.urls.clob, client: officialClient(server.urls.clob) }, { name: 'compat', url: compatUrl, client: officialClient(compatUrl) }];
  for (let event = 0; event < 2; event++) {
    await adminEvent(`Official client bulk ${event}`, Array.from({ length: BULK_MARKETS }, (_, index) => ({ question: `Official client bulk ${event} ${index}?` })));
  }
  // YES of A: bids 0.25 x 20 and 0.30 x 10, an ask at 0.40 x 8 (bob's NO bid at 0.60); then
  // carol's NO bid at 0.70 x 5 fills half of the 0.30 bid.
  await placed(alice, { tokenId: A.yes, side: 'BUY', priceUnits: 2500, sizeMicros: 20_000_000 }, 'live');
  await placed(alice, { tokenId: A.yes, side: 'BUY', priceUnits: 3000, sizeMicros: 10_000_000 }, 'live');
  await placed(bob, { tokenId: A.no, side: 'BUY', priceUnits: 6000, sizeMicros: 8_000_000 }, 'live');
  await placed(carol, { tokenId: A.no, side: 'BUY', priceUnits: 7000, sizeMicros: 5_000_000 }, 'matched');
  // The read model is fed from the committed answers, the history from the shard's store; wait until both show the fill.
  for (let attempt = 0; ; attempt++) {
    const last = await request<{ price: string }>(`${server.urls.clob}/last-trade-price?token_id=${A.yes}`);
    const history = await request<{ history: unknown[] }>(`${server.urls.clob}/prices-history?market=${A.yes}&interval=1h&fidelity=1`);
    if (last.body.price === '0.3' && history.body.history.length > 0) break;
    assert.ok(attempt < 100, `the fill never showed: ${last.text} ${history.text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});

after(async () => {
  await server?.stop();
  if (server !== undefined) removeDataDir(server.dataDir);
});

test('getOk and getServerTime', async () => {
  for (const { url, client } of hosts) {
    assert.equal(await sameAsDirect(() => client.getOk(), () => direct(`${url}/`)), 'OK');
    const time = await sameAsDirect(() => client.getServerTime(), () => direct(`${url}/time`));
    assert.ok(Math.abs(time - Date.now() / 1000) < 5, `server time ${time}`);
  }
});

/** Every page of a paged list through the client, each equal to the plain fetch of its cursor. */
async function allPages(url: string, path: string, call: (cursor?: string) => Promise<PaginationPayload>): Promise<{ pages: PaginationPayload[]; data: Record<string, unknown>[] }> {
  const pages: PaginationPayload[] = [];
  let cursor: string | undefined;
  do {
    const at = cursor;
    // The first page is asked without a cursor, so the client sends its own initial one (MA==).
    const page = await sameAsDirect(() => call(at), () => direct(`${url}${path}?next_cursor=${encodeURIComponent(at ?? 'MA==')}`));
    assert.equal(page.limit, 1000);
    assert.equal(page.count, page.data.length);
    pages.push(page);
    cursor = page.next_cursor;
    assert.ok(pages.length < 10, 'the cursors end');
  } while (cursor !== END_CURSOR);
  // Asking with the end cursor gives an empty page, as the client's own loops expect.
  assert.deepEqual(await call(END_CURSOR), { data: [], next_cursor: END_CURSOR, limit: 1000, count: 0 });
  return { pages, data: pages.flatMap((page) => page.data as Record<string, unknown>[]) };
}

test('getMarkets over every page to the end cursor, and getMarket', async () => {
  for (const { url, client } of hosts) {
    const { pages, data } = await allPages(url, '/markets', (cursor) => client.getMarkets(cursor));
    assert.equal(pages.length, 2, 'the demo, test and bulk markets take two pages');
    const ids = data.map((market) => market['condition_id'] as string);
    assert.equal(new Set(ids).size, ids.length, 'no market twice');
    assert.ok(data.length >= 2 * BULK_MARKETS + 4);
    const listed = data.find((market) => market['condition_id'] === A.conditionId);
    assert.ok(listed !== undefined);
    for (const market of [A, B]) {
      const full = await sameAsDirect(() => client.getMarket(market.conditionId), () => direct(`${url}/markets/${market.conditionId}`));
      assert.equal(full.condition_id, market.conditionId);
      assert.deepEqual(full.assets_ids, [market.yes, market.no]);
    }
    const full = await client.getMarket(A.conditionId) as Record<string, unknown>;
    for (const [key, value] of Object.entries(listed)) assert.deepEqual(full[key], value, `the list variant's ${key} is the full variant's`);
    assert.deepEqual((full['tokens'] as { price: number }[]).map((token) => token.price), [0.35, 0.65], 'the midpoints');
  }
});

test('getSamplingMarkets, getSamplingSimplifiedMarkets and getSimplifiedMarkets over every page', async () => {
  for (const { url, client } of hosts) {
    const full = await allPages(url, '/sampling-markets', (cursor) => client.getSamplingMarkets(cursor));
    const simplified = await allPages(url, '/sampling-simplified-markets', (cursor) => client.getSamplingSimplifiedMarkets(cursor));
    assert.equal(full.pages.length, 2);
    assert.deepEqual(simplified.data.map((market) => market['condition_id']), full.data.map((market) => market['condition_id']));
    assert.ok(full.data.every((market) => market['accepting_orders'] === true));
    assert.ok(full.data.some((market) => market['condition_id'] === A.conditionId));
    // /simplified-markets (not in interface.md): every trading market as /markets lists them, each
    // in the one simplified shape the sampling list shows too.
    const all = await allPages(url, '/simplified-markets', (cursor) => client.getSimplifiedMarkets(cursor));
    const listed = await client.getMarkets().then(async (first) => [...first.data, ...(await client.getMarkets(first.next_cursor)).data] as Record<string, unknown>[]);
    assert.equal(all.pages.length, 2);
    assert.deepEqual(all.data.map((market) => market['condition_id']), listed.map((market) => market['condition_id']));
    for (const market of simplified.data) assert.deepEqual(all.data.find((entry) => entry['condition_id'] === market['condition_id']), market);
  }
});

test('getOrderBook and getOrderBooks, with the hash the client computes', async () => {
  for (const { url, client } of hosts) {
    const yes = await sameAsDirect(() => client.getOrderBook(A.yes), () => direct(`${url}/book?token_id=${A.yes}`));
    assert.deepEqual(yes.bids, [{ price: '0.25', size: '20' }, { price: '0.3', size: '5' }]);
    assert.deepEqual(yes.asks, [{ price: '0.4', size: '8' }]);
    assert.equal(yes.last_trade_price, '0.3');
    assert.equal(await client.getOrderBookHash(structuredClone(yes)), yes.hash, "the client's book hash is the server's");
    const no = await sameAsDirect(() => client.getOrderBook(A.no), () => direct(`${url}/book?token_id=${A.no}`));
    assert.deepEqual(no.asks, [{ price: '0.75', size: '20' }, { price: '0.7', size: '5' }]);
    // The client's BookParams carry a side; the server reads token_id and accepts the side.
    const params = [{ token_id: A.yes, side: Side.BUY }, { token_id: A.no, side: Side.SELL }, { token_id: B.yes, side: Side.BUY }];
    const books = await sameAsDirect(() => client.getOrderBooks(params), () => post(`${url}/books`, params));
    assert.deepEqual(books.slice(0, 2), [yes, no]);
    const empty = books[2] as OrderBookSummary;
    assert.deepEqual([empty.asset_id, empty.bids, empty.asks, empty.last_trade_price], [B.yes, [], [], '0.5']);
  }
});

test('getPrice, getPrices, getMidpoint, getSpread and getLastTradePrice', async () => {
  for (const { url, client } of hosts) {
    const token = (path: string, tokenId: string, extra = '') => () => direct(`${url}${path}?token_id=${tokenId}${extra}`);
    assert.deepEqual(await sameAsDirect(() => client.getPrice(A.yes, Side.BUY), token('/price', A.yes, '&side=BUY')), { price: '0.3' });
    assert.deepEqual(await sameAsDirect(() => client.getPrice(A.yes, Side.SELL), token('/price', A.yes, '&side=SELL')), { price: '0.4' });
    assert.deepEqual(await sameAsDirect(() => client.getPrice(A.no, 'BUY'), token('/price', A.no, '&side=BUY')), { price: '0.6' });
    const params = [{ token_id: A.yes, side: Side.BUY }, { token_id: A.yes, side: Side.SELL }, { token_id: A.no, side: Side.SELL }, { token_id: B.yes, side: Side.BUY }];
    assert.deepEqual(await sameAsDirect(() => client.getPrices(params), () => post(`${url}/prices`, params)), {
      [A.yes]: { BUY: '0.3', SELL: '0.4' }, [A.no]: { SELL: '0.7' }, [B.yes]: {},
    });
    assert.deepEqual(await sameAsDirect(() => client.getMidpoint(A.yes), token('/midpoint', A.yes)), { mid: '0.35' });
    assert.deepEqual(await sameAsDirect(() => client.getMidpoint(A.no), token('/midpoint', A.no)), { mid: '0.65' });
    assert.deepEqual(await sameAsDirect(() => client.getSpread(A.yes), token('/spread', A.yes)), { spread: '0.1' });
    assert.deepEqual(await sameAsDirect(() => client.getSpread(A.no), token('/spread', A.no)), { spread: '0.1' });
    // carol bought NO (taker BUY); on YES the same fill is a SELL.
    assert.deepEqual(await sameAsDirect(() => client.getLastTradePrice(A.no), token('/last-trade-price', A.no)), { price: '0.7', side: 'BUY' });
    assert.deepEqual(await sameAsDirect(() => client.getLastTradePrice(A.yes), token('/last-trade-price', A.yes)), { price: '0.3', side: 'SELL' });
    assert.deepEqual(await sameAsDirect(() => client.getLastTradePrice(B.yes), token('/last-trade-price', B.yes)), { price: '0.5', side: '' });
  }
});

test('getTickSize and getNegRisk (the client returns the bare values)', async () => {
  for (const { url } of hosts) {
    // A fresh client, so the tick size is asked of /tick-size rather than taken from a book.
    const client = officialClient(url);
    const tick = await sameAsDirect(() => client.getTickSize(A.yes), () => direct(`${url}/tick-size?token_id=${A.yes}`), (raw) => String((raw as { minimum_tick_size: number }).minimum_tick_size));
    assert.equal(tick, '0.01');
    assert.equal(await sameAsDirect(() => client.getNegRisk(A.no), () => direct(`${url}/neg-risk?token_id=${A.no}`), (raw) => (raw as { neg_risk: boolean }).neg_risk), false);
    // From a book, the client caches the book's tick_size: the same value.
    const fromBook = officialClient(url);
    await fromBook.getOrderBook(B.no);
    assert.equal(await fromBook.getTickSize(B.no), String((await direct(`${url}/tick-size?token_id=${B.no}`) as { minimum_tick_size: number }).minimum_tick_size));
  }
});

test('getPricesHistory with an interval, with startTs/endTs, and over the whole history', async () => {
  const nowS = Math.floor(Date.now() / 1000);
  for (const { url, client } of hosts) {
    // getPricesHistory is typed MarketPrice[], but it returns the body: {history: [{t, p}]}.
    const history = async (params: Parameters<ClobClient['getPricesHistory']>[0], query: string) =>
      (await sameAsDirect(async () => (await client.getPricesHistory(params)) as unknown, () => direct(`${url}/prices-history?${query}`))) as { history: { t: number; p: number }[] };
    const hour = await history({ market: A.yes, interval: PriceHistoryInterval.ONE_HOUR, fidelity: 1 }, `market=${A.yes}&interval=1h&fidelity=1`);
    assert.ok(hour.history.length >= 1);
    assert.equal(hour.history.at(-1)!.p, 0.3);
    assert.ok(hour.history.every((point) => point.t % 60 === 0));
    const range = await history({ market: A.no, startTs: nowS - 3_600, endTs: nowS + 600, fidelity: 5 }, `market=${A.no}&startTs=${nowS - 3_600}&endTs=${nowS + 600}&fidelity=5`);
    assert.ok(range.history.length >= 1);
    assert.equal(range.history.at(-1)!.p, 0.7);
    assert.ok(range.history.every((point) => point.t % 300 === 0));
    const whole = await history({ market: A.yes, interval: PriceHistoryInterval.MAX }, `market=${A.yes}&interval=max`);
    assert.equal(whole.history.at(-1)!.p, 0.3);
    assert.deepEqual(await history({ market: B.yes }, `market=${B.yes}`), { history: [] }, 'a token without trades');
  }
});

// Client methods whose endpoints are not in interface.md: clobd serves them as Polymarket does
// (docs/api.md "Beyond the interface"), since the client calls them (createOrder asks /fee-rate).
test('getMidpoints, getSpreads and getLastTradesPrices (POST batches of {token_id, side})', async () => {
  for (const { url, client } of hosts) {
    // The client's BookParams carry a side; these reads ignore it. B has no orders: no midpoint or spread.
    const params = [{ token_id: A.yes, side: Side.BUY }, { token_id: A.no, side: Side.SELL }, { token_id: B.yes, side: Side.BUY }];
    assert.deepEqual(await sameAsDirect(() => client.getMidpoints(params), () => post(`${url}/midpoints`, params)), { [A.yes]: '0.35', [A.no]: '0.65' });
    assert.deepEqual(await sameAsDirect(() => client.getSpreads(params), () => post(`${url}/spreads`, params)), { [A.yes]: '0.1', [A.no]: '0.1' });
    assert.deepEqual(await sameAsDirect(() => client.getLastTradesPrices(params), () => post(`${url}/last-trades-prices`, params)), [
      { token_id: A.yes, price: '0.3', side: 'SELL' }, { token_id: A.no, price: '0.7', side: 'BUY' }, { token_id: B.yes, price: '0.5', side: '' },
    ]);
  }
});

test('getFeeRateBps: GET /fee-rate (createOrder and createMarketOrder call it first)', async () => {
  // A market with a taker fee, made here so that the earlier tests' market counts stay as they are.
  const [feeMarket] = await adminEvent('Official client fee', [{ question: 'Fee?', takerBaseFee: 35 }]);
  const [feeYes] = JSON.parse(feeMarket!.clobTokenIds) as [string, string];
  for (const { url, client } of hosts) {
    const baseFee = (raw: unknown) => (raw as { base_fee: number }).base_fee;
    assert.equal(await sameAsDirect(() => client.getFeeRateBps(feeYes), () => direct(`${url}/fee-rate?token_id=${feeYes}`), baseFee), 35);
    assert.equal(await sameAsDirect(() => client.getFeeRateBps(A.yes), () => direct(`${url}/fee-rate?token_id=${A.yes}`), baseFee), 0);
    const settings = await direct(`${url}/clob-markets/${feeMarket!.conditionId}`) as { tbf: number };
    assert.equal(settings.tbf, 35, "the settings' taker fee");
  }
});

// Trading market data over HTTP against the real server (contract §2 and §5, interface.md
// "Order book", "Trading market", "Trading market-data endpoints"): books of both outcome tokens
// computed independently from the orders the test rests (the NO book mirrors the YES book at
// 1 − p), their key order and SHA-1 hash, prices, midpoint, spread and last trade after a fill,
// batch reads, the small reads (/tick-size, /neg-risk, /time, /), every input error as 400/404
// and never 500, the trading market list, single, sampling and settings shapes before and after
// a resolution, and the same books after a SIGTERM restart on the same data directory.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { removeDataDir, request, startServer, type RunningServer } from '../../support/server.js';
import { readsOf } from './reads.js';
import { ADMIN_TOKEN, startTrading, type PlainMarket, type Trader } from '../orders/trader.js';

const NO_BOOK = { error: 'No orderbook exists for the requested token id' };
// In the order py-clob-client hashes them (get_order_book_hash): neg_risk before last_trade_price.
const BOOK_KEYS = ['market', 'asset_id', 'timestamp', 'hash', 'bids', 'asks', 'min_order_size', 'tick_size', 'neg_risk', 'last_trade_price'];

let server: RunningServer;
let markets: readonly PlainMarket[];
let alice: Trader;
let bob: Trader;
let carol: Trader;
/** Market A: the books under test. B: never traded (empty book). C: resolved in the markets test. D: used after the restart. */
let A: PlainMarket;
let B: PlainMarket;
let C: PlainMarket;
let D: PlainMarket;

before(async () => {
  const setup = await startTrading([71, 72, 73]);
  ({ server, markets } = setup);
  [alice, bob, carol] = setup.traders as [Trader, Trader, Trader];
  [A, B, C, D] = markets as [PlainMarket, PlainMarket, PlainMarket, PlainMarket];
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

// ---- an independent model of a binary market's book ---------------------------------------

type Outcome = 'YES' | 'NO';

interface Resting {
  readonly outcome: Outcome;
  readonly side: 'BUY' | 'SELL';
  readonly priceUnits: number;
  sizeMicros: number;
}

interface Level {
  readonly price: string;
  readonly size: string;
}

interface Book {
  readonly market: string;
  readonly asset_id: string;
  readonly timestamp: string;
  readonly hash: string;
  readonly bids: Level[];
  readonly asks: Level[];
  readonly min_order_size: string;
  readonly tick_size: string;
  readonly last_trade_price: string;
  readonly neg_risk: boolean;
}

/** The decimal text of integer units, by plain division (the shortest round-trip text is exact here). */
const decimal = (units: number, per: number): string => String(units / per);

/**
 * The book `outcome`'s holders see: its own BUYs and the other token's SELLs at 1 − p are bids;
 * its own SELLs and the other token's BUYs at 1 − p are asks. Bids ascending, asks descending.
 */
function expectedLevels(orders: readonly Resting[], outcome: Outcome): { bids: Level[]; asks: Level[] } {
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  for (const order of orders) {
    if (order.sizeMicros === 0) continue;
    const own = order.outcome === outcome;
    const price = own ? order.priceUnits : 10_000 - order.priceUnits;
    const isBid = own ? order.side === 'BUY' : order.side === 'SELL';
    const levels = isBid ? bids : asks;
    levels.set(price, (levels.get(price) ?? 0) + order.sizeMicros);
  }
  const level = ([price, size]: [number, number]): Level => ({ price: decimal(price, 10_000), size: decimal(size, 1_000_000) });
  return {
    bids: [...bids].sort((a, b) => a[0] - b[0]).map(level),
    asks: [...asks].sort((a, b) => b[0] - a[0]).map(level),
  };
}

const shares = (count: number): number => Math.round(count * 1_000_000);

/** Checks one book body's text: key order, timestamp, hash; returns the parsed book. */
function checkBookText(text: string): Book {
  const book = JSON.parse(text) as Book;
  checkBook(book);
  return book;
}

function checkBook(book: Book): void {
  assert.deepEqual(Object.keys(book), BOOK_KEYS);
  assert.match(book.timestamp, /^\d{13}$/, 'timestamp is a ms string');
  assert.ok(Math.abs(Number(book.timestamp) - Date.now()) < 10 * 60_000, `timestamp ${book.timestamp} is recent`);
  assert.match(book.hash, /^[0-9a-f]{40}$/);
  const unhashed = { ...book, hash: '' };
  assert.equal(book.hash, createHash('sha1').update(JSON.stringify(unhashed)).digest('hex'), 'hash = SHA-1 of the compact JSON with hash ""');
  for (const level of [...book.bids, ...book.asks]) {
    assert.deepEqual(Object.keys(level), ['price', 'size']);
    assert.equal(typeof level.price, 'string');
    assert.equal(typeof level.size, 'string');
  }
  const prices = (levels: Level[]) => levels.map((level) => Number(level.price));
  assert.deepEqual(prices(book.bids), [...prices(book.bids)].sort((a, b) => a - b), 'bids ascending (best last)');
  assert.deepEqual(prices(book.asks), [...prices(book.asks)].sort((a, b) => b - a), 'asks descending (best last)');
}

const clob = (path: string): string => `${server.urls.clob}${path}`;

const { get, post } = readsOf(() => server.urls.clob);

async function book(tokenId: string): Promise<Book> {
  const response = await get(`/book?token_id=${tokenId}`);
  assert.equal(response.status, 200, response.text);
  assert.match(response.headers.get('content-type') ?? '', /application\/json/);
  return checkBookText(response.text);
}

/** The parts of a book that depend on its levels and trades only (not on when it was read). */
const content = ({ timestamp: _timestamp, hash: _hash, ...rest }: Book) => rest;

async function place(trader: Trader, outcome: Outcome, side: 'BUY' | 'SELL', priceUnits: number, sizeMicros: number, market = A, orderType = 'GTC') {
  const response = await trader.place<{ status: string; makingAmount: string; takingAmount: string }>({
    tokenId: outcome === 'YES' ? market.yes : market.no, side, priceUnits, sizeMicros, orderType,
  });
  assert.equal(response.status, 200, response.text);
  return response;
}

// ---- the orders resting in market A ---------------------------------------------------------

const resting: Resting[] = [];

async function rest(trader: Trader, outcome: Outcome, side: 'BUY' | 'SELL', priceUnits: number, sizeMicros: number): Promise<Resting> {
  const response = await place(trader, outcome, side, priceUnits, sizeMicros);
  assert.equal(response.body.status, 'live', `${outcome} ${side} ${priceUnits} rests`);
  const order = { outcome, side, priceUnits, sizeMicros };
  resting.push(order);
  return order;
}

let carolBid35: Resting;
let bobNoSell65: Resting;
let booksBeforeFill: { yes: Book; no: Book };

test('books of both tokens mirror each other, aggregate levels, keep the key order and hash', async () => {
  // Complete sets first, so SELLs have shares behind them: alice's YES BUY at 0.60 rests, bob's
  // NO BUY at 0.40 crosses it (MINT). alice holds 20 YES, bob 20 NO; the book is empty again.
  await place(alice, 'YES', 'BUY', 6000, shares(20));
  const mint = await place(bob, 'NO', 'BUY', 4000, shares(20));
  assert.equal(mint.body.status, 'matched');
  const empty = await book(A.yes);
  assert.deepEqual([empty.bids, empty.asks], [[], []]);

  // YES-orientation bids: 0.20, 0.30 (three orders), 0.35 (two); asks 0.60, 0.70 (two), 0.75 (two).
  await rest(alice, 'YES', 'BUY', 3000, shares(5));
  await rest(carol, 'YES', 'BUY', 3000, shares(7.25));
  carolBid35 = await rest(carol, 'YES', 'BUY', 3500, shares(6));
  bobNoSell65 = await rest(bob, 'NO', 'SELL', 6500, shares(5));
  await rest(bob, 'NO', 'SELL', 7000, shares(8));
  await rest(bob, 'NO', 'SELL', 8000, shares(5.5));
  await rest(alice, 'YES', 'SELL', 7000, shares(5));
  await rest(alice, 'YES', 'SELL', 7500, shares(6));
  await rest(carol, 'NO', 'BUY', 3000, shares(5));
  await rest(carol, 'NO', 'BUY', 4000, shares(9.01));
  await rest(carol, 'NO', 'BUY', 2500, shares(5));

  const yes = await book(A.yes);
  const no = await book(A.no);
  const expectedYes = expectedLevels(resting, 'YES');
  const expectedNo = expectedLevels(resting, 'NO');
  // The model's own sanity: levels did aggregate, and the two books are mirrors.
  assert.deepEqual(expectedYes.bids, [{ price: '0.2', size: '5.5' }, { price: '0.3', size: '20.25' }, { price: '0.35', size: '11' }]);
  assert.deepEqual(expectedYes.asks, [{ price: '0.75', size: '11' }, { price: '0.7', size: '10' }, { price: '0.6', size: '9.01' }]);
  assert.deepEqual(expectedNo.bids.map((level) => level.size), expectedYes.asks.map((level) => level.size));

  assert.deepEqual({ bids: yes.bids, asks: yes.asks }, expectedYes);
  assert.deepEqual({ bids: no.bids, asks: no.asks }, expectedNo);
  for (const [view, tokenId] of [[yes, A.yes], [no, A.no]] as const) {
    assert.equal(view.market, A.conditionId);
    assert.equal(view.asset_id, tokenId);
    assert.equal(view.min_order_size, '5');
    assert.equal(view.tick_size, '0.01');
    assert.equal(view.neg_risk, false);
  }
  // The mint traded YES at 0.60 (alice's resting price) and NO at 0.40.
  assert.equal(yes.last_trade_price, '0.6');
  assert.equal(no.last_trade_price, '0.4');
  // The same levels read twice give the same body (cached per book version).
  assert.deepEqual(await book(A.yes), yes);
  booksBeforeFill = { yes, no };

  // A market without orders has an empty book and the no-trade last price.
  const untouched = await book(B.yes);
  assert.deepEqual([untouched.bids, untouched.asks, untouched.last_trade_price], [[], [], '0.5']);
});

test('a crossing order fills and every read reflects it; batch reads keep request order', async () => {
  // alice sells 8 YES at 0.35: carol's YES bid (6, first in time) then 2 of bob's NO SELL at 0.65 (MERGE).
  const fill = await place(alice, 'YES', 'SELL', 3500, shares(8));
  assert.deepEqual([fill.body.status, fill.body.makingAmount, fill.body.takingAmount], ['matched', '8', '2.8']);
  carolBid35.sizeMicros = 0;
  bobNoSell65.sizeMicros -= shares(2);

  const yes = await book(A.yes);
  const no = await book(A.no);
  assert.deepEqual({ bids: yes.bids, asks: yes.asks }, expectedLevels(resting, 'YES'));
  assert.deepEqual({ bids: no.bids, asks: no.asks }, expectedLevels(resting, 'NO'));
  assert.deepEqual(yes.bids.at(-1), { price: '0.35', size: '3' });
  assert.notEqual(yes.hash, booksBeforeFill.yes.hash);
  assert.ok(Number(yes.timestamp) >= Number(booksBeforeFill.yes.timestamp));
  // The taker sold YES at 0.35; on the NO side that is a BUY of NO at 0.65.
  assert.equal(yes.last_trade_price, '0.35');
  assert.equal(no.last_trade_price, '0.65');

  const read = async (path: string, token: string) => {
    const response = await get(`${path}${path.includes('?') ? '&' : '?'}token_id=${token}`);
    assert.equal(response.status, 200, `${path}: ${response.text}`);
    return response.body;
  };
  assert.deepEqual(await read('/price?side=BUY', A.yes), { price: '0.35' });
  assert.deepEqual(await read('/price?side=SELL', A.yes), { price: '0.6' });
  assert.deepEqual(await read('/price?side=BUY', A.no), { price: '0.4' });
  assert.deepEqual(await read('/price?side=SELL', A.no), { price: '0.65' });
  assert.deepEqual(await read('/midpoint', A.yes), { mid: '0.475' });
  assert.deepEqual(await read('/midpoint', A.no), { mid: '0.525' });
  assert.deepEqual(await read('/spread', A.yes), { spread: '0.25' });
  assert.deepEqual(await read('/spread', A.no), { spread: '0.25' });
  assert.deepEqual(await read('/last-trade-price', A.yes), { price: '0.35', side: 'SELL' });
  assert.deepEqual(await read('/last-trade-price', A.no), { price: '0.65', side: 'BUY' });

  // POST /books: in request order, each the same as GET /book.
  const books = await post<Book[]>('/books', [{ token_id: A.no }, { token_id: B.yes }, { token_id: A.yes }]);
  assert.equal(books.status, 200, books.text);
  assert.ok(Array.isArray(books.body));
  assert.deepEqual(books.body.map((item) => item.asset_id), [A.no, B.yes, A.yes]);
  for (const item of books.body) checkBook(item);
  assert.deepEqual(books.body[0], no);
  assert.deepEqual(books.body[2], yes);
  assert.deepEqual([books.body[1]!.bids, books.body[1]!.asks], [[], []]);
  assert.deepEqual((await post('/books', [])).body, []);

  // POST /prices: both sides without `side`, one side with it.
  const prices = await post('/prices', [{ token_id: A.yes }, { token_id: A.no, side: 'BUY' }]);
  assert.equal(prices.status, 200, prices.text);
  assert.deepEqual(prices.body, { [A.yes]: { BUY: '0.35', SELL: '0.6' }, [A.no]: { BUY: '0.4' } });
  const sells = await post('/prices', [{ token_id: A.no, side: 'SELL' }]);
  assert.deepEqual(sells.body, { [A.no]: { SELL: '0.65' } });

  // At most 500 tokens per batch.
  const many = await post<Book[]>('/books', Array.from({ length: 500 }, () => ({ token_id: A.yes })));
  assert.equal(many.status, 200);
  assert.equal(many.body.length, 500);
  for (const path of ['/books', '/prices']) {
    const tooMany = await post<{ error: string }>(path, Array.from({ length: 501 }, () => ({ token_id: A.yes })));
    assert.equal(tooMany.status, 400, `${path} with 501 items`);
    assert.equal(typeof tooMany.body.error, 'string');
  }
});

test('/tick-size, /neg-risk, /time and the health check', async () => {
  const tick = await get(`/tick-size?token_id=${A.no}`);
  assert.equal(tick.status, 200);
  assert.deepEqual(tick.body, { minimum_tick_size: 0.01 });
  assert.equal(tick.text, '{"minimum_tick_size":0.01}', 'a JSON number, not a string');
  const negRisk = await get(`/neg-risk?token_id=${A.yes}`);
  assert.equal(negRisk.status, 200);
  assert.equal(negRisk.text, '{"neg_risk":false}');

  const time = await get('/time');
  assert.equal(time.status, 200);
  assert.match(time.text, /^\d+$/, 'a bare integer');
  assert.ok(Math.abs(Number(time.text) - Date.now() / 1000) < 5, `time ${time.text} is now`);

  const health = await get('/');
  assert.equal(health.status, 200);
  assert.equal(health.text, '"OK"');
});

test('input errors are 400, unknown tokens 404 with the contract text, never 500', async () => {
  const unknown = '12345678901234567890';
  const tokenReads = ['/book?', '/price?side=BUY&', '/midpoint?', '/spread?', '/last-trade-price?', '/tick-size?', '/neg-risk?'];
  for (const path of tokenReads) {
    const notFound = await get(`${path}token_id=${unknown}`);
    assert.deepEqual([notFound.status, notFound.body], [404, NO_BOOK], `${path} unknown token`);
    const missing = await get(path.slice(0, -1));
    assert.equal(missing.status, 400, `${path} without token_id: ${missing.text}`);
    assert.equal(typeof (missing.body as { error: unknown }).error, 'string');
    for (const bad of ['abc!', '', 'x'.repeat(200), '%20']) {
      const malformed = await get(`${path}token_id=${encodeURIComponent(bad)}`);
      assert.equal(malformed.status, 400, `${path} token_id=${JSON.stringify(bad)}: ${malformed.text}`);
      assert.equal(typeof (malformed.body as { error: unknown }).error, 'string');
    }
  }
  const noSide = await get(`/price?token_id=${A.yes}`);
  assert.equal(noSide.status, 400, noSide.text);
  for (const side of ['FOO', 'buy', '']) {
    const badSide = await get(`/price?token_id=${A.yes}&side=${side}`);
    assert.equal(badSide.status, 400, `side=${side}: ${badSide.text}`);
  }

  for (const path of ['/books', '/prices']) {
    const notFound = await post(path, [{ token_id: A.yes }, { token_id: unknown }]);
    assert.deepEqual([notFound.status, notFound.body], [404, NO_BOOK], `${path} with an unknown token`);
    const bodies: unknown[] = [{ token_id: A.yes }, 'not json', '', 'null', [A.yes], [null], [{}], [{ token_id: 7 }], [{ token_id: 'abc!' }], [[]]];
    for (const body of bodies) {
      const response = await post<{ error: unknown }>(path, body);
      assert.equal(response.status, 400, `${path} ${JSON.stringify(body)}: ${response.text}`);
      assert.equal(typeof response.body.error, 'string');
    }
  }
  const badSide = await post('/prices', [{ token_id: A.yes, side: 'FOO' }]);
  assert.equal(badSide.status, 400);

  // A side without orders has no best price and no midpoint (404, not a 500).
  const [buy, sell, mid] = await Promise.all([get(`/price?token_id=${D.yes}&side=BUY`), get(`/price?token_id=${B.yes}&side=SELL`), get(`/midpoint?token_id=${B.yes}`)]);
  for (const response of [buy, sell, mid]) assert.deepEqual([response.status, response.body], [404, NO_BOOK]);
  // None of the failed requests changed the books.
  assert.deepEqual({ bids: (await book(A.yes)).bids, asks: (await book(A.yes)).asks }, expectedLevels(resting, 'YES'));
});

/** Stops the server with SIGTERM and starts a new one on the same data directory. */
async function restart(): Promise<void> {
  assert.equal(await server.stop(), 0, 'SIGTERM exits 0');
  server = await startServer({ dataDir: server.dataDir, env: { ADMIN_TOKEN, SHARDS: '2' } });
}

/**
 * Checks every test market's books answer, waiting a bounded time: the server says it is ready
 * only once its read model has the shards' books (the last test checks that on its own).
 */
async function booksLoaded(): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (const market of markets) {
    for (const token of [market.yes, market.no]) {
      for (;;) {
        const response = await get(`/book?token_id=${token}`);
        if (response.status === 200) break;
        assert.deepEqual([response.status, response.body], [404, NO_BOOK]);
        assert.ok(Date.now() < deadline, `the book of ${token} is still missing 10 s after the start`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }
}

// ---- trading markets ------------------------------------------------------------------------

type Kind = 'boolean' | 'string' | 'number' | 'rewards' | 'tokens' | 'strings' | 'event' | 'object';

const LIST_FIELDS: Record<string, Kind> = {
  enable_order_book: 'boolean', active: 'boolean', closed: 'boolean', archived: 'boolean', accepting_orders: 'boolean',
  accepting_order_timestamp: 'string', condition_id: 'string', question_id: 'string', question: 'string', description: 'string',
  market_slug: 'string', end_date_iso: 'string', game_start_time: 'string', fpmm: 'string', neg_risk_market_id: 'string',
  neg_risk_request_id: 'string', icon: 'string', image: 'string',
  minimum_order_size: 'number', minimum_tick_size: 'number', seconds_delay: 'number', maker_base_fee: 'number', taker_base_fee: 'number',
  taker_order_delay_ms: 'number', order_age_seconds: 'number',
  notifications_enabled: 'boolean', neg_risk: 'boolean', is_50_50_outcome: 'boolean', itode: 'boolean', screening_check_enabled: 'boolean',
  rewards: 'rewards', tokens: 'tokens', tags: 'strings',
};
const FULL_ONLY_FIELDS: Record<string, Kind> = {
  status: 'string', slug: 'string', market_id: 'number', assets_ids: 'strings', outcomes: 'strings', event: 'event', raw_metadata: 'object',
};
const SIMPLIFIED_FIELDS: Record<string, Kind> = {
  condition_id: 'string', status: 'string', question: 'string', slug: 'string',
  neg_risk: 'boolean', active: 'boolean', closed: 'boolean', archived: 'boolean', accepting_orders: 'boolean',
  market_id: 'number', tokens: 'tokens', rewards: 'rewards', assets_ids: 'strings', outcomes: 'strings',
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function checkKind(value: unknown, kind: Kind, where: string): void {
  switch (kind) {
    case 'boolean': case 'string': case 'number':
      assert.equal(typeof value, kind, where);
      if (kind === 'number') assert.ok(Number.isFinite(value), where);
      return;
    case 'strings':
      assert.ok(Array.isArray(value), where);
      for (const item of value) assert.equal(typeof item, 'string', where);
      return;
    case 'object':
      assert.ok(isObject(value), where);
      return;
    case 'event':
      assert.ok(isObject(value), where);
      assert.deepEqual(Object.keys(value).sort(), ['description', 'id', 'slug', 'ticker', 'title'], where);
      for (const item of Object.values(value)) assert.equal(typeof item, 'string', where);
      return;
    case 'rewards':
      assert.ok(isObject(value), where);
      assert.deepEqual(Object.keys(value).sort(), ['max_spread', 'min_size', 'rates'], where);
      assert.ok(Array.isArray(value['rates']), where);
      for (const rate of value['rates'] as unknown[]) {
        assert.ok(isObject(rate), where);
        assert.equal(typeof rate['asset_address'], 'string', where);
        assert.equal(typeof rate['rewards_daily_rate'], 'number', where);
      }
      assert.equal(typeof value['min_size'], 'number', where);
      assert.equal(typeof value['max_spread'], 'number', where);
      return;
    case 'tokens':
      assert.ok(Array.isArray(value), where);
      assert.equal(value.length, 2, `${where}: a binary market has two tokens`);
      for (const token of value) {
        assert.ok(isObject(token), where);
        assert.deepEqual(Object.keys(token).sort(), ['outcome', 'price', 'token_id', 'winner'], where);
        assert.equal(typeof token['token_id'], 'string', where);
        assert.equal(typeof token['outcome'], 'string', where);
        assert.equal(typeof token['price'], 'number', where);
        assert.equal(typeof token['winner'], 'boolean', where);
      }
  }
}

function checkShape(item: unknown, fields: Record<string, Kind>, where: string): asserts item is Record<string, unknown> {
  assert.ok(isObject(item), where);
  assert.deepEqual(Object.keys(item).sort(), Object.keys(fields).sort(), `${where}: exactly the fields of its variant`);
  for (const [name, kind] of Object.entries(fields)) checkKind(item[name], kind, `${where}.${name}`);
}

interface Envelope {
  data: Record<string, unknown>[];
  next_cursor: string;
  limit: number;
  count: number;
}

async function page(path: string): Promise<Envelope> {
  const response = await get<Envelope>(path);
  assert.equal(response.status, 200, `${path}: ${response.text}`);
  assert.deepEqual(Object.keys(response.body).sort(), ['count', 'data', 'limit', 'next_cursor']);
  assert.ok(Array.isArray(response.body.data));
  assert.equal(typeof response.body.next_cursor, 'string');
  assert.ok(Number.isInteger(response.body.limit));
  assert.equal(response.body.count, response.body.data.length);
  return response.body;
}

const FULL_FIELDS = { ...LIST_FIELDS, ...FULL_ONLY_FIELDS };

test('trading markets: list, single, sampling, simplified and settings shapes', async () => {
  const first = await page('/markets');
  assert.deepEqual(await page('/markets?next_cursor=MA=='), first, 'MA== is the first page');
  assert.equal(first.next_cursor, 'LTE=', 'the test catalog fits in one page');
  assert.deepEqual(await page('/markets?next_cursor=LTE='), { data: [], next_cursor: 'LTE=', limit: first.limit, count: 0 });
  for (const bad of ['xyz', 'LTE', '!!!!', Buffer.from('-5').toString('base64'), Buffer.from('1.5').toString('base64')]) {
    const response = await get(`/markets?next_cursor=${encodeURIComponent(bad)}`);
    assert.equal(response.status, 400, `next_cursor=${bad}: ${response.text}`);
  }
  for (const [index, item] of first.data.entries()) checkShape(item, LIST_FIELDS, `/markets data[${index}]`);
  for (const market of markets) assert.ok(first.data.some((item) => item['condition_id'] === market.conditionId), 'every test market is listed');

  const listedA = first.data.find((item) => item['condition_id'] === A.conditionId)!;
  const full = await get<Record<string, unknown>>(`/markets/${A.conditionId}`);
  assert.equal(full.status, 200, full.text);
  checkShape(full.body, FULL_FIELDS, `/markets/${A.conditionId}`);
  for (const name of Object.keys(LIST_FIELDS)) assert.deepEqual(full.body[name], listedA[name], `${name}: the same in list and single reads`);
  assert.deepEqual(full.body['assets_ids'], [A.yes, A.no]);
  assert.deepEqual(full.body['outcomes'], A.outcomes);
  assert.equal(full.body['slug'], full.body['market_slug']);
  assert.equal(full.body['status'], 'active');
  assert.deepEqual(
    [full.body['enable_order_book'], full.body['active'], full.body['closed'], full.body['accepting_orders'], full.body['neg_risk']],
    [true, true, false, true, false],
  );
  assert.deepEqual([full.body['minimum_tick_size'], full.body['minimum_order_size']], [0.01, 5]);
  // Token prices: the midpoint of each token's own book (YES 0.35/0.60 → 0.475), no winner yet.
  assert.deepEqual(full.body['tokens'], [
    { token_id: A.yes, outcome: A.outcomes[0], price: 0.475, winner: false },
    { token_id: A.no, outcome: A.outcomes[1], price: 0.525, winner: false },
  ]);
  assert.equal((full.body['event'] as { title: string }).title, 'Test event');
  const upper = await get<Record<string, unknown>>(`/markets/0x${A.conditionId.slice(2).toUpperCase()}`);
  assert.equal(upper.status, 200, 'condition ids are case-insensitive hex');
  assert.equal(upper.body['condition_id'], A.conditionId);

  const unknown = `0x${'12'.repeat(32)}`;
  for (const path of ['/markets/', '/clob-markets/']) {
    const missing = await get(`${path}${unknown}`);
    assert.deepEqual([missing.status, missing.body], [404, { error: 'market not found' }], `${path} unknown`);
    for (const bad of ['xyz', '0x1234', `${unknown}00`, `0x${'zz'.repeat(32)}`]) {
      const malformed = await get(`${path}${bad}`);
      assert.equal(malformed.status, 400, `${path}${bad}: ${malformed.text}`);
      assert.equal(typeof (malformed.body as { error: unknown }).error, 'string');
    }
  }

  const sampling = await page('/sampling-markets?next_cursor=MA==');
  assert.equal(sampling.next_cursor, 'LTE=');
  for (const [index, item] of sampling.data.entries()) {
    checkShape(item, FULL_FIELDS, `/sampling-markets data[${index}]`);
    assert.equal(item['accepting_orders'], true, 'sampling markets accept orders');
  }
  for (const market of markets) assert.ok(sampling.data.some((item) => item['condition_id'] === market.conditionId));
  assert.deepEqual(sampling.data.find((item) => item['condition_id'] === A.conditionId), full.body);

  const simplified = await page('/sampling-simplified-markets');
  for (const [index, item] of simplified.data.entries()) checkShape(item, SIMPLIFIED_FIELDS, `/sampling-simplified-markets data[${index}]`);
  for (const market of markets) assert.ok(simplified.data.some((item) => item['condition_id'] === market.conditionId));
  const simpleA = simplified.data.find((item) => item['condition_id'] === A.conditionId)!;
  for (const name of Object.keys(SIMPLIFIED_FIELDS)) assert.deepEqual(simpleA[name], full.body[name], `simplified ${name}`);
  assert.deepEqual(await page('/sampling-simplified-markets?next_cursor=LTE='), { data: [], next_cursor: 'LTE=', limit: simplified.limit, count: 0 });
  assert.equal((await get('/sampling-markets?next_cursor=xyz')).status, 400);
  assert.equal((await get('/sampling-simplified-markets?next_cursor=xyz')).status, 400);

  const settings = await get<Record<string, unknown>>(`/clob-markets/${A.conditionId}`);
  assert.equal(settings.status, 200, settings.text);
  assert.deepEqual(Object.keys(settings.body).sort(), ['c', 'fd', 'gst', 'ibce', 'itode', 'mbf', 'mos', 'mts', 'nr', 'oas', 'r', 'rfqe', 't', 'tbf'].sort());
  const s = settings.body;
  assert.equal(s['c'], A.conditionId);
  assert.deepEqual(s['t'], [{ t: A.yes, o: A.outcomes[0] }, { t: A.no, o: A.outcomes[1] }]);
  assert.deepEqual([s['mts'], s['mos'], s['mbf'], s['tbf']], [0.01, 5, 0, 0]);
  checkKind(s['r'], 'rewards', 'settings.r');
  for (const name of ['nr', 'rfqe', 'itode', 'ibce']) assert.equal(typeof s[name], 'boolean', name);
  assert.deepEqual([s['nr'], s['rfqe'], s['ibce']], [false, false, false]);
  assert.equal(typeof s['oas'], 'number');
  assert.equal(typeof s['gst'], 'string');
  const fd = s['fd'];
  assert.ok(isObject(fd));
  assert.deepEqual(Object.keys(fd).sort(), ['e', 'r', 'to']);
  assert.deepEqual([typeof fd['r'], typeof fd['e'], typeof fd['to']], ['number', 'number', 'boolean']);
});

test('a resolved market shows its winner and no longer accepts orders', async () => {
  const resolved = await request(`${server.urls.clob}/admin/markets/${C.conditionId}/resolve`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ winner: C.outcomes[0] }),
  });
  assert.equal(resolved.status, 200, resolved.text);

  const full = await get<Record<string, unknown>>(`/markets/${C.conditionId}`);
  assert.equal(full.status, 200);
  checkShape(full.body, FULL_FIELDS, 'resolved market');
  assert.deepEqual(full.body['tokens'], [
    { token_id: C.yes, outcome: C.outcomes[0], price: 1, winner: true },
    { token_id: C.no, outcome: C.outcomes[1], price: 0, winner: false },
  ]);
  assert.equal(full.body['accepting_orders'], false);
  assert.equal(full.body['closed'], true);
  assert.notEqual(full.body['status'], 'active');
  const listed = (await page('/markets')).data.find((item) => item['condition_id'] === C.conditionId)!;
  assert.deepEqual([listed['accepting_orders'], listed['tokens']], [false, full.body['tokens']]);
  for (const path of ['/sampling-markets', '/sampling-simplified-markets']) {
    const sampling = await page(path);
    assert.ok(!sampling.data.some((item) => item['condition_id'] === C.conditionId), `${path} leaves out the resolved market`);
    assert.ok(sampling.data.some((item) => item['condition_id'] === A.conditionId));
  }
  // Its book reads do not fail.
  const response = await get(`/book?token_id=${C.yes}`);
  assert.equal(response.status, 200);
  checkBookText(response.text);
});

test('after a SIGTERM restart on the same data directory the books and last trades are the same', async () => {
  const tokens = [A.yes, A.no, B.yes, C.no];
  const before = await Promise.all(tokens.map((token) => book(token)));
  const lastBefore = await Promise.all([A.yes, A.no].map((token) => get(`/last-trade-price?token_id=${token}`)));
  const marketBefore = (await get<Record<string, unknown>>(`/markets/${A.conditionId}`)).body;
  const resolvedBefore = (await get<Record<string, unknown>>(`/markets/${C.conditionId}`)).body;

  await restart();
  await booksLoaded();

  const afterRestart = await Promise.all(tokens.map((token) => book(token)));
  assert.deepEqual(afterRestart.map(content), before.map(content));
  const lastAfter = await Promise.all([A.yes, A.no].map((token) => get(`/last-trade-price?token_id=${token}`)));
  assert.deepEqual(lastAfter.map((response) => response.body), lastBefore.map((response) => response.body));
  assert.deepEqual(lastAfter[0]!.body, { price: '0.35', side: 'SELL' });
  assert.deepEqual((await get(`/markets/${A.conditionId}`)).body, marketBefore);
  assert.deepEqual((await get(`/markets/${C.conditionId}`)).body, resolvedBefore);

  // The reloaded book keeps following new orders.
  for (const trader of [alice, carol]) trader.clobUrl = server.urls.clob;
  await rest(carol, 'YES', 'BUY', 3500, shares(5));
  const yes = await book(A.yes);
  assert.deepEqual({ bids: yes.bids, asks: yes.asks }, expectedLevels(resting, 'YES'));
  assert.deepEqual(yes.bids.at(-1), { price: '0.35', size: '8' });
  const no = await book(A.no);
  assert.deepEqual({ bids: no.bids, asks: no.asks }, expectedLevels(resting, 'NO'));
  await place(alice, 'YES', 'BUY', 2000, shares(5), D);
  assert.deepEqual((await book(D.yes)).bids, [{ price: '0.2', size: '5' }]);
  assert.deepEqual((await book(D.no)).asks, [{ price: '0.8', size: '5' }]);
});

test('books, prices and trading markets answer as soon as the restarted server says it is listening', async () => {
  await restart();
  const [yes, mid, market] = await Promise.all([
    request(clob(`/book?token_id=${A.yes}`)), request(clob(`/midpoint?token_id=${A.yes}`)), request<Record<string, unknown>>(clob(`/markets/${A.conditionId}`)),
  ]);
  try {
    assert.equal(yes.status, 200, `GET /book right after the ready line: ${yes.status} ${yes.text}`);
    assert.equal(mid.status, 200, `GET /midpoint right after the ready line: ${mid.status} ${mid.text}`);
    assert.equal(market.body['accepting_orders'], true, 'the market accepts orders right after the ready line');
  } finally {
    await booksLoaded();
  }
});

// The CLOB reads Polymarket serves beyond interface.md, which its official client calls (docs/api.md
// "Beyond the interface"): GET /fee-rate (query and path forms), the batch reads POST /midpoints,
// POST /spreads and POST /last-trades-prices, and GET /simplified-markets, against the real
// server. Values are checked after resting orders and a fill, each batch answer against the
// single-token reads of the same tokens; the batch input errors are the ones of POST /books and
// POST /prices; the simplified list covers every market, paused ones too, with /markets' cursors;
// and the batches are charged to POST /prices' cap.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { readsOf } from './reads.js';
import { ADMIN_TOKEN, startTrading, type PlainMarket, type Trader } from '../orders/trader.js';

const NO_BOOK = { error: 'No orderbook exists for the requested token id' };
const END_CURSOR = 'LTE=';
const BATCHES = ['/midpoints', '/spreads', '/last-trades-prices'] as const;
/** The taker fee of the market made for /fee-rate (basis points). */
const FEE_BPS = 150;

let server: RunningServer;
/** A: resting orders on both sides and a fill. B: never traded. C: one side only. Fee: FEE_BPS. */
let A: PlainMarket;
let B: PlainMarket;
let C: PlainMarket;
let fee: { conditionId: string; yes: string; no: string };

const clob = (path: string): string => `${server.urls.clob}${path}`;

const { get, post } = readsOf(() => server.urls.clob);

async function placed(trader: Trader, input: Parameters<Trader['place']>[0], status: string): Promise<void> {
  const response = await trader.place(input);
  assert.equal(response.status, 200, response.text);
  assert.equal((response.body as Record<string, unknown>)['status'], status, response.text);
}

before(async () => {
  const setup = await startTrading([841, 842, 843], { SEED_DEMO: '0' });
  server = setup.server;
  [A, B, C] = setup.markets as [PlainMarket, PlainMarket, PlainMarket];
  const [alice, bob, carol] = setup.traders as [Trader, Trader, Trader];
  const created = await request<{ markets: { conditionId: string; clobTokenIds: string }[] }>(clob('/admin/events'), {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Fee event', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'A market with a fee?', takerBaseFee: FEE_BPS }] }),
  });
  assert.equal(created.status, 201, created.text);
  const [yes, no] = JSON.parse(created.body.markets[0]!.clobTokenIds) as [string, string];
  fee = { conditionId: created.body.markets[0]!.conditionId, yes, no };
  // YES of A: bids 0.2 x 10 and 0.25 x 4 (after the fill), an ask at 0.45 x 6 (bob's NO bid at
  // 0.55); carol's NO bid at 0.75 x 6 fills 6 of alice's 0.25 x 10 bid. C has bids only.
  await placed(alice, { tokenId: A.yes, side: 'BUY', priceUnits: 2000, sizeMicros: 10_000_000 }, 'live');
  await placed(alice, { tokenId: A.yes, side: 'BUY', priceUnits: 2500, sizeMicros: 10_000_000 }, 'live');
  await placed(bob, { tokenId: A.no, side: 'BUY', priceUnits: 5500, sizeMicros: 6_000_000 }, 'live');
  await placed(carol, { tokenId: A.no, side: 'BUY', priceUnits: 7500, sizeMicros: 6_000_000 }, 'matched');
  await placed(bob, { tokenId: C.yes, side: 'BUY', priceUnits: 4000, sizeMicros: 5_000_000 }, 'live');
  // The read model is fed from the committed answers: wait until it shows the fill.
  for (let attempt = 0; (await get<{ price: string }>(`/last-trade-price?token_id=${A.yes}`)).body.price !== '0.25'; attempt++) {
    assert.ok(attempt < 100, 'the fill never showed');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});

after(async () => {
  await server?.stop();
  if (server !== undefined) removeDataDir(server.dataDir);
});

test('GET /fee-rate and /fee-rate/{token_id}: the market taker fee in basis points, as /clob-markets and /markets show it', async () => {
  for (const [market, bps] of [[fee, FEE_BPS], [A, 0]] as const) {
    for (const token of [market.yes, market.no]) {
      const byQuery = await get(`/fee-rate?token_id=${token}`);
      assert.equal(byQuery.status, 200, byQuery.text);
      assert.equal(byQuery.text, `{"base_fee":${bps}}`, 'an integer number of bps');
      const byPath = await get(`/fee-rate/${token}`);
      assert.deepEqual([byPath.status, byPath.text], [200, byQuery.text]);
    }
    const settings = await get<{ tbf: number }>(`/clob-markets/${market.conditionId}`);
    const full = await get<{ taker_base_fee: number }>(`/markets/${market.conditionId}`);
    assert.deepEqual([settings.body.tbf, full.body.taker_base_fee], [bps, bps]);
  }
});

test('GET /fee-rate errors are those of /tick-size and /neg-risk', async () => {
  const unknown = '12345678901234567890';
  for (const path of ['/fee-rate?token_id=', '/tick-size?token_id=', '/neg-risk?token_id=', '/fee-rate/']) {
    const notFound = await get(`${path}${unknown}`);
    assert.deepEqual([notFound.status, notFound.body], [404, NO_BOOK], `${path} unknown token`);
    for (const bad of ['abc!', 'x'.repeat(101), '%20']) {
      const malformed = await get(`${path}${encodeURIComponent(bad)}`);
      assert.equal(malformed.status, 400, `${path}${bad}: ${malformed.text}`);
      assert.equal(typeof (malformed.body as { error: unknown }).error, 'string');
    }
  }
  for (const path of ['/fee-rate', '/fee-rate?token_id=']) {
    const missing = await get(path);
    assert.equal(missing.status, 400, `${path}: ${missing.text}`);
    assert.equal(typeof (missing.body as { error: unknown }).error, 'string');
  }
});

test('POST /midpoints and /spreads: {token_id: decimal} equal to the single-token reads; a token with an empty side is left out', async () => {
  const tokens = [A.yes, A.no, B.yes, C.yes, C.no, fee.no];
  const body = tokens.map((token_id, at) => (at % 2 === 0 ? { token_id } : { token_id, side: 'SELL' }));
  for (const [batch, single, key] of [['/midpoints', '/midpoint', 'mid'], ['/spreads', '/spread', 'spread']] as const) {
    const answer = await post<Record<string, string>>(batch, body);
    assert.equal(answer.status, 200, answer.text);
    const expected: Record<string, string> = {};
    for (const token of tokens) {
      const one = await get<Record<string, string>>(`${single}?token_id=${token}`);
      if (one.status === 200) expected[token] = one.body[key]!;
      else assert.deepEqual([one.status, one.body], [404, NO_BOOK]);
    }
    assert.deepEqual(answer.body, expected, batch);
  }
  // Best bid 0.25 and best ask 0.45 on YES of A; the mirror on NO.
  assert.deepEqual((await post('/midpoints', [{ token_id: A.yes }, { token_id: A.no }, { token_id: A.yes }])).body, { [A.yes]: '0.35', [A.no]: '0.65' });
  assert.deepEqual((await post('/spreads', [{ token_id: A.no }, { token_id: A.yes }])).body, { [A.no]: '0.2', [A.yes]: '0.2' });
  assert.deepEqual((await post('/midpoints', [{ token_id: B.yes }, { token_id: C.no }])).body, {}, 'no token with both sides');
});

test('POST /last-trades-prices: [{token_id, price, side}] in request order, each the GET /last-trade-price answer', async () => {
  const tokens = [A.no, B.yes, A.yes, A.no, fee.yes];
  const answer = await post<{ token_id: string; price: string; side: string }[]>('/last-trades-prices', tokens.map((token_id) => ({ token_id, side: 'BUY' })));
  assert.equal(answer.status, 200, answer.text);
  const expected = [];
  for (const token of tokens) expected.push({ token_id: token, ...(await get<object>(`/last-trade-price?token_id=${token}`)).body });
  assert.deepEqual(answer.body, expected);
  for (const item of answer.body) assert.deepEqual(Object.keys(item), ['token_id', 'price', 'side']);
  // carol bought NO at 0.75 (taker BUY); on YES the fill is a SELL at 0.25. B has no trade.
  assert.deepEqual(answer.body.slice(0, 3), [
    { token_id: A.no, price: '0.75', side: 'BUY' }, { token_id: B.yes, price: '0.5', side: '' }, { token_id: A.yes, price: '0.25', side: 'SELL' },
  ]);
});

test('batch reads: 500 tokens at most, an empty array answers empty, input errors as POST /books and /prices', async () => {
  const unknown = '12345678901234567890';
  for (const path of BATCHES) {
    const empty = await post(path, []);
    assert.deepEqual([empty.status, empty.body], [200, path === '/last-trades-prices' ? [] : {}], `${path} []`);
    const most = await post(path, Array.from({ length: 500 }, () => ({ token_id: A.yes })));
    assert.equal(most.status, 200, `${path} with 500 items: ${most.text.slice(0, 200)}`);
    if (path === '/last-trades-prices') assert.equal((most.body as unknown[]).length, 500);
  }
  for (const path of [...BATCHES, '/books', '/prices']) {
    const tooMany = await post<{ error: string }>(path, Array.from({ length: 501 }, () => ({ token_id: A.yes })));
    assert.deepEqual([tooMany.status, tooMany.body], [400, { error: 'at most 500 tokens per request' }], `${path} with 501 items`);
    const notFound = await post(path, [{ token_id: A.yes }, { token_id: unknown }]);
    assert.deepEqual([notFound.status, notFound.body], [404, NO_BOOK], `${path} with an unknown token`);
    const bodies: unknown[] = [{ token_id: A.yes }, 'not json', '', 'null', '[{"token_id":', [A.yes], [null], [{}], [{ token_id: 7 }], [{ token_id: 'abc!' }], [[]], [{ token_id: A.yes, side: 'FOO' }]];
    const errors = [];
    for (const body of bodies) {
      const response = await post<{ error: unknown }>(path, body);
      assert.equal(response.status, 400, `${path} ${JSON.stringify(body)}: ${response.text}`);
      assert.equal(typeof response.body.error, 'string');
      errors.push(response.body);
    }
    const ofPrices = [];
    for (const body of bodies) ofPrices.push((await post('/prices', body)).body);
    assert.deepEqual(errors, ofPrices, `${path}: the error bodies of POST /prices`);
  }
});

interface Page {
  readonly data: Record<string, unknown>[];
  readonly next_cursor: string;
  readonly limit: number;
  readonly count: number;
}

async function allPages(path: string): Promise<Record<string, unknown>[]> {
  const data: Record<string, unknown>[] = [];
  let cursor = 'MA==';
  for (let pages = 0; cursor !== END_CURSOR; pages++) {
    assert.ok(pages < 10, 'the cursors end');
    const page = await get<Page>(`${path}?next_cursor=${encodeURIComponent(cursor)}`);
    assert.equal(page.status, 200, page.text);
    assert.deepEqual([page.body.limit, page.body.count], [1000, page.body.data.length]);
    data.push(...page.body.data);
    cursor = page.body.next_cursor;
  }
  return data;
}

test('GET /simplified-markets: every trading market, paused ones too, in /markets order and with its cursors', async () => {
  const paused = await request(clob(`/admin/markets/${B.conditionId}/pause`), { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(paused.status, 200, paused.text);
  try {
    const simplified = await allPages('/simplified-markets');
    const listed = await allPages('/markets');
    assert.deepEqual(simplified.map((market) => market['condition_id']), listed.map((market) => market['condition_id']));
    const sampling = await allPages('/sampling-simplified-markets');
    assert.ok(!sampling.some((market) => market['condition_id'] === B.conditionId), 'a paused market is not sampling');
    const pausedEntry = simplified.find((market) => market['condition_id'] === B.conditionId);
    assert.deepEqual([pausedEntry?.['status'], pausedEntry?.['accepting_orders']], ['paused', false]);
    // A market in both lists has one simplified shape.
    for (const market of sampling) assert.deepEqual(simplified.find((entry) => entry['condition_id'] === market['condition_id']), market);
    const a = simplified.find((market) => market['condition_id'] === A.conditionId)!;
    assert.deepEqual((a['tokens'] as { price: number }[]).map((token) => token.price), [0.35, 0.65], 'the midpoints');
    assert.deepEqual(await get(`/simplified-markets?next_cursor=${END_CURSOR}`).then((page) => page.body), { data: [], next_cursor: END_CURSOR, limit: 1000, count: 0 });
    const first = await get<Page>('/simplified-markets');
    assert.deepEqual(first.body.data, simplified.slice(0, 1000), 'no cursor is the first page');
    const bad = await get('/simplified-markets?next_cursor=%%%');
    assert.deepEqual([bad.status, bad.body], [400, { error: 'invalid next_cursor' }]);
  } finally {
    await request(clob(`/admin/markets/${B.conditionId}/resume`), { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  }
});

test("the batch reads are charged to POST /prices' cap; /fee-rate and /simplified-markets only to the listener's", async (context) => {
  const capsFile = join(server.dataDir, 'extras-caps.json');
  writeFileSync(capsFile, JSON.stringify({ 'POST /prices': { requests: 4, windowSeconds: 60 } }));
  const limited = await startTrading([], { RATE_LIMITS: capsFile, SEED_DEMO: '0' });
  context.after(async () => {
    await limited.server.stop();
    removeDataDir(limited.server.dataDir);
  });
  const token = limited.markets[0]!.yes;
  const send = (path: string) => request(`${limited.server.urls.clob}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ token_id: token }]),
  });
  // One bucket of 4 for the four batch price reads together.
  for (const path of ['/prices', ...BATCHES]) assert.equal((await send(path)).status, 200, path);
  for (const path of ['/prices', ...BATCHES]) {
    const refused = await send(path);
    assert.deepEqual([refused.status, refused.body], [429, { error: 'Too Many Requests' }], path);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  }
  for (let count = 0; count < 10; count++) {
    assert.equal((await request(`${limited.server.urls.clob}/fee-rate?token_id=${token}`)).status, 200);
    assert.equal((await request(`${limited.server.urls.clob}/simplified-markets`)).status, 200);
  }
  assert.equal((await send('/books')).status, 200, 'POST /books keeps its own cap');
});

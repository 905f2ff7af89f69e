// Price history from trades (contract §5): the bucketing of priceHistory (http/market/history.ts)
// read by a real FeedReader from a real shard store in a temporary directory, which committed a
// known fill sequence with chosen times, for every interval and several fidelities; then
// GET /prices-history and POST /batch-prices-history once over HTTP against the real server.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, suite, test } from 'node:test';
import type { FillEvent } from '../../../engine/events/event_objects.js';
import { FillKind } from '../../../engine/events/events.js';
import { HttpError } from '../../../http/errors.js';
import { emptyChanges, ShardStore } from '../../../engine/shard/store.js';
import { FeedReader } from '../../../http/market/feed_reader.js';
import { HISTORY_POINTS_MAX, INTERVALS, priceHistory, type HistoryRequest, type Interval, type Point } from '../../../http/market/history.js';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { startTrading, type PlainMarket, type Trader } from '../orders/trader.js';

const BUY = 0;
const SELL = 1;
/** A day boundary (so also an hour, 5-minute and minute boundary): 2023-11-14T00:00:00Z. */
const B = 1_699_920_000;
/** "Now" for every interval: 2 days and 10 minutes after B. */
const NOW_S = B + 173_400;

const ALICE = `0x${'a1'.repeat(20)}`;
const BOB = `0x${'b2'.repeat(20)}`;

/** Market A: NORMAL YES trades only. Market B: a MINT and a MERGE, which trade both tokens. */
const A = { conditionId: `0x${'0a'.repeat(32)}`, tokens: ['111', '112'] as [string, string], market: 0 };
const MB = { conditionId: `0x${'0b'.repeat(32)}`, tokens: ['221', '222'] as [string, string], market: 1 };

/** YES trades of market A: [unix seconds, price units]. */
const A_TRADES: readonly (readonly [number, number])[] = [
  [B + 125, 4_000],
  [B + 170, 4_200], // same minute as the first: the minute keeps 0.42
  [B + 250, 4_500],
  [B + 900, 5_000],
  [B + 10_830, 5_500],
  [B + 172_860, 6_000],
];

let seq = 0;

function fill(fields: {
  taker: [outcome: number, side: number, priceUnits: number];
  maker: [outcome: number, side: number, priceUnits: number];
  sizeMicros: number;
  fillKind: FillEvent['fillKind'];
}): FillEvent {
  seq += 1;
  return {
    kind: 'FILL', seq, fillIndex: 0, market: 0, takerOrderId: `0x${seq.toString(16).padStart(64, '0')}`, takerAccount: BOB,
    takerOutcome: fields.taker[0], takerSide: fields.taker[1], takerPriceUnits: fields.taker[2],
    makerOrderId: `0x${(seq + 1_000_000).toString(16).padStart(64, '0')}`, makerAccount: ALICE,
    makerOutcome: fields.maker[0], makerSide: fields.maker[1], makerPriceUnits: fields.maker[2],
    sizeMicros: fields.sizeMicros, takerFeeMicros: 0, fillKind: fields.fillKind,
  };
}

let dir = '';
let shardStore: ShardStore;
let store: FeedReader;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'clobd-history-'));
  shardStore = new ShardStore(dir, 0);
  // Chronological, as a shard answers them.
  const sequence: [number, typeof A | typeof MB, FillEvent][] = [
    // Market B at B+60: MINT, taker BUY NO 0.60 against maker BUY YES 0.40.
    [B + 60, MB, fill({ taker: [1, BUY, 6_000], maker: [0, BUY, 4_000], sizeMicros: 5_000_000, fillKind: FillKind.MINT })],
    // Market B at B+200: MERGE, taker SELL YES 0.45 against maker SELL NO 0.55.
    [B + 200, MB, fill({ taker: [0, SELL, 4_500], maker: [1, SELL, 5_500], sizeMicros: 5_000_000, fillKind: FillKind.MERGE })],
  ];
  A_TRADES.forEach(([timeS, priceUnits], at) => {
    const side = at % 2 === 0 ? BUY : SELL;
    sequence.push([timeS, A, fill({ taker: [0, side, priceUnits], maker: [0, 1 - side, priceUnits], sizeMicros: 10_000_000, fillKind: FillKind.NORMAL })]);
  });
  sequence.sort((x, y) => x[0] - y[0] || x[2].seq - y[2].seq);
  // One batch: the store keeps each token-minute's last trade, as it does across batches.
  const changes = emptyChanges();
  for (const [timeS, market, event] of sequence) changes.fills.push({ ...event, market: market.market, timeMs: timeS * 1000 });
  shardStore.commitBatch(1, Buffer.alloc(0), changes, 0);
  const markets = [A, MB];
  store = new FeedReader(dir, {
    shards: 1, keyOf: (_shard, market) => markets[market]?.conditionId,
    placeOf: (conditionId) => {
      const market = markets.find((m) => m.conditionId === conditionId);
      return market === undefined ? undefined : { shard: 0, market: market.market };
    },
    tokenOf: (tokenId) => {
      const market = markets.find((m) => m.tokens.includes(tokenId));
      return market === undefined ? undefined : { conditionId: market.conditionId, outcome: market.tokens.indexOf(tokenId) };
    },
  });
});

after(async () => {
  await store.close();
  await shardStore.close();
  rmSync(dir, { recursive: true, force: true });
});

const historyAt = (tokenId: string, request: Partial<HistoryRequest>, nowS: number): Point[] =>
  priceHistory(store, tokenId, { startS: undefined, endS: undefined, interval: undefined, fidelity: undefined, ...request }, nowS);
const history = (tokenId: string, request: Partial<HistoryRequest>, nowS = NOW_S): Point[] => historyAt(tokenId, request, nowS);

const points = (...entries: [offsetS: number, p: number][]): Point[] => entries.map(([offset, p]) => ({ t: B + offset, p }));

/** `count` buckets of `stepS` from B + `fromOffset`, each with price(t - B). */
function run(fromOffset: number, stepS: number, count: number, price: (offset: number) => number): Point[] {
  return Array.from({ length: count }, (_, at) => {
    const offset = fromOffset + at * stepS;
    return { t: B + offset, p: price(offset) };
  });
}

/**
 * The rule written out independently: buckets of `fidelity` minutes aligned to multiples of
 * the bucket, from the one holding max(start, first trade's minute) to the one holding `end`,
 * each with the last trade at or before the bucket's end (and in a minute starting by `end`),
 * none before a trade exists.
 */
function expected(trades: readonly (readonly [number, number])[], startS: number, endS: number, fidelity: number): Point[] {
  const firstMinute = Math.floor(trades[0]![0] / 60) * 60;
  if (endS < firstMinute) return [];
  const bucketS = fidelity * 60;
  const from = Math.floor(Math.max(startS, firstMinute) / bucketS) * bucketS;
  const out: Point[] = [];
  for (let t = from; t <= Math.floor(endS / bucketS) * bucketS; t += bucketS) {
    // The store keeps each minute's last trade under the minute's start: a minute counts by its start.
    const seen = trades.filter(([timeS]) => timeS < t + bucketS && Math.floor(timeS / 60) * 60 <= endS);
    if (seen.length > 0) out.push({ t, p: seen.at(-1)![1] / 10_000 });
  }
  return out;
}

const INTERVAL_S: Record<Exclude<Interval, 'max'>, number> = { '1h': 3_600, '6h': 21_600, '1d': 86_400, '1w': 604_800, '1m': 2_592_000 };

function assert400(call: () => unknown, what: string): void {
  assert.throws(call, (error: unknown) => error instanceof HttpError && error.status === 400, what);
}

suite('priceHistory over a shard store', () => {
  test('fidelity 1 over an explicit range: the last price of each minute, carried through empty minutes', () => {
    assert.deepEqual(history(A.tokens[0], { startS: B, endS: B + 960, fidelity: 1 }), [
      ...points([120, 0.42], [180, 0.42], [240, 0.45]),
      ...run(300, 60, 10, () => 0.45),
      ...points([900, 0.5], [960, 0.5]),
    ]);
  });

  test('fidelity 5: buckets start at multiples of 300 s and hold the last trade inside them', () => {
    assert.deepEqual(history(A.tokens[0], { startS: B, endS: B + 1_200, fidelity: 5 }), points([0, 0.45], [300, 0.45], [600, 0.45], [900, 0.5], [1_200, 0.5]));
  });

  test('fidelity 60 over the whole history (interval max)', () => {
    const hourly = history(A.tokens[0], { interval: 'max', fidelity: 60 });
    assert.deepEqual(hourly, [
      ...points([0, 0.5], [3_600, 0.5], [7_200, 0.5]),
      ...run(10_800, 3_600, 45, () => 0.55),
      ...points([172_800, 0.6]),
    ]);
    assert.deepEqual(history(A.tokens[0], { fidelity: 60 }), hourly, 'no range and no interval is the whole history');
  });

  test('interval 1h at fidelities 1, 5 and 60 with a fixed now', () => {
    assert.deepEqual(history(A.tokens[0], { interval: '1h', fidelity: 1 }), run(169_800, 60, 61, (offset) => (offset >= 172_860 ? 0.6 : 0.55)));
    assert.deepEqual(history(A.tokens[0], { interval: '1h', fidelity: 5 }), run(169_800, 300, 13, (offset) => (offset >= 172_800 ? 0.6 : 0.55)));
    assert.deepEqual(history(A.tokens[0], { interval: '1h', fidelity: 60 }), points([169_200, 0.55], [172_800, 0.6]));
  });

  test('intervals 6h and 1d start at now minus the interval and carry the price from before it', () => {
    assert.deepEqual(history(A.tokens[0], { interval: '6h', fidelity: 60 }), run(151_200, 3_600, 7, (offset) => (offset >= 172_800 ? 0.6 : 0.55)));
    assert.deepEqual(history(A.tokens[0], { interval: '1d', fidelity: 60 }), run(86_400, 3_600, 25, (offset) => (offset >= 172_800 ? 0.6 : 0.55)));
    const day = history(A.tokens[0], { interval: '1d', fidelity: 5 });
    assert.equal(day[0]!.t, B + 87_000);
    assert.equal(day.length, (173_400 - 87_000) / 300 + 1);
  });

  test('intervals 1w, 1m and max reach past the first trade: no bucket before it', () => {
    for (const interval of ['1w', '1m', 'max'] as const) {
      const minutes = history(A.tokens[0], { interval, fidelity: 1 });
      assert.deepEqual(minutes[0], { t: B + 120, p: 0.42 }, interval);
      assert.deepEqual(minutes.at(-1), { t: NOW_S, p: 0.6 }, interval);
      assert.equal(minutes.length, (173_400 - 120) / 60 + 1, interval);
      assert.deepEqual(history(A.tokens[0], { interval, fidelity: 5 })[0], { t: B, p: 0.45 }, interval);
    }
  });

  test('every interval and fidelity agrees with the rule written out independently', () => {
    for (const interval of INTERVALS) {
      const startS = interval === 'max' ? 0 : NOW_S - INTERVAL_S[interval];
      for (const fidelity of [1, 5, 15, 60, 1_440]) {
        const got = history(A.tokens[0], { interval, fidelity });
        assert.deepEqual(got, expected(A_TRADES, startS, NOW_S, fidelity), `${interval} fidelity ${fidelity}`);
        for (const point of got) assert.equal(point.t % (fidelity * 60), 0, 't is a multiple of the bucket');
      }
      // Without a fidelity the service picks one; its points are still aligned, ordered and end at the last price.
      const chosen = history(A.tokens[0], { interval });
      assert.ok(chosen.length > 1, interval);
      const stepS = chosen[1]!.t - chosen[0]!.t;
      assert.ok(stepS % 60 === 0 && chosen.every((point, at) => point.t % stepS === 0 && (at === 0 || point.t - chosen[at - 1]!.t === stepS)), interval);
      assert.equal(chosen.at(-1)!.p, 0.6, interval);
      assert.deepEqual(chosen, expected(A_TRADES, startS, NOW_S, stepS / 60), `${interval} default fidelity`);
    }
  });

  test('explicit ranges at several fidelities agree with the rule', () => {
    const ranges: [number, number][] = [
      [B, B + 179], [B + 100, B + 1_000], [B + 240, B + 240], [B + 3_000, B + 11_000], [B + 10_800, B + 20_000], [B, NOW_S],
    ];
    for (const [startS, endS] of ranges) {
      for (const fidelity of [1, 5, 60]) {
        assert.deepEqual(history(A.tokens[0], { startS, endS, fidelity }), expected(A_TRADES, startS, endS, fidelity), `${startS - B}..${endS - B} / ${fidelity}`);
      }
    }
  });

  test('a range starting after the trades carries the earlier price; one ending before the first trade is empty', () => {
    assert.deepEqual(history(A.tokens[0], { startS: B + 1_000, endS: B + 1_300, fidelity: 1 }), run(960, 60, 6, () => 0.5));
    assert.deepEqual(history(A.tokens[0], { startS: B + 20_000, endS: B + 20_600, fidelity: 5 }), run(19_800, 300, 3, () => 0.55));
    assert.deepEqual(history(A.tokens[0], { startS: B + 200_030, endS: B + 200_100, fidelity: 1 }, B + 300_000), run(199_980, 60, 3, () => 0.6));
    assert.deepEqual(history(A.tokens[0], { startS: B, endS: B + 60, fidelity: 1 }), []);
    assert.deepEqual(history(A.tokens[0], { startS: B, endS: B + 119, fidelity: 1 }), []);
    assert.deepEqual(history(A.tokens[0], { endS: B + 119, fidelity: 5 }), []);
    assert.deepEqual(history(A.tokens[0], { startS: B, endS: B + 179, fidelity: 1 }), points([120, 0.42]));
    assert.deepEqual(history(A.tokens[0], { startS: B + 1_000 }, B + 1_300), run(960, 60, 6, () => 0.5), 'startTs alone ends now');
  });

  test('MINT and MERGE fills trade both tokens, each at its own price; a NORMAL YES fill does not write the NO token', () => {
    const range = { startS: B, endS: B + 300, fidelity: 1 };
    assert.deepEqual(history(MB.tokens[0], range), points([60, 0.4], [120, 0.4], [180, 0.45], [240, 0.45], [300, 0.45]));
    assert.deepEqual(history(MB.tokens[1], range), points([60, 0.6], [120, 0.6], [180, 0.55], [240, 0.55], [300, 0.55]));
    assert.deepEqual(history(A.tokens[1], { interval: 'max' }), []);
    assert.deepEqual(history('999', { interval: 'max' }), [], 'a token without trades has no history');
    assert.deepEqual(shardStore.lastTrades(MB.market)[1], [5_500, BUY, (B + 200) * 1000], 'the maker’s token traded at its side');
  });

  test('interval with startTs or endTs, and endTs before startTs, are 400', () => {
    for (const interval of INTERVALS) {
      assert400(() => history(A.tokens[0], { interval, startS: B }), `${interval} with startTs`);
      assert400(() => history(A.tokens[0], { interval, endS: NOW_S }), `${interval} with endTs`);
    }
    assert400(() => history(A.tokens[0], { startS: B + 600, endS: B + 300 }), 'endTs before startTs');
  });

  test(`a range finer than ${HISTORY_POINTS_MAX} points is 400; exactly ${HISTORY_POINTS_MAX} is served`, () => {
    const firstBucket = B + 120;
    // A "now" late enough that every range here is in the past.
    const history = (tokenId: string, request: Partial<HistoryRequest>): Point[] => historyAt(tokenId, request, B + 20_000_000);
    const most = history(A.tokens[0], { startS: B, endS: firstBucket + (HISTORY_POINTS_MAX - 1) * 60, fidelity: 1 });
    assert.equal(most.length, HISTORY_POINTS_MAX);
    assert.deepEqual(most.at(-1), { t: firstBucket + (HISTORY_POINTS_MAX - 1) * 60, p: 0.6 });
    assert400(() => history(A.tokens[0], { startS: B, endS: firstBucket + HISTORY_POINTS_MAX * 60, fidelity: 1 }), 'one point too many');
    assert400(() => history(A.tokens[0], { startS: 0, endS: B + 10_000_000, fidelity: 1 }), 'a long range by the minute');
    assert.ok(history(A.tokens[0], { startS: 0, endS: B + 10_000_000, fidelity: 60 }).length > 0, 'the same range by the hour is served');
  });
});

suite('over HTTP', () => {
  let server: RunningServer;
  let market: PlainMarket;
  let other: PlainMarket;
  let alice: Trader;
  let bob: Trader;

  before(async () => {
    const setup = await startTrading([201, 202], { SEED_DEMO: '0' });
    server = setup.server;
    [market, other] = setup.markets as [PlainMarket, PlainMarket];
    [alice, bob] = setup.traders as [Trader, Trader];
  });

  after(async () => {
    await server.stop();
    removeDataDir(server.dataDir);
  });

  test('GET /prices-history and POST /batch-prices-history show a MINT fill’s prices on both tokens', async () => {
    const fromS = Math.floor(Date.now() / 1000);
    assert.deepEqual((await request(`${server.urls.clob}/prices-history?market=${market.yes}&interval=max`)).body, { history: [] });
    const bid = await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 4_000, sizeMicros: 5_000_000 });
    assert.equal(bid.status, 200, bid.text);
    const mint = await bob.place({ tokenId: market.no, side: 'BUY', priceUnits: 6_000, sizeMicros: 5_000_000 });
    assert.equal((mint.body as { status: string }).status, 'matched', mint.text);

    const url = `${server.urls.clob}/prices-history?market=${market.yes}&interval=max`;
    const deadline = Date.now() + 2_000;
    let response = await request<{ history: Point[] }>(url);
    while (response.status === 200 && response.body.history.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      response = await request<{ history: Point[] }>(url);
    }
    const toS = Math.floor(Date.now() / 1000);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body), ['history']);
    const yes = response.body.history;
    assert.ok(yes.length >= 1);
    assert.ok(yes[0]!.t >= Math.floor(fromS / 60) * 60 && yes[0]!.t <= toS, 'the fill’s minute');
    for (const point of yes) {
      assert.deepEqual(Object.keys(point), ['t', 'p']);
      assert.equal(point.p, 0.4);
      assert.equal(point.t % 60, 0);
    }

    const batch = await request<{ history: Record<string, Point[]> }>(`${server.urls.clob}/batch-prices-history`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ markets: [market.yes, market.no], interval: 'max', fidelity: 1 }),
    });
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(Object.keys(batch.body.history).sort(), [market.yes, market.no].sort());
    assert.ok(batch.body.history[market.yes]!.length >= 1 && batch.body.history[market.yes]!.every((point) => point.p === 0.4));
    assert.ok(batch.body.history[market.no]!.length >= 1 && batch.body.history[market.no]!.every((point) => point.p === 0.6));
    assert.equal(batch.body.history[market.no]![0]!.t, batch.body.history[market.yes]![0]!.t);

    const plain = await request<{ history: Record<string, Point[]> }>(`${server.urls.clob}/batch-prices-history`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ markets: [market.no, other.yes] }),
    });
    assert.equal(plain.status, 200, plain.text);
    assert.ok(plain.body.history[market.no]!.every((point) => point.p === 0.6));
    assert.deepEqual(plain.body.history[other.yes], [], 'a token without trades');
  });

  test('bad requests: more than 20 markets, interval with startTs, unknown tokens', async () => {
    const post = (body: unknown) => request<{ error: string }>(`${server.urls.clob}/batch-prices-history`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    const many = await post({ markets: Array.from({ length: 21 }, () => market.yes) });
    assert.equal(many.status, 400, many.text);
    assert.equal((await post({ markets: Array.from({ length: 20 }, () => market.yes) })).status, 200);
    assert.equal((await post({ markets: [] })).status, 400);
    assert.equal((await post({ markets: [market.yes], interval: '2h' })).status, 400);
    assert.equal((await post({ markets: [market.yes], interval: '1h', start_ts: 1 })).status, 400);
    const unknownBatch = await post({ markets: [market.yes, '12345'] });
    assert.deepEqual([unknownBatch.status, unknownBatch.body], [404, { error: 'No orderbook exists for the requested token id' }]);

    const get = (query: string) => request<{ error: string }>(`${server.urls.clob}/prices-history?${query}`);
    const unknown = await get('market=12345&interval=max');
    assert.deepEqual([unknown.status, unknown.body], [404, { error: 'No orderbook exists for the requested token id' }]);
    assert.equal((await get(`market=${market.yes}&interval=1h&startTs=1`)).status, 400);
    assert.equal((await get(`market=${market.yes}&interval=3d`)).status, 400);
    assert.equal((await get(`market=${market.yes}&fidelity=0`)).status, 400);
    assert.equal((await get('interval=max')).status, 400, 'market is required');
  });
});

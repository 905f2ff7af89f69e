// Gamma's live market fields on the catalog listener, after real orders and trades placed through
// the CLOB: outcomePrices (midpoint, or the last trade when the spread is wider than 0.10),
// bestBid, bestAsk, spread, lastTradePrice, volume/volumeNum, volume24hr and liquidity/liquidityNum
// on markets, and their sums on events; the same values in every read that carries a market
// (lists, single reads, markets nested in events), sorts and filters over them, what a resolution
// and a restart leave, and that the list items of GET /events carry their markets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { removeDataDir, request, startServer, type RunningServer } from '../../support/server.js';
import { ADMIN_TOKEN, startTrading, type PlainMarket, type Trader } from '../orders/trader.js';
import { checkEventItem, checkFullEvent, checkList, checkMarket, checkMarketWithEvents, idsOf } from './support.js';

interface LiveMarket {
  readonly id: string;
  readonly conditionId: string;
  readonly slug: string;
  readonly outcomePrices: string;
  readonly bestBid: number | null;
  readonly bestAsk: number | null;
  readonly spread: number | null;
  readonly lastTradePrice: number | null;
  readonly volume: string;
  readonly volumeNum: number;
  readonly volume24hr: number;
  readonly liquidity: string;
  readonly liquidityNum: number;
}

interface LiveEvent {
  readonly id: string;
  readonly slug: string;
  readonly volume: number;
  readonly volume24hr: number;
  readonly liquidity: number;
  readonly markets: readonly LiveMarket[];
}

const live = (market: LiveMarket) => ({
  outcomePrices: market.outcomePrices, bestBid: market.bestBid, bestAsk: market.bestAsk, spread: market.spread,
  lastTradePrice: market.lastTradePrice, volume: market.volume, volumeNum: market.volumeNum, volume24hr: market.volume24hr,
  liquidity: market.liquidity, liquidityNum: market.liquidityNum,
});

const untouched = {
  outcomePrices: '["0.5","0.5"]', bestBid: null, bestAsk: null, spread: null, lastTradePrice: null,
  volume: '0', volumeNum: 0, volume24hr: 0, liquidity: '0', liquidityNum: 0,
};

async function get<T>(url: string): Promise<T> {
  const response = await request<T>(url);
  assert.equal(response.status, 200, `${url}: ${response.status} ${response.text}`);
  return response.body;
}

async function placed(trader: Trader, input: Parameters<Trader['place']>[0]): Promise<void> {
  const response = await trader.place<{ success: boolean; status: string; errorMsg: string }>(input);
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.success, true, response.text);
}

interface CreatedMarket {
  readonly id: string;
  readonly conditionId: string;
  readonly clobTokenIds: string;
  readonly outcomes: string;
}

function plain(market: CreatedMarket): PlainMarket {
  const [yes, no] = JSON.parse(market.clobTokenIds) as [string, string];
  return { conditionId: market.conditionId, yes, no, outcomes: JSON.parse(market.outcomes) as string[] };
}

function admin(clobUrl: string, path: string, body: unknown) {
  return request<Record<string, unknown>>(`${clobUrl}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
}

describe('catalog live fields after trades placed through the CLOB', () => {
  let server: RunningServer;
  let markets: readonly PlainMarket[];
  let traders: readonly Trader[];
  let catalog: string;
  /** The four test markets' catalog ids, in creation order. */
  let ids: string[];
  let eventId: string;
  let otherEventId: string;
  let otherMarket: PlainMarket;

  before(async () => {
    const setup = await startTrading([11, 12, 13], { SEED_DEMO: '0' });
    server = setup.server;
    markets = setup.markets;
    traders = setup.traders;
    catalog = server.urls.catalog;
    const [maker, taker, third] = setup.traders as [Trader, Trader, Trader];
    const [tight, wide, quiet] = markets as [PlainMarket, PlainMarket, PlainMarket, PlainMarket];
    // Tight: bids 0.40 x 20 YES; a NO bid at 0.54 x 10 is a YES ask at 0.46; a YES buyer takes 5 of it (a mint at 0.46).
    await placed(maker, { tokenId: tight.yes, side: 'BUY', priceUnits: 4000, sizeMicros: 20_000_000 });
    await placed(taker, { tokenId: tight.no, side: 'BUY', priceUnits: 5400, sizeMicros: 10_000_000 });
    await placed(third, { tokenId: tight.yes, side: 'BUY', priceUnits: 4600, sizeMicros: 5_000_000, orderType: 'FOK' });
    // Wide: a YES bid at 0.30 x 10 is half taken by a NO buyer at 0.70; a NO bid at 0.25 (a YES ask at 0.75) leaves a 0.45 spread.
    await placed(maker, { tokenId: wide.yes, side: 'BUY', priceUnits: 3000, sizeMicros: 10_000_000 });
    await placed(taker, { tokenId: wide.no, side: 'BUY', priceUnits: 7000, sizeMicros: 5_000_000, orderType: 'FOK' });
    await placed(third, { tokenId: wide.no, side: 'BUY', priceUnits: 2500, sizeMicros: 10_000_000 });
    // Quiet: one bid, no trade.
    await placed(maker, { tokenId: quiet.yes, side: 'BUY', priceUnits: 2000, sizeMicros: 10_000_000 });
    const all = await get<LiveMarket[]>(`${catalog}/markets?ascending=true`);
    ids = markets.map((market) => all.find((item) => item.conditionId === market.conditionId)!.id);
    const events = await get<LiveEvent[]>(`${catalog}/events`);
    eventId = events[0]!.id;
    const other = await admin(server.urls.clob, '/admin/events', { title: 'Other event', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'Nothing traded?' }] });
    assert.equal(other.status, 201, other.text);
    otherEventId = String(other.body['id']);
    otherMarket = plain((other.body['markets'] as CreatedMarket[])[0]!);
  });
  after(async () => {
    await server?.stop();
    if (server !== undefined) removeDataDir(server.dataDir);
  });

  const expected = () => ({
    [ids[0]!]: {
      outcomePrices: '["0.43","0.57"]', bestBid: 0.4, bestAsk: 0.46, spread: 0.06, lastTradePrice: 0.46,
      volume: '2.3', volumeNum: 2.3, volume24hr: 2.3, liquidity: '10.3', liquidityNum: 10.3,
    },
    [ids[1]!]: {
      outcomePrices: '["0.3","0.7"]', bestBid: 0.3, bestAsk: 0.75, spread: 0.45, lastTradePrice: 0.3,
      volume: '3.5', volumeNum: 3.5, volume24hr: 3.5, liquidity: '9', liquidityNum: 9,
    },
    [ids[2]!]: { ...untouched, bestBid: 0.2, liquidity: '2', liquidityNum: 2 },
    [ids[3]!]: untouched,
  });

  test('each market carries its live fields, computed from its book and its trades', async () => {
    const list = await get<LiveMarket[]>(`${catalog}/markets?ascending=true&limit=4`);
    checkList(checkMarket)(list, 'markets');
    const want = expected();
    for (const market of list) assert.deepEqual(live(market), want[market.id], `market ${market.id}`);
  });

  test('single market reads by id, condition id and slug carry the same live fields', async () => {
    const want = expected();
    for (const [index, market] of markets.entries()) {
      const id = ids[index]!;
      const byId = await get<LiveMarket>(`${catalog}/markets/${id}`);
      checkMarketWithEvents(byId, `markets/${id}`);
      assert.deepEqual(live(byId), want[id]);
      assert.deepEqual(live(await get<LiveMarket>(`${catalog}/markets/${market.conditionId}`)), want[id]);
      assert.deepEqual(live(await get<LiveMarket>(`${catalog}/markets/slug/${byId.slug}`)), want[id]);
    }
  });

  test('volume is what the market traded: the taker side of every fill at its price, as GET /trades shows it', async () => {
    for (const [index, market] of markets.entries()) {
      const trades = await get<{ usdcSize: number }[]>(`${server.urls.data}/trades?market=${market.conditionId}&takerOnly=true&limit=100`);
      const micros = trades.reduce((sum, trade) => sum + Math.round(trade.usdcSize * 1e6), 0);
      const item = await get<LiveMarket>(`${catalog}/markets/${ids[index]}`);
      assert.equal(Math.round(item.volumeNum * 1e6), micros, `market ${ids[index]}`);
    }
  });

  test('events sum volume, volume24hr and liquidity over their markets', async () => {
    const event = await get<LiveEvent>(`${catalog}/events/${eventId}`);
    checkFullEvent(event, 'event');
    assert.deepEqual([event.volume, event.volume24hr, event.liquidity], [5.8, 5.8, 21.3]);
    const other = await get<LiveEvent>(`${catalog}/events/${otherEventId}`);
    assert.deepEqual([other.volume, other.volume24hr, other.liquidity], [0, 0, 0]);
  });

  test('GET /events items carry their markets, the same as GET /markets items', async () => {
    const events = await get<LiveEvent[]>(`${catalog}/events?ascending=true`);
    checkList(checkEventItem)(events, 'events');
    const listed = await get<LiveMarket[]>(`${catalog}/markets?ascending=true`);
    for (const event of events) {
      const full = await get<LiveEvent>(`${catalog}/events/${event.id}`);
      assert.deepEqual(event.markets, full.markets, `event ${event.id}`);
      for (const market of event.markets) assert.deepEqual(market, listed.find((item) => item.id === market.id), `market ${market.id}`);
    }
    assert.deepEqual(events.map((event) => event.markets.length), [4, 1]);
    const bySlug = await get<LiveEvent>(`${catalog}/events/slug/${events[0]!.slug}`);
    assert.deepEqual(bySlug.markets, events[0]!.markets);
  });

  test('markets sort by volume, volume24hr and liquidity, ties by id', async () => {
    const [tight, wide, quiet, none] = ids as [string, string, string, string];
    const newest = String(Number(none) + 1);
    assert.deepEqual(idsOf(await get<LiveMarket[]>(`${catalog}/markets?order=volume&ascending=true`)), [quiet, none, newest, tight, wide]);
    assert.deepEqual(idsOf(await get<LiveMarket[]>(`${catalog}/markets?order=volumeNum`)), [wide, tight, newest, none, quiet]);
    assert.deepEqual(idsOf(await get<LiveMarket[]>(`${catalog}/markets?order=volume24hr`)), [wide, tight, newest, none, quiet]);
    assert.deepEqual(idsOf(await get<LiveMarket[]>(`${catalog}/markets?order=liquidity`)), [tight, wide, quiet, newest, none]);
    assert.deepEqual(idsOf(await get<LiveMarket[]>(`${catalog}/markets?order=liquidityNum&ascending=true&limit=2&offset=2`)), [quiet, wide]);
  });

  test('events sort by volume, volume24hr and liquidity', async () => {
    for (const column of ['volume', 'volume24hr', 'liquidity']) {
      assert.deepEqual(idsOf(await get<LiveEvent[]>(`${catalog}/events?order=${column}`)), [eventId, otherEventId], column);
      assert.deepEqual(idsOf(await get<LiveEvent[]>(`${catalog}/events?order=${column}&ascending=true`)), [otherEventId, eventId], column);
    }
  });

  test('volume_num_min/max and liquidity_num_min/max select markets by their live values, bounds included', async () => {
    const [tight, wide, quiet, none] = ids as [string, string, string, string];
    const newest = String(Number(none) + 1);
    const page = async (filters: string) => idsOf(await get<LiveMarket[]>(`${catalog}/markets?ascending=true&${filters}`));
    assert.deepEqual(await page('volume_num_min=3'), [wide]);
    assert.deepEqual(await page('volume_num_min=2.3'), [tight, wide]);
    assert.deepEqual(await page('volume_num_max=2.3'), [tight, quiet, none, newest]);
    assert.deepEqual(await page('volume_num_min=0.000001&volume_num_max=3.4999'), [tight]);
    assert.deepEqual(await page('liquidity_num_min=9&liquidity_num_max=10'), [wide]);
    assert.deepEqual(await page('liquidity_num_min=0.000001'), [tight, wide, quiet]);
    assert.deepEqual(await page('liquidity_num_max=0'), [none, newest]);
    assert.deepEqual(await page('liquidity_num_min=5&volume_num_max=3'), [tight]);
    assert.deepEqual(await page('volume_num_min=4&volume_num_max=1'), []);
    // With a candidate set from an index too.
    assert.deepEqual(await page(`id=${tight},${wide},${quiet}&liquidity_num_max=9.5`), [wide, quiet]);
  });

  test('events: volume_min/max and liquidity_min/max select by the sums', async () => {
    const page = async (filters: string) => idsOf(await get<LiveEvent[]>(`${catalog}/events?ascending=true&${filters}`));
    assert.deepEqual(await page('volume_min=5.8'), [eventId]);
    assert.deepEqual(await page('volume_min=5.800001'), []);
    assert.deepEqual(await page('volume_max=5.7'), [otherEventId]);
    assert.deepEqual(await page('liquidity_min=21.3&liquidity_max=21.3'), [eventId]);
    assert.deepEqual(await page('liquidity_max=0'), [otherEventId]);
  });

  test('amount filters refuse what is not a non-negative decimal of at most 6 decimals', async () => {
    const refusals: [string, string][] = [
      ['/markets?volume_num_min=-1', 'volume_num_min must be a non-negative decimal with at most 6 decimals'],
      ['/markets?liquidity_num_max=abc', 'liquidity_num_max must be a non-negative decimal with at most 6 decimals'],
      ['/markets?volume_num_max=1.0000001', 'volume_num_max must be a non-negative decimal with at most 6 decimals'],
      ['/markets?liquidity_num_min=', 'liquidity_num_min must be a non-negative decimal with at most 6 decimals'],
      ['/events?volume_min=1e3', 'volume_min must be a non-negative decimal with at most 6 decimals'],
      ['/events?liquidity_max=x', 'liquidity_max must be a non-negative decimal with at most 6 decimals'],
      ['/markets?volume_num_min=1&volume_num_min=2', 'duplicate parameter: volume_num_min'],
    ];
    for (const [path, error] of refusals) {
      const response = await request(`${catalog}${path}`);
      assert.equal(response.status, 400, path);
      assert.deepEqual(response.body, { type: 'bad request', error }, path);
    }
  });

  test('a new order shows at once (answers are not served from a stale cache)', async () => {
    const quiet = markets[2]!;
    const before = await get<LiveMarket>(`${catalog}/markets/${ids[2]}`);
    assert.equal(before.bestAsk, null);
    // A NO bid at 0.70 is a YES ask at 0.30: a 0.10 spread, so the midpoint shows.
    await placed(traders[2]!, { tokenId: quiet.no, side: 'BUY', priceUnits: 7000, sizeMicros: 10_000_000 });
    const after = await get<LiveMarket>(`${catalog}/markets/${ids[2]}`);
    assert.deepEqual([after.bestBid, after.bestAsk, after.spread, after.outcomePrices], [0.2, 0.3, 0.1, '["0.25","0.75"]']);
    assert.equal(after.liquidityNum, 5);
    const event = await get<LiveEvent>(`${catalog}/events/${eventId}`);
    assert.equal(event.liquidity, 24.3);
  });

  test('a resolution shows 1 and 0 and empties the book; volume stays', async () => {
    const wide = markets[1]!;
    const resolved = await admin(server.urls.clob, `/admin/markets/${wide.conditionId}/resolve`, { winner: wide.outcomes[1] });
    assert.equal(resolved.status, 200, resolved.text);
    const market = await get<LiveMarket>(`${catalog}/markets/${ids[1]}`);
    assert.deepEqual(live(market), {
      outcomePrices: '["0","1"]', bestBid: null, bestAsk: null, spread: null, lastTradePrice: 0.3,
      volume: '3.5', volumeNum: 3.5, volume24hr: 3.5, liquidity: '0', liquidityNum: 0,
    });
  });

  test('a restart shows the same values: volumes are kept with the fills, books and last trades reload', async () => {
    const before = await get<LiveMarket[]>(`${catalog}/markets?ascending=true`);
    const eventsBefore = await get<LiveEvent[]>(`${catalog}/events?ascending=true`);
    const dataDir = server.dataDir;
    assert.equal(await server.stop(), 0);
    server = await startServer({ dataDir, env: { ADMIN_TOKEN, SHARDS: '2', SEED_DEMO: '0' } });
    catalog = server.urls.catalog;
    assert.deepEqual(await get<LiveMarket[]>(`${catalog}/markets?ascending=true`), before);
    assert.deepEqual(await get<LiveEvent[]>(`${catalog}/events?ascending=true`), eventsBefore);
  });

  test('search ranks equal matches by their live volume', async () => {
    for (const trader of traders) trader.clobUrl = server.urls.clob;
    const search = async (): Promise<string[]> => idsOf((await get<{ events: { id: string }[] }>(`${catalog}/public-search?q=event`)).events);
    // "event" starts a word of both titles: the one that traded more first.
    assert.deepEqual(await search(), [eventId, otherEventId]);
    // A NO bid at 0.10 taken by a YES buyer at 0.90: 9 traded, more than the first event's 5.8.
    await placed(traders[0]!, { tokenId: otherMarket.no, side: 'BUY', priceUnits: 1000, sizeMicros: 10_000_000 });
    await placed(traders[1]!, { tokenId: otherMarket.yes, side: 'BUY', priceUnits: 9000, sizeMicros: 10_000_000, orderType: 'FOK' });
    assert.equal((await get<LiveEvent>(`${catalog}/events/${otherEventId}`)).volume, 9);
    assert.deepEqual(await search(), [otherEventId, eventId]);
  });

  test('under a creator, an event sums only the markets that creator shows', async () => {
    const created = await admin(server.urls.clob, '/admin/events', {
      title: 'Scoped sums', endDate: '2031-01-01T00:00:00Z',
      markets: [{ question: 'For a?', creator: 'a.example' }, { question: 'For b?', creator: 'b.example' }],
    });
    assert.equal(created.status, 201, created.text);
    const id = String(created.body['id']);
    const [forA, forB] = (created.body['markets'] as CreatedMarket[]).map(plain) as [PlainMarket, PlainMarket];
    // a: 10 traded at 0.50 (5), nothing left resting; b: a bid of 10 at 0.10 (1 of liquidity).
    await placed(traders[0]!, { tokenId: forA.yes, side: 'BUY', priceUnits: 5000, sizeMicros: 10_000_000 });
    await placed(traders[1]!, { tokenId: forA.no, side: 'BUY', priceUnits: 5000, sizeMicros: 10_000_000, orderType: 'FOK' });
    await placed(traders[2]!, { tokenId: forB.yes, side: 'BUY', priceUnits: 1000, sizeMicros: 10_000_000 });
    const sums = (event: LiveEvent) => [event.volume, event.volume24hr, event.liquidity];
    assert.deepEqual(sums(await get<LiveEvent>(`${catalog}/events/${id}`)), [5, 5, 1]);
    assert.deepEqual(sums(await get<LiveEvent>(`${catalog}/events/${id}?creator=a.example`)), [5, 5, 0]);
    assert.deepEqual(sums(await get<LiveEvent>(`${catalog}/events/${id}?creator=B.EXAMPLE`)), [0, 0, 1]);
    const [listed] = await get<LiveEvent[]>(`${catalog}/events?id=${id}&creator=b.example`);
    assert.deepEqual([...sums(listed!), listed!.markets.length], [0, 0, 1, 1]);
    const marketRead = await get<{ events: LiveEvent[] }>(`${catalog}/markets/${forA.conditionId}?creator=a.example`);
    assert.deepEqual(sums(marketRead.events[0]!), [5, 5, 0]);
    assert.deepEqual(idsOf(await get<LiveEvent[]>(`${catalog}/events?volume_min=5&creator=a.example`)), [id]);
    assert.deepEqual(idsOf(await get<LiveEvent[]>(`${catalog}/events?volume_min=5&creator=b.example`)), []);
  });
});

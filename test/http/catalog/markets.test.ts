// The catalog's market reads against the real server: GET /markets (Gamma's list with limit,
// offset, filters and sort), GET /markets/{id} by numeric id or condition id, and
// GET /markets/slug/{slug}; shapes, values, creator scoping and every bound with its 400 body,
// a bulk import past the largest page, and a seeded random catalog held to a reference model.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Prng } from '../../engine/prng.js';
import {
  assertRandomPage,
  bulkEvents,
  catalogSeed,
  checkList,
  checkMarket,
  checkMarketWithEvents,
  createEvent,
  expectBadRequest,
  expectNotFound,
  getJson,
  idRange,
  idsOf,
  modelCreators,
  pairOf,
  query,
  randomCatalog,
  slugsOf,
  startCatalog,
  startImportedCatalog,
  stopCatalog,
  type CatalogServer,
  type EventItem,
  type FullEvent,
  type Market,
  type MarketWithEvents,
  type ModelMarket,
} from './support.js';

const site = 'weather.example';
const wallet = '0x00000000000000000000000000000000000000bb';
const day = (date: string): string => `${date}T00:00:00.000Z`;

// Five markets over two events; each stored sort column orders them differently. The bodies give
// Gamma's volume and liquidity, which are ignored: they are live (from trades and books, none
// here), so every market ties at 0 on them and the tie-break by id shows in both directions.
const weather = {
  title: 'Weather week',
  slug: 'weather-week',
  endDate: day('2030-03-01'),
  tags: [{ label: 'Weather', slug: 'weather' }],
  markets: [
    {
      question: 'Rain in Paris?',
      slug: 'paris-rain',
      description: 'Rain gauge at Montsouris.',
      outcomes: JSON.stringify(['Rain', 'Dry']),
      orderPriceMinTickSize: 0.001,
      orderMinSize: 10,
      takerBaseFee: 20,
      makerBaseFee: 5,
      negRisk: true,
      groupItemTitle: 'Paris',
      creator: site,
      startDate: day('2030-01-03'),
      endDate: day('2030-02-04'),
      createdAt: day('2025-01-02'),
      updatedAt: day('2025-03-05'),
      volume: '300',
      liquidity: 20,
    },
    { question: 'Snow in Oslo?', slug: 'oslo-snow', creator: wallet, startDate: day('2030-01-01'), endDate: day('2030-02-05'), createdAt: day('2025-01-04'), updatedAt: day('2025-03-01'), volume: 100, liquidity: 40 },
    { question: 'Hail in Rome?', slug: 'rome-hail', closed: true, startDate: day('2030-01-02'), endDate: day('2030-02-01'), createdAt: day('2025-01-01'), updatedAt: day('2025-03-02'), volume: 300, liquidity: 30 },
  ],
};

const traffic = {
  title: 'Traffic week',
  slug: 'traffic-week',
  endDate: day('2030-03-01'),
  markets: [
    { question: 'Jam on A1?', slug: 'a1-jam', creator: site, archived: true, startDate: day('2030-01-05'), endDate: day('2030-02-02'), createdAt: day('2025-01-03'), updatedAt: day('2025-03-03'), volume: 50, liquidity: 30 },
    { question: 'Roadworks on B2?', slug: 'b2-roadworks', creator: site.toUpperCase(), active: false, startDate: day('2030-01-04'), endDate: day('2030-02-03'), createdAt: day('2025-01-05'), updatedAt: day('2025-03-04'), volume: 0, liquidity: 10 },
  ],
};

const ascendingIds: Readonly<Record<string, readonly number[]>> = {
  id: [1, 2, 3, 4, 5],
  question: [3, 4, 1, 5, 2],
  slug: [4, 5, 2, 1, 3],
  startDate: [2, 3, 1, 5, 4],
  endDate: [3, 4, 5, 1, 2],
  createdAt: [3, 1, 4, 2, 5],
  updatedAt: [2, 3, 4, 5, 1],
  volume: [1, 2, 3, 4, 5],
  volumeNum: [1, 2, 3, 4, 5],
  volume24hr: [1, 2, 3, 4, 5],
  liquidity: [1, 2, 3, 4, 5],
  liquidityNum: [1, 2, 3, 4, 5],
};

const asStrings = (ids: readonly number[]): string[] => ids.map(String);

describe('catalog markets', () => {
  let server: CatalogServer;
  let weatherEvent: FullEvent;
  let trafficEvent: FullEvent;
  let markets: Market[];
  const market = (id: number): Market => markets.find((entry) => entry.id === String(id)) ?? assert.fail(`market ${id} missing`);

  before(async () => {
    server = await startCatalog();
    weatherEvent = await createEvent(server, weather);
    trafficEvent = await createEvent(server, traffic);
    markets = [...weatherEvent.markets, ...trafficEvent.markets];
  });
  after(() => stopCatalog(server));

  test('list items carry every Catalog market field with its type and no events', async () => {
    const list = await getJson<Market[]>(server, '/markets?ascending=true');
    checkList(checkMarket)(list, 'markets');
    assert.deepEqual(idsOf(list), ['1', '2', '3', '4', '5']);
    // The list item is the market as its event carries it.
    assert.deepEqual(list, markets);
  });

  test('a market keeps what it was created with and gets the documented defaults otherwise', () => {
    const paris = market(1);
    assert.equal(paris.question, 'Rain in Paris?');
    assert.equal(paris.slug, 'paris-rain');
    assert.equal(paris.description, 'Rain gauge at Montsouris.');
    assert.deepEqual(pairOf(paris.outcomes, 'outcomes'), ['Rain', 'Dry']);
    assert.equal(paris.orderPriceMinTickSize, 0.001);
    assert.equal(paris.orderMinSize, 10);
    assert.equal(paris.takerBaseFee, 20);
    assert.equal(paris.makerBaseFee, 5);
    assert.equal(paris.negRisk, true);
    assert.equal(paris.groupItemTitle, 'Paris');
    // The body's volume and liquidity are not kept: before any trade or order there is none.
    assert.deepEqual([paris.volume, paris.volumeNum, paris.volume24hr, paris.liquidity, paris.liquidityNum], ['0', 0, 0, '0', 0]);
    assert.deepEqual([paris.outcomePrices, paris.bestBid, paris.bestAsk, paris.spread, paris.lastTradePrice], ['["0.5","0.5"]', null, null, null, null]);
    assert.deepEqual([paris.startDate, paris.endDate, paris.createdAt, paris.updatedAt], [day('2030-01-03'), day('2030-02-04'), day('2025-01-02'), day('2025-03-05')]);
    const oslo = market(2);
    assert.deepEqual(pairOf(oslo.outcomes, 'outcomes'), ['Yes', 'No']);
    assert.equal(oslo.orderPriceMinTickSize, 0.01);
    assert.equal(oslo.orderMinSize, 5);
    assert.equal(oslo.takerBaseFee, 0);
    assert.equal(oslo.negRisk, false);
    assert.deepEqual([market(3).closed, market(4).archived, market(5).active], [true, true, false]);
  });

  test('condition ids, question ids and token ids are distinct across markets', () => {
    const tokens = markets.flatMap((entry) => pairOf(entry.clobTokenIds, 'clobTokenIds'));
    assert.equal(new Set(tokens).size, markets.length * 2);
    assert.equal(new Set(markets.map((entry) => entry.conditionId)).size, markets.length);
    assert.equal(new Set(markets.map((entry) => entry.questionID)).size, markets.length);
  });

  test('one market by numeric id, condition id (any case) or slug is the market with its event', async () => {
    const { tags: _tags, markets: _markets, series: _series, eventMetadata: _metadata, ...weatherSummary } = weatherEvent;
    for (const entry of markets) {
      const byId = await getJson<MarketWithEvents>(server, `/markets/${entry.id}`);
      checkMarketWithEvents(byId, `markets/${entry.id}`);
      const { events, ...rest } = byId;
      assert.deepEqual(rest, entry);
      assert.deepEqual(await getJson(server, `/markets/${entry.conditionId}`), byId);
      assert.deepEqual(await getJson(server, `/markets/${entry.conditionId.toUpperCase().replace('0X', '0x')}`), byId);
      assert.deepEqual(await getJson(server, `/markets/slug/${entry.slug}`), byId);
      assert.equal(events[0]?.slug, Number(entry.id) <= 3 ? 'weather-week' : 'traffic-week');
    }
    const { events } = await getJson<MarketWithEvents>(server, '/markets/1');
    assert.deepEqual(events, [weatherSummary]);
  });

  test('the event embedded in a market read is the event list item without tags and markets', async () => {
    const [item] = await getJson<EventItem[]>(server, '/events?slug=traffic-week');
    const { tags: _tags, markets: _markets, ...summary } = item ?? assert.fail('traffic-week missing');
    assert.deepEqual((await getJson<MarketWithEvents>(server, '/markets/slug/a1-jam')).events, [summary]);
  });

  test('unknown market ids, condition ids and slugs are 404 with the exact bodies', async () => {
    await expectNotFound(server, '/markets/999', 'id not found');
    await expectNotFound(server, '/markets/0', 'id not found');
    await expectNotFound(server, `/markets/0x${'ab'.repeat(32)}`, 'id not found');
    await expectNotFound(server, '/markets/slug/no-such-market', 'slug not found');
    await expectBadRequest(server, '/markets/slug/%E0%A4%A', 'malformed path parameter: slug');
    await expectNotFound(server, '/markets/999999999', 'id not found');
  });

  test('a market id that is neither numeric nor a condition id is a 400', async () => {
    const message = 'id must be a numeric market id or a condition id';
    for (const value of ['abc', '-1', '1.5', `0x${'a'.repeat(63)}`, `0x${'g'.repeat(64)}`, `${'a'.repeat(64)}`]) await expectBadRequest(server, `/markets/${value}`, message);
    await expectBadRequest(server, `/markets/0x${'a'.repeat(65)}`, 'id must be at most 66 characters');
  });

  for (const [column, ids] of Object.entries(ascendingIds)) {
    test(`order=${column} sorts markets both ways, ties by id in the sort direction`, async () => {
      assert.deepEqual(idsOf(await getJson<Market[]>(server, `/markets?order=${column}&ascending=true`)), asStrings(ids));
      assert.deepEqual(idsOf(await getJson<Market[]>(server, `/markets?order=${column}`)), asStrings([...ids].reverse()));
      // The same order over candidates a filter selects.
      assert.deepEqual(idsOf(await getJson<Market[]>(server, `/markets?order=${column}&ascending=true&id=1,2,3,4,5`)), asStrings(ids));
    });
  }

  test('the default market order is by id, descending', async () => {
    assert.deepEqual(idsOf(await getJson<Market[]>(server, '/markets')), ['5', '4', '3', '2', '1']);
  });

  test('limit and offset page through markets without overlap or gaps', async () => {
    for (const limit of [1, 2, 4]) {
      const pages: string[] = [];
      for (let offset = 0; offset < 5 + limit; offset += limit) pages.push(...idsOf(await getJson<Market[]>(server, `/markets${query({ order: 'liquidity', ascending: true, limit, offset })}`)));
      assert.deepEqual(pages, asStrings(ascendingIds['liquidity'] ?? []), `limit=${limit}`);
    }
  });

  test('the filters select markets by id, slug, condition id, token id and state flags', async () => {
    const ids = async (path: string): Promise<string[]> => idsOf(await getJson<Market[]>(server, path + (path.includes('?') ? '&' : '?') + 'ascending=true'));
    const [token0, token1] = pairOf(market(2).clobTokenIds, 'clobTokenIds');
    assert.deepEqual(await ids('/markets?id=2,4'), ['2', '4']);
    assert.deepEqual(await ids('/markets?id=2&id=5'), ['2', '5']);
    assert.deepEqual(await ids('/markets?slug=oslo-snow,a1-jam'), ['2', '4']);
    assert.deepEqual(await ids(`/markets?condition_ids=${market(3).conditionId},${market(1).conditionId.toUpperCase().replace('0X', '0x')}`), ['1', '3']);
    assert.deepEqual(await ids(`/markets?clob_token_ids=${token0}`), ['2']);
    assert.deepEqual(await ids(`/markets?clob_token_ids=${token1}`), ['2']);
    assert.deepEqual(await ids('/markets?closed=true'), ['3']);
    assert.deepEqual(await ids('/markets?archived=1'), ['4']);
    assert.deepEqual(await ids('/markets?active=false'), ['5']);
    assert.deepEqual(await ids('/markets?active=true&closed=false&archived=false'), ['1', '2']);
    assert.deepEqual(await ids('/markets?id=1,2,3&closed=false'), ['1', '2']);
    assert.deepEqual(await ids('/markets?id=1,2,3&slug=rome-hail,a1-jam'), ['3']);
    for (const path of ['/markets?id=999', '/markets?slug=none', `/markets?condition_ids=0x${'cd'.repeat(32)}`, '/markets?clob_token_ids=12345']) assert.deepEqual(await getJson(server, path), [], path);
  });

  test('creator scopes the market list and single market reads', async () => {
    const ids = async (path: string): Promise<string[]> => idsOf(await getJson<Market[]>(server, path + '&ascending=true'));
    assert.deepEqual(await ids(`/markets?creator=${site}`), ['1', '4', '5']);
    assert.deepEqual(await ids(`/markets?creator=${site.toUpperCase()}`), ['1', '4', '5']);
    assert.deepEqual(await ids(`/markets?creator=${wallet.toUpperCase().replace('0X', '0x')}`), ['2']);
    assert.deepEqual(await ids('/markets?creator=other.example'), []);
    assert.deepEqual(await ids(`/markets?creator=${site}&closed=false&archived=false`), ['1', '5']);
    assert.deepEqual(await ids(`/markets?creator=${site}&id=1,2,3`), ['1']);
    checkMarketWithEvents(await getJson(server, `/markets/1?creator=${site}`), 'scoped market');
    assert.deepEqual(await getJson(server, `/markets/slug/oslo-snow?creator=${wallet}`), await getJson(server, '/markets/slug/oslo-snow'));
    await expectNotFound(server, `/markets/2?creator=${site}`, 'id not found');
    await expectNotFound(server, `/markets/${market(2).conditionId}?creator=${site}`, 'id not found');
    await expectNotFound(server, `/markets/slug/oslo-snow?creator=${site}`, 'slug not found');
    // A market without a creator shows only in unscoped reads.
    await expectNotFound(server, `/markets/3?creator=${site}`, 'id not found');
    await expectNotFound(server, `/markets/slug/rome-hail?creator=${wallet}`, 'slug not found');
    await expectBadRequest(server, `/markets/1?creator=${'w'.repeat(129)}`, 'creator must be at most 128 characters');
  });

  test('list bounds: limit 1..500, offset >= 0, sortable order, boolean ascending, single scalars', async () => {
    assert.equal((await getJson<Market[]>(server, '/markets?limit=1')).length, 1);
    assert.equal((await getJson<Market[]>(server, '/markets?limit=500')).length, 5);
    assert.equal((await getJson<Market[]>(server, '/markets?offset=0')).length, 5);
    for (const value of ['0', '501', 'x', '2.0']) await expectBadRequest(server, `/markets?limit=${value}`, 'limit must be an integer from 1 to 500');
    await expectBadRequest(server, '/markets?offset=-1', 'offset must be an integer >= 0');
    await expectBadRequest(server, '/markets?order=title', 'order must be one of id, question, slug, startDate, endDate, createdAt, updatedAt, volume, volumeNum, liquidity, liquidityNum, volume24hr');
    await expectBadRequest(server, '/markets?ascending=maybe', 'ascending must be true or false');
    await expectBadRequest(server, '/markets?closed=yes', 'closed must be true or false');
    await expectBadRequest(server, '/markets?limit=5&limit=5', 'duplicate parameter: limit');
    await expectBadRequest(server, '/markets?id=0', 'id must be an integer >= 1');
    await expectBadRequest(server, `/markets?condition_ids=0x${'a'.repeat(65)}`, 'condition_ids items must be at most 66 characters');
    await expectBadRequest(server, `/markets?id=${Array.from({ length: 101 }, (_, index) => index + 1).join(',')}`, 'id accepts at most 100 values');
    assert.deepEqual(slugsOf(await getJson<Market[]>(server, `/markets?slug=${Array.from({ length: 99 }, (_, index) => `s${index}`).join(',')},a1-jam`)), ['a1-jam']);
  });
});

describe('GET /markets with more markets than the largest page', () => {
  let server: CatalogServer;
  before(async () => {
    server = await startImportedCatalog(bulkEvents(501));
  });
  after(() => stopCatalog(server));

  test('limit defaults to 100, reaches 500 at most, and offset finds the rest', async () => {
    assert.deepEqual(idsOf(await getJson<Market[]>(server, '/markets')), idRange(501, 100, -1));
    assert.deepEqual(idsOf(await getJson<Market[]>(server, '/markets?limit=500&order=volume&ascending=true')), idRange(1, 500, 1));
    assert.deepEqual(idsOf(await getJson<Market[]>(server, '/markets?limit=500&offset=500&order=volume&ascending=true')), ['501']);
    await expectBadRequest(server, '/markets?limit=501', 'limit must be an integer from 1 to 500');
  });
});

describe(`GET /markets on a random catalog agrees with a reference model (seed ${catalogSeed})`, () => {
  const prng = new Prng(catalogSeed);
  const { events, gamma } = randomCatalog(prng, 50);
  const markets: readonly ModelMarket[] = events.flatMap((event) => event.markets);
  let server: CatalogServer;
  before(async () => {
    server = await startImportedCatalog(gamma);
  });
  after(() => stopCatalog(server));

  const columns = ['id', 'question', 'slug', 'startDate', 'endDate', 'createdAt', 'updatedAt', 'volume', 'volume24hr', 'liquidity'] as const;

  test('300 random queries of filters, creator, order, direction and page match the model', async (t) => {
    let answered = 0;
    for (let round = 0; round < 300; round++) {
      const params: Record<string, string | number | boolean> = {};
      let expected = [...markets];
      for (const name of ['active', 'closed', 'archived'] as const) {
        if (!prng.chance(0.3)) continue;
        const value = prng.chance(0.5);
        params[name] = value;
        expected = expected.filter((market) => market[name] === value);
      }
      if (prng.chance(0.3)) {
        const creator = prng.pick([...modelCreators, 'C-TWO', 'nobody']);
        params['creator'] = creator;
        expected = expected.filter((market) => market.creator === creator.toLowerCase());
      }
      if (prng.chance(0.2)) {
        const ids = Array.from({ length: prng.between(1, 30) }, () => prng.between(1, markets.length + 5));
        params['id'] = ids.join(',');
        expected = expected.filter((market) => ids.includes(market.id));
      }
      // volumeNum and liquidityNum are Gamma's aliases of volume and liquidity.
      const spell = (column: string): string => (column === 'volume' || column === 'liquidity') && prng.chance(0.5) ? `${column}Num` : column;
      if (await assertRandomPage(server, prng, '/markets', params, expected, columns, { limitMax: 60, offsetMax: 90 }, `seed ${catalogSeed}, round ${round}`, spell)) answered++;
    }
    t.diagnostic(`seed ${catalogSeed}: ${answered} of 300 answers held more than one market`);
    assert.ok(answered >= 100, `only ${answered} answers held more than one market`);
  });

  test('each market read under each creator is found exactly when the market is that creator’s', async () => {
    for (const market of markets) {
      for (const creator of modelCreators) {
        const path = `/markets/slug/${market.slug}?creator=${creator}`;
        if (market.creator === creator) assert.equal((await getJson<Market>(server, path)).id, String(market.id));
        else await expectNotFound(server, path, 'slug not found');
      }
    }
  });
});

// GET /events, /events/{id} and /events/slug/{slug} against the real server: shapes, every sort
// column in both directions, paging, every filter, creator scoping, and each parameter bound at
// and past its edge with its exact 400 body. Fixtures are built through the admin API on servers
// started without the demo catalog, so every value a test depends on is set here; a bulk import
// goes past the largest page, and a seeded random catalog is held to a reference model.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Prng } from '../../engine/prng.js';
import {
  assertRandomPage,
  bulkEvents,
  catalogSeed,
  checkEventItem,
  checkFullEvent,
  checkList,
  createEvent,
  eventBody,
  expectBadRequest,
  expectNotFound,
  getJson,
  postEvent,
  idRange,
  idsOf,
  modelCreators,
  modelSeries,
  modelTags,
  query,
  randomCatalog,
  slugsOf,
  startCatalog,
  startImportedCatalog,
  stopCatalog,
  type CatalogServer,
  type EventItem,
  type FullEvent,
  type ModelEvent,
  type SeriesWithEvents,
  type Tag,
} from './support.js';

// Five events whose sort columns each order them differently; a tie on openInterest (ids 1 and 3)
// checks the tie-break by id in the sort direction. Volume, volume24hr and liquidity are live
// (from trades and books, none here): every event ties at 0, so they sort by id.
const sortable = [
  { slug: 'mango-harvest', title: 'Mango harvest', startDate: '2030-01-05', endDate: '2031-01-01', createdAt: '2025-01-02', updatedAt: '2025-04-01', openInterest: 500 },
  { slug: 'apple-pie-contest', title: 'Apple pie contest', startDate: '2030-01-01', endDate: '2031-03-01', createdAt: '2025-01-05', updatedAt: '2025-06-01', openInterest: 200 },
  { slug: 'banana-split', title: 'Banana split', startDate: '2030-01-03', endDate: '2030-12-01', createdAt: '2025-01-01', updatedAt: '2025-02-01', openInterest: 500 },
  { slug: 'cherry-season', title: 'Cherry season', startDate: '2030-01-02', endDate: '2031-02-01', createdAt: '2025-01-04', updatedAt: '2025-03-01', openInterest: 100 },
  { slug: 'banana-bread', title: 'Banana bread', startDate: '2030-01-04', endDate: '2031-04-01', createdAt: '2025-01-03', updatedAt: '2025-05-01', openInterest: 0 },
] as const;

const utc = (day: string): string => `${day}T00:00:00.000Z`;

/** Ascending orders by event id (1-based, in creation order); descending is the reverse. */
const ascendingIds: Readonly<Record<string, readonly number[]>> = {
  id: [1, 2, 3, 4, 5],
  title: [2, 5, 3, 4, 1],
  startDate: [2, 4, 3, 5, 1],
  endDate: [3, 1, 4, 2, 5],
  createdAt: [3, 1, 5, 4, 2],
  updatedAt: [3, 4, 1, 5, 2],
  openInterest: [5, 4, 2, 1, 3],
  volume: [1, 2, 3, 4, 5],
  volume24hr: [1, 2, 3, 4, 5],
  liquidity: [1, 2, 3, 4, 5],
};

const asStrings = (ids: readonly number[]): string[] => ids.map(String);

describe('GET /events ordering and paging', () => {
  let server: CatalogServer;
  before(async () => {
    server = await startCatalog();
    for (const event of sortable) {
      await createEvent(
        server,
        eventBody(event.title, {
          slug: event.slug,
          startDate: utc(event.startDate),
          endDate: utc(event.endDate),
          createdAt: utc(event.createdAt),
          updatedAt: utc(event.updatedAt),
          openInterest: String(event.openInterest),
          // Given, and ignored: volume and liquidity come from clobd's own trades and books.
          volume: 1000,
          liquidity: '50',
          tags: [{ label: 'Fruit', slug: 'fruit' }],
        }),
      );
    }
  });
  after(() => stopCatalog(server));

  test('the created events carry the dates and amounts they were given, and the live sums of their markets', async () => {
    const events = await getJson<EventItem[]>(server, '/events?ascending=true');
    assert.deepEqual(
      events.map(({ slug, title, startDate, endDate, createdAt, updatedAt, openInterest }) => ({ slug, title, startDate, endDate, createdAt, updatedAt, openInterest })),
      sortable.map((event) => ({ ...event, startDate: utc(event.startDate), endDate: utc(event.endDate), createdAt: utc(event.createdAt), updatedAt: utc(event.updatedAt) })),
    );
    for (const event of events) assert.deepEqual([event.volume, event.volume24hr, event.liquidity], [0, 0, 0], event.slug);
  });

  test('without order or ascending the list is by id, descending', async () => {
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events')), ['5', '4', '3', '2', '1']);
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?ascending=false')), ['5', '4', '3', '2', '1']);
  });

  for (const [column, ids] of Object.entries(ascendingIds)) {
    test(`order=${column} sorts ascending and descending, ties by id in the sort direction`, async () => {
      const up = await getJson<EventItem[]>(server, `/events?order=${column}&ascending=true`);
      assert.deepEqual(idsOf(up), asStrings(ids));
      const down = await getJson<EventItem[]>(server, `/events?order=${column}`);
      assert.deepEqual(idsOf(down), asStrings([...ids].reverse()));
    });

    test(`order=${column} sorts the same when a filter selects the candidates`, async () => {
      const up = await getJson<EventItem[]>(server, `/events?order=${column}&ascending=1&tag_slug=fruit`);
      assert.deepEqual(idsOf(up), asStrings(ids));
      const down = await getJson<EventItem[]>(server, `/events?order=${column}&ascending=0&tag=fruit`);
      assert.deepEqual(idsOf(down), asStrings([...ids].reverse()));
    });
  }

  test('several order columns sort by the first, then the next', async () => {
    // openInterest ties 1 and 3; title then puts 3 (Banana split) before 1 (Mango harvest) ascending.
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?order=openInterest,title&ascending=true')), ['5', '4', '2', '3', '1']);
    // liquidity ties everywhere (no books); startDate decides.
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?order=liquidity,startDate&ascending=true')), ['2', '4', '3', '5', '1']);
    // Repeated order parameters are one list, as Gamma accepts both forms.
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?order=liquidity&order=startDate&ascending=true')), ['2', '4', '3', '5', '1']);
  });

  test('limit and offset page through every ordering without overlap or gaps', async () => {
    for (const [column, ids] of Object.entries(ascendingIds)) {
      for (const ascending of [true, false]) {
        const expected = asStrings(ascending ? ids : [...ids].reverse());
        for (const limit of [1, 2, 3]) {
          const pages: string[] = [];
          for (let offset = 0; offset < expected.length + limit; offset += limit) {
            const page = await getJson<EventItem[]>(server, `/events${query({ order: column, ascending, limit, offset })}`);
            assert.ok(page.length <= limit);
            pages.push(...idsOf(page));
          }
          assert.deepEqual(pages, expected, `order=${column} ascending=${ascending} limit=${limit}`);
        }
      }
    }
  });

  test('an offset past the end is an empty page, not an error', async () => {
    assert.deepEqual(await getJson(server, '/events?offset=5'), []);
    assert.deepEqual(await getJson(server, '/events?offset=1000000'), []);
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?offset=4&tag_slug=fruit&order=title')), ['2']);
  });

  test('limit is accepted from 1 to 500 and defaults to 100', async () => {
    assert.equal((await getJson<EventItem[]>(server, '/events?limit=1')).length, 1);
    assert.equal((await getJson<EventItem[]>(server, '/events?limit=500')).length, 5);
    assert.equal((await getJson<EventItem[]>(server, '/events')).length, 5);
  });

  test('limit outside 1..500 or not an integer is a 400 naming the bound', async () => {
    for (const value of ['0', '501', '-1', '1.5', 'ten', '', '1e2', '99999999999999999']) {
      await expectBadRequest(server, `/events?limit=${value}`, 'limit must be an integer from 1 to 500');
    }
  });

  test('offset is accepted from 0 and is a 400 below 0 or when not an integer', async () => {
    assert.equal((await getJson<EventItem[]>(server, '/events?offset=0')).length, 5);
    for (const value of ['-1', '0.5', 'x', '']) await expectBadRequest(server, `/events?offset=${value}`, 'offset must be an integer >= 0');
  });

  test('order names only sortable columns; anything else is a 400 listing them', async () => {
    const message = 'order must be one of id, title, slug, startDate, endDate, creationDate, createdAt, updatedAt, volume, liquidity, openInterest, volume24hr';
    for (const value of ['question', 'Volume', 'id;drop', 'volume,nope']) await expectBadRequest(server, `/events${query({ order: value })}`, message);
    await expectBadRequest(server, '/events?order=id,title,slug,volume', 'order accepts at most 3 values');
    // Every column the issue requires is accepted.
    for (const column of ['id', 'startDate', 'endDate', 'createdAt', 'updatedAt', 'volume', 'volume24hr', 'liquidity', 'title']) await getJson(server, `/events?order=${column}`);
  });

  test('ascending accepts true, false, 1 and 0 (any case) and nothing else', async () => {
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?ascending=TRUE')), ['1', '2', '3', '4', '5']);
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?ascending=1')), ['1', '2', '3', '4', '5']);
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?ascending=False')), ['5', '4', '3', '2', '1']);
    for (const value of ['yes', '2', '', 'on']) await expectBadRequest(server, `/events?ascending=${value}`, 'ascending must be true or false');
  });

  test('query parameters the route does not know are ignored, as Gamma ignores them', async () => {
    const plain = await getJson(server, '/events?order=volume');
    assert.deepEqual(await getJson(server, '/events?order=volume&tag_label=x&limit_per_type=0&Limit=0'), plain);
  });

  test('a scalar parameter given twice is a 400', async () => {
    for (const name of ['limit', 'offset', 'ascending', 'active', 'tag_id', 'tag_slug', 'creator']) {
      const value = name === 'ascending' || name === 'active' ? 'true' : '1';
      await expectBadRequest(server, `/events?${name}=${value}&${name}=${value}`, `duplicate parameter: ${name}`);
    }
  });

  // Runs last in this block: it adds a sixth event to the fixture the tests above rely on.
  test('a write is visible to the next read at once (responses are not served stale)', async () => {
    const before = await getJson<EventItem[]>(server, '/events?order=openInterest');
    const created = await createEvent(server, eventBody('Kiwi fair', { openInterest: 900, tags: [{ label: 'Fruit', slug: 'fruit' }] }));
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?order=openInterest')), [created.id, ...idsOf(before)]);
    assert.equal((await getJson<EventItem[]>(server, '/events?tag_slug=fruit')).length, 6);
  });
});

const site = 'sports.example';
const wallet = '0x00000000000000000000000000000000000000aa';

describe('GET /events filters, single reads and creator scoping', () => {
  let server: CatalogServer;
  const created: FullEvent[] = [];
  const idOf = (index: number): string => created[index]?.id ?? assert.fail(`fixture ${index} missing`);

  before(async () => {
    server = await startCatalog();
    const soccer = { label: 'Soccer', slug: 'soccer' };
    const tennis = { label: 'Tennis', slug: 'tennis' };
    const league = { slug: 'league', title: 'The League', recurrence: 'weekly', seriesType: 'single' };
    const bodies = [
      eventBody('Open match', {
        slug: 'open-match',
        tags: [soccer],
        series: [league],
        eventMetadata: { venue: 'Main stadium', capacity: 40000 },
        markets: [
          { question: 'Open match: home wins?', slug: 'open-home', creator: site },
          // Upper-case on the way in: creators compare case-insensitively.
          { question: 'Open match: away wins?', slug: 'open-away', creator: wallet.toUpperCase().replace('0X', '0x') },
        ],
      }),
      eventBody('Closed match', { slug: 'closed-match', closed: true, tags: [soccer, { label: 'Finals', slug: 'finals' }], markets: [{ question: 'Closed match: draw?', slug: 'closed-draw', creator: site }] }),
      eventBody('Archived match', { slug: 'archived-match', archived: true, tags: [tennis], series: [league], markets: [{ question: 'Archived match: straight sets?', slug: 'archived-sets', creator: wallet }] }),
      eventBody('Inactive match', { slug: 'inactive-match', active: false, tags: [tennis], markets: [{ question: 'Inactive match: tiebreak?', slug: 'inactive-tiebreak' }] }),
      eventBody('Mixed match', {
        slug: 'mixed-match',
        active: false,
        closed: true,
        archived: true,
        markets: [
          { question: 'Mixed match: red card?', slug: 'mixed-red', creator: site },
          { question: 'Mixed match: penalty?', slug: 'mixed-penalty' },
        ],
      }),
    ];
    for (const body of bodies) created.push(await createEvent(server, body));
  });
  after(() => stopCatalog(server));

  const listIds = async (path: string): Promise<string[]> => idsOf(await getJson<EventItem[]>(server, path)).sort((a, b) => Number(a) - Number(b));
  const ids = (...indexes: number[]): string[] => indexes.map(idOf);

  test('list items carry every Event summary field with its type, plus tags and nothing nested besides', async () => {
    const events = await getJson<EventItem[]>(server, '/events');
    checkList(checkEventItem)(events, 'events');
    assert.equal(events.length, 5);
    const open = events.find((event) => event.slug === 'open-match');
    assert.deepEqual(
      open?.tags.map(({ label, slug }) => ({ label, slug })),
      [{ label: 'Soccer', slug: 'soccer' }],
    );
  });

  test('single reads by id and by slug are the full event, identical to each other and to the admin answer', async () => {
    for (const [index, event] of created.entries()) {
      const byId = await getJson<FullEvent>(server, `/events/${event.id}`);
      checkFullEvent(byId, `events/${event.id}`);
      assert.deepEqual(await getJson(server, `/events/slug/${event.slug}`), byId);
      assert.deepEqual(byId, event, `fixture ${index}`);
    }
    const open = await getJson<FullEvent>(server, `/events/${idOf(0)}`);
    assert.deepEqual(slugsOf(open.markets), ['open-home', 'open-away']);
    assert.deepEqual(open.series.map(({ slug, title, recurrence, seriesType }) => ({ slug, title, recurrence, seriesType })), [{ slug: 'league', title: 'The League', recurrence: 'weekly', seriesType: 'single' }]);
    assert.deepEqual(open.eventMetadata, { venue: 'Main stadium', capacity: 40000 });
    assert.deepEqual((await getJson<FullEvent>(server, `/events/${idOf(3)}`)).eventMetadata, {});
  });

  test('the list item is the single read without series and eventMetadata', async () => {
    const items = await getJson<EventItem[]>(server, '/events?ascending=true');
    for (const item of items) {
      const { series: _series, eventMetadata: _metadata, ...rest } = await getJson<FullEvent>(server, `/events/${item.id}`);
      assert.deepEqual(item, rest);
    }
  });

  test('list items carry the markets the creator shows, as single reads do', async () => {
    for (const creator of [site, wallet]) {
      for (const item of await getJson<EventItem[]>(server, `/events?creator=${creator}`)) {
        assert.deepEqual(item.markets, (await getJson<FullEvent>(server, `/events/${item.id}?creator=${creator}`)).markets, `${creator}: ${item.slug}`);
      }
    }
    const open = (await getJson<EventItem[]>(server, `/events?slug=open-match&creator=${site}`))[0];
    assert.deepEqual(slugsOf(open?.markets ?? []), ['open-home']);
  });

  test('unknown ids and slugs are 404 with the exact not-found bodies', async () => {
    await expectNotFound(server, '/events/999', 'id not found');
    await expectNotFound(server, '/events/0', 'id not found');
    await expectNotFound(server, '/events/slug/no-such-event', 'slug not found');
    await expectNotFound(server, '/events/slug/OPEN-MATCH', 'slug not found');
    await expectBadRequest(server, '/events/slug/%E0%A4%A', 'malformed path parameter: slug');
  });

  test('an id beyond the stored key range names no event (it must not wrap onto another)', async () => {
    // 2^32 + 1 would alias event 1 if ids were truncated to 32 bits on the way to the store.
    await expectNotFound(server, `/events/${2 ** 32 + Number(idOf(0))}`, 'id not found');
    await expectNotFound(server, `/events/${2 ** 33 + Number(idOf(1))}`, 'id not found');
    assert.deepEqual(await getJson(server, `/events?id=${2 ** 32 + Number(idOf(0))}`), []);
    assert.deepEqual(await getJson(server, `/events?tag_id=${2 ** 32 + Number(created[0]?.tags[0]?.id)}`), []);
  });

  test('a path id that is not a non-negative integer is a 400', async () => {
    for (const value of ['abc', '-1', '1.5', '0x10', '99999999999999999']) await expectBadRequest(server, `/events/${value}`, 'id must be an integer >= 0');
  });

  test('the boolean filters keep exactly the events whose flag matches', async () => {
    assert.deepEqual(await listIds('/events?active=true'), ids(0, 1, 2));
    assert.deepEqual(await listIds('/events?active=false'), ids(3, 4));
    assert.deepEqual(await listIds('/events?closed=1'), ids(1, 4));
    assert.deepEqual(await listIds('/events?closed=0'), ids(0, 2, 3));
    assert.deepEqual(await listIds('/events?archived=true'), ids(2, 4));
    assert.deepEqual(await listIds('/events?archived=false'), ids(0, 1, 3));
    assert.deepEqual(await listIds('/events?active=true&closed=false&archived=false'), ids(0));
    assert.deepEqual(await listIds('/events?active=false&closed=true&archived=true'), ids(4));
  });

  test('a boolean filter other than true, false, 1 or 0 is a 400', async () => {
    for (const name of ['active', 'closed', 'archived']) {
      for (const value of ['yes', 'no', '2', '']) await expectBadRequest(server, `/events?${name}=${value}`, `${name} must be true or false`);
    }
  });

  test('tag, tag_slug, tag_id, series_slug, slug and id select events, and combine as an intersection', async () => {
    const soccerId = created[0]?.tags[0]?.id ?? assert.fail('soccer tag missing');
    assert.deepEqual(await listIds('/events?tag=soccer'), ids(0, 1));
    assert.deepEqual(await listIds('/events?tag_slug=soccer'), ids(0, 1));
    assert.deepEqual(await listIds(`/events?tag_id=${soccerId}`), ids(0, 1));
    assert.deepEqual(await listIds('/events?tag_slug=tennis'), ids(2, 3));
    assert.deepEqual(await listIds('/events?tag_slug=finals'), ids(1));
    assert.deepEqual(await listIds('/events?series_slug=league'), ids(0, 2));
    assert.deepEqual(await listIds('/events?slug=open-match,inactive-match'), ids(0, 3));
    assert.deepEqual(await listIds('/events?slug=open-match&slug=mixed-match'), ids(0, 4));
    assert.deepEqual(await listIds(`/events?id=${idOf(1)},${idOf(2)}`), ids(1, 2));
    assert.deepEqual(await listIds('/events?tag_slug=soccer&series_slug=league'), ids(0));
    assert.deepEqual(await listIds('/events?tag_slug=tennis&archived=false'), ids(3));
    assert.deepEqual(await listIds(`/events?tag_id=${soccerId}&slug=closed-match,archived-match`), ids(1));
  });

  test('tag and tag_slug given together combine with AND like every other filter', async () => {
    const soccerId = created[0]?.tags[0]?.id ?? assert.fail('soccer tag missing');
    assert.deepEqual(await listIds('/events?tag=soccer&tag_slug=finals'), ids(1));
    assert.deepEqual(await listIds('/events?tag=finals&tag_slug=soccer'), ids(1));
    assert.deepEqual(await listIds('/events?tag=soccer&tag_slug=soccer'), ids(0, 1));
    assert.deepEqual(await listIds('/events?tag=soccer&tag_slug=tennis'), []);
    assert.deepEqual(await listIds(`/events?tag_id=${soccerId}&tag_slug=tennis`), []);
    assert.deepEqual(await listIds(`/events?tag_id=${soccerId}&tag=finals`), ids(1));
  });

  test('filters naming nothing known give an empty list', async () => {
    for (const path of ['/events?tag=none', '/events?tag_slug=none', '/events?tag_id=999', '/events?series_slug=none', '/events?slug=none', '/events?id=999', '/events?tag_slug=soccer&series_slug=none']) {
      assert.deepEqual(await getJson(server, path), [], path);
    }
  });

  test('tag_id and id must be positive integers', async () => {
    for (const value of ['0', '-3', 'soccer', '2.5']) await expectBadRequest(server, `/events?tag_id=${value}`, 'tag_id must be an integer >= 1');
    for (const value of ['0', 'x', '1,y']) await expectBadRequest(server, `/events?id=${value}`, 'id must be an integer >= 1');
  });

  test('creator scopes the list to events with at least one market on that site or creator', async () => {
    assert.deepEqual(await listIds(`/events?creator=${site}`), ids(0, 1, 4));
    assert.deepEqual(await listIds(`/events?creator=${wallet}`), ids(0, 2));
    assert.deepEqual(await listIds(`/events?creator=${wallet.toUpperCase().replace('0X', '0x')}`), ids(0, 2));
    assert.deepEqual(await listIds(`/events?creator=SPORTS.example`), ids(0, 1, 4));
    assert.deepEqual(await listIds('/events?creator=nobody.example'), []);
    // An empty creator is no scope at all.
    assert.deepEqual(await listIds('/events?creator='), ids(0, 1, 2, 3, 4));
    assert.deepEqual(await listIds(`/events?creator=${site}&closed=false`), ids(0));
    assert.deepEqual(await listIds(`/events?creator=${site}&tag_slug=soccer`), ids(0, 1));
    assert.deepEqual(await listIds(`/events?creator=${wallet}&series_slug=league`), ids(0, 2));
  });

  test('creator scopes single reads to the markets that creator shows', async () => {
    const forSite = await getJson<FullEvent>(server, `/events/${idOf(0)}?creator=${site}`);
    checkFullEvent(forSite, 'scoped event');
    assert.deepEqual(slugsOf(forSite.markets), ['open-home']);
    const forWallet = await getJson<FullEvent>(server, `/events/slug/open-match?creator=${wallet}`);
    assert.deepEqual(slugsOf(forWallet.markets), ['open-away']);
    const mixed = await getJson<FullEvent>(server, `/events/slug/mixed-match?creator=${site}`);
    assert.deepEqual(slugsOf(mixed.markets), ['mixed-red']);
    // The rest of the event is the same as unscoped.
    const { markets: _scoped, ...scopedRest } = forSite;
    const { markets: _all, ...allRest } = await getJson<FullEvent>(server, `/events/${idOf(0)}`);
    assert.deepEqual(scopedRest, allRest);
  });

  test('an event without a market for the creator is not found under that creator', async () => {
    await expectNotFound(server, `/events/${idOf(2)}?creator=${site}`, 'id not found');
    await expectNotFound(server, '/events/slug/archived-match?creator=sports.example', 'slug not found');
    // A market without a creator shows only in unscoped reads.
    await expectNotFound(server, `/events/${idOf(3)}?creator=${site}`, 'id not found');
    await expectNotFound(server, `/events/${idOf(3)}?creator=${wallet}`, 'id not found');
    await getJson(server, `/events/${idOf(3)}`);
  });

  test('creator is at most 128 characters', async () => {
    assert.deepEqual(await getJson(server, `/events?creator=${'c'.repeat(128)}`), []);
    await expectBadRequest(server, `/events?creator=${'c'.repeat(129)}`, 'creator must be at most 128 characters');
    await expectBadRequest(server, `/events/${idOf(0)}?creator=${'c'.repeat(129)}`, 'creator must be at most 128 characters');
    await expectBadRequest(server, `/events/slug/open-match?creator=${'c'.repeat(129)}`, 'creator must be at most 128 characters');
  });
});

describe('GET /events with more events than the largest page', () => {
  let server: CatalogServer;
  before(async () => {
    server = await startImportedCatalog(bulkEvents(501));
  });
  after(() => stopCatalog(server));

  test('limit defaults to 100, reaches 500 at most, and offset finds the rest', async () => {
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events')), idRange(501, 100, -1));
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?limit=500')), idRange(501, 500, -1));
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?limit=500&offset=500')), ['1']);
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?limit=500&offset=1&ascending=true')), idRange(2, 500, 1));
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?offset=100')), idRange(401, 100, -1));
    await expectBadRequest(server, '/events?limit=501', 'limit must be an integer from 1 to 500');
  });

  test('a filter over many candidates pages the same way', async () => {
    const slugs = Array.from({ length: 100 }, (_, index) => `bulk-${index * 5 + 1}`).join(',');
    const page = await getJson<EventItem[]>(server, `/events?slug=${slugs}&order=volume&limit=10&offset=5`);
    assert.deepEqual(idsOf(page), Array.from({ length: 10 }, (_, index) => String(496 - 5 * (5 + index))));
    await expectBadRequest(server, `/events?slug=${slugs},bulk-2`, 'slug accepts at most 100 values');
  });
});

describe(`GET /events on a random catalog agrees with a reference model (seed ${catalogSeed})`, () => {
  const prng = new Prng(catalogSeed);
  const { events, gamma } = randomCatalog(prng, 60);
  let server: CatalogServer;
  before(async () => {
    server = await startImportedCatalog(gamma);
  });
  after(() => stopCatalog(server));

  const columns = ['id', 'title', 'slug', 'startDate', 'endDate', 'creationDate', 'createdAt', 'updatedAt', 'volume', 'volume24hr', 'liquidity', 'openInterest'] as const;
  const shows = (event: ModelEvent, creator: string): boolean => event.markets.some((market) => market.creator === creator.toLowerCase());

  test('300 random queries of filters, creator, order, direction and page match the model', async (t) => {
    let answered = 0;
    for (let round = 0; round < 300; round++) {
      const params: Record<string, string | number | boolean> = {};
      let expected = [...events];
      for (const name of ['active', 'closed', 'archived'] as const) {
        if (!prng.chance(0.3)) continue;
        const value = prng.chance(0.5);
        params[name] = value;
        expected = expected.filter((event) => event[name] === value);
      }
      for (const name of ['tag', 'tag_slug'] as const) {
        if (!prng.chance(0.25)) continue;
        const tag = prng.pick(modelTags);
        params[name] = tag;
        expected = expected.filter((event) => event.tags.includes(tag));
      }
      if (prng.chance(0.2)) {
        const series = prng.pick(modelSeries);
        params['series_slug'] = series;
        expected = expected.filter((event) => event.series === series);
      }
      if (prng.chance(0.3)) {
        const creator = prng.pick([...modelCreators, 'C-ONE', 'nobody']);
        params['creator'] = creator;
        expected = expected.filter((event) => shows(event, creator));
      }
      if (await assertRandomPage(server, prng, '/events', params, expected, columns, { limitMax: 40, offsetMax: 45 }, `seed ${catalogSeed}, round ${round}`)) answered++;
    }
    // The queries must mostly find something, or the agreement would prove little.
    t.diagnostic(`seed ${catalogSeed}: ${answered} of 300 answers held more than one event`);
    assert.ok(answered >= 100, `only ${answered} answers held more than one event`);
  });

  test('every event read under every creator shows exactly that creator’s markets, or is not found', async () => {
    for (const event of events) {
      for (const creator of modelCreators) {
        const marketIds = event.markets.filter((market) => market.creator === creator).map((market) => String(market.id));
        const path = `/events/${event.id}?creator=${creator}`;
        if (marketIds.length === 0) await expectNotFound(server, path, 'id not found');
        else assert.deepEqual(idsOf((await getJson<FullEvent>(server, path)).markets), marketIds, `seed ${catalogSeed}: ${path}`);
      }
      assert.deepEqual(idsOf((await getJson<FullEvent>(server, `/events/slug/${event.slug}`)).markets), event.markets.map((market) => String(market.id)));
    }
  });

  test('series and tags under each creator are those of the events it shows', async () => {
    for (const creator of [...modelCreators, undefined]) {
      const shown = creator === undefined ? events : events.filter((event) => shows(event, creator));
      const scope = creator === undefined ? '' : `?creator=${creator}`;
      const series = await getJson<SeriesWithEvents[]>(server, '/series' + scope);
      const expectedSeries = modelSeries.filter((slug) => shown.some((event) => event.series === slug));
      assert.deepEqual(slugsOf(series), [...expectedSeries].sort((a, b) => events.findIndex((event) => event.series === a) - events.findIndex((event) => event.series === b)), `seed ${catalogSeed}: series ${scope}`);
      for (const entry of series) assert.deepEqual(idsOf(entry.events), shown.filter((event) => event.series === entry.slug).map((event) => String(event.id)), `seed ${catalogSeed}: ${entry.slug} ${scope}`);
      const tags = slugsOf(await getJson<Tag[]>(server, '/tags' + scope));
      const firstUse = (slug: string): number => events.findIndex((event) => event.tags.includes(slug));
      assert.deepEqual(tags, modelTags.filter((slug) => shown.some((event) => event.tags.includes(slug))).sort((a, b) => firstUse(a) - firstUse(b)), `seed ${catalogSeed}: tags ${scope}`);
    }
  });
});

describe('GET /events text ordering and date input', () => {
  let server: CatalogServer;
  before(async () => {
    server = await startCatalog();
    await createEvent(server, eventBody('zebra crossing', { slug: 'zebra' }));
    await createEvent(server, eventBody('Apple orchard', { slug: 'Apple' }));
    await createEvent(server, eventBody('mango grove', { slug: 'mango', startDate: '2030-06-01T12:30:00', endDate: '2031-01-01' }));
  });
  after(() => stopCatalog(server));

  test('title and slug sort without regard to letter case', async () => {
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?order=title&ascending=true')), ['2', '3', '1']);
    assert.deepEqual(idsOf(await getJson<EventItem[]>(server, '/events?order=slug&ascending=true')), ['2', '3', '1']);
  });

  test('a date-time without an offset is UTC and a bare date is UTC midnight', async () => {
    const event = await getJson<FullEvent>(server, '/events/3');
    assert.equal(event.startDate, '2030-06-01T12:30:00.000Z');
    assert.equal(event.endDate, '2031-01-01T00:00:00.000Z');
  });

  test('dates in other shapes are refused', async () => {
    const response = await postEvent(server, eventBody('Loose date', { endDate: 'March 7, 2030' }));
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 'endDate must be an ISO 8601 date-time' });
  });
});

// GET /public-search against the real server: what it matches (event titles, slugs, tickers and
// market questions; tag labels), the ranking (exact, prefix, word prefix, substring; then volume
// or event count; then id; volumes are live, from trades, none here: live.test.ts has the volume
// tie-break), paging by limit_per_type and 1-based page with honest pagination,
// creator scoping, and every parameter's bounds with its exact 400 body.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  bulkEvents,
  checkSearchResult,
  createEvent,
  eventBody,
  expectBadRequest,
  getJson,
  idRange,
  idsOf,
  query,
  slugsOf,
  startCatalog,
  startImportedCatalog,
  stopCatalog,
  type CatalogServer,
  type EventItem,
  type SearchResult,
} from './support.js';

const site = 'search.example';
const wallet = '0x00000000000000000000000000000000000000dd';

const stormTag = { label: 'Storm', slug: 'storm' };
const stormwatchTag = { label: 'Stormwatch', slug: 'stormwatch' };
const weatherStormsTag = { label: 'Weather Storms', slug: 'weather-storms' };
const brainstormTag = { label: 'Brainstorm', slug: 'brainstorm' };
const weatherproofTag = { label: 'Weatherproof', slug: 'weatherproof' };

const one = (question: string, creator?: string) => [{ question, ...(creator === undefined ? {} : { creator }) }];

// For q=storm: exact title (storm), prefixes of title, slug or ticker (stormy, storm-season,
// storm-surge, storm-chasers), word prefixes of a title or a market question (big-storm, quiet),
// and a substring (brainstorming); sunny does not match.
const fixtures = [
  eventBody('Storm', { slug: 'storm', tags: [stormTag], markets: one('Storm: will it happen?', site) }),
  eventBody('Storm season ahead', { slug: 'storm-season', tags: [stormwatchTag], markets: one('Season ahead?', site) }),
  eventBody('Storm surge', { slug: 'storm-surge', markets: one('Surge over two metres?', wallet) }),
  eventBody('Big storm coming', { slug: 'big-storm', tags: [stormTag], markets: one('Coming this week?', wallet) }),
  eventBody('Brainstorming session', { slug: 'brainstorming', tags: [weatherStormsTag], markets: one('Session runs late?', site) }),
  eventBody('Quiet week', {
    slug: 'quiet',
    tags: [weatherStormsTag],
    markets: [
      { question: 'Will a STORM hit?', creator: wallet },
      { question: 'Calm seas?', creator: site },
    ],
  }),
  eventBody('Chasers', { slug: 'storm-chasers', markets: one('Chasers film a tornado?') }),
  eventBody('Ticker only', { slug: 'ticker-only', ticker: 'STORMY', markets: one('Ticker only?', site) }),
  eventBody('Sunny days', { slug: 'sunny', tags: [weatherStormsTag, brainstormTag, weatherproofTag], markets: one('Sunny all week?', site) }),
];

const stormRanking = ['storm', 'storm-season', 'storm-surge', 'storm-chasers', 'ticker-only', 'big-storm', 'quiet', 'brainstorming'];

describe('GET /public-search', () => {
  let server: CatalogServer;
  before(async () => {
    server = await startCatalog();
    for (const body of fixtures) await createEvent(server, body);
  });
  after(() => stopCatalog(server));

  const search = (params: Readonly<Record<string, string | number | boolean>>): Promise<SearchResult> => getJson<SearchResult>(server, '/public-search' + query(params));
  const tagCounts = (result: SearchResult): [string, number][] => result.tags.map((tag) => [tag.slug, tag.event_count]);

  test('the answer has events, tags and pagination, each match with its documented fields', async () => {
    const result = await search({ q: 'storm' });
    checkSearchResult(result, 'search');
    assert.deepEqual(Object.keys(result).sort(), ['events', 'pagination', 'tags']);
    // A match is the event's own id, ticker, slug and title.
    const [item] = await getJson<EventItem[]>(server, '/events?slug=ticker-only');
    assert.deepEqual(
      result.events.find((match) => match.slug === 'ticker-only'),
      { id: item?.id, ticker: 'STORMY', slug: 'ticker-only', title: 'Ticker only' },
    );
  });

  test('events rank exact, then prefix, then word prefix, then substring; ties by volume, then id', async () => {
    const result = await search({ q: 'storm' });
    assert.deepEqual(slugsOf(result.events), stormRanking);
    assert.deepEqual(result.pagination, { hasMore: false, totalResults: 8 });
  });

  test('tags rank the same way, ties by event count, and count their events', async () => {
    assert.deepEqual(tagCounts(await search({ q: 'storm' })), [
      ['storm', 2],
      ['stormwatch', 1],
      ['weather-storms', 3],
      ['brainstorm', 1],
    ]);
    // Prefix ties: the tag with more events first.
    assert.deepEqual(tagCounts(await search({ q: 'weather' })), [
      ['weather-storms', 3],
      ['weatherproof', 1],
    ]);
  });

  test('matching ignores case and surrounding blanks', async () => {
    const expected = await search({ q: 'storm' });
    for (const q of ['STORM', 'StOrM', '  storm  ']) assert.deepEqual(await search({ q }), expected, q);
  });

  test('a market question matches its event; an event text matches by title, slug or ticker', async () => {
    assert.deepEqual(slugsOf((await search({ q: 'calm seas' })).events), ['quiet']);
    assert.deepEqual(slugsOf((await search({ q: 'storm-chasers' })).events), ['storm-chasers']);
    assert.deepEqual(slugsOf((await search({ q: 'stormy' })).events), ['ticker-only']);
    assert.deepEqual(slugsOf((await search({ q: 'tornado' })).events), ['storm-chasers']);
    assert.deepEqual(await search({ q: 'no such words' }), { events: [], tags: [], pagination: { hasMore: false, totalResults: 0 } });
  });

  test('pages of limit_per_type concatenate to the full ranking, with honest hasMore and totalResults', async () => {
    const pages = [1, 2, 3, 4].map((page) => search({ q: 'storm', limit_per_type: 3, page }));
    const [first, second, third, fourth] = await Promise.all(pages);
    assert.deepEqual(slugsOf(first?.events ?? []), stormRanking.slice(0, 3));
    assert.deepEqual(slugsOf(first?.tags ?? []), ['storm', 'stormwatch', 'weather-storms']);
    assert.deepEqual(first?.pagination, { hasMore: true, totalResults: 8 });
    assert.deepEqual(slugsOf(second?.events ?? []), stormRanking.slice(3, 6));
    assert.deepEqual(slugsOf(second?.tags ?? []), ['brainstorm']);
    assert.deepEqual(second?.pagination, { hasMore: true, totalResults: 8 });
    assert.deepEqual(slugsOf(third?.events ?? []), stormRanking.slice(6));
    assert.deepEqual(third?.tags, []);
    assert.deepEqual(third?.pagination, { hasMore: false, totalResults: 8 });
    assert.deepEqual(fourth, { events: [], tags: [], pagination: { hasMore: false, totalResults: 8 } });
  });

  test('hasMore turns false exactly when the last page holds the last match', async () => {
    assert.deepEqual((await search({ q: 'storm', limit_per_type: 8 })).pagination, { hasMore: false, totalResults: 8 });
    assert.deepEqual((await search({ q: 'storm', limit_per_type: 7 })).pagination, { hasMore: true, totalResults: 8 });
    assert.deepEqual((await search({ q: 'storm', limit_per_type: 4, page: 2 })).pagination, { hasMore: false, totalResults: 8 });
    // More tag matches than fit a page also mean there is more to fetch.
    assert.deepEqual((await search({ q: 'weather', limit_per_type: 1 })).pagination, { hasMore: true, totalResults: 0 });
    assert.deepEqual((await search({ q: 'weather', limit_per_type: 1, search_tags: false })).pagination, { hasMore: false, totalResults: 0 });
  });

  test('limit_per_type is accepted from 1 to 500 and defaults to 25', async () => {
    assert.equal((await search({ q: 'storm', limit_per_type: 1 })).events.length, 1);
    assert.equal((await search({ q: 'storm', limit_per_type: 500 })).events.length, 8);
    assert.deepEqual(await search({ q: 'storm', limit_per_type: 25, page: 1 }), await search({ q: 'storm' }));
    for (const value of ['0', '501', '-1', '2.5', 'all', '']) {
      await expectBadRequest(server, `/public-search?q=storm&limit_per_type=${value}`, 'limit_per_type must be an integer from 1 to 500');
    }
  });

  test('page is 1-based: 1 is the first page, 0 and below or non-integers are a 400', async () => {
    assert.deepEqual(await search({ q: 'storm', page: 1 }), await search({ q: 'storm' }));
    for (const value of ['0', '-1', 'one', '1.0', '']) await expectBadRequest(server, `/public-search?q=storm&page=${value}`, 'page must be an integer >= 1');
  });

  test('search_tags=false leaves tags out; search_profiles is accepted and returns no profiles', async () => {
    const withTags = await search({ q: 'storm' });
    const withoutTags = await search({ q: 'storm', search_tags: false });
    assert.deepEqual(withoutTags, { ...withTags, tags: [] });
    assert.deepEqual(await search({ q: 'storm', search_tags: 0 }), withoutTags);
    for (const value of [true, false, 1, 0, 'TRUE']) {
      const result = await search({ q: 'storm', search_profiles: value });
      checkSearchResult(result, 'search');
      assert.deepEqual(result, withTags);
    }
    await expectBadRequest(server, '/public-search?q=storm&search_tags=no', 'search_tags must be true or false');
    await expectBadRequest(server, '/public-search?q=storm&search_profiles=maybe', 'search_profiles must be true or false');
  });

  test('a missing, empty or blank q is a 400 "q is required"', async () => {
    for (const path of ['/public-search', '/public-search?q=', '/public-search?q=%20%20', '/public-search?limit_per_type=5', '/public-search?Q=storm']) {
      await expectBadRequest(server, path, 'q is required');
    }
  });

  test('q is a single value of at most 256 characters', async () => {
    await expectBadRequest(server, '/public-search?q=storm&q=surge', 'duplicate parameter: q');
    await expectBadRequest(server, `/public-search?q=${'s'.repeat(257)}`, 'q must be at most 256 characters');
    assert.deepEqual((await search({ q: 's'.repeat(256) })).events, []);
  });

  test('creator scopes events to those with a market there, matching only that creator’s questions', async () => {
    const forSite = await search({ q: 'storm', creator: site });
    assert.deepEqual(slugsOf(forSite.events), ['storm', 'storm-season', 'ticker-only', 'brainstorming']);
    assert.deepEqual(forSite.pagination, { hasMore: false, totalResults: 4 });
    // "quiet" shows for the site (its calm-seas market), but its storm question is the wallet's.
    assert.deepEqual(slugsOf((await search({ q: 'storm', creator: wallet.toUpperCase().replace('0X', '0x') })).events), ['storm-surge', 'big-storm', 'quiet']);
    assert.deepEqual(slugsOf((await search({ q: 'calm seas', creator: site })).events), ['quiet']);
    assert.deepEqual((await search({ q: 'calm seas', creator: wallet })).events, []);
    assert.deepEqual(await search({ q: 'storm', creator: 'nobody.example' }), { events: [], tags: [], pagination: { hasMore: false, totalResults: 0 } });
    await expectBadRequest(server, `/public-search?q=storm&creator=${'c'.repeat(129)}`, 'creator must be at most 128 characters');
  });

  test('creator counts only the events it shows and drops tags with none', async () => {
    assert.deepEqual(tagCounts(await search({ q: 'storm', creator: site })), [
      ['storm', 1],
      ['stormwatch', 1],
      ['weather-storms', 3],
      ['brainstorm', 1],
    ]);
    assert.deepEqual(tagCounts(await search({ q: 'storm', creator: wallet })), [
      ['storm', 1],
      ['weather-storms', 1],
    ]);
  });

  // Runs last in this block: it adds an event to the fixture the tests above count on.
  test('an occurrence that starts a word ranks as a word prefix even after one inside a word', async () => {
    await createEvent(server, eventBody('Late brainstorm before the storm', { slug: 'late-brainstorm', tags: [{ label: 'Brainstorm and storm', slug: 'brainstorm-and-storm' }] }));
    const result = await search({ q: 'storm' });
    assert.deepEqual(slugsOf(result.events), [...stormRanking.slice(0, 7), 'late-brainstorm', ...stormRanking.slice(7)]);
    assert.deepEqual(tagCounts(result), [
      ['storm', 2],
      ['stormwatch', 1],
      ['weather-storms', 3],
      ['brainstorm-and-storm', 1],
      ['brainstorm', 1],
    ]);
  });
});

describe('GET /public-search with more matches than the largest page', () => {
  let server: CatalogServer;
  before(async () => {
    server = await startImportedCatalog(bulkEvents(501));
  });
  after(() => stopCatalog(server));

  const search = (path: string): Promise<SearchResult> => getJson<SearchResult>(server, '/public-search?q=bulk' + path);

  test('limit_per_type defaults to 25 for events and tags alike', async () => {
    const result = await search('');
    // Equal ranks: events by volume (none traded), tags by event count, then id.
    assert.deepEqual(idsOf(result.events), idRange(1, 25, 1));
    assert.deepEqual(idsOf(result.tags), idRange(1, 25, 1));
    assert.deepEqual(result.pagination, { hasMore: true, totalResults: 501 });
  });

  test('limit_per_type=500 with page 2 reaches the last match of each type', async () => {
    const first = await search('&limit_per_type=500');
    assert.deepEqual(idsOf(first.events), idRange(1, 500, 1));
    assert.deepEqual(idsOf(first.tags), idRange(1, 500, 1));
    assert.deepEqual(first.pagination, { hasMore: true, totalResults: 501 });
    const second = await search('&limit_per_type=500&page=2');
    assert.deepEqual(idsOf(second.events), ['501']);
    assert.deepEqual(idsOf(second.tags), ['501']);
    assert.deepEqual(second.pagination, { hasMore: false, totalResults: 501 });
    await expectBadRequest(server, '/public-search?q=bulk&limit_per_type=501', 'limit_per_type must be an integer from 1 to 500');
  });
});

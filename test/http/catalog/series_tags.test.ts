// GET /series and GET /tags against the real server: shapes, membership, reuse of series and
// tags by slug on create, creator scoping, the slug filter, and the limit/offset bounds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  bulkEvents,
  checkList,
  checkSeriesWithEvents,
  checkTag,
  createEvent,
  eventBody,
  expectBadRequest,
  getJson,
  idRange,
  idsOf,
  slugsOf,
  startCatalog,
  startImportedCatalog,
  stopCatalog,
  type CatalogServer,
  type EventSummary,
  type FullEvent,
  type SeriesWithEvents,
  type Tag,
} from './support.js';

const site = 'markets.example';
const wallet = '0x00000000000000000000000000000000000000cc';

describe('series and tags', () => {
  let server: CatalogServer;
  const created: FullEvent[] = [];
  const slugOf = (index: number): string => created[index]?.slug ?? assert.fail(`fixture ${index} missing`);

  before(async () => {
    server = await startCatalog();
    const daily = { slug: 'daily-btc', title: 'BTC daily', recurrence: 'daily', seriesType: 'single' };
    const weekly = { slug: 'weekly-eth', title: 'ETH weekly', recurrence: 'weekly' };
    const crypto = { label: 'Crypto', slug: 'crypto' };
    const bodies = [
      eventBody('BTC up on day 1', { slug: 'btc-day-1', series: [daily], tags: [crypto, { label: 'Bitcoin', slug: 'bitcoin' }], markets: [{ question: 'BTC up on day 1?', creator: site }] }),
      // The same series and tag slugs with other titles and labels reuse what exists.
      eventBody('BTC up on day 2', { slug: 'btc-day-2', series: [{ slug: 'daily-btc', title: 'Renamed' }], tags: [{ label: 'CRYPTO', slug: 'crypto' }], markets: [{ question: 'BTC up on day 2?', creator: wallet }] }),
      eventBody('ETH up in week 1', { slug: 'eth-week-1', series: [weekly], tags: [crypto, { label: 'Ethereum', slug: 'ethereum' }], markets: [{ question: 'ETH up in week 1?' }] }),
      eventBody('Macro outlook', { slug: 'macro-outlook', tags: [{ label: 'Macro Economy' }], markets: [{ question: 'Rates down?', creator: site }] }),
      eventBody('Both coins up', { slug: 'both-up', series: [daily, weekly], tags: [{ label: 'Ethereum', slug: 'ethereum' }], markets: [{ question: 'Both up?', creator: wallet }] }),
    ];
    for (const body of bodies) created.push(await createEvent(server, body));
  });
  after(() => stopCatalog(server));

  const seriesEvents = (list: readonly SeriesWithEvents[]): Record<string, string[]> =>
    Object.fromEntries(list.map((series) => [series.slug, slugsOf(series.events)]));

  test('the series list carries every Series field with its type, and its events as summaries', async () => {
    const list = await getJson<SeriesWithEvents[]>(server, '/series');
    checkList(checkSeriesWithEvents)(list, 'series');
    assert.deepEqual(seriesEvents(list), { 'daily-btc': [slugOf(0), slugOf(1), slugOf(4)], 'weekly-eth': [slugOf(2), slugOf(4)] });
    const [daily, weekly] = list;
    assert.deepEqual(
      [daily, weekly].map((series) => series && { title: series.title, ticker: series.ticker, recurrence: series.recurrence, seriesType: series.seriesType, active: series.active, closed: series.closed, archived: series.archived }),
      [
        { title: 'BTC daily', ticker: 'daily-btc', recurrence: 'daily', seriesType: 'single', active: true, closed: false, archived: false },
        { title: 'ETH weekly', ticker: 'weekly-eth', recurrence: 'weekly', seriesType: 'single', active: true, closed: false, archived: false },
      ],
    );
  });

  test('an event of a series is embedded as its summary, and an event carries its series without events', async () => {
    const [daily] = await getJson<SeriesWithEvents[]>(server, '/series?slug=daily-btc');
    const event = await getJson<FullEvent>(server, `/events/slug/${slugOf(4)}`);
    const { tags: _tags, markets: _markets, series, eventMetadata: _metadata, ...summary } = event;
    assert.deepEqual(daily?.events.at(-1), summary satisfies EventSummary);
    const list = await getJson<SeriesWithEvents[]>(server, '/series');
    assert.deepEqual(series, list.map(({ events: _events, ...rest }) => rest));
  });

  test('slug selects series; unknown slugs select nothing', async () => {
    assert.deepEqual(slugsOf(await getJson<SeriesWithEvents[]>(server, '/series?slug=weekly-eth')), ['weekly-eth']);
    assert.deepEqual(slugsOf(await getJson<SeriesWithEvents[]>(server, '/series?slug=weekly-eth,daily-btc')), ['daily-btc', 'weekly-eth']);
    assert.deepEqual(slugsOf(await getJson<SeriesWithEvents[]>(server, '/series?slug=nope&slug=weekly-eth')), ['weekly-eth']);
    assert.deepEqual(await getJson(server, '/series?slug=nope'), []);
  });

  test('creator keeps series with an event that creator shows, and only those events', async () => {
    assert.deepEqual(seriesEvents(await getJson<SeriesWithEvents[]>(server, `/series?creator=${site}`)), { 'daily-btc': [slugOf(0)] });
    assert.deepEqual(seriesEvents(await getJson<SeriesWithEvents[]>(server, `/series?creator=${wallet.toUpperCase().replace('0X', '0x')}`)), { 'daily-btc': [slugOf(1), slugOf(4)], 'weekly-eth': [slugOf(4)] });
    assert.deepEqual(await getJson(server, '/series?creator=nobody.example'), []);
    assert.deepEqual(seriesEvents(await getJson<SeriesWithEvents[]>(server, `/series?creator=${wallet}&slug=weekly-eth`)), { 'weekly-eth': [slugOf(4)] });
  });

  test('series limit and offset page the list and are bounded like the other lists', async () => {
    assert.deepEqual(slugsOf(await getJson<SeriesWithEvents[]>(server, '/series?limit=1')), ['daily-btc']);
    assert.deepEqual(slugsOf(await getJson<SeriesWithEvents[]>(server, '/series?limit=1&offset=1')), ['weekly-eth']);
    assert.deepEqual(await getJson(server, '/series?offset=2'), []);
    assert.equal((await getJson<SeriesWithEvents[]>(server, '/series?limit=500&offset=0')).length, 2);
    for (const value of ['0', '501', '-5', 'all']) await expectBadRequest(server, `/series?limit=${value}`, 'limit must be an integer from 1 to 500');
    for (const value of ['-1', 'first']) await expectBadRequest(server, `/series?offset=${value}`, 'offset must be an integer >= 0');
    await expectBadRequest(server, '/series?offset=1&offset=1', 'duplicate parameter: offset');
    await expectBadRequest(server, `/series?creator=${'s'.repeat(129)}`, 'creator must be at most 128 characters');
  });

  test('the tag list carries every Tag field with its type, in id order, reused by slug', async () => {
    const tags = await getJson<Tag[]>(server, '/tags');
    checkList(checkTag)(tags, 'tags');
    assert.deepEqual(
      tags.map(({ label, slug, requiresTranslation }) => ({ label, slug, requiresTranslation })),
      [
        { label: 'Crypto', slug: 'crypto', requiresTranslation: false },
        { label: 'Bitcoin', slug: 'bitcoin', requiresTranslation: false },
        { label: 'Ethereum', slug: 'ethereum', requiresTranslation: false },
        // A tag given without a slug gets one from its label.
        { label: 'Macro Economy', slug: 'macro-economy', requiresTranslation: false },
      ],
    );
    assert.deepEqual(tags.map((tag) => tag.id), ['1', '2', '3', '4']);
    // An event's tags are the tag resources themselves.
    assert.deepEqual(created[1]?.tags, [tags[0]]);
  });

  test('creator keeps tags of at least one event that creator shows', async () => {
    assert.deepEqual(slugsOf(await getJson<Tag[]>(server, `/tags?creator=${site}`)), ['crypto', 'bitcoin', 'macro-economy']);
    assert.deepEqual(slugsOf(await getJson<Tag[]>(server, `/tags?creator=${wallet}`)), ['crypto', 'ethereum']);
    assert.deepEqual(await getJson(server, '/tags?creator=nobody.example'), []);
  });

  test('tag limit and offset page the list and are bounded like the other lists', async () => {
    assert.deepEqual(slugsOf(await getJson<Tag[]>(server, '/tags?limit=2&offset=1')), ['bitcoin', 'ethereum']);
    assert.deepEqual(slugsOf(await getJson<Tag[]>(server, `/tags?limit=1&offset=1&creator=${site}`)), ['bitcoin']);
    assert.equal((await getJson<Tag[]>(server, '/tags?limit=500')).length, 4);
    assert.deepEqual(await getJson(server, '/tags?offset=4'), []);
    await expectBadRequest(server, '/tags?limit=0', 'limit must be an integer from 1 to 500');
    await expectBadRequest(server, '/tags?limit=501', 'limit must be an integer from 1 to 500');
    await expectBadRequest(server, '/tags?offset=-1', 'offset must be an integer >= 0');
    await expectBadRequest(server, '/tags?limit=1&limit=2', 'duplicate parameter: limit');
  });
});

describe('series and tags beyond the largest page', () => {
  let server: CatalogServer;
  before(async () => {
    server = await startImportedCatalog(bulkEvents(501));
  });
  after(() => stopCatalog(server));

  test('the series list defaults to 100, reaches 500 at most, and offset finds the rest', async () => {
    assert.deepEqual(idsOf(await getJson<SeriesWithEvents[]>(server, '/series')), idRange(1, 100, 1));
    assert.deepEqual(idsOf(await getJson<SeriesWithEvents[]>(server, '/series?limit=500')), idRange(1, 500, 1));
    assert.deepEqual(idsOf(await getJson<SeriesWithEvents[]>(server, '/series?limit=500&offset=500')), ['501']);
    await expectBadRequest(server, '/series?limit=501', 'limit must be an integer from 1 to 500');
  });

  test('the tag list defaults to 100, reaches 500 at most, and offset finds the rest', async () => {
    assert.deepEqual(idsOf(await getJson<Tag[]>(server, '/tags')), idRange(1, 100, 1));
    assert.deepEqual(idsOf(await getJson<Tag[]>(server, '/tags?limit=500')), idRange(1, 500, 1));
    assert.deepEqual(idsOf(await getJson<Tag[]>(server, '/tags?limit=500&offset=500')), ['501']);
    await expectBadRequest(server, '/tags?limit=501', 'limit must be an integer from 1 to 500');
  });
});

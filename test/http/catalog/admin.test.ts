// POST /admin/events against the real server: the bearer token, what the server assigns (numeric
// ids, slugs, condition and question ids, outcome token ids), defaults, reuse of tags and series,
// every validation error with the field path named, and that a refused body writes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../../support/server.js';
import {
  checkFullEvent,
  createEvent,
  eventBody,
  getJson,
  pairOf,
  postEvent,
  slugsOf,
  startCatalog,
  stopCatalog,
  type CatalogServer,
  type EventItem,
  type FullEvent,
  type Market,
  type Tag,
} from './support.js';

const hex32 = /^0x[0-9a-f]{64}$/;
const uint256Decimal = /^[1-9]\d{0,77}$/;

describe('POST /admin/events', () => {
  let server: CatalogServer;
  before(async () => {
    server = await startCatalog();
  });
  after(() => stopCatalog(server));

  const eventCount = async (): Promise<number> => (await getJson<EventItem[]>(server, '/events?limit=500')).length;

  async function expectRefused(body: unknown, error: string): Promise<void> {
    const response = await postEvent(server, body);
    assert.equal(response.status, 400, `${JSON.stringify(body).slice(0, 200)} answered ${response.status}: ${response.text}`);
    assert.deepEqual(response.body, { error });
  }

  test('a request without the bearer admin token is 401 and writes nothing', async () => {
    const before = await eventCount();
    for (const token of [null, 'wrong', 'catalog-suite-admin-x', 'CATALOG-SUITE-ADMIN']) {
      const response = await postEvent(server, eventBody('Unauthorized'), token);
      assert.equal(response.status, 401);
      assert.deepEqual(response.body, { error: 'Unauthorized/Invalid api key' });
    }
    const lowerScheme = await request(server.clob + '/admin/events', { method: 'POST', headers: { authorization: 'bearer catalog-suite-admin' }, body: JSON.stringify(eventBody('Unauthorized')) });
    assert.equal(lowerScheme.status, 401);
    assert.equal(await eventCount(), before);
  });

  test('admin routes live on the CLOB listener only', async () => {
    const response = await request(server.catalog + '/admin/events', { method: 'POST', body: JSON.stringify(eventBody('Wrong listener')) });
    assert.equal(response.status, 404);
    assert.deepEqual(response.body, { error: 'not found' });
  });

  test('a minimal body creates an event with server-assigned ids, slugs, condition, question and token ids', async () => {
    const response = await postEvent(server, { title: 'Will the bridge open in 2030?', endDate: '2030-06-30T00:00:00Z', markets: [{ question: 'Bridge opens by June?' }, { question: 'Bridge opens by December?' }] });
    assert.equal(response.status, 201);
    const event = response.body as FullEvent;
    checkFullEvent(event, 'created');
    assert.match(event.id, /^[1-9]\d*$/);
    assert.equal(event.slug, 'will-the-bridge-open-in-2030');
    assert.equal(event.ticker, event.slug);
    assert.equal(event.endDate, '2030-06-30T00:00:00.000Z');
    assert.deepEqual([event.active, event.closed, event.archived], [true, false, false]);
    // Dates not given default to the creation time.
    assert.equal(event.startDate, event.createdAt);
    assert.equal(event.creationDate, event.createdAt);
    assert.equal(event.updatedAt, event.createdAt);
    assert.ok(Math.abs(Date.parse(event.createdAt) - Date.now()) < 60_000);
    assert.deepEqual(event.tags, []);
    assert.deepEqual(event.series, []);
    assert.deepEqual(event.eventMetadata, {});
    assert.deepEqual(slugsOf(event.markets), ['bridge-opens-by-june', 'bridge-opens-by-december']);
    for (const market of event.markets) {
      assert.match(market.id, /^[1-9]\d*$/);
      assert.match(market.conditionId, hex32);
      assert.match(market.questionID, hex32);
      const tokens = pairOf(market.clobTokenIds, 'clobTokenIds');
      for (const token of tokens) assert.match(token, uint256Decimal);
      assert.deepEqual(pairOf(market.outcomes, 'outcomes'), ['Yes', 'No']);
      assert.deepEqual([market.orderPriceMinTickSize, market.orderMinSize, market.negRisk, market.takerBaseFee, market.makerBaseFee], [0.01, 5, false, 0, 0]);
      assert.deepEqual([market.active, market.closed, market.archived], [true, false, false]);
      // A market's dates default to its event's.
      assert.deepEqual([market.startDate, market.endDate], [event.startDate, event.endDate]);
    }
    const [first, second] = event.markets;
    assert.notEqual(first?.conditionId, second?.conditionId);
    assert.notEqual(first?.clobTokenIds, second?.clobTokenIds);
    // The answer is the event as the catalog now serves it.
    assert.deepEqual(await getJson(server, `/events/${event.id}`), event);
  });

  test('ids are numeric and increase; ids, condition ids and token ids in the body are ignored', async () => {
    const first = await createEvent(server, eventBody('Counting one'));
    const second = await createEvent(
      server,
      eventBody('Counting two', {
        id: '777',
        markets: [{ id: '888', question: 'Counting two?', conditionId: `0x${'ab'.repeat(32)}`, questionID: `0x${'cd'.repeat(32)}`, clobTokenIds: JSON.stringify(['1', '2']) }],
      }),
    );
    assert.equal(Number(second.id), Number(first.id) + 1);
    const [firstMarket] = first.markets;
    const [secondMarket] = second.markets;
    assert.equal(Number(secondMarket?.id), Number(firstMarket?.id) + 1);
    assert.notEqual(secondMarket?.conditionId, `0x${'ab'.repeat(32)}`);
    assert.notEqual(secondMarket?.questionID, `0x${'cd'.repeat(32)}`);
    assert.notDeepEqual(pairOf(secondMarket?.clobTokenIds ?? '', 'clobTokenIds'), ['1', '2']);
  });

  test('everything the body gives is kept: texts, flags, dates, amounts, market settings, creator; Gamma\'s live statistics are not', async () => {
    const event = await createEvent(server, {
      title: 'Élection présidentielle 2032',
      ticker: 'FR-2032',
      description: 'Who wins the French presidential election?',
      startDate: '2031-01-01T00:00:00Z',
      endDate: '2032-05-10T18:00:00+02:00',
      createdAt: '2025-02-03T04:05:06.789Z',
      updatedAt: '2025-03-04T05:06:07Z',
      active: false,
      closed: true,
      archived: true,
      featured: true,
      volume: '1234.5',
      liquidity: 99,
      openInterest: '77.5',
      eventMetadata: { context: 'two rounds', rounds: [1, 2] },
      markets: [
        {
          question: 'Will the incumbent party win?',
          slug: 'incumbent-wins-2032',
          description: 'Resolves on the official second-round result.',
          outcomes: ['Oui', 'Non'],
          orderPriceMinTickSize: '0.0025',
          orderMinSize: 0.01,
          negRisk: true,
          creator: '  Site.Example  ',
          takerBaseFee: 1000,
          makerBaseFee: 0,
          groupItemTitle: 'Incumbent',
          active: false,
          closed: true,
          archived: true,
          volume: 12.25,
          liquidity: '3',
        },
      ],
    });
    assert.equal(event.slug, 'election-presidentielle-2032');
    assert.equal(event.ticker, 'FR-2032');
    assert.equal(event.description, 'Who wins the French presidential election?');
    assert.deepEqual([event.startDate, event.endDate, event.createdAt, event.updatedAt], ['2031-01-01T00:00:00.000Z', '2032-05-10T16:00:00.000Z', '2025-02-03T04:05:06.789Z', '2025-03-04T05:06:07.000Z']);
    assert.deepEqual([event.active, event.closed, event.archived], [false, true, true]);
    // Volume and liquidity are computed from clobd's own trades and books (none yet), not kept.
    assert.deepEqual([event.volume, event.volume24hr, event.liquidity, event.openInterest], [0, 0, 0, 77.5]);
    assert.deepEqual(event.eventMetadata, { context: 'two rounds', rounds: [1, 2] });
    const market = event.markets[0] ?? assert.fail('market missing');
    assert.equal(market.slug, 'incumbent-wins-2032');
    assert.equal(market.description, 'Resolves on the official second-round result.');
    assert.equal(market.outcomes, '["Oui","Non"]');
    assert.deepEqual([market.orderPriceMinTickSize, market.orderMinSize, market.negRisk, market.takerBaseFee, market.makerBaseFee, market.groupItemTitle], [0.0025, 0.01, true, 1000, 0, 'Incumbent']);
    assert.deepEqual([market.active, market.closed, market.archived, market.volumeNum, market.liquidityNum], [false, true, true, 0, 0]);
    // The creator is trimmed and compared without case.
    assert.deepEqual(slugsOf(await getJson<Market[]>(server, '/markets?creator=site.example')), ['incumbent-wins-2032']);
    assert.deepEqual(slugsOf(await getJson<Market[]>(server, '/markets?creator=SITE.EXAMPLE')), ['incumbent-wins-2032']);
  });

  test('an explicit slug is kept as given and found through its percent-encoded path', async () => {
    const event = await createEvent(server, eventBody('Café opening', { slug: 'café-opening', markets: [{ question: 'Opens on time?', slug: 'café-on-time' }] }));
    assert.equal(event.slug, 'café-opening');
    assert.equal((await getJson<FullEvent>(server, `/events/slug/${encodeURIComponent('café-opening')}`)).id, event.id);
    assert.equal((await getJson<Market>(server, `/markets/slug/${encodeURIComponent('café-on-time')}`)).id, event.markets[0]?.id);
  });

  test('a generated slug that is taken gets the first free numeric suffix; an empty one falls back to the id', async () => {
    const first = await createEvent(server, eventBody('Same title', { markets: [{ question: 'Same question?' }] }));
    const second = await createEvent(server, eventBody('Same title', { markets: [{ question: 'Same question?' }, { question: 'Same question?' }] }));
    const third = await createEvent(server, eventBody('Same title', { markets: [{ question: '???' }] }));
    assert.deepEqual([first.slug, second.slug, third.slug], ['same-title', 'same-title-2', 'same-title-3']);
    assert.deepEqual(slugsOf(first.markets), ['same-question']);
    assert.deepEqual(slugsOf(second.markets), ['same-question-2', 'same-question-3']);
    assert.deepEqual(slugsOf(third.markets), [`market-${third.markets[0]?.id}`]);
    const symbols = await createEvent(server, eventBody('!!!'));
    assert.equal(symbols.slug, `event-${symbols.id}`);
    assert.equal((await getJson<FullEvent>(server, `/events/slug/${symbols.slug}`)).id, symbols.id);
  });

  test('tags and series are created when new and reused by slug', async () => {
    const first = await createEvent(server, eventBody('Tagged one', { tags: [{ label: 'Transport', slug: 'transport' }, { label: 'Big Projects' }], series: [{ slug: 'infra', title: 'Infrastructure', recurrence: 'yearly' }] }));
    const second = await createEvent(server, eventBody('Tagged two', { tags: [{ label: 'Other label', slug: 'transport' }], series: [{ slug: 'infra', title: 'Other title' }] }));
    assert.deepEqual(first.tags.map(({ label, slug }) => ({ label, slug })), [
      { label: 'Transport', slug: 'transport' },
      { label: 'Big Projects', slug: 'big-projects' },
    ]);
    assert.deepEqual(second.tags, [first.tags[0]]);
    assert.deepEqual(second.series, first.series);
    assert.deepEqual(first.series.map(({ slug, title, ticker, recurrence, seriesType }) => ({ slug, title, ticker, recurrence, seriesType })), [{ slug: 'infra', title: 'Infrastructure', ticker: 'infra', recurrence: 'yearly', seriesType: 'single' }]);
  });

  test('an explicit slug that is taken is a 400, and the refused body writes nothing at all', async () => {
    const taken = await createEvent(server, eventBody('Slug owner', { slug: 'slug-owner', markets: [{ question: 'Owner market?', slug: 'owner-market' }] }));
    const tagsBefore = await getJson<Tag[]>(server, '/tags?limit=500');
    const countBefore = await eventCount();
    await expectRefused(eventBody('Slug thief', { slug: 'slug-owner', tags: [{ label: 'Ghost', slug: 'ghost' }] }), 'event slug already exists: slug-owner');
    await expectRefused(eventBody('Market slug thief', { tags: [{ label: 'Ghost', slug: 'ghost' }], series: [{ slug: 'ghost-series' }], markets: [{ question: 'Fine?' }, { question: 'Thief?', slug: 'owner-market' }] }), 'market slug already exists: owner-market');
    assert.deepEqual(await getJson(server, '/tags?limit=500'), tagsBefore);
    assert.deepEqual(await getJson(server, '/series?slug=ghost-series'), []);
    assert.equal(await eventCount(), countBefore);
    assert.deepEqual(await getJson(server, '/events?slug=slug-thief,market-slug-thief'), []);
    assert.deepEqual(await getJson(server, '/markets?slug=fine'), []);
    // No id was consumed by the refused bodies.
    const next = await createEvent(server, eventBody('After the refusals'));
    assert.equal(Number(next.id), Number(taken.id) + 1);
    assert.equal(Number(next.markets[0]?.id), Number(taken.markets[0]?.id) + 1);
  });

  test('every malformed field is a 400 naming its path, and nothing is written', async () => {
    const countBefore = await eventCount();
    const market = (fields: Readonly<Record<string, unknown>>) => eventBody('Bad market', { markets: [{ question: 'Fine?' }, { question: 'Bad?', ...fields }] });
    const cases: [unknown, string][] = [
      [[], 'body must be an object'],
      ['"text"', 'body must be an object'],
      [{}, 'title is required'],
      [{ title: '   ', endDate: '2030-01-01T00:00:00Z' }, 'title is required'],
      [{ title: 5 }, 'title must be a string'],
      [eventBody('x'.repeat(513)), 'title must be at most 512 characters'],
      [{ title: 'No end' }, 'endDate is required'],
      [eventBody('Bad end', { endDate: 'next tuesday' }), 'endDate must be an ISO 8601 date-time'],
      [eventBody('Bad end', { endDate: 1893456000000 }), 'endDate must be an ISO 8601 date-time'],
      [eventBody('Early end', { endDate: '1969-12-31T23:59:59Z' }), 'endDate must be an ISO 8601 date-time'],
      [eventBody('Bad start', { startDate: '2030-13-01T00:00:00Z' }), 'startDate must be an ISO 8601 date-time'],
      [eventBody('Bad created', { createdAt: 'yesterday' }), 'createdAt must be an ISO 8601 date-time'],
      [eventBody('No markets', { markets: [] }), 'markets must have at least one market'],
      [{ title: 'No markets', endDate: '2030-01-01T00:00:00Z' }, 'markets must have at least one market'],
      [eventBody('Markets not a list', { markets: { question: 'x' } }), 'markets must be an array'],
      [eventBody('Too many markets', { markets: Array.from({ length: 501 }, (_, index) => ({ question: `Q${index}?` })) }), 'markets must have at most 500 items'],
      [eventBody('Market not an object', { markets: [{ question: 'Fine?' }, 'Bad?'] }), 'markets[1] must be an object'],
      [market({ question: undefined }), 'markets[1].question is required'],
      [market({ question: ' ' }), 'markets[1].question is required'],
      [market({ outcomes: '["Yes"]' }), 'markets[1].outcomes must be a JSON array of two non-empty strings (binary markets only)'],
      [market({ outcomes: '["A","B","C"]' }), 'markets[1].outcomes must be a JSON array of two non-empty strings (binary markets only)'],
      [market({ outcomes: '["Yes",""]' }), 'markets[1].outcomes must be a JSON array of two non-empty strings (binary markets only)'],
      [market({ outcomes: '[Yes, No]' }), 'markets[1].outcomes must be a JSON array of two strings'],
      [market({ outcomes: '["Same","Same"]' }), 'markets[1].outcomes must name two different outcomes'],
      [market({ orderPriceMinTickSize: 0.02 }), 'markets[1].orderPriceMinTickSize must be one of 0.1, 0.01, 0.001, 0.0001, 0.005, 0.0025'],
      [market({ orderPriceMinTickSize: 'cheap' }), 'markets[1].orderPriceMinTickSize must be one of 0.1, 0.01, 0.001, 0.0001, 0.005, 0.0025'],
      [market({ orderMinSize: 1.234 }), 'markets[1].orderMinSize must be a positive share count with at most 2 decimals'],
      [market({ orderMinSize: 0 }), 'markets[1].orderMinSize must be a positive share count with at most 2 decimals'],
      [market({ orderMinSize: -5 }), 'markets[1].orderMinSize must be a positive share count with at most 2 decimals'],
      [market({ takerBaseFee: 1001 }), 'markets[1].takerBaseFee must be an integer from 0 to 1000 (basis points)'],
      [market({ makerBaseFee: -1 }), 'markets[1].makerBaseFee must be an integer from 0 to 1000 (basis points)'],
      [market({ makerBaseFee: 2.5 }), 'markets[1].makerBaseFee must be an integer from 0 to 1000 (basis points)'],
      [market({ takerBaseFee: '10' }), 'markets[1].takerBaseFee must be an integer from 0 to 1000 (basis points)'],
      [market({ negRisk: 'yes' }), 'markets[1].negRisk must be a boolean'],
      [market({ closed: 1 }), 'markets[1].closed must be a boolean'],
      [market({ creator: 'c'.repeat(129) }), 'markets[1].creator must be at most 128 characters'],
      [market({ creator: 42 }), 'markets[1].creator must be a string'],
      [market({ slug: 7 }), 'markets[1].slug must be a string'],
      [market({ description: 'd'.repeat(20_001) }), 'markets[1].description must be at most 20000 characters'],
      [eventBody('Bad open interest', { openInterest: 'lots' }), 'openInterest must be a non-negative decimal'],
      [eventBody('Bad flag', { featured: 'true' }), 'featured must be a boolean'],
      [eventBody('Bad description', { description: 'd'.repeat(20_001) }), 'description must be at most 20000 characters'],
      [eventBody('Bad tags', { tags: 'politics' }), 'tags must be an array'],
      [eventBody('Bad tag', { tags: [{ slug: 'no-label' }] }), 'tags[0].label is required'],
      [eventBody('Bad tag', { tags: [{ label: 'Fine' }, 'politics'] }), 'tags[1] must be an object'],
      [eventBody('Slugless tag', { tags: [{ label: '???' }] }), 'tag "???" needs a slug'],
      [eventBody('Too many tags', { tags: Array.from({ length: 33 }, (_, index) => ({ label: `T${index}` })) }), 'tags must have at most 32 items'],
      [eventBody('Bad series', { series: [{ recurrence: 'daily' }] }), 'series[0] needs a slug or a title'],
      [eventBody('Too many series', { series: Array.from({ length: 9 }, (_, index) => ({ slug: `s${index}` })) }), 'series must have at most 8 items'],
      [eventBody('Bad metadata', { eventMetadata: ['a'] }), 'eventMetadata must be an object'],
      [eventBody('Bad metadata', { eventMetadata: 'a' }), 'eventMetadata must be an object'],
      [eventBody('Big metadata', { eventMetadata: { text: 'm'.repeat(16_384) } }), 'eventMetadata must be at most 16384 bytes'],
    ];
    for (const [body, error] of cases) await expectRefused(body, error);
    assert.equal(await eventCount(), countBefore);
  });

  test('values exactly at the limits are accepted', async () => {
    const event = await createEvent(
      server,
      eventBody('t'.repeat(512), {
        description: 'd'.repeat(20_000),
        tags: Array.from({ length: 32 }, (_, index) => ({ label: `Limit tag ${index}` })),
        series: Array.from({ length: 8 }, (_, index) => ({ slug: `limit-series-${index}` })),
        eventMetadata: { text: 'm'.repeat(16_384 - '{"text":""}'.length) },
        markets: [{ question: 'q'.repeat(512), creator: 'c'.repeat(128), takerBaseFee: 1000, makerBaseFee: 0, orderPriceMinTickSize: 0.1, orderMinSize: '1000000' }],
      }),
    );
    assert.equal(event.title.length, 512);
    assert.equal(event.tags.length, 32);
    assert.equal(event.series.length, 8);
    assert.equal(event.markets[0]?.orderMinSize, 1_000_000);
    assert.deepEqual(slugsOf(await getJson<Market[]>(server, `/markets?creator=${'c'.repeat(128)}`)), slugsOf(event.markets));
    const many = await createEvent(server, eventBody('Five hundred markets', { markets: Array.from({ length: 500 }, (_, index) => ({ question: `Bucket ${index}?` })) }));
    assert.equal(many.markets.length, 500);
    assert.equal(new Set(many.markets.map((market) => market.conditionId)).size, 500);
  });
});

test('with no ADMIN_TOKEN configured the admin API answers 403 and the catalog stays empty', async () => {
  const server = await startCatalog({ admin: false });
  try {
    for (const token of [null, 'anything', '']) {
      const response = await postEvent(server, eventBody('Disabled'), token);
      assert.equal(response.status, 403);
      assert.deepEqual(response.body, { error: 'admin API is disabled: set ADMIN_TOKEN to enable it' });
    }
    assert.deepEqual(await getJson(server, '/events'), []);
  } finally {
    await stopCatalog(server);
  }
});

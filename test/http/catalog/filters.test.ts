// Gamma's list filters on GET /markets and GET /events beyond the flags and ids: the date ranges
// (start_date_min/max, end_date_min/max, bounds included, any ISO 8601 form the admin API takes),
// tag_id and related_tags on markets, exclude_tag_id, featured, series_id and title_search on
// events, question_ids on markets, cyom and tag_match, each with its 400 for a bad value; and
// the Gamma filters clobd cannot honour, which are a 400 rather than silently ignored. The amount
// filters (volume and liquidity) are in live.test.ts, with the trades that give them values.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createEvent,
  expectBadRequest,
  getJson,
  idsOf,
  startCatalog,
  stopCatalog,
  type CatalogServer,
  type FullEvent,
  type Market,
} from './support.js';

const utc = (date: string): string => (date.includes('T') ? date : `${date}T00:00:00.000Z`);

describe('Gamma list filters', () => {
  let server: CatalogServer;
  let alpha: FullEvent;
  let beta: FullEvent;
  let gammaRay: FullEvent;
  let red: string;
  let blue: string;
  let seriesOne: string;

  before(async () => {
    server = await startCatalog();
    alpha = await createEvent(server, {
      title: 'Alpha', startDate: '2030-01-01', endDate: '2030-06-01', featured: true,
      tags: [{ label: 'Red', slug: 'red' }], series: [{ title: 'Series one', slug: 's-one' }],
      markets: [
        { question: 'First alpha?', startDate: '2030-01-01', endDate: '2030-03-01' },
        { question: 'Second alpha?', startDate: '2030-02-01', endDate: '2030-06-01' },
      ],
    });
    beta = await createEvent(server, {
      title: 'Beta', startDate: '2030-02-01', endDate: '2030-12-31T12:00:00Z', tags: [{ label: 'Red', slug: 'red' }, { label: 'Blue', slug: 'blue' }],
      markets: [{ question: 'Beta?', startDate: '2030-02-01', endDate: '2030-12-31T12:00:00Z' }],
    });
    gammaRay = await createEvent(server, {
      title: 'Gamma Ray', startDate: '2030-03-01', endDate: '2031-01-01', tags: [{ label: 'Blue', slug: 'blue' }],
      series: [{ title: 'Series two', slug: 's-two' }],
      markets: [{ question: 'Gamma?', startDate: '2030-03-01', endDate: '2031-01-01' }],
    });
    red = alpha.tags[0]!.id;
    blue = gammaRay.tags[0]!.id;
    seriesOne = alpha.series[0]!.id;
  });
  after(() => stopCatalog(server));

  const events = async (filters: string): Promise<string[]> => idsOf(await getJson<FullEvent[]>(server, `/events?ascending=true&${filters}`));
  const markets = async (filters: string): Promise<string[]> => idsOf(await getJson<Market[]>(server, `/markets?ascending=true&${filters}`));
  const marketIds = (...of: FullEvent[]): string[] => of.flatMap((event) => idsOf(event.markets));

  test('the fixture has the dates it was given', () => {
    assert.deepEqual([alpha.startDate, alpha.endDate, beta.endDate, gammaRay.startDate], [utc('2030-01-01'), utc('2030-06-01'), '2030-12-31T12:00:00.000Z', utc('2030-03-01')]);
  });

  test('events: end_date_min/max and start_date_min/max keep the events in range, bounds included', async () => {
    assert.deepEqual(await events('end_date_min=2030-07-01'), [beta.id, gammaRay.id]);
    assert.deepEqual(await events('end_date_max=2030-06-01'), [alpha.id]);
    assert.deepEqual(await events('end_date_min=2030-12-31T12:00:00Z'), [beta.id, gammaRay.id]);
    assert.deepEqual(await events('end_date_min=2030-12-31T12:00:00.001Z'), [gammaRay.id]);
    assert.deepEqual(await events('start_date_min=2030-02-01&start_date_max=2030-02-28'), [beta.id]);
    assert.deepEqual(await events('start_date_max=2029-12-31'), []);
    // An offset is honoured, and a time without one is UTC.
    assert.deepEqual(await events(`end_date_max=${encodeURIComponent('2030-06-01T02:00:00+02:00')}`), [alpha.id]);
    assert.deepEqual(await events('end_date_max=2030-05-31T23:59:59'), []);
    // A range that holds nothing, and ranges combined with other filters.
    assert.deepEqual(await events('end_date_min=2031-01-01&end_date_max=2030-01-01'), []);
    assert.deepEqual(await events(`tag_id=${red}&end_date_min=2030-07-01`), [beta.id]);
  });

  test('markets: the same date filters over the markets’ own dates', async () => {
    const [first, second] = idsOf(alpha.markets) as [string, string];
    const betaMarket = beta.markets[0]!.id;
    const gammaMarket = gammaRay.markets[0]!.id;
    assert.deepEqual(await markets('end_date_max=2030-03-01'), [first]);
    assert.deepEqual(await markets('start_date_min=2030-02-01'), [second, betaMarket, gammaMarket]);
    assert.deepEqual(await markets('end_date_min=2030-06-01&end_date_max=2030-12-31'), [second]);
    assert.deepEqual(await markets('start_date_min=2030-01-01&start_date_max=2030-01-01'), [first]);
    assert.deepEqual(await markets(`id=${first},${gammaMarket}&end_date_min=2030-04-01`), [gammaMarket]);
  });

  test('a date that is not ISO 8601 is a 400 naming the parameter', async () => {
    for (const name of ['end_date_min', 'end_date_max', 'start_date_min', 'start_date_max']) {
      for (const value of ['yesterday', '2030-13-01', '2030-1-1', '1893456000', '']) {
        await expectBadRequest(server, `/events?${name}=${value}`, `${name} must be an ISO 8601 date or date-time`);
        await expectBadRequest(server, `/markets?${name}=${value}`, `${name} must be an ISO 8601 date or date-time`);
      }
      await expectBadRequest(server, `/events?${name}=2030-01-01&${name}=2030-01-02`, `duplicate parameter: ${name}`);
    }
  });

  test('markets: tag_id keeps the markets whose event has the tag; related_tags adds none (clobd keeps no related tags)', async () => {
    assert.deepEqual(await markets(`tag_id=${red}`), marketIds(alpha, beta));
    assert.deepEqual(await markets(`tag_id=${blue}`), marketIds(beta, gammaRay));
    assert.deepEqual(await markets(`tag_id=${blue}&related_tags=true`), marketIds(beta, gammaRay));
    assert.deepEqual(await markets(`tag_id=${blue}&related_tags=false`), marketIds(beta, gammaRay));
    assert.deepEqual(await markets('tag_id=999'), []);
    await expectBadRequest(server, '/markets?tag_id=0', 'tag_id must be an integer >= 1');
    await expectBadRequest(server, '/markets?related_tags=maybe', 'related_tags must be true or false');
  });

  test('events: exclude_tag_id drops the events with any of these tags', async () => {
    assert.deepEqual(await events(`exclude_tag_id=${red}`), [gammaRay.id]);
    assert.deepEqual(await events(`exclude_tag_id=${red},${blue}`), []);
    assert.deepEqual(await events(`exclude_tag_id=${red}&exclude_tag_id=999`), [gammaRay.id]);
    assert.deepEqual(await events(`tag_id=${blue}&exclude_tag_id=${red}`), [gammaRay.id]);
    assert.deepEqual(await events(`tag_id=${blue}&related_tags=true`), [beta.id, gammaRay.id]);
    await expectBadRequest(server, '/events?exclude_tag_id=red', 'exclude_tag_id must be an integer >= 1');
  });

  test('events: featured, series_id and title_search', async () => {
    assert.deepEqual(await events('featured=true'), [alpha.id]);
    assert.deepEqual(await events('featured=false'), [beta.id, gammaRay.id]);
    assert.deepEqual(await events(`series_id=${seriesOne}`), [alpha.id]);
    assert.deepEqual(await events(`series_id=${seriesOne},${gammaRay.series[0]!.id}`), [alpha.id, gammaRay.id]);
    assert.deepEqual(await events('series_id=999'), []);
    assert.deepEqual(await events('title_search=RAY'), [gammaRay.id]);
    assert.deepEqual(await events('title_search=a'), [alpha.id, beta.id, gammaRay.id]);
    assert.deepEqual(await events('title_search=alpha&featured=false'), []);
    await expectBadRequest(server, '/events?featured=yes', 'featured must be true or false');
    await expectBadRequest(server, '/events?series_id=x', 'series_id must be an integer >= 1');
  });

  test('markets: question_ids keeps the markets with these question ids (any case)', async () => {
    const [first, second] = alpha.markets as [Market, Market];
    assert.deepEqual(await markets(`question_ids=${first.questionID}`), [first.id]);
    assert.deepEqual(await markets(`question_ids=${second.questionID.toUpperCase().replace('0X', '0x')},${first.questionID}`), [first.id, second.id]);
    assert.deepEqual(await markets(`question_ids=0x${'0'.repeat(64)}`), []);
  });

  test('cyom and rfq_enabled: no clobd market or event is a create-your-own or RFQ market; tag_match any or all', async () => {
    assert.deepEqual(await markets('cyom=true'), []);
    assert.deepEqual(await markets('cyom=false'), marketIds(alpha, beta, gammaRay));
    assert.deepEqual(await markets('rfq_enabled=true'), []);
    assert.deepEqual(await markets('rfq_enabled=0'), marketIds(alpha, beta, gammaRay));
    assert.deepEqual(await events('cyom=true'), []);
    assert.deepEqual(await events('cyom=false'), [alpha.id, beta.id, gammaRay.id]);
    // One tag_id at a time: any and all select the same.
    assert.deepEqual(await events(`tag_id=${red}&tag_match=all`), [alpha.id, beta.id]);
    assert.deepEqual(await markets(`tag_id=${red}&tag_match=any`), marketIds(alpha, beta));
    await expectBadRequest(server, '/events?tag_match=some', 'tag_match must be one of any, all');
  });

  test('Gamma filters clobd cannot honour are a 400, never silently ignored', async () => {
    for (const name of ['uma_resolution_status', 'game_id', 'sports_market_types', 'market_maker_address', 'decimalized']) {
      await expectBadRequest(server, `/markets?${name}=x`, `${name} is not supported`);
    }
    for (const name of ['live', 'game_id', 'start_time_min', 'start_time_max', 'event_date', 'event_week', 'recurrence', 'created_by', 'parent_event_id', 'partner_slug']) {
      await expectBadRequest(server, `/events?${name}=1`, `${name} is not supported`);
    }
    // Options that only shape Gamma's answer, and names Gamma does not know, are ignored.
    assert.deepEqual(await events('include_chat=true&locale=en&not_a_gamma_name=1'), [alpha.id, beta.id, gammaRay.id]);
  });

  test('order accepts volume24hr on both lists', async () => {
    assert.deepEqual(await events('order=volume24hr'), [alpha.id, beta.id, gammaRay.id]);
    assert.deepEqual(await markets('order=volume24hr'), marketIds(alpha, beta, gammaRay));
  });
});

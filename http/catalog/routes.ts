// The catalog listener's routes ({catalog_url}): Gamma-compatible reads of events, markets,
// series and tags, and search. Every read accepts `creator`, which scopes it to the markets
// available on that site or creator. Responses are cached per request until the next write to
// the catalog or change to a book, trade or the clock's hour (the live fields: live.ts).
import { BYTES32 } from '../auth/eip712.js';
import { parseUnits } from '../decimal.js';
import { badRequest, notFound } from '../errors.js';
import { boolean, integer, integerList, oneOf, oneOfList, string, stringList, type Param, type ParamsOf } from '../params.js';
import { CATALOG_ROWS_CAPS } from '../rate_limit.js';
import { json } from '../respond.js';
import { arrayOf, ok, ref } from '../response_schemas.js';
import { route, type CachePolicy, type Route } from '../router.js';
import { isoMs } from './ingest.js';
import type { EventRecord, MarketRecord } from './model.js';
import { eventOrders, marketOrders, type CatalogQueries, type EventOrder, type MarketOrder, type Range } from './query.js';
import type { CatalogSearch } from './search.js';
import type { CatalogStore } from './store.js';
import { EVENT_LIST_MARKETS_MAX, eventVisible, marketVisible, tagView, type CatalogViews, type Creator } from './views.js';

const listItemsMax = 100;

const creator = string({ maxLength: 128, description: 'Creator wallet address or site id; scopes the read to markets available there.' });
const limit = integer({ min: 1, max: 500, default: 100, description: 'Page size.' });
const offset = integer({ min: 0, default: 0, description: 'Items to skip.' });
const ascending = boolean({ default: false, description: 'Sort ascending (default descending).' });
const stateFilters = {
  active: boolean({ description: 'Only records whose active flag equals this.' }),
  closed: boolean({ description: 'Only records whose closed flag equals this.' }),
  archived: boolean({ description: 'Only records whose archived flag equals this.' }),
};

/** Reads one value of a parameter; twice is a 400. */
function single(values: readonly string[], name: string): string {
  if (values.length > 1) throw badRequest(`duplicate parameter: ${name}`);
  return values[0] ?? '';
}

/** A bound on a date (epoch ms): an ISO 8601 date or date-time, as the admin API reads them (no offset: UTC). */
function dateBound(description: string): Param<number | undefined> {
  return {
    doc: { type: 'string', list: false, required: false, maxLength: 64, description: `${description} ISO 8601 date or date-time (without an offset: UTC); the bound is included.` },
    parse(values, name) {
      if (values === undefined) return undefined;
      const ms = isoMs(single(values, name));
      if (ms === undefined) throw badRequest(`${name} must be an ISO 8601 date or date-time`);
      return ms;
    },
  };
}

/** A bound on an amount (collateral micros): a non-negative decimal of at most 6 decimals. */
function amountBound(description: string): Param<number | undefined> {
  return {
    doc: { type: 'number', list: false, required: false, min: 0, description: `${description} A non-negative decimal, at most 6 decimals; the bound is included.` },
    parse(values, name) {
      if (values === undefined) return undefined;
      const micros = parseUnits(single(values, name), 6);
      if (micros === undefined) throw badRequest(`${name} must be a non-negative decimal with at most 6 decimals`);
      return micros;
    },
  };
}

/** A Gamma filter clobd cannot honour: given, it is a 400 rather than silently ignored. */
function unsupported(what: string): Param<undefined> {
  return {
    doc: { type: 'string', list: false, required: false, description: `Gamma's ${what}; not supported by clobd: any value is a 400.` },
    parse(values, name) {
      if (values !== undefined) throw badRequest(`${name} is not supported`);
      return undefined;
    },
  };
}

const range = (min: number | undefined, max: number | undefined): Range => ({ min, max });

const dateFilters = {
  start_date_min: dateBound('Only records whose startDate is at or after this.'),
  start_date_max: dateBound('Only records whose startDate is at or before this.'),
  end_date_min: dateBound('Only records whose endDate is at or after this.'),
  end_date_max: dateBound('Only records whose endDate is at or before this.'),
};

const tagFilters = {
  related_tags: boolean({ description: 'Accepted with tag_id: clobd keeps no related tags, so it adds no record.' }),
  tag_match: oneOf({ values: ['any', 'all'], description: 'Accepted: tag_id names one tag, so any and all select the same.' }),
  cyom: boolean({ description: 'Create-your-own (CYOM) listings: clobd has none, so true gives an empty list and false changes nothing.' }),
};

function scope(value: string | undefined): Creator {
  const trimmed = value?.trim().toLowerCase();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

export interface CatalogDeps {
  readonly store: CatalogStore;
  readonly queries: CatalogQueries;
  readonly search: CatalogSearch;
  readonly views: CatalogViews;
  /** Answers that show no live field (tags): cached until the next catalog write. */
  readonly cached: CachePolicy;
  /** Answers that show live fields: cached until the next catalog write or change to a book, a trade or the clock's hour. */
  readonly liveCached: CachePolicy;
}

/**
 * The page a list query selects, found once: the router's cost hook finds it to charge its rows
 * (before anything is rendered) and keeps it here for the handler, which gets the same query object.
 */
function pageOnce<Q extends object, R>(find: (query: Q) => R[]): { of: (query: Q) => R[] } {
  const pages = new WeakMap<Q, R[]>();
  return {
    of(query) {
      let page = pages.get(query);
      if (page === undefined) pages.set(query, page = find(query));
      return page;
    },
  };
}

export function catalogRoutes({ store, queries, search, views, cached, liveCached }: CatalogDeps): Route[] {
  const eventQuery = {
    limit,
    offset,
    ...stateFilters,
    id: integerList({ min: 1, maxItems: listItemsMax, description: 'Only these event ids.' }),
    slug: stringList({ maxItems: listItemsMax, description: 'Only events with these slugs.' }),
    tag: string({ description: 'Alias of tag_slug.' }),
    tag_id: integer({ min: 1, description: 'Only events with this tag id.' }),
    tag_slug: string({ description: 'Only events with this tag slug.' }),
    exclude_tag_id: integerList({ min: 1, maxItems: listItemsMax, description: 'Only events with none of these tag ids.' }),
    ...tagFilters,
    series_slug: string({ description: 'Only events of this series.' }),
    series_id: integerList({ min: 1, maxItems: listItemsMax, description: 'Only events of one of these series ids.' }),
    featured: boolean({ description: 'Only events whose featured flag equals this.' }),
    title_search: string({ description: 'Only events whose title holds this text (case-insensitive).' }),
    ...dateFilters,
    volume_min: amountBound("Only events whose volume (their markets' sum) is at least this."),
    volume_max: amountBound("Only events whose volume (their markets' sum) is at most this."),
    liquidity_min: amountBound("Only events whose liquidity (their markets' sum) is at least this."),
    liquidity_max: amountBound("Only events whose liquidity (their markets' sum) is at most this."),
    order: oneOfList({ values: Object.keys(eventOrders) as EventOrder[], maxItems: 3, description: 'Sort columns, comma-separated (default id).' }),
    ascending,
    creator,
    live: unsupported('live (sports) filter'),
    game_id: unsupported('sports game filter'),
    start_time_min: unsupported('game start time filter'),
    start_time_max: unsupported('game start time filter'),
    event_date: unsupported('sports event date filter'),
    event_week: unsupported('sports event week filter'),
    recurrence: unsupported('series recurrence filter'),
    created_by: unsupported('creator account filter (clobd scopes by `creator`)'),
    parent_event_id: unsupported('parent event filter'),
    partner_slug: unsupported('partner filter'),
  };
  const events = pageOnce((query: ParamsOf<typeof eventQuery>): EventRecord[] => queries.events({
    ...query,
    ids: query.id,
    slugs: query.slug,
    tagIds: query.tag_id === undefined ? [] : [query.tag_id],
    tagSlugs: [query.tag, query.tag_slug].filter((slug) => slug !== undefined),
    seriesSlugs: query.series_slug === undefined ? [] : [query.series_slug],
    seriesIds: query.series_id,
    excludeTagIds: query.exclude_tag_id,
    titleSearch: query.title_search?.toLowerCase(),
    startDate: range(query.start_date_min, query.start_date_max),
    endDate: range(query.end_date_min, query.end_date_max),
    volume: range(query.volume_min, query.volume_max),
    liquidity: range(query.liquidity_min, query.liquidity_max),
    creator: scope(query.creator),
  }));

  const marketQuery = {
    limit,
    offset,
    ...stateFilters,
    id: integerList({ min: 1, maxItems: listItemsMax, description: 'Only these market ids.' }),
    slug: stringList({ maxItems: listItemsMax, description: 'Only markets with these slugs.' }),
    condition_ids: stringList({ maxItems: listItemsMax, maxLength: 66, description: 'Only markets with these condition ids.' }),
    clob_token_ids: stringList({ maxItems: listItemsMax, maxLength: 78, description: 'Only markets with these outcome token ids.' }),
    question_ids: stringList({ maxItems: listItemsMax, maxLength: 66, description: 'Only markets with these question ids (any letter case).' }),
    tag_id: integer({ min: 1, description: 'Only markets whose event has this tag id.' }),
    ...tagFilters,
    rfq_enabled: boolean({ description: 'Markets that take requests for quotes: clobd has none, so true gives an empty list and false changes nothing.' }),
    ...dateFilters,
    volume_num_min: amountBound('Only markets whose volume is at least this.'),
    volume_num_max: amountBound('Only markets whose volume is at most this.'),
    liquidity_num_min: amountBound('Only markets whose liquidity is at least this.'),
    liquidity_num_max: amountBound('Only markets whose liquidity is at most this.'),
    order: oneOfList({ values: Object.keys(marketOrders) as MarketOrder[], maxItems: 3, description: 'Sort columns, comma-separated (default id).' }),
    ascending,
    creator,
    uma_resolution_status: unsupported('UMA resolution filter'),
    game_id: unsupported('sports game filter'),
    sports_market_types: unsupported('sports market type filter'),
    market_maker_address: unsupported('market maker (FPMM) filter'),
    decimalized: unsupported('decimalized filter'),
  };
  const markets = pageOnce((query: ParamsOf<typeof marketQuery>): MarketRecord[] => queries.markets({
    ...query,
    ids: query.id,
    slugs: query.slug,
    conditionIds: query.condition_ids,
    tokenIds: query.clob_token_ids,
    questionIds: query.question_ids.map((id) => id.toLowerCase()),
    tagIds: query.tag_id === undefined ? [] : [query.tag_id],
    cyom: query.cyom === true || query.rfq_enabled === true ? true : undefined,
    startDate: range(query.start_date_min, query.start_date_max),
    endDate: range(query.end_date_min, query.end_date_max),
    volume: range(query.volume_num_min, query.volume_num_max),
    liquidity: range(query.liquidity_num_min, query.liquidity_num_max),
    creator: scope(query.creator),
  }));
  /** The markets an events page nests: each event's the scope shows, at most EVENT_LIST_MARKETS_MAX each. */
  const nestedRows = (page: readonly EventRecord[], shownTo: Creator): number => {
    let rows = 0;
    for (const event of page) {
      let nested = 0;
      for (const id of event.marketIds) {
        if (nested === EVENT_LIST_MARKETS_MAX) break;
        const key = views.marketKey(id);
        if (key !== undefined && (shownTo === undefined || key.creator === shownTo)) nested++;
      }
      rows += nested;
    }
    return rows;
  };

  return [
    route({
      method: 'GET',
      path: '/events',
      response: ok(arrayOf(ref('EventListItem'))),
      summary: `List events with their tags and markets (at most ${EVENT_LIST_MARKETS_MAX} each).`,
      limits: ['GET /events', 'catalog listings'],
      cost: { limits: CATALOG_ROWS_CAPS, of: (query) => { const page = events.of(query); return page.length + nestedRows(page, scope(query.creator)); } },
      cached: liveCached,
      query: eventQuery,
      handler: ({ query }) => {
        const shownTo = scope(query.creator);
        return { status: 200, body: `[${events.of(query).map((event) => views.eventListItemText(event, shownTo)).join(',')}]` };
      },
    }),
    route({
      method: 'GET',
      path: '/events/slug/:slug',
      limits: ['catalog items'],
      response: ok(ref('Event')),
      summary: 'One event by slug, with markets, series and metadata.',
      cached: liveCached,
      params: { slug: string({ required: true, description: 'Event slug.' }) },
      query: { creator },
      handler: ({ params, query }) => {
        const event = store.event(store.find('event-slug', params.slug) ?? 0);
        const shownTo = scope(query.creator);
        if (event === undefined || !eventVisible(event, shownTo)) throw notFound('slug not found');
        return json(views.eventFull(event, shownTo));
      },
    }),
    route({
      method: 'GET',
      path: '/events/:id',
      limits: ['catalog items'],
      response: ok(ref('Event')),
      summary: 'One event by numeric id, with markets, series and metadata.',
      cached: liveCached,
      params: { id: integer({ min: 0, required: true, description: 'Numeric event id.' }) },
      query: { creator },
      handler: ({ params, query }) => {
        const event = store.event(params.id);
        const shownTo = scope(query.creator);
        if (event === undefined || !eventVisible(event, shownTo)) throw notFound('id not found');
        return json(views.eventFull(event, shownTo));
      },
    }),
    route({
      method: 'GET',
      path: '/markets',
      response: ok(arrayOf(ref('CatalogMarket'))),
      summary: 'List markets (Gamma style: limit/offset and filters).',
      limits: ['GET /markets (catalog)', 'catalog listings'],
      cost: { limits: CATALOG_ROWS_CAPS, of: (query) => markets.of(query).length },
      cached: liveCached,
      query: marketQuery,
      handler: ({ query }) => ({ status: 200, body: views.marketsText(markets.of(query)) }),
    }),
    route({
      method: 'GET',
      path: '/markets/slug/:slug',
      limits: ['catalog items'],
      response: ok(ref('CatalogMarketWithEvents')),
      summary: 'One market by slug, with its event.',
      cached: liveCached,
      params: { slug: string({ required: true, description: 'Market slug.' }) },
      query: { creator },
      handler: ({ params, query }) => {
        const market = store.market(store.find('market-slug', params.slug) ?? 0);
        const shownTo = scope(query.creator);
        if (market === undefined || !marketVisible(market, shownTo)) throw notFound('slug not found');
        return json(views.marketWithEvents(market, shownTo));
      },
    }),
    route({
      method: 'GET',
      path: '/markets/:id',
      limits: ['catalog items'],
      response: ok(ref('CatalogMarketWithEvents')),
      summary: 'One market by numeric id or condition id, with its event.',
      cached: liveCached,
      params: { id: string({ required: true, maxLength: 66, description: 'Numeric market id or condition id (0x + 64 hex).' }) },
      query: { creator },
      handler: ({ params, query }) => {
        let id: number | undefined;
        if (/^\d{1,16}$/.test(params.id)) id = Number(params.id);
        else if (BYTES32.test(params.id)) id = store.find('condition', params.id.toLowerCase());
        else throw badRequest('id must be a numeric market id or a condition id');
        const market = id === undefined ? undefined : store.market(id);
        const shownTo = scope(query.creator);
        if (market === undefined || !marketVisible(market, shownTo)) throw notFound('id not found');
        return json(views.marketWithEvents(market, shownTo));
      },
    }),
    route({
      method: 'GET',
      path: '/series',
      limits: ['catalog items'],
      response: ok(arrayOf(ref('SeriesWithEvents'))),
      summary: 'List series with their events.',
      cached: liveCached,
      query: { limit, offset, slug: stringList({ maxItems: listItemsMax, description: 'Only series with these slugs.' }), creator },
      handler: ({ query }) => {
        const shownTo = scope(query.creator);
        return json(queries.series(query.slug, shownTo, query).map((series) => views.seriesWithEvents(series, shownTo)));
      },
    }),
    route({
      method: 'GET',
      path: '/tags',
      response: ok(arrayOf(ref('Tag'))),
      summary: 'List tags.',
      limits: ['GET /tags'],
      cached,
      query: { limit, offset, creator },
      handler: ({ query }) => json(queries.tags(scope(query.creator), query).map(tagView)),
    }),
    route({
      method: 'GET',
      path: '/public-search',
      response: ok(ref('SearchResults')),
      summary: 'Search events (titles, tickers, slugs, market questions) and tags.',
      limits: ['GET /public-search'],
      cached: liveCached,
      query: {
        q: string({ required: true, description: 'Search text, case-insensitive.' }),
        limit_per_type: integer({ min: 1, max: 500, default: 25, description: 'Results per type per page.' }),
        page: integer({ min: 1, default: 1, description: '1-based page.' }),
        search_tags: boolean({ default: true, description: 'Include tag matches.' }),
        search_profiles: boolean({ default: false, description: 'Accepted; profile results are never returned.' }),
        creator,
      },
      handler: ({ query }) => {
        if (query.q.trim() === '') throw badRequest('q is required');
        return json(search.search(query.q, { limitPerType: query.limit_per_type, page: query.page, searchTags: query.search_tags, creator: scope(query.creator) }));
      },
    }),
  ];
}


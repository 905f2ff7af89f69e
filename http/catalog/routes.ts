// The catalog listener's routes ({catalog_url}): Gamma-compatible reads of events, markets,
// series and tags, and search. Every read accepts `creator`, which scopes it to the markets
// available on that site or creator. Responses are cached per request until the next write.
import { BYTES32 } from '../auth/eip712.js';
import { badRequest, notFound } from '../errors.js';
import { boolean, integer, integerList, oneOfList, string, stringList } from '../params.js';
import { json } from '../respond.js';
import { arrayOf, ok, ref } from '../response_schemas.js';
import { route, type CachePolicy, type Route } from '../router.js';
import { eventOrders, marketOrders, type CatalogQueries, type EventOrder, type MarketOrder } from './query.js';
import type { CatalogSearch } from './search.js';
import type { CatalogStore } from './store.js';
import { eventFull, eventListItem, eventVisible, marketView, marketVisible, marketWithEvents, seriesWithEvents, tagView, type Creator } from './views.js';

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

function scope(value: string | undefined): Creator {
  const trimmed = value?.trim().toLowerCase();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

export interface CatalogDeps {
  readonly store: CatalogStore;
  readonly queries: CatalogQueries;
  readonly search: CatalogSearch;
  readonly cached: CachePolicy;
}

export function catalogRoutes({ store, queries, search, cached }: CatalogDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/events',
      response: ok(arrayOf(ref('EventListItem'))),
      summary: 'List events with their tags.',
      limits: ['GET /events', 'catalog listings'],
      cached,
      query: {
        limit,
        offset,
        ...stateFilters,
        id: integerList({ min: 1, maxItems: listItemsMax, description: 'Only these event ids.' }),
        slug: stringList({ maxItems: listItemsMax, description: 'Only events with these slugs.' }),
        tag: string({ description: 'Alias of tag_slug.' }),
        tag_id: integer({ min: 1, description: 'Only events with this tag id.' }),
        tag_slug: string({ description: 'Only events with this tag slug.' }),
        series_slug: string({ description: 'Only events of this series.' }),
        order: oneOfList({ values: Object.keys(eventOrders) as EventOrder[], maxItems: 3, description: 'Sort columns, comma-separated (default id).' }),
        ascending,
        creator,
      },
      handler: ({ query }) => {
        const events = queries.events({
          ...query,
          ids: query.id,
          slugs: query.slug,
          tagIds: query.tag_id === undefined ? [] : [query.tag_id],
          tagSlugs: [query.tag, query.tag_slug].filter((slug) => slug !== undefined),
          seriesSlugs: query.series_slug === undefined ? [] : [query.series_slug],
          creator: scope(query.creator),
        });
        return json(events.map((event) => eventListItem(store, event)));
      },
    }),
    route({
      method: 'GET',
      path: '/events/slug/:slug',
      limits: ['catalog items'],
      response: ok(ref('Event')),
      summary: 'One event by slug, with markets, series and metadata.',
      cached,
      params: { slug: string({ required: true, description: 'Event slug.' }) },
      query: { creator },
      handler: ({ params, query }) => {
        const event = store.event(store.find('event-slug', params.slug) ?? 0);
        const shownTo = scope(query.creator);
        if (event === undefined || !eventVisible(event, shownTo)) throw notFound('slug not found');
        return json(eventFull(store, event, shownTo));
      },
    }),
    route({
      method: 'GET',
      path: '/events/:id',
      limits: ['catalog items'],
      response: ok(ref('Event')),
      summary: 'One event by numeric id, with markets, series and metadata.',
      cached,
      params: { id: integer({ min: 0, required: true, description: 'Numeric event id.' }) },
      query: { creator },
      handler: ({ params, query }) => {
        const event = store.event(params.id);
        const shownTo = scope(query.creator);
        if (event === undefined || !eventVisible(event, shownTo)) throw notFound('id not found');
        return json(eventFull(store, event, shownTo));
      },
    }),
    route({
      method: 'GET',
      path: '/markets',
      response: ok(arrayOf(ref('CatalogMarket'))),
      summary: 'List markets (Gamma style: limit/offset and filters).',
      limits: ['GET /markets (catalog)', 'catalog listings'],
      cached,
      query: {
        limit,
        offset,
        ...stateFilters,
        id: integerList({ min: 1, maxItems: listItemsMax, description: 'Only these market ids.' }),
        slug: stringList({ maxItems: listItemsMax, description: 'Only markets with these slugs.' }),
        condition_ids: stringList({ maxItems: listItemsMax, maxLength: 66, description: 'Only markets with these condition ids.' }),
        clob_token_ids: stringList({ maxItems: listItemsMax, maxLength: 78, description: 'Only markets with these outcome token ids.' }),
        order: oneOfList({ values: Object.keys(marketOrders) as MarketOrder[], maxItems: 3, description: 'Sort columns, comma-separated (default id).' }),
        ascending,
        creator,
      },
      handler: ({ query }) => {
        const markets = queries.markets({ ...query, ids: query.id, slugs: query.slug, conditionIds: query.condition_ids, tokenIds: query.clob_token_ids, creator: scope(query.creator) });
        return json(markets.map(marketView));
      },
    }),
    route({
      method: 'GET',
      path: '/markets/slug/:slug',
      limits: ['catalog items'],
      response: ok(ref('CatalogMarketWithEvents')),
      summary: 'One market by slug, with its event.',
      cached,
      params: { slug: string({ required: true, description: 'Market slug.' }) },
      query: { creator },
      handler: ({ params, query }) => {
        const market = store.market(store.find('market-slug', params.slug) ?? 0);
        if (market === undefined || !marketVisible(market, scope(query.creator))) throw notFound('slug not found');
        return json(marketWithEvents(store, market));
      },
    }),
    route({
      method: 'GET',
      path: '/markets/:id',
      limits: ['catalog items'],
      response: ok(ref('CatalogMarketWithEvents')),
      summary: 'One market by numeric id or condition id, with its event.',
      cached,
      params: { id: string({ required: true, maxLength: 66, description: 'Numeric market id or condition id (0x + 64 hex).' }) },
      query: { creator },
      handler: ({ params, query }) => {
        let id: number | undefined;
        if (/^\d{1,16}$/.test(params.id)) id = Number(params.id);
        else if (BYTES32.test(params.id)) id = store.find('condition', params.id.toLowerCase());
        else throw badRequest('id must be a numeric market id or a condition id');
        const market = id === undefined ? undefined : store.market(id);
        if (market === undefined || !marketVisible(market, scope(query.creator))) throw notFound('id not found');
        return json(marketWithEvents(store, market));
      },
    }),
    route({
      method: 'GET',
      path: '/series',
      limits: ['catalog items'],
      response: ok(arrayOf(ref('SeriesWithEvents'))),
      summary: 'List series with their events.',
      cached,
      query: { limit, offset, slug: stringList({ maxItems: listItemsMax, description: 'Only series with these slugs.' }), creator },
      handler: ({ query }) => {
        const shownTo = scope(query.creator);
        return json(queries.series(query.slug, shownTo, query).map((series) => seriesWithEvents(store, series, shownTo)));
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
      cached,
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

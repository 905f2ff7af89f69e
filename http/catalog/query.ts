// List reads over the catalog: candidate ids from the LMDB indexes when a filter names them,
// otherwise a cached ordering of every record; then the boolean and creator filters, and the
// offset/limit page. Orderings are rebuilt lazily after a write changes the catalog version.
import type { CatalogStore } from './store.js';
import type { EventRecord, MarketRecord, SeriesRecord, TagRecord } from './model.js';
import { eventVisible, marketVisible, type Creator } from './views.js';

type SortKey<R> = (record: R) => number | string;

export const eventOrders = {
  id: (event) => event.id,
  title: (event) => event.title.toLowerCase(),
  slug: (event) => event.slug.toLowerCase(),
  startDate: (event) => event.startDateMs,
  endDate: (event) => event.endDateMs,
  creationDate: (event) => event.creationDateMs,
  createdAt: (event) => event.createdAtMs,
  updatedAt: (event) => event.updatedAtMs,
  volume: (event) => event.volumeMicros,
  liquidity: (event) => event.liquidityMicros,
  openInterest: (event) => event.openInterestMicros,
} as const satisfies Record<string, SortKey<EventRecord>>;

export const marketOrders = {
  id: (market) => market.id,
  question: (market) => market.question.toLowerCase(),
  slug: (market) => market.slug.toLowerCase(),
  startDate: (market) => market.startDateMs,
  endDate: (market) => market.endDateMs,
  createdAt: (market) => market.createdAtMs,
  updatedAt: (market) => market.updatedAtMs,
  volume: (market) => market.volumeMicros,
  volumeNum: (market) => market.volumeMicros,
  liquidity: (market) => market.liquidityMicros,
  liquidityNum: (market) => market.liquidityMicros,
} as const satisfies Record<string, SortKey<MarketRecord>>;

export type EventOrder = keyof typeof eventOrders;
export type MarketOrder = keyof typeof marketOrders;

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

/** Ties on every sort column are broken by id, so pages never overlap or skip. */
function comparator<R extends { readonly id: number }>(keys: readonly SortKey<R>[]): (a: R, b: R) => number {
  return (a, b) => {
    for (const key of keys) {
      const left = key(a);
      const right = key(b);
      if (left < right) return -1;
      if (left > right) return 1;
    }
    return a.id - b.id;
  };
}

/** Sorted id lists per ordering, valid for one catalog version; at most a few dozen kept. */
class Orderings<R extends { readonly id: number }> {
  private readonly lists = new Map<string, { readonly version: number; readonly ids: readonly number[] }>();

  constructor(
    private readonly load: () => R[],
    private readonly listsMax = 32,
  ) {}

  ids(name: string, keys: readonly SortKey<R>[], version: number): readonly number[] {
    const cached = this.lists.get(name);
    if (cached !== undefined && cached.version === version) return cached.ids;
    if (this.lists.size >= this.listsMax) this.lists.clear();
    const ids = this.load().sort(comparator(keys)).map((record) => record.id);
    this.lists.set(name, { version, ids });
    return ids;
  }
}

function intersect(sets: readonly (readonly number[])[]): number[] | undefined {
  if (sets.length === 0) return undefined;
  let result = new Set(sets[0]);
  for (const set of sets.slice(1)) result = new Set(set.filter((id) => result.has(id)));
  return [...result];
}

function present<T>(value: T | undefined): value is T {
  return value !== undefined;
}

/** Walks ids in order (or reverse), keeping records that pass, skipping `offset` of them. */
function walk<R>(ids: readonly number[], ascending: boolean, get: (id: number) => R | undefined, keep: (record: R) => boolean, page: Page): R[] {
  const out: R[] = [];
  let skipped = 0;
  for (let step = 0; step < ids.length && out.length < page.limit; step++) {
    const id = ids[ascending ? step : ids.length - 1 - step];
    const record = id === undefined ? undefined : get(id);
    if (record === undefined || !keep(record)) continue;
    if (skipped < page.offset) skipped++;
    else out.push(record);
  }
  return out;
}

function sortPage<R extends { readonly id: number }>(records: R[], keys: readonly SortKey<R>[], ascending: boolean, page: Page): R[] {
  const compare = comparator(keys);
  records.sort(ascending ? compare : (a, b) => compare(b, a));
  return records.slice(page.offset, page.offset + page.limit);
}

export interface StateFilter {
  readonly active: boolean | undefined;
  readonly closed: boolean | undefined;
  readonly archived: boolean | undefined;
}

function passes(record: StateFilter, filter: StateFilter): boolean {
  return (
    (filter.active === undefined || record.active === filter.active) &&
    (filter.closed === undefined || record.closed === filter.closed) &&
    (filter.archived === undefined || record.archived === filter.archived)
  );
}

export interface EventQuery extends StateFilter, Page {
  readonly ids: readonly number[];
  readonly slugs: readonly string[];
  readonly tagIds: readonly number[];
  readonly tagSlugs: readonly string[];
  readonly seriesSlugs: readonly string[];
  readonly order: readonly EventOrder[];
  readonly ascending: boolean;
  readonly creator: Creator;
}

export interface MarketQuery extends StateFilter, Page {
  readonly ids: readonly number[];
  readonly slugs: readonly string[];
  readonly conditionIds: readonly string[];
  readonly tokenIds: readonly string[];
  readonly order: readonly MarketOrder[];
  readonly ascending: boolean;
  readonly creator: Creator;
}

export class CatalogQueries {
  private readonly eventOrderings: Orderings<EventRecord>;
  private readonly marketOrderings: Orderings<MarketRecord>;

  constructor(private readonly store: CatalogStore) {
    this.eventOrderings = new Orderings(() => store.allEvents());
    this.marketOrderings = new Orderings(() => store.allMarkets());
  }

  events(query: EventQuery): EventRecord[] {
    const store = this.store;
    const byTag = (tagIds: readonly (number | undefined)[]) => tagIds.filter(present).flatMap((id) => store.eventIdsOfTag(id));
    const sets: number[][] = [];
    if (query.ids.length > 0) sets.push([...query.ids]);
    if (query.slugs.length > 0) sets.push(query.slugs.map((slug) => store.find('event-slug', slug)).filter(present));
    if (query.tagIds.length > 0) sets.push(byTag(query.tagIds));
    // `tag` and `tag_slug` are each a filter of their own: given together they combine with AND.
    for (const slug of query.tagSlugs) sets.push(byTag([store.find('tag-slug', slug)]));
    if (query.seriesSlugs.length > 0) {
      sets.push(query.seriesSlugs.map((slug) => store.find('series-slug', slug)).filter(present).flatMap((id) => store.eventIdsOfSeries(id)));
    }
    const order = query.order.length > 0 ? query.order : (['id'] as const);
    const keys = order.map((name) => eventOrders[name]);
    const keep = (event: EventRecord) => passes(event, query) && eventVisible(event, query.creator);
    const candidates = intersect(sets);
    const get = (id: number) => store.event(id);
    if (candidates === undefined) return walk(this.eventOrderings.ids(order.join(','), keys, store.version), query.ascending, get, keep, query);
    return sortPage(candidates.map(get).filter(present).filter(keep), keys, query.ascending, query);
  }

  markets(query: MarketQuery): MarketRecord[] {
    const store = this.store;
    const sets: number[][] = [];
    if (query.ids.length > 0) sets.push([...query.ids]);
    if (query.slugs.length > 0) sets.push(query.slugs.map((slug) => store.find('market-slug', slug)).filter(present));
    if (query.conditionIds.length > 0) sets.push(query.conditionIds.map((id) => store.find('condition', id.toLowerCase())).filter(present));
    if (query.tokenIds.length > 0) sets.push(query.tokenIds.map((id) => store.find('token', id)).filter(present));
    const order = query.order.length > 0 ? query.order : (['id'] as const);
    const keys = order.map((name) => marketOrders[name]);
    const keep = (market: MarketRecord) => passes(market, query) && marketVisible(market, query.creator);
    const candidates = intersect(sets);
    const get = (id: number) => store.market(id);
    if (candidates === undefined) return walk(this.marketOrderings.ids(order.join(','), keys, store.version), query.ascending, get, keep, query);
    return sortPage(candidates.map(get).filter(present).filter(keep), keys, query.ascending, query);
  }

  /** Series by id; under a creator, only series with at least one event the creator shows. */
  series(slugs: readonly string[], creator: Creator, page: Page): SeriesRecord[] {
    const store = this.store;
    const all = slugs.length > 0 ? slugs.map((slug) => store.find('series-slug', slug)).filter(present).sort((a, b) => a - b) : store.allSeries().map((series) => series.id);
    const keep = (series: SeriesRecord) => creator === undefined || store.eventIdsOfSeries(series.id).some((id) => this.eventShown(id, creator));
    return walk(all, true, (id) => store.series(id), keep, page);
  }

  /** Tags by id; under a creator, only tags of at least one event the creator shows. */
  tags(creator: Creator, page: Page): TagRecord[] {
    const store = this.store;
    const keep = (tag: TagRecord) => creator === undefined || store.eventIdsOfTag(tag.id).some((id) => this.eventShown(id, creator));
    return walk(store.allTags().map((tag) => tag.id), true, (id) => store.tag(id), keep, page);
  }

  private eventShown(id: number, creator: Creator): boolean {
    const event = this.store.event(id);
    return event !== undefined && eventVisible(event, creator);
  }
}

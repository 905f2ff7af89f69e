// List reads over the catalog: candidate ids from the LMDB indexes when a filter names them,
// otherwise a cached ordering of every record; then the record filters (flags, dates, creator,
// and the live volumes and liquidity) and the offset/limit page. Orderings are rebuilt lazily:
// those by stored columns after a write changes the catalog version, those by a live column
// (volume, volume24hr, liquidity) also after the books or trades change (views.ts, live.ts).
import type { CatalogStore } from './store.js';
import type { EventRecord, MarketRecord, SeriesRecord, TagRecord } from './model.js';
import { eventVisible, marketVisible, type CatalogViews, type Creator } from './views.js';

/** What a sort key may read besides the record: the live values, as the read's scope shows them. */
interface KeyContext {
  readonly views: CatalogViews;
  readonly creator: Creator;
}

type SortKey<R> = (record: R, context: KeyContext) => number | string;

const eventVolume: SortKey<EventRecord> = (event, { views, creator }) => views.eventTotals(event, creator).volumeMicros;
const eventVolume24hr: SortKey<EventRecord> = (event, { views, creator }) => views.eventTotals(event, creator).volume24hrMicros;
const eventLiquidity: SortKey<EventRecord> = (event, { views, creator }) => views.eventTotals(event, creator).liquidityMicros;

export const eventOrders = {
  id: (event) => event.id,
  title: (event) => event.title.toLowerCase(),
  slug: (event) => event.slug.toLowerCase(),
  startDate: (event) => event.startDateMs,
  endDate: (event) => event.endDateMs,
  creationDate: (event) => event.creationDateMs,
  createdAt: (event) => event.createdAtMs,
  updatedAt: (event) => event.updatedAtMs,
  volume: eventVolume,
  liquidity: eventLiquidity,
  openInterest: (event) => event.openInterestMicros,
  volume24hr: eventVolume24hr,
} as const satisfies Record<string, SortKey<EventRecord>>;

const marketVolume: SortKey<MarketRecord> = (market, { views }) => views.live.market(market.conditionId).volumeMicros;
const marketLiquidity: SortKey<MarketRecord> = (market, { views }) => views.live.market(market.conditionId).liquidityMicros;

export const marketOrders = {
  id: (market) => market.id,
  question: (market) => market.question.toLowerCase(),
  slug: (market) => market.slug.toLowerCase(),
  startDate: (market) => market.startDateMs,
  endDate: (market) => market.endDateMs,
  createdAt: (market) => market.createdAtMs,
  updatedAt: (market) => market.updatedAtMs,
  volume: marketVolume,
  volumeNum: marketVolume,
  liquidity: marketLiquidity,
  liquidityNum: marketLiquidity,
  volume24hr: (market, { views }) => views.live.market(market.conditionId).volume24hrMicros,
} as const satisfies Record<string, SortKey<MarketRecord>>;

export type EventOrder = keyof typeof eventOrders;
export type MarketOrder = keyof typeof marketOrders;

/** The sort columns whose values are live (computed from the books and trades at the read). */
const LIVE_COLUMNS: ReadonlySet<string> = new Set(['volume', 'volumeNum', 'volume24hr', 'liquidity', 'liquidityNum']);

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

/** Ties on every sort column are broken by id, so pages never overlap or skip. */
function compareKeys(a: readonly (number | string)[], b: readonly (number | string)[], aId: number, bId: number): number {
  for (let at = 0; at < a.length; at++) {
    const left = a[at]!;
    const right = b[at]!;
    if (left < right) return -1;
    if (left > right) return 1;
  }
  return aId - bId;
}

/** `records` sorted by `keys` then id, ascending; each record's keys computed once. */
function sorted<R extends { readonly id: number }>(records: readonly R[], keys: readonly SortKey<R>[], context: KeyContext): R[] {
  const decorated = records.map((record) => ({ record, keys: keys.map((key) => key(record, context)) }));
  decorated.sort((a, b) => compareKeys(a.keys, b.keys, a.record.id, b.record.id));
  return decorated.map(({ record }) => record);
}

/**
 * Sorted id lists per ordering, valid for one version of what they sort by; at most a few dozen
 * kept. The records are read once per catalog version: an ordering by a live column, made again
 * whenever a book or trade changes, sorts them again without reading the store.
 */
class Orderings<R extends { readonly id: number }> {
  private readonly lists = new Map<string, { readonly version: number; readonly ids: readonly number[] }>();
  private records: { readonly version: number; readonly all: readonly R[] } | undefined = undefined;

  constructor(
    private readonly load: () => R[],
    private readonly listsMax = 32,
  ) {}

  /** `version`: of what the ordering sorts by; `catalogVersion`: of the records. */
  ids(name: string, keys: readonly SortKey<R>[], version: number, catalogVersion: number, context: KeyContext): readonly number[] {
    const cached = this.lists.get(name);
    if (cached !== undefined && cached.version === version) return cached.ids;
    if (this.lists.size >= this.listsMax) this.lists.clear();
    if (this.records?.version !== catalogVersion) this.records = { version: catalogVersion, all: this.load() };
    const ids = sorted(this.records.all, keys, context).map((record) => record.id);
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

function sortPage<R extends { readonly id: number }>(records: R[], keys: readonly SortKey<R>[], context: KeyContext, ascending: boolean, page: Page): R[] {
  const ordered = sorted(records, keys, context);
  if (!ascending) ordered.reverse();
  return ordered.slice(page.offset, page.offset + page.limit);
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

/** Bounds, both included; undefined: open on that side. Dates in epoch ms, amounts in micros. */
export interface Range {
  readonly min: number | undefined;
  readonly max: number | undefined;
}

export const ANY: Range = Object.freeze({ min: undefined, max: undefined });

const bounded = (range: Range): boolean => range.min !== undefined || range.max !== undefined;
const within = (value: number, range: Range): boolean => (range.min === undefined || value >= range.min) && (range.max === undefined || value <= range.max);

export interface EventQuery extends StateFilter, Page {
  readonly ids: readonly number[];
  readonly slugs: readonly string[];
  readonly tagIds: readonly number[];
  readonly tagSlugs: readonly string[];
  readonly seriesSlugs: readonly string[];
  readonly seriesIds: readonly number[];
  readonly excludeTagIds: readonly number[];
  readonly featured: boolean | undefined;
  /** Lower-case text the title must hold. */
  readonly titleSearch: string | undefined;
  readonly startDate: Range;
  readonly endDate: Range;
  readonly volume: Range;
  readonly liquidity: Range;
  /** True: only create-your-own events, of which clobd has none. */
  readonly cyom: boolean | undefined;
  readonly order: readonly EventOrder[];
  readonly ascending: boolean;
  readonly creator: Creator;
}

export interface MarketQuery extends StateFilter, Page {
  readonly ids: readonly number[];
  readonly slugs: readonly string[];
  readonly conditionIds: readonly string[];
  readonly tokenIds: readonly string[];
  /** Lower-case question ids. */
  readonly questionIds: readonly string[];
  /** Markets whose event has one of these tags. */
  readonly tagIds: readonly number[];
  readonly startDate: Range;
  readonly endDate: Range;
  readonly volume: Range;
  readonly liquidity: Range;
  /** True: only create-your-own (or RFQ) markets, of which clobd has none. */
  readonly cyom: boolean | undefined;
  readonly order: readonly MarketOrder[];
  readonly ascending: boolean;
  readonly creator: Creator;
}

export class CatalogQueries {
  private readonly eventOrderings: Orderings<EventRecord>;
  private readonly marketOrderings: Orderings<MarketRecord>;

  constructor(private readonly store: CatalogStore, private readonly views: CatalogViews) {
    this.eventOrderings = new Orderings(() => store.allEvents());
    this.marketOrderings = new Orderings(() => store.allMarkets());
  }

  events(query: EventQuery): EventRecord[] {
    if (query.cyom === true) return [];
    const { store, views } = this;
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
    if (query.seriesIds.length > 0) sets.push(query.seriesIds.flatMap((id) => store.eventIdsOfSeries(id)));
    const creator = query.creator;
    const excluded = new Set(query.excludeTagIds);
    const live = bounded(query.volume) || bounded(query.liquidity);
    const keep = (event: EventRecord): boolean => {
      if (!passes(event, query) || !eventVisible(event, creator)) return false;
      if (query.featured !== undefined && event.featured !== query.featured) return false;
      if (!within(event.startDateMs, query.startDate) || !within(event.endDateMs, query.endDate)) return false;
      if (excluded.size > 0 && event.tagIds.some((id) => excluded.has(id))) return false;
      if (query.titleSearch !== undefined && !event.title.toLowerCase().includes(query.titleSearch)) return false;
      if (!live) return true;
      const totals = views.eventTotals(event, creator);
      return within(totals.volumeMicros, query.volume) && within(totals.liquidityMicros, query.liquidity);
    };
    return this.page(query.order, eventOrders, this.eventOrderings, intersect(sets), (id) => store.event(id), keep, query);
  }

  markets(query: MarketQuery): MarketRecord[] {
    if (query.cyom === true) return [];
    const { store, views } = this;
    const sets: number[][] = [];
    if (query.ids.length > 0) sets.push([...query.ids]);
    if (query.slugs.length > 0) sets.push(query.slugs.map((slug) => store.find('market-slug', slug)).filter(present));
    if (query.conditionIds.length > 0) sets.push(query.conditionIds.map((id) => store.find('condition', id.toLowerCase())).filter(present));
    if (query.tokenIds.length > 0) sets.push(query.tokenIds.map((id) => store.find('token', id)).filter(present));
    if (query.tagIds.length > 0) {
      sets.push(query.tagIds.flatMap((tagId) => store.eventIdsOfTag(tagId)).flatMap((eventId) => store.event(eventId)?.marketIds ?? []));
    }
    const creator = query.creator;
    const questions = new Set(query.questionIds);
    const live = bounded(query.volume) || bounded(query.liquidity);
    const keep = (market: MarketRecord): boolean => {
      if (!passes(market, query) || !marketVisible(market, creator)) return false;
      if (!within(market.startDateMs, query.startDate) || !within(market.endDateMs, query.endDate)) return false;
      if (questions.size > 0 && !questions.has(market.questionId)) return false;
      if (!live) return true;
      const values = views.live.market(market.conditionId);
      return within(values.volumeMicros, query.volume) && within(values.liquidityMicros, query.liquidity);
    };
    return this.page(query.order, marketOrders, this.marketOrderings, intersect(sets), (id) => store.market(id), keep, query);
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

  /**
   * The page of a list: the candidates an index named, sorted, or else the cached ordering of
   * every record, walked. An ordering by a live column is as of the books' and trades' version
   * too, and per creator (an event's sums are over the markets the scope shows).
   */
  private page<R extends { readonly id: number }, O extends string>(
    order: readonly O[], columns: Readonly<Record<O, SortKey<R>>>, orderings: Orderings<R>, candidates: number[] | undefined,
    get: (id: number) => R | undefined, keep: (record: R) => boolean, query: Page & { readonly ascending: boolean; readonly creator: Creator },
  ): R[] {
    const names = order.length > 0 ? order : (['id'] as unknown as readonly O[]);
    const keys = names.map((name) => columns[name]);
    const context: KeyContext = { views: this.views, creator: query.creator };
    if (candidates !== undefined) return sortPage(candidates.map(get).filter(present).filter(keep), keys, context, query.ascending, query);
    const isLive = names.some((name) => LIVE_COLUMNS.has(name));
    const version = isLive ? this.store.version + this.views.live.version() : this.store.version;
    const name = isLive ? `${names.join(',')}|${query.creator ?? ''}` : names.join(',');
    return walk(orderings.ids(name, keys, version, this.store.version, context), query.ascending, get, keep, query);
  }

  private eventShown(id: number, creator: Creator): boolean {
    const event = this.store.event(id);
    return event !== undefined && eventVisible(event, creator);
  }
}

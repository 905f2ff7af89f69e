// The catalog's LMDB environment: records (msgpack) keyed by numeric id, and the secondary indexes
// (slugs, condition ids, token ids, tag and series membership) written in the same transaction
// as the records they point to. Writes are synchronous, durable transactions: when a write
// returns, it is on disk. Readers see a `version` that every committed write bumps, which is
// what response caches key on.
import { Outbox } from '../replication/outbox.js';
import { join } from 'node:path';
import { type Database, type RootDatabase } from 'lmdb';
import { openDurable } from '../../engine/durable_env.js';
import { badRequest } from '../errors.js';
import { conditionIdOf, questionIdOf, slugify, tokenIdsOf } from './ids.js';
import type { EventInput, MarketInput, SeriesInput, TagInput } from './ingest.js';
import type { EventRecord, MarketRecord, SeriesRecord, TagRecord } from './model.js';

type LookupKind = 'event-slug' | 'market-slug' | 'series-slug' | 'tag-slug' | 'condition' | 'token';

const lookupNames: Readonly<Record<LookupKind, string>> = {
  'event-slug': 'event slug',
  'market-slug': 'market slug',
  'series-slug': 'series slug',
  'tag-slug': 'tag slug',
  condition: 'condition id',
  token: 'token id',
};
type Counter = 'event' | 'market' | 'series' | 'tag';

/**
 * Record keys are uint32, and lmdb truncates a larger number to its low 32 bits, so 2^32 + 1 would
 * read record 1. Reads by an id outside the key range find nothing instead.
 */
const recordIdMax = 0xffff_ffff;
const storable = (id: number): boolean => Number.isInteger(id) && id >= 0 && id <= recordIdMax;

export interface WriteSummary {
  readonly events: number;
  readonly markets: number;
  readonly tags: number;
  readonly series: number;
}

/** The catalog's directory under DATA_DIR. */
export const CATALOG_STORE = 'catalog';

/** Markets the by-condition cache holds before it starts over. */
const BY_CONDITION_CACHED_MAX = 65_536;

/** The catalog's meta entry where a replica notes the last of the primary's changes it applied (replication/state_changes.ts). */
const REPLICATED_KEY = 'replicated-change';

export class CatalogStore {
  private versionCounter = 1;
  private readonly changeListeners: ((version: number) => void)[] = [];
  /** The catalog's changes on their way to the primary's replicated journal (nothing without one). */
  readonly outbox: Outbox;
  /**
   * Markets by lower-case condition id as of `byConditionVersion`: the trading path looks one up
   * for every fill and every order event it publishes, and a lookup plus a record read from LMDB
   * cost more than the rest of that path. Any write starts the cache over.
   */
  private readonly byCondition = new Map<string, MarketRecord | undefined>();
  private byConditionVersion = 0;

  private constructor(
    private readonly root: RootDatabase,
    private readonly events: Database<EventRecord, number>,
    private readonly markets: Database<MarketRecord, number>,
    private readonly seriesById: Database<SeriesRecord, number>,
    private readonly tags: Database<TagRecord, number>,
    private readonly lookup: Database<number, string>,
    private readonly eventsByTag: Database<number, number>,
    private readonly eventsBySeries: Database<number, number>,
    private readonly meta: Database<number, string>,
  ) {
    this.outbox = new Outbox(root, 'catalog');
  }

  static open(dataDir: string): CatalogStore {
    const path = join(dataDir, CATALOG_STORE);
    const root = openDurable(path, 12);
    const records = { encoding: 'msgpack', keyEncoding: 'uint32' } as const;
    const membership = { dupSort: true, encoding: 'ordered-binary', keyEncoding: 'uint32' } as const;
    return new CatalogStore(
      root,
      root.openDB<EventRecord, number>({ name: 'events', ...records }),
      root.openDB<MarketRecord, number>({ name: 'markets', ...records }),
      root.openDB<SeriesRecord, number>({ name: 'series', ...records }),
      root.openDB<TagRecord, number>({ name: 'tags', ...records }),
      root.openDB<number, string>({ name: 'lookup', encoding: 'msgpack' }),
      root.openDB<number, number>({ name: 'events-by-tag', ...membership }),
      root.openDB<number, number>({ name: 'events-by-series', ...membership }),
      root.openDB<number, string>({ name: 'meta', encoding: 'msgpack' }),
    );
  }

  /** Changes whenever a write commits; equal versions mean equal catalog contents. */
  get version(): number {
    return this.versionCounter;
  }

  /** Calls `listener` with the new version after each committed write, before the write's caller goes on. */
  onChange(listener: (version: number) => void): void {
    this.changeListeners.push(listener);
  }

  private committed(): void {
    this.versionCounter++;
    for (const listener of this.changeListeners) listener(this.versionCounter);
  }

  isEmpty(): boolean {
    return this.events.getKeysCount({ limit: 1 }) === 0;
  }

  event(id: number): EventRecord | undefined {
    return storable(id) ? this.events.get(id) : undefined;
  }

  market(id: number): MarketRecord | undefined {
    return storable(id) ? this.markets.get(id) : undefined;
  }

  series(id: number): SeriesRecord | undefined {
    return storable(id) ? this.seriesById.get(id) : undefined;
  }

  tag(id: number): TagRecord | undefined {
    return storable(id) ? this.tags.get(id) : undefined;
  }

  /** The market of a condition id (any case), from the cache while the catalog is unchanged. */
  marketOfCondition(conditionId: string): MarketRecord | undefined {
    if (this.byConditionVersion !== this.versionCounter || this.byCondition.size >= BY_CONDITION_CACHED_MAX) {
      this.byCondition.clear();
      this.byConditionVersion = this.versionCounter;
    }
    const key = conditionId.toLowerCase();
    if (this.byCondition.has(key)) return this.byCondition.get(key);
    const id = this.find('condition', key);
    const market = id === undefined ? undefined : this.market(id);
    this.byCondition.set(key, market);
    return market;
  }

  find(kind: LookupKind, key: string): number | undefined {
    return this.lookup.get(`${kind}:${key}`);
  }

  eventIdsOfTag(tagId: number): number[] {
    return storable(tagId) ? [...this.eventsByTag.getValues(tagId)] : [];
  }

  eventIdsOfSeries(seriesId: number): number[] {
    return storable(seriesId) ? [...this.eventsBySeries.getValues(seriesId)] : [];
  }

  allEvents(): EventRecord[] {
    return [...this.events.getRange().map(({ value }) => value)];
  }

  allMarkets(): MarketRecord[] {
    return [...this.markets.getRange().map(({ value }) => value)];
  }

  allSeries(): SeriesRecord[] {
    return [...this.seriesById.getRange().map(({ value }) => value)];
  }

  allTags(): TagRecord[] {
    return [...this.tags.getRange().map(({ value }) => value)];
  }

  /** Creates one event with its markets (admin API); the server assigns every id. */
  createEvent(input: EventInput): EventRecord {
    const id = this.outbox.commitSync(() => this.writeEvent(input, 'create'), (created) => ({ kind: 'event', input, id: created }));
    this.committed();
    const created = this.event(id);
    if (created === undefined) throw new Error(`event ${id} missing after commit`);
    return created;
  }

  /** Upserts events keeping their ids, in one transaction; re-importing the same file is a no-op. */
  importEvents(inputs: readonly EventInput[]): WriteSummary {
    const summary = { events: 0, markets: 0, tags: 0, series: 0 };
    this.outbox.commitSync(() => {
      for (const input of inputs) {
        this.writeEvent(input, 'import');
        summary.events++;
        summary.markets += input.markets.length;
        summary.tags += input.tags.length;
        summary.series += input.series.length;
      }
    }, () => ({ kind: 'import', inputs }));
    this.committed();
    return summary;
  }

  /** Changes a market's trading flags (pause, resume, resolution), durably. */
  setMarketFlags(id: number, flags: { readonly acceptingOrders?: boolean; readonly closed?: boolean }, nowMs: number): MarketRecord {
    const previous = this.market(id);
    if (previous === undefined) throw new Error(`market ${id} does not exist`);
    const record: MarketRecord = { ...previous, ...flags, updatedAtMs: nowMs };
    this.outbox.commitSync(() => this.markets.putSync(id, record), () => ({ kind: 'flags', id, flags, nowMs }));
    this.committed();
    return record;
  }

  /** A replica: the last of the primary's changes it applied (0: none). */
  replicated(): number {
    return this.meta.get(REPLICATED_KEY) ?? 0;
  }

  /** A replica: notes that it applied the primary's change number `change`. */
  noteReplicated(change: number): void {
    this.root.transactionSync(() => this.meta.putSync(REPLICATED_KEY, change));
  }

  async close(): Promise<void> {
    await this.outbox.close();
    await this.root.flushed;
    await this.root.close();
  }

  private nextId(counter: Counter): number {
    const id = this.meta.get(`next-${counter}-id`) ?? 1;
    this.meta.putSync(`next-${counter}-id`, id + 1);
    return id;
  }

  /** Keeps the id counter past ids that arrive from an import. */
  private reserveId(counter: Counter, id: number): number {
    const next = this.meta.get(`next-${counter}-id`) ?? 1;
    if (id >= next) this.meta.putSync(`next-${counter}-id`, id + 1);
    return id;
  }

  /**
   * Claims a lookup key for an id. A key held by another id is a conflict when it was asked for
   * explicitly; a generated slug instead takes the first free `-2`, `-3`, ... suffix.
   */
  private claim(kind: LookupKind, key: string, id: number, generated: boolean): string {
    let candidate = key;
    for (let suffix = 2; ; suffix++) {
      const holder = this.find(kind, candidate);
      if (holder === undefined || holder === id) break;
      if (!generated) throw badRequest(`${lookupNames[kind]} already exists: ${key}`);
      candidate = `${key}-${suffix}`;
    }
    this.lookup.putSync(`${kind}:${candidate}`, id);
    return candidate;
  }

  private release(kind: LookupKind, key: string, id: number): void {
    if (this.find(kind, key) === id) this.lookup.removeSync(`${kind}:${key}`);
  }

  private resolveTag(input: TagInput, mode: 'create' | 'import'): number {
    const slug = input.slug !== '' ? input.slug : slugify(input.label);
    if (slug === '') throw badRequest(`tag "${input.label}" needs a slug`);
    const existing = this.find('tag-slug', slug);
    if (mode === 'create' && existing !== undefined) return existing;
    const id = input.id === undefined ? (existing ?? this.nextId('tag')) : this.reserveId('tag', input.id);
    const previous = this.tag(id);
    if (previous !== undefined && previous.slug !== slug) this.release('tag-slug', previous.slug, id);
    this.claim('tag-slug', slug, id, false);
    const record: TagRecord = { id, label: input.label, slug, requiresTranslation: input.requiresTranslation, createdAtMs: previous?.createdAtMs ?? input.createdAtMs, updatedAtMs: updatedAtOf(input, previous) };
    this.tags.putSync(id, record);
    return id;
  }

  private resolveSeries(input: SeriesInput, mode: 'create' | 'import'): number {
    const slug = input.slug !== '' ? input.slug : slugify(input.title);
    if (slug === '') throw badRequest(`series "${input.title}" needs a slug`);
    const existing = this.find('series-slug', slug);
    if (mode === 'create' && existing !== undefined) return existing;
    const id = input.id === undefined ? (existing ?? this.nextId('series')) : this.reserveId('series', input.id);
    const previous = this.series(id);
    if (previous !== undefined && previous.slug !== slug) this.release('series-slug', previous.slug, id);
    this.claim('series-slug', slug, id, false);
    const { id: _ignored, slug: _slug, ...fields } = input;
    const record: SeriesRecord = { ...fields, id, slug, title: input.title !== '' ? input.title : slug, ticker: input.ticker !== '' ? input.ticker : slug, createdAtMs: previous?.createdAtMs ?? input.createdAtMs, updatedAtMs: updatedAtOf(input, previous) };
    this.seriesById.putSync(id, record);
    return id;
  }

  private writeMarket(input: MarketInput, eventId: number, event: EventInput): MarketRecord {
    const id = input.id === undefined ? this.nextId('market') : this.reserveId('market', input.id);
    const previous = this.market(id);
    if (previous !== undefined && previous.eventId !== eventId) throw badRequest(`market ${id} belongs to event ${previous.eventId}`);
    const wantedSlug = input.slug !== '' ? input.slug : slugify(input.question);
    if (previous !== undefined && previous.slug !== wantedSlug) this.release('market-slug', previous.slug, id);
    const slug = this.claim('market-slug', wantedSlug === '' ? `market-${id}` : wantedSlug, id, input.slug === '');
    const questionId = input.questionId ?? previous?.questionId ?? questionIdOf(id);
    const conditionId = input.conditionId ?? previous?.conditionId ?? conditionIdOf(questionId);
    const tokenIds = input.tokenIds ?? previous?.tokenIds ?? tokenIdsOf(conditionId);
    this.claim('condition', conditionId, id, false);
    for (const tokenId of tokenIds) this.claim('token', tokenId, id, false);
    const { id: _id, slug: _slug, conditionId: _condition, questionId: _question, tokenIds: _tokens, startDateMs, endDateMs, ...fields } = input;
    // Dates the input leaves out derive from the stored createdAt, so a re-import changes nothing.
    const createdAtMs = previous?.createdAtMs ?? input.createdAtMs;
    const record: MarketRecord = {
      ...fields,
      id,
      eventId,
      slug,
      questionId,
      conditionId,
      tokenIds,
      startDateMs: startDateMs ?? event.startDateMs ?? createdAtMs,
      endDateMs: endDateMs ?? event.endDateMs ?? startDateMs ?? createdAtMs,
      createdAtMs,
      updatedAtMs: updatedAtOf(input, previous),
    };
    this.markets.putSync(id, record);
    return record;
  }

  private writeEvent(input: EventInput, mode: 'create' | 'import'): number {
    const id = input.id === undefined ? this.nextId('event') : this.reserveId('event', input.id);
    const previous = this.event(id);
    const wantedSlug = input.slug !== '' ? input.slug : slugify(input.title);
    if (previous !== undefined && previous.slug !== wantedSlug) this.release('event-slug', previous.slug, id);
    const slug = this.claim('event-slug', wantedSlug === '' ? `event-${id}` : wantedSlug, id, input.slug === '');
    const tagIds = unique(input.tags.map((tag) => this.resolveTag(tag, mode)));
    const seriesIds = unique(input.series.map((series) => this.resolveSeries(series, mode)));
    const markets = input.markets.map((market) => this.writeMarket(market, id, input));
    const marketIds = unique([...markets.map((market) => market.id), ...(previous?.marketIds ?? [])]);
    this.relink(this.eventsByTag, id, previous?.tagIds ?? [], tagIds);
    this.relink(this.eventsBySeries, id, previous?.seriesIds ?? [], seriesIds);
    // Dates the input leaves out derive from the stored createdAt, so a re-import changes nothing.
    const createdAtMs = previous?.createdAtMs ?? input.createdAtMs;
    const startDateMs = input.startDateMs ?? createdAtMs;
    const record: EventRecord = {
      id,
      ticker: input.ticker !== '' ? input.ticker : slug,
      slug,
      title: input.title,
      description: input.description,
      resolutionSource: input.resolutionSource,
      image: input.image,
      icon: input.icon,
      startDateMs,
      creationDateMs: input.creationDateMs ?? createdAtMs,
      endDateMs: input.endDateMs ?? startDateMs,
      createdAtMs,
      updatedAtMs: updatedAtOf(input, previous),
      active: input.active,
      closed: input.closed,
      archived: input.archived,
      featured: input.featured,
      restricted: input.restricted,
      negRisk: input.negRisk,
      openInterestMicros: input.openInterestMicros,
      tagIds,
      seriesIds,
      marketIds,
      creators: unique(marketIds.map((marketId) => this.market(marketId)?.creator ?? null).filter((creator) => creator !== null)),
      metadata: input.metadata,
    };
    this.events.putSync(id, record);
    return id;
  }

  private relink(index: Database<number, number>, eventId: number, before: readonly number[], after: readonly number[]): void {
    for (const key of before) if (!after.includes(key)) index.removeSync(key, eventId);
    for (const key of after) index.putSync(key, eventId);
  }
}

/** The given updatedAt, else the stored record's (a re-import changes nothing), else createdAt. */
function updatedAtOf(input: { readonly createdAtMs: number; readonly updatedAtMs: number | undefined }, previous: { readonly updatedAtMs: number } | undefined): number {
  return input.updatedAtMs ?? previous?.updatedAtMs ?? input.createdAtMs;
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

// Catalog records rendered as the interface's resources. Each view lists its fields explicitly,
// so nothing internal (creators, micro-units, index data) leaks into a response. Field order
// follows the catalog's resource tables; Gamma's extra fields that bots read come after, the live
// ones (prices, quotes, volumes, liquidity: live.ts) computed from the books and trades at the
// time of the read, never stored.
import { formatUnits, unitsNumber } from '../decimal.js';
import type { CatalogStore } from './store.js';
import type { LiveMarket } from './live.js';
import type { EventRecord, MarketRecord, SeriesRecord, TagRecord } from './model.js';

/** The lower-case creator a read is scoped to, or undefined for an unscoped read. */
export type Creator = string | undefined;

export function marketVisible(market: MarketRecord, creator: Creator): boolean {
  return creator === undefined || market.creator === creator;
}

export function eventVisible(event: EventRecord, creator: Creator): boolean {
  return creator === undefined || event.creators.includes(creator);
}

const iso = (ms: number): string => new Date(ms).toISOString();
const amount = (micros: number): number => unitsNumber(micros, 6);

export function tagView(tag: TagRecord) {
  return {
    id: String(tag.id),
    label: tag.label,
    slug: tag.slug,
    createdAt: iso(tag.createdAtMs),
    updatedAt: iso(tag.updatedAtMs),
    requiresTranslation: tag.requiresTranslation,
  };
}

/** Markets an item of GET /events nests, at most (GET /events/{id} has them all). */
export const EVENT_LIST_MARKETS_MAX = 100;

/** Where the live fields come from (live.ts CatalogLive). */
export interface LiveSource {
  market(conditionId: string): LiveMarket;
  version(): number;
}

/** A market as event sums and filters need it, without reading its record. */
export interface MarketKey {
  readonly conditionId: string;
  readonly creator: string | null;
}

/** What an event's markets add up to (collateral micros). */
export interface EventTotals {
  readonly volumeMicros: number;
  readonly volume24hrMicros: number;
  readonly liquidityMicros: number;
}

const price = (units: number): number | null => (units === -1 ? null : unitsNumber(units, 4));
const halfUnits = (half: number): string => formatUnits(half * 5, 5);

function present<T>(value: T | undefined): value is T {
  return value !== undefined;
}

/** Market texts the views keep (see marketText); past this many they start over. */
const MARKET_TEXTS_MAX = 100_000;

export class CatalogViews {
  /** Each market's condition id and creator as of `keysVersion` of the catalog. */
  private keys = new Map<number, MarketKey>();
  private keysVersion = -1;
  /** Each market's JSON as of a catalog version and its live values (the object live.ts keeps until they change). */
  private readonly texts = new Map<number, { readonly version: number; readonly live: LiveMarket; readonly text: string }>();

  constructor(readonly store: CatalogStore, readonly live: LiveSource) {}

  /** The condition id and creator of market `id`, from a map rebuilt after each catalog write. */
  marketKey(id: number): MarketKey | undefined {
    if (this.keysVersion !== this.store.version) {
      this.keys = new Map(this.store.allMarkets().map((market) => [market.id, { conditionId: market.conditionId, creator: market.creator }]));
      this.keysVersion = this.store.version;
    }
    return this.keys.get(id);
  }

  /** The sums of the event's markets the scope shows. */
  eventTotals(event: EventRecord, creator: Creator): EventTotals {
    let volumeMicros = 0;
    let volume24hrMicros = 0;
    let liquidityMicros = 0;
    for (const id of event.marketIds) {
      const key = this.marketKey(id);
      if (key === undefined || (creator !== undefined && key.creator !== creator)) continue;
      const live = this.live.market(key.conditionId);
      volumeMicros += live.volumeMicros;
      volume24hrMicros += live.volume24hrMicros;
      liquidityMicros += live.liquidityMicros;
    }
    return { volumeMicros, volume24hrMicros, liquidityMicros };
  }

  eventSummary(event: EventRecord, creator: Creator) {
    const totals = this.eventTotals(event, creator);
    return {
      id: String(event.id),
      ticker: event.ticker,
      slug: event.slug,
      title: event.title,
      description: event.description,
      resolutionSource: event.resolutionSource,
      image: event.image,
      icon: event.icon,
      startDate: iso(event.startDateMs),
      creationDate: iso(event.creationDateMs),
      endDate: iso(event.endDateMs),
      createdAt: iso(event.createdAtMs),
      updatedAt: iso(event.updatedAtMs),
      active: event.active,
      closed: event.closed,
      archived: event.archived,
      featured: event.featured,
      restricted: event.restricted,
      negRisk: event.negRisk,
      volume: amount(totals.volumeMicros),
      volume24hr: amount(totals.volume24hrMicros),
      liquidity: amount(totals.liquidityMicros),
      openInterest: amount(event.openInterestMicros),
    };
  }

  /**
   * The market's JSON, made once per catalog version and version of its live values: a list
   * answer joins these, so while trading changes a few books a page of 500 markets renders only
   * those few again.
   */
  marketText(market: MarketRecord): string {
    const live = this.live.market(market.conditionId);
    const version = this.store.version;
    const kept = this.texts.get(market.id);
    if (kept !== undefined && kept.version === version && kept.live === live) return kept.text;
    if (this.texts.size >= MARKET_TEXTS_MAX) this.texts.clear();
    const text = JSON.stringify(this.marketViewOf(market, live));
    this.texts.set(market.id, { version, live, text });
    return text;
  }

  /** A JSON array of the markets' texts. */
  marketsText(markets: readonly MarketRecord[]): string {
    return `[${markets.map((market) => this.marketText(market)).join(',')}]`;
  }

  marketView(market: MarketRecord) {
    return this.marketViewOf(market, this.live.market(market.conditionId));
  }

  private marketViewOf(market: MarketRecord, live: LiveMarket) {
    const spread = live.bestBidUnits === -1 || live.bestAskUnits === -1 ? null : unitsNumber(live.bestAskUnits - live.bestBidUnits, 4);
    return {
      id: String(market.id),
      question: market.question,
      conditionId: market.conditionId,
      slug: market.slug,
      resolutionSource: market.resolutionSource,
      image: market.image,
      icon: market.icon,
      description: market.description,
      questionID: market.questionId,
      outcomes: JSON.stringify(market.outcomes),
      clobTokenIds: JSON.stringify(market.tokenIds),
      startDate: iso(market.startDateMs),
      endDate: iso(market.endDateMs),
      createdAt: iso(market.createdAtMs),
      updatedAt: iso(market.updatedAtMs),
      active: market.active,
      closed: market.closed,
      archived: market.archived,
      groupItemTitle: market.groupItemTitle,
      enableOrderBook: market.enableOrderBook,
      acceptingOrders: market.acceptingOrders,
      orderPriceMinTickSize: unitsNumber(market.tickUnits, 4),
      orderMinSize: unitsNumber(market.minSizeMicros, 6),
      negRisk: market.negRisk,
      makerBaseFee: market.makerBaseFeeBps,
      takerBaseFee: market.takerBaseFeeBps,
      outcomePrices: JSON.stringify(live.outcomeHalfUnits.map(halfUnits)),
      bestBid: price(live.bestBidUnits),
      bestAsk: price(live.bestAskUnits),
      spread,
      lastTradePrice: price(live.lastTradeUnits),
      volume: formatUnits(live.volumeMicros, 6),
      volumeNum: amount(live.volumeMicros),
      volume24hr: amount(live.volume24hrMicros),
      liquidity: formatUnits(live.liquidityMicros, 6),
      liquidityNum: amount(live.liquidityMicros),
    };
  }

  /** The event's markets the scope shows, in the event's order. */
  marketsOf(event: EventRecord, creator: Creator) {
    return event.marketIds.map((id) => this.store.market(id)).filter(present).filter((market) => marketVisible(market, creator)).map((market) => this.marketView(market));
  }

  /**
   * An item of the event list, as JSON: the summary, its tags and (up to EVENT_LIST_MARKETS_MAX
   * of) the markets the scope shows, from their kept texts.
   */
  eventListItemText(event: EventRecord, creator: Creator): string {
    const head = JSON.stringify({ ...this.eventSummary(event, creator), tags: this.tagsOf(event) });
    const markets: MarketRecord[] = [];
    for (const id of event.marketIds) {
      if (markets.length >= EVENT_LIST_MARKETS_MAX) break;
      const market = this.store.market(id);
      if (market !== undefined && marketVisible(market, creator)) markets.push(market);
    }
    return `${head.slice(0, -1)},"markets":${this.marketsText(markets)}}`;
  }

  /** A single event read: summary, tags, the markets the scope shows, series and metadata. */
  eventFull(event: EventRecord, creator: Creator) {
    return {
      ...this.eventSummary(event, creator),
      tags: this.tagsOf(event),
      markets: this.marketsOf(event, creator),
      series: event.seriesIds.map((id) => this.store.series(id)).filter(present).map(seriesView),
      eventMetadata: event.metadata,
    };
  }

  /** A single market read: the market and its event (its sums over the markets the scope shows). */
  marketWithEvents(market: MarketRecord, creator: Creator) {
    const event = this.store.event(market.eventId);
    return { ...this.marketView(market), events: event === undefined ? [] : [this.eventSummary(event, creator)] };
  }

  /** An item of the series list: the series and the events the scope shows. */
  seriesWithEvents(series: SeriesRecord, creator: Creator) {
    const events = this.store.eventIdsOfSeries(series.id).map((id) => this.store.event(id)).filter(present).filter((event) => eventVisible(event, creator));
    return { ...seriesView(series), events: events.map((event) => this.eventSummary(event, creator)) };
  }

  private tagsOf(event: EventRecord) {
    return event.tagIds.map((id) => this.store.tag(id)).filter(present).map(tagView);
  }
}

export function seriesView(series: SeriesRecord) {
  return {
    id: String(series.id),
    ticker: series.ticker,
    slug: series.slug,
    title: series.title,
    seriesType: series.seriesType,
    recurrence: series.recurrence,
    image: series.image,
    icon: series.icon,
    active: series.active,
    closed: series.closed,
    archived: series.archived,
    createdAt: iso(series.createdAtMs),
    updatedAt: iso(series.updatedAtMs),
    description: series.description,
  };
}

// Catalog records rendered as the interface's resources. Each view lists its fields explicitly,
// so nothing internal (creators, micro-units, index data) leaks into a response. Field order
// follows interface.md; Gamma's extra fields that bots read come after.
import { unitsNumber } from '../decimal.js';
import type { CatalogStore } from './store.js';
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

export function eventSummary(event: EventRecord) {
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
    volume: amount(event.volumeMicros),
    liquidity: amount(event.liquidityMicros),
    openInterest: amount(event.openInterestMicros),
  };
}

export function marketView(market: MarketRecord) {
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
    volume: String(amount(market.volumeMicros)),
    volumeNum: amount(market.volumeMicros),
    liquidity: String(amount(market.liquidityMicros)),
    liquidityNum: amount(market.liquidityMicros),
  };
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

function present<T>(value: T | undefined): value is T {
  return value !== undefined;
}

function tagsOf(store: CatalogStore, event: EventRecord) {
  return event.tagIds.map((id) => store.tag(id)).filter(present).map(tagView);
}

/** An item of the event list: the summary plus its tags. */
export function eventListItem(store: CatalogStore, event: EventRecord) {
  return { ...eventSummary(event), tags: tagsOf(store, event) };
}

/** A single event read: summary, tags, the markets the scope shows, series and metadata. */
export function eventFull(store: CatalogStore, event: EventRecord, creator: Creator) {
  return {
    ...eventSummary(event),
    tags: tagsOf(store, event),
    markets: event.marketIds.map((id) => store.market(id)).filter(present).filter((market) => marketVisible(market, creator)).map(marketView),
    series: event.seriesIds.map((id) => store.series(id)).filter(present).map(seriesView),
    eventMetadata: event.metadata,
  };
}

/** A single market read: the market and its event. */
export function marketWithEvents(store: CatalogStore, market: MarketRecord) {
  const event = store.event(market.eventId);
  return { ...marketView(market), events: event === undefined ? [] : [eventSummary(event)] };
}

/** An item of the series list: the series and the events the scope shows. */
export function seriesWithEvents(store: CatalogStore, series: SeriesRecord, creator: Creator) {
  const events = store.eventIdsOfSeries(series.id).map((id) => store.event(id)).filter(present).filter((event) => eventVisible(event, creator));
  return { ...seriesView(series), events: events.map(eventSummary) };
}

// Trading markets on the CLOB listener (interface.md "Trading market"): the catalog's markets
// with their live state from the read model: whether they accept orders, each token's price
// (the midpoint, else the last trade) and the winner once resolved. Lists page 1000 with base64
// offset cursors: MA== first, LTE= after the last page, a malformed cursor is 400.
import { BYTES32 } from '../auth/eip712.js';
import type { CatalogStore } from '../catalog/store.js';
import type { MarketRecord } from '../catalog/model.js';
import { unitsNumber } from '../decimal.js';
import { badRequest, notFound } from '../errors.js';
import { string } from '../params.js';
import { json, type Reply } from '../respond.js';
import { ok, ref } from '../response_schemas.js';
import { route, type CachePolicy, type Route } from '../router.js';
import { cursorOf, cursorOffset, END_CURSOR } from '../cursor.js';
import { BUY, SELL, type MarketBook } from './book.js';
import { keptWhile, type BookVersion } from './book_versions.js';

export const MARKETS_PAGE = 1000;

const FEE_PRICE_DECIMALS = 4;
/** What a token with neither both sides quoted nor a trade shows as its price. */
const NO_PRICE_UNITS = 5_000;

export interface TradingMarketDeps {
  readonly store: CatalogStore;
  readonly book: (conditionId: string) => MarketBook | undefined;
  /** The catalog's version cell, with front-end threads (book_versions.ts): their answers are kept while it and their books hold. */
  readonly catalogVersion: (() => BookVersion) | undefined;
  /**
   * The answers kept on the main thread too, while the catalog and every book are unchanged (the
   * catalog's live policy: server.ts liveCached): a list is built once per change, not per read.
   */
  readonly cached: CachePolicy;
}

/**
 * A list is kept by the front-end threads while the catalog and every market's book are unchanged
 * (a market outside the page can join the sampling list): up to this many markets; a bigger
 * catalog's lists are always answered by the main thread.
 */
const KEPT_LIST_MARKETS_MAX = 4_096;

function iso(ms: number): string {
  return ms > 0 ? new Date(ms).toISOString() : '';
}

/** Midpoint (5 decimals) when both sides are quoted, else the last trade, else 0.5; 1/0 once resolved. */
function tokenPrice(book: MarketBook | undefined, outcome: number): number {
  if (book === undefined) return unitsNumber(NO_PRICE_UNITS, 4);
  if (book.resolved) return book.winner === outcome ? 1 : 0;
  const bid = book.best(outcome, BUY);
  const ask = book.best(outcome, SELL);
  if (bid !== -1 && ask !== -1) return unitsNumber((bid + ask) * 5, 5);
  return unitsNumber(book.lastTrades[outcome]?.priceUnits ?? NO_PRICE_UNITS, 4);
}

function state(market: MarketRecord, book: MarketBook | undefined) {
  const resolved = book?.resolved ?? false;
  const closed = market.closed || resolved;
  const accepting = market.enableOrderBook && market.acceptingOrders && !closed && (book?.accepting ?? false);
  return { resolved, closed, accepting };
}

function statusOf(market: MarketRecord, book: MarketBook | undefined): string {
  const { resolved, closed, accepting } = state(market, book);
  if (resolved) return 'resolved';
  if (closed) return 'closed';
  return accepting ? 'active' : 'paused';
}

function tokens(market: MarketRecord, book: MarketBook | undefined) {
  return market.tokenIds.map((tokenId, outcome) => ({
    token_id: tokenId, outcome: market.outcomes[outcome]!, price: tokenPrice(book, outcome),
    winner: book?.resolved === true && book.winner === outcome,
  }));
}

const NO_REWARDS = { rates: [], min_size: 0, max_spread: 0 };

export class TradingMarketViews {
  constructor(private readonly deps: TradingMarketDeps) {}

  /** The list variant: fields present in all three shapes. */
  listed(market: MarketRecord): Record<string, unknown> {
    const book = this.deps.book(market.conditionId);
    const { closed, accepting } = state(market, book);
    const event = this.deps.store.event(market.eventId);
    return {
      enable_order_book: market.enableOrderBook, active: market.active, closed, archived: market.archived, accepting_orders: accepting,
      accepting_order_timestamp: iso(market.createdAtMs), condition_id: market.conditionId, question_id: market.questionId,
      question: market.question, description: market.description, market_slug: market.slug, end_date_iso: iso(market.endDateMs),
      game_start_time: '', fpmm: '', neg_risk_market_id: market.negRisk ? (event?.ticker ?? '') : '', neg_risk_request_id: '',
      icon: market.icon, image: market.image,
      minimum_order_size: unitsNumber(book?.minSizeMicros ?? market.minSizeMicros, 6),
      minimum_tick_size: unitsNumber(book?.tickUnits ?? market.tickUnits, FEE_PRICE_DECIMALS),
      seconds_delay: 0, maker_base_fee: market.makerBaseFeeBps, taker_base_fee: book?.feeBps ?? market.takerBaseFeeBps,
      taker_order_delay_ms: 0, order_age_seconds: 0,
      notifications_enabled: true, neg_risk: market.negRisk, is_50_50_outcome: false, itode: false, screening_check_enabled: false,
      rewards: NO_REWARDS, tokens: tokens(market, book),
      tags: (event?.tagIds ?? []).map((id) => this.deps.store.tag(id)?.label).filter((label): label is string => label !== undefined),
    };
  }

  /** The full variant: market by condition id and sampling markets. */
  full(market: MarketRecord): Record<string, unknown> {
    const book = this.deps.book(market.conditionId);
    const event = this.deps.store.event(market.eventId);
    return {
      ...this.listed(market), status: statusOf(market, book), slug: market.slug, market_id: market.id,
      assets_ids: [...market.tokenIds], outcomes: [...market.outcomes],
      event: { id: String(event?.id ?? ''), slug: event?.slug ?? '', title: event?.title ?? '', ticker: event?.ticker ?? '', description: event?.description ?? '' },
      raw_metadata: { group_item_title: market.groupItemTitle, resolution_source: market.resolutionSource },
    };
  }

  simplified(market: MarketRecord): Record<string, unknown> {
    const book = this.deps.book(market.conditionId);
    const { closed, accepting } = state(market, book);
    return {
      condition_id: market.conditionId, status: statusOf(market, book), question: market.question, slug: market.slug,
      neg_risk: market.negRisk, active: market.active, closed, archived: market.archived, accepting_orders: accepting,
      market_id: market.id, tokens: tokens(market, book), rewards: NO_REWARDS,
      assets_ids: [...market.tokenIds], outcomes: [...market.outcomes],
    };
  }

  /** The settings endpoint's abbreviated keys (contract §5). */
  settings(market: MarketRecord): Record<string, unknown> {
    const book = this.deps.book(market.conditionId);
    const takerFeeBps = book?.feeBps ?? market.takerBaseFeeBps;
    return {
      c: market.conditionId, t: market.tokenIds.map((tokenId, outcome) => ({ t: tokenId, o: market.outcomes[outcome]! })),
      mts: unitsNumber(book?.tickUnits ?? market.tickUnits, FEE_PRICE_DECIMALS), mos: unitsNumber(book?.minSizeMicros ?? market.minSizeMicros, 6),
      mbf: market.makerBaseFeeBps, tbf: takerFeeBps, r: NO_REWARDS, nr: market.negRisk, rfqe: false, itode: false, ibce: false,
      oas: 0, gst: '', fd: { r: unitsNumber(takerFeeBps, 4), e: 1, to: true },
    };
  }
}

/** Sampling markets: the ones a market maker can quote now (order book on, accepting orders). */
function isSampling(views: TradingMarketDeps, market: MarketRecord): boolean {
  return market.active && state(market, views.book(market.conditionId)).accepting;
}

function page(markets: readonly MarketRecord[], cursor: string | undefined, shape: (market: MarketRecord) => Record<string, unknown>): Reply {
  if (cursor === END_CURSOR) return json({ data: [], next_cursor: END_CURSOR, limit: MARKETS_PAGE, count: 0 });
  const offset = cursorOffset(cursor);
  const data = markets.slice(offset, offset + MARKETS_PAGE).map(shape);
  const next = offset + MARKETS_PAGE < markets.length ? cursorOf(offset + MARKETS_PAGE) : END_CURSOR;
  return json({ data, next_cursor: next, limit: MARKETS_PAGE, count: data.length });
}

const cursorQuery = { next_cursor: string({ description: 'base64 offset; MA== first; LTE= is the end', maxLength: 32 }) };
const conditionParams = { condition_id: string({ required: true, description: 'condition id (0x + 64 hex)', maxLength: 66 }) };

export function tradingMarketRoutes(deps: TradingMarketDeps): Route[] {
  const views = new TradingMarketViews(deps);
  const byCondition = (raw: string): MarketRecord => {
    if (!BYTES32.test(raw)) throw badRequest('invalid condition_id');
    const id = deps.store.find('condition', raw.toLowerCase());
    const market = id === undefined ? undefined : deps.store.market(id);
    if (market === undefined) throw notFound('market not found');
    return market;
  };
  /** `reply`, kept by a front-end thread while the catalog and the books of `markets` are unchanged (Reply.validity). */
  const kept = (reply: Reply, markets: readonly MarketRecord[]): Reply => {
    const catalog = deps.catalogVersion?.();
    if (catalog === undefined || markets.length > KEPT_LIST_MARKETS_MAX) return reply;
    return keptWhile(reply, [catalog, ...markets.map((market) => deps.book(market.conditionId)?.validity())]);
  };
  /** One page of a list: kept while the catalog and every market's book are unchanged. */
  const listPage = (cursor: string | undefined, sampling: boolean, shape: (market: MarketRecord) => Record<string, unknown>): Reply => {
    const markets = deps.store.allMarkets();
    return kept(page(sampling ? markets.filter((market) => isSampling(deps, market)) : markets, cursor, shape), markets);
  };
  /** A read of one market: kept while the catalog and its book are unchanged. */
  const oneMarket = (raw: string, shape: (market: MarketRecord) => Record<string, unknown>): Reply => {
    const market = byCondition(raw);
    return kept(json(shape(market)), [market]);
  };
  return [
    route({
      method: 'GET', path: '/markets', cached: deps.cached, limits: ['market data'], summary: 'Trading markets (list variant), 1000 per page.', query: cursorQuery,
      response: ok(ref('TradingMarketListedPage')),
      handler: (context) => listPage(context.query.next_cursor, false, (market) => views.listed(market)),
    }),
    route({
      method: 'GET', path: '/markets/:condition_id', cached: deps.cached, limits: ['market data'], summary: 'One trading market (full variant).', params: conditionParams,
      response: ok(ref('TradingMarket')),
      handler: (context) => oneMarket(context.params.condition_id, (market) => views.full(market)),
    }),
    route({
      method: 'GET', path: '/sampling-markets', cached: deps.cached, limits: ['market data'], summary: 'Markets accepting orders now (full variant), 1000 per page.', query: cursorQuery,
      response: ok(ref('TradingMarketPage')),
      handler: (context) => listPage(context.query.next_cursor, true, (market) => views.full(market)),
    }),
    route({
      method: 'GET', path: '/simplified-markets', cached: deps.cached, limits: ['market data'], summary: 'Every trading market (simplified), 1000 per page.', query: cursorQuery,
      response: ok(ref('SimplifiedMarketPage')),
      handler: (context) => listPage(context.query.next_cursor, false, (market) => views.simplified(market)),
    }),
    route({
      method: 'GET', path: '/sampling-simplified-markets', cached: deps.cached, limits: ['market data'], summary: 'Markets accepting orders now (simplified), 1000 per page.', query: cursorQuery,
      response: ok(ref('SimplifiedMarketPage')),
      handler: (context) => listPage(context.query.next_cursor, true, (market) => views.simplified(market)),
    }),
    route({
      method: 'GET', path: '/clob-markets/:condition_id', cached: deps.cached, limits: ['market data'], summary: "A market's trading settings (abbreviated keys).", params: conditionParams,
      response: ok(ref('MarketSettings')),
      handler: (context) => oneMarket(context.params.condition_id, (market) => views.settings(market)),
    }),
  ];
}

// What each route answers, as JSON Schema 2020-12 (the dialect of OpenAPI 3.1): the bodies of
// interface.md's resources and of contract.md's answers, one definition per shape, shared by
// name (components.schemas of each listener's OpenAPI document) and referenced with $ref. Shapes
// the interface fixes are closed (additionalProperties or unevaluatedProperties false), so a
// field a route sends that is not described here fails the tests that validate every answer.
// A resource with variants (a market with or without its events, an order with or without
// updatedAt) has an open `…Fields` schema and closed variants that add to it.

import { EVENT_LIST_MARKETS_MAX } from './catalog/views.js';

export type JsonSchema = Readonly<Record<string, unknown>>;

/** One answer of a route other than the listener's error body: its status's description, body schema and content type. */
export interface ResponseDoc {
  readonly description: string;
  /** The body's JSON Schema; absent: the listener's error body ({error}, or {type, error} for catalog 400/404). */
  readonly schema?: JsonSchema;
  /** application/json unless given. */
  readonly contentType?: string;
  /** Response headers the answer carries (lower-case names), e.g. retry-after. */
  readonly headers?: readonly string[];
}

/** A route's answers by status: its success (200 or 201) and every status it answers besides the generic ones. */
export type Responses = Readonly<Record<number, ResponseDoc>>;

const string = { type: 'string' } as const;
const boolean = { type: 'boolean' } as const;
const number = { type: 'number' } as const;
const integer = { type: 'integer' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
/** A decimal in a string ("0.55", "12"): prices, sizes and amounts at the HTTP edge (decimal.ts). */
const decimalString = { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$' } as const;
/** An integer in a string: micro-unit balances, fee rates in bps, unix seconds. */
const integerString = { type: 'string', pattern: '^-?[0-9]+$' } as const;
const side = { type: 'string', enum: ['BUY', 'SELL'] } as const;
const stringArray = { type: 'array', items: string } as const;

type Properties = Readonly<Record<string, JsonSchema>>;

/** A closed object whose every listed property is required (interface.md: "every field listed is returned"). */
function closed(properties: Properties): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/** The open base of a resource with variants: its properties, all required, extra fields allowed for the variants. */
function fields(properties: Properties): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** A closed variant of an open base: the base's fields plus `properties` (all required), nothing else. */
function variant(base: string, properties: Properties = {}): JsonSchema {
  const added = Object.keys(properties);
  // allOf rather than $ref beside other keywords: both are 2020-12, but OpenAPI tools that
  // inline references (the validator the tests use among them) replace a $ref's whole object.
  return { type: 'object', allOf: [{ $ref: pointer(base) }], ...(added.length === 0 ? {} : { properties, required: added }), unevaluatedProperties: false };
}

export function arrayOf(items: JsonSchema): JsonSchema {
  return { type: 'array', items };
}

/** interface.md's paged list envelope around `items`. */
function paged(items: JsonSchema): JsonSchema {
  return closed({ data: arrayOf(items), next_cursor: string, limit: integer, count: integer });
}

const SCHEMA_POINTER = '#/components/schemas/';

function pointer(name: string): string {
  return SCHEMA_POINTER + name;
}

// Inside the tables (this one and request_schemas.ts's), schemas refer to each other by name
// before the table exists (a type over its own keys would be circular): link() takes any name,
// and every name is checked at load.
export function link(name: string): JsonSchema {
  return { $ref: pointer(name) };
}

const schemaTable = {
  // Errors (contract §2).
  Error: closed({ error: string }),
  CatalogError: closed({ type: { type: 'string', enum: ['bad request', 'not found error'] }, error: string }),
  HeartbeatIdError: closed({ error: { const: 'Invalid Heartbeat ID' }, heartbeat_id: string }),

  // Service answers of the CLOB listener.
  /** GET /health and POST /heartbeats. */
  StatusOk: closed({ status: { const: 'ok' } }),
  /** GET /version: the exchange's order version (2: contract §4's Order type). */
  Version: closed({ version: integer }),
  Ready: closed({ status: { const: 'ready' }, shards: integer }),
  NotReady: closed({
    error: { const: 'not ready' },
    shards: arrayOf({
      type: 'object', additionalProperties: false, required: ['shard', 'ready'],
      properties: {
        shard: integer, ready: boolean,
        storageError: { ...string, description: 'Present while the shard is down because its storage failed (a full disk, an I/O error): what failed. The shard retries by itself.' },
        storageErrorSince: { ...dateTime, description: 'When that failure began.' },
      },
    }),
    marketData: boolean,
    accountData: boolean,
  }),
  /** GET /openapi.json: an OpenAPI 3.1 document (its own schema is the OpenAPI specification's). */
  OpenApiDocument: fields({ openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } }),

  // Catalog (interface.md "Event summary" … "Search"), with the Gamma fields bots read after them.
// Volumes, liquidity, prices and quotes are live: the catalog computes them at the read.
  Tag: closed({ id: string, label: string, slug: string, createdAt: dateTime, updatedAt: dateTime, requiresTranslation: boolean }),
  EventSummaryFields: fields({
    id: string, ticker: string, slug: string, title: string, description: string, resolutionSource: string, image: string, icon: string,
    startDate: dateTime, creationDate: dateTime, endDate: dateTime, createdAt: dateTime, updatedAt: dateTime,
    active: boolean, closed: boolean, archived: boolean, featured: boolean, restricted: boolean, negRisk: boolean,
    volume: { ...number, minimum: 0, description: "Collateral: the sum of its markets' volume (those the read's creator shows)" },
    volume24hr: { ...number, minimum: 0, description: "Collateral: the sum of its markets' volume24hr" },
    liquidity: { ...number, minimum: 0, description: "Collateral: the sum of its markets' liquidity" },
    openInterest: { ...number, description: 'Collateral, as the event was created or imported with' },
  }),
  EventSummary: variant('EventSummaryFields'),
  EventListItem: variant('EventSummaryFields', {
    tags: arrayOf(link('Tag')),
    markets: { ...arrayOf(link('CatalogMarket')), maxItems: EVENT_LIST_MARKETS_MAX, description: `The markets the read's scope shows, at most ${EVENT_LIST_MARKETS_MAX} (GET /events/{id} has them all)` },
  }),
  Event: variant('EventSummaryFields', {
    tags: arrayOf(link('Tag')), markets: arrayOf(link('CatalogMarket')), series: arrayOf(link('Series')), eventMetadata: { type: 'object' },
  }),
  CatalogMarketFields: fields({
    id: string, question: string, conditionId: string, slug: string, resolutionSource: string, image: string, icon: string, description: string,
    questionID: string, outcomes: string, clobTokenIds: string, startDate: dateTime, endDate: dateTime, createdAt: dateTime, updatedAt: dateTime,
    active: boolean, closed: boolean, archived: boolean,
    groupItemTitle: string, enableOrderBook: boolean, acceptingOrders: boolean, orderPriceMinTickSize: number, orderMinSize: number,
    negRisk: boolean, makerBaseFee: number, takerBaseFee: number,
    // Live: computed from the market's book and trades at the read (catalog/live.ts).
    outcomePrices: {
      ...string, pattern: '^\\["[0-9.]+","[0-9.]+"\\]$',
      description: "Each outcome's price, a JSON array of decimal strings in outcome order: 1 and 0 once resolved; the midpoint of its book when the spread is at most 0.10; else its last trade; else the midpoint of a wider spread; else 0.5",
    },
    bestBid: { type: ['number', 'null'], minimum: 0, maximum: 1, description: "The first outcome's best bid; null when it has none" },
    bestAsk: { type: ['number', 'null'], minimum: 0, maximum: 1, description: "The first outcome's best ask; null when it has none" },
    spread: { type: ['number', 'null'], minimum: 0, maximum: 1, description: 'bestAsk − bestBid; null when either is' },
    lastTradePrice: { type: ['number', 'null'], minimum: 0, maximum: 1, description: "The first outcome's last trade price; null before its first trade" },
    volume: { ...decimalString, description: 'Collateral traded: every fill once, at the taker\'s price' },
    volumeNum: { ...number, minimum: 0, description: 'volume as a number' },
    volume24hr: { ...number, minimum: 0, description: 'volume of the fills in the current clock hour (UTC) and the 23 before it' },
    liquidity: { ...decimalString, description: "Collateral: price × size of every order resting in the first outcome's book, bids and asks" },
    liquidityNum: { ...number, minimum: 0, description: 'liquidity as a number' },
  }),
  CatalogMarket: variant('CatalogMarketFields'),
  CatalogMarketWithEvents: variant('CatalogMarketFields', { events: arrayOf(link('EventSummary')) }),
  SeriesFields: fields({
    id: string, ticker: string, slug: string, title: string, seriesType: string, recurrence: string, image: string, icon: string,
    active: boolean, closed: boolean, archived: boolean, createdAt: dateTime, updatedAt: dateTime, description: string,
  }),
  Series: variant('SeriesFields'),
  SeriesWithEvents: variant('SeriesFields', { events: arrayOf(link('EventSummary')) }),
  SearchResults: closed({
    events: arrayOf(closed({ id: string, ticker: string, slug: string, title: string })),
    tags: arrayOf(closed({ id: string, label: string, slug: string, event_count: integer })),
    pagination: closed({ hasMore: boolean, totalResults: integer }),
  }),

  // Trading markets (interface.md "Trading market" … "Trading market settings").
  Token: closed({ token_id: string, outcome: string, price: number, winner: boolean }),
  Rewards: closed({ rates: arrayOf(closed({ asset_address: string, rewards_daily_rate: number })), min_size: number, max_spread: number }),
  TradingMarketFields: fields({
    enable_order_book: boolean, active: boolean, closed: boolean, archived: boolean, accepting_orders: boolean,
    accepting_order_timestamp: string, condition_id: string, question_id: string, question: string, description: string, market_slug: string,
    end_date_iso: string, game_start_time: string, fpmm: string, neg_risk_market_id: string, neg_risk_request_id: string, icon: string, image: string,
    minimum_order_size: number, minimum_tick_size: number, seconds_delay: number, maker_base_fee: number, taker_base_fee: number,
    taker_order_delay_ms: number, order_age_seconds: number,
    notifications_enabled: boolean, neg_risk: boolean, is_50_50_outcome: boolean, itode: boolean, screening_check_enabled: boolean,
    rewards: link('Rewards'), tokens: arrayOf(link('Token')), tags: stringArray,
  }),
  TradingMarketListed: variant('TradingMarketFields'),
  TradingMarket: variant('TradingMarketFields', {
    status: string, slug: string, market_id: number, assets_ids: stringArray, outcomes: stringArray,
    event: closed({ id: string, slug: string, title: string, ticker: string, description: string }), raw_metadata: { type: 'object' },
  }),
  SimplifiedMarket: closed({
    condition_id: string, status: string, question: string, slug: string, neg_risk: boolean, active: boolean, closed: boolean, archived: boolean,
    accepting_orders: boolean, market_id: number, tokens: arrayOf(link('Token')), rewards: link('Rewards'), assets_ids: stringArray, outcomes: stringArray,
  }),
  MarketSettings: closed({
    gst: string, c: string, r: link('Rewards'), nr: boolean, rfqe: boolean, itode: boolean, ibce: boolean,
    t: arrayOf(closed({ t: string, o: string })), mts: number, mos: number, mbf: number, tbf: number, oas: number,
    fd: closed({ r: number, e: number, to: boolean }),
  }),
  TradingMarketListedPage: paged(link('TradingMarketListed')),
  TradingMarketPage: paged(link('TradingMarket')),
  SimplifiedMarketPage: paged(link('SimplifiedMarket')),

  // Books and prices (interface.md "Order book", contract §5).
  OrderBookSummary: closed({
    market: string, asset_id: string, timestamp: integerString, hash: { type: 'string', pattern: '^[0-9a-f]{40}$' },
    bids: arrayOf(link('PriceLevel')), asks: arrayOf(link('PriceLevel')),
    min_order_size: decimalString, tick_size: decimalString, last_trade_price: decimalString, neg_risk: boolean,
  }),
  PriceLevel: closed({ price: decimalString, size: decimalString }),
  /** POST /prices: token id → the sides that have orders. */
  BestPrices: {
    type: 'object',
    additionalProperties: { type: 'object', properties: { BUY: decimalString, SELL: decimalString }, additionalProperties: false },
  },
  Price: closed({ price: decimalString }),
  Midpoint: closed({ mid: decimalString }),
  Spread: closed({ spread: decimalString }),
  /** side: the taker's, "" before the first trade (price then 0.5). */
  LastTradePrice: closed({ price: decimalString, side: { type: 'string', enum: ['BUY', 'SELL', ''] } }),
  /** POST /midpoints and /spreads: token id → value; a token with an empty side is left out. */
  TokenValues: { type: 'object', additionalProperties: decimalString },
  TokenLastTradePrice: closed({ token_id: string, price: decimalString, side: { type: 'string', enum: ['BUY', 'SELL', ''] } }),
  TickSize: closed({ minimum_tick_size: number }),
  /** The market's taker fee in basis points. */
  FeeRate: closed({ base_fee: integer }),
  /** GET /markets-by-token/{token_id}: the market a token belongs to, its tokens in outcome order. */
  MarketByToken: closed({ condition_id: string, primary_token_id: string, secondary_token_id: string }),
  NegRisk: closed({ neg_risk: boolean }),
  PricePoint: closed({ t: integer, p: number }),
  PriceHistory: closed({ history: arrayOf(link('PricePoint')) }),
  /** POST /batch-prices-history: token id → its points. */
  PriceHistories: closed({ history: { type: 'object', additionalProperties: arrayOf(link('PricePoint')) } }),

  // Orders and account reads (interface.md "Account order", "Account trade", contract §4).
  OrderPlacement: closed({
    success: boolean, errorMsg: string, orderID: string, status: { type: 'string', enum: ['live', 'matched', ''] },
    makingAmount: { anyOf: [decimalString, { const: '' }] }, takingAmount: { anyOf: [decimalString, { const: '' }] },
  }),
  CancelResult: closed({ canceled: stringArray, not_canceled: { type: 'object', additionalProperties: string } }),
  AccountOrderFields: fields({
    associateTrades: stringArray, id: string, status: { type: 'string', enum: ['LIVE', 'MATCHED', 'CANCELED', 'CANCELED_MARKET_RESOLVED'] },
    market: string, originalSize: decimalString, outcome: string, makerAddress: string, owner: string, price: decimalString,
    sizeMatched: decimalString, assetId: string, side, type: { type: 'string', enum: ['GTC', 'GTD', 'FOK', 'FAK'] }, createdAt: dateTime,
    // The snake_case names of Polymarket's own clients (their OpenOrder), beside the interface's.
    associate_trades: stringArray, original_size: decimalString, size_matched: decimalString, maker_address: string, asset_id: string,
    order_type: { type: 'string', enum: ['GTC', 'GTD', 'FOK', 'FAK'] }, created_at: integer, expiration: integerString,
  }),
  AccountOrder: variant('AccountOrderFields'),
  AccountOrderDetail: variant('AccountOrderFields', { updatedAt: dateTime }),
  AccountOrderRead: closed({ order: link('AccountOrderDetail') }),
  AccountOrderPage: paged(link('AccountOrder')),
  AccountTrade: closed({
    id: string, taker_order_id: string, market: string, asset_id: string, side, size: decimalString, fee_rate_bps: integerString,
    price: decimalString, status: { type: 'string', enum: ['CONFIRMED'] }, match_time: dateTime, last_update: dateTime, outcome: string,
    bucket_index: integer, owner: string, maker_address: string, transaction_hash: string,
    maker_orders: arrayOf(closed({
      order_id: string, maker_address: string, owner: string, matched_amount: decimalString, fee_rate_bps: integerString, price: decimalString,
      asset_id: string, outcome: string, side,
    })),
    type: { type: 'string', enum: ['TAKER', 'MAKER'] },
    trader_side: { type: 'string', enum: ['TAKER', 'MAKER'] },
  }),
  AccountTradePage: paged(link('AccountTrade')),
  HeartbeatId: closed({ heartbeat_id: string }),
  ApiKeys: closed({ apiKeys: arrayOf({ type: 'string', format: 'uuid' }) }),
  BalanceAllowance: closed({ balance: integerString, allowance: integerString }),
  ApiCredentials: closed({ apiKey: { type: 'string', format: 'uuid' }, secret: string, passphrase: { type: 'string', pattern: '^[0-9a-f]{64}$' } }),

  // Polymarket's own account routes that have nothing behind them here (no bans, notifications or
  // rewards): fixed answers in the shapes its clients' types declare.
  BanStatus: closed({ closed_only: boolean }),
  Notification: closed({ type: integer, owner: string, payload: {} }),
  OrderScoring: closed({ scoring: boolean }),
  /** POST /orders-scoring: order id → whether it scores. */
  OrdersScoring: { type: 'object', additionalProperties: boolean },

  // Public feeds (interface.md "Public trade fill", "Activity item").
  PublicTrade: closed({
    proxyWallet: string, side, asset: { type: 'string', pattern: '^.+:[0-9]+$' }, conditionId: string, size: number, price: number, usdcSize: number,
    timestamp: integer, title: string, slug: string, icon: string, eventSlug: string, outcome: string, outcomeIndex: integer,
    name: string, pseudonym: string, bio: string, profileImage: string, profileImageOptimized: string, transactionHash: string,
  }),
  /** A trade (side BUY/SELL, asset <condition_id>:<outcome_index>), or a REDEEM or DEPOSIT (side and asset ""). */
  Activity: closed({
    proxyWallet: string, timestamp: integer, conditionId: string, type: { type: 'string', enum: ['TRADE', 'REDEEM', 'DEPOSIT'] },
    size: number, usdcSize: number, transactionHash: string, price: number, asset: { type: 'string', pattern: '^(.+:[0-9]+)?$' },
    side: { type: 'string', enum: ['BUY', 'SELL', ''] }, outcomeIndex: integer, title: string, slug: string, icon: string, eventSlug: string,
    outcome: string, name: string, pseudonym: string, bio: string, profileImage: string, profileImageOptimized: string,
  }),

  /** GET /markets/live-activity/{condition_id}: a fill as Polymarket's market trade event (its client's MarketTradeEvent), from the taker's side. */
  MarketTradeEvent: closed({
    event_type: { const: 'trade' },
    market: closed({ condition_id: string, asset_id: string, question: string, icon: string, slug: string }),
    user: closed({ address: string, username: string, profile_picture: string, optimized_profile_picture: string, pseudonym: string }),
    side, size: decimalString, fee_rate_bps: integerString, price: decimalString, outcome: string, outcome_index: integer,
    transaction_hash: string, timestamp: integerString,
  }),

  // Admin (contract §8).
  Profile: closed({ address: string, name: string, pseudonym: string, bio: string, profileImage: string }),
  MarketAcceptance: closed({ condition_id: string, accepting_orders: boolean }),
  MarketResolution: closed({ condition_id: string, winner: string, winner_token_id: string }),
  Deposit: closed({ address: string, amount: integerString }),
  AdminStatus: closed({
    invariantsHold: boolean,
    shards: arrayOf(closed({
      stateHash: string, seq: integer, batch: integer, invariantsHold: boolean, invariantError: string,
      stats: { type: 'object', additionalProperties: number },
    })),
  }),
} satisfies Record<string, JsonSchema>;

export type SchemaName = keyof typeof schemaTable;
export const schemas: Readonly<Record<string, JsonSchema>> = schemaTable;

/** A reference to a shared schema, for the routes' declarations. */
export function ref(name: SchemaName): JsonSchema {
  return link(name);
}

/** A 200 answer with this body. */
export function ok(schema: JsonSchema, description = 'Success.'): Responses {
  return { 200: { description, schema } };
}

/** The listener's error body under `status`, for a route that answers it beyond the generic statuses. */
export function failure(description: string): ResponseDoc {
  return { description };
}

/** The names of the shared schemas (of `table`) `roots` refer to, directly or through others. */
export function referencedSchemas(roots: readonly unknown[], table: Readonly<Record<string, JsonSchema>> = schemas): Set<string> {
  const found = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      pending.push(...value);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_POINTER)) {
          const name = inner.slice(SCHEMA_POINTER.length);
          if (!(name in table)) throw new Error(`schema ${name} is referred to but not defined`);
          if (!found.has(name)) {
            found.add(name);
            pending.push(table[name]);
          }
        } else {
          pending.push(inner);
        }
      }
    }
  }
  return found;
}

// Every name the table refers to is defined (checked once, at load).
referencedSchemas(Object.values(schemas));

// Books and prices (contract §5), answered from the read model (market_data.ts) without asking a
// matching worker. A token's book body is serialized once per book version and reused until the
// next change, so a read between two changes costs a lookup and a write. Besides the interface's
// routes, the batch and fee reads Polymarket serves and its official client calls (POST
// /midpoints, /spreads, /last-trades-prices; GET /fee-rate, /markets-by-token), each value
// computed by the same function as its single-token sibling's.
import { createHash } from 'node:crypto';
import { PRICE_UNITS_PER_ONE } from '../../engine/constants.js';
import { TOKEN_ID_PATTERN } from '../catalog/ids.js';
import type { MarketRecord } from '../catalog/model.js';
import { formatUnits, unitsNumber } from '../decimal.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { oneOf, string } from '../params.js';
import { json, type Reply } from '../respond.js';
import { requestRef } from '../request_schemas.js';
import { arrayOf, failure, ok, ref, type JsonSchema, type Responses } from '../response_schemas.js';
import { route, type Route } from '../router.js';
import { BUY, SELL, type MarketBook, type TradeSide } from './book.js';
import { keptWhile } from './book_versions.js';

export const NO_BOOK = 'No orderbook exists for the requested token id';
/** The documented 404 of every route that names a token. */
export const NO_BOOK_ANSWER = failure(`A token without an order book (${NO_BOOK}).`);

/** A token read: its body, or the 404 of an unknown token. */
function tokenRead(schema: JsonSchema): Responses {
  return { ...ok(schema), 404: NO_BOOK_ANSWER };
}
/** Most tokens one batch read (POST /books, /prices, /midpoints, /spreads, /last-trades-prices) names. */
export const BATCH_TOKENS_MAX = 500;

/** A tradable token: its catalog market, outcome index and live book. */
export interface TokenBook {
  readonly market: MarketRecord;
  readonly outcome: number;
  readonly book: MarketBook;
}

/** One item of a batch read's body, its token resolved. */
interface BatchItem {
  readonly tokenId: string;
  readonly side: string | undefined;
  readonly token: TokenBook;
}

export interface MarketDataDeps {
  /** The token's market, outcome and book; undefined for a token without an order book. */
  readonly tokenBook: (tokenId: string) => TokenBook | undefined;
  readonly now: () => number;
}

export function price(units: number): string {
  return formatUnits(units, 4);
}

export function size(micros: number): string {
  return formatUnits(micros, 6);
}

const SIDE_NAMES = ['BUY', 'SELL'] as const;

/** What a token with no trade yet shows as its last trade price (Polymarket shows 0.5). */
const NO_TRADE_PRICE_UNITS = PRICE_UNITS_PER_ONE / 2;

export function lastTradeOf(book: MarketBook, outcome: number): { price: string; side: string } {
  const trade = book.lastTrades[outcome];
  return trade === undefined ? { price: price(NO_TRADE_PRICE_UNITS), side: '' } : { price: price(trade.priceUnits), side: SIDE_NAMES[trade.side] };
}

/**
 * The token's book as Polymarket serves it: bids ascending and asks descending (best last), the
 * hash the SHA-1 of the compact JSON with `hash: ""`, keys in the order Polymarket's clients hash
 * them (py-clob-client's get_order_book_hash builds its own object, `neg_risk` before
 * `last_trade_price`; the TypeScript client hashes the object as served).
 */
export function bookBody(token: TokenBook, tokenId: string): Buffer {
  return bookSummary(token, tokenId).body;
}

/** The token's book as GET /book serves it: the object (with its hash) and its bytes, once per version. */
export function bookSummary(token: TokenBook, tokenId: string): { readonly summary: BookSummary; readonly body: Buffer } {
  return token.book.memo(Slot.BOOK + token.outcome, () => buildBookSummary(token, tokenId));
}

export interface BookSummary {
  readonly market: string;
  readonly asset_id: string;
  readonly timestamp: string;
  hash: string;
  readonly bids: { price: string; size: string }[];
  readonly asks: { price: string; size: string }[];
  readonly min_order_size: string;
  readonly tick_size: string;
  readonly neg_risk: boolean;
  readonly last_trade_price: string;
}

/** memo slots of the answers below: each takes two, one per outcome. */
const Slot = { BOOK: 0, PRICE_BUY: 2, PRICE_SELL: 4, MIDPOINT: 6, SPREAD: 8, LAST_TRADE: 10 } as const;

function buildBookSummary(token: TokenBook, tokenId: string): { summary: BookSummary; body: Buffer } {
  const { book, outcome, market } = token;
  const levels = book.levels(outcome);
  const side = (of: { prices: number[]; sizes: number[] }) => of.prices.map((units, at) => ({ price: price(units), size: size(of.sizes[at]!) }));
  const summary: BookSummary = {
    market: market.conditionId, asset_id: tokenId, timestamp: String(book.changedAtMs), hash: '',
    bids: side(levels.bids), asks: side(levels.asks), min_order_size: size(book.minSizeMicros), tick_size: price(book.tickUnits),
    neg_risk: market.negRisk, last_trade_price: lastTradeOf(book, outcome).price,
  };
  summary.hash = createHash('sha1').update(JSON.stringify(summary)).digest('hex');
  return { summary, body: Buffer.from(JSON.stringify(summary)) };
}

/** A JSON answer of a token kept in its book's memo slot until the book changes. */
function memoJson(token: TokenBook, slot: number, build: () => unknown): Reply {
  return kept(token, token.book.memo(slot + token.outcome, () => Buffer.from(JSON.stringify(build()))));
}

/** A 200 of a token's read, right while its book's version stays (Reply.validity). */
function kept(token: TokenBook, body: Buffer | string): Reply {
  return keptWhile({ status: 200, body }, [token.book.validity()]);
}

/** The best bid and ask of a token (price units); undefined when a side has no orders. */
function quotesOf(token: TokenBook): { readonly bid: number; readonly ask: number } | undefined {
  const bid = token.book.best(token.outcome, BUY);
  const ask = token.book.best(token.outcome, SELL);
  return bid === -1 || ask === -1 ? undefined : { bid, ask };
}

/** Midpoint of the best bid and ask, as GET /midpoint and POST /midpoints show it. */
function midpointOf(token: TokenBook): string | undefined {
  const quotes = quotesOf(token);
  // Half a price unit is a 0.00005 step: the midpoint is exact with five decimals.
  return quotes === undefined ? undefined : formatUnits((quotes.bid + quotes.ask) * 5, 5);
}

/** Best ask minus best bid, as GET /spread and POST /spreads show it. */
function spreadOf(token: TokenBook): string | undefined {
  const quotes = quotesOf(token);
  return quotes === undefined ? undefined : price(quotes.ask - quotes.bid);
}

/** A single-token answer's value; a side without orders is a 404, as Polymarket answers. */
function quoted(value: string | undefined): string {
  if (value === undefined) throw notFound(NO_BOOK);
  return value;
}

function checkTokenId(value: unknown, name = 'token_id'): string {
  if (typeof value !== 'string' || !TOKEN_ID_PATTERN.test(value)) throw badRequest(`invalid ${name}`);
  return value;
}

/** Reads a batch body: an array of objects with a token id (and, for prices, an optional side). */
function batchItems(body: unknown): { tokenId: string; side: string | undefined }[] {
  if (!Array.isArray(body)) throw badRequest('body must be an array of {"token_id"} objects');
  if (body.length > BATCH_TOKENS_MAX) throw badRequest(`at most ${BATCH_TOKENS_MAX} tokens per request`);
  return body.map((item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw badRequest('body must be an array of {"token_id"} objects');
    const { token_id: tokenId, side } = item as Record<string, unknown>;
    if (side !== undefined && side !== 'BUY' && side !== 'SELL') throw badRequest('side must be BUY or SELL');
    return { tokenId: checkTokenId(tokenId), side };
  });
}

const tokenQuery = { token_id: string({ description: 'token id', maxLength: 100 }) };
/** The body of every batch read: [{token_id, side?}]. */
const tokenBatch: JsonSchema = { type: 'array', items: requestRef('TokenRequest'), maxItems: BATCH_TOKENS_MAX };

export function bookRoutes(deps: MarketDataDeps): Route[] {
  const tokenBook = (raw: string | undefined): TokenBook => {
    if (raw === undefined) throw badRequest('token_id is required');
    const token = deps.tokenBook(raw) ?? deps.tokenBook(checkTokenId(raw));
    if (token === undefined) throw notFound(NO_BOOK);
    return token;
  };
  /** The best price on a side; a 404 when that side is empty, as Polymarket answers. */
  const best = (token: TokenBook, side: TradeSide): number => {
    const units = token.book.best(token.outcome, side);
    if (units === -1) throw new HttpError(404, NO_BOOK);
    return units;
  };
  const sideOf = (name: string): TradeSide => (name === 'BUY' ? BUY : SELL);
  /**
   * A batch read (POST /books, /prices, /midpoints, /spreads, /last-trades-prices): each item's
   * token resolved (a 404 for one without a book, as its single-token sibling answers), and the
   * answer kept by a front-end thread while every book of the batch is unchanged (Reply.validity).
   */
  const batchRead = (body: unknown, answer: (items: readonly BatchItem[]) => Reply): Reply => {
    const items = batchItems(body).map((item) => ({ ...item, token: tokenBook(item.tokenId) }));
    return keptWhile(answer(items), items.map(({ token }) => token.book.validity()));
  };
  /**
   * The answer of a batch of single-token values (POST /midpoints, /spreads): `{token_id: value}`,
   * a token whose value is undefined (a side without orders) left out, as POST /prices leaves
   * out an empty side. The object has no prototype, so no token id can reach one.
   */
  const byToken = (body: unknown, valueOf: (token: TokenBook) => string | undefined): Reply => batchRead(body, (items) => {
    const out = Object.create(null) as Record<string, string>;
    for (const { tokenId, token } of items) {
      const value = valueOf(token);
      if (value !== undefined) out[tokenId] = value;
    }
    return json(out);
  });
  /** GET /fee-rate (query or path): Polymarket's name for the market's taker fee, in basis points. */
  const feeRate = (raw: string | undefined): Reply => {
    const token = tokenBook(raw);
    return kept(token, JSON.stringify({ base_fee: token.book.feeBps }));
  };

  return [
    route({
      method: 'GET', path: '/book', limits: ['GET /book'], summary: "A token's order book: bids ascending, asks descending (best last).", query: tokenQuery,
      response: tokenRead(ref('OrderBookSummary')),
      handler: (context): Reply => {
        const token = tokenBook(context.query.token_id);
        return kept(token, bookBody(token, context.query.token_id!));
      },
    }),
    route({
      method: 'POST', path: '/books', limits: ['POST /books'], summary: `Order books of up to ${BATCH_TOKENS_MAX} tokens, in request order.`, body: 'json', request: tokenBatch,
      response: tokenRead(arrayOf(ref('OrderBookSummary'))),
      handler: (context): Reply => batchRead(context.body, (items) => {
        const bodies = items.map(({ tokenId, token }) => bookBody(token, tokenId));
        return { status: 200, body: Buffer.concat([Buffer.from('['), ...bodies.flatMap((body, at) => (at === 0 ? [body] : [Buffer.from(','), body])), Buffer.from(']')]) };
      }),
    }),
    route({
      method: 'GET', path: '/price', limits: ['GET /price'], summary: 'Best bid (side=BUY) or best ask (side=SELL) of a token.',
      query: { ...tokenQuery, side: oneOf({ values: ['BUY', 'SELL'], description: 'BUY: best bid; SELL: best ask' }) },
      response: tokenRead(ref('Price')),
      handler: (context): Reply => {
        const token = tokenBook(context.query.token_id);
        if (context.query.side === undefined) throw badRequest('side is required');
        const side = sideOf(context.query.side);
        return memoJson(token, side === BUY ? Slot.PRICE_BUY : Slot.PRICE_SELL, () => ({ price: price(best(token, side)) }));
      },
    }),
    route({
      method: 'POST', path: '/prices', limits: ['POST /prices'], summary: 'Best prices of many tokens: {token: {BUY, SELL}}; a side without orders is left out.', body: 'json', request: tokenBatch,
      response: tokenRead(ref('BestPrices')),
      handler: (context): Reply => batchRead(context.body, (items) => {
        const out: Record<string, Record<string, string>> = {};
        for (const { tokenId, side, token } of items) {
          const entry = out[tokenId] ?? {};
          for (const name of side === undefined ? SIDE_NAMES : [side]) {
            const units = token.book.best(token.outcome, sideOf(name));
            if (units !== -1) entry[name] = price(units);
          }
          out[tokenId] = entry;
        }
        return json(out);
      }),
    }),
    route({
      method: 'GET', path: '/midpoint', limits: ['GET /midpoint'], summary: 'Midpoint of the best bid and ask of a token.', query: tokenQuery,
      response: tokenRead(ref('Midpoint')),
      handler: (context): Reply => {
        const token = tokenBook(context.query.token_id);
        return memoJson(token, Slot.MIDPOINT, () => ({ mid: quoted(midpointOf(token)) }));
      },
    }),
    route({
      method: 'POST', path: '/midpoints', limits: ['POST /prices'], summary: `Midpoints of up to ${BATCH_TOKENS_MAX} tokens: {token: mid}; a token with an empty side is left out.`, body: 'json', request: tokenBatch,
      response: tokenRead(ref('TokenValues')),
      handler: (context): Reply => byToken(context.body, midpointOf),
    }),
    route({
      method: 'GET', path: '/spread', limits: ['market data'], summary: 'Best ask minus best bid of a token.', query: tokenQuery,
      response: tokenRead(ref('Spread')),
      handler: (context): Reply => {
        const token = tokenBook(context.query.token_id);
        return memoJson(token, Slot.SPREAD, () => ({ spread: quoted(spreadOf(token)) }));
      },
    }),
    route({
      method: 'POST', path: '/spreads', limits: ['POST /prices'], summary: `Spreads of up to ${BATCH_TOKENS_MAX} tokens: {token: spread}; a token with an empty side is left out.`, body: 'json', request: tokenBatch,
      response: tokenRead(ref('TokenValues')),
      handler: (context): Reply => byToken(context.body, spreadOf),
    }),
    route({
      method: 'GET', path: '/last-trade-price', limits: ['market data'], summary: "A token's last trade price and the taker's side.", query: tokenQuery,
      response: tokenRead(ref('LastTradePrice')),
      handler: (context): Reply => {
        const token = tokenBook(context.query.token_id);
        return memoJson(token, Slot.LAST_TRADE, () => lastTradeOf(token.book, token.outcome));
      },
    }),
    route({
      method: 'POST', path: '/last-trades-prices', limits: ['POST /prices'], summary: `Last trades of up to ${BATCH_TOKENS_MAX} tokens: [{token_id, price, side}] in request order.`, body: 'json', request: tokenBatch,
      response: tokenRead(arrayOf(ref('TokenLastTradePrice'))),
      handler: (context): Reply => batchRead(context.body, (items) => json(items.map(({ tokenId, token }) => ({ token_id: tokenId, ...lastTradeOf(token.book, token.outcome) })))),
    }),
    route({
      method: 'GET', path: '/tick-size', limits: ['market data'], summary: "A token's minimum tick size.", query: tokenQuery,
      response: tokenRead(ref('TickSize')),
      handler: (context): Reply => {
        const token = tokenBook(context.query.token_id);
        return kept(token, JSON.stringify({ minimum_tick_size: unitsNumber(token.book.tickUnits, 4) }));
      },
    }),
    route({
      method: 'GET', path: '/neg-risk', limits: ['market data'], summary: "Whether a token's market is negative-risk.", query: tokenQuery,
      response: tokenRead(ref('NegRisk')),
      handler: (context): Reply => {
        const token = tokenBook(context.query.token_id);
        return kept(token, JSON.stringify({ neg_risk: token.market.negRisk }));
      },
    }),
    route({
      method: 'GET', path: '/fee-rate', limits: ['market data'], summary: "The taker fee of a token's market in basis points: {base_fee}.", query: tokenQuery,
      response: tokenRead(ref('FeeRate')),
      handler: (context): Reply => feeRate(context.query.token_id),
    }),
    route({
      method: 'GET', path: '/fee-rate/:token_id', limits: ['market data'], summary: 'GET /fee-rate with the token id in the path.', params: { token_id: string({ required: true, description: 'token id', maxLength: 100 }) },
      response: ok(ref('FeeRate')),
      handler: (context): Reply => feeRate(context.params.token_id),
    }),
    route({
      method: 'GET', path: '/markets-by-token/:token_id', limits: ['market data'], summary: "The market a token belongs to: its condition id and both token ids (Polymarket's; the V2 client asks it before a market order).",
      params: { token_id: string({ required: true, description: 'token id', maxLength: 100 }) },
      response: ok(ref('MarketByToken')),
      handler: (context): Reply => {
        const token = tokenBook(context.params.token_id);
        const { market } = token;
        return kept(token, JSON.stringify({ condition_id: market.conditionId, primary_token_id: market.tokenIds[0], secondary_token_id: market.tokenIds[1] }));
      },
    }),
    route({
      method: 'GET', path: '/time', limits: ['market data'], summary: 'Server time: unix seconds as a bare JSON number.',
      response: ok({ type: 'integer', minimum: 0 }, 'Unix seconds.'),
      handler: (): Reply => json(Math.floor(deps.now() / 1000)),
    }),
  ];
}

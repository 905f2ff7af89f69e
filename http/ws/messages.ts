// The live channels' messages, shaped as Polymarket's market and user channels send them. Prices
// and sizes are decimal strings (price units of 0.0001, shares). Market-channel timestamps are
// the milliseconds at which the exchange published the change (after its durable commit, before
// the order's answer); user-channel ones are the command's time in seconds, as Polymarket's are.
import { BookSide } from '../../engine/market/book.js';
import { PRICE_UNITS_PER_ONE } from '../../engine/constants.js';
import type { EngineEvent, FillEvent, LevelEvent } from '../../engine/events/event_objects.js';
import type { MarketRecord } from '../catalog/model.js';
import { bookSummary, price, size, type TokenBook } from '../market/book_routes.js';
import { BUY, SELL, type MarketBook } from '../market/book.js';
import { tradeId } from '../trading/fill_ids.js';

const SIDES = ['BUY', 'SELL'] as const;
const ORDER_TYPES = ['GTC', 'GTD', 'FOK', 'FAK'];

function seconds(ms: number): string {
  return String(Math.floor(ms / 1000));
}

/** The best bid and ask of a token ("0" and "1" when a side is empty). */
function bests(book: MarketBook, outcome: number): { best_bid: string; best_ask: string } {
  const bid = book.best(outcome, BUY);
  const ask = book.best(outcome, SELL);
  return { best_bid: bid === -1 ? '0' : price(bid), best_ask: ask === -1 ? '1' : price(ask) };
}

/** `book`: the token's whole book, as GET /book serves its levels and hash. */
export function bookMessage(token: TokenBook, tokenId: string): string {
  const { summary } = bookSummary(token, tokenId);
  return JSON.stringify({
    event_type: 'book', asset_id: tokenId, market: summary.market, bids: summary.bids, asks: summary.asks,
    timestamp: summary.timestamp, hash: summary.hash, tick_size: summary.tick_size, last_trade_price: summary.last_trade_price,
  });
}

/**
 * `price_change` for a market, as Polymarket sends it (keys in its order): the levels one answer
 * changed, as each token of the market sees them (a YES bid at p is a NO ask at 1 − p), the
 * entries of each token in `tokens` in turn, each with that token's best prices and book hash
 * after the whole answer. One message serves every follower of either token.
 */
export function priceChangeMessage(conditionId: string, tokens: readonly { readonly token: TokenBook; readonly tokenId: string }[], levels: readonly LevelEvent[], timeMs: number): string {
  const changes: { asset_id: string; price: string; size: string; side: string; hash: string; best_bid: string; best_ask: string }[] = [];
  for (const { token, tokenId } of tokens) {
    const { book, outcome } = token;
    const hash = bookSummary(token, tokenId).summary.hash;
    const { best_bid, best_ask } = bests(book, outcome);
    for (const level of levels) {
      const yesBid = level.side === BookSide.Bid;
      const units = outcome === 0 ? level.priceUnits : PRICE_UNITS_PER_ONE - level.priceUnits;
      const bid = outcome === 0 ? yesBid : !yesBid;
      changes.push({ asset_id: tokenId, price: price(units), size: size(level.sizeMicros), side: bid ? 'BUY' : 'SELL', hash, best_bid, best_ask });
    }
  }
  return JSON.stringify({ market: conditionId, price_changes: changes, timestamp: String(timeMs), event_type: 'price_change' });
}

/** `last_trade_price`: a fill as a trade of one token (the taker's, or the other token of a MINT/MERGE). */
export function lastTradeMessage(book: MarketBook, tokenId: string, priceUnits: number, side: number, sizeMicros: number, timeMs: number): string {
  return JSON.stringify({
    event_type: 'last_trade_price', asset_id: tokenId, market: book.conditionId, price: price(priceUnits), side: SIDES[side],
    size: size(sizeMicros), fee_rate_bps: String(book.feeBps), timestamp: String(timeMs),
  });
}

export function tickSizeMessage(book: MarketBook, tokenId: string, oldTickUnits: number, timeMs: number): string {
  return JSON.stringify({
    event_type: 'tick_size_change', asset_id: tokenId, market: book.conditionId, old_tick_size: price(oldTickUnits),
    new_tick_size: price(book.tickUnits), timestamp: String(timeMs),
  });
}

export function resolvedMessage(book: MarketBook, market: MarketRecord, tokenId: string, timeMs: number): string {
  return JSON.stringify({
    event_type: 'market_resolved', asset_id: tokenId, market: book.conditionId, assets_ids: [...market.tokenIds],
    winning_asset_id: market.tokenIds[book.winner] ?? '', winning_outcome: market.outcomes[book.winner] ?? '', timestamp: String(timeMs),
  });
}

const ORDER_MESSAGE_TYPES: Partial<Record<EngineEvent['kind'], string>> = {
  ORDER_ACCEPTED: 'PLACEMENT', ORDER_UPDATED: 'UPDATE', ORDER_CANCELLED: 'CANCELLATION',
};

/** `order` for the order's owner: PLACEMENT, UPDATE (a fill of a resting order) or CANCELLATION. */
export function orderMessage(event: EngineEvent, market: MarketRecord, apiKey: string, timeMs: number): string | undefined {
  if (event.kind !== 'ORDER_ACCEPTED' && event.kind !== 'ORDER_UPDATED' && event.kind !== 'ORDER_CANCELLED') return undefined;
  const status = event.kind === 'ORDER_CANCELLED' ? 'CANCELED' : event.remainingMicros === 0 ? 'MATCHED' : 'LIVE';
  return JSON.stringify({
    event_type: 'order', type: ORDER_MESSAGE_TYPES[event.kind], id: event.orderId, owner: apiKey, order_owner: apiKey,
    maker_address: event.account, market: market.conditionId, asset_id: market.tokenIds[event.outcome], side: SIDES[event.side],
    original_size: size(event.sizeMicros), size_matched: size(event.matchedMicros), price: price(event.priceUnits),
    outcome: market.outcomes[event.outcome], status, associate_trades: [],
    order_type: event.kind === 'ORDER_ACCEPTED' ? ORDER_TYPES[event.orderType] : undefined, timestamp: seconds(timeMs),
  });
}

/** `trade`: one fill, to its taker and its maker, shaped like GET /data/trades' items. */
export function tradeMessage(shard: number, fill: FillEvent, market: MarketRecord, apiKey: string, timeMs: number): string {
  const { seq, fillIndex } = fill;
  return JSON.stringify({
    event_type: 'trade', type: 'TRADE', id: tradeId(shard, seq, fillIndex), taker_order_id: fill.takerOrderId,
    market: market.conditionId, asset_id: market.tokenIds[fill.takerOutcome], side: SIDES[fill.takerSide], size: size(fill.sizeMicros),
    price: price(fill.takerPriceUnits), fee_rate_bps: '0', status: 'MATCHED', outcome: market.outcomes[fill.takerOutcome],
    owner: apiKey, trade_owner: apiKey, maker_address: fill.makerAccount,
    maker_orders: [{
      order_id: fill.makerOrderId, maker_address: fill.makerAccount, owner: '', matched_amount: size(fill.sizeMicros),
      price: price(fill.makerPriceUnits), asset_id: market.tokenIds[fill.makerOutcome], outcome: market.outcomes[fill.makerOutcome],
      side: SIDES[fill.makerSide], fee_rate_bps: '0',
    }],
    matchtime: seconds(timeMs), last_update: seconds(timeMs), timestamp: seconds(timeMs),
  });
}


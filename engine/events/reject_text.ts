// The texts clients see for each rejection. Where contract §4 gives Polymarket's text we use it
// word for word (clients match on them); the rest are ours. Numbers arrive already formatted as
// decimals by the edge, which owns all decimal formatting.
import { unreachable } from '../command.js';
import { Reject } from './reject.js';

/** What a text may mention, formatted by the caller (e.g. price "0.015", tick "0.01"). */
export interface RejectContext {
  readonly orderId: string;
  readonly price: string;
  readonly tick: string;
  readonly size: string;
  readonly minSize: string;
}

/**
 * A market's size step, 10^-(its tick's decimals + 2) of a share, from its tick's text ("0.01" →
 * "0.0001 shares"; notional.ts's sizeStepMicros); without a tick, a description.
 */
function sizeStepText(tick: string): string {
  if (tick === '') return "the market's size step";
  const decimals = (tick.split('.')[1] ?? '').length + 2;
  return `0.${'0'.repeat(decimals - 1)}1 shares`;
}

export function rejectText(code: Reject, context: RejectContext): string {
  switch (code) {
    case Reject.UNKNOWN_MARKET: return 'market not found';
    case Reject.MARKET_NOT_ACCEPTING: return 'the market is not yet ready to process new orders';
    case Reject.INVALID_TICK:
      return `order ${context.orderId} is invalid. Price (${context.price}) breaks minimum tick size rule: ${context.tick}`;
    case Reject.SIZE_BELOW_MIN:
      return `order ${context.orderId} is invalid. Size (${context.size}) lower than the minimum: ${context.minSize}`;
    case Reject.INVALID_SIZE_PRECISION:
      return `order ${context.orderId} is invalid. Size (${context.size}) must be a positive multiple of ${sizeStepText(context.tick)}`;
    case Reject.DUPLICATE_ORDER: return `order ${context.orderId} is invalid. Duplicated.`;
    case Reject.NOT_ENOUGH_BALANCE: return 'not enough balance / allowance';
    case Reject.INVALID_EXPIRATION: return 'invalid expiration';
    case Reject.POST_ONLY_CROSSES: return 'invalid post-only order: order crosses book';
    case Reject.FOK_NOT_FILLED: return "order couldn't be fully filled. FOK orders are fully filled or killed.";
    case Reject.FAK_NO_MATCH:
      return 'no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.';
    case Reject.POST_ONLY_INVALID_TYPE: return 'invalid post-only order: only GTC and GTD orders can be post-only';
    case Reject.TOO_MANY_ORDERS: return 'too many open orders for this account';
    case Reject.BOOK_FULL: return 'the order book is full, try again later';
    case Reject.LEVEL_FULL: return 'the price level is full, try another price';
    case Reject.SIZE_ABOVE_MAX: return `order ${context.orderId} is invalid. Size (${context.size}) above the maximum`;
    case Reject.POSITIONS_FULL: return 'the exchange cannot open new positions, try again later';
    case Reject.INVALID_ORDER_ID: return 'invalid order id';
    case Reject.ORDER_NOT_FOUND: return 'order not found';
    case Reject.NOT_OWNER: return 'the order owner is not the caller';
    case Reject.ALREADY_DONE: return 'order already matched or canceled';
    case Reject.TOO_MANY_CANCEL_IDS: return 'too many orders in one cancel request';
    case Reject.MARKET_EXISTS: return 'market already exists';
    case Reject.INVALID_MARKET_INDEX: return 'invalid market index';
    case Reject.INVALID_TICK_SIZE: return 'invalid tick size';
    case Reject.INVALID_MIN_SIZE: return 'invalid minimum order size';
    case Reject.INVALID_FEE: return 'invalid fee rate';
    case Reject.MARKET_RESOLVED: return 'the market is resolved';
    case Reject.INVALID_OUTCOME: return 'invalid outcome';
    case Reject.INVALID_AMOUNT: return 'invalid amount';
    case Reject.SUPPLY_LIMIT: return 'deposit exceeds the exchange collateral limit';
    case Reject.ACCOUNTS_FULL: return 'the exchange cannot open new accounts, try again later';
    default: return unreachable(code);
  }
}

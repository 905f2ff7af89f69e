// What became of an order. Readers see OrderStatus (contract §4's account order statuses); the
// engine records why a cancelled order ended as a CancelReason, which events carry.
import { unreachable } from '../command.js';

export const OrderStatus = {
  LIVE: 0,
  /** Fully filled. */
  MATCHED: 1,
  /** Cancelled by its owner, by a market-wide owner cancel, as a FAK remainder, or expired. */
  CANCELED: 2,
  CANCELED_MARKET_RESOLVED: 3,
} as const;
export type OrderStatus = (typeof OrderStatus)[keyof typeof OrderStatus];

export const CancelReason = {
  /** No cancel: the order is live or fully filled. */
  NONE: 0,
  CANCELED: 1,
  /** A GTD order reached its expiration. */
  EXPIRED: 2,
  MARKET_RESOLVED: 3,
} as const;
export type CancelReason = (typeof CancelReason)[keyof typeof CancelReason];

/** The reader-facing status of a finished order. */
export function finishedStatus(reason: CancelReason): OrderStatus {
  switch (reason) {
    case CancelReason.NONE: return OrderStatus.MATCHED;
    case CancelReason.CANCELED: return OrderStatus.CANCELED;
    case CancelReason.EXPIRED: return OrderStatus.CANCELED;
    case CancelReason.MARKET_RESOLVED: return OrderStatus.CANCELED_MARKET_RESOLVED;
    default: return unreachable(reason);
  }
}

export function orderStatusName(status: OrderStatus): string {
  switch (status) {
    case OrderStatus.LIVE: return 'LIVE';
    case OrderStatus.MATCHED: return 'MATCHED';
    case OrderStatus.CANCELED: return 'CANCELED';
    case OrderStatus.CANCELED_MARKET_RESOLVED: return 'CANCELED_MARKET_RESOLVED';
    default: return unreachable(status);
  }
}

export function cancelReasonName(reason: CancelReason): string {
  switch (reason) {
    case CancelReason.NONE: return 'NONE';
    case CancelReason.CANCELED: return 'CANCELED';
    case CancelReason.EXPIRED: return 'EXPIRED';
    case CancelReason.MARKET_RESOLVED: return 'CANCELED_MARKET_RESOLVED';
    default: return unreachable(reason);
  }
}

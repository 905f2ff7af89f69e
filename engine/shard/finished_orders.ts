// The record of every order a frame finished (filled, cancelled, expired, or a taker that did
// not rest), built from the frame's events as the engine emitted them. The shard stores these in
// its orders table; reading them back from the engine at commit time instead would miss orders
// the engine's bounded history had already forgotten (a resolution or a batch that finishes more
// orders than the history holds), and cost a lookup per touched order.
import type { EngineEvent, OrderCancelledEvent } from '../event_objects.js';
import { CancelReason, finishedStatus } from '../order_status.js';
import type { OrderView } from '../reads.js';

/** Adds (or replaces) the view of each order `events` finished; `timeMs` is the frame's time. */
export function recordFinishedOrders(events: readonly EngineEvent[], timeMs: number, into: Map<string, OrderView>): void {
  for (const event of events) {
    switch (event.kind) {
      case 'ORDER_CANCELLED':
        into.set(event.orderId, finishedView(event, event.reason, event.createdAtMs, timeMs));
        break;
      case 'ORDER_UPDATED':
        if (event.remainingMicros === 0) into.set(event.orderId, finishedView(event, CancelReason.NONE, event.createdAtMs, timeMs));
        break;
      case 'ORDER_ACCEPTED':
        // A remainder that does not rest is cancelled in an ORDER_CANCELLED of its own.
        if (!event.rests && event.remainingMicros === 0) {
          into.set(event.orderId, finishedView({ ...event, matchedMicros: event.sizeMicros }, CancelReason.NONE, timeMs, timeMs));
        }
        break;
      default:
        break;
    }
  }
}

type Finishing = Omit<OrderCancelledEvent, 'kind' | 'reason' | 'createdAtMs' | 'seq'>;

function finishedView(event: Finishing, reason: CancelReason, createdAtMs: number, timeMs: number): OrderView {
  return {
    orderId: event.orderId, owner: event.account, market: event.market, outcome: event.outcome, side: event.side,
    orderType: event.orderType, priceUnits: event.priceUnits, originalMicros: event.sizeMicros,
    matchedMicros: event.matchedMicros, remainingMicros: 0, status: finishedStatus(reason), cancelReason: reason,
    createdAtMs, expirationMs: event.expirationMs, updatedAtMs: timeMs,
  };
}

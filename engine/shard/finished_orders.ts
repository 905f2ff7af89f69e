// The record of every order a frame finished (filled, cancelled, expired, or a taker that did
// not rest), built from the frame's event rows as the engine emitted them. The shard stores these
// (stored_orders.ts); reading them back from the engine at commit time instead would miss orders
// the engine's bounded history had already forgotten (a resolution or a batch that finishes more
// orders than the history holds), and cost a lookup per touched order.
import { ACCEPTED_RESTS, EventKind, Field, Text, type EventBuffer } from '../events/events.js';
import { CancelReason, finishedStatus } from '../orders/order_status.js';
import type { OrderView } from '../state/reads.js';

/** Adds (or replaces) the view of each order rows [0, count) of `events` finished; `timeMs` is the frame's time. */
export function recordFinishedOrders(events: EventBuffer, timeMs: number, into: Map<string, OrderView>): void {
  for (let row = 0; row < events.count; row++) {
    switch (events.kindOf(row)) {
      case EventKind.ORDER_CANCELLED:
        into.set(events.text(row, Text.orderId), finishedView(events, row, events.get(row, Field.code) as CancelReason, events.get(row, Field.createdAtMs), timeMs));
        break;
      case EventKind.ORDER_UPDATED:
        if (events.get(row, Field.remainingMicros) === 0) {
          into.set(events.text(row, Text.orderId), finishedView(events, row, CancelReason.NONE, events.get(row, Field.createdAtMs), timeMs));
        }
        break;
      case EventKind.ORDER_ACCEPTED:
        // A remainder that does not rest is cancelled in an ORDER_CANCELLED of its own.
        if ((events.get(row, Field.flags) & ACCEPTED_RESTS) === 0 && events.get(row, Field.remainingMicros) === 0) {
          into.set(events.text(row, Text.orderId), finishedView(events, row, CancelReason.NONE, timeMs, timeMs));
        }
        break;
      default:
        break;
    }
  }
}

function finishedView(events: EventBuffer, row: number, reason: CancelReason, createdAtMs: number, timeMs: number): OrderView {
  const original = events.get(row, Field.sizeMicros);
  return {
    orderId: events.text(row, Text.orderId), owner: events.text(row, Text.account), market: events.get(row, Field.market),
    outcome: events.get(row, Field.outcome), side: events.get(row, Field.side), orderType: events.get(row, Field.orderType),
    priceUnits: events.get(row, Field.priceUnits), originalMicros: original,
    matchedMicros: events.get(row, Field.matchedMicros), remainingMicros: 0,
    status: finishedStatus(reason), cancelReason: reason, createdAtMs, expirationMs: events.get(row, Field.expirationMs),
    updatedAtMs: timeMs,
  };
}

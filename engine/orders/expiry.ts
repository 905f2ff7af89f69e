// GTD expiry. Before every command the engine cancels (reason EXPIRED) each resting order whose
// expiration is at or before the command's time, earliest first and in placement order among
// equal expirations. Sweeping at the start of every command, not only on ExpireOrders, means
// the matcher never meets an expired order, so FOK, FAK and post-only checks can trust the
// level aggregates; ExpireOrders exists so expiries surface even when no other command comes.
import { cancelLive } from './order_lifecycle.js';
import { CancelReason } from './order_status.js';
import type { EngineState } from '../state/state.js';

export function sweepExpired(state: EngineState): void {
  const heap = state.expiries;
  const orders = state.orders;
  while (heap.peekExpiration() <= state.timeMs) {
    const slot = heap.peekSlot();
    const serial = heap.peekSerial();
    heap.pop();
    // Entries of orders that were filled or cancelled earlier are stale and simply dropped.
    if (orders.isLive(slot) && orders.serialOf(slot) === serial) cancelLive(state, slot, CancelReason.EXPIRED);
  }
}

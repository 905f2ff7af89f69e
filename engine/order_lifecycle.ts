// How an order ends: a live order is cancelled (its remainder leaves the book and its reserve is
// released) or filled, and every finished order, resting or not, moves into the bounded history
// where its id keeps rejecting duplicates. The id table maps a live id to its slot (≥ 0) and a
// finished id to its history entry (encoded below zero).
import { bookPriceOf, bookSideOf } from './book.js';
import { Side } from './command.js';
import { notionalMicros } from './notional.js';
import { EventKind } from './events.js';
import { CancelReason } from './order_status.js';
import type { EngineState } from './state.js';

/** Id-table value of history entry `entry`. */
export function historyRef(entry: number): number {
  return -entry - 1;
}

/** History entry of an id-table value below zero. */
export function historyEntryOf(ref: number): number {
  return -ref - 1;
}

/** Claims a history entry, forgetting the oldest finished order when the ring is full. */
function claimHistoryEntry(state: EngineState): number {
  const history = state.history;
  if (history.isFull()) {
    const oldest = history.oldest();
    state.ids.deleteAt(state.ids.findValue(history.idHash[oldest]!, historyRef(oldest)));
    history.dropOldest();
  }
  return history.append();
}

/** Moves a live order, already off the book, into history and frees its slot. */
export function finishLive(state: EngineState, slot: number, reason: CancelReason): void {
  const orders = state.orders;
  orders.unlinkFromAccount(slot, state.ledger.accounts);
  const id = orders.idOf(slot);
  const idHash = orders.idHashOf(slot);
  const entry = claimHistoryEntry(state);
  state.history.record(
    entry, id, idHash, orders.accountOf(slot), orders.marketOf(slot), orders.outcomeOf(slot), orders.sideOf(slot),
    orders.orderTypeOf(slot), orders.levelOf(slot), orders.originalOf(slot),
    orders.originalOf(slot) - orders.remainingOf(slot), reason, orders.createdAtOf(slot), orders.expirationOf(slot),
    state.timeMs,
  );
  state.ids.setValueAt(state.ids.findValue(idHash, slot), historyRef(entry));
  orders.release(slot);
}

/** Records the order being placed, which did not rest, as finished. */
export function finishTaker(state: EngineState, reason: CancelReason): void {
  const taker = state.taker;
  const entry = claimHistoryEntry(state);
  state.history.record(
    entry, taker.orderId, taker.idHash, taker.account, taker.market, taker.outcome, taker.side, taker.orderType,
    taker.bookPrice, taker.sizeMicros, taker.sizeMicros - taker.remainingMicros, reason, state.timeMs,
    taker.expirationMs, state.timeMs,
  );
  state.ids.insert(taker.orderId, taker.idHash, historyRef(entry));
}

/** Cancels a live order: off the book, reserve released, ORDER_CANCELLED, into history. */
export function cancelLive(state: EngineState, slot: number, reason: CancelReason): void {
  const orders = state.orders;
  const outcome = orders.outcomeOf(slot);
  const side = orders.sideOf(slot);
  const level = orders.levelOf(slot);
  const remaining = orders.remainingOf(slot);
  const original = orders.originalOf(slot);
  const account = orders.accountOf(slot);
  const priceUnits = bookPriceOf(outcome, level);
  const market = orders.marketOf(slot);
  state.markets.book(market).remove(bookSideOf(outcome, side), level, slot, remaining);
  if (side === Side.Buy) state.ledger.releaseCollateral(account, notionalMicros(priceUnits, remaining));
  else state.ledger.releaseShares(orders.positionOf(slot), outcome, remaining);
  const row = state.events.pushOrder(
    EventKind.ORDER_CANCELLED, orders.idOf(slot), state.ledger.accounts.addressOf(account), market, outcome, side,
    priceUnits, original,
  );
  state.events.setProgress(row, original - remaining, remaining);
  state.events.setCode(row, reason);
  finishLive(state, slot, reason);
}

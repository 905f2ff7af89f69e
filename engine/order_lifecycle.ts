// How an order ends: a live order is cancelled (its remainder leaves the book and its reserve is
// released) or filled, and every finished order, resting or not, moves into the bounded history
// where its id keeps rejecting duplicates. The id table maps a live id to its slot (≥ 0) and a
// finished id to its history entry (encoded below zero).
import { assert } from './assert.js';
import { bookPriceOf, bookSideOf } from './book.js';
import { Side } from './command.js';
import { SIZE_MICROS_PER_LOT } from './constants.js';
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
    const position = state.ids.find(history.id[oldest]!, history.idHash[oldest]!);
    assert(position >= 0 && state.ids.valueAt(position) === historyRef(oldest), 'history entry is indexed');
    state.ids.deleteAt(position);
    history.dropOldest();
  }
  return history.append();
}

/** Moves a live order, already off the book, into history and frees its slot. */
export function finishLive(state: EngineState, slot: number, reason: CancelReason): void {
  const orders = state.orders;
  const history = state.history;
  orders.unlinkFromAccount(slot, state.ledger.accounts);
  const entry = claimHistoryEntry(state);
  history.id[entry] = orders.id[slot]!;
  history.idHash[entry] = orders.idHash[slot]!;
  history.account[entry] = orders.account[slot]!;
  history.market[entry] = orders.market[slot]!;
  history.outcome[entry] = orders.outcome[slot]!;
  history.side[entry] = orders.side[slot]!;
  history.orderType[entry] = orders.orderType[slot]!;
  history.bookPrice[entry] = orders.bookPrice[slot]!;
  history.originalMicros[entry] = orders.originalMicros[slot]!;
  history.matchedMicros[entry] = orders.originalMicros[slot]! - orders.remainingMicros[slot]!;
  history.cancelReason[entry] = reason;
  history.createdAtMs[entry] = orders.createdAtMs[slot]!;
  history.expirationMs[entry] = orders.expirationMs[slot]!;
  history.finishedAtMs[entry] = state.timeMs;
  const position = state.ids.find(orders.id[slot]!, orders.idHash[slot]!);
  assert(position >= 0 && state.ids.valueAt(position) === slot, 'live order is indexed');
  state.ids.setValueAt(position, historyRef(entry));
  orders.release(slot);
}

/** Records the order being placed, which did not rest, as finished. */
export function finishTaker(state: EngineState, reason: CancelReason): void {
  const taker = state.taker;
  const history = state.history;
  const entry = claimHistoryEntry(state);
  history.id[entry] = taker.orderId;
  history.idHash[entry] = taker.idHash;
  history.account[entry] = taker.account;
  history.market[entry] = taker.market;
  history.outcome[entry] = taker.outcome;
  history.side[entry] = taker.side;
  history.orderType[entry] = taker.orderType;
  history.bookPrice[entry] = taker.bookPrice;
  history.originalMicros[entry] = taker.sizeMicros;
  history.matchedMicros[entry] = taker.sizeMicros - taker.remainingMicros;
  history.cancelReason[entry] = reason;
  history.createdAtMs[entry] = state.timeMs;
  history.expirationMs[entry] = taker.expirationMs;
  history.finishedAtMs[entry] = state.timeMs;
  state.ids.insert(taker.orderId, taker.idHash, historyRef(entry));
}

/** Collateral a resting BUY of `remainingMicros` at `priceUnits` (own token) keeps reserved. */
export function restingReserveMicros(priceUnits: number, remainingMicros: number): number {
  return priceUnits * (remainingMicros / SIZE_MICROS_PER_LOT);
}

/** Cancels a live order: off the book, reserve released, ORDER_CANCELLED, into history. */
export function cancelLive(state: EngineState, slot: number, reason: CancelReason): void {
  const orders = state.orders;
  const outcome = orders.outcome[slot]!;
  const side = orders.side[slot]!;
  const bookPrice = orders.bookPrice[slot]!;
  const remaining = orders.remainingMicros[slot]!;
  const priceUnits = bookPriceOf(outcome, bookPrice);
  const market = orders.market[slot]!;
  state.markets.book(market).remove(bookSideOf(outcome, side), bookPrice, slot, remaining);
  if (side === Side.Buy) {
    state.ledger.releaseCollateral(orders.account[slot]!, restingReserveMicros(priceUnits, remaining));
  } else {
    state.ledger.releaseShares(orders.position[slot]!, outcome, remaining);
  }
  const row = state.events.pushOrder(
    EventKind.ORDER_CANCELLED, orders.id[slot]!, state.ledger.accounts.addressOf(orders.account[slot]!),
    market, outcome, side, priceUnits, orders.originalMicros[slot]!,
  );
  state.events.setProgress(row, orders.originalMicros[slot]! - remaining, remaining);
  state.events.code[row] = reason;
  finishLive(state, slot, reason);
}

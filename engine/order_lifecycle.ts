// How an order ends: a live order is cancelled (its remainder leaves the book and its reserve is
// released) or filled, and every finished order, resting or not, moves into the bounded history
// where its id keeps rejecting duplicates: out of the live index, into the finished one.
import { bookPriceOf, bookSideOf, type Book } from './book.js';
import { Side } from './command.js';
import { notionalMicros } from './notional.js';
import { EventKind, Field } from './events.js';
import { pushLoneChange } from './change_events.js';
import { CancelReason } from './order_status.js';
import type { EngineState } from './state.js';

/**
 * Claims a history entry for an order hashed as `idHash` and indexes it, forgetting the oldest
 * finished order when the ring is full (its index bucket goes stale, see FinishedIndex); the
 * caller records the entry's columns.
 */
export function claimHistoryEntry(state: EngineState, idHash: number): number {
  const history = state.history;
  if (history.isFull()) history.dropOldest();
  const entry = history.append();
  history.idHash[entry] = idHash;
  state.finished.add(idHash, entry);
  return entry;
}

/** Moves a live order, already off the book, into history and frees its slot. */
export function finishLive(state: EngineState, slot: number, reason: CancelReason): void {
  const orders = state.orders;
  orders.unlinkFromAccount(slot, state.ledger.accounts);
  const idHash = orders.idHashOf(slot);
  state.live.remove(idHash, slot);
  const entry = claimHistoryEntry(state, idHash);
  const history = state.history;
  history.record(
    entry, orders.idOf(slot), orders.accountOf(slot), orders.marketOf(slot), orders.outcomeOf(slot), orders.sideOf(slot),
    orders.orderTypeOf(slot), orders.levelOf(slot), orders.originalOf(slot),
    orders.originalOf(slot) - orders.remainingOf(slot), reason,
  );
  history.createdAtMs[entry] = orders.createdAtOf(slot);
  history.expirationMs[entry] = orders.expirationOf(slot);
  history.finishedAtMs[entry] = state.timeMs;
  orders.release(slot);
}

/** Records the order being placed, which did not rest, as finished. */
export function finishTaker(state: EngineState, reason: CancelReason): void {
  const taker = state.taker;
  const entry = claimHistoryEntry(state, taker.idHash);
  const history = state.history;
  history.record(
    entry, taker.orderId, taker.account, taker.market, taker.outcome, taker.side, taker.orderType,
    taker.bookPrice, taker.sizeMicros, taker.sizeMicros - taker.remainingMicros, reason,
  );
  history.createdAtMs[entry] = state.timeMs;
  history.expirationMs[entry] = taker.expirationMs;
  history.finishedAtMs[entry] = state.timeMs;
}

/**
 * Cancels a live order: off the book, reserve released, ORDER_CANCELLED, into history. `alone`:
 * the command cancels only this order and has recorded no change (see change_events.ts), so the
 * level and balance it changes are emitted here instead of recorded.
 */
export function cancelLive(state: EngineState, slot: number, reason: CancelReason, alone = false): void {
  const orders = state.orders;
  const priceUnits = bookPriceOf(orders.outcomeOf(slot), orders.levelOf(slot));
  const book = state.markets.book(orders.marketOf(slot));
  takeOff(state, book, slot, priceUnits, alone);
  const account = orders.accountOf(slot);
  pushLiveProgress(state, EventKind.ORDER_CANCELLED, slot, state.ledger.accounts.addressOf(account), priceUnits, reason);
  if (alone) {
    const outcome = orders.outcomeOf(slot);
    const side = orders.sideOf(slot);
    const level = orders.levelOf(slot);
    pushLoneChange(state, book, bookSideOf(outcome, side), level, side, account, orders.positionOf(slot), outcome);
  }
  finishLive(state, slot, reason);
}

/**
 * Takes a live order's remainder off its level and releases its reserve, recorded in the dirty
 * lists unless `alone`. (Apart from cancelLive, so each stays small enough for TurboFan to inline.)
 */
function takeOff(state: EngineState, book: Book, slot: number, priceUnits: number, alone: boolean): void {
  const orders = state.orders;
  const ledger = state.ledger;
  const outcome = orders.outcomeOf(slot);
  const level = orders.levelOf(slot);
  const remaining = orders.remainingOf(slot);
  const bookSide = bookSideOf(outcome, orders.sideOf(slot));
  const buy = orders.sideOf(slot) === Side.Buy;
  if (!alone) {
    book.remove(bookSide, level, slot, remaining);
    if (buy) ledger.releaseCollateral(orders.accountOf(slot), notionalMicros(priceUnits, remaining));
    else ledger.releaseShares(orders.positionOf(slot), outcome, remaining);
  } else {
    book.ladder(bookSide).remove(level, slot, remaining);
    if (buy) ledger.moveCollateral(orders.accountOf(slot), -notionalMicros(priceUnits, remaining));
    else ledger.moveShares(orders.positionOf(slot), outcome, -remaining);
  }
}

/**
 * ORDER_UPDATED or ORDER_CANCELLED for the live order in `slot`, from its record: what it was,
 * what has matched and its remaining size (after a fill, or the part a cancel releases). Its times
 * are copied record to row here, so none crosses a call as an argument (see setNumber).
 */
export function pushLiveProgress(
  state: EngineState, kind: typeof EventKind.ORDER_UPDATED | typeof EventKind.ORDER_CANCELLED, slot: number,
  address: string, priceUnits: number, code: number,
): void {
  const orders = state.orders;
  const events = state.events;
  const original = orders.originalOf(slot);
  const remaining = orders.remainingOf(slot);
  const row = events.pushProgress(
    kind, orders.idOf(slot), address, orders.marketOf(slot), orders.outcomeOf(slot), orders.sideOf(slot),
    orders.orderTypeOf(slot), priceUnits, original, original - remaining, remaining, code,
  );
  events.setNumber(row, Field.createdAtMs, orders.createdAtOf(slot));
  events.setNumber(row, Field.expirationMs, orders.expirationOf(slot));
}

// How an order ends: a live order is cancelled (its remainder leaves the book and its reserve is
// released) or filled, and every finished order, resting or not, moves into the bounded history
// where its id keeps rejecting duplicates: out of the live index, into the finished one.
import { bookPriceOf, bookSideOf, type Book, type BookSide } from '../market/book.js';
import { Side } from '../command.js';
import { notionalCeilMicros } from '../ledger/notional.js';
import { EventKind, Field } from '../events/events.js';
import { pushLoneChange } from '../events/change_events.js';
import { CancelReason } from './order_status.js';
import { packedLevel, packedMarket, packedOrderType, packedOutcome, packedSide } from './orders.js';
import type { EngineState } from '../state/state.js';

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

/**
 * Moves a live order, already off the book, into history and frees its slot; `packed` is its
 * record's packed word (OrderTable.packedOf), read once by the caller.
 */
export function finishLive(state: EngineState, slot: number, packed: number, reason: CancelReason): void {
  const orders = state.orders;
  const account = orders.accountOf(slot);
  orders.unlinkFromAccount(slot, account, state.ledger.accounts);
  const idHash = orders.idHashOf(slot);
  state.live.remove(idHash, slot);
  const entry = claimHistoryEntry(state, idHash);
  const original = orders.originalOf(slot);
  const history = state.history;
  history.record(
    entry, orders.idOf(slot), account, packedMarket(packed), packedOutcome(packed), packedSide(packed),
    packedOrderType(packed), packedLevel(packed), original, original - orders.remainingOf(slot), reason,
  );
  history.createdAtMs[entry] = orders.createdAtOf(slot);
  history.expirationMs[entry] = orders.expirationOf(slot, packed);
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
  const packed = orders.packedOf(slot);
  const outcome = packedOutcome(packed);
  const side = packedSide(packed);
  const level = packedLevel(packed);
  const account = orders.accountOf(slot);
  const book = state.markets.book(packedMarket(packed));
  const bookSide = bookSideOf(outcome, side);
  takeOff(state, book, slot, bookSide, level, outcome, side, account, alone);
  const address = state.ledger.accounts.addressOf(account);
  pushLiveProgress(state, EventKind.ORDER_CANCELLED, slot, packed, address, bookPriceOf(outcome, level), reason);
  if (alone) pushLoneChange(state, book, bookSide, level, side, account, orders.positionOf(slot), outcome);
  finishLive(state, slot, packed, reason);
}

/**
 * Takes a live order's remainder off its level and releases its reserve, recorded in the dirty
 * lists unless `alone`. (Apart from cancelLive, so each stays small enough for TurboFan to inline.)
 */
function takeOff(
  state: EngineState, book: Book, slot: number, bookSide: BookSide, level: number, outcome: number, side: number,
  account: number, alone: boolean,
): void {
  const orders = state.orders;
  const ledger = state.ledger;
  const remaining = orders.remainingOf(slot);
  const buy = side === Side.Buy;
  const priceUnits = bookPriceOf(outcome, level);
  if (!alone) {
    book.remove(bookSide, level, slot, remaining);
    if (buy) ledger.releaseCollateral(account, notionalCeilMicros(priceUnits, remaining));
    else ledger.releaseShares(orders.positionOf(slot), outcome, remaining);
  } else {
    book.ladder(bookSide).remove(level, slot, remaining);
    if (buy) ledger.moveCollateral(account, -notionalCeilMicros(priceUnits, remaining));
    else ledger.moveShares(orders.positionOf(slot), outcome, -remaining);
  }
}

/**
 * ORDER_UPDATED or ORDER_CANCELLED for the live order in `slot` (its packed word `packed`), from
 * its record: what it was, what has matched and its remaining size (after a fill, or the part a
 * cancel releases). Its times are copied record to row here, so none crosses a call as an argument
 * (see setNumber).
 */
export function pushLiveProgress(
  state: EngineState, kind: typeof EventKind.ORDER_UPDATED | typeof EventKind.ORDER_CANCELLED, slot: number,
  packed: number, address: string, priceUnits: number, code: number,
): void {
  const orders = state.orders;
  const events = state.events;
  const original = orders.originalOf(slot);
  const remaining = orders.remainingOf(slot);
  const row = events.pushProgress(
    kind, orders.idOf(slot), address, packedMarket(packed), packedOutcome(packed), packedSide(packed),
    packedOrderType(packed), priceUnits, original, original - remaining, remaining, code,
  );
  events.setNumber(row, Field.createdAtMs, orders.createdAtOf(slot));
  events.setNumber(row, Field.expirationMs, orders.expirationOf(slot, packed));
}

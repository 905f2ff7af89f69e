// The matcher: the order being placed (state.taker) against the opposite side of its market's
// book, best price first and oldest first within a price; every fill trades at the resting
// order's price, its collateral in whole micros as fill_collateral.ts rounds it. One book serves
// both tokens, so a fill is NORMAL (same token, opposite sides), MINT (BUY YES with BUY NO: both
// pay and a complete set is created) or MERGE (SELL YES with SELL NO: the set is destroyed and
// both are paid from its collateral).
//
// Self-crossing is allowed: there is no self-trade prevention, so an account's order matches
// its own resting order like anyone else's. The ledger moves value from the account to itself
// (less the taker fee), which keeps every invariant.
import { BookSide, bookPriceOf, type Book } from './book.js';
import { Side } from '../command.js';
import { EventKind, FillKind } from '../events/events.js';
import { takerFeeMicros } from '../ledger/fee.js';
import { fillMakerMicros, fillTakerMicros } from '../ledger/fill_collateral.js';
import { NIL, type Ladder } from './ladder.js';
import { finishLive, pushLiveProgress } from '../orders/order_lifecycle.js';
import { CancelReason } from '../orders/order_status.js';
import type { EngineState } from '../state/state.js';

/** Whether a resting level at `level` crosses a taker limit at `limit` on `takerSide`. */
export function crosses(takerSide: number, limit: number, level: number): boolean {
  return takerSide === BookSide.Bid ? level <= limit : level >= limit;
}

/** The side opposite `bookSide`. */
export function oppositeOf(bookSide: number): BookSide {
  return bookSide === BookSide.Bid ? BookSide.Ask : BookSide.Bid;
}

/** Whether anything rests at a price the taker would trade at. */
export function hasCrossing(book: Book, takerSide: number, limit: number): boolean {
  const best = book.ladder(oppositeOf(takerSide)).best();
  return best !== NIL && crosses(takerSide, limit, best);
}

/**
 * Whether the size resting at prices the taker would trade at covers `wantedMicros` (FOK and
 * capacity checks). A boolean, not the size: a sum of level aggregates is past the small-integer
 * range, and returned from a call TurboFan did not inline it was boxed into a new heap number.
 */
export function crossingSizeCovers(book: Book, takerSide: number, limit: number, wantedMicros: number): boolean {
  const ladder = book.ladder(oppositeOf(takerSide));
  let total = 0;
  for (let level = ladder.best(); level !== NIL && crosses(takerSide, limit, level); level = ladder.worseThan(level)) {
    total += ladder.sizeAt(level);
    if (total >= wantedMicros) return true;
  }
  return false;
}

/** Matches state.taker until it is filled or nothing crosses; returns the size filled. */
export function matchTaker(state: EngineState, book: Book): number {
  const taker = state.taker;
  const ladder = book.ladder(oppositeOf(taker.bookSide));
  const before = taker.remainingMicros;
  let level = ladder.best();
  while (taker.remainingMicros > 0 && level !== NIL && crosses(taker.bookSide, taker.bookPrice, level)) {
    consumeLevel(state, book, ladder, level);
    level = ladder.best();
  }
  return before - taker.remainingMicros;
}

function consumeLevel(state: EngineState, book: Book, ladder: Ladder, level: number): void {
  const taker = state.taker;
  let slot = ladder.head(level);
  while (taker.remainingMicros > 0 && slot !== NIL) {
    const following = ladder.after(slot);
    fillResting(state, book, slot, level);
    slot = following;
  }
}

/** One fill between the taker and the resting order in `slot` at book price `level`. */
function fillResting(state: EngineState, book: Book, slot: number, level: number): void {
  const taker = state.taker;
  const orders = state.orders;
  const makerRemaining = orders.remainingOf(slot);
  const size = makerRemaining < taker.remainingMicros ? makerRemaining : taker.remainingMicros;
  const makerOutcome = orders.outcomeOf(slot);
  const makerSide = orders.sideOf(slot);
  const takerPrice = bookPriceOf(taker.outcome, level);
  const makerPrice = bookPriceOf(makerOutcome, level);
  const kind = makerOutcome === taker.outcome ? FillKind.NORMAL : taker.side === Side.Buy ? FillKind.MINT : FillKind.MERGE;
  const fee = settleFill(state, slot, kind, makerSide, makerPrice, makerRemaining, size);
  taker.remainingMicros -= size;
  const makerAddress = state.ledger.accounts.addressOf(orders.accountOf(slot));
  state.events.pushFill(
    state.fillIndex, taker.orderId, taker.address, taker.market, taker.outcome, taker.side, takerPrice, size, fee, kind,
    orders.idOf(slot), makerAddress, makerOutcome, makerSide, makerPrice,
  );
  state.fillIndex += 1;
  updateResting(state, book, slot, level, size, makerAddress, makerPrice);
}

/**
 * Moves a fill's shares and collateral, rounded as fill_collateral.ts says, and any complete sets
 * it mints or merges; returns the taker fee. Apart from fillResting, which V8 inlines only while
 * its bytecode stays under 460 bytes (the engine profile counted ~300 instructions more a fill
 * of the fast flow when it did not).
 */
function settleFill(
  state: EngineState, slot: number, kind: FillKind, makerSide: number, makerPrice: number, makerRemaining: number,
  size: number,
): number {
  const taker = state.taker;
  const makerMicros = fillMakerMicros(makerSide, makerPrice, makerRemaining, size);
  const takerMicros = fillTakerMicros(kind, makerMicros, size);
  const fee = takerFeeMicros(takerMicros, taker.feeBps);
  settleTaker(state, takerMicros, fee, size);
  settleMaker(state, slot, makerMicros, size);
  if (kind !== FillKind.NORMAL) state.ledger.changeSets(taker.market, kind === FillKind.MINT ? size : -size);
  return fee;
}

/** The taker's side of a fill: `collateralMicros` paid (BUY) or received before the fee (SELL). */
function settleTaker(state: EngineState, collateralMicros: number, feeMicros: number, sizeMicros: number): void {
  const taker = state.taker;
  const ledger = state.ledger;
  taker.collateralMicros += collateralMicros;
  if (taker.side === Side.Buy) {
    ledger.spendReservedCollateral(taker.account, collateralMicros + feeMicros);
    taker.reserveMicros -= collateralMicros + feeMicros;
    ledger.creditShares(taker.position, taker.outcome, sizeMicros);
  } else {
    ledger.spendReservedShares(taker.position, taker.outcome, sizeMicros);
    ledger.creditCollateral(taker.account, collateralMicros - feeMicros);
  }
  ledger.creditFee(feeMicros);
}

/** The maker's side of a fill: `collateralMicros` paid from its reserve (BUY) or received (SELL). */
function settleMaker(state: EngineState, slot: number, collateralMicros: number, sizeMicros: number): void {
  const orders = state.orders;
  const ledger = state.ledger;
  if (orders.sideOf(slot) === Side.Buy) {
    ledger.spendReservedCollateral(orders.accountOf(slot), collateralMicros);
    ledger.creditShares(orders.positionOf(slot), orders.outcomeOf(slot), sizeMicros);
  } else {
    ledger.spendReservedShares(orders.positionOf(slot), orders.outcomeOf(slot), sizeMicros);
    ledger.creditCollateral(orders.accountOf(slot), collateralMicros);
  }
}

/** The resting order after a fill: smaller, or fully filled and finished. */
function updateResting(
  state: EngineState, book: Book, slot: number, level: number, sizeMicros: number,
  makerAddress: string, makerPrice: number,
): void {
  const orders = state.orders;
  const remaining = orders.remainingOf(slot) - sizeMicros;
  const side = oppositeOf(state.taker.bookSide);
  if (remaining === 0) book.remove(side, level, slot, sizeMicros);
  else book.reduce(side, level, sizeMicros);
  orders.setRemaining(slot, remaining);
  const packed = orders.packedOf(slot);
  pushLiveProgress(state, EventKind.ORDER_UPDATED, slot, packed, makerAddress, makerPrice, 0);
  if (remaining === 0) finishLive(state, slot, packed, CancelReason.NONE);
}

// The end of every command: one LEVEL event per price level whose aggregate changed, then one
// BALANCE event per (account, asset) whose free or reserved amount changed, each group in the
// order the command first touched them (dirty_list.ts). Coalescing per command keeps the stream
// small when one order sweeps a level, and items that changed and changed back emit nothing.
//
// A command that changes exactly one level and one balance, and knows it before it starts (a
// single cancel; a place that rests without matching), skips the dirty lists: it moves the
// values untracked and emits the two events itself, right after its order event, which is
// where the end of the command would have put them. Recording the two items and reading them
// back was ~10 % of a deep-flow command, whose commands are nearly all of that kind.
import type { Book, BookSide } from '../market/book.js';
import { Side } from '../command.js';
import { Field } from './events.js';
import { COLLATERAL_ASSET } from '../ledger/ledger.js';
import type { EngineState } from '../state/state.js';

/**
 * Whether the command has recorded no change so far (the expiry sweep before it may have), so a
 * lone level and balance change may be emitted by its caller without coalescing.
 */
export function nothingRecorded(state: EngineState): boolean {
  return state.levels.length === 0 && state.ledger.dirty.length === 0;
}

export function pushLevelChanges(state: EngineState): void {
  const dirty = state.levels;
  const length = dirty.length;
  if (length === 0) return;
  const firsts = dirty.firsts;
  const seconds = dirty.seconds;
  const starts = dirty.startsA;
  for (let index = 0; index < length; index += 1) {
    const bookKey = firsts[index]!;
    const price = seconds[index]!;
    const market = bookKey >> 1;
    const side = (bookKey & 1) as BookSide;
    const book = state.markets.book(market);
    if (book.ladder(side).sizeAt(price) !== starts[index]) pushLevelEvent(state, book, side, price);
  }
  dirty.clear();
}

export function pushBalanceChanges(state: EngineState): void {
  const ledger = state.ledger;
  const dirty = ledger.dirty;
  const length = dirty.length;
  if (length === 0) return;
  const firsts = dirty.firsts;
  const seconds = dirty.seconds;
  const refs = dirty.refs;
  const startsFree = dirty.startsA;
  const startsReserved = dirty.startsB;
  const accounts = ledger.accounts;
  const positions = ledger.positions;
  for (let index = 0; index < length; index += 1) {
    const account = firsts[index]!;
    const asset = seconds[index]!;
    if (asset === COLLATERAL_ASSET) {
      const free = accounts.collateralFree[account]!;
      if (free !== startsFree[index] || accounts.collateralReserved[account] !== startsReserved[index]) {
        pushCollateralEvent(state, account);
      }
    } else {
      // A position freed by a resolution during the command reads as zero, as it was left; its
      // market and account are the item's, not the freed position's.
      const outcome = (asset - 1) & 1;
      const share = (2 * refs[index]! + outcome) | 0;
      const free = positions.sharesFree[share]!;
      if (free !== startsFree[index] || positions.sharesReserved[share] !== startsReserved[index]) {
        pushSharesEvent(state, account, (asset - 1) >> 1, refs[index]!, outcome);
      }
    }
  }
  dirty.clear();
}

/**
 * The LEVEL and BALANCE events of a lone change: the level at `price` on `bookSide` of `book`,
 * then the balance an order of `side` reserves (a BUY's collateral, or a SELL's shares of
 * `outcome` held in `position`), both as they are now.
 */
export function pushLoneChange(
  state: EngineState, book: Book, bookSide: BookSide, price: number, side: number, account: number, position: number,
  outcome: number,
): void {
  pushLevelEvent(state, book, bookSide, price);
  if (side === Side.Buy) pushCollateralEvent(state, account);
  else pushSharesEvent(state, account, book.market, position, outcome);
}

/** LEVEL of a level of `book` with its aggregate now. */
function pushLevelEvent(state: EngineState, book: Book, side: BookSide, price: number): void {
  const events = state.events;
  events.setNumber(events.pushLevel(book.market, side, price), Field.sizeMicros, book.ladder(side).sizeAt(price));
}

/** BALANCE of the account's collateral now. */
function pushCollateralEvent(state: EngineState, account: number): void {
  const accounts = state.ledger.accounts;
  const events = state.events;
  const row = events.pushBalance(accounts.addresses[account]!, -1, -1);
  events.setNumber(row, Field.freeMicros, accounts.collateralFree[account]!);
  events.setNumber(row, Field.reservedMicros, accounts.collateralReserved[account]!);
}

/** BALANCE of `account`'s shares of `outcome` in `market`, held in `position`, now. */
function pushSharesEvent(state: EngineState, account: number, market: number, position: number, outcome: number): void {
  const positions = state.ledger.positions;
  const events = state.events;
  const share = (2 * position + outcome) | 0;
  const row = events.pushBalance(state.ledger.accounts.addresses[account]!, market, outcome);
  events.setNumber(row, Field.freeMicros, positions.sharesFree[share]!);
  events.setNumber(row, Field.reservedMicros, positions.sharesReserved[share]!);
}

// The end of every command: one LEVEL event per price level whose aggregate changed, then one
// BALANCE event per (account, asset) whose free or reserved amount changed, each group in key
// order (market, side, price; account index, asset). Coalescing per command keeps the stream
// small when one order sweeps a level, and items that changed and changed back emit nothing.
import { COLLATERAL_ASSET } from './ledger.js';
import type { BookSide } from './book.js';
import type { EngineState } from './state.js';

export function pushLevelChanges(state: EngineState): void {
  const dirty = state.levels;
  if (dirty.count() > 1) dirty.sort();
  for (let index = 0; index < dirty.count(); index += 1) {
    const market = dirty.first(index) >> 1;
    const side = (dirty.first(index) & 1) as BookSide;
    const price = dirty.second(index);
    const size = state.markets.book(market).ladder(side).sizeAt(price);
    if (size !== dirty.startA(index)) state.events.pushLevel(market, side, price, size);
  }
  dirty.clear();
}

export function pushBalanceChanges(state: EngineState): void {
  const ledger = state.ledger;
  const dirty = ledger.dirty;
  if (dirty.count() > 1) dirty.sort();
  for (let index = 0; index < dirty.count(); index += 1) {
    const account = dirty.first(index);
    const asset = dirty.second(index);
    let free: number;
    let reserved: number;
    if (asset === COLLATERAL_ASSET) {
      free = ledger.accounts.collateralFree[account]!;
      reserved = ledger.accounts.collateralReserved[account]!;
    } else {
      // A position freed by a resolution during the command reads as zero, as it was left.
      const share = 2 * dirty.ref(index) + ((asset - 1) & 1);
      free = ledger.positions.sharesFree[share]!;
      reserved = ledger.positions.sharesReserved[share]!;
    }
    if (free !== dirty.startA(index) || reserved !== dirty.startB(index)) {
      const market = asset === COLLATERAL_ASSET ? -1 : (asset - 1) >> 1;
      const outcome = asset === COLLATERAL_ASSET ? -1 : (asset - 1) & 1;
      state.events.pushBalance(ledger.accounts.addressOf(account), market, outcome, free, reserved);
    }
  }
  dirty.clear();
}

// The end of every command: one LEVEL event per price level whose aggregate changed, then one
// BALANCE event per (account, asset) whose free or reserved amount changed, each group in key
// order (market, side, price; account index, asset). Coalescing per command keeps the stream
// small when one order sweeps a level, and items that changed and changed back emit nothing.
import { PRICE_LEVELS_COUNT } from './constants.js';
import { COLLATERAL_ASSET } from './ledger.js';
import type { BookSide } from './book.js';
import type { EngineState } from './state.js';

export function pushLevelChanges(state: EngineState): void {
  const dirty = state.levels;
  if (dirty.count() > 1) dirty.sort();
  for (let index = 0; index < dirty.count(); index += 1) {
    const key = dirty.key(index);
    const price = key % PRICE_LEVELS_COUNT;
    const sideKey = (key - price) / PRICE_LEVELS_COUNT;
    const side = (sideKey & 1) as BookSide;
    const market = sideKey >> 1;
    const size = state.markets.book(market).ladder(side).sizeAt(price);
    if (size !== dirty.startA(index)) state.events.pushLevel(market, side, price, size);
  }
  dirty.clear();
}

export function pushBalanceChanges(state: EngineState): void {
  const ledger = state.ledger;
  const dirty = ledger.dirty;
  const assetsPerAccount = 2 * ledger.marketsMax + 1;
  if (dirty.count() > 1) dirty.sort();
  for (let index = 0; index < dirty.count(); index += 1) {
    const key = dirty.key(index);
    const asset = key % assetsPerAccount;
    const account = (key - asset) / assetsPerAccount;
    if (asset === COLLATERAL_ASSET) {
      const free = ledger.accounts.collateralFree[account]!;
      const reserved = ledger.accounts.collateralReserved[account]!;
      pushIfChanged(state, index, account, -1, -1, free, reserved);
    } else {
      const market = (asset - 1) >> 1;
      const outcome = (asset - 1) & 1;
      const position = ledger.positions.find(account, market);
      const free = position === -1 ? 0 : ledger.positions.sharesFree[2 * position + outcome]!;
      const reserved = position === -1 ? 0 : ledger.positions.sharesReserved[2 * position + outcome]!;
      pushIfChanged(state, index, account, market, outcome, free, reserved);
    }
  }
  dirty.clear();
}

function pushIfChanged(
  state: EngineState, index: number, account: number, market: number, outcome: number, free: number, reserved: number,
): void {
  const dirty = state.ledger.dirty;
  if (free === dirty.startA(index) && reserved === dirty.startB(index)) return;
  state.events.pushBalance(state.ledger.accounts.addressOf(account), market, outcome, free, reserved);
}

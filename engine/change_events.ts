// The end of every command: one LEVEL event per price level whose aggregate changed, then one
// BALANCE event per (account, asset) whose free or reserved amount changed, each group in the
// order the command first touched them (dirty_list.ts). Coalescing per command keeps the stream
// small when one order sweeps a level, and items that changed and changed back emit nothing.
import { Field } from './events.js';
import { COLLATERAL_ASSET } from './ledger.js';
import type { EngineState } from './state.js';

export function pushLevelChanges(state: EngineState): void {
  const dirty = state.levels;
  const length = dirty.length;
  if (length === 0) return;
  const firsts = dirty.firsts;
  const seconds = dirty.seconds;
  const starts = dirty.startsA;
  const events = state.events;
  for (let index = 0; index < length; index += 1) {
    const bookKey = firsts[index]!;
    const price = seconds[index]!;
    const market = bookKey >> 1;
    const side = bookKey & 1;
    const book = state.markets.book(market);
    const size = (side === 0 ? book.bids : book.asks).sizeAt(price);
    if (size !== starts[index]) events.setNumber(events.pushLevel(market, side, price), Field.sizeMicros, size);
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
  const events = state.events;
  for (let index = 0; index < length; index += 1) {
    const account = firsts[index]!;
    const asset = seconds[index]!;
    let free: number;
    let reserved: number;
    let market = -1;
    let outcome = -1;
    if (asset === COLLATERAL_ASSET) {
      free = accounts.collateralFree[account]!;
      reserved = accounts.collateralReserved[account]!;
    } else {
      // A position freed by a resolution during the command reads as zero, as it was left.
      market = (asset - 1) >> 1;
      outcome = (asset - 1) & 1;
      const share = (2 * refs[index]! + outcome) | 0;
      free = positions.sharesFree[share]!;
      reserved = positions.sharesReserved[share]!;
    }
    if (free !== startsFree[index] || reserved !== startsReserved[index]) {
      const row = events.pushBalance(accounts.addresses[account]!, market, outcome);
      events.setNumber(row, Field.freeMicros, free);
      events.setNumber(row, Field.reservedMicros, reserved);
    }
  }
  dirty.clear();
}

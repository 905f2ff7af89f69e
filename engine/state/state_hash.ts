// A hash of the engine's meaningful state: markets, their books (every resting order in exact
// priority order) and the ledger. Markets are listed by index and accounts by address, so the
// hash does not depend on the order in which unrelated markets or accounts first appeared, nor
// on slot numbers or other internal layout; zero balances and empty positions are left out. The
// finished-order history (the duplicate-id memory) is not hashed; snapshots carry it.
// The canonical form is a JSON array; the reference engine in test/ builds the same form on its
// own, which is what makes the two engines' hashes comparable.
import { createHash } from 'node:crypto';
import { bookPriceOf } from '../market/book.js';
import { NIL, type Ladder } from '../market/ladder.js';
import type { EngineState } from './state.js';

export type CanonicalOrder = [
  id: string, owner: string, outcome: number, side: number, orderType: number, priceUnits: number,
  originalMicros: number, remainingMicros: number, createdAtMs: number, expirationMs: number,
];
export type CanonicalLevel = [bookPrice: number, orders: CanonicalOrder[]];
export type CanonicalMarket = [
  market: number, tickUnits: number, minSizeMicros: number, feeBps: number, accepting: boolean,
  resolved: boolean, winner: number, setsMicros: number, bids: CanonicalLevel[], asks: CanonicalLevel[],
];
export type CanonicalPosition = [market: number, yesFree: number, yesReserved: number, noFree: number, noReserved: number];
export type CanonicalAccount = [address: string, free: number, reserved: number, positions: CanonicalPosition[]];
export type CanonicalState = [
  version: string, markets: CanonicalMarket[], accounts: CanonicalAccount[], supplyMicros: number, feesMicros: number,
];

export const CANONICAL_VERSION = 'clobd-engine-state-1';

export function hashCanonical(state: CanonicalState): string {
  return createHash('sha256').update(JSON.stringify(state)).digest('hex');
}

export function stateHash(state: EngineState): string {
  return hashCanonical(canonicalState(state));
}

export function canonicalState(state: EngineState): CanonicalState {
  const markets = state.markets.indices().map((market) => canonicalMarket(state, market));
  return [CANONICAL_VERSION, markets, canonicalAccounts(state), state.ledger.supplyMicros, state.ledger.feesMicros];
}

function canonicalMarket(state: EngineState, market: number): CanonicalMarket {
  const markets = state.markets;
  const book = markets.book(market);
  return [
    market, markets.tickUnits[market]!, markets.minSizeMicros[market]!, markets.feeBps[market]!,
    markets.accepting[market] === 1, markets.resolved[market] === 1, markets.winner[market]!,
    state.ledger.setsMicros[market]!, canonicalLadder(state, book.bids), canonicalLadder(state, book.asks),
  ];
}

/** Levels best first, orders oldest first. */
export function canonicalLadder(state: EngineState, ladder: Ladder): CanonicalLevel[] {
  const levels: CanonicalLevel[] = [];
  for (let level = ladder.best(); level !== NIL; level = ladder.worseThan(level)) {
    const orders: CanonicalOrder[] = [];
    for (let slot = ladder.head(level); slot !== NIL; slot = ladder.after(slot)) orders.push(canonicalOrder(state, slot));
    levels.push([level, orders]);
  }
  return levels;
}

function canonicalOrder(state: EngineState, slot: number): CanonicalOrder {
  const orders = state.orders;
  const outcome = orders.outcomeOf(slot);
  return [
    orders.idOf(slot), state.ledger.accounts.addressOf(orders.accountOf(slot)), outcome, orders.sideOf(slot),
    orders.orderTypeOf(slot), bookPriceOf(outcome, orders.levelOf(slot)), orders.originalOf(slot),
    orders.remainingOf(slot), orders.createdAtOf(slot), orders.expirationOf(slot),
  ];
}

function canonicalAccounts(state: EngineState): CanonicalAccount[] {
  const ledger = state.ledger;
  const accounts = ledger.accounts;
  const result: CanonicalAccount[] = [];
  for (let account = 0; account < accounts.count(); account += 1) {
    const positions = canonicalPositions(state, account);
    const free = accounts.collateralFree[account]!;
    const reserved = accounts.collateralReserved[account]!;
    if (free === 0 && reserved === 0 && positions.length === 0) continue;
    result.push([accounts.addressOf(account), free, reserved, positions]);
  }
  return result.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function canonicalPositions(state: EngineState, account: number): CanonicalPosition[] {
  const positions = state.ledger.positions;
  const result: CanonicalPosition[] = [];
  for (let position = state.ledger.accounts.positionHead[account]!; position !== NIL; position = positions.accountNext[position]!) {
    const shares = [0, 1].flatMap((outcome) => [
      positions.sharesFree[2 * position + outcome]!, positions.sharesReserved[2 * position + outcome]!,
    ]);
    if (shares.every((amount) => amount === 0)) continue;
    result.push([positions.market[position]!, shares[0]!, shares[1]!, shares[2]!, shares[3]!]);
  }
  return result.sort((a, b) => a[0] - b[0]);
}

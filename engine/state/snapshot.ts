// The engine's whole state as a plain object (arrays, numbers, strings, booleans: msgpack and
// JSON serialisable), and back. Restoring a snapshot gives an engine with the same state hash
// that answers every later command with the same events: interning order, placement serials,
// resting order priority, account order lists, positions (empty ones too, since they count
// against the position cap) and the finished-order history all come back as they were.
import { assert } from '../assert.js';
import { ID_WORDS, parseIdWords } from '../orders/id_words.js';
import { bookSideOf } from '../market/book.js';
import { OrderType } from '../command.js';
import { NIL, type Ladder } from '../market/ladder.js';
import { claimHistoryEntry } from '../orders/order_lifecycle.js';
import type { OrderHistory } from '../orders/order_history.js';
import type { CancelReason } from '../orders/order_status.js';
import { EngineState, type EngineConfig } from './state.js';

export const SNAPSHOT_VERSION = 1;

/** id, account index, market, outcome, side, orderType, bookPrice, original, remaining, createdAt, expiration, serial. */
export type SnapshotOrder = [string, number, number, number, number, number, number, number, number, number, number, number];
/** id, account index, market, outcome, side, orderType, bookPrice, original, matched, cancelReason, createdAt, expiration, finishedAt. */
export type SnapshotFinished = [string, number, number, number, number, number, number, number, number, number, number, number, number];
/** address, collateral free, collateral reserved. */
export type SnapshotAccount = [string, number, number];
/** account index, market, yes free, yes reserved, no free, no reserved. */
export type SnapshotPosition = [number, number, number, number, number, number];
/** market, tick, min size, fee bps, accepting, resolved, winner, sets. */
export type SnapshotMarket = [number, number, number, number, boolean, boolean, number, number];

export interface EngineSnapshot {
  readonly version: number;
  readonly config: EngineConfig;
  readonly timeMs: number;
  readonly serialNext: number;
  readonly supplyMicros: number;
  readonly feesMicros: number;
  /** In interning order (the operator first). */
  readonly accounts: SnapshotAccount[];
  readonly markets: SnapshotMarket[];
  readonly positions: SnapshotPosition[];
  /** Per market, bids best first then asks best first, oldest first within a level. */
  readonly orders: SnapshotOrder[];
  /** Oldest first. */
  readonly history: SnapshotFinished[];
}

/**
 * A snapshot whose finished-order history is still columns: copied with typed-array slices when
 * the snapshot is taken (60–90 ms for 10^6 orders here, where building 10^6 entries took ~1 s
 * of the shard's time) and turned into entries a chunk at a time as they are written.
 */
export type ColumnarSnapshot = Omit<EngineSnapshot, 'history'> & { readonly history: HistoryColumns };

export function takeSnapshot(state: EngineState): EngineSnapshot {
  const snapshot = takeColumnarSnapshot(state);
  return { ...snapshot, history: snapshot.history.entries(0, snapshot.history.count) };
}

export function takeColumnarSnapshot(state: EngineState): ColumnarSnapshot {
  const ledger = state.ledger;
  const accounts: SnapshotAccount[] = ledger.accounts.addresses.map((address, account) => [
    address, ledger.accounts.collateralFree[account]!, ledger.accounts.collateralReserved[account]!,
  ]);
  const markets: SnapshotMarket[] = [];
  const positions: SnapshotPosition[] = [];
  const orders: SnapshotOrder[] = [];
  for (const market of state.markets.indices()) {
    const m = state.markets;
    markets.push([
      market, m.tickUnits[market]!, m.minSizeMicros[market]!, m.feeBps[market]!, m.accepting[market] === 1,
      m.resolved[market] === 1, m.winner[market]!, ledger.setsMicros[market]!,
    ]);
    snapshotPositions(state, market, positions);
    snapshotLadder(state, state.markets.book(market).bids, orders);
    snapshotLadder(state, state.markets.book(market).asks, orders);
  }
  return {
    version: SNAPSHOT_VERSION, config: state.config, timeMs: state.timeMs, serialNext: state.serialNext,
    supplyMicros: ledger.supplyMicros, feesMicros: ledger.feesMicros, accounts, markets, positions, orders,
    history: new HistoryColumns(state.history),
  };
}

function snapshotPositions(state: EngineState, market: number, into: SnapshotPosition[]): void {
  const positions = state.ledger.positions;
  for (let position = positions.marketHead[market]!; position !== NIL; position = positions.marketNext[position]!) {
    const base = 2 * position;
    into.push([
      positions.account[position]!, market, positions.sharesFree[base]!, positions.sharesReserved[base]!,
      positions.sharesFree[base + 1]!, positions.sharesReserved[base + 1]!,
    ]);
  }
}

function snapshotLadder(state: EngineState, ladder: Ladder, into: SnapshotOrder[]): void {
  const o = state.orders;
  for (let level = ladder.best(); level !== NIL; level = ladder.worseThan(level)) {
    for (let slot = ladder.head(level); slot !== NIL; slot = ladder.after(slot)) {
      into.push([
        o.idOf(slot), o.accountOf(slot), o.marketOf(slot), o.outcomeOf(slot), o.sideOf(slot), o.orderTypeOf(slot),
        o.levelOf(slot), o.originalOf(slot), o.remainingOf(slot), o.createdAtOf(slot),
        o.expirationOf(slot), o.serialOf(slot),
      ]);
    }
  }
}

/** Copies `count` entries of a ring column from `oldest` on into a new array, oldest first. */
function unroll<T extends Float64Array | Int32Array | Uint8Array>(column: T, oldest: number, count: number): T {
  const out = new (column.constructor as new (length: number) => T)(count);
  const first = Math.min(count, column.length - oldest);
  out.set(column.subarray(oldest, oldest + first));
  out.set(column.subarray(0, count - first), first);
  return out;
}

/** The history's numeric columns, in the order a SnapshotFinished lists them after the id. */
const HISTORY_COLUMNS = [
  'account', 'market', 'outcome', 'side', 'orderType', 'bookPrice', 'originalMicros', 'matchedMicros', 'cancelReason',
  'createdAtMs', 'expirationMs', 'finishedAtMs',
] as const;
type HistoryColumn = (typeof HISTORY_COLUMNS)[number];

/** The finished-order history as it stood, column by column, oldest first. */
export class HistoryColumns {
  readonly count: number;
  private readonly id: string[];
  private readonly columns: { readonly [C in HistoryColumn]: OrderHistory[C] };

  constructor(h: OrderHistory) {
    const count = h.count();
    const oldest = count === 0 ? 0 : h.entryAt(0);
    const first = Math.min(count, h.capacity - oldest);
    this.count = count;
    this.id = h.id.slice(oldest, oldest + first).concat(h.id.slice(0, count - first));
    this.columns = Object.fromEntries(HISTORY_COLUMNS.map((name) => [name, unroll(h[name], oldest, count)])) as HistoryColumns['columns'];
  }

  /** Entries [from, to), oldest first. */
  entries(from: number, to: number): SnapshotFinished[] {
    assert(from >= 0 && from <= to && to <= this.count, 'history entries in range');
    const c = this.columns;
    const result: SnapshotFinished[] = [];
    for (let e = from; e < to; e += 1) {
      result.push([
        this.id[e]!, c.account[e]!, c.market[e]!, c.outcome[e]!, c.side[e]!, c.orderType[e]!, c.bookPrice[e]!,
        c.originalMicros[e]!, c.matchedMicros[e]!, c.cancelReason[e]!, c.createdAtMs[e]!, c.expirationMs[e]!, c.finishedAtMs[e]!,
      ]);
    }
    return result;
  }
}

/**
 * Rebuilds engine state from a snapshot, with `config` (the snapshot's, but for verify and the
 * history's capacity: a smaller history keeps the newest of the snapshot's finished orders).
 */
export function restoreState(snapshot: EngineSnapshot, config: EngineConfig): EngineState {
  assert(snapshot.version === SNAPSHOT_VERSION, 'restore: snapshot version');
  const state = new EngineState(config);
  state.timeMs = snapshot.timeMs;
  state.serialNext = snapshot.serialNext;
  restoreLedger(state, snapshot);
  restoreOrders(state, snapshot.orders);
  restoreHistory(state, snapshot.history);
  state.levels.clear();
  state.ledger.dirty.clear();
  return state;
}

function restoreLedger(state: EngineState, snapshot: EngineSnapshot): void {
  const ledger = state.ledger;
  for (const [address, free, reserved] of snapshot.accounts) {
    const account = ledger.accounts.intern(address);
    assert(account !== -1, 'restore: accounts fit');
    ledger.accounts.collateralFree[account] = free;
    ledger.accounts.collateralReserved[account] = reserved;
  }
  ledger.supplyMicros = snapshot.supplyMicros;
  ledger.feesMicros = snapshot.feesMicros;
  for (const [market, tick, minSize, fee, accepting, resolved, winner, sets] of snapshot.markets) {
    state.markets.add(market, tick, minSize, fee);
    state.markets.accepting[market] = accepting ? 1 : 0;
    state.markets.resolved[market] = resolved ? 1 : 0;
    state.markets.winner[market] = winner;
    ledger.setsMicros[market] = sets;
  }
  // Positions were listed head first; creating them in reverse rebuilds the same lists.
  for (let index = snapshot.positions.length - 1; index >= 0; index -= 1) {
    const [account, market, yesFree, yesReserved, noFree, noReserved] = snapshot.positions[index]!;
    const position = ledger.positions.findOrCreate(account, market, ledger.accounts);
    assert(position !== -1, 'restore: positions fit');
    ledger.positions.sharesFree[2 * position] = yesFree;
    ledger.positions.sharesReserved[2 * position] = yesReserved;
    ledger.positions.sharesFree[2 * position + 1] = noFree;
    ledger.positions.sharesReserved[2 * position + 1] = noReserved;
  }
}

function restoreOrders(state: EngineState, snapshotOrders: SnapshotOrder[]): void {
  const orders = state.orders;
  const slots: number[] = [];
  // A restored order keeps its id's words, as it did when its placement carried them.
  const words = new Float64Array(ID_WORDS);
  for (const [id, account, market, outcome, side, orderType, bookPrice, original, remaining, createdAt, expiration, serial] of snapshotOrders) {
    const hash = state.hashId(id);
    const slot = orders.allocate(
      id, hash, words, parseIdWords(id, words, 0) ? 0 : -1, account, state.ledger.positions.find(account, market),
      market, outcome, side, orderType, bookPrice, original, remaining, serial,
    );
    orders.setCreatedAt(slot, createdAt);
    orders.setExpiration(slot, expiration);
    state.markets.book(market).rest(bookSideOf(outcome, side), bookPrice, slot, remaining);
    state.live.add(hash, slot);
    if (orderType === OrderType.GTD) state.expiries.push(expiration, serial, slot, state.isLive);
    slots.push(slot);
  }
  // Owner lists are in placement order, which the serials record.
  slots.sort((a, b) => orders.serialOf(a) - orders.serialOf(b));
  for (const slot of slots) orders.linkToAccount(slot, state.ledger.accounts);
}

function restoreHistory(state: EngineState, finished: SnapshotFinished[]): void {
  const h = state.history;
  for (const [id, account, market, outcome, side, orderType, bookPrice, original, matched, reason, createdAt, expiration, finishedAt] of finished.slice(Math.max(0, finished.length - h.capacity))) {
    const e = claimHistoryEntry(state, state.hashId(id));
    h.record(e, id, account, market, outcome, side, orderType, bookPrice, original, matched, reason as CancelReason);
    h.createdAtMs[e] = createdAt;
    h.expirationMs[e] = expiration;
    h.finishedAtMs[e] = finishedAt;
  }
}

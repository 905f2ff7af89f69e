// Reads for the runtime: orders, balances, books and markets as plain objects. Not on the hot
// path (they allocate); they never change state.
import { bookPriceOf, tokenSideOf, type BookSide } from '../market/book.js';
import { PRICE_UNITS_PER_ONE } from '../constants.js';
import { NIL, type Ladder } from '../market/ladder.js';
import { CancelReason, OrderStatus, finishedStatus } from '../orders/order_status.js';
import type { EngineState } from './state.js';

export interface OrderView {
  readonly orderId: string;
  readonly owner: string;
  readonly market: number;
  readonly outcome: number;
  readonly side: number;
  readonly orderType: number;
  /** In the order's own token units. */
  readonly priceUnits: number;
  readonly originalMicros: number;
  readonly matchedMicros: number;
  /** What is still resting (0 once finished). */
  readonly remainingMicros: number;
  readonly status: OrderStatus;
  /** Why a finished order stopped: EXPIRED shows as status CANCELED with this reason. */
  readonly cancelReason: CancelReason;
  readonly createdAtMs: number;
  readonly expirationMs: number;
  /** When it finished; the creation time while live. */
  readonly updatedAtMs: number;
}

export interface PositionView {
  readonly market: number;
  readonly outcome: number;
  readonly freeMicros: number;
  readonly reservedMicros: number;
}

export interface BalanceView {
  readonly account: string;
  readonly collateralFreeMicros: number;
  readonly collateralReservedMicros: number;
  /** Non-zero token balances, by market then outcome. */
  readonly positions: PositionView[];
}

/** What one account holds in a market (free + reserved shares per outcome). */
export interface HolderView {
  readonly account: string;
  readonly sharesMicros: readonly [number, number];
}

export interface LevelView {
  readonly priceUnits: number;
  readonly sizeMicros: number;
}

/** Aggregated levels, best first, in the YES orientation (the NO book is its mirror). */
export interface BookView {
  readonly market: number;
  readonly bids: LevelView[];
  readonly asks: LevelView[];
}

export interface MarketView {
  readonly market: number;
  readonly tickUnits: number;
  readonly minSizeMicros: number;
  readonly feeBps: number;
  readonly accepting: boolean;
  readonly resolved: boolean;
  /** -1 until resolved. */
  readonly winner: number;
  readonly setsMicros: number;
}

export function liveOrderView(state: EngineState, slot: number): OrderView {
  const orders = state.orders;
  const outcome = orders.outcomeOf(slot);
  const original = orders.originalOf(slot);
  const remaining = orders.remainingOf(slot);
  return {
    orderId: orders.idOf(slot), owner: state.ledger.accounts.addressOf(orders.accountOf(slot)),
    market: orders.marketOf(slot), outcome, side: orders.sideOf(slot), orderType: orders.orderTypeOf(slot),
    priceUnits: bookPriceOf(outcome, orders.levelOf(slot)), originalMicros: original,
    matchedMicros: original - remaining, remainingMicros: remaining, status: OrderStatus.LIVE,
    cancelReason: CancelReason.NONE, createdAtMs: orders.createdAtOf(slot),
    expirationMs: orders.expirationOf(slot), updatedAtMs: orders.createdAtOf(slot),
  };
}

function finishedOrderView(state: EngineState, entry: number): OrderView {
  const history = state.history;
  const outcome = history.outcome[entry]!;
  const reason = history.cancelReasonOf(entry);
  return {
    orderId: history.id[entry]!, owner: state.ledger.accounts.addressOf(history.account[entry]!),
    market: history.market[entry]!, outcome, side: history.side[entry]!, orderType: history.orderType[entry]!,
    priceUnits: bookPriceOf(outcome, history.bookPrice[entry]!), originalMicros: history.originalMicros[entry]!,
    matchedMicros: history.matchedMicros[entry]!, remainingMicros: 0, status: finishedStatus(reason),
    cancelReason: reason, createdAtMs: history.createdAtMs[entry]!, expirationMs: history.expirationMs[entry]!,
    updatedAtMs: history.finishedAtMs[entry]!,
  };
}

/** A live order, or a finished one still in the engine's history; undefined otherwise. */
export function getOrder(state: EngineState, orderId: string): OrderView | undefined {
  const hash = state.hashId(orderId);
  const slot = state.live.find(orderId, hash);
  if (slot !== -1) return liveOrderView(state, slot);
  const entry = state.finished.find(orderId, hash);
  return entry === -1 ? undefined : finishedOrderView(state, entry);
}

/** The account's live orders in placement order, optionally in one market only. */
export function openOrdersOf(state: EngineState, address: string, market?: number): OrderView[] {
  const account = state.ledger.accounts.find(address);
  const views: OrderView[] = [];
  if (account === -1) return views;
  const orders = state.orders;
  for (let slot = state.ledger.accounts.orderHead[account]!; slot !== NIL; slot = orders.accountNextOf(slot)) {
    if (market === undefined || orders.marketOf(slot) === market) views.push(liveOrderView(state, slot));
  }
  return views;
}

export function balanceOf(state: EngineState, address: string): BalanceView | undefined {
  const ledger = state.ledger;
  const account = ledger.accounts.find(address);
  if (account === -1) return undefined;
  const positions: PositionView[] = [];
  const table = ledger.positions;
  for (let position = ledger.accounts.positionHead[account]!; position !== NIL; position = table.accountNext[position]!) {
    for (let outcome = 0; outcome < 2; outcome += 1) {
      const freeMicros = table.sharesFree[2 * position + outcome]!;
      const reservedMicros = table.sharesReserved[2 * position + outcome]!;
      if (freeMicros !== 0 || reservedMicros !== 0) {
        positions.push({ market: table.market[position]!, outcome, freeMicros, reservedMicros });
      }
    }
  }
  positions.sort((a, b) => a.market - b.market || a.outcome - b.outcome);
  return {
    account: address, collateralFreeMicros: ledger.accounts.collateralFree[account]!,
    collateralReservedMicros: ledger.accounts.collateralReserved[account]!, positions,
  };
}

/** The numbers of one live order in AccountsView.orderNumbers, at these offsets. */
export const OrderNumber = {
  market: 0, outcome: 1, side: 2, orderType: 3, priceUnits: 4, originalMicros: 5, remainingMicros: 6, createdAtMs: 7, expirationMs: 8,
} as const;
export const ORDER_NUMBERS = 9;

/**
 * What every account holds and has resting, in columns: a whole shard crosses to the front end
 * (postMessage's structured clone) as an array of addresses and typed arrays, its order ids as
 * one run of bytes. A million live orders as objects took 1.6–2 s to serialize on the worker and
 * as long to read back on the front end's thread; as columns with the ids as strings, ~0.2 and
 * ~1 s (the strings); with the ids as bytes, ~0.35 and ~0.5 s, most of it making the strings the
 * read model keeps.
 */
export interface AccountsView {
  /** Accounts with collateral, shares or a live order; the other columns name them by index here. */
  readonly addresses: string[];
  /** Collateral free, then reserved, per address. */
  readonly collateralMicros: Float64Array;
  /** Non-zero token balances: the address's index, the market, the outcome, then free and reserved (two per balance). */
  readonly positionAccounts: Int32Array;
  readonly positionMarkets: Int32Array;
  readonly positionOutcomes: Uint8Array;
  readonly positionMicros: Float64Array;
  /**
   * Live orders, each account's in placement order: its id (latin1 bytes in `orderIdBytes`, from
   * the previous order's end to `orderIdEnds`), the address's index, ORDER_NUMBERS numbers (OrderNumber).
   */
  readonly orderIdBytes: Uint8Array;
  readonly orderIdEnds: Uint32Array;
  readonly orderAccounts: Int32Array;
  readonly orderNumbers: Float64Array;
}

/** Every account's live orders and balances (O(accounts + positions + live orders)). */
export function accountsView(state: EngineState): AccountsView {
  const ledger = state.ledger;
  const accounts = ledger.accounts;
  const table = ledger.positions;
  const orders = state.orders;
  const addresses: string[] = [];
  const collateral: number[] = [];
  const positionAccounts: number[] = [];
  const positionMarkets: number[] = [];
  const positionOutcomes: number[] = [];
  const positionMicros: number[] = [];
  const orderIds: string[] = [];
  const orderAccounts: number[] = [];
  const orderNumbers: number[] = [];
  for (let account = 0; account < accounts.count(); account++) {
    const free = accounts.collateralFree[account]!;
    const reserved = accounts.collateralReserved[account]!;
    const index = addresses.length;
    let holds = free !== 0 || reserved !== 0;
    for (let position = accounts.positionHead[account]!; position !== NIL; position = table.accountNext[position]!) {
      for (let outcome = 0; outcome < 2; outcome += 1) {
        const sharesFree = table.sharesFree[2 * position + outcome]!;
        const sharesReserved = table.sharesReserved[2 * position + outcome]!;
        if (sharesFree === 0 && sharesReserved === 0) continue;
        positionAccounts.push(index);
        positionMarkets.push(table.market[position]!);
        positionOutcomes.push(outcome);
        positionMicros.push(sharesFree, sharesReserved);
        holds = true;
      }
    }
    for (let slot = accounts.orderHead[account]!; slot !== NIL; slot = orders.accountNextOf(slot)) {
      const outcome = orders.outcomeOf(slot);
      orderIds.push(orders.idOf(slot));
      orderAccounts.push(index);
      orderNumbers.push(
        orders.marketOf(slot), outcome, orders.sideOf(slot), orders.orderTypeOf(slot), bookPriceOf(outcome, orders.levelOf(slot)),
        orders.originalOf(slot), orders.remainingOf(slot), orders.createdAtOf(slot), orders.expirationOf(slot),
      );
      holds = true;
    }
    if (!holds) continue;
    addresses.push(accounts.addressOf(account));
    collateral.push(free, reserved);
  }
  const orderIdEnds = new Uint32Array(orderIds.length);
  let end = 0;
  orderIds.forEach((id, order) => orderIdEnds[order] = end += id.length);
  const orderIdBytes = Buffer.alloc(end);
  orderIds.forEach((id, order) => orderIdBytes.write(id, orderIdEnds[order]! - id.length, 'latin1'));
  return {
    addresses, collateralMicros: Float64Array.from(collateral), positionAccounts: Int32Array.from(positionAccounts),
    positionMarkets: Int32Array.from(positionMarkets), positionOutcomes: Uint8Array.from(positionOutcomes),
    positionMicros: Float64Array.from(positionMicros), orderIdBytes, orderIdEnds, orderAccounts: Int32Array.from(orderAccounts),
    orderNumbers: Float64Array.from(orderNumbers),
  };
}

/** Every account holding shares of `market`, in the engine's position order. */
export function holdersOf(state: EngineState, market: number): HolderView[] {
  const ledger = state.ledger;
  const table = ledger.positions;
  const holders: HolderView[] = [];
  if (!state.markets.has(market)) return holders;
  for (let position = table.marketHead[market]!; position !== NIL; position = table.marketNext[position]!) {
    const shares = (outcome: number): number => table.sharesFree[2 * position + outcome]! + table.sharesReserved[2 * position + outcome]!;
    const sharesMicros: [number, number] = [shares(0), shares(1)];
    if (sharesMicros[0] !== 0 || sharesMicros[1] !== 0) holders.push({ account: ledger.accounts.addresses[table.account[position]!]!, sharesMicros });
  }
  return holders;
}

function ladderLevels(ladder: Ladder): LevelView[] {
  const levels: LevelView[] = [];
  for (let level = ladder.best(); level !== NIL; level = ladder.worseThan(level)) {
    levels.push({ priceUnits: level, sizeMicros: ladder.sizeAt(level) });
  }
  return levels;
}

export function bookLevels(state: EngineState, market: number): BookView | undefined {
  if (!state.markets.has(market)) return undefined;
  const book = state.markets.book(market);
  return { market, bids: ladderLevels(book.bids), asks: ladderLevels(book.asks) };
}

/**
 * The best price on `side` of `outcome`'s own book, in that token's units, or -1. The NO book
 * mirrors the YES book: NO's best bid is 1 − YES's best ask.
 */
export function bestPrice(state: EngineState, market: number, outcome: number, side: BookSide): number {
  if (!state.markets.has(market)) return -1;
  const book = state.markets.book(market);
  const level = book.ladder(tokenSideOf(outcome, side)).best();
  return level === NIL ? -1 : bookPriceOf(outcome, level);
}

export function marketView(state: EngineState, market: number): MarketView | undefined {
  const markets = state.markets;
  if (!markets.has(market)) return undefined;
  return {
    market, tickUnits: markets.tickUnits[market]!, minSizeMicros: markets.minSizeMicros[market]!,
    feeBps: markets.feeBps[market]!, accepting: markets.accepting[market] === 1,
    resolved: markets.resolved[market] === 1, winner: markets.winner[market]!,
    setsMicros: state.ledger.setsMicros[market]!,
  };
}

/** A price level of the YES book as the NO token shows it. */
export function noTokenLevel(side: BookSide, priceUnits: number): { side: BookSide; priceUnits: number } {
  return { side: tokenSideOf(1, side), priceUnits: PRICE_UNITS_PER_ONE - priceUnits };
}


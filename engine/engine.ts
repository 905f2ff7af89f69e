// The matching engine: a deterministic state machine for binary prediction markets. Commands go
// in (each with its sequence number and time), events come out in `events`; no I/O, no clock,
// no randomness, integers only. The whole command pipeline is readable here: stamp the command,
// expire what is due, run the command, emit the level and balance changes, and (in verify mode)
// check every invariant.
import { assert } from './assert.js';
import { cancelAccount, cancelAccountMarket, cancelOrder, cancelOrders } from './orders/cancellation.js';
import { pushBalanceChanges, pushLevelChanges } from './events/change_events.js';
import { deposit, withdraw } from './ledger/collateral.js';
import { CommandKind, unreachable, type Command } from './command.js';
import { TIME_MS_MAX } from './constants.js';
import type { EventBuffer } from './events/events.js';
import { sweepExpired } from './orders/expiry.js';
import { checkInvariants } from './state/invariants.js';
import { addMarket, resolveMarket, setMarketAccepting, setTickSize } from './market/market_admin.js';
import { placeOrder } from './orders/placement.js';
import {
  accountsView, balanceOf, bestPrice, bookLevels, getOrder, holdersOf, marketView, openOrdersOf,
  type AccountsView, type BalanceView, type BookView, type HolderView, type MarketView, type OrderView,
} from './state/reads.js';
import type { BookSide } from './market/book.js';
import { restoreState, takeColumnarSnapshot, takeSnapshot, type ColumnarSnapshot, type EngineSnapshot } from './state/snapshot.js';
import { EngineState, resolveOptions, type EngineConfig, type EngineOptions } from './state/state.js';
import { stateHash } from './state/state_hash.js';

export interface EngineStats {
  readonly ordersLive: number;
  readonly ordersFinishedRemembered: number;
  readonly accounts: number;
  readonly positions: number;
  readonly markets: number;
  readonly supplyMicros: number;
  readonly feesMicros: number;
  /** Complete sets outstanding over every market (each pays 1.00 at resolution), micros. */
  readonly openInterestMicros: number;
}

/** What a restored engine may take from its caller instead of from the snapshot. */
export interface RestoreOverrides {
  readonly verify?: boolean | undefined;
  readonly orderHistory?: number | undefined;
  readonly hashSeed?: number | undefined;
}

export class Engine {
  /** Events of the commands executed since the consumer last cleared it. */
  readonly events: EventBuffer;
  private readonly state: EngineState;

  /** A new, empty engine; or, given a snapshot, the engine it recorded (see restore). */
  constructor(options: EngineOptions, snapshot?: EngineSnapshot) {
    const config = resolveOptions(options);
    this.state = snapshot === undefined ? new EngineState(config) : restoreState(snapshot, config);
    this.events = this.state.events;
    if (snapshot !== undefined && config.verify) checkInvariants(this.state, true);
  }

  /**
   * An engine in exactly the state `snapshot` recorded, with the snapshot's options except
   * those given here: `verify`, `orderHistory` (a smaller history keeps the newest finished
   * orders; the history is not part of the state hash) and `hashSeed` (it changes only the id
   * indexes' layout).
   */
  static restore(snapshot: EngineSnapshot, overrides: RestoreOverrides = {}): Engine {
    return new Engine({
      ...snapshot.config, verify: overrides.verify ?? snapshot.config.verify,
      orderHistory: overrides.orderHistory ?? snapshot.config.orderHistory,
      hashSeed: overrides.hashSeed ?? snapshot.config.hashSeed,
    }, snapshot);
  }

  get config(): EngineConfig {
    return this.state.config;
  }

  /** Executes one command, appending its events. */
  execute(command: Command): void {
    const state = this.state;
    assert(Number.isInteger(command.timeMs) && command.timeMs >= 0 && command.timeMs <= TIME_MS_MAX, 'command time');
    assert(Number.isSafeInteger(command.seq), 'command seq');
    state.timeMs = command.timeMs;
    state.events.seqCurrent = command.seq;
    state.fillIndex = 0;
    sweepExpired(state);
    this.dispatch(command);
    pushLevelChanges(state);
    pushBalanceChanges(state);
    if (state.config.verify) checkInvariants(state, false);
  }

  private dispatch(command: Command): void {
    const state = this.state;
    const kind = command.kind;
    switch (kind) {
      case CommandKind.PlaceOrder: return placeOrder(state, command);
      case CommandKind.CancelOrder: return cancelOrder(state, command);
      case CommandKind.CancelOrders: return cancelOrders(state, command);
      case CommandKind.CancelAccount: return cancelAccount(state, command);
      case CommandKind.CancelAccountMarket: return cancelAccountMarket(state, command);
      case CommandKind.Deposit: return deposit(state, command);
      case CommandKind.Withdraw: return withdraw(state, command);
      case CommandKind.AddMarket: return addMarket(state, command);
      case CommandKind.SetMarketAccepting: return setMarketAccepting(state, command);
      case CommandKind.SetTickSize: return setTickSize(state, command);
      case CommandKind.ResolveMarket: return resolveMarket(state, command);
      // The sweep before every command did the work.
      case CommandKind.ExpireOrders: return;
      default: return unreachable(kind);
    }
  }

  /** Throws an AssertionError when any invariant is broken (O(state)). */
  checkInvariants(): void {
    checkInvariants(this.state, true);
  }

  /** SHA-256 (hex) of the canonical state: books, orders and ledger. */
  stateHash(): string {
    return stateHash(this.state);
  }

  snapshot(): EngineSnapshot {
    return takeSnapshot(this.state);
  }

  /** The same snapshot with its finished-order history still as copied columns (cheap to take). */
  columnarSnapshot(): ColumnarSnapshot {
    return takeColumnarSnapshot(this.state);
  }

  /**
   * Whether the engine holds the command's order id, live or remembered as finished (no view is
   * built), hashed from the key the command carries when it carries one (Command.orderIdKey).
   */
  knowsOrderOf(command: Command): boolean {
    return this.state.knowsOrder(command.orderId, this.state.commandIdHash(command));
  }

  getOrder(orderId: string): OrderView | undefined {
    return getOrder(this.state, orderId);
  }

  openOrdersOf(account: string, market?: number): OrderView[] {
    return openOrdersOf(this.state, account, market);
  }

  balanceOf(account: string): BalanceView | undefined {
    return balanceOf(this.state, account);
  }

  /** Every account's live orders and balances, in columns (O(state): the account read model's start). */
  accounts(): AccountsView {
    return accountsView(this.state);
  }

  bookLevels(market: number): BookView | undefined {
    return bookLevels(this.state, market);
  }

  /** Best price of `side` in `outcome`'s own book (token units), or -1. */
  bestPrice(market: number, outcome: number, side: BookSide): number {
    return bestPrice(this.state, market, outcome, side);
  }

  market(market: number): MarketView | undefined {
    return marketView(this.state, market);
  }

  /** Accounts holding shares of `market` and how many of each outcome. */
  holdersOf(market: number): HolderView[] {
    return holdersOf(this.state, market);
  }

  stats(): EngineStats {
    const state = this.state;
    return {
      ordersLive: state.orders.count(), ordersFinishedRemembered: state.history.count(),
      accounts: state.ledger.accounts.count(), positions: state.ledger.positions.count(),
      markets: state.markets.count(), supplyMicros: state.ledger.supplyMicros, feesMicros: state.ledger.feesMicros,
      openInterestMicros: state.ledger.setsMicros.reduce((sum, sets) => sum + sets, 0),
    };
  }
}

// A small scenario language for engine tests: people, tokens and decimal prices instead of
// integer units, and one compact line per event so a test reads like the story it tells.
// Every step runs on the fast engine (verify mode on) and on the reference engine; the two must
// emit the same events and reach the same state hash, so each scenario is also a differential
// test.
import assert from 'node:assert/strict';
import { CommandKind, OrderType, OUTCOME_ANY, makeCommand, type CommandInit } from '../../engine/command.js';
import { Engine } from '../../engine/engine.js';
import { eventsToObjects, type EngineEvent } from '../../engine/events/event_objects.js';
import { rejectName } from '../../engine/events/reject.js';
import { cancelReasonName } from '../../engine/orders/order_status.js';
import type { EngineOptions } from '../../engine/state/state.js';
import { formatUnits, parseUnits } from '../../http/decimal.js';
import { ReferenceEngine, changesInKeyOrder, referenceStateHash } from './reference.js';

export type Token = 'YES' | 'NO';
export type TypeName = 'GTC' | 'GTD' | 'FOK' | 'FAK';

export const OPERATOR = 'operator';
export const START_MS = 1_700_000_000_000;

/** Exact decimal text to integer units of 10^-decimals (the edge's parser). */
function toUnits(text: string, decimals: number): number {
  const units = parseUnits(text, decimals);
  assert.ok(units !== undefined, `bad decimal ${text}`);
  return units;
}

export const micros = (text: string): number => toUnits(text, 6);
export const priceUnits = (text: string): number => toUnits(text, 4);

const tokenName = (outcome: number): string => (outcome === 0 ? 'YES' : outcome === 1 ? 'NO' : String(outcome));
const sideName = (side: number): string => (side === 0 ? 'BUY' : 'SELL');
const typeNames = ['GTC', 'GTD', 'FOK', 'FAK'];
const fillKinds = ['NORMAL', 'MINT', 'MERGE'];
const m = (units: number): string => formatUnits(units, 6);
const p = (units: number): string => formatUnits(units, 4);

/** One compact line per event. */
export function describe(event: EngineEvent): string {
  switch (event.kind) {
    case 'ORDER_ACCEPTED':
      return `accepted ${event.orderId} ${sideName(event.side)} ${tokenName(event.outcome)} ${p(event.priceUnits)} x ${m(event.sizeMicros)} ` +
        `${typeNames[event.orderType]} matched ${m(event.matchedMicros)}${event.rests ? ' rests' : ''}`;
    case 'ORDER_REJECTED': return `rejected ${event.orderId} ${rejectName(event.reason)}`;
    case 'ORDER_UPDATED': return `updated ${event.orderId} matched ${m(event.matchedMicros)} remaining ${m(event.remainingMicros)}`;
    case 'ORDER_CANCELLED': return `cancelled ${event.orderId} ${cancelReasonName(event.reason)} remaining ${m(event.remainingMicros)}`;
    case 'CANCEL_REJECTED': return `cancel-rejected ${event.orderId} ${rejectName(event.reason)}`;
    case 'FILL':
      return `fill ${fillKinds[event.fillKind]} ${event.takerOrderId} ${sideName(event.takerSide)} ${tokenName(event.takerOutcome)} ` +
        `${p(event.takerPriceUnits)} <- ${event.makerOrderId} ${sideName(event.makerSide)} ${tokenName(event.makerOutcome)} ` +
        `${p(event.makerPriceUnits)} size ${m(event.sizeMicros)} fee ${m(event.takerFeeMicros)}`;
    case 'LEVEL': return `level m${event.market} ${event.side === 0 ? 'bid' : 'ask'} ${p(event.priceUnits)} = ${m(event.sizeMicros)}`;
    case 'BALANCE': {
      const asset = event.market === -1 ? 'USDC' : `m${event.market} ${tokenName(event.outcome)}`;
      return `balance ${event.account} ${asset} ${m(event.freeMicros)} / ${m(event.reservedMicros)}`;
    }
    case 'MARKET':
      return `market m${event.market} tick ${p(event.tickUnits)} min ${m(event.minSizeMicros)} fee ${event.feeBps}` +
        `${event.accepting ? ' accepting' : ''}${event.resolved ? ` resolved ${tokenName(event.winner)}` : ''}`;
    case 'COMMAND_REJECTED': return `command-rejected ${rejectName(event.reason)}`;
  }
}

export interface ScenarioOptions {
  readonly tick?: string;
  readonly minSize?: string;
  readonly feeBps?: number;
  /** Markets 0 .. count-1 are added with the options above. */
  readonly markets?: number;
  readonly engine?: Partial<Omit<EngineOptions, 'operatorAddress' | 'verify'>>;
}

export interface OrderOptions {
  readonly id?: string;
  readonly type?: TypeName;
  readonly postOnly?: boolean;
  readonly market?: number;
  /** GTD: expiration relative to the current time. */
  readonly expiresInMs?: number;
  /** Raw expiration in ms (overrides expiresInMs). */
  readonly expirationMs?: number;
}

const TEST_LIMITS = { orderSlots: 4096, accountOrdersMax: 1000, orderHistory: 4096, marketsMax: 16, accountsMax: 256, positionsMax: 4096 };

export class Scenario {
  readonly engine: Engine;
  readonly reference: ReferenceEngine;
  timeMs = START_MS;
  private seq = 0;
  private orderCount = 0;
  /** Events of the last step, as objects (level and balance changes in the reference's key order). */
  last: EngineEvent[] = [];
  /** The same events in the engine's own order (changes in the order the command touched them). */
  emitted: EngineEvent[] = [];

  constructor(options: ScenarioOptions = {}) {
    const limits = { ...TEST_LIMITS, ...options.engine };
    this.engine = new Engine({ operatorAddress: OPERATOR, verify: true, ...limits });
    this.reference = new ReferenceEngine(OPERATOR, limits);
    for (let market = 0; market < (options.markets ?? 1); market += 1) {
      this.addMarket(market, options.tick ?? '0.01', options.minSize ?? '1', options.feeBps ?? 0);
    }
  }

  /** Runs one command on both engines, checks they agree, and returns the event lines. */
  run(init: CommandInit): string[] {
    this.seq += 1;
    const command = makeCommand({ seq: this.seq, timeMs: this.timeMs, ...init });
    this.engine.execute(command);
    const raw = eventsToObjects(this.engine.events);
    this.engine.events.clear();
    const expected = this.reference.execute(command);
    const events = changesInKeyOrder(raw, this.reference);
    assert.deepEqual(events, expected, `engine and reference disagree on command ${this.seq}`);
    assert.equal(this.engine.stateHash(), referenceStateHash(this.reference), `state hashes differ after ${this.seq}`);
    this.last = events;
    this.emitted = raw;
    return events.map(describe);
  }

  addMarket(market: number, tick: string, minSize: string, feeBps: number): string[] {
    return this.run({ kind: CommandKind.AddMarket, market, tickUnits: priceUnits(tick), minSizeMicros: micros(minSize), feeBps });
  }

  deposit(who: string, amount: string): string[] {
    return this.run({ kind: CommandKind.Deposit, account: who, amountMicros: micros(amount) });
  }

  withdraw(who: string, amount: string): string[] {
    return this.run({ kind: CommandKind.Withdraw, account: who, amountMicros: micros(amount) });
  }

  buy(who: string, token: Token, price: string, size: string, options: OrderOptions = {}): string[] {
    return this.place(who, token, 0, price, size, options);
  }

  sell(who: string, token: Token, price: string, size: string, options: OrderOptions = {}): string[] {
    return this.place(who, token, 1, price, size, options);
  }

  /** The id the next order gets when none is given: o1, o2, ... */
  nextId(): string {
    return `o${this.orderCount + 1}`;
  }

  private place(who: string, token: Token, side: 0 | 1, price: string, size: string, options: OrderOptions): string[] {
    this.orderCount += 1;
    const type = options.type ?? 'GTC';
    const expirationMs = options.expirationMs ?? (options.expiresInMs === undefined ? 0 : this.timeMs + options.expiresInMs);
    return this.run({
      kind: CommandKind.PlaceOrder, account: who, orderId: options.id ?? `o${this.orderCount}`, market: options.market ?? 0,
      outcome: token === 'YES' ? 0 : 1, side, orderType: OrderType[type], postOnly: options.postOnly ?? false,
      priceUnits: priceUnits(price), sizeMicros: micros(size), expirationMs,
    });
  }

  cancel(who: string, orderId: string): string[] {
    return this.run({ kind: CommandKind.CancelOrder, account: who, orderId });
  }

  cancelMany(who: string, orderIds: string[]): string[] {
    return this.run({ kind: CommandKind.CancelOrders, account: who, orderIds });
  }

  cancelAll(who: string): string[] {
    return this.run({ kind: CommandKind.CancelAccount, account: who });
  }

  cancelMarket(who: string, market: number, token?: Token): string[] {
    const outcome = token === undefined ? OUTCOME_ANY : token === 'YES' ? 0 : 1;
    return this.run({ kind: CommandKind.CancelAccountMarket, account: who, market, outcome });
  }

  resolve(market: number, winner: Token): string[] {
    return this.run({ kind: CommandKind.ResolveMarket, market, outcome: winner === 'YES' ? 0 : 1 });
  }

  setAccepting(market: number, accepting: boolean): string[] {
    return this.run({ kind: CommandKind.SetMarketAccepting, market, accepting });
  }

  setTick(market: number, tick: string): string[] {
    return this.run({ kind: CommandKind.SetTickSize, market, tickUnits: priceUnits(tick) });
  }

  /** Moves time forward and sends an ExpireOrders tick. */
  advance(ms: number): string[] {
    this.timeMs += ms;
    return this.run({ kind: CommandKind.ExpireOrders });
  }

  /** "free / reserved" of collateral or one token, as decimals. */
  balance(who: string, token?: Token, market = 0): string {
    const view = this.engine.balanceOf(who);
    if (view === undefined) return '0 / 0';
    if (token === undefined) return `${m(view.collateralFreeMicros)} / ${m(view.collateralReservedMicros)}`;
    const position = view.positions.find((x) => x.market === market && x.outcome === (token === 'YES' ? 0 : 1));
    return position === undefined ? '0 / 0' : `${m(position.freeMicros)} / ${m(position.reservedMicros)}`;
  }

  /** The YES-orientation book as "price x size" lines, best first. */
  book(market = 0): { bids: string[]; asks: string[] } {
    const view = this.engine.bookLevels(market);
    assert.ok(view !== undefined, 'book of an existing market');
    const lines = (levels: { priceUnits: number; sizeMicros: number }[]): string[] =>
      levels.map((level) => `${p(level.priceUnits)} x ${m(level.sizeMicros)}`);
    return { bids: lines(view.bids), asks: lines(view.asks) };
  }
}

/** Lines of one kind ("fill", "balance", ...), in order. */
export function only(lines: string[], prefix: string): string[] {
  return lines.filter((line) => line.startsWith(prefix + ' '));
}

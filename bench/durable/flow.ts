// The order flow the durable benchmark sends, generated from a seed into columns: resting and
// crossing BUY and SELL orders over every demo market from a few hundred funded accounts, plus
// cancels of orders that still rest. An oracle engine (the in-memory engine, run alongside the
// generator) says which orders still rest and which positions an account holds, so SELLs sell
// shares the account has and cancels target live orders, as a real client's would. The runtime
// keeps each market's commands in send order, so it reaches the same per-market outcomes.
//
// The same rows also drive the two in-memory baselines: the engine alone, and the shard core
// (the worker's per-frame code: funding, sweeps, the answer written and decoded) without rings,
// threads or LMDB.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommandKind, OrderType, Side } from '../../engine/command.js';
import { Engine } from '../../engine/engine.js';
import { eventsToObjects } from '../../engine/events/event_objects.js';
import { takerFeeMicros } from '../../engine/ledger/fee.js';
import { notionalMicros } from '../../engine/ledger/notional.js';
import { ShardCore } from '../../engine/shard/core.js';
import { Frame } from '../../engine/shard/frame.js';
import { AnswerDecoder, AnswerWriter } from '../../engine/shard/answer_codec.js';
import { demoAnchorOf, demoEvents } from '../../http/catalog/demo.js';
import { readEvent } from '../../http/catalog/ingest.js';
import { CatalogStore } from '../../http/catalog/store.js';
import { marketSpecOf } from '../../http/trading/runtime.js';
import type { MarketSpec } from '../../http/trading/client.js';
import { Prng } from '../../test/engine/prng.js';

export const ROW_PLACE = 1;
export const ROW_CANCEL = 2;

export const OPERATOR = '0x00000000000000000000000000000000000000fe';
/** Every account's deposit: far more than its resting BUYs can reserve. */
export const DEPOSIT_MICROS = 1_000_000 * 1_000_000;
const TIME_MS = 1_800_000_000_000;
/** Cancels target orders placed at least this many rows earlier, so their answer is in. */
const CANCEL_DISTANCE_ROWS = 16_384;
const SIZE_SHARES_MIN = 5;
const SIZE_SHARES_MAX = 20;
const MICROS_PER_SHARE = 1_000_000;

/** The demo catalog's order-book markets, as the runtime registers them at start. */
export function demoMarketSpecs(): MarketSpec[] {
  const dir = mkdtempSync(join(tmpdir(), 'clobd-bench-catalog-'));
  const store = CatalogStore.open(dir);
  try {
    for (const body of demoEvents(demoAnchorOf(TIME_MS))) store.createEvent(readEvent(body, '', 'create', TIME_MS));
    return store.allMarkets().filter((market) => market.enableOrderBook && market.acceptingOrders).map(marketSpecOf);
  } finally {
    void store.close().then(() => rmSync(dir, { recursive: true, force: true }));
  }
}

export class OrderFlow {
  readonly length: number;
  readonly rowKind: Uint8Array;
  readonly account: Int32Array;
  /** Index into `specs`. */
  readonly market: Int32Array;
  readonly outcome: Uint8Array;
  readonly side: Uint8Array;
  readonly orderType: Uint8Array;
  readonly priceUnits: Int32Array;
  readonly sizeMicros: Float64Array;
  /** The order id a row places or cancels. */
  readonly orderId: string[];
  /** 1 where the oracle rejected the row (order or cancel): the runtime should reject the same. */
  readonly rejected: Uint8Array;

  constructor(length: number, readonly specs: readonly MarketSpec[], readonly accounts: readonly string[]) {
    this.rejected = new Uint8Array(length);
    this.length = length;
    this.rowKind = new Uint8Array(length);
    this.account = new Int32Array(length);
    this.market = new Int32Array(length);
    this.outcome = new Uint8Array(length);
    this.side = new Uint8Array(length);
    this.orderType = new Uint8Array(length);
    this.priceUnits = new Int32Array(length);
    this.sizeMicros = new Float64Array(length);
    this.orderId = new Array<string>(length);
  }

  /** What a BUY row reserves (and the front end funds): notional plus the most taker fee. */
  fundMicros(row: number): number {
    if (this.rowKind[row] !== ROW_PLACE || this.side[row] !== Side.Buy) return 0;
    const notional = notionalMicros(this.priceUnits[row]!, this.sizeMicros[row]!);
    return notional + takerFeeMicros(notional, this.specs[this.market[row]!]!.feeBps);
  }

  /** Fills `command` with row `row` for an engine whose market i is spec i. */
  fillCommand(command: Command, row: number): void {
    command.timeMs = TIME_MS;
    command.account = this.accounts[this.account[row]!]!;
    command.orderId = this.orderId[row]!;
    if (this.rowKind[row] === ROW_CANCEL) {
      command.kind = CommandKind.CancelOrder;
      return;
    }
    command.kind = CommandKind.PlaceOrder;
    command.market = this.market[row]!;
    command.outcome = this.outcome[row]!;
    command.side = this.side[row] as Side;
    command.orderType = this.orderType[row] as OrderType;
    command.postOnly = false;
    command.priceUnits = this.priceUnits[row]!;
    command.sizeMicros = this.sizeMicros[row]!;
    command.expirationMs = 0;
  }
}

/** An in-memory engine with the flow's markets and funded accounts, as the baselines start. */
export class FlowEngine {
  readonly engine = new Engine({ operatorAddress: OPERATOR });
  readonly command = new Command();
  private seq = 0;

  constructor(flow: OrderFlow) {
    for (const spec of flow.specs) {
      this.run({ kind: CommandKind.AddMarket, tickUnits: spec.tickUnits, minSizeMicros: spec.minSizeMicros, feeBps: spec.feeBps, market: this.engine.stats().markets });
    }
    for (const account of flow.accounts) this.run({ kind: CommandKind.Deposit, account, amountMicros: DEPOSIT_MICROS });
    this.engine.events.clear();
  }

  execute(flow: OrderFlow, row: number): void {
    flow.fillCommand(this.command, row);
    this.seq += 1;
    this.command.seq = this.seq;
    this.engine.execute(this.command);
  }

  private run(init: Partial<Command> & { kind: CommandKind }): void {
    Object.assign(this.command, { timeMs: TIME_MS, accepting: true }, init);
    this.seq += 1;
    this.command.seq = this.seq;
    this.engine.execute(this.command);
  }
}

interface Mix {
  readonly cancel: number;
  readonly crossing: number;
}

const MIX: Mix = { cancel: 0.3, crossing: 0.2 };

/** Orders that rest, split by age: only old ones may be cancelled (see CANCEL_DISTANCE_ROWS). */
class RestingPool {
  private readonly young: number[] = [];
  private youngHead = 0;
  readonly old: number[] = [];

  add(row: number): void {
    this.young.push(row);
  }

  age(row: number): void {
    while (this.youngHead < this.young.length && this.young[this.youngHead]! <= row - CANCEL_DISTANCE_ROWS) {
      this.old.push(this.young[this.youngHead]!);
      this.youngHead++;
    }
    if (this.youngHead > 65_536) {
      this.young.splice(0, this.youngHead);
      this.youngHead = 0;
    }
  }

  /** Removes and returns a random old row, or -1. */
  take(random: Prng): number {
    if (this.old.length === 0) return -1;
    const index = random.below(this.old.length);
    const row = this.old[index]!;
    this.old[index] = this.old[this.old.length - 1]!;
    this.old.pop();
    return row;
  }
}

/** Generates `length` rows; the oracle engine runs each as it is made. */
export function generateFlow(length: number, seed: number, specs: readonly MarketSpec[], accounts: readonly string[]): OrderFlow {
  const flow = new OrderFlow(length, specs, accounts);
  const oracle = new FlowEngine(flow);
  const random = new Prng(seed);
  const resting = new RestingPool();
  const freeShares = new Map<string, number>();
  const mids = specs.map(() => 5000);
  const accountIndex = new Map(accounts.map((account, index) => [account, index]));
  for (let row = 0; row < length; row++) {
    resting.age(row);
    if (!(random.chance(MIX.cancel) && makeCancel(flow, row, oracle, resting, random))) {
      makePlace(flow, row, random, mids, freeShares);
    }
    oracle.execute(flow, row);
    trackOracle(flow, row, oracle, { resting, freeShares, accountIndex });
  }
  return flow;
}

function makeCancel(flow: OrderFlow, row: number, oracle: FlowEngine, resting: RestingPool, random: Prng): boolean {
  for (let attempt = 0; attempt < 4; attempt++) {
    const target = resting.take(random);
    if (target < 0) return false;
    const view = oracle.engine.getOrder(flow.orderId[target]!);
    if (view === undefined || view.remainingMicros === 0) continue;
    flow.rowKind[row] = ROW_CANCEL;
    flow.account[row] = flow.account[target]!;
    flow.orderId[row] = flow.orderId[target]!;
    return true;
  }
  return false;
}

function makePlace(flow: OrderFlow, row: number, random: Prng, mids: number[], freeShares: Map<string, number>): void {
  const market = random.below(flow.specs.length);
  const tick = flow.specs[market]!.tickUnits;
  // The YES mid wanders a tick at a time inside [0.20, 0.80].
  mids[market] = Math.min(8000, Math.max(2000, mids[market]! + (random.below(3) - 1) * tick));
  const account = random.below(flow.accounts.length);
  const outcome = random.below(2);
  const sizeMicros = random.between(SIZE_SHARES_MIN, SIZE_SHARES_MAX) * MICROS_PER_SHARE;
  const held = freeShares.get(positionKey(account, market, outcome)) ?? 0;
  const side = held >= sizeMicros && random.chance(0.5) ? Side.Sell : Side.Buy;
  const crossing = random.chance(MIX.crossing);
  const ownMid = outcome === 0 ? mids[market]! : 10_000 - mids[market]!;
  // Resting orders sit 1 to 10 ticks behind the mid; crossing ones reach 1 to 3 ticks past it.
  const away = crossing ? -random.between(1, 3) : random.between(1, 10);
  const price = side === Side.Buy ? ownMid - away * tick : ownMid + away * tick;
  flow.rowKind[row] = ROW_PLACE;
  flow.account[row] = account;
  flow.market[row] = market;
  flow.outcome[row] = outcome;
  flow.side[row] = side;
  flow.orderType[row] = crossing && random.chance(0.5) ? OrderType.FAK : OrderType.GTC;
  flow.priceUnits[row] = Math.min(10_000 - tick, Math.max(tick, price));
  flow.sizeMicros[row] = sizeMicros;
  flow.orderId[row] = `bench-${row.toString(36)}`;
}

function positionKey(account: number, market: number, outcome: number): string {
  return `${account}:${market}:${outcome}`;
}

/** Learns from the oracle's events which positions changed and whether the row's order rests. */
interface OracleTracking {
  readonly resting: RestingPool;
  readonly freeShares: Map<string, number>;
  readonly accountIndex: ReadonlyMap<string, number>;
}

function trackOracle(flow: OrderFlow, row: number, oracle: FlowEngine, tracking: OracleTracking): void {
  for (const event of eventsToObjects(oracle.engine.events)) {
    if (event.kind === 'BALANCE' && event.market >= 0) {
      const index = tracking.accountIndex.get(event.account);
      if (index !== undefined) tracking.freeShares.set(positionKey(index, event.market, event.outcome), event.freeMicros);
    } else if (event.kind === 'ORDER_ACCEPTED' && flow.rowKind[row] === ROW_PLACE && flow.orderType[row] === OrderType.GTC) {
      tracking.resting.add(row);
    } else if (event.kind === 'ORDER_REJECTED' || event.kind === 'CANCEL_REJECTED' || event.kind === 'COMMAND_REJECTED') {
      flow.rejected[row] = 1;
    }
  }
  oracle.engine.events.clear();
}

export interface BaselineFigures {
  readonly commands: number;
  readonly commandsPerSecond: number;
}

/**
 * The engine alone, rows [from, to) timed after [0, from) untimed (as the runtime is timed):
 * the ceiling without any runtime around it.
 */
export function measureEngine(flow: OrderFlow, from: number, to: number): BaselineFigures {
  const engine = new FlowEngine(flow);
  const events = engine.engine.events;
  let started = 0;
  for (let row = 0; row < to; row++) {
    if (row === from) started = performance.now();
    engine.execute(flow, row);
    events.clear();
  }
  return { commands: to - from, commandsPerSecond: (to - from) / ((performance.now() - started) / 1000) };
}

/**
 * The worker's per-frame work without I/O: ShardCore.apply (funding deposit, the command, the
 * sweep) and the answer's round trip (written from the event rows, decoded into objects as the
 * front end does), rows [from, to) timed.
 */
export function measureShardCore(flow: OrderFlow, from: number, to: number): BaselineFigures {
  const core = new ShardCore({ operatorAddress: OPERATOR });
  const frame = new Frame(new Command());
  for (const spec of flow.specs) {
    Object.assign(frame.command, { kind: CommandKind.AddMarket, timeMs: TIME_MS, tickUnits: spec.tickUnits, minSizeMicros: spec.minSizeMicros, feeBps: spec.feeBps, accepting: true, account: '', orderId: '' });
    frame.marketKey = spec.key;
    frame.fundMicros = 0;
    core.apply(frame);
  }
  const writer = new AnswerWriter();
  const decoder = new AnswerDecoder();
  let started = 0;
  for (let row = 0; row < to; row++) {
    if (row === from) started = performance.now();
    flow.fillCommand(frame.command, row);
    frame.requestId = row + 1;
    frame.fundMicros = flow.fundMicros(row);
    frame.marketKey = '';
    const start = writer.write(core.apply(frame), core.events);
    decoder.decode(writer.slice(start, writer.end() - start), 0, writer.end() - start);
    writer.reset();
  }
  return { commands: to - from, commandsPerSecond: (to - from) / ((performance.now() - started) / 1000) };
}

/**
 * Rows that only rest: BUY orders of both outcomes at 0.01 to 0.49, which never cross, spread
 * over every market, `accounts` accounts and 49 price levels per side (the restart fill).
 */
export function restingFlow(length: number, specs: readonly MarketSpec[], accounts: readonly string[]): OrderFlow {
  const flow = new OrderFlow(length, specs, accounts);
  for (let row = 0; row < length; row++) {
    const market = row % specs.length;
    flow.rowKind[row] = ROW_PLACE;
    flow.account[row] = Math.floor(row / specs.length) % accounts.length;
    flow.market[row] = market;
    flow.outcome[row] = Math.floor(row / 7) % 2;
    flow.side[row] = Side.Buy;
    flow.orderType[row] = OrderType.GTC;
    flow.priceUnits[row] = specs[market]!.tickUnits * (1 + ((row * 7) % 49));
    flow.sizeMicros[row] = SIZE_SHARES_MIN * MICROS_PER_SHARE;
    flow.orderId[row] = `rest-${row.toString(36)}`;
  }
  return flow;
}

// Helpers for the trading runtime suite: an in-process server on free ports and a temporary
// DATA_DIR, a seeded order flow over several markets and accounts that reports each answer as
// an acknowledgement, and the checks every test makes of a runtime's state: invariants hold in
// every shard, collateral is conserved exactly, every stored fill names stored orders whose
// matched size the fills add up to, and the engine's view of every stored order is the stored one.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { OrderType, Side } from '../../../engine/command.js';
import type { EngineEvent, FillEvent } from '../../../engine/events/event_objects.js';
import { OrderStatus } from '../../../engine/orders/order_status.js';
import type { ShardStatus } from '../../../engine/shard/protocol.js';
import type { OrderView } from '../../../engine/state/reads.js';
import { loadConfig } from '../../../http/config.js';
import { createLogger } from '../../../http/log.js';
import { startServer, type Server } from '../../../http/server.js';
import type { TradingClient } from '../../../http/trading/client.js';
import type { TradingRuntime } from '../../../http/trading/runtime.js';
import type { Prng } from '../../engine/prng.js';
import { removeDataDir, request, temporaryDataDir } from '../../support/server.js';
import { ADMIN_TOKEN, type PlainMarket } from '../orders/trader.js';

export { removeDataDir, temporaryDataDir };

/** 1 share and 1 USDC, in micros. */
export const ONE_MICROS = 1_000_000;
/** The test markets take orders of at least 5 shares. */
export const MIN_SHARES = 5;

/** Markets the trading tests register with the shards directly (no catalog, no demo quotes). */
const TEST_MARKETS = 16;

/** A condition-id-shaped key for test market `index`. */
export function testMarketKey(index: number): string {
  return `0x${(0xc0de0000 + index).toString(16).padStart(64, '0')}`;
}

/**
 * Starts the whole server in this process on an empty catalog (so no demo quotes rest in the
 * books) and registers TEST_MARKETS markets (tick 0.01, min size 5, no fee) with their shards;
 * a restart finds them in the shards' registries. Logs go nowhere unless asked. `now` is the
 * server's clock (a test that expires GTD orders moves it).
 */
export async function startInProcess(
  dataDir: string, shards: number, logLevel = 'silent', env: Readonly<Record<string, string>> = {}, now?: () => number,
): Promise<Server> {
  const config = loadConfig({
    DATA_DIR: dataDir, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', SHARDS: String(shards), LOG_LEVEL: logLevel, SEED_DEMO: '0', ...env,
  }, new Map());
  const server = await startServer(config, createLogger(config.logLevel), now === undefined ? {} : { now });
  for (let index = 0; index < TEST_MARKETS; index++) {
    const key = testMarketKey(index);
    if (!server.trading.client.hasMarket(key)) {
      await server.trading.client.addMarket({ key, tickUnits: 100, minSizeMicros: MIN_SHARES * ONE_MICROS, feeBps: 0 });
    }
  }
  return server;
}

/**
 * The whole server in this process with the admin API on (ADMIN_TOKEN of trader.ts) and an empty
 * catalog, plus one plain market (tick 0.01, min size 5, no fee) created through the admin API,
 * so its tokens trade over HTTP and its market key works with the trading client. `now` is the
 * server's clock (a test that must pass an expiration moves it).
 */
export async function startWithMarket(
  dataDir: string, env: Readonly<Record<string, string>> = {}, now?: () => number,
): Promise<{ server: Server; market: PlainMarket }> {
  const config = loadConfig({
    DATA_DIR: dataDir, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', SHARDS: '1', LOG_LEVEL: 'silent', SEED_DEMO: '0', ADMIN_TOKEN,
    RATE_LIMITS: 'off', ...env,
  }, new Map());
  const server = await startServer(config, createLogger(config.logLevel), now === undefined ? {} : { now });
  const created = await request<{ markets: { conditionId: string; clobTokenIds: string; outcomes: string }[] }>(`${server.urls.clob}/admin/events`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'A deep market', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'Deep?' }] }),
  });
  assert.equal(created.status, 201, created.text);
  const made = created.body.markets[0]!;
  const [yes, no] = JSON.parse(made.clobTokenIds) as [string, string];
  return { server, market: { conditionId: made.conditionId, yes, no, outcomes: JSON.parse(made.outcomes) as string[] } };
}

/**
 * The server of a describe block: started by `start` on a fresh DATA_DIR before its tests,
 * stopped and its DATA_DIR removed after them. Returns what `start` gave, for the tests to read.
 */
export function suiteServer<T extends { readonly server: Server }>(start: (dataDir: string) => Promise<T>): () => T {
  const dataDir = temporaryDataDir();
  let started: T | undefined;
  before(async () => {
    started = await start(dataDir);
  });
  after(async () => {
    await started?.server.stop();
    removeDataDir(dataDir);
  });
  return () => started!;
}

/** A deterministic, lower-case 20-byte address for test account `index`. */
export function accountAddress(index: number): string {
  return `0x${(index + 1).toString(16).padStart(40, '0')}`;
}

/** Up to `perShard` market keys of each shard, shard by shard, in catalog order. */
export function marketsOnEveryShard(trading: TradingRuntime, perShard: number): string[][] {
  const keys = trading.client.marketKeys();
  return Array.from({ length: trading.pool.count }, (_, shard) => keys.filter((key) => trading.pool.shardOf(key) === shard).slice(0, perShard));
}

export async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

// ---------------------------------------------------------------------------------------------
// Deep books.

/** Orders one account may have open in one engine (ACCOUNT_ORDERS_DEFAULT). */
const ORDERS_PER_ACCOUNT = 10_000;
/** Orders in flight at once while a test fills a book. */
const REST_LANES = 64;

export interface RestOptions {
  /** GTD orders expiring then (epoch ms); GTC without it. */
  readonly expirationMs?: number;
  /** The address of the `index`-th account (default: accountAddress(firstAccount + index)). */
  readonly account?: (index: number) => string;
}

/**
 * Rests `count` BUY orders of MIN_SHARES at `priceUnits` on `outcome`, ORDERS_PER_ACCOUNT to an
 * account, from account `firstAccount` on, each funded for them; returns their ids.
 */
export async function restOrders(
  client: TradingClient, marketKey: string, outcome: number, priceUnits: number, count: number, firstAccount: number, prefix: number,
  options: RestOptions = {},
): Promise<string[]> {
  const accountOf = options.account ?? ((index: number) => accountAddress(firstAccount + index));
  const accounts = Array.from({ length: Math.ceil(count / ORDERS_PER_ACCOUNT) }, (_, index) => accountOf(index));
  assert.equal(client.depositMany(accounts.map((account) => [account, ORDERS_PER_ACCOUNT * MIN_SHARES * ONE_MICROS])), true);
  const ids: string[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      const orderId = canonicalId(prefix, index);
      const result = await client.placeOrder({
        account: accounts[Math.floor(index / ORDERS_PER_ACCOUNT)]!, orderId, marketKey, outcome, side: Side.Buy,
        orderType: options.expirationMs === undefined ? OrderType.GTC : OrderType.GTD, priceUnits, sizeMicros: MIN_SHARES * ONE_MICROS,
        ...(options.expirationMs === undefined ? {} : { expirationMs: options.expirationMs }),
      });
      assert.ok(result.events.some((event) => event.kind === 'ORDER_ACCEPTED' && event.orderId === orderId), `${orderId} rests`);
      ids.push(orderId);
    }
  };
  await Promise.all(Array.from({ length: REST_LANES }, lane));
  return ids;
}

/** An order id as the edge makes them (0x and 64 hex digits), so answers are as long as real ones. */
export function canonicalId(prefix: number, index: number): string {
  return `0x${prefix.toString(16).padStart(8, '0')}${index.toString(16).padStart(56, '0')}`;
}

// ---------------------------------------------------------------------------------------------
// The seeded flow.

/** One answered command as the caller saw it: only ever recorded after its promise resolved. */
export type Ack =
  | { readonly k: 'order'; readonly id: string; readonly accepted: boolean; readonly reason: number; readonly matchedMicros: number; readonly fills: AckFill[]; readonly cancelled: string[] }
  | { readonly k: 'cancel'; readonly id: string; readonly cancelled: string[] }
  | { readonly k: 'withdraw'; readonly account: string; readonly micros: number; readonly ok: boolean };

/** [seq, fillIndex, maker order id, size]: enough to find the fill and see it is the same one. */
export type AckFill = [number, number, string, number];

export type Operation =
  | { readonly k: 'order'; readonly account: string; readonly id: string; readonly marketKey: string; readonly outcome: number; readonly side: Side; readonly orderType: OrderType; readonly priceUnits: number; readonly sizeMicros: number; readonly expirationMs: number }
  | { readonly k: 'cancel'; readonly account: string; readonly id: string }
  | { readonly k: 'withdraw'; readonly account: string; readonly micros: number };

/** Prices around 0.50 in whole cents (valid on 0.01 and 0.001 ticks), so orders often cross. */
const PRICE_LOW_UNITS = 4000;
const PRICE_STEPS = 20;
const PRICE_STEP_UNITS = 100;

/**
 * What a flow sends. `mixed`: orders at prices that often cross, of every type, sells, cancels
 * and withdrawals. `deep`: books that grow deep (bids of 0.01 to 0.05 that do not cross), swept
 * now and then by a taker that fills thousands of them at once (answers long enough to travel in
 * fragments, batches that finish more orders than the engine's history holds), and cancels.
 */
export type FlowProfile = 'mixed' | 'deep';

/** A deep flow's sweep fills up to this many resting orders. */
const SWEEP_ORDERS_MAX = 5_000;

/**
 * Seeded orders, cancels and withdrawals from `accounts` over `markets`: BUYs of YES and NO at
 * prices that often cross (trades and mints), SELLs of shares the flow saw bought, GTC, GTD
 * (far expiry), FOK and FAK, cancels of orders it saw rest, and small withdrawals; or the deep
 * profile (FlowProfile). The flow only learns from answers, so what it sends next never assumes
 * an unanswered command.
 */
export class OrderFlow {
  private nextOrder = 0;
  private readonly resting: { id: string; account: string }[] = [];
  /** Shares per `account market outcome` the flow saw bought and has not offered yet. */
  private readonly shares = new Map<string, number>();

  constructor(
    private readonly prng: Prng, private readonly accounts: readonly string[], private readonly markets: readonly string[], private readonly idPrefix: string,
    private readonly profile: FlowProfile = 'mixed',
  ) {}

  next(nowMs: number): Operation {
    if (this.profile === 'deep') return this.nextDeep(nowMs);
    const prng = this.prng;
    const roll = prng.below(100);
    if (roll < 20 && this.resting.length > 0) {
      const { id, account } = this.resting.splice(prng.below(this.resting.length), 1)[0]!;
      // Now and then someone else tries: the answer is NOT_OWNER and the order stays.
      return { k: 'cancel', account: prng.chance(0.1) ? prng.pick(this.accounts) : account, id };
    }
    if (roll < 21) return { k: 'withdraw', account: prng.pick(this.accounts), micros: prng.between(1, 3) * ONE_MICROS };
    const account = prng.pick(this.accounts);
    const marketKey = prng.pick(this.markets);
    const outcome = prng.below(2);
    const typeRoll = prng.below(10);
    const orderType = typeRoll < 6 ? OrderType.GTC : typeRoll < 7 ? OrderType.GTD : typeRoll < 8 ? OrderType.FOK : OrderType.FAK;
    const priceUnits = PRICE_LOW_UNITS + prng.below(PRICE_STEPS + 1) * PRICE_STEP_UNITS;
    let sizeMicros = prng.between(MIN_SHARES, 4 * MIN_SHARES) * ONE_MICROS;
    const held = this.shares.get(`${account} ${marketKey} ${outcome}`) ?? 0;
    const side = held >= MIN_SHARES * ONE_MICROS && prng.chance(0.5) ? Side.Sell : Side.Buy;
    if (side === Side.Sell) {
      sizeMicros = Math.min(sizeMicros, held - (held % ONE_MICROS));
      this.shares.set(`${account} ${marketKey} ${outcome}`, held - sizeMicros);
    }
    const expirationMs = orderType === OrderType.GTD ? nowMs + 3_600_000 : 0;
    const id = `${this.idPrefix}${this.nextOrder++}`;
    return { k: 'order', account, id, marketKey, outcome, side, orderType, priceUnits, sizeMicros, expirationMs };
  }

  private nextDeep(nowMs: number): Operation {
    const prng = this.prng;
    const roll = prng.below(100);
    if (roll < 4 && this.resting.length > 0) {
      const { id, account } = this.resting.splice(prng.below(this.resting.length), 1)[0]!;
      return { k: 'cancel', account, id };
    }
    const account = prng.pick(this.accounts);
    const marketKey = prng.pick(this.markets);
    const outcome = prng.below(2);
    const id = `${this.idPrefix}${this.nextOrder++}`;
    // A sweep now and then (one in ~700 commands, so the books grow between two): a BUY at 0.99
    // crosses every resting bid of the other token (0.01 to 0.05).
    if (roll >= 4 && prng.chance(0.0015)) {
      const sizeMicros = prng.between(SWEEP_ORDERS_MAX / 6, SWEEP_ORDERS_MAX) * MIN_SHARES * ONE_MICROS;
      return { k: 'order', account, id, marketKey, outcome, side: Side.Buy, orderType: OrderType.FAK, priceUnits: 9900, sizeMicros, expirationMs: 0 };
    }
    const orderType = prng.chance(0.1) ? OrderType.GTD : OrderType.GTC;
    const priceUnits = 100 * prng.between(1, 5);
    const expirationMs = orderType === OrderType.GTD ? nowMs + 3_600_000 : 0;
    return { k: 'order', account, id, marketKey, outcome, side: Side.Buy, orderType, priceUnits, sizeMicros: MIN_SHARES * ONE_MICROS, expirationMs };
  }

  /** Runs one operation and returns its acknowledgement. */
  async run(client: TradingClient, operation: Operation): Promise<Ack> {
    switch (operation.k) {
      case 'withdraw':
        return { k: 'withdraw', account: operation.account, micros: operation.micros, ok: client.withdraw(operation.account, operation.micros) };
      case 'cancel': {
        const result = await client.cancelOrder(operation.account, operation.id);
        return { k: 'cancel', id: operation.id, cancelled: cancelledIds(result.events) };
      }
      case 'order': {
        const { k: _k, id, ...order } = operation;
        const result = await client.placeOrder({ ...order, orderId: id });
        return this.learn(operation, result.events);
      }
      default:
        throw new Error('unknown operation');
    }
  }

  private learn(order: Extract<Operation, { k: 'order' }>, events: readonly EngineEvent[]): Ack {
    let accepted = false;
    let reason = 0;
    let matchedMicros = 0;
    const fills: AckFill[] = [];
    for (const event of events) {
      if (event.kind === 'ORDER_ACCEPTED' && event.orderId === order.id) {
        accepted = true;
        matchedMicros = event.matchedMicros;
        if (event.rests) this.resting.push({ id: order.id, account: order.account });
      } else if (event.kind === 'ORDER_REJECTED' && event.orderId === order.id) {
        reason = event.reason;
      } else if (event.kind === 'FILL') {
        fills.push([event.seq, event.fillIndex, event.makerOrderId, event.sizeMicros]);
        this.credit(event.takerAccount, order.marketKey, event.takerOutcome, event.takerSide, event.sizeMicros);
        this.credit(event.makerAccount, order.marketKey, event.makerOutcome, event.makerSide, event.sizeMicros);
      }
    }
    if (!accepted && order.side === Side.Sell) this.credit(order.account, order.marketKey, order.outcome, Side.Buy, order.sizeMicros);
    return { k: 'order', id: order.id, accepted, reason, matchedMicros, fills, cancelled: cancelledIds(events) };
  }

  private credit(account: string, marketKey: string, outcome: number, side: number, sizeMicros: number): void {
    if (side !== Side.Buy) return;
    const key = `${account} ${marketKey} ${outcome}`;
    this.shares.set(key, (this.shares.get(key) ?? 0) + sizeMicros);
  }
}

function cancelledIds(events: readonly EngineEvent[]): string[] {
  return (events).flatMap((event) => (event.kind === 'ORDER_CANCELLED' ? [event.orderId] : []));
}

export interface FlowHooks {
  /** Called with an operation just before it is run. */
  readonly onSend?: (operation: Operation) => void;
  /** Called with each acknowledgement as its promise resolves. */
  readonly onAck: (ack: Ack) => void;
}

/** Runs `count` operations of `flow` with `lanes` of them in flight at once. */
export async function runFlow(client: TradingClient, flow: OrderFlow, count: number, lanes: number, hooks: FlowHooks): Promise<void> {
  let started = 0;
  const lane = async (): Promise<void> => {
    while (started < count) {
      started++;
      const operation = flow.next(Date.now());
      hooks.onSend?.(operation);
      hooks.onAck(await flow.run(client, operation));
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

// ---------------------------------------------------------------------------------------------
// The state of a runtime, and what must hold of it.

export interface RuntimeState {
  readonly statuses: ShardStatus[];
  /**
   * Every order of every shard, with the shard each came from: the finished ones from the orders
   * table, the live ones (which the table leaves to the engine) from the engine; and the stored fills.
   */
  readonly orders: [number, OrderView][];
  readonly fills: [number, FillEvent][];
  /** The engine's view of each stored order, in the same order (null: the engine lost it). */
  readonly engineOrders: (OrderView | null)[];
  readonly externalMicros: number;
  readonly freeMicros: number;
  readonly freeByAccount: [string, number][];
}

/** Reads everything the checks need; every order read goes out at once so the shards batch them. */
export async function readRuntimeState(trading: TradingRuntime, accounts: readonly string[]): Promise<RuntimeState> {
  const { pool, treasury, client } = trading;
  const shards = Array.from({ length: pool.count }, (_, shard) => shard);
  const statuses = await client.statuses();
  const finished = (await Promise.all(shards.map((shard) => pool.read<OrderView[]>(shard, { kind: 'storedOrders' }))))
    .flatMap((list, shard) => list.map((view): [number, OrderView] => [shard, view]));
  for (const [shard, view] of finished) assert.notEqual(view.status, OrderStatus.LIVE, `shard ${shard}: live order ${view.orderId} in the table`);
  const live = (await Promise.all(shards.flatMap((shard) => accounts.map(async (account) => {
    const views = await pool.read<OrderView[]>(shard, { kind: 'openOrders', account });
    return views.map((view): [number, OrderView] => [shard, view]);
  })))).flat();
  const orders = [...finished, ...live];
  const fills = (await Promise.all(shards.map((shard) => pool.read<FillEvent[]>(shard, { kind: 'storedFills' }))))
    .flatMap((list, shard) => list.map((fill): [number, FillEvent] => [shard, fill]));
  const engineOrders = await Promise.all(orders.map(([shard, view]) => pool.read<OrderView | null>(shard, { kind: 'order', orderId: view.orderId })));
  return {
    statuses, orders, fills, engineOrders, externalMicros: treasury.totalExternal(), freeMicros: treasury.totalFree(),
    freeByAccount: accounts.map((account) => [account, treasury.freeOf(account)]),
  };
}

/** The collateral a shard's engine holds: deposits − withdrawals inside it (free + reserved + sets). */
function engineCollateralMicros(status: ShardStatus): number {
  const supply = status.stats['supplyMicros'];
  assert.ok(supply !== undefined && Number.isSafeInteger(supply) && supply >= 0, `supplyMicros ${supply}`);
  return supply;
}

/**
 * Invariants, exact conservation, stored orders ↔ stored fills ↔ engine views. `withinHistory`:
 * the test finished fewer orders per shard than the engine remembers (ORDER_HISTORY), so the
 * engine must remember every one of them.
 */
export function assertRuntimeState(state: RuntimeState, withinHistory = true): void {
  let engineMicros = 0;
  for (const [shard, status] of state.statuses.entries()) {
    assert.ok(status.invariantsHold, `shard ${shard}: ${status.invariantError}`);
    const collateral = engineCollateralMicros(status);
    const funded = status.netFunding.reduce((sum, [, micros]) => sum + micros, 0);
    assert.equal(funded, collateral, `shard ${shard}: the funding table accounts for every micro in the engine`);
    engineMicros += collateral;
  }
  assert.ok(Number.isSafeInteger(state.freeMicros) && Number.isSafeInteger(state.externalMicros));
  assert.equal(state.freeMicros + engineMicros, state.externalMicros, 'treasury free + engine collateral = deposits − withdrawals');
  for (const [account, micros] of state.freeByAccount) assert.ok(micros >= 0, `${account} has negative free collateral ${micros}`);

  // The engine remembers every stored order (the tests stay within its order history): live
  // ones in the book, finished ones in the history, and nothing else.
  for (const [shard, status] of state.statuses.entries()) {
    const views = state.orders.filter(([owner]) => owner === shard).map(([, view]) => view);
    const live = views.filter((view) => view.status === OrderStatus.LIVE).length;
    assert.equal(status.stats['ordersLive'], live, `shard ${shard}: live orders in the engine and in the table`);
    if (withinHistory) assert.equal(status.stats['ordersFinishedRemembered'], views.length - live, `shard ${shard}: finished orders in the engine and in the table`);
  }
  const orders = new Map<string, OrderView>();
  for (const [shard, view] of state.orders) {
    assert.ok(!orders.has(view.orderId), `order ${view.orderId} stored twice`);
    orders.set(view.orderId, view);
    const engineView = state.engineOrders[orders.size - 1];
    assert.deepEqual(engineView, view, `shard ${shard}: the engine's view of ${view.orderId} is the stored one`);
  }
  const filledMicros = new Map<string, number>();
  for (const [shard, fill] of state.fills) {
    for (const id of [fill.takerOrderId, fill.makerOrderId]) {
      assert.ok(orders.has(id), `shard ${shard}: fill ${fill.seq}/${fill.fillIndex} names order ${id}, which is not stored`);
      filledMicros.set(id, (filledMicros.get(id) ?? 0) + fill.sizeMicros);
    }
  }
  for (const view of orders.values()) {
    assert.equal(filledMicros.get(view.orderId) ?? 0, view.matchedMicros, `order ${view.orderId}: stored fills add up to its matched size`);
  }
}

export function stateHashes(statuses: readonly ShardStatus[]): string[] {
  return statuses.map((status) => status.stateHash);
}

// The cost of metrics and logging (issue 9) on the hottest read and the hottest write: GET /book
// and POST /order with METRICS=on and LOG_LEVEL=info against METRICS=off and LOG_LEVEL=silent,
// in the same run, the two servers alternating round by round so drift hits both; best of the
// rounds each. Capacity is requests per second of the server's main thread (the front end, where
// the per-request counters and the log calls run). Goal: on >= 0.95 of off.
//
// POST /order replays the orders benchmark's pre-signed orders (bench/orders/exchange.ts) on a
// fresh server each round: every order signed, HMAC-authenticated and durable before its 200.
import { compareSwitch, printSwitch, type SwitchFigures } from './limits.js';
import { runLoad, type LoadResult } from './load/client.js';
import { enrol, makeTraders, orderRequests, signOrders, startExchange, type BenchTrader, type Exchange, type SignedOrder } from './orders/exchange.js';
import { makePlan, type OrderPlan } from './orders/plan.js';
import { threadCpuSeconds } from './support/spawn.js';
import { format } from './support/format.js';

const GOAL = 0.95;
const ON: Readonly<Record<string, string>> = { METRICS: 'on', LOG_LEVEL: 'info' };
const OFF: Readonly<Record<string, string>> = { METRICS: 'off', LOG_LEVEL: 'silent' };
const SEED = 9;
const SHARDS = 2;
/** A phase ends when every order is answered; this only bounds a stuck server. */
const PHASE_MS_MAX = 120_000;

export interface OrderSizes {
  readonly accounts: number;
  readonly markets: number;
  readonly connections: number;
  readonly warmupOrders: number;
  readonly measuredOrders: number;
  readonly rounds: number;
}

export const QUICK_ORDERS: OrderSizes = { accounts: 40, markets: 2, connections: 32, warmupOrders: 500, measuredOrders: 2_000, rounds: 1 };
export const FULL_ORDERS: OrderSizes = { accounts: 400, markets: 4, connections: 128, warmupOrders: 5_000, measuredOrders: 30_000, rounds: 3 };

export interface OrderRun {
  readonly ordersPerSecond: number;
  /** Orders per second of the server's main-thread CPU time. */
  readonly capacity: number;
  /** Server CPU (every thread) per order, in µs. */
  readonly cpuUsPerOrder: number;
  /**
   * CPU of the front-end threads (the main thread and FRONT_ENDS' others) per order, in µs, from
   * the server's own clobd_thread_cpu_seconds_total; the main thread's alone where /metrics is off.
   */
  readonly frontEndCpuUsPerOrder: number;
  /**
   * The same with the process's other threads (the signature pool, V8's and libuv's helpers): the
   * CPU of an order's stateless work wherever it runs (a front-end thread recovers the signatures
   * of the orders it takes, the main thread hands them to the pool); as frontEndCpuUsPerOrder where
   * /metrics is off.
   */
  readonly statelessCpuUsPerOrder: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non200: number;
}

export interface MetricsFigures {
  readonly goal: number;
  readonly book: SwitchFigures;
  readonly orders: { readonly off: OrderRun; readonly on: OrderRun; readonly sizes: OrderSizes };
}

export interface Signed {
  readonly plan: OrderPlan;
  readonly traders: readonly BenchTrader[];
  readonly setup: readonly SignedOrder[];
  readonly orders: readonly SignedOrder[];
  readonly tokens: Exchange['tokens'];
}

function non200(result: LoadResult): number {
  return Object.entries(result.statusCounts).reduce((sum, [status, count]) => sum + (status === '200' ? 0 : count), 0) + result.errors;
}

/** How a run spells its requests' headers (bench/headers.ts sends Polymarket's POLY_ names). */
export type Spelling = (headers: Readonly<Record<string, string>>) => Record<string, string>;

/**
 * Called with the server's CLOB URL right before the measured orders and right after them, while
 * the server still runs: a suite's own reading of the server over the measured phase (its
 * counters on /metrics, say).
 */
export type PhaseProbe = (clobUrl: string, moment: 'before' | 'after') => Promise<void>;

/**
 * One server: enrol, the setup orders, a warm-up, then the measured orders in a closed loop, every
 * order's headers as `spell` writes them.
 */
export async function orderRun(
  env: Readonly<Record<string, string>>, sizes: OrderSizes, signed: Signed | undefined, spell: Spelling = (headers) => ({ ...headers }), script?: string,
  probe?: PhaseProbe,
): Promise<{ run: OrderRun; signed: Signed }> {
  const exchange = await startExchange(sizes.markets, SHARDS, env, [], SHARDS, script);
  try {
    const plan = signed?.plan ?? makePlan(sizes.accounts, sizes.markets, sizes.warmupOrders + sizes.measuredOrders, SEED);
    const traders = signed?.traders ?? makeTraders(plan);
    const made = signed ?? { plan, traders, tokens: exchange.tokens, setup: signOrders(traders, exchange.tokens, plan.setup), orders: signOrders(traders, exchange.tokens, plan.orders) };
    if (JSON.stringify(exchange.tokens) !== JSON.stringify(made.tokens)) throw new Error('a fresh server gave other token ids; signed orders cannot be replayed');
    await enrol(exchange, traders, plan.depositMicros);
    const url = exchange.server.urls.clob;
    const send = (orders: readonly SignedOrder[], planned: OrderPlan['orders'], from: number, to: number) => {
      const requests = orderRequests(traders, planned, orders, from, to).map((request) => ({ ...request, headers: spell(request.headers ?? {}) }));
      return runLoad({ url, requests, connections: sizes.connections, durationMs: PHASE_MS_MAX, unique: true });
    };
    await send(made.setup, plan.setup, 0, made.setup.length);
    await send(made.orders, plan.orders, 0, sizes.warmupOrders);
    await probe?.(url, 'before');
    const pid = exchange.server.pid;
    const mainBefore = threadCpuSeconds(pid).get(pid) ?? 0;
    const cpuBefore = exchange.server.cpuSeconds();
    const threadsBefore = await serverThreadCpu(url);
    const result = await send(made.orders, plan.orders, sizes.warmupOrders, sizes.warmupOrders + sizes.measuredOrders);
    const mainSeconds = (threadCpuSeconds(pid).get(pid) ?? 0) - mainBefore;
    const cpuSeconds = exchange.server.cpuSeconds() - cpuBefore;
    const threadsAfter = await serverThreadCpu(url);
    await probe?.(url, 'after');
    const frontEndSeconds = threadsBefore === undefined || threadsAfter === undefined ? mainSeconds : threadsAfter.frontEnds - threadsBefore.frontEnds;
    const statelessSeconds = threadsBefore === undefined || threadsAfter === undefined ? frontEndSeconds : frontEndSeconds + threadsAfter.others - threadsBefore.others;
    return {
      signed: made,
      run: {
        ordersPerSecond: Math.round(result.requestsPerSecond), capacity: Math.round(result.requests / Math.max(0.01, mainSeconds)),
        cpuUsPerOrder: (cpuSeconds * 1e6) / Math.max(1, result.requests), frontEndCpuUsPerOrder: (frontEndSeconds * 1e6) / Math.max(1, result.requests),
        statelessCpuUsPerOrder: (statelessSeconds * 1e6) / Math.max(1, result.requests), p50Ms: result.latency.p50Ms, p99Ms: result.latency.p99Ms, non200: non200(result),
      },
    };
  } finally {
    await exchange.server.stop();
  }
}

/**
 * CPU seconds of the server's front-end threads (thread="front_end" and "front_end_<i>") and of
 * its other threads (thread="other": the signature pool, V8's and libuv's helpers), as its
 * /metrics says; undefined when metrics are off (or the server is older than the labels).
 */
async function serverThreadCpu(clobUrl: string): Promise<{ frontEnds: number; others: number } | undefined> {
  const response = await fetch(`${clobUrl}/metrics`);
  const text = await response.text();
  if (response.status !== 200) return undefined;
  const seconds = { frontEnds: 0, others: 0 };
  for (const match of text.matchAll(/^clobd_thread_cpu_seconds_total\{thread="(front_end(?:_\d+)?|other)"\} (\S+)$/gm)) {
    if (match[1] === 'other') seconds.others += Number(match[2]);
    else seconds.frontEnds += Number(match[2]);
  }
  return seconds;
}

/** CPU seconds of the server's front-end threads (serverThreadCpu); undefined when metrics are off. */
export async function frontEndCpuSeconds(clobUrl: string): Promise<number | undefined> {
  return (await serverThreadCpu(clobUrl))?.frontEnds;
}

/** One server configuration of an order run: its settings and how its requests spell headers. */
export interface OrderSide {
  readonly env: Readonly<Record<string, string>>;
  readonly spell?: Spelling;
  /** Called on every run of this side (e.g. to refuse one with answers that were not 200). */
  readonly check?: (run: OrderRun) => void;
  /** Another tree's bench server (an A/B baseline); this tree's when undefined. */
  readonly script?: string;
}

/**
 * Two configurations of the order run, alternating round by round on the same pre-signed orders
 * (signed once, in the first run), so drift hits both; the best run of each.
 */
export async function alternateOrderRuns(sizes: OrderSizes, first: OrderSide, second: OrderSide): Promise<[OrderRun, OrderRun]> {
  const best = (runs: readonly OrderRun[]): OrderRun => runs.reduce((a, b) => (b.capacity > a.capacity ? b : a));
  const [a, b] = await alternatingRuns(sizes, [first, second]);
  return [best(a!), best(b!)];
}

/** A side's check that refuses a run with any answer that was not 200 (`what` names the side). */
export function allAnswered(what: string): (run: OrderRun) => void {
  return (run) => {
    if (run.non200 > 0) throw new Error(`${what}: ${run.non200} answers were not 200`);
  };
}

/** Every run of each side, in round order: `sides` alternate round by round on the same pre-signed orders. */
export async function alternatingRuns(sizes: OrderSizes, sides: readonly OrderSide[]): Promise<OrderRun[][]> {
  let signed: Signed | undefined;
  const runs = sides.map((): OrderRun[] => []);
  for (let round = 0; round < sizes.rounds; round++) {
    for (const [index, side] of sides.entries()) {
      const made = await orderRun(side.env, sizes, signed, side.spell, side.script);
      signed = made.signed;
      side.check?.(made.run);
      runs[index]!.push(made.run);
    }
  }
  return runs;
}

async function benchOrders(quick: boolean): Promise<MetricsFigures['orders']> {
  const sizes = quick ? QUICK_ORDERS : FULL_ORDERS;
  const [off, on] = await alternateOrderRuns(sizes, { env: OFF }, { env: ON });
  return { off, on, sizes };
}

export async function benchMetrics(quick: boolean): Promise<MetricsFigures> {
  const book = await compareSwitch('metrics and logs', GOAL, OFF, ON, quick);
  return { goal: GOAL, book, orders: await benchOrders(quick) };
}

export function printMetrics(figures: MetricsFigures): void {
  printSwitch(figures.book);
  const { off, on, sizes } = figures.orders;
  console.log(
    `POST /order, ${format(sizes.measuredOrders)} signed orders per server over ${sizes.connections} connections (closed loop), ` +
    `${sizes.accounts} accounts, ${sizes.markets} markets, SHARDS=${SHARDS}, best of ${sizes.rounds} alternating round(s)`,
  );
  for (const [name, run] of [['off (METRICS=off LOG_LEVEL=silent)', off], ['on  (METRICS=on LOG_LEVEL=info)  ', on]] as const) {
    console.log(
      `  ${name} ${format(run.ordersPerSecond).padStart(7)} orders/s  main thread ${format(run.capacity).padStart(7)} orders/CPU-s` +
      `  server CPU ${format(run.cpuUsPerOrder, 1)} µs/order  p50 ${format(run.p50Ms, 2)} ms p99 ${format(run.p99Ms, 2)} ms${run.non200 > 0 ? `  non-200 ${run.non200}` : ''}`,
    );
  }
  const ratio = on.capacity / off.capacity;
  console.log(
    `goal: POST /order main-thread capacity with metrics and logs >= ${figures.goal} of without: ${ratio >= figures.goal ? 'met' : 'NOT met'} (${ratio.toFixed(2)}; ` +
    `orders/s ${(on.ordersPerSecond / off.ordersPerSecond).toFixed(2)}, server CPU per order ${(off.cpuUsPerOrder / on.cpuUsPerOrder).toFixed(2)})`,
  );
}

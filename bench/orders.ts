// The HTTP order benchmark (issue 5): fully authenticated, signature-checked, durable POST /order
// over keep-alive connections from many accounts, against what bounds it, all in the same run:
// the signature verifier's own single-core rate (recoverAddress in a tight loop) and the
// internal trading client's durable throughput (bench/durable's closed loop, no HTTP, no auth),
// and the floor (orders/floor.ts: the same requests on a route that does only what a durable,
// signature-checked order cannot skip), which bounds what any server of this shape reaches here.
// Order signatures are checked on the piscina pool (VERIFY_THREADS one per core, the default) and inline
// on the front end (VERIFY_THREADS=0), with one matching worker and with two (SHARDS=1, 2), each
// on a fresh server replaying the same signed orders;
// latency is taken in an open loop at half of each measured peak, and at a few fixed rates below
// it (what a bot trading at its own pace sees). Server CPU per order (from
// /proc) against the cost of HMAC + digest + recovery measured alone gives auth's share of it.
//
//   node dist/bench/orders.js              full (a few minutes)
//   node dist/bench/orders.js --quick      well under a minute, for CI
//   node dist/bench/orders.js --connections=N   another number of connections (closed loop)
//   node dist/bench/orders.js --setting=S:V     only SHARDS=S with VERIFY_THREADS=V (e.g. 1:2, the
//                                          pool with one worker), to compare builds on one setting
//   node dist/bench/orders.js --cpu-prof   also profiles the first server (SHARDS=1, pool; node
//                                          --cpu-prof) and prints each thread's busiest functions
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureAuthCost, type AuthCost } from './orders/auth_cost.js';
import { enrol, makeTraders, orderRequests, signOrders, startExchange, type BenchTrader, type Exchange, type SignedOrder } from './orders/exchange.js';
import { FLOOR_THREADS, floorPath } from './orders/floor.js';
import { makePlan, type OrderPlan } from './orders/plan.js';
import { closedLoop, fundAccounts, startRuntime } from './durable/runtime.js';
import { makeFlow, type ThroughputSizes } from './durable/throughput.js';
import { runLoad, type LoadResult, type RequestSpec } from './load/client.js';
import { summarizeProfiles, type ProfileSummary } from './support/profile.js';
import { threadCpuSeconds } from './support/spawn.js';
import { format } from './support/format.js';
import { threadTimes, type ThreadTimes } from '../engine/shard/thread_times.js';

interface Sizes {
  readonly accounts: number;
  readonly markets: number;
  readonly connections: number;
  readonly warmupOrders: number;
  readonly peakMs: number;
  /** Orders signed for the peak phase: peakMs at this rate (the phase ends early if they run out). */
  readonly peakRateMax: number;
  readonly latencyMs: number;
  /** Fixed open-loop rates below half load (orders/s), each for lowMs: the latency a bot at its own pace sees. */
  readonly lowRates: readonly number[];
  readonly lowMs: number;
  readonly authSamples: number;
  readonly internal: ThroughputSizes;
}

const QUICK: Sizes = {
  accounts: 100, markets: 4, connections: 128, warmupOrders: 1_500, peakMs: 2_000, peakRateMax: 8_000, latencyMs: 1_500, lowRates: [250, 1_000], lowMs: 1_000, authSamples: 2_000,
  internal: { warmupRows: 2_000, timedRows: 10_000, latencyRowsMax: 0, latencySeconds: 0, inFlight: 2_000, accounts: 300 },
};
const FULL: Sizes = {
  accounts: 1_000, markets: 8, connections: 256, warmupOrders: 10_000, peakMs: 8_000, peakRateMax: 12_000, latencyMs: 8_000, lowRates: [250, 1_000, 2_000], lowMs: 6_000, authSamples: 20_000,
  internal: { warmupRows: 20_000, timedRows: 150_000, latencyRowsMax: 0, latencySeconds: 0, inFlight: 4_000, accounts: 300 },
};
const SEED = 5;
/** The pool setting's VERIFY_THREADS: the server's default, one per core. */
const POOL_THREADS = availableParallelism();
/**
 * Matching workers: one per core (the default), and one alone, which leaves the second core to the
 * front end and the signature pool. Each server setting and the internal-client baseline run
 * with both; the goals are judged on the best setting.
 */
const SHARD_COUNTS = [1, 2] as const;
/** The setup phase ends when every order is answered; this only bounds a stuck server. */
const SETUP_MS_MAX = 120_000;
const GOAL_VERIFIER_RATIO = 0.8;
const GOAL_ORDERS_PER_SECOND = 10_000;
const GOAL_P99_MS = 5;

interface Phases {
  readonly warmup: readonly [number, number];
  readonly peak: readonly [number, number];
  readonly latency: readonly [number, number];
  /** One span per low rate, in order. */
  readonly low: readonly (readonly [number, number])[];
}

function phasesOf(sizes: Sizes): Phases {
  const peakEnd = sizes.warmupOrders + Math.round((sizes.peakRateMax * sizes.peakMs) / 1000);
  const latencyEnd = peakEnd + Math.round((sizes.peakRateMax / 2) * (sizes.latencyMs / 1000));
  let at = latencyEnd;
  const low = sizes.lowRates.map((rate): readonly [number, number] => {
    const from = at;
    at += Math.ceil((rate * sizes.lowMs) / 1000);
    return [from, at];
  });
  return { warmup: [0, sizes.warmupOrders], peak: [sizes.warmupOrders, peakEnd], latency: [peakEnd, latencyEnd], low };
}

interface Signed {
  readonly plan: OrderPlan;
  readonly traders: readonly BenchTrader[];
  readonly tokens: Exchange['tokens'];
  readonly setup: readonly SignedOrder[];
  readonly orders: readonly SignedOrder[];
}

interface ThreadShare {
  readonly tid: number;
  readonly main: boolean;
  readonly seconds: number;
}

interface ServerFigures {
  readonly shards: number;
  readonly verifyThreads: number;
  readonly setup: LoadResult;
  readonly peak: LoadResult;
  readonly serverCpuSeconds: number;
  /** CPU seconds this process (the load generator) used during the peak: it shares the 2 cores. */
  readonly clientCpuSeconds: number;
  readonly threads: readonly ThreadShare[];
  readonly latency: LoadResult;
  readonly latencyRate: number;
  /** CPU and run-queue wait of each server thread and of the load generator's during the latency phase (Linux). */
  readonly latencyThreads: readonly ThreadDelta[];
  /** Share of the half-load phase's orders the server answered within 5 ms of their arrival, by its own clock. */
  readonly serverWithin5ms: number;
  /** The open loop at each of sizes.lowRates, in order. */
  readonly low: readonly LoadResult[];
  readonly auth: AuthCost | undefined;
  readonly profiles: readonly ProfileSummary[];
  /** The floor route's peak on this server (the first one only). */
  readonly floor: FloorFigures | undefined;
}

/** The floor route (bench/orders/floor.ts) under the peak's connections and requests. */
interface FloorFigures {
  readonly peak: LoadResult;
  readonly serverCpuSeconds: number;
  readonly clientCpuSeconds: number;
}

interface ThreadDelta extends ThreadTimes {
  readonly thread: string;
}

const THREAD_SAMPLE = /^clobd_thread_(cpu|runqueue_wait)_seconds_total\{thread="([a-z_0-9]+)"\} ([0-9.e+-]+)$/;

/** One reading of the server around a phase: its thread times and its POST /order answers. */
interface ServerReading {
  readonly threads: Map<string, ThreadTimes>;
  readonly orderAnswers: Map<string, number>;
}

/** One GET /metrics, read for both, with the load generator's own thread times. */
async function readServer(url: string): Promise<ServerReading> {
  const lines = (await (await fetch(`${url}/metrics`)).text()).split('\n');
  return { threads: threadTimesOf(lines), orderAnswers: orderAnswersOf(lines) };
}

/**
 * The server's thread families of GET /metrics (front end, each worker, the others together)
 * and this process's own thread, the load generator: CPU and run-queue wait so far.
 */
function threadTimesOf(lines: readonly string[]): Map<string, ThreadTimes> {
  const times = new Map<string, { cpuSeconds: number; waitSeconds: number }>();
  for (const line of lines) {
    const match = THREAD_SAMPLE.exec(line);
    if (match === null) continue;
    const entry = times.get(match[2]!) ?? { cpuSeconds: 0, waitSeconds: 0 };
    if (match[1] === 'cpu') entry.cpuSeconds = Number(match[3]);
    else entry.waitSeconds = Number(match[3]);
    times.set(match[2]!, entry);
  }
  const generator = threadTimes(process.pid);
  if (generator !== undefined) times.set('load_generator', generator);
  return times;
}

const ORDER_BUCKET = /^clobd_http_request_duration_seconds_bucket\{(.*)\} ([0-9.e+-]+)$/;

/** POST /order answers so far, cumulative by the server's own latency bound (le, seconds; from arrival to answer). */
function orderAnswersOf(lines: readonly string[]): Map<string, number> {
  const buckets = new Map<string, number>();
  for (const line of lines) {
    const match = ORDER_BUCKET.exec(line);
    if (match === null || !match[1]!.includes('method="POST"') || !match[1]!.includes('route="/order"')) continue;
    const le = /le="([^"]+)"/.exec(match[1]!)?.[1];
    if (le !== undefined) buckets.set(le, Number(match[2]));
  }
  return buckets;
}

/** The share of the answers between two readings that the server gave within `le` seconds of their arrival. */
function shareWithin(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, le: string): number {
  const all = (after.get('+Inf') ?? 0) - (before.get('+Inf') ?? 0);
  return all === 0 ? Number.NaN : ((after.get(le) ?? 0) - (before.get(le) ?? 0)) / all;
}

function threadDeltas(before: ReadonlyMap<string, ThreadTimes>, after: ReadonlyMap<string, ThreadTimes>): ThreadDelta[] {
  return [...after].map(([thread, times]) => ({
    thread, cpuSeconds: times.cpuSeconds - (before.get(thread)?.cpuSeconds ?? 0), waitSeconds: times.waitSeconds - (before.get(thread)?.waitSeconds ?? 0),
  }));
}

function threadsBetween(pid: number, before: Map<number, number>, after: Map<number, number>): ThreadShare[] {
  return [...after].map(([tid, seconds]) => ({ tid, main: tid === pid, seconds: seconds - (before.get(tid) ?? 0) }))
    .filter((thread) => thread.seconds > 0).sort((a, b) => b.seconds - a.seconds);
}

async function sendAll(exchange: Exchange, signed: Signed, plan: OrderPlan['setup'], orders: readonly SignedOrder[], connections: number): Promise<LoadResult> {
  const requests = orderRequests(signed.traders, plan, orders, 0, orders.length);
  return runLoad({ url: exchange.server.urls.clob, requests, connections, durationMs: SETUP_MS_MAX, unique: true });
}

/**
 * One server: enrol, the setup that hands out shares, a warm-up, the closed-loop peak (server
 * CPU per thread read around it), the open loop at half that peak and at the low rates; on the
 * first server, the auth costs alone before and the floor route after.
 */
async function measureServer(
  shards: number, verifyThreads: number, signed: Signed, exchange: Exchange, sizes: Sizes, first: boolean, profileDir: string | undefined,
): Promise<ServerFigures> {
  const { server } = exchange;
  const url = server.urls.clob;
  const phases = phasesOf(sizes);
  await enrol(exchange, signed.traders, signed.plan.depositMicros);
  const slice = ([from, to]: readonly [number, number]) => orderRequests(signed.traders, signed.plan.orders, signed.orders, from, to);
  const auth = first ? measureAuthCost(signed.orders, slice([0, sizes.authSamples]), signed.traders, sizes.authSamples) : undefined;
  const setup = await sendAll(exchange, signed, signed.plan.setup, signed.setup, sizes.connections);
  await runLoad({ url, requests: slice(phases.warmup), connections: sizes.connections, durationMs: SETUP_MS_MAX, unique: true });
  const peakRequests = slice(phases.peak);
  const cpuBefore = server.cpuSeconds();
  const threadsBefore = threadCpuSeconds(server.pid);
  const clientBefore = process.cpuUsage();
  const label = `POST /order ${settingOf({ shards, verifyThreads })}`;
  const peak = await runLoad({ url, requests: peakRequests, connections: sizes.connections, durationMs: sizes.peakMs, unique: true, label });
  const serverCpuSeconds = server.cpuSeconds() - cpuBefore;
  const clientUsage = process.cpuUsage(clientBefore);
  const clientCpuSeconds = (clientUsage.user + clientUsage.system) / 1e6;
  const threads = threadsBetween(server.pid, threadsBefore, threadCpuSeconds(server.pid));
  const latencyRate = Math.max(1, Math.round(peak.requestsPerSecond / 2));
  const [latencyFrom] = phases.latency;
  const latencyRequests = slice([latencyFrom, latencyFrom + Math.ceil((latencyRate * sizes.latencyMs) / 1000)]);
  const before = await readServer(url);
  const latency = await runLoad({ url, requests: latencyRequests, connections: sizes.connections, durationMs: sizes.latencyMs, unique: true, ratePerSecond: latencyRate });
  const after = await readServer(url);
  const latencyThreads = threadDeltas(before.threads, after.threads);
  const serverWithin5ms = shareWithin(before.orderAnswers, after.orderAnswers, String(GOAL_P99_MS / 1000));
  const low: LoadResult[] = [];
  for (const [index, rate] of sizes.lowRates.entries()) {
    low.push(await runLoad({ url, requests: slice(phases.low[index]!), connections: sizes.connections, durationMs: sizes.lowMs, unique: true, ratePerSecond: rate }));
  }
  // The floor is faster than clobd: it is given every request after the warm-up, so that it runs
  // the peak's whole duration instead of running out (quick mode's peak slice lasts it ~1.5 s).
  const floor = first ? await measureFloor(exchange, slice(phases.warmup), slice([phases.peak[0], phases.low.at(-1)?.[1] ?? phases.latency[1]]), sizes) : undefined;
  await server.stop();
  const profiles = profileDir === undefined ? [] : summarizeProfiles(profileDir, 12);
  return { shards, verifyThreads, setup, peak, serverCpuSeconds, clientCpuSeconds, threads, latency, latencyRate, latencyThreads, serverWithin5ms, low, auth, profiles, floor };
}

/** The floor route, warmed up with the warm-up's requests, then driven like the peak, from the peak's own requests on. */
async function measureFloor(exchange: Exchange, warmup: readonly RequestSpec[], peak: readonly RequestSpec[], sizes: Sizes): Promise<FloorFigures> {
  const { server } = exchange;
  const toFloor = (requests: readonly RequestSpec[]): RequestSpec[] => requests.map((request) => ({ ...request, path: floorPath }));
  await runLoad({ url: server.urls.clob, requests: toFloor(warmup), connections: sizes.connections, durationMs: SETUP_MS_MAX, unique: true });
  const cpuBefore = server.cpuSeconds();
  const clientBefore = process.cpuUsage();
  const result = await runLoad({ url: server.urls.clob, requests: toFloor(peak), connections: sizes.connections, durationMs: sizes.peakMs, unique: true, label: 'floor' });
  const clientUsage = process.cpuUsage(clientBefore);
  return { peak: result, serverCpuSeconds: server.cpuSeconds() - cpuBefore, clientCpuSeconds: (clientUsage.user + clientUsage.system) / 1e6 };
}

/** A server setting as the figures name it. */
function settingOf(row: { readonly shards: number; readonly verifyThreads: number }): string {
  return `SHARDS=${row.shards} VERIFY_THREADS=${row.verifyThreads}`;
}

interface InternalFigures {
  readonly commandsPerSecond: number;
  readonly failures: number;
  readonly mismatches: number;
}

/** The internal trading client's durable throughput: bench/durable's flow and closed loop, `shards` workers. */
async function measureInternal(sizes: ThroughputSizes, shards: number): Promise<InternalFigures> {
  const flow = makeFlow(sizes);
  const runtime = await startRuntime(shards);
  try {
    const client = runtime.server.trading.client;
    fundAccounts(client, flow.accounts);
    await closedLoop(client, flow, 0, sizes.warmupRows, sizes.inFlight);
    const load = await closedLoop(client, flow, sizes.warmupRows, sizes.warmupRows + sizes.timedRows, sizes.inFlight);
    return { commandsPerSecond: load.commands / load.seconds, failures: load.failures, mismatches: load.rejectionMismatches };
  } finally {
    await runtime.close();
  }
}

/**
 * Status counts, and what went wrong besides. `stoppedAtDeadline`: a closed loop cut off at its
 * duration leaves its last requests unanswered by design; any other run must answer them all.
 */
function statuses(result: LoadResult, stoppedAtDeadline = false): string {
  const entries = Object.entries(result.statusCounts).sort();
  const text = entries.map(([status, count]) => `${status}: ${format(count)}`).join(', ');
  const unanswered = stoppedAtDeadline ? 0 : result.sent - result.requests;
  const other = entries.filter(([status]) => status !== '200').length > 0 || result.errors > 0 || result.skipped > 0 || unanswered > 0;
  return `${text}${result.errors > 0 ? `, socket errors ${result.errors}` : ''}${result.skipped > 0 ? `, skipped ${result.skipped}` : ''}` +
    `${unanswered > 0 ? `, unanswered ${unanswered}` : ''}${other ? '  ← not all 200' : ''}`;
}

function authUs(auth: AuthCost): number {
  return auth.hmacUs + auth.digestUs + auth.recoverUs;
}

function printServers(rows: readonly ServerFigures[], auth: AuthCost, internal: ReadonlyMap<number, InternalFigures>, sizes: Sizes): void {
  const verifier = auth.verifierPerSecond;
  console.log(`POST /order, closed loop over ${sizes.connections} keep-alive connections (every order signed, HMAC-authenticated, durable before its 200)`);
  for (const row of rows) {
    const rate = row.peak.requestsPerSecond;
    const cpuUs = (row.serverCpuSeconds * 1e6) / Math.max(1, row.peak.requests);
    const internalPerSecond = internal.get(row.shards)?.commandsPerSecond ?? Number.NaN;
    console.log(
      `  ${settingOf(row)} ${row.verifyThreads === 0 ? '(inline)' : '(pool)  '} ${format(rate).padStart(7)} orders/s` +
      `  ${format(rate / verifier, 2)}× verifier  ${format(rate / internalPerSecond, 2)}× internal client` +
      `  p50 ${format(row.peak.latency.p50Ms, 2)} ms p99 ${format(row.peak.latency.p99Ms, 2)} ms` +
      `  server CPU ${format(cpuUs, 1)} µs/order (${format(row.serverCpuSeconds / (row.peak.durationMs / 1000), 2)} cores), auth + signature ${format((authUs(auth) / cpuUs) * 100)} % of it`,
    );
    console.log(`      statuses ${statuses(row.peak, true)}; setup (${format(row.setup.requests)} minting BUYs) ${statuses(row.setup)}`);
    const threads = row.threads.slice(0, 5).map((thread) => `${thread.main ? 'main' : thread.tid} ${format(thread.seconds, 2)} s`).join(', ');
    const seconds = row.peak.durationMs / 1000;
    console.log(`      server threads, CPU during the ${format(seconds, 1)} s peak (busiest first; main = front end): ${threads}; load generator ${format(row.clientCpuSeconds / seconds, 2)} cores`);
  }
  for (const shards of SHARD_COUNTS) {
    const [pool, inline] = [rows.find((row) => row.shards === shards && row.verifyThreads > 0), rows.find((row) => row.shards === shards && row.verifyThreads === 0)];
    if (pool !== undefined && inline !== undefined) {
      console.log(`  SHARDS=${shards}, pool vs inline: ${format(pool.peak.requestsPerSecond / inline.peak.requestsPerSecond, 2)}× orders/s`);
    }
  }
  console.log('latency, open loop at 50 % of each peak, from each request\'s scheduled send time');
  for (const row of rows) {
    const latency = row.latency.latency;
    console.log(
      `  ${settingOf(row)} at ${format(row.latencyRate).padStart(6)}/s  p50 ${format(latency.p50Ms, 2)} ms  p99 ${format(latency.p99Ms, 2)} ms` +
      `  p99.9 ${format(latency.p999Ms, 2)} ms  max ${format(latency.maxMs, 2)} ms  (${statuses(row.latency)})` +
      `  [generator's send lag p50 ${format(row.latency.sendLag.p50Ms, 2)} ms, p99 ${format(row.latency.sendLag.p99Ms, 2)} ms;` +
      ` by the server's own clock, from arrival to answer, ${format(row.serverWithin5ms * 100, 1)} % within ${GOAL_P99_MS} ms]`,
    );
    if (row.latencyThreads.length > 0) {
      const threads = row.latencyThreads.map((t) => `${t.thread} ${format(t.waitSeconds * 1000)} (${format(t.cpuSeconds, 2)} s CPU)`).join(', ');
      console.log(`      waited for a core, ms (run queue, /proc schedstat; CPU beside it): ${threads}`);
    }
  }
  console.log(`latency at fixed rates below half load, open loop, ${format(sizes.lowMs / 1000, 1)} s each (p50 / p99 / p99.9, ms; [the generator's own send lag, p50 / p99, part of it])`);
  for (const row of rows) {
    const cells = row.low.map((result, index) => {
      const { latency, sendLag } = result;
      return `${format(sizes.lowRates[index]!)}/s ${format(latency.p50Ms, 2)} / ${format(latency.p99Ms, 2)} / ${format(latency.p999Ms, 2)}` +
        ` [${format(sendLag.p50Ms, 2)} / ${format(sendLag.p99Ms, 2)}]`;
    });
    console.log(`  ${settingOf(row)}  ${cells.join('   ')}`);
  }
}

function printFloor(floor: FloorFigures, auth: AuthCost, rows: readonly ServerFigures[]): void {
  const { peak } = floor;
  const rate = peak.requestsPerSecond;
  const seconds = peak.durationMs / 1000;
  const best = Math.max(...rows.map((row) => row.peak.requestsPerSecond));
  console.log(
    `floor (bench/orders/floor.ts: the peak's requests on, the same connections; body, JSON, EIP-712 digest, recovery on ${FLOOR_THREADS} pool threads,` +
    ' one synced LMDB write, nothing else)',
  );
  console.log(
    `  ${format(rate).padStart(7)} orders/s  ${format(rate / auth.verifierPerSecond, 2)}× verifier  p50 ${format(peak.latency.p50Ms, 2)} ms` +
    `  server CPU ${format((floor.serverCpuSeconds * 1e6) / Math.max(1, peak.requests), 1)} µs/order (${format(floor.serverCpuSeconds / seconds, 2)} cores),` +
    ` load generator ${format(floor.clientCpuSeconds / seconds, 2)} cores  (${statuses(peak, true)})`,
  );
  console.log(`  clobd's best setting: ${format(best / rate, 2)}× the floor`);
}

function printProfiles(profiles: readonly ProfileSummary[]): void {
  const percent = (share: number): string => `${format(share * 100, 1)} %`;
  for (const profile of profiles.filter((entry) => entry.samples > 0).slice(0, 4)) {
    console.log(`  ${profile.file} (${format(profile.samples)} samples, idle excluded)`);
    console.log(`    files: ${profile.files.map((entry) => `${entry.name} ${percent(entry.share)}`).join(', ')}`);
    for (const entry of profile.functions) console.log(`    ${percent(entry.share).padStart(7)}  ${entry.name}`);
  }
}

function printGoals(rows: readonly ServerFigures[], auth: AuthCost, floor: FloorFigures | undefined): void {
  const mark = (ok: boolean): string => (ok ? 'met ' : 'MISS');
  const best = rows.reduce((a, b) => (b.peak.requestsPerSecond > a.peak.requestsPerSecond ? b : a));
  const rate = best.peak.requestsPerSecond;
  const which = settingOf(best);
  console.log('goals (best setting)');
  console.log(`  ${mark(rate >= GOAL_VERIFIER_RATIO * auth.verifierPerSecond)} ≥ ${GOAL_VERIFIER_RATIO}× the verifier's single-core rate: ${format(rate / auth.verifierPerSecond, 2)}× (${which})` +
    `${floor === undefined ? '' : `; the floor route ${format(floor.peak.requestsPerSecond / auth.verifierPerSecond, 2)}×`}`);
  console.log(`  ${mark(rate >= GOAL_ORDERS_PER_SECOND)} ≥ ${format(GOAL_ORDERS_PER_SECOND)} orders/s: ${format(rate)} (${which})`);
  const p99 = best.latency.latency.p99Ms;
  console.log(`  ${mark(p99 <= GOAL_P99_MS)} p99 ≤ ${GOAL_P99_MS} ms at half load: ${format(p99, 2)} ms at ${format(best.latencyRate)}/s (${which})`);
}

async function signAll(plan: OrderPlan, traders: readonly BenchTrader[], tokens: Exchange['tokens']): Promise<Signed> {
  const started = performance.now();
  const setup = signOrders(traders, tokens, plan.setup);
  const orders = signOrders(traders, tokens, plan.orders);
  const seconds = (performance.now() - started) / 1000;
  console.log(`signed ${format(setup.length + orders.length)} orders in ${format(seconds, 1)} s (native libsecp256k1; EIP-712 digests with @noble/hashes)`);
  return { plan, traders, tokens, setup, orders };
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const profile = process.argv.includes('--cpu-prof');
  const connections = /^--connections=(\d+)$/.exec(process.argv.find((arg) => arg.startsWith('--connections=')) ?? '');
  const sizes = { ...(quick ? QUICK : FULL), ...(connections === null ? {} : { connections: Number(connections[1]) }) };
  const phases = phasesOf(sizes);
  console.log(
    `clobd POST /order benchmark (${quick ? 'quick' : 'full'}), node ${process.version}: ${format(sizes.accounts)} accounts, ` +
    `${sizes.markets} markets spread evenly over the shards, GTC BUY/SELL of both tokens, ~40 % priced to cross`,
  );
  const plan = makePlan(sizes.accounts, sizes.markets, phases.low.at(-1)?.[1] ?? phases.latency[1], SEED);
  const traders = makeTraders(plan);
  const rows: ServerFigures[] = [];
  let signed: Signed | undefined;
  let auth: AuthCost | undefined;
  const only = /^--setting=(\d+):(\d+)$/.exec(process.argv.find((arg) => arg.startsWith('--setting=')) ?? '');
  const settings = only === null ? SHARD_COUNTS.flatMap((shards) => [POOL_THREADS, 0].map((verifyThreads) => ({ shards, verifyThreads })))
    : [{ shards: Number(only[1]), verifyThreads: Number(only[2]) }];
  for (const { shards, verifyThreads } of settings) {
    const profileDir = profile && rows.length === 0 ? mkdtempSync(join(tmpdir(), 'clobd-orders-prof-')) : undefined;
    const exchange = await startExchange(
      sizes.markets, shards, { VERIFY_THREADS: String(verifyThreads), ...(rows.length === 0 ? { BENCH_ORDER_FLOOR: '1' } : {}) },
      profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`], Math.max(...SHARD_COUNTS),
    );
    signed ??= await signAll(plan, traders, exchange.tokens);
    if (JSON.stringify(exchange.tokens) !== JSON.stringify(signed.tokens)) {
      await exchange.server.stop();
      throw new Error('a fresh server gave other token ids; signed orders cannot be replayed');
    }
    const row = await measureServer(shards, verifyThreads, signed, exchange, sizes, auth === undefined, profileDir);
    auth ??= row.auth;
    rows.push(row);
    if (profileDir !== undefined) {
      console.log(`CPU profile of the ${settingOf(row)} server (setup, warm-up, peak and latency phases), self time per thread:`);
      printProfiles(row.profiles);
      rmSync(profileDir, { recursive: true, force: true });
    }
  }
  if (auth === undefined) throw new Error('no auth cost measured');
  const internal = new Map<number, InternalFigures>();
  for (const shards of new Set(settings.map((setting) => setting.shards))) internal.set(shards, await measureInternal(sizes.internal, shards));
  console.log(`signature verifier alone (recoverAddress, native, one core): ${format(auth.verifierPerSecond)} signatures/s (${format(auth.recoverUs, 1)} µs each)`);
  console.log(
    `auth alone per order: L2 HMAC check ${format(auth.hmacUs, 1)} µs + EIP-712 digest ${format(auth.digestUs, 1)} µs` +
    ` + recovery ${format(auth.recoverUs, 1)} µs = ${format(authUs(auth), 1)} µs`,
  );
  for (const [shards, figures] of internal) {
    console.log(
      `internal trading client, durable (bench/durable flow and closed loop, ${format(sizes.internal.inFlight)} in flight, SHARDS=${shards}):` +
      ` ${format(figures.commandsPerSecond)} cmd/s (${figures.failures} failures, ${figures.mismatches} rejection mismatches)`,
    );
  }
  printServers(rows, auth, internal, sizes);
  const floor = rows[0]?.floor;
  if (floor !== undefined) printFloor(floor, auth, rows);
  printGoals(rows, auth, floor);
}

await main();

// What a replica and a standby give (issue 43), as a user runs them: `node dist/http/main.js` as
// the primary (REPLICATION=sync) and `node dist/http/main.js follow` beside it, each on its own
// DATA_DIR, one nats-server (JetStream) on loopback started by the suite. Two figures:
//
// - Replica lag: one market-channel WebSocket on the primary and one on the replica, both opened
//   by this process (one clock), follow the same markets' tokens, while pre-signed resting orders
//   go to the primary at a fixed rate (open loop; --rate=N, --seconds=N), after a warm-up at the
//   same rate whose lags are left out (a server's first orders run in code not yet optimized).
//   Every market event both sockets deliver is paired by its content less its timestamp (each
//   server stamps its own publication time): a `price_change` names its market, each level's new
//   size and each token's book hash, and resting BUYs only ever add to a level, so no two events
//   of a run are alike. Lag = arrival at the replica's socket − arrival at the primary's. Goals:
//   p99 ≤ 50 ms (the median of the rounds' p99, each round on fresh servers: --rounds=N), and
//   no event the primary delivered that the replica never did.
// - Failover: once the standby stands where the primary does (its shards at the primary's
//   batches and state hashes) and the primary took an order, the primary is killed (SIGKILL), and
//   a signed order goes to the standby every 20 ms until it answers 200 (503 until it holds the
//   lease). The figure runs from the kill to that 200; fresh servers and nats-server each run
//   (--failovers=N). Goal: ≤ 5 s in every run (Polymarket's weekly restart takes about 90 s).
// - A late replica's start (snapshots on NATS): the primary (SNAPSHOT_INTERVAL_S=0, so it takes
//   none by itself) takes a history of resting orders (closed loop, as fast as it takes them;
//   --history=N). Replica B starts `follow` on an empty DATA_DIR with no snapshot on NATS and
//   replays the stream from its first message; then `node dist/http/main.js snapshot` runs
//   beside the primary, 1% more orders follow it, and replica A starts on another empty
//   DATA_DIR: it restores the snapshot and reads each subject from the snapshot's batch on. Each
//   start is timed from its spawn to the moment its shards stand at the primary's batches and
//   state hashes, with the messages it read (its clobd_replication_messages_total) beside those
//   the primary appended. Fresh servers and nats-server each run (--late-runs=N). No goal: the
//   figure is B's time over A's, and what each read.
//
// --only=lag,failover,late runs only the figures named.
//
// The bench process, both servers and nats-server share the machine: on two cores the rate asked
// for may not be reached, and the suite prints the rate the primary accepted.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { runLoad, type LoadResult, type RequestSpec } from './load/client.js';
import { admin, createMarkets, makeTraders, orderRequests, signOrders, tokensOf, type CreatedMarket } from './orders/exchange.js';
import type { OrderPlan, PlannedOrder } from './orders/plan.js';
import { format } from './support/format.js';
import { median } from './support/median.js';
import { processCpuSeconds } from './support/spawn.js';
import { natsServerInstalled, startNats, type NatsCluster } from './support/nats.js';
import { sumOverShards } from './support/shard_metrics.js';
import { ShardPool } from '../http/trading/shards.js';
import { SERVER_NODE_FLAGS } from '../http/node_flags.js';
import { ADMIN_TOKEN } from '../test/http/orders/trader.js';

const LAG_GOAL_P99_MS = 50;
const FAILOVER_GOAL_MS = 5_000;
const SHARDS = 2;
const MAIN_PATH = fileURLToPath(new URL('../http/main.js', import.meta.url));
const READY_PATTERN = /^listening clob=(\S+) catalog=(\S+) data=(\S+)$/m;
/** A loaded 2-core machine has taken over 15 s to start a server (test/support/server.ts). */
const READY_MS_MAX = 40_000;
/** A server that has not exited this long after SIGTERM is killed. */
const STOP_MS_MAX = 15_000;
/** Seconds an L2 signature made before the measured orders stays valid (the run fits in it). */
const AUTH_WINDOW_S = 3600;
const ENROL_CONCURRENCY = 16;
/** Markets created per market used, so that each shard gets its share (see spreadMarkets). */
const CANDIDATES_PER_MARKET = 4;
const MICROS_PER_SHARE = 1_000_000;
const CENT_UNITS = 100;
/** Resting BUYs of either token at 0.01–0.45 never cross: a NO bid at p is a YES ask at 1 − p ≥ 0.55. */
const RESTING_CENTS_MAX = 45;
const ORDER_SHARES = 5;
/** Headroom on every deposit, in micros. */
const DEPOSIT_MARGIN_MICROS = 10 * MICROS_PER_SHARE;
/** How long the replica may take to know the primary's markets before the suite gives up. */
const SUBSCRIBE_MS_MAX = 20_000;
const SUBSCRIBE_RETRY_MS = 200;
/** After the last order: the events still coming are waited for until none came for this long. */
const SETTLE_QUIET_MS = 3_000;
const SETTLE_MS_MAX = 30_000;
/** How often a wait for the events or the replica's state looks again. */
const CHECK_MS = 50;
/** Open loop: how long the answers still out after the measured seconds are waited for. */
const DRAIN_MS = 15_000;
/** The standby must stand where the primary does within this before the kill. */
const CATCH_UP_MS_MAX = 20_000;
const POLL_MS = 20;
/** A standby that took no order this long after the kill never took over: the run fails. */
const TAKEOVER_MS_MAX = 60_000;
/** Market-channel timestamps are each server's own publication time; the rest of an event is the same on both. */
const TIMESTAMP_FIELD = /"timestamp":"\d+"/;
/** Log lines of a server (LOG_LEVEL=warn: warnings and errors only) shown per server. */
const LOG_LINES_SHOWN = 5;
/** The orders after the snapshot, per order of the history: A must read the stream past the snapshot too. */
const AFTER_SNAPSHOT_FRACTION = 0.01;
/** Closed loop: the history ends once every order is answered; this only bounds a server that stalls. */
const HISTORY_MS_MAX = 600_000;
/** A late replica that does not stand where the primary does this long after its spawn fails the run. */
const LATE_CATCH_UP_MS_MAX = 300_000;
/** The snapshot command's report (http/replication/snapshot.ts), and a replica's once it restored one. */
const SNAPSHOT_REPORT = /^snapshot \S+ is on NATS \(([\d.]+) s\): bucket \S+, (\d+) files, ([\d.]+) MB$/m;
const RESTORE_REPORT = /^snapshot \S+ fetched from NATS and restored \(([\d.]+) s\)/m;
/** The figures --only may name. */
const FIGURES = ['lag', 'failover', 'late'] as const;
type FigureName = (typeof FIGURES)[number];

export interface ReplicaSizes {
  /** Orders per second asked for (--rate). */
  readonly rate: number;
  /** Seconds of orders measured (--seconds), after `warmupSeconds` of them at the same rate. */
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly markets: number;
  readonly accounts: number;
  readonly connections: number;
  /** Lag measurements, each on fresh servers (--rounds). */
  readonly rounds: number;
  /** Failovers, each on fresh servers (--failovers). */
  readonly failovers: number;
  /** Orders the primary takes before the late replicas start (--history). */
  readonly history: number;
  /** Late replicas' starts, each pair on fresh servers (--late-runs). */
  readonly lateRuns: number;
}

const QUICK: ReplicaSizes = {
  rate: 500, seconds: 3, warmupSeconds: 1, markets: 2, accounts: 20, connections: 32, rounds: 1, failovers: 1, history: 2_000, lateRuns: 1,
};
const FULL: ReplicaSizes = {
  rate: 1_000, seconds: 20, warmupSeconds: 3, markets: 4, accounts: 200, connections: 128, rounds: 3, failovers: 5, history: 20_000, lateRuns: 3,
};

export interface LagRound {
  /** Orders sent, and answered 200, over the measured seconds. */
  readonly sent: number;
  readonly accepted: number;
  readonly notAccepted: Readonly<Record<string, number>>;
  /** Orders the primary accepted per second, from the first measured order sent to the last answer. */
  readonly acceptedPerSecond: number;
  /** How late the generator wrote its requests after their scheduled time (whether it kept up). */
  readonly sendLagP99Ms: number;
  readonly answerP50Ms: number;
  readonly answerP99Ms: number;
  /** Market events each socket delivered (book snapshots of a subscription are not events). */
  readonly primaryEvents: number;
  readonly replicaEvents: number;
  /** Below zero: the replica's socket had the event first. */
  readonly lagMinMs: number;
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  /** Events matched over the measured seconds: count of the lags above. */
  readonly matched: number;
  /** Delivered by the primary and never by the replica (goal 0), and the other way round, warm-up included. */
  readonly primaryOnly: number;
  readonly replicaOnly: number;
  /** CPU seconds each process used from the first measured order sent to the last answer (`wallSeconds`). */
  readonly cpuSeconds: Readonly<Record<ProcessName, number>>;
  readonly wallSeconds: number;
  /** Whether the replica's shards stood at the primary's batches and state hashes once the events settled. */
  readonly sameState: boolean;
  /** What each server logged (warnings and errors). */
  readonly primaryLog: readonly string[];
  readonly replicaLog: readonly string[];
}

export interface FailoverRun {
  /** From the SIGKILL to the standby's first 200. */
  readonly takeoverMs: number;
  /** Orders sent to the standby until that 200, and its answers before it by status. */
  readonly polls: number;
  readonly refusals: Readonly<Record<string, number>>;
  readonly standbyLog: readonly string[];
}

/** One late replica's start on an empty DATA_DIR. */
export interface LateStart {
  /** From its spawn to its ready line, and to its shards at the primary's batches and state hashes. */
  readonly readyMs: number;
  readonly catchUpMs: number;
  /** What it read of the stream (its clobd_replication_messages_total and _bytes_total over the shards). */
  readonly messagesRead: number;
  readonly bytesRead: number;
  /** What the primary had appended to its shards' subjects by then. */
  readonly streamMessages: number;
  /** How long fetching and restoring the snapshot took, as the replica printed it; undefined when it restored none. */
  readonly restoreSeconds: number | undefined;
  /** What it printed on stdout besides its ready line: the restore's report, when it restored a snapshot. */
  readonly printed: readonly string[];
  /** What it logged (warnings and errors). */
  readonly log: readonly string[];
}

export interface LateRun {
  /** Orders of the history, all accepted, and the rate the primary took them at. */
  readonly historyOrders: number;
  readonly historyPerSecond: number;
  /** Orders after the snapshot, all accepted. */
  readonly afterSnapshotOrders: number;
  /** B: no snapshot on NATS; A: after the snapshot and the orders after it. */
  readonly withoutSnapshot: LateStart;
  readonly fromSnapshot: LateStart;
  /** The snapshot command's wall time (spawn to exit), and what it printed: its own time, its files and their size. */
  readonly snapshotMs: number;
  readonly snapshotReportSeconds: number;
  readonly snapshotFiles: number;
  readonly snapshotMegabytes: number;
  readonly primaryLog: readonly string[];
}

export interface ReplicaFigures {
  /** Why the suite did not run (no nats-server); undefined when it ran. */
  readonly skipped: string | undefined;
  readonly sizes: ReplicaSizes;
  readonly lagRounds: readonly LagRound[];
  readonly failovers: readonly FailoverRun[];
  readonly lateRuns: readonly LateRun[];
}

/** The processes that share the machine during the run. */
type ProcessName = 'primary' | 'replica' | 'nats' | 'bench';
const PROCESSES: readonly ProcessName[] = ['primary', 'replica', 'nats', 'bench'];

/** A clobd process started as a user starts one, with its own DATA_DIR. */
interface Clobd {
  readonly clobUrl: string;
  /** Removed by `stop`. */
  readonly dataDir: string;
  readonly process: ChildProcess;
  /** Its log lines so far (stdout and stderr but the ready line). */
  log(): string[];
  /** SIGTERM (SIGKILL if it does not exit in time), then its DATA_DIR is removed. */
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `node <npm start's options> dist/http/main.js [follow]` on free ports and a fresh DATA_DIR. */
function startClobd(args: readonly string[], env: Readonly<Record<string, string>>): Promise<Clobd> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clobd-replica-'));
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, MAIN_PATH, ...args], {
    env: { ...process.env, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_MS_MAX);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  return new Promise((resolve, reject) => {
    const fail = (why: string): void => {
      clearInterval(watch);
      void stop().then(() => reject(new Error(`clobd ${args.join(' ')} ${why}\n${output}`)));
    };
    const started = performance.now();
    // Polled rather than read from the 'data' event, so that the one timer also bounds the wait.
    const watch = setInterval(() => {
      const match = READY_PATTERN.exec(output);
      if (match !== null) {
        clearInterval(watch);
        const readyLine = match[0];
        resolve({ clobUrl: match[1]!, dataDir, process: child, log: () => output.replace(readyLine, '').split('\n').filter((line) => line !== ''), stop });
      } else if (child.exitCode !== null || child.signalCode !== null) {
        fail(`exited with ${child.exitCode ?? child.signalCode} before it was ready`);
      } else if (performance.now() - started > READY_MS_MAX) {
        fail(`was not ready within ${READY_MS_MAX} ms`);
      }
    }, 10);
  });
}

/** The settings the primary and the replica share, as docs/runtime.md (Replicas) asks. */
function serverEnv(nats: NatsCluster, stream: string): Record<string, string> {
  return {
    NATS: nats.urls, NATS_STREAM: stream, REPLICATION: 'sync', SHARDS: String(SHARDS), ADMIN_TOKEN, AUTH_WINDOW_S: String(AUTH_WINDOW_S),
    // What the suite measures is its own orders, on books only they move, without request caps.
    LOG_LEVEL: 'warn', RATE_LIMITS: 'off', DEMO_FLOW: 'off', SEED_DEMO: '0',
  };
}

/**
 * `count` plain markets' tokens, the same number on every shard: markets go to shards by a hash of
 * their condition id, and a handful can all land on one, which would load one matching worker.
 */
async function spreadMarkets(clobUrl: string, count: number): Promise<(readonly [string, string])[]> {
  const created = await createMarkets(clobUrl, 'Replica benchmark', count * CANDIDATES_PER_MARKET);
  // The server's own placement function, so the benchmark cannot drift from it.
  const shardOf = (market: CreatedMarket): number => ShardPool.prototype.shardOf.call({ count: SHARDS } as ShardPool, market.conditionId);
  const perShard = Array.from({ length: SHARDS }, (_, shard) => created.filter((market) => shardOf(market) === shard));
  return Array.from({ length: count }, (_, index) => {
    const market = perShard[index % SHARDS]![Math.floor(index / SHARDS)];
    if (market === undefined) throw new Error(`not enough markets on shard ${index % SHARDS} for ${count} over ${SHARDS} shards`);
    return tokensOf(market);
  });
}

/**
 * `count` resting BUYs of 5 shares, round-robin over the accounts, the markets and their two
 * tokens, at 0.01–0.45 in turn (never crossing), and what each account must deposit for them.
 */
function restingPlan(count: number, accounts: number, markets: number): OrderPlan {
  const orders: PlannedOrder[] = [];
  const deposits = new Array<number>(accounts).fill(DEPOSIT_MARGIN_MICROS);
  for (let index = 0; index < count; index++) {
    const account = index % accounts;
    const priceUnits = (1 + (Math.floor(index / (2 * markets)) % RESTING_CENTS_MAX)) * CENT_UNITS;
    const sizeMicros = ORDER_SHARES * MICROS_PER_SHARE;
    orders.push({ account, market: index % markets, outcome: Math.floor(index / markets) % 2, side: 'BUY', priceUnits, sizeMicros });
    deposits[account]! += (priceUnits * sizeMicros) / 10_000;
  }
  return { accounts, markets, setup: [], orders, depositMicros: deposits };
}

/** Signed, funded traders for `plan` on the server at `clobUrl`, and the plan's orders as POST /order requests. */
async function preparedOrders(clobUrl: string, plan: OrderPlan, tokens: readonly (readonly [string, string])[]): Promise<RequestSpec[]> {
  const traders = makeTraders(plan);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < traders.length) {
      const index = next++;
      const trader = traders[index]!;
      trader.clobUrl = clobUrl;
      await trader.createKey();
      await admin(clobUrl, '/admin/deposits', { address: trader.address, amount: String(Math.ceil(plan.depositMicros[index]!)) }, 200);
    }
  };
  await Promise.all(Array.from({ length: ENROL_CONCURRENCY }, lane));
  return orderRequests(traders, plan.orders, signOrders(traders, tokens, plan.orders), 0, plan.orders.length);
}

async function post(clobUrl: string, request: RequestSpec): Promise<{ status: number; text: string }> {
  const response = await fetch(`${clobUrl}${request.path}`, { method: request.method, headers: request.headers ?? {}, body: request.body ?? null });
  return { status: response.status, text: await response.text() };
}

/** Each shard's batch and state hash (GET /admin/status), as one comparable string. */
async function shardPositions(clobUrl: string): Promise<string> {
  const response = await fetch(`${clobUrl}/admin/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${clobUrl}/admin/status: ${response.status} ${text}`);
  return (JSON.parse(text) as { shards: { batch: number; stateHash: string }[] }).shards.map((shard) => `${shard.batch}:${shard.stateHash}`).join(' ');
}

/** Whether the replica reaches the primary's batches and state hashes within `waitMs` (the primary's expiry ticks move both on). */
async function sameState(primary: Clobd, replica: Clobd, waitMs: number): Promise<boolean> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    const [ours, theirs] = await Promise.all([shardPositions(primary.clobUrl), shardPositions(replica.clobUrl)]);
    if (ours === theirs) return true;
    if (performance.now() > deadline) return false;
    await sleep(CHECK_MS);
  }
}

/**
 * Pairs the events of two sockets by content: each arrival waits in its side's pending map until
 * the other side delivers the same event. What is left pending at the end was delivered by one
 * side only.
 */
class EventPairs {
  readonly lagsMs: number[] = [];
  readonly delivered = { primary: 0, replica: 0 };
  lastArrivalMs = performance.now();
  private readonly pending = { primary: new Map<string, number[]>(), replica: new Map<string, number[]>() };

  arrived(side: 'primary' | 'replica', key: string, atMs: number): void {
    this.delivered[side]++;
    this.lastArrivalMs = atMs;
    const other = this.pending[side === 'primary' ? 'replica' : 'primary'];
    const waiting = other.get(key);
    const otherAtMs = waiting?.shift();
    if (otherAtMs === undefined) {
      const own = this.pending[side];
      own.set(key, [...(own.get(key) ?? []), atMs]);
      return;
    }
    if (waiting!.length === 0) other.delete(key);
    this.lagsMs.push(side === 'replica' ? atMs - otherAtMs : otherAtMs - atMs);
  }

  /** Leaves out what was paired so far (the warm-up's); what waits for its pair stays. */
  startMeasuring(): void {
    this.lagsMs.length = 0;
    this.delivered.primary = 0;
    this.delivered.replica = 0;
  }

  /** Until every event has its pair, or none came for SETTLE_QUIET_MS. */
  async settled(): Promise<void> {
    const deadline = performance.now() + SETTLE_MS_MAX;
    while (this.unmatched('primary') + this.unmatched('replica') > 0 && performance.now() - this.lastArrivalMs < SETTLE_QUIET_MS && performance.now() < deadline) {
      await sleep(CHECK_MS);
    }
  }

  unmatched(side: 'primary' | 'replica'): number {
    let count = 0;
    for (const times of this.pending[side].values()) count += times.length;
    return count;
  }
}

/**
 * A market-channel socket on `clobUrl` following `tokens`, open once every token's `book` came
 * (a replica that does not know the markets yet answers `unknown assets_ids`: tried again);
 * every later event goes to `onEvent` with its arrival time and its content less the timestamp.
 */
async function marketSocket(clobUrl: string, tokens: readonly string[], onEvent: (key: string, atMs: number) => void): Promise<WebSocket> {
  const deadline = performance.now() + SUBSCRIBE_MS_MAX;
  for (;;) {
    const socket = new WebSocket(`${clobUrl.replace('http', 'ws')}/ws/market`, { perMessageDeflate: false });
    const refusal = await new Promise<string | undefined>((resolve, reject) => {
      const books = new Set<string>();
      // Once subscribed, an error closes the socket, which the run checks at its end.
      socket.on('error', reject);
      socket.once('open', () => socket.send(JSON.stringify({ assets_ids: tokens, type: 'market' })));
      socket.on('message', (data) => {
        const atMs = performance.now();
        const text = data.toString();
        if (text.startsWith('{"error"')) return resolve(text);
        if (text.includes('"event_type":"book"')) {
          books.add((JSON.parse(text) as { asset_id: string }).asset_id);
          if (books.size === tokens.length) resolve(undefined);
          return;
        }
        onEvent(text.replace(TIMESTAMP_FIELD, ''), atMs);
      });
    });
    if (refusal === undefined) return socket;
    socket.terminate();
    if (performance.now() > deadline) throw new Error(`${clobUrl}/ws/market refused the subscription for ${SUBSCRIBE_MS_MAX} ms: ${refusal}`);
    await sleep(SUBSCRIBE_RETRY_MS);
  }
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

function notAccepted(result: LoadResult): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(Object.entries(result.statusCounts).filter(([status]) => status !== '200'));
  if (result.errors > 0) counts['socket errors'] = result.errors;
  return counts;
}

async function lagRound(sizes: ReplicaSizes): Promise<LagRound> {
  const nats = await startNats(1);
  const servers: Clobd[] = [];
  const sockets: WebSocket[] = [];
  try {
    const env = serverEnv(nats, 'replica-lag');
    const primary = await startClobd([], env);
    servers.push(primary);
    const tokens = await spreadMarkets(primary.clobUrl, sizes.markets);
    const warmupOrders = sizes.rate * sizes.warmupSeconds;
    const plan = restingPlan(warmupOrders + sizes.rate * sizes.seconds, sizes.accounts, sizes.markets);
    const requests = await preparedOrders(primary.clobUrl, plan, tokens);
    const replica = await startClobd(['follow'], env);
    servers.push(replica);
    const pairs = new EventPairs();
    const followed = tokens.flat();
    sockets.push(await marketSocket(primary.clobUrl, followed, (key, atMs) => pairs.arrived('primary', key, atMs)));
    sockets.push(await marketSocket(replica.clobUrl, followed, (key, atMs) => pairs.arrived('replica', key, atMs)));
    const drive = (from: number, to: number, phaseSeconds: number): Promise<LoadResult> => runLoad({
      url: primary.clobUrl, requests: requests.slice(from, to), connections: sizes.connections, durationMs: phaseSeconds * 1000, unique: true,
      ratePerSecond: sizes.rate, drainMs: DRAIN_MS,
    });
    const pidOf = (child: ChildProcess | undefined): number => {
      if (child?.pid === undefined) throw new Error('a process the suite started has no process id');
      return child.pid;
    };
    const pids = { primary: pidOf(primary.process), replica: pidOf(replica.process), nats: pidOf(nats.nodes[0]?.process) };
    const cpu = (): Record<ProcessName, number> => {
      const own = process.cpuUsage();
      return {
        primary: processCpuSeconds(pids.primary), replica: processCpuSeconds(pids.replica), nats: processCpuSeconds(pids.nats), bench: (own.user + own.system) / 1e6,
      };
    };
    await drive(0, warmupOrders, sizes.warmupSeconds);
    await pairs.settled();
    pairs.startMeasuring();
    const cpuBefore = cpu();
    const startedMs = performance.now();
    const result = await drive(warmupOrders, requests.length, sizes.seconds);
    const wallSeconds = (performance.now() - startedMs) / 1000;
    const cpuAfter = cpu();
    await pairs.settled();
    const closed = sockets.filter((socket) => socket.readyState !== WebSocket.OPEN);
    if (closed.length > 0) throw new Error(`${closed.length} market socket(s) closed during the run: their events are not all there`);
    const same = await sameState(primary, replica, SETTLE_QUIET_MS);
    const lags = [...pairs.lagsMs].sort((a, b) => a - b);
    const accepted = result.statusCounts['200'] ?? 0;
    return {
      sent: result.sent, accepted, notAccepted: notAccepted(result), acceptedPerSecond: accepted / wallSeconds,
      sendLagP99Ms: result.sendLag.p99Ms, answerP50Ms: result.latency.p50Ms, answerP99Ms: result.latency.p99Ms,
      primaryEvents: pairs.delivered.primary, replicaEvents: pairs.delivered.replica,
      lagMinMs: lags[0] ?? 0, lagP50Ms: percentile(lags, 0.5), lagP99Ms: percentile(lags, 0.99), lagMaxMs: lags.at(-1) ?? 0, matched: lags.length,
      primaryOnly: pairs.unmatched('primary'), replicaOnly: pairs.unmatched('replica'), sameState: same,
      cpuSeconds: Object.fromEntries(PROCESSES.map((name) => [name, cpuAfter[name] - cpuBefore[name]])) as Record<ProcessName, number>, wallSeconds,
      primaryLog: primary.log(), replicaLog: replica.log(),
    };
  } finally {
    for (const socket of sockets) socket.terminate();
    for (const server of servers.reverse()) await server.stop();
    await nats.close();
  }
}

/** Sends `request` to the standby every POLL_MS until it answers 200: how many went, and the answers before. */
async function pollUntilAccepted(standby: Clobd, request: RequestSpec, killedAtMs: number): Promise<Omit<FailoverRun, 'standbyLog'>> {
  const refusals: Record<string, number> = {};
  for (let polls = 1; ; polls++) {
    const sentAtMs = performance.now();
    const answer = await post(standby.clobUrl, request);
    if (answer.status === 200) return { takeoverMs: performance.now() - killedAtMs, polls, refusals };
    refusals[answer.status] = (refusals[answer.status] ?? 0) + 1;
    if (performance.now() - killedAtMs > TAKEOVER_MS_MAX) {
      throw new Error(`the standby took no order within ${TAKEOVER_MS_MAX} ms of the kill (answers ${JSON.stringify(refusals)}, last: ${answer.status} ${answer.text})\n${standby.log().join('\n')}`);
    }
    await sleep(Math.max(0, sentAtMs + POLL_MS - performance.now()));
  }
}

async function failoverOnce(run: number): Promise<FailoverRun> {
  const nats = await startNats(1);
  const servers: Clobd[] = [];
  try {
    const env = serverEnv(nats, `replica-failover-${run}`);
    const primary = await startClobd([], env);
    servers.push(primary);
    const tokens = await spreadMarkets(primary.clobUrl, 1);
    // Two orders of one account: the first to the primary, the second to the standby after the kill.
    const [first, second] = await preparedOrders(primary.clobUrl, restingPlan(2, 1, 1), tokens) as [RequestSpec, RequestSpec];
    const standby = await startClobd(['follow'], env);
    servers.push(standby);
    const placed = await post(primary.clobUrl, first);
    if (placed.status !== 200) throw new Error(`the primary refused the first order: ${placed.status} ${placed.text}`);
    if (!(await sameState(primary, standby, CATCH_UP_MS_MAX))) throw new Error(`the standby did not reach the primary's batches within ${CATCH_UP_MS_MAX} ms`);
    const killedAtMs = performance.now();
    primary.process.kill('SIGKILL');
    const taken = await pollUntilAccepted(standby, second, killedAtMs);
    return { ...taken, standbyLog: standby.log() };
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await nats.close();
  }
}

/** Every request to the primary, closed loop; each must be accepted. */
async function placeAll(clobUrl: string, requests: readonly RequestSpec[], connections: number): Promise<LoadResult> {
  const result = await runLoad({ url: clobUrl, requests, connections: Math.min(connections, requests.length), durationMs: HISTORY_MS_MAX, unique: true });
  const accepted = result.statusCounts['200'] ?? 0;
  if (accepted !== requests.length) throw new Error(`the primary accepted ${accepted} of ${requests.length} orders: ${JSON.stringify(notAccepted(result))} ${JSON.stringify(result.errorSamples)}`);
  return result;
}

/** A server's clobd_replication_messages_total and clobd_replication_bytes_total (GET /metrics), summed over its shards. */
async function replicationTotals(clobUrl: string): Promise<{ messages: number; bytes: number }> {
  const response = await fetch(`${clobUrl}/metrics`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${clobUrl}/metrics: ${response.status} ${text}`);
  const sum = (name: string): number => {
    const { total, shards } = sumOverShards(text, name);
    if (shards !== SHARDS) throw new Error(`${clobUrl}/metrics has ${shards} samples of ${name}, not one per shard (${SHARDS})`);
    return total;
  };
  return { messages: sum('clobd_replication_messages_total'), bytes: sum('clobd_replication_bytes_total') };
}

/** `follow` on a fresh, empty DATA_DIR, timed from its spawn until its shards stand where the primary's do; stopped then. */
async function lateStart(primary: Clobd, env: Readonly<Record<string, string>>): Promise<LateStart> {
  const spawnedMs = performance.now();
  const replica = await startClobd(['follow'], env);
  try {
    const readyMs = performance.now() - spawnedMs;
    if (!(await sameState(primary, replica, LATE_CATCH_UP_MS_MAX - readyMs))) {
      throw new Error(`a late replica did not reach the primary's batches within ${LATE_CATCH_UP_MS_MAX} ms of its spawn\n${replica.log().join('\n')}`);
    }
    const catchUpMs = performance.now() - spawnedMs;
    const [read, appended] = await Promise.all([replicationTotals(replica.clobUrl), replicationTotals(primary.clobUrl)]);
    // Log lines are JSON objects (http/log.ts); the rest is the restore's report.
    const lines = replica.log();
    const log = lines.filter((line) => line.startsWith('{'));
    const printed = lines.filter((line) => !line.startsWith('{'));
    const restored = RESTORE_REPORT.exec(printed.join('\n'));
    return {
      readyMs, catchUpMs, messagesRead: read.messages, bytesRead: read.bytes, streamMessages: appended.messages,
      restoreSeconds: restored === null ? undefined : Number(restored[1]), printed, log,
    };
  } finally {
    await replica.stop();
  }
}

type SnapshotTaken = Pick<LateRun, 'snapshotMs' | 'snapshotReportSeconds' | 'snapshotFiles' | 'snapshotMegabytes'>;

/** `node dist/http/main.js snapshot` beside the primary, on its DATA_DIR and NATS settings, as an operator runs it. */
async function takeSnapshot(primary: Clobd, env: Readonly<Record<string, string>>): Promise<SnapshotTaken> {
  const startedMs = performance.now();
  const child = spawn(process.execPath, [MAIN_PATH, 'snapshot'], { env: { ...process.env, ...env, DATA_DIR: primary.dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  const snapshotMs = performance.now() - startedMs;
  const report = SNAPSHOT_REPORT.exec(output);
  if (code !== 0 || report === null) throw new Error(`the snapshot command exited with ${String(code ?? signal)}:\n${output}`);
  return { snapshotMs, snapshotReportSeconds: Number(report[1]), snapshotFiles: Number(report[2]), snapshotMegabytes: Number(report[3]) };
}

async function lateRun(sizes: ReplicaSizes, run: number): Promise<LateRun> {
  const nats = await startNats(1);
  const servers: Clobd[] = [];
  try {
    // Snapshots only when the run asks for one, so that B surely finds none.
    const env = { ...serverEnv(nats, `replica-late-${run}`), SNAPSHOT_INTERVAL_S: '0' };
    const primary = await startClobd([], env);
    servers.push(primary);
    const tokens = await spreadMarkets(primary.clobUrl, sizes.markets);
    const afterSnapshot = Math.ceil(sizes.history * AFTER_SNAPSHOT_FRACTION);
    const requests = await preparedOrders(primary.clobUrl, restingPlan(sizes.history + afterSnapshot, sizes.accounts, sizes.markets), tokens);
    const history = await placeAll(primary.clobUrl, requests.slice(0, sizes.history), sizes.connections);
    const withoutSnapshot = await lateStart(primary, env);
    if (withoutSnapshot.restoreSeconds !== undefined) throw new Error('replica B restored a snapshot, though none was taken');
    const snapshot = await takeSnapshot(primary, env);
    await placeAll(primary.clobUrl, requests.slice(sizes.history), sizes.connections);
    const fromSnapshot = await lateStart(primary, env);
    if (fromSnapshot.restoreSeconds === undefined) throw new Error(`replica A restored no snapshot:\n${[...fromSnapshot.printed, ...fromSnapshot.log].join('\n')}`);
    return {
      historyOrders: sizes.history, historyPerSecond: history.requestsPerSecond, afterSnapshotOrders: afterSnapshot, withoutSnapshot, fromSnapshot, ...snapshot,
      primaryLog: primary.log(),
    };
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await nats.close();
  }
}

/** `--name=N`: a positive whole number, or `fallback` when not given. */
function countOption(options: readonly string[], name: string, fallback: number): number {
  const given = options.find((option) => option.startsWith(`--${name}=`));
  if (given === undefined) return fallback;
  const value = Number(given.slice(name.length + 3));
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`--${name} takes a positive whole number, not ${given}`);
  return value;
}

/** `--only=a,b`: the figures named (all of them when not given). */
function chosenFigures(options: readonly string[]): ReadonlySet<FigureName> {
  const given = options.find((option) => option.startsWith('--only='));
  if (given === undefined) return new Set(FIGURES);
  const names = given.slice('--only='.length).split(',');
  const unknown = names.filter((name) => !(FIGURES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) throw new Error(`--only takes figures among ${FIGURES.join(', ')}, not ${given}`);
  return new Set(names as FigureName[]);
}

export async function benchReplica(quick: boolean, options: readonly string[]): Promise<ReplicaFigures> {
  const base = quick ? QUICK : FULL;
  const chosen = chosenFigures(options);
  // A figure left out runs no round: the sizes say what ran.
  const runs = (figure: FigureName, name: string, fallback: number): number => (chosen.has(figure) ? countOption(options, name, fallback) : 0);
  const sizes: ReplicaSizes = {
    ...base, rate: countOption(options, 'rate', base.rate), seconds: countOption(options, 'seconds', base.seconds), rounds: runs('lag', 'rounds', base.rounds),
    failovers: runs('failover', 'failovers', base.failovers), history: countOption(options, 'history', base.history), lateRuns: runs('late', 'late-runs', base.lateRuns),
  };
  if (!natsServerInstalled()) return { skipped: 'nats-server is not installed (apt-get install nats-server)', sizes, lagRounds: [], failovers: [], lateRuns: [] };
  const lagRounds: LagRound[] = [];
  for (let round = 0; round < sizes.rounds; round++) lagRounds.push(await lagRound(sizes));
  const failovers: FailoverRun[] = [];
  for (let run = 0; run < sizes.failovers; run++) failovers.push(await failoverOnce(run));
  const lateRuns: LateRun[] = [];
  for (let run = 0; run < sizes.lateRuns; run++) lateRuns.push(await lateRun(sizes, run));
  return { skipped: undefined, sizes, lagRounds, failovers, lateRuns };
}

const verdict = (met: boolean): string => (met ? 'PASS' : 'MISS');
const seconds = (ms: number): string => `${format(ms / 1000, 2)} s`;

function printLog(who: string, lines: readonly string[]): void {
  if (lines.length === 0) return;
  console.log(`  ${who} logged ${lines.length} line(s) (warnings and errors), the first:\n    ${lines.slice(0, LOG_LINES_SHOWN).join('\n    ')}`);
}

function printLagRound(index: number, lag: LagRound): void {
  const refused = Object.entries(lag.notAccepted).map(([status, count]) => `${status}×${format(count)}`).join(', ');
  console.log(
    `  round ${index + 1}: ${format(lag.accepted)} of ${format(lag.sent)} orders accepted, ${format(lag.acceptedPerSecond)} orders/s achieved` +
    `${refused === '' ? '' : ` (not 200: ${refused})`}; answer p50 ${format(lag.answerP50Ms, 2)} ms p99 ${format(lag.answerP99Ms, 2)} ms; generator's send lag p99 ${format(lag.sendLagP99Ms, 2)} ms`,
  );
  console.log(
    `    events: primary ${format(lag.primaryEvents)}, replica ${format(lag.replicaEvents)}, both ${format(lag.matched)}; ` +
    `delivered by the primary, never by the replica: ${format(lag.primaryOnly)}; by the replica only: ${format(lag.replicaOnly)}; ` +
    `replica's shards at the primary's batches and state hashes afterwards: ${lag.sameState ? 'yes' : 'NO'}`,
  );
  console.log(`    lag: min ${format(lag.lagMinMs, 2)} ms  p50 ${format(lag.lagP50Ms, 2)} ms  p99 ${format(lag.lagP99Ms, 2)} ms  max ${format(lag.lagMaxMs, 2)} ms`);
  const cpu = PROCESSES.map((name) => `${name === 'bench' ? 'this process' : name} ${format(lag.cpuSeconds[name], 1)}`).join(', ');
  const cores = availableParallelism();
  console.log(`    CPU seconds over the ${format(lag.wallSeconds, 1)} s of measured orders (${cores} cores: ${format(cores * lag.wallSeconds, 1)} at most): ${cpu}`);
  printLog('the primary', lag.primaryLog);
  printLog('the replica', lag.replicaLog);
}

function printLag(sizes: ReplicaSizes, rounds: readonly LagRound[]): void {
  console.log(
    `\nReplica lag: primary (REPLICATION=sync) and one replica (follow), SHARDS=${SHARDS}, one nats-server (JetStream) on loopback; ` +
    `resting orders asked at ${format(sizes.rate)}/s for ${sizes.seconds} s after ${sizes.warmupSeconds} s of warm-up (open loop, ${sizes.connections} connections, ${sizes.accounts} accounts, ${sizes.markets} markets); ` +
    `a market-channel socket on each server, lag = arrival at the replica's − at the primary's; ${rounds.length} round(s) on fresh servers`,
  );
  for (const [index, round] of rounds.entries()) printLagRound(index, round);
  const ofRounds = (read: (round: LagRound) => number): number => median(rounds.map(read));
  const p99 = ofRounds((round) => round.lagP99Ms);
  const missing = rounds.reduce((sum, round) => sum + round.primaryOnly, 0);
  const matched = rounds.every((round) => round.matched > 0);
  console.log(
    `  median of the rounds: ${format(ofRounds((round) => round.acceptedPerSecond))} orders/s achieved; lag p50 ${format(ofRounds((round) => round.lagP50Ms), 2)} ms` +
    `  p99 ${format(p99, 2)} ms  max ${format(ofRounds((round) => round.lagMaxMs), 2)} ms  (goal p99 ≤ ${LAG_GOAL_P99_MS} ms: ${verdict(matched && p99 <= LAG_GOAL_P99_MS)})`,
  );
  console.log(`  delivered by the primary, never by the replica, over all rounds: ${format(missing)} (goal 0: ${verdict(missing === 0)})`);
}

function printFailovers(runs: readonly FailoverRun[]): void {
  console.log(
    `\nFailover: primary (REPLICATION=sync) and a standby (follow), one nats-server on loopback; kill -9 of the primary, then a signed order to the standby every ${POLL_MS} ms ` +
    `until it answers 200; fresh servers each of ${runs.length} run(s)`,
  );
  for (const [index, run] of runs.entries()) {
    const refusals = Object.entries(run.refusals).map(([status, count]) => `${status}×${count}`).join(', ');
    console.log(`  run ${index + 1}: ${seconds(run.takeoverMs)} from the kill to the first 200 (${run.polls} orders sent; before it: ${refusals === '' ? 'none' : refusals})`);
    printLog(`run ${index + 1}'s standby`, run.standbyLog);
  }
  const times = runs.map((run) => run.takeoverMs);
  const longest = Math.max(...times);
  console.log(`  median ${seconds(median(times))}  max ${seconds(longest)}  (goal ≤ ${FAILOVER_GOAL_MS / 1000} s in every run: ${verdict(longest <= FAILOVER_GOAL_MS)})`);
}

function lateStartLine(start: LateStart): string {
  const restore = start.restoreSeconds === undefined ? '' : `, the snapshot fetched and restored in ${format(start.restoreSeconds, 1)} s of it`;
  return `${seconds(start.catchUpMs)} from its spawn to the primary's batches and state hashes (ready after ${seconds(start.readyMs)}${restore}); ` +
    `read ${format(start.messagesRead)} messages (${format(start.bytesRead / 1e6, 1)} MB) of the ${format(start.streamMessages)} the primary appended`;
}

function printLateRuns(runs: readonly LateRun[]): void {
  console.log(
    `\nLate replica's start: primary (REPLICATION=sync, SNAPSHOT_INTERVAL_S=0), SHARDS=${SHARDS}, one nats-server on loopback; a history of resting orders, then ` +
    `replica B (follow, empty DATA_DIR, no snapshot on NATS); then \`snapshot\` beside the primary, ${format(AFTER_SNAPSHOT_FRACTION * 100)}% more orders, ` +
    `and replica A (follow, empty DATA_DIR: restores the snapshot, then seeks); fresh servers each of ${runs.length} run(s)`,
  );
  for (const [index, run] of runs.entries()) {
    console.log(
      `  run ${index + 1}: ${format(run.historyOrders)} orders of history at ${format(run.historyPerSecond)} orders/s, ${format(run.afterSnapshotOrders)} after the snapshot; ` +
      `B/A ${format(run.withoutSnapshot.catchUpMs / run.fromSnapshot.catchUpMs, 1)}`,
    );
    console.log(`    B, no snapshot: ${lateStartLine(run.withoutSnapshot)}`);
    console.log(`    snapshot command: ${seconds(run.snapshotMs)} from spawn to exit (it printed ${format(run.snapshotReportSeconds, 1)} s), ${run.snapshotFiles} files, ${format(run.snapshotMegabytes, 1)} MB`);
    console.log(`    A, from the snapshot: ${lateStartLine(run.fromSnapshot)}`);
    printLog(`run ${index + 1}'s primary`, run.primaryLog);
    printLog(`run ${index + 1}'s B`, run.withoutSnapshot.log);
    printLog(`run ${index + 1}'s A`, run.fromSnapshot.log);
  }
  const ofRuns = (read: (run: LateRun) => number): number => median(runs.map(read));
  console.log(
    `  median of the runs: B ${seconds(ofRuns((run) => run.withoutSnapshot.catchUpMs))}, A ${seconds(ofRuns((run) => run.fromSnapshot.catchUpMs))}, ` +
    `B/A ${format(ofRuns((run) => run.withoutSnapshot.catchUpMs / run.fromSnapshot.catchUpMs), 1)}; snapshot command ${seconds(ofRuns((run) => run.snapshotMs))}`,
  );
}

export function printReplica(figures: ReplicaFigures): void {
  if (figures.skipped !== undefined) {
    console.log(`\nReplica: skipped, ${figures.skipped}`);
    return;
  }
  if (figures.lagRounds.length > 0) printLag(figures.sizes, figures.lagRounds);
  if (figures.failovers.length > 0) printFailovers(figures.failovers);
  if (figures.lateRuns.length > 0) printLateRuns(figures.lateRuns);
}

// The replicated journal's cost (issue 43) on signed, durable POST /order: the orders benchmark's
// pre-signed orders (bench/orders/exchange.ts, the metrics suite's sizes and SHARDS) replayed on
// three server configurations, alternating round by round in one run so that the machine's
// drift hits all three alike, each on a fresh server:
// - none: no NATS (the baseline);
// - REPLICATION=async: every batch on the local disk answers, the stream is appended behind;
// - REPLICATION=sync: a batch answers once the stream holds it.
// One nats-server (JetStream, one replica) on loopback, started by the suite, serves both
// replicated configurations; each server start gets a stream of its own (NATS_STREAM), so every
// run begins on an empty one. Goals: orders/s with sync ≥ 0.5 of none, with async ≥ 0.9.
//
// Before and after the measured orders each run reads the server's /metrics: its threads' CPU
// (front end, matching workers, the other threads together, the replication thread among them),
// so that what replication costs shows where it is spent, and nats-server's CPU from /proc, CPU
// the server does not get where the cores are all taken. A replicated run first waits until the
// stream holds every batch the shards committed (async trails them) and reads the stream's
// counters too: messages and bytes appended over the measured orders, summed over the shards, so
// orders per message says how well batches coalesce into messages; and how long the stream took
// to catch up after the last answer (with sync, nothing is left to catch up).
import { orderRun, FULL_ORDERS, QUICK_ORDERS, type OrderRun, type OrderSizes, type PhaseProbe, type Signed } from './metrics.js';
import { format } from './support/format.js';
import { median } from './support/median.js';
import { natsServerInstalled, startNats } from './support/nats.js';
import { sumOverShards } from './support/shard_metrics.js';
import { processCpuSeconds } from './support/spawn.js';

const SYNC_GOAL = 0.5;
const ASYNC_GOAL = 0.9;
/** How long a run waits for the stream to hold every committed batch; past it, the stream is stuck. */
const CATCH_UP_MS_MAX = 60_000;
const CATCH_UP_POLL_MS = 5;
/** nats-server log lines worth showing after the suite: its warnings and errors. */
const NATS_COMPLAINT = /\[(WRN|ERR|FTL)\]/;

type Mode = 'none' | 'async' | 'sync';
const MODES: readonly Mode[] = ['none', 'async', 'sync'];

/** CPU seconds of the server's threads by kind (clobd_thread_cpu_seconds_total). */
export interface ThreadCpu {
  /** The main thread and any other front-end thread. */
  readonly frontEnds: number;
  /** The matching workers. */
  readonly shards: number;
  /** Every other thread: the replication thread, the signature pool, V8's and libuv's helpers. */
  readonly others: number;
}

/** What the server counted over a replicated run's measured orders. */
export interface StreamPhase {
  readonly shards: number;
  readonly messages: number;
  readonly bytes: number;
  /** Appends tried again over the whole run (enrolment, setup and warm-up included): any is worth a look. */
  readonly retries: number;
  /** From the measured orders' last answer until the stream held every committed batch. */
  readonly catchUpMs: number;
}

export interface ReplicationRun {
  readonly run: OrderRun;
  /** Over the measured orders (and, replicated, until the stream caught up after them). */
  readonly threads: ThreadCpu;
  /** CPU seconds (user + system) of nats-server over the same span. */
  readonly natsCpuSeconds: number;
  /** Undefined for the baseline (no NATS). */
  readonly stream: StreamPhase | undefined;
}

export interface ReplicationSide {
  readonly mode: Mode;
  readonly runs: readonly ReplicationRun[];
}

export interface ReplicationFigures {
  /** Why the suite did not run (no nats-server); undefined when it ran. */
  readonly skipped: string | undefined;
  readonly sizes: OrderSizes;
  readonly sides: readonly ReplicationSide[];
  /** nats-server's warnings and errors over the whole suite. */
  readonly natsComplaints: readonly string[];
}

interface StreamCounts {
  readonly shards: number;
  readonly messages: number;
  readonly bytes: number;
  readonly retries: number;
  readonly lagBatches: number;
}

/** One moment of a run: the server's /metrics and nats-server's CPU. */
interface Reading {
  readonly threads: ThreadCpu;
  readonly stream: StreamCounts | undefined;
  readonly natsCpuSeconds: number;
}

function streamCounts(text: string): StreamCounts {
  const messages = sumOverShards(text, 'clobd_replication_messages_total');
  if (messages.shards === 0) throw new Error('/metrics has no clobd_replication_messages_total: the server runs without NATS');
  return {
    shards: messages.shards, messages: messages.total, bytes: sumOverShards(text, 'clobd_replication_bytes_total').total,
    retries: sumOverShards(text, 'clobd_replication_retries_total').total, lagBatches: sumOverShards(text, 'clobd_replication_lag_batches').total,
  };
}

function threadCpu(text: string): ThreadCpu {
  const seconds = { frontEnds: 0, shards: 0, others: 0 };
  for (const match of text.matchAll(/^clobd_thread_cpu_seconds_total\{thread="([^"]+)"\} (\S+)$/gm)) {
    const kind = match[1]!.startsWith('front_end') ? 'frontEnds' : match[1]!.startsWith('shard_') ? 'shards' : 'others';
    seconds[kind] += Number(match[2]);
  }
  return seconds;
}

async function readMetrics(clobUrl: string): Promise<string> {
  const response = await fetch(`${clobUrl}/metrics`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}: ${text.slice(0, 200)}`);
  return text;
}

/** The server's /metrics once the stream holds every batch its shards committed. */
async function caughtUp(clobUrl: string): Promise<string> {
  const deadline = performance.now() + CATCH_UP_MS_MAX;
  for (;;) {
    const text = await readMetrics(clobUrl);
    const { lagBatches } = streamCounts(text);
    if (lagBatches === 0) return text;
    if (performance.now() > deadline) throw new Error(`the stream still lacks ${lagBatches} batches after ${CATCH_UP_MS_MAX} ms`);
    await new Promise((resolve) => setTimeout(resolve, CATCH_UP_POLL_MS));
  }
}

/** A run's probe (see the top of this file) and, once the run is over, what it read. */
function runProbe(natsPid: number, replicated: boolean): { probe: PhaseProbe; result: (run: OrderRun) => ReplicationRun } {
  const readings = new Map<'before' | 'after', Reading>();
  let catchUpMs = 0;
  const probe: PhaseProbe = async (clobUrl, moment) => {
    const started = performance.now();
    const text = replicated ? await caughtUp(clobUrl) : await readMetrics(clobUrl);
    if (moment === 'after') catchUpMs = performance.now() - started;
    readings.set(moment, { threads: threadCpu(text), stream: replicated ? streamCounts(text) : undefined, natsCpuSeconds: processCpuSeconds(natsPid) });
  };
  const result = (run: OrderRun): ReplicationRun => {
    const before = readings.get('before');
    const after = readings.get('after');
    if (before === undefined || after === undefined) throw new Error('the run ended without reading the server before and after its measured orders');
    const threads = {
      frontEnds: after.threads.frontEnds - before.threads.frontEnds, shards: after.threads.shards - before.threads.shards, others: after.threads.others - before.threads.others,
    };
    const stream = before.stream === undefined || after.stream === undefined ? undefined : {
      shards: after.stream.shards, messages: after.stream.messages - before.stream.messages, bytes: after.stream.bytes - before.stream.bytes,
      retries: after.stream.retries, catchUpMs,
    };
    return { run, threads, natsCpuSeconds: after.natsCpuSeconds - before.natsCpuSeconds, stream };
  };
  return { probe, result };
}

function envOf(mode: Mode, natsUrls: string, round: number): Record<string, string> {
  // Every side serves /metrics, so that the baseline pays for the same counters as the others.
  if (mode === 'none') return { METRICS: 'on' };
  return { METRICS: 'on', NATS: natsUrls, REPLICATION: mode, NATS_STREAM: `bench-${mode}-${round}` };
}

export async function benchReplication(quick: boolean): Promise<ReplicationFigures> {
  const sizes = quick ? QUICK_ORDERS : FULL_ORDERS;
  if (!natsServerInstalled()) return { skipped: 'nats-server is not installed (apt-get install nats-server)', sizes, sides: [], natsComplaints: [] };
  const nats = await startNats(1);
  try {
    const natsPid = nats.nodes[0]?.process.pid;
    if (natsPid === undefined) throw new Error('nats-server is ready but has no process id');
    const runs = MODES.map((): ReplicationRun[] => []);
    let signed: Signed | undefined;
    for (let round = 0; round < sizes.rounds; round++) {
      for (const [index, mode] of MODES.entries()) {
        const { probe, result } = runProbe(natsPid, mode !== 'none');
        const made = await orderRun(envOf(mode, nats.urls, round), sizes, signed, undefined, undefined, probe);
        signed = made.signed;
        runs[index]!.push(result(made.run));
      }
    }
    const natsComplaints = nats.nodes.flatMap((node) => node.output().split('\n').filter((line) => NATS_COMPLAINT.test(line)));
    return { skipped: undefined, sizes, sides: MODES.map((mode, index) => ({ mode, runs: runs[index]! })), natsComplaints };
  } finally {
    await nats.close();
  }
}

const NAMES: Record<Mode, string> = { none: 'none (no NATS)', async: 'REPLICATION=async', sync: 'REPLICATION=sync' };

const medianOf = (side: ReplicationSide, read: (run: ReplicationRun) => number): number => median(side.runs.map(read));

function printSide(side: ReplicationSide, measuredOrders: number): void {
  const ofRun = (read: (run: OrderRun) => number): number => medianOf(side, (entry) => read(entry.run));
  const perOrder = (read: (entry: ReplicationRun) => number): string => format(medianOf(side, (entry) => (read(entry) * 1e6) / measuredOrders), 1);
  const refused = side.runs.reduce((sum, entry) => sum + entry.run.non200, 0);
  const indent = `  ${''.padEnd(18)}`;
  console.log(
    `  ${NAMES[side.mode].padEnd(18)} ${format(ofRun((run) => run.ordersPerSecond)).padStart(7)} orders/s  p50 ${format(ofRun((run) => run.p50Ms), 2)} ms` +
    `  p99 ${format(ofRun((run) => run.p99Ms), 2)} ms${refused > 0 ? `  not 200: ${format(refused)}` : ''}`,
  );
  console.log(
    `${indent} CPU per order: server ${format(ofRun((run) => run.cpuUsPerOrder), 1)} µs (front ends ${perOrder((entry) => entry.threads.frontEnds)},` +
    ` matching workers ${perOrder((entry) => entry.threads.shards)}, other threads ${perOrder((entry) => entry.threads.others)}), nats-server ${perOrder((entry) => entry.natsCpuSeconds)} µs`,
  );
  if (!side.runs.every((entry) => entry.stream !== undefined)) return;
  const ofStream = (read: (stream: StreamPhase) => number): number => medianOf(side, (entry) => read(entry.stream!));
  const retries = side.runs.reduce((sum, entry) => sum + entry.stream!.retries, 0);
  console.log(
    `${indent} stream: ${format(ofStream((stream) => stream.messages))} messages, ${format(ofStream((stream) => stream.bytes))} bytes` +
    ` (clobd_replication_*_total over the measured orders, ${side.runs[0]!.stream!.shards} shards),` +
    ` ${format(ofStream((stream) => measuredOrders / Math.max(1, stream.messages)), 1)} orders/message,` +
    ` ${format(ofStream((stream) => stream.bytes / measuredOrders))} bytes/order; caught up ${format(ofStream((stream) => stream.catchUpMs))} ms after the last answer; retries ${format(retries)}`,
  );
}

function printGoal(side: ReplicationSide, baseline: ReplicationSide, goal: number): void {
  const throughput = (entry: ReplicationRun): number => entry.run.ordersPerSecond;
  const ratio = medianOf(side, throughput) / medianOf(baseline, throughput);
  const rounds = side.runs.map((entry, round) => (throughput(entry) / throughput(baseline.runs[round]!)).toFixed(2));
  const latency = (read: (run: OrderRun) => number): string => (medianOf(side, (entry) => read(entry.run)) / medianOf(baseline, (entry) => read(entry.run))).toFixed(2);
  console.log(
    `  ${side.mode} / none: orders/s ${ratio.toFixed(2)}× (goal ≥ ${goal}: ${ratio >= goal ? 'PASS' : 'MISS'}; each round ${rounds.join(', ')})` +
    `  p50 ${latency((run) => run.p50Ms)}×  p99 ${latency((run) => run.p99Ms)}×`,
  );
}

export function printReplication(figures: ReplicationFigures): void {
  const { sizes, sides } = figures;
  if (figures.skipped !== undefined) {
    console.log(`\nReplication: skipped, ${figures.skipped}`);
    return;
  }
  console.log(
    `\nReplication: POST /order, ${format(sizes.measuredOrders)} signed durable orders per server over ${sizes.connections} connections (closed loop), ` +
    `${sizes.accounts} accounts, ${sizes.markets} markets; one nats-server (JetStream, R=1) on loopback; medians of ${sizes.rounds} alternating round(s)`,
  );
  for (const side of sides) printSide(side, sizes.measuredOrders);
  const bySide = (mode: Mode): ReplicationSide => sides.find((side) => side.mode === mode)!;
  printGoal(bySide('async'), bySide('none'), ASYNC_GOAL);
  printGoal(bySide('sync'), bySide('none'), SYNC_GOAL);
  if (figures.natsComplaints.length > 0) console.log(`  nats-server warned or failed:\n    ${figures.natsComplaints.join('\n    ')}`);
}

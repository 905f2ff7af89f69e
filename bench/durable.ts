// The durable runtime benchmark (issue 4): orders through the internal trading client into the
// matching workers with every answer committed to LMDB first, against the in-memory engine on
// the same commands; ack latency at half the peak; the SAB ring against postMessage; restart
// time with a million resting orders, after a clean stop and after kill -9.
//
//   node dist/bench/durable.js            full (several minutes)
//   node dist/bench/durable.js --quick    well under a minute, for CI
//   node dist/bench/durable.js --smoke    smaller still, for the A/B harness's quick mode
//   ... --json                            one line of figures (DurableReport) instead of the tables
import { SPIN_US } from '../engine/shard/protocol.js';
import { postBatched, postRoundTrip, ringBatched, ringRoundTrip, type BatchedThroughput, type RoundTrip } from './durable/ring.js';
import { measureRestart, type RestartFigures } from './durable/restart.js';
import { makeFlow, measureBaselines, measureShards, type Baselines, type ShardsFigures, type ThroughputSizes } from './durable/throughput.js';
import { format } from './support/format.js';
import { sizeOf, type BenchSize } from './support/size.js';

interface Sizes {
  readonly throughput: ThroughputSizes;
  readonly roundTrips: number;
  readonly batchedFrames: number;
  readonly restingOrders: number;
  readonly restingAccounts: number;
}

const SMOKE: Sizes = {
  throughput: { warmupRows: 2_000, timedRows: 5_000, latencyRowsMax: 5_000, latencySeconds: 0.5, inFlight: 1000, accounts: 100 },
  roundTrips: 2_000, batchedFrames: 100_000, restingOrders: 5_000, restingAccounts: 50,
};
const QUICK: Sizes = {
  throughput: { warmupRows: 5_000, timedRows: 20_000, latencyRowsMax: 20_000, latencySeconds: 1.5, inFlight: 2000, accounts: 300 },
  roundTrips: 10_000, batchedFrames: 500_000, restingOrders: 20_000, restingAccounts: 200,
};
const FULL: Sizes = {
  throughput: { warmupRows: 30_000, timedRows: 300_000, latencyRowsMax: 200_000, latencySeconds: 10, inFlight: 4000, accounts: 300 },
  roundTrips: 100_000, batchedFrames: 5_000_000, restingOrders: 1_000_000, restingAccounts: 200,
};
const SIZES: Record<BenchSize, Sizes> = { smoke: SMOKE, quick: QUICK, full: FULL };
/** Frames per batch in the batched ring figures: about what one shard batch drains under load. */
const RING_BATCH = 256;

function printThroughput(baselines: Baselines, rows: ShardsFigures[]): void {
  const engine = baselines.engine.commandsPerSecond;
  console.log('durable order throughput (closed loop), ratio to the in-memory engine on the same commands');
  console.log(`  engine in memory     ${format(engine).padStart(10)} cmd/s  1.000`);
  console.log(`  shard core in memory ${format(baselines.shardCore.commandsPerSecond).padStart(10)} cmd/s  ${format(baselines.shardCore.commandsPerSecond / engine, 3)}  (apply + sweep + answer written and decoded, no I/O)`);
  for (const { shards, peak } of rows) {
    console.log(
      `  durable SHARDS=${shards}     ${format(peak.ordersPerSecond).padStart(10)} cmd/s  ${format(peak.ordersPerSecond / engine, 3)}` +
      `  ${format(peak.framesCommitted / Math.max(1, peak.commits), 1)} cmd/commit, ${format(peak.commitMs / Math.max(1, peak.commits), 2)} ms/commit` +
      `, commit ${format((peak.commitMs / 1000 / peak.seconds / shards) * 100)} % of shard time` +
      `  (${format(peak.commands)} cmds, ${peak.rejectionMismatches} rejection mismatches, ${peak.failures} failures)`,
    );
  }
  console.log('ack latency, open loop at 50 % of the peak, from the scheduled send time');
  for (const { shards, latency } of rows) {
    console.log(
      `  SHARDS=${shards} at ${format(latency.ratePerSecond).padStart(7)}/s  p50 ${format(latency.p50Ms, 2)} ms  p99 ${format(latency.p99Ms, 2)} ms` +
      `  p99.9 ${format(latency.p999Ms, 2)} ms  max ${format(latency.maxMs, 2)} ms  (${format(latency.commands)} cmds, ${latency.failures} failures)`,
    );
  }
}

export interface RingFigures {
  readonly ring: RoundTrip;
  readonly ringNoSpin: RoundTrip;
  /** The reply awaited on the event loop, as the server's front end does. */
  readonly ringEventLoop: RoundTrip;
  readonly post: RoundTrip;
  readonly ringBatched: BatchedThroughput;
  readonly postBatched: BatchedThroughput;
}

async function measureRing(sizes: Sizes): Promise<RingFigures> {
  return {
    post: await postRoundTrip(sizes.roundTrips),
    ring: await ringRoundTrip(sizes.roundTrips, SPIN_US),
    ringNoSpin: await ringRoundTrip(sizes.roundTrips, 0),
    ringEventLoop: await ringRoundTrip(sizes.roundTrips, SPIN_US, true),
    postBatched: await postBatched(sizes.batchedFrames, RING_BATCH),
    ringBatched: await ringBatched(sizes.batchedFrames, RING_BATCH),
  };
}

function printRing(figures: RingFigures): void {
  const post = figures.post;
  console.log('round trip front end → worker → front end, one frame at a time, ratio to postMessage (p50)');
  for (const trip of [figures.post, figures.ring, figures.ringNoSpin, figures.ringEventLoop]) {
    console.log(`  ${trip.name.padEnd(56)} p50 ${format(trip.p50Us, 1).padStart(6)} µs  p99 ${format(trip.p99Us, 1).padStart(7)} µs  ${format(trip.p50Us / post.p50Us, 2)}×`);
  }
  console.log('batched command frames, encodeFrame → other thread → decodeFrame, ratio to postMessage');
  for (const batched of [figures.postBatched, figures.ringBatched]) {
    console.log(`  ${batched.name.padEnd(40)} ${format(batched.framesPerSecond).padStart(10)} frames/s  ${format(batched.framesPerSecond / figures.postBatched.framesPerSecond, 2)}×`);
  }
}

function printRestart(rows: RestartFigures[]): void {
  console.log('restart with resting orders (SHARDS=1): startServer end to end; the shard\'s snapshot load + restore and journal replay');
  for (const row of rows) {
    const { recovery, fill } = row;
    console.log(
      `  after ${row.mode === 'stop' ? 'clean stop' : 'SIGKILL   '} ${format(row.ordersLive).padStart(9)} resting  start ${format(row.startSeconds, 2)} s` +
      `  (load ${format(recovery.loadMs / 1000, 2)} s, replay ${format(recovery.replayedFrames)} frames in ${format(recovery.replayMs / 1000, 2)} s)` +
      `, other ${format(row.startSeconds - (recovery.loadMs + recovery.replayMs) / 1000, 2)} s` +
      `  state hash ${row.hashEqual ? 'equal' : 'DIFFERS'}; fill ${format(fill.fillSeconds, 1)} s` +
      (row.mode === 'stop' ? `, stop ${format(fill.stopSeconds, 2)} s` : ''),
    );
  }
}

interface Figures {
  readonly ring: RingFigures;
  readonly shards: ShardsFigures[];
  readonly restarts: RestartFigures[];
}

/** What `--json` prints: every figure the tables show, for machines (the A/B harness, bench/ab.ts). */
export interface DurableReport extends Figures {
  readonly suite: 'durable';
  readonly size: BenchSize;
  readonly baselines: Baselines;
}

function printGoals(figures: Figures, sizes: Sizes): void {
  const mark = (ok: boolean): string => (ok ? 'met ' : 'MISS');
  const best = Math.max(...figures.shards.map((row) => row.peak.ordersPerSecond));
  const rtt = figures.ring.ring.p50Us / figures.ring.post.p50Us;
  const batched = figures.ring.ringBatched.framesPerSecond;
  const restartScale = sizes.restingOrders === 1_000_000 ? '' : ` (this run: ${format(sizes.restingOrders)} resting; the goal is for 10^6)`;
  console.log('goals');
  console.log(`  ${mark(best >= 100_000)} ≥ 100,000 durable cmd/s through the runtime: ${format(best)} (best of SHARDS=1, 2)`);
  console.log(`  ${mark(rtt <= 0.3)} ring round trip p50 ≤ 0.3× postMessage: ${format(rtt, 2)}× (${format(figures.ring.ring.p50Us, 1)} µs vs ${format(figures.ring.post.p50Us, 1)} µs)`);
  console.log(`  ${mark(batched >= 2_000_000)} ≥ 2,000,000 cmd/s through the ring, batched: ${format(batched)}`);
  for (const row of figures.restarts) {
    const ok = row.startSeconds <= 5 && row.hashEqual;
    console.log(`  ${mark(ok)} restart after ${row.mode === 'stop' ? 'clean stop' : 'SIGKILL'} ≤ 5 s, same state hash: ${format(row.startSeconds, 2)} s${restartScale}`);
  }
}

async function main(): Promise<void> {
  const size = sizeOf(process.argv);
  const asJson = process.argv.includes('--json');
  const sizes = SIZES[size];
  if (!asJson) console.log(`clobd durable runtime benchmark (${size}), node ${process.version}`);
  const ring = await measureRing(sizes);
  if (!asJson) printRing(ring);
  const flow = makeFlow(sizes.throughput);
  const baselines = measureBaselines(flow, sizes.throughput);
  const rows: ShardsFigures[] = [];
  for (const shards of [1, 2]) rows.push(await measureShards(shards, flow, sizes.throughput));
  if (!asJson) printThroughput(baselines, rows);
  const restarts: RestartFigures[] = [];
  for (const mode of ['stop', 'kill'] as const) restarts.push(await measureRestart(sizes.restingOrders, sizes.restingAccounts, mode));
  if (asJson) {
    console.log(JSON.stringify({ suite: 'durable', size, ring, baselines, shards: rows, restarts } satisfies DurableReport));
    return;
  }
  printRestart(restarts);
  printGoals({ ring, shards: rows, restarts }, sizes);
}

await main();

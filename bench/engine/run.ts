// The engine benchmark: the three seeded flows through clobd (the whole engine: validation,
// matching, ledger and events) and through nodejs-order-book as the baseline, in the same
// process, then the cancel-depth micro benchmarks. Prints commands/s, latency percentiles, GC
// counts and heap deltas per engine and flow, the ratios, and how they stand against the goals.
// clobd then runs each flow once more on fresh strings, as the server's decoder makes them
// (Flow.decodingView); the goals are judged on the pools' strings, as before.
//
//   node dist/bench/engine/run.js            full: 10^7 commands per flow for clobd
//   node dist/bench/engine/run.js --quick    a few seconds, for CI
//   node dist/bench/engine/run.js --smoke    smaller still, for the A/B harness's quick mode
//   ... --json                               one line of figures (EngineReport) instead of the tables
import { BaselineAdapter, ClobdAdapter, type BookAdapter } from './adapters.js';
import { FlowKind, generateFlow, makeAccounts, makeIds, type Flow } from './flows.js';
import { CANCEL_DEPTH, CANCEL_LEVELS, runCancelDepth, type CancelDepthResult } from './micro.js';
import {
  DECODE_WINDOW_ROWS, measureLatency, measureThroughput, replayPrefill, replayRows, stopGcObserver, type LatencyResult,
  type ThroughputResult,
} from './throughput.js';
import { format } from '../support/format.js';
import { sizeOf, type BenchSize } from '../support/size.js';

interface Sizes {
  /** Timed commands per flow for clobd (throughput and latency passes each). */
  readonly clobd: number;
  /** Timed commands per flow for the baseline; its deep-book flow is slow by design. */
  readonly baseline: Record<FlowKind, number>;
  readonly warmup: number;
  readonly idPool: number;
  readonly microMs: number;
}

const SMOKE: Sizes = {
  clobd: 20_000, baseline: { deep: 1_000, normal: 5_000, fast: 5_000 }, warmup: 10_000, idPool: 1 << 16, microMs: 20,
};
const QUICK: Sizes = {
  clobd: 100_000, baseline: { deep: 5_000, normal: 20_000, fast: 20_000 }, warmup: 30_000, idPool: 1 << 18, microMs: 100,
};
const FULL: Sizes = {
  clobd: 10_000_000, baseline: { deep: 200_000, normal: 1_000_000, fast: 1_000_000 }, warmup: 500_000, idPool: 1 << 22,
  microMs: 2000,
};

const ACCOUNTS = 500;
const SEED = 42;

const SIZES: Record<BenchSize, Sizes> = { smoke: SMOKE, quick: QUICK, full: FULL };

export interface EngineFigures {
  readonly throughput: ThroughputResult;
  readonly latency: LatencyResult;
  readonly eventsPerCommand: number;
}

export interface FlowFigures {
  readonly flow: FlowKind;
  readonly clobd: EngineFigures;
  readonly baseline: EngineFigures;
  /** clobd on the same rows with fresh strings, as the server's decoder makes them. */
  readonly decoded: ThroughputResult;
}

async function measure(makeAdapter: () => BookAdapter, flow: Flow, rows: number): Promise<EngineFigures> {
  const timed = makeAdapter();
  replayPrefill(timed, flow);
  const eventsBefore = timed.events;
  const throughput = await measureThroughput(timed, flow, rows);
  const eventsPerCommand = (timed.events - eventsBefore) / throughput.commands;
  const latencyAdapter = makeAdapter();
  replayPrefill(latencyAdapter, flow);
  return { throughput, latency: measureLatency(latencyAdapter, flow, rows), eventsPerCommand };
}

/** JIT warm-up on a flow of the same kind with another seed, run and thrown away. */
function warmUp(kind: FlowKind, sizes: Sizes, ids: string[], accounts: string[]): void {
  const flow = generateFlow(kind, sizes.warmup, SEED + 1000, ids, accounts, (f) => new ClobdAdapter(f));
  const adapters: [BookAdapter, number][] = [
    [new ClobdAdapter(flow), sizes.warmup], [new BaselineAdapter(), Math.min(sizes.warmup, sizes.baseline[kind])],
  ];
  for (const [adapter, rows] of adapters) replayRows(adapter, flow, 0, Math.min(flow.length, flow.prefill + rows));
}

async function runFlow(kind: FlowKind, sizes: Sizes, ids: string[], accounts: string[]): Promise<FlowFigures> {
  warmUp(kind, sizes, ids, accounts);
  const flow = generateFlow(kind, sizes.clobd, SEED, ids, accounts, (f) => new ClobdAdapter(f));
  const clobd = await measure(() => new ClobdAdapter(flow), flow, sizes.clobd);
  const baseline = await measure(() => new BaselineAdapter(), flow, sizes.baseline[kind]);
  // After both, so the adapters' code is compiled on the pools' strings as before.
  const view = flow.decodingView(DECODE_WINDOW_ROWS);
  const onView = new ClobdAdapter(view);
  replayPrefill(onView, view);
  const decoded = await measureThroughput(onView, view, sizes.clobd);
  return { flow: kind, clobd, baseline, decoded };
}

function printFlow(figures: FlowFigures): void {
  const row = (name: string, f: EngineFigures): string =>
    `  ${name.padEnd(18)} ${format(f.throughput.commandsPerSecond).padStart(12)} cmd/s` +
    `  p50 ${format(f.latency.p50Ns).padStart(7)} ns  p99 ${format(f.latency.p99Ns).padStart(8)} ns` +
    `  p99.9 ${format(f.latency.p999Ns).padStart(9)} ns  gc ${String(f.throughput.gcCount).padStart(4)}` +
    `  heap Δ ${format(f.throughput.heapDeltaBytes / 1024 / 1024, 1).padStart(7)} MB` +
    `  ${format(f.eventsPerCommand, 1)} events/cmd  (${format(f.throughput.commands)} commands)`;
  console.log(`flow ${figures.flow}`);
  console.log(row('clobd', figures.clobd));
  console.log(row('nodejs-order-book', figures.baseline));
  const ratio = figures.clobd.throughput.commandsPerSecond / figures.baseline.throughput.commandsPerSecond;
  console.log(`  ratio clobd / baseline: ${format(ratio, 1)}×`);
  const decoded = figures.decoded;
  console.log(
    `  clobd, server strings ${format(decoded.commandsPerSecond).padStart(12)} cmd/s` +
    `  ${format(decoded.commandsPerSecond / figures.clobd.throughput.commandsPerSecond, 2)}× of the line above` +
    `  (every row's id and account a fresh string, as the server's decoder makes them; ` +
    `gc ${decoded.gcCount}, the decoding's)`,
  );
}

function printCancelDepth(results: readonly CancelDepthResult[]): void {
  console.log(`cancel cost by depth (${CANCEL_LEVELS} levels, ns per cancel)`);
  for (const r of results) {
    console.log(`  ${r.engine.padEnd(18)} depth 1 of ${CANCEL_DEPTH}: ${r.headNs.toFixed(0).padStart(7)}  depth ${CANCEL_DEPTH} of ${CANCEL_DEPTH}: ` +
      `${r.tailNs.toFixed(0).padStart(7)}  alone in its level: ${r.singleNs.toFixed(0).padStart(7)}` +
      `  depth ${CANCEL_DEPTH} / depth 1: ${r.tailOverHead.toFixed(2)}×  deep level / single: ${r.deepOverSingle.toFixed(2)}×`);
  }
}

function printGoals(flows: FlowFigures[], depth: CancelDepthResult[]): void {
  const worst = Math.min(...flows.map((f) => f.clobd.throughput.commandsPerSecond));
  const deep = flows.find((f) => f.flow === 'deep');
  const deepRatio = deep === undefined ? 0 : deep.clobd.throughput.commandsPerSecond / deep.baseline.throughput.commandsPerSecond;
  const clobdDepth = depth.find((d) => d.engine === 'clobd');
  const gcTotal = flows.reduce((sum, f) => sum + f.clobd.throughput.gcCount, 0);
  const commands = flows.reduce((sum, f) => sum + f.clobd.throughput.commands, 0);
  const gcPerMillion = (gcTotal * 1_000_000) / commands;
  const mark = (ok: boolean): string => (ok ? 'met ' : 'MISS');
  console.log('goals');
  console.log(`  ${mark(worst >= 2_000_000)} worst flow ≥ 2,000,000 cmd/s: ${format(worst)}`);
  console.log(`  ${mark(deepRatio >= 100)} deep book ≥ 100× baseline: ${format(deepRatio, 1)}×`);
  if (clobdDepth !== undefined) {
    console.log(`  ${mark(clobdDepth.tailOverHead <= 2)} cancel at depth 350 ≤ 2× depth 1: ${format(clobdDepth.tailOverHead, 2)}×`);
  }
  // A young-generation collection needs megabytes of garbage; fewer than two per million
  // commands means the hot path allocates nothing beyond a rare stray object.
  console.log(`  ${mark(gcPerMillion < 2)} no allocation on the hot path: ${gcTotal} collections in ` +
    `${format(commands)} timed commands (${format(gcPerMillion, 2)} per million)`);
}

/** What `--json` prints: every figure the tables show, for machines (the A/B harness, bench/ab.ts). */
export interface EngineReport {
  readonly suite: 'engine';
  readonly size: BenchSize;
  readonly flows: readonly FlowFigures[];
  readonly depth: readonly CancelDepthResult[];
}

async function main(): Promise<void> {
  const size = sizeOf(process.argv);
  const asJson = process.argv.includes('--json');
  const sizes = SIZES[size];
  if (!asJson) console.log(`clobd engine benchmark (${size}), node ${process.version}`);
  const ids = makeIds(sizes.idPool, SEED);
  const accounts = makeAccounts(ACCOUNTS);
  const flows: FlowFigures[] = [];
  for (const kind of [FlowKind.deep, FlowKind.normal, FlowKind.fast]) {
    const figures = await runFlow(kind, sizes, ids, accounts);
    if (!asJson) printFlow(figures);
    flows.push(figures);
  }
  const depth = await runCancelDepth(sizes.microMs);
  stopGcObserver();
  if (asJson) {
    console.log(JSON.stringify({ suite: 'engine', size, flows, depth } satisfies EngineReport));
    return;
  }
  printCancelDepth(depth);
  printGoals(flows, depth);
}

await main();

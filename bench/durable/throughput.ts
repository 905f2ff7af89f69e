// Durable throughput and latency of one SHARDS setting: a fresh DATA_DIR, the flow's accounts
// funded, a warm-up, the closed loop (peak), then the open loop at half the peak.
import { makeAccounts } from '../engine/flows.js';
import { demoMarketSpecs, generateFlow, measureEngine, measureShardCore, type BaselineFigures, type OrderFlow } from './flow.js';
import { closedLoop, commitsBetween, fundAccounts, openLoop, startRuntime, type CommitFigures, type LoadFigures } from './runtime.js';

export interface ThroughputSizes {
  readonly warmupRows: number;
  readonly timedRows: number;
  readonly latencyRowsMax: number;
  readonly latencySeconds: number;
  readonly inFlight: number;
  readonly accounts: number;
}

export interface ShardsFigures {
  readonly shards: number;
  readonly peak: LoadFigures & CommitFigures & { readonly ordersPerSecond: number };
  readonly latency: LoadFigures & { readonly ratePerSecond: number; readonly p50Ms: number; readonly p99Ms: number; readonly p999Ms: number; readonly maxMs: number };
}

export interface Baselines {
  readonly engine: BaselineFigures;
  readonly shardCore: BaselineFigures;
}

const SEED = 7;

export function makeFlow(sizes: ThroughputSizes): OrderFlow {
  return generateFlow(sizes.warmupRows + sizes.timedRows + sizes.latencyRowsMax, SEED, demoMarketSpecs(), makeAccounts(sizes.accounts));
}

export function measureBaselines(flow: OrderFlow, sizes: ThroughputSizes): Baselines {
  const to = sizes.warmupRows + sizes.timedRows;
  // Twice each, keeping the better: the first pass also warms the JIT for the second.
  const best = (measure: () => BaselineFigures): BaselineFigures => {
    const first = measure();
    const second = measure();
    return first.commandsPerSecond >= second.commandsPerSecond ? first : second;
  };
  return {
    engine: best(() => measureEngine(flow, sizes.warmupRows, to)),
    shardCore: best(() => measureShardCore(flow, sizes.warmupRows, to)),
  };
}

export async function measureShards(shards: number, flow: OrderFlow, sizes: ThroughputSizes): Promise<ShardsFigures> {
  const runtime = await startRuntime(shards);
  try {
    const client = runtime.server.trading.client;
    fundAccounts(client, flow.accounts);
    await closedLoop(client, flow, 0, sizes.warmupRows, sizes.inFlight);
    const timedTo = sizes.warmupRows + sizes.timedRows;
    const before = await client.statuses();
    const load = await closedLoop(client, flow, sizes.warmupRows, timedTo, sizes.inFlight);
    const after = await client.statuses();
    const ordersPerSecond = load.commands / load.seconds;
    const peak = { ...load, ...commitsBetween(before, after), ordersPerSecond };
    const ratePerSecond = Math.round(ordersPerSecond / 2);
    const latencyRows = Math.min(sizes.latencyRowsMax, Math.round(ratePerSecond * sizes.latencySeconds));
    const open = await openLoop(client, flow, timedTo, timedTo + latencyRows, ratePerSecond);
    const ms = (percentile: number): number => open.histogram.percentile(percentile) / 1000;
    const latency = { ...open, ratePerSecond, p50Ms: ms(50), p99Ms: ms(99), p999Ms: ms(99.9), maxMs: open.histogram.max / 1000 };
    return { shards, peak, latency };
  } finally {
    await runtime.close();
  }
}

// Made-up reports of the durable and engine benchmarks, of their real types, for the A/B
// harness's tests: clean runs, which a test may spoil.
import type { DurableReport } from '../../bench/durable.js';
import type { EngineFigures, EngineReport } from '../../bench/engine/run.js';

export function durableReport(): DurableReport {
  const trip = (name: string) => ({ name, p50Us: 10, p99Us: 50 });
  const load = { commands: 1000, seconds: 1, rejectionMismatches: 0, failures: 0 };
  const shards = [1, 2].map((count) => ({
    shards: count,
    peak: { ...load, commits: 10, framesCommitted: 1000, commitMs: 5, ordersPerSecond: 50_000 },
    latency: { ...load, ratePerSecond: 25_000, p50Ms: 1, p99Ms: 5, p999Ms: 8, maxMs: 9 },
  }));
  const fill = { stateHash: 'h', ordersLive: 5000, fillSeconds: 1, failures: 0, rejected: 0, stopSeconds: 0.1 };
  const recovery = { lastBatch: 9, snapshotBatch: 9, replayedFrames: 0, loadMs: 100, replayMs: 0 };
  return {
    suite: 'durable', size: 'smoke',
    ring: {
      post: trip('postMessage'), ring: trip('ring, spin'), ringNoSpin: trip('ring, no spin'), ringEventLoop: trip('ring, waitAsync'),
      postBatched: { name: 'postMessage, batches', framesPerSecond: 1e6 }, ringBatched: { name: 'ring, batches', framesPerSecond: 2e6 },
    },
    baselines: { engine: { commands: 1000, commandsPerSecond: 1e6 }, shardCore: { commands: 1000, commandsPerSecond: 5e5 } },
    shards,
    restarts: (['stop', 'kill'] as const).map((mode) => ({ mode, fill, startSeconds: 0.5, recovery, ordersLive: 5000, hashEqual: true })),
  };
}

export function engineReport(): EngineReport {
  const engine = (commandsPerSecond: number): EngineFigures => ({
    throughput: { commands: 1000, seconds: 1, commandsPerSecond, gcCount: 0, gcMs: 0, heapDeltaBytes: 0, heapUsedAfterBytes: 0 },
    latency: { p50Ns: 500, p99Ns: 2000, p999Ns: 9000, maxNs: 20_000 },
    eventsPerCommand: 3,
  });
  return {
    suite: 'engine', size: 'smoke',
    flows: (['deep', 'normal', 'fast'] as const).map((flow) => ({ flow, clobd: engine(2e6), baseline: engine(4e4), decoded: engine(1.5e6).throughput })),
    depth: ['clobd', 'nodejs-order-book'].map((name) => ({ engine: name, headNs: 100, tailNs: 110, singleNs: 90, tailOverHead: 1.1, deepOverSingle: 1.2 })),
  };
}

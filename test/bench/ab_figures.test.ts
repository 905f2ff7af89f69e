// The figures the A/B harness reads from the durable and engine benchmarks' --json reports:
// every throughput and latency their tables print, once each, with the right direction, and the
// code that is not clobd's marked as a control. The reports here are made up, of the real types.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { figuresOf, type Figure } from '../../bench/ab/figures.js';
import type { DurableReport } from '../../bench/durable.js';
import type { EngineFigures, EngineReport } from '../../bench/engine/run.js';

function durableReport(): DurableReport {
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

function engineReport(): EngineReport {
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

function assertWellFormed(figures: readonly Figure[]): void {
  assert.equal(new Set(figures.map((figure) => figure.name)).size, figures.length, 'every name once');
  for (const figure of figures) {
    assert.ok(Number.isFinite(figure.value), figure.name);
    const rate = figure.unit.endsWith('/s');
    assert.equal(figure.better, rate ? 'higher' : 'lower', `${figure.name}: ${figure.unit} is better ${rate ? 'higher' : 'lower'}`);
  }
}

test('the durable report gives every ring, throughput, latency and restart figure, postMessage as the control', () => {
  const figures = figuresOf(JSON.parse(JSON.stringify(durableReport())));
  assertWellFormed(figures);
  assert.deepEqual(figures.filter((figure) => figure.control).map((figure) => figure.name), [
    'round trip p50, postMessage', 'round trip p99, postMessage', 'postMessage, batches',
  ]);
  const names = figures.map((figure) => figure.name);
  for (const name of ['durable SHARDS=1', 'durable SHARDS=2', 'ack latency SHARDS=2 at half its peak, p99.9', 'engine in memory', 'ring, batches',
    'restart after SIGKILL: journal replay', 'restart after clean stop: stop']) {
    assert.ok(names.includes(name), name);
  }
  assert.equal(figures.find((figure) => figure.name === 'durable SHARDS=1')?.value, 50_000);
});

test('the engine report gives every flow\'s rates and percentiles and the cancel costs, nodejs-order-book as the control', () => {
  const figures = figuresOf(JSON.parse(JSON.stringify(engineReport())));
  assertWellFormed(figures);
  const controls = figures.filter((figure) => figure.control);
  assert.ok(controls.length > 0 && controls.every((figure) => figure.name.includes('nodejs-order-book')));
  assert.ok(figures.filter((figure) => !figure.control).every((figure) => !figure.name.includes('nodejs-order-book')));
  assert.equal(figures.find((figure) => figure.name === 'deep: clobd')?.value, 2e6);
  assert.equal(figures.find((figure) => figure.name === 'fast: clobd, server strings')?.value, 1.5e6);
  assert.equal(figures.find((figure) => figure.name === 'cancel at the tail of a deep level, clobd')?.value, 110);
});

test('a report of another suite is refused', () => {
  assert.throws(() => figuresOf({ suite: 'catalog' }), /not a durable or engine report/);
  assert.throws(() => figuresOf(null), /not a durable or engine report/);
});

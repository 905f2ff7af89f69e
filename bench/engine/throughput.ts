// The throughput runner: replays a flow through an adapter and measures commands per second (one
// timed loop over the rows, in chunks through replayRows, nothing else in it), per-command latency
// percentiles (a separate pass that times every command into a perf_hooks histogram), garbage
// collections during the timed loop (PerformanceObserver 'gc' entries) and the heap before and
// after it.
import { createHistogram, performance, PerformanceObserver } from 'node:perf_hooks';
import { assert } from '../../engine/assert.js';
import type { BookAdapter } from './adapters.js';
import type { Flow } from './flows.js';
import { collectGarbage } from '../support/collect.js';

let gcCount = 0;
let gcMs = 0;
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcCount += 1;
    gcMs += entry.duration;
  }
});
gcObserver.observe({ entryTypes: ['gc'] });

/**
 * Lets the observer deliver the gc entries of the code that just ran. Entries arrive
 * asynchronously and in batches, so one turn of the event loop is not always enough.
 */
async function flushGcEntries(): Promise<void> {
  for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setTimeout(resolve, 20));
}

export interface ThroughputResult {
  readonly commands: number;
  readonly seconds: number;
  readonly commandsPerSecond: number;
  readonly gcCount: number;
  readonly gcMs: number;
  /** heapUsed after the loop minus before it (no collection in between unless gcCount > 0). */
  readonly heapDeltaBytes: number;
  readonly heapUsedAfterBytes: number;
}

export interface LatencyResult {
  readonly p50Ns: number;
  readonly p99Ns: number;
  readonly p999Ns: number;
  readonly maxNs: number;
}

/**
 * The one loop every replay runs through: warm-ups, prefills and the timed loop (in chunks), for
 * both engines. The timed loop then runs code its warm-up optimized from its first command. It
 * used to be a loop of its own in measureThroughput, first run at the timed loop's start: V8
 * optimized it there (on-stack replacement, with the whole engine inlined into it), and the compile
 * queued on the one background thread behind others took up to ~0.8 s of clobd's timed 4 to 5 s
 * in slower code (the baseline, measured after clobd, found the loop already optimized).
 */
export function replayRows(adapter: BookAdapter, flow: Flow, from: number, to: number): void {
  for (let row = from; row < to; row += 1) adapter.execute(flow, row);
}

/**
 * Rows per call of replayRows in the timed loop: should V8 drop the loop's optimized code during
 * it (a collection can invalidate it), the next call picks up the recompiled code, where one long
 * call would wait for on-stack replacement. 2^16 rows are tens of milliseconds; the calls cost
 * nothing measurable.
 */
const TIMED_CHUNK_ROWS = 1 << 16;

/**
 * Rows a decoding view (Flow.decodingView) decodes at a time, just before they run: 1 024 rows'
 * fresh strings are ~150 KB, so they are still in the core's cache when the engine reads them,
 * as a decoder's are.
 */
export const DECODE_WINDOW_ROWS = 1024;

/** Replays rows [0, prefill) untimed (a decoding view's decoded window by window). */
export function replayPrefill(adapter: BookAdapter, flow: Flow): void {
  if (flow.decodes()) replayDecoded(adapter, flow, 0, flow.prefill);
  else replayRows(adapter, flow, 0, flow.prefill);
}

/**
 * Times rows [prefill, prefill + rows). On a decoding view, each window is decoded untimed and
 * only its replay is timed: the decoding is the front end's work, and its garbage is collected
 * between windows (counted in gcCount, which then says nothing about the engine).
 */
export async function measureThroughput(adapter: BookAdapter, flow: Flow, rows: number): Promise<ThroughputResult> {
  const end = Math.min(flow.length, flow.prefill + rows);
  collectGarbage();
  await flushGcEntries();
  const gcBefore = gcCount;
  const gcMsBefore = gcMs;
  const heapBefore = process.memoryUsage().heapUsed;
  const elapsedMs = flow.decodes() ? replayDecoded(adapter, flow, flow.prefill, end) : replayTimed(adapter, flow, end);
  const seconds = elapsedMs / 1000;
  const heapAfter = process.memoryUsage().heapUsed;
  await flushGcEntries();
  const commands = end - flow.prefill;
  return {
    commands, seconds, commandsPerSecond: commands / seconds, gcCount: gcCount - gcBefore, gcMs: gcMs - gcMsBefore,
    heapDeltaBytes: heapAfter - heapBefore, heapUsedAfterBytes: heapAfter,
  };
}

/** Milliseconds to replay rows [prefill, end) in chunks of TIMED_CHUNK_ROWS. */
function replayTimed(adapter: BookAdapter, flow: Flow, end: number): number {
  const started = performance.now();
  for (let from = flow.prefill; from < end; from += TIMED_CHUNK_ROWS) {
    replayRows(adapter, flow, from, Math.min(end, from + TIMED_CHUNK_ROWS));
  }
  return performance.now() - started;
}

/**
 * Replays rows [start, end) of a decoding view, each window decoded just before it runs; returns
 * the milliseconds the replays took, the decoding left out.
 */
function replayDecoded(adapter: BookAdapter, view: Flow, start: number, end: number): number {
  let elapsed = 0;
  for (let from = start; from < end; from += DECODE_WINDOW_ROWS) {
    const to = Math.min(end, from + DECODE_WINDOW_ROWS);
    view.decodeRows(from, to);
    const started = performance.now();
    replayRows(adapter, view, from, to);
    elapsed += performance.now() - started;
  }
  return elapsed;
}

export function measureLatency(adapter: BookAdapter, flow: Flow, rows: number): LatencyResult {
  assert(!flow.decodes(), 'measureLatency: a flow, not a decoding view (its rows would run undecoded)');
  const end = Math.min(flow.length, flow.prefill + rows);
  const histogram = createHistogram();
  for (let row = flow.prefill; row < end; row += 1) {
    const started = performance.now();
    adapter.execute(flow, row);
    const nanoseconds = Math.round((performance.now() - started) * 1e6);
    histogram.record(nanoseconds > 0 ? nanoseconds : 1);
  }
  return {
    p50Ns: histogram.percentile(50), p99Ns: histogram.percentile(99), p999Ns: histogram.percentile(99.9),
    maxNs: histogram.max,
  };
}

export function stopGcObserver(): void {
  gcObserver.disconnect();
}

// The figures of one benchmark run, flattened from its `--json` report: every throughput and
// latency the benchmark's tables print, each with its unit and which way is better, so the A/B
// harness can take medians and ratios without knowing a report's shape. Figures of code that is
// not clobd's (nodejs-order-book, postMessage) are controls: the code does not change between
// the sides, so their B/A is how much the machine drifted between the two sides' runs.
import type { DurableReport } from '../durable.js';
import type { EngineReport } from '../engine/run.js';

export type Better = 'higher' | 'lower';

export interface Figure {
  /** Unique within its benchmark. */
  readonly name: string;
  readonly unit: string;
  readonly better: Better;
  readonly control: boolean;
  readonly value: number;
}

const figure = (name: string, unit: string, better: Better, value: number, control = false): Figure => ({ name, unit, better, control, value });

export function durableFigures(report: DurableReport): Figure[] {
  const { ring, baselines } = report;
  const figures: Figure[] = [];
  for (const trip of [ring.post, ring.ring, ring.ringNoSpin, ring.ringEventLoop]) {
    const control = trip === ring.post;
    figures.push(figure(`round trip p50, ${trip.name}`, 'µs', 'lower', trip.p50Us, control));
    figures.push(figure(`round trip p99, ${trip.name}`, 'µs', 'lower', trip.p99Us, control));
  }
  figures.push(figure(ring.postBatched.name, 'frames/s', 'higher', ring.postBatched.framesPerSecond, true));
  figures.push(figure(ring.ringBatched.name, 'frames/s', 'higher', ring.ringBatched.framesPerSecond));
  figures.push(figure('engine in memory', 'cmd/s', 'higher', baselines.engine.commandsPerSecond));
  figures.push(figure('shard core in memory', 'cmd/s', 'higher', baselines.shardCore.commandsPerSecond));
  for (const { shards, peak } of report.shards) figures.push(figure(`durable SHARDS=${shards}`, 'cmd/s', 'higher', peak.ordersPerSecond));
  for (const { shards, latency } of report.shards) {
    const at = `ack latency SHARDS=${shards} at half its peak`;
    figures.push(figure(`${at}, p50`, 'ms', 'lower', latency.p50Ms));
    figures.push(figure(`${at}, p99`, 'ms', 'lower', latency.p99Ms));
    figures.push(figure(`${at}, p99.9`, 'ms', 'lower', latency.p999Ms));
    figures.push(figure(`${at}, max`, 'ms', 'lower', latency.maxMs));
  }
  for (const { mode, startSeconds, recovery, fill } of report.restarts) {
    const after = mode === 'stop' ? 'restart after clean stop' : 'restart after SIGKILL';
    figures.push(figure(`${after}: start`, 's', 'lower', startSeconds));
    figures.push(figure(`${after}: snapshot load`, 's', 'lower', recovery.loadMs / 1000));
    if (mode === 'kill') figures.push(figure(`${after}: journal replay`, 's', 'lower', recovery.replayMs / 1000));
    figures.push(figure(`${after}: fill of the resting orders`, 's', 'lower', fill.fillSeconds));
    if (mode === 'stop') figures.push(figure(`${after}: stop`, 's', 'lower', fill.stopSeconds));
  }
  return figures;
}

export function engineFigures(report: EngineReport): Figure[] {
  const figures: Figure[] = [];
  for (const { flow, clobd, baseline, decoded } of report.flows) {
    for (const [name, engine, control] of [['clobd', clobd, false], ['nodejs-order-book', baseline, true]] as const) {
      figures.push(figure(`${flow}: ${name}`, 'cmd/s', 'higher', engine.throughput.commandsPerSecond, control));
      figures.push(figure(`${flow}: ${name} p50`, 'ns', 'lower', engine.latency.p50Ns, control));
      figures.push(figure(`${flow}: ${name} p99`, 'ns', 'lower', engine.latency.p99Ns, control));
      figures.push(figure(`${flow}: ${name} p99.9`, 'ns', 'lower', engine.latency.p999Ns, control));
    }
    figures.push(figure(`${flow}: clobd, server strings`, 'cmd/s', 'higher', decoded.commandsPerSecond));
  }
  for (const { engine, headNs, tailNs, singleNs } of report.depth) {
    const control = engine !== 'clobd';
    figures.push(figure(`cancel at the head of a deep level, ${engine}`, 'ns', 'lower', headNs, control));
    figures.push(figure(`cancel at the tail of a deep level, ${engine}`, 'ns', 'lower', tailNs, control));
    figures.push(figure(`cancel alone in its level, ${engine}`, 'ns', 'lower', singleNs, control));
  }
  return figures;
}

/** The figures of a report either benchmark printed with `--json`. */
export function figuresOf(report: unknown): Figure[] {
  const suite = (report as { suite?: unknown } | null)?.suite;
  if (suite === 'durable') return durableFigures(report as DurableReport);
  if (suite === 'engine') return engineFigures(report as EngineReport);
  throw new Error(`not a durable or engine report: suite ${String(suite)}`);
}

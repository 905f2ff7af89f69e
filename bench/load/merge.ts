// One row per load from every generator's figures. Latencies merge as histograms (each
// generator records every answer into its own; `add` sums their buckets), so a merged p99 is the
// p99 of all answers, never an average of the generators' p99s. Counts add up; a load's duration
// is the longest generator's, so its rate is every answer over the wall time the run took.
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { errorsText, LIVE_COUNTERS, summarize, type LatencySummary, type LiveTally } from './client.js';
import { WS_COUNTERS, WS_ENDED, WS_FRAMES, type HttpLoadName, type HttpOutcome, type WsOutcome, type WsTally } from './parts.js';

export interface HttpFigures {
  /** Requests answered. */
  readonly requests: number;
  readonly sent: number;
  /** Open loop: requests not sent because too many were waiting for a connection. */
  readonly skipped: number;
  readonly durationMs: number;
  readonly requestsPerSecond: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  /** Answers that are not 2xx, and socket errors. */
  readonly errors: number;
  readonly socketErrors: number;
  /** The start of the first body of each status that is not 2xx. */
  readonly errorSamples: Readonly<Record<string, string>>;
  /** Requests answered, by generator. */
  readonly perWorker: readonly number[];
  readonly latency: LatencySummary;
  readonly sendLag: LatencySummary;
}

export interface HttpRow {
  readonly scenario: HttpLoadName;
  readonly workers: number;
  /** When the first generator started sending (milliseconds since the epoch). */
  readonly startedAtMs: number;
  /** Signed orders: when the last generator finished signing (milliseconds since the epoch). */
  readonly signedAtMs?: number;
  readonly result: HttpFigures;
}

export interface WsRow {
  readonly scenario: 'ws';
  readonly workers: number;
  readonly startedAtMs: number;
  readonly subscribers: number;
  /** Messages delivered to all subscribers while measuring. */
  readonly delivered: number;
  readonly deliveredPerSecond: number;
  /** Messages the sampled subscribers timed (their `price_change` messages). */
  readonly timed: number;
  /** Subscribers closed while measuring, and by close code. */
  readonly closed: number;
  readonly closeCodes: Readonly<Record<string, number>>;
  readonly latency: { readonly p50Ms: number; readonly p90Ms: number; readonly p99Ms: number; readonly maxMs: number };
}

export type Row = HttpRow | WsRow;

function mergeHistograms(histograms: readonly RecordableHistogram[]): RecordableHistogram {
  const merged = createHistogram();
  for (const histogram of histograms) merged.add(histogram);
  return merged;
}

function addCounts(into: Record<string, number>, counts: Readonly<Record<string, number>>): void {
  for (const [key, count] of Object.entries(counts)) into[key] = (into[key] ?? 0) + count;
}

/** One row of an HTTP load from each generator's outcome and tally (the same order). */
export function mergeHttp(name: HttpLoadName, outcomes: readonly HttpOutcome[], tallies: readonly LiveTally[]): HttpRow {
  const statusCounts: Record<string, number> = {};
  const errorSamples: Record<string, string> = {};
  let requests = 0;
  let sent = 0;
  let skipped = 0;
  let failed = 0;
  let socketErrors = 0;
  let durationMs = 0;
  for (const { result } of outcomes) {
    requests += result.requests;
    sent += result.sent;
    skipped += result.skipped;
    failed += result.failed;
    socketErrors += result.errors;
    durationMs = Math.max(durationMs, result.durationMs);
    addCounts(statusCounts, result.statusCounts);
    for (const [status, body] of Object.entries(result.errorSamples)) errorSamples[status] ??= body;
  }
  const signed = outcomes.map((outcome) => outcome.signedAtMs).filter((at): at is number => at !== undefined);
  return {
    scenario: name, workers: outcomes.length, startedAtMs: Math.min(...outcomes.map((outcome) => outcome.startedAtMs)),
    ...(signed.length === 0 ? {} : { signedAtMs: Math.max(...signed) }),
    result: {
      requests, sent, skipped, durationMs, requestsPerSecond: durationMs > 0 ? requests / (durationMs / 1000) : 0, statusCounts,
      errors: failed + socketErrors, socketErrors, errorSamples, perWorker: outcomes.map((outcome) => outcome.result.requests),
      latency: summarize(mergeHistograms(tallies.map((tally) => tally.latency))),
      sendLag: summarize(mergeHistograms(tallies.map((tally) => tally.sendLag))),
    },
  };
}

/** The subscribers' row from each generator's outcome and tally. */
export function mergeWs(outcomes: readonly WsOutcome[], tallies: readonly WsTally[]): WsRow {
  const closeCodes: Record<string, number> = {};
  for (const outcome of outcomes) addCounts(closeCodes, outcome.closed);
  const delivered = outcomes.reduce((sum, outcome) => sum + outcome.delivered, 0);
  const elapsedMs = Math.max(...outcomes.map((outcome) => outcome.elapsedMs));
  const latency = summarize(mergeHistograms(tallies.map((tally) => tally.latency)));
  return {
    scenario: 'ws', workers: outcomes.length, startedAtMs: Math.min(...outcomes.map((outcome) => outcome.startedAtMs)),
    subscribers: outcomes.reduce((sum, outcome) => sum + outcome.subscribers, 0), delivered,
    deliveredPerSecond: elapsedMs > 0 ? Math.round(delivered / (elapsedMs / 1000)) : 0,
    timed: outcomes.reduce((sum, outcome) => sum + outcome.timed, 0),
    closed: Object.values(closeCodes).reduce((sum, count) => sum + count, 0), closeCodes,
    latency: { p50Ms: latency.p50Ms, p90Ms: latency.p90Ms, p99Ms: latency.p99Ms, maxMs: latency.maxMs },
  };
}

/** Every generator's live counters of one HTTP load, summed (LIVE_* indexes). */
function sumCounters(tallies: readonly { readonly counters: Int32Array }[], length: number): Int32Array {
  const sums = new Int32Array(length);
  for (const { counters } of tallies) for (let index = 0; index < length; index++) sums[index]! += counters[index]!;
  return sums;
}

/** What a progress line shows of a load: counts so far, read from the generators' tallies. */
export interface Progress {
  answered: number;
}

/** The progress of an HTTP load since the last call (`last`, updated): rate over the interval, latency and errors so far. */
export function httpProgress(name: HttpLoadName, tallies: readonly LiveTally[], last: Progress, intervalS: number): string {
  const latency = summarize(mergeHistograms(tallies.map((tally) => tally.latency)));
  const answered = tallies.reduce((sum, tally) => sum + tally.latency.count, 0);
  const rate = Math.round((answered - last.answered) / intervalS);
  last.answered = answered;
  return `${name} ${rate.toLocaleString('en-US')} req/s  p50 ${latency.p50Ms} ms  p99 ${latency.p99Ms} ms  ${errorsText(sumCounters(tallies, LIVE_COUNTERS))}`;
}

/** The subscribers' progress since the last call: delivered messages/s over the interval, sampled latency, closed sockets. */
export function wsProgress(tallies: readonly WsTally[], last: Progress, intervalS: number): string {
  const counters = sumCounters(tallies, WS_COUNTERS);
  const delivered = counters[WS_FRAMES]!;
  const rate = Math.round((delivered - last.answered) / intervalS);
  last.answered = delivered;
  const latency = summarize(mergeHistograms(tallies.map((tally) => tally.latency)));
  return `ws ${rate.toLocaleString('en-US')} msgs/s delivered  p50 ${latency.p50Ms} ms  p99 ${latency.p99Ms} ms  closed ${counters[WS_ENDED]}`;
}

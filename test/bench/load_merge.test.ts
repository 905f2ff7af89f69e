// `npm run load -- --workers N` merges its generators' figures (bench/load/merge.ts): latencies
// as histograms, so a merged percentile is that of every answer (an average of the generators'
// percentiles would put the p50 of one fast and one slow generator between the two), counts added
// up, the rate over the longest generator's time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIVE_FAILED, LIVE_TOO_MANY, liveTally, summarize, type LiveTally, type LoadResult } from '../../bench/load/client.js';
import { httpProgress, mergeHttp, mergeWs } from '../../bench/load/merge.js';
import { WS_FRAMES, type HttpOutcome, type WsOutcome, type WsTally } from '../../bench/load/parts.js';
import { createHistogram } from 'node:perf_hooks';

/** A generator's tally with `count` answers of `ms` each, and its outcome. */
function generator(count: number, ms: number, statusCounts: Record<string, number>, durationMs: number): { tally: LiveTally; outcome: HttpOutcome } {
  const tally = liveTally();
  for (let index = 0; index < count; index++) tally.latency.record(ms * 1e6);
  const failed = Object.entries(statusCounts).reduce((sum, [status, n]) => sum + (status.startsWith('2') ? 0 : n), 0);
  const result: LoadResult = {
    requests: count, sent: count, skipped: 0, durationMs, requestsPerSecond: count / (durationMs / 1000), statusCounts, errors: 1, failed,
    errorSamples: failed > 0 ? { 429: '{"error":"Too Many Requests"}' } : {}, latency: summarize(tally.latency), sendLag: summarize(tally.sendLag),
  };
  return { tally, outcome: { result, startedAtMs: 1_000 + ms, signedAtMs: undefined } };
}

test('latencies merge as histograms, counts add up, the rate is over the longest generator', () => {
  const fast = generator(900, 1, { 200: 900 }, 1_000);
  const slow = generator(100, 100, { 200: 60, 429: 40 }, 2_000);
  const row = mergeHttp('books', [fast.outcome, slow.outcome], [fast.tally, slow.tally]);
  assert.equal(row.workers, 2);
  assert.equal(row.startedAtMs, 1_001);
  const { result } = row;
  assert.equal(result.requests, 1_000);
  assert.deepEqual(result.perWorker, [900, 100]);
  assert.deepEqual(result.statusCounts, { 200: 960, 429: 40 });
  assert.equal(result.socketErrors, 2);
  assert.equal(result.errors, 42);
  assert.equal(result.requestsPerSecond, 500);
  assert.equal(result.errorSamples['429'], '{"error":"Too Many Requests"}');
  // 90 % of all answers took 1 ms: the p50 and p90 are 1 ms (an average of the two p50s would be 50.5).
  assert.ok(Math.abs(result.latency.p50Ms - 1) < 0.01, JSON.stringify(result.latency));
  assert.ok(Math.abs(result.latency.p90Ms - 1) < 0.01, JSON.stringify(result.latency));
  assert.ok(Math.abs(result.latency.p99Ms - 100) < 0.2, JSON.stringify(result.latency));
  assert.ok(Math.abs(result.latency.meanMs - 10.9) < 0.05, JSON.stringify(result.latency));
});

test('the progress line counts every answer that is not 2xx as an error, and names RATE_LIMITS for 429s', () => {
  const one = liveTally();
  const two = liveTally();
  one.latency.record(1e6);
  two.latency.record(1e6);
  one.counters[LIVE_FAILED] = 3;
  one.counters[LIVE_TOO_MANY] = 2;
  two.counters[LIVE_FAILED] = 4;
  two.counters[LIVE_TOO_MANY] = 4;
  const last = { answered: 0 };
  const line = httpProgress('books', [one, two], last, 1);
  assert.match(line, /^books 2 req\/s .* errors 7 \(429×6: RATE_LIMITS\)$/);
  assert.equal(last.answered, 2);
});

test('subscribers merge: delivered messages add up over the longest generator, latency as one histogram', () => {
  const tallies: WsTally[] = [0, 1].map(() => ({ latency: createHistogram(), counters: new Int32Array(2) }));
  for (let index = 0; index < 99; index++) tallies[0]!.latency.record(2e6);
  tallies[1]!.latency.record(50e6);
  tallies[0]!.counters[WS_FRAMES] = 10;
  const outcomes: WsOutcome[] = [
    { subscribers: 3, delivered: 1_000, elapsedMs: 1_000, timed: 99, closed: {}, closeReason: '', startedAtMs: 5 },
    { subscribers: 2, delivered: 1_000, elapsedMs: 2_000, timed: 1, closed: { 4429: 1 }, closeReason: 'Too Many Requests', startedAtMs: 4 },
  ];
  const row = mergeWs(outcomes, tallies);
  assert.equal(row.subscribers, 5);
  assert.equal(row.deliveredPerSecond, 1_000);
  assert.equal(row.timed, 100);
  assert.equal(row.closed, 1);
  assert.deepEqual(row.closeCodes, { 4429: 1 });
  assert.ok(Math.abs(row.latency.p50Ms - 2) < 0.01 && Math.abs(row.latency.maxMs - 50) < 0.1, JSON.stringify(row.latency));
});

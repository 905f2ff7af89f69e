// The exchange's metrics beyond the per-route counters (which the routes keep themselves): what
// the matching workers count in their shared counters (commits, commands per commit, commit
// time, resting orders, open interest), the rings, orders placed, filled and cancelled, request
// caps' refusals, and the WebSocket channels. Everything here is read at scrape time from
// counters kept where the work happens; nothing is computed per request.
import { threadIds, threadTimes, type ThreadTimes } from '../engine/shard/thread_times.js';
import type { ApiKeyStore } from './auth/keys.js';
import type { SignatureVerifier } from './auth/verifier.js';
import type { FrontEnds } from './front_end/hub.js';
import type { LiveChannels } from './ws/channels.js';
import { Metrics } from './metrics.js';
import type { RateLimiter } from './rate_limit.js';
import type { Replication } from './replication/replication.js';
import type { TradingRuntime } from './trading/runtime.js';

function shardMetrics(metrics: Metrics, trading: TradingRuntime): void {
  const shards = Array.from({ length: trading.pool.count }, (_, shard) => shard);
  const perShard = (read: (shard: number) => number): [{ shard: number }, number][] => shards.map((shard) => [{ shard }, read(shard)]);
  const counters = (shard: number) => trading.pool.counters(shard);
  metrics.gauge({
    name: 'clobd_shard_ring_depth_slots', help: 'Command-ring slots taken by frames the matching worker has not consumed yet.', type: 'gauge',
    samples: () => perShard((shard) => trading.pool.ringDepth(shard)),
  });
  metrics.gauge({
    name: 'clobd_shard_answer_ring_depth_slots', help: 'Result-ring slots taken by answers the front end has not read yet (a front end that lags its workers).', type: 'gauge',
    samples: () => perShard((shard) => trading.pool.answerDepth(shard)),
  });
  metrics.gauge({
    name: 'clobd_shard_ring_full_total', help: 'Commands refused with 503 because the shard\'s command ring was full.', type: 'counter',
    samples: () => perShard((shard) => trading.pool.ringFullRejections[shard]!),
  });
  metrics.gauge({
    name: 'clobd_shard_commits_total', help: 'Durable LMDB commits of the matching worker (one transaction per batch of commands).', type: 'counter',
    samples: () => perShard((shard) => counters(shard).commits),
  });
  metrics.histogram({
    name: 'clobd_shard_commands_per_commit', help: 'Commands carried by each commit (group commit: batches grow with the load).',
    samples: () => shards.map((shard) => [{ shard }, counters(shard).commandsPerCommit()]),
  });
  metrics.histogram({
    name: 'clobd_shard_commit_duration_seconds', help: 'Time from a commit\'s start to its durable end.',
    samples: () => shards.map((shard) => [{ shard }, counters(shard).commitDuration()]),
  });
  metrics.gauge({
    name: 'clobd_shard_resting_orders', help: 'Orders resting in the shard\'s books after its latest commit.', type: 'gauge',
    samples: () => perShard((shard) => counters(shard).restingOrders),
  });
  metrics.gauge({
    name: 'clobd_shard_open_interest_micros', help: 'Complete sets outstanding in the shard\'s markets, in collateral micros.', type: 'gauge',
    samples: () => perShard((shard) => counters(shard).openInterestMicros),
  });
  metrics.gauge({
    name: 'clobd_shard_ready', help: '1 while the shard\'s matching worker serves, 0 while it is down (starting, restarting, or its storage failed).', type: 'gauge',
    samples: () => perShard((shard) => (trading.pool.isReady(shard) ? 1 : 0)),
  });
  metrics.gauge({
    name: 'clobd_shard_restarts_total', help: 'Restarts of the shard\'s matching worker since the start.', type: 'counter',
    samples: () => perShard((shard) => trading.pool.restarts(shard)),
  });
  metrics.gauge({
    name: 'clobd_shard_storage_failures_total', help: 'Commits (or the write a worker makes before it serves) that the shard\'s storage refused: a full disk, an I/O error.', type: 'counter',
    samples: () => perShard((shard) => trading.pool.storageFailures(shard)),
  });
  metrics.gauge({
    name: 'clobd_shard_reads_total', help: 'Reads the front end asked a matching worker for (answered on its thread between two batches), by kind.', type: 'counter',
    samples: () => [...trading.pool.reads].flatMap(([kind, counts]) => shards.map((shard): [{ shard: number; kind: string }, number] => [{ shard, kind }, counts[shard]!])),
  });
  metrics.gauge({
    name: 'clobd_shard_collateral_micros', help: 'Collateral the shard holds (free, reserved and in sets), in micros.', type: 'gauge',
    samples: () => perShard((shard) => counters(shard).collateralMicros),
  });
}

/** The replicated journal (NATS set): what the stream holds of each shard, and what it cost to get it there. */
function replicationMetrics(metrics: Metrics, trading: TradingRuntime, replication: Replication): void {
  const shards = Array.from({ length: trading.pool.count }, (_, shard) => shard);
  const perShard = (read: (shard: number) => number): [{ shard: number }, number][] => shards.map((shard) => [{ shard }, read(shard)]);
  metrics.gauge({
    name: 'clobd_replication_stream_batch', help: 'The last batch of the shard the replicated journal (the JetStream stream) holds.', type: 'gauge',
    samples: () => perShard((shard) => replication.acked(shard)),
  });
  metrics.gauge({
    name: 'clobd_replication_lag_batches', help: 'Batches the shard committed that the replicated journal does not hold yet (with REPLICATION=sync their answers wait for it).', type: 'gauge',
    samples: () => perShard((shard) => Math.max(0, trading.pool.counters(shard).lastBatch - replication.acked(shard))),
  });
  metrics.gauge({
    name: 'clobd_replication_messages_total', help: 'Messages of the shard\'s subject appended to the replicated journal (a primary), or read from it (a replica); each holds one or more batches, or a part of one.', type: 'counter',
    samples: () => perShard((shard) => replication.counts(shard).messages),
  });
  metrics.gauge({
    name: 'clobd_replication_bytes_total', help: 'Bytes of the shard\'s journal messages appended to the replicated journal (a primary), or read from it (a replica).', type: 'counter',
    samples: () => perShard((shard) => replication.counts(shard).bytes),
  });
  metrics.gauge({
    name: 'clobd_replication_retries_total', help: 'Appends to the replicated journal tried again (a NATS node down, the stream electing its leader, a lost acknowledgement).', type: 'counter',
    samples: () => perShard((shard) => replication.counts(shard).retries),
  });
  metrics.gauge({
    name: 'clobd_replication_fenced', help: '1 once another server appended to the shard\'s replicated journal (it took over as primary): the shard stops.', type: 'gauge',
    samples: () => perShard((shard) => (replication.fenced(shard) ? 1 : 0)),
  });
}

/**
 * CPU time and run-queue wait of the front end's thread, of each matching worker's, and of the
 * process's other threads together (signature pool, V8's and libuv's helpers), from Linux's
 * schedstat at scrape time. A thread that waits for a core is a thread whose requests wait too:
 * on a machine with every core busy, that wait is most of the order path's latency tail.
 */
function threadMetrics(metrics: Metrics, trading: TradingRuntime, frontEnds: FrontEnds | undefined): void {
  const read = (): [{ thread: string }, ThreadTimes][] => {
    const named = new Map<number, string>([[process.pid, 'front_end']]);
    for (const { frontEnd, threadId } of frontEnds?.served() ?? []) if (threadId !== undefined) named.set(threadId, `front_end_${frontEnd}`);
    for (let shard = 0; shard < trading.pool.count; shard++) {
      const tid = trading.pool.threadId(shard);
      if (tid !== undefined) named.set(tid, `shard_${shard}`);
    }
    const rows: [{ thread: string }, ThreadTimes][] = [];
    let other = { cpuSeconds: 0, waitSeconds: 0 };
    for (const tid of threadIds()) {
      const times = threadTimes(tid);
      if (times === undefined) continue;
      const name = named.get(tid);
      if (name !== undefined) rows.push([{ thread: name }, times]);
      else other = { cpuSeconds: other.cpuSeconds + times.cpuSeconds, waitSeconds: other.waitSeconds + times.waitSeconds };
    }
    if (rows.length > 0) rows.push([{ thread: 'other' }, other]);
    return rows;
  };
  metrics.gauge({
    name: 'clobd_thread_cpu_seconds_total',
    help: 'CPU time of the main thread (front_end: the front end with FRONT_ENDS=1, the state\'s thread with more; front_end_<i>: the front-end threads, FRONT_ENDS > 1), each matching worker\'s, and the other threads together (Linux).',
    type: 'counter', samples: () => read().map(([labels, times]) => [labels, times.cpuSeconds]),
  });
  metrics.gauge({
    name: 'clobd_thread_runqueue_wait_seconds_total',
    help: 'Time the same threads were ready to run but waited for a core (Linux schedstat): CPU contention, felt as latency.',
    type: 'counter', samples: () => read().map(([labels, times]) => [labels, times.waitSeconds]),
  });
}

/** Orders accepted and cancelled, and fills, as the read model applies the shards' answers. */
function orderMetrics(metrics: Metrics, trading: TradingRuntime): void {
  // accepted, filled (fills), cancelled
  const orders = new Float64Array(3);
  trading.marketData.listen({
    applied(answer) {
      for (const event of answer.events) {
        if (event.kind === 'ORDER_ACCEPTED') orders[0]!++;
        else if (event.kind === 'FILL') orders[1]!++;
        else if (event.kind === 'ORDER_CANCELLED') orders[2]!++;
      }
    },
    reloaded() {},
  });
  metrics.gauge({
    name: 'clobd_orders_total', help: 'Orders accepted and cancelled, and fills, since the start.', type: 'counter',
    samples: () => [[{ kind: 'accepted' }, orders[0]!], [{ kind: 'filled' }, orders[1]!], [{ kind: 'cancelled' }, orders[2]!]],
  });
}

/** Metrics of the whole exchange: the routes count themselves; the rest is read at scrape time. */
export function operatorMetrics(
  trading: TradingRuntime, channels: LiveChannels, limiter: RateLimiter, verifier: SignatureVerifier, frontEnds: FrontEnds | undefined,
): Metrics {
  const metrics = new Metrics();
  shardMetrics(metrics, trading);
  if (trading.replication !== undefined) replicationMetrics(metrics, trading, trading.replication);
  threadMetrics(metrics, trading, frontEnds);
  if (frontEnds !== undefined) {
    metrics.gauge({
      name: 'clobd_front_end_requests_total', help: 'Requests and WebSocket upgrades each front-end thread took (FRONT_ENDS > 1: the threads take every connection): handed to the main thread, or answered from a read it kept.',
      type: 'counter', samples: () => frontEnds.served().map(({ frontEnd, requests }) => [{ front_end: frontEnd }, requests]),
    });
    metrics.gauge({
      name: 'clobd_front_end_kept_answers_total', help: 'Of those, the reads each front-end thread answered itself from an answer it kept (GET /book and the other one-book reads, the batch reads POST /books, /prices, …, and the trading-market reads GET /markets, /markets/{condition_id}, …), while the catalog and every book the answer was built from are unchanged.',
      type: 'counter', samples: () => frontEnds.served().map(({ frontEnd, kept }) => [{ front_end: frontEnd }, kept]),
    });
    metrics.gauge({
      name: 'clobd_front_end_checked_total',
      help: 'POST /order and DELETE /order requests each front-end thread checked in full itself, by route and outcome: done (the main thread placed or cancelled as checked) or handed_over (the key, or the order\'s market, had changed since the thread was told them: the whole request went to the main thread).',
      type: 'counter',
      samples: () => frontEnds.served().flatMap(({ frontEnd, checks }) => (['place', 'cancel'] as const).flatMap((kind): [{ front_end: number; route: string; outcome: string }, number][] => {
        const route = kind === 'place' ? 'POST /order' : 'DELETE /order';
        return [[{ front_end: frontEnd, route, outcome: 'done' }, checks[kind].done], [{ front_end: frontEnd, route, outcome: 'handed_over' }, checks[kind].handedOver]];
      })),
    });
  }
  orderMetrics(metrics, trading);
  metrics.gauge({
    name: 'clobd_signatures_recovered_total',
    help: 'Order signatures recovered, by where: on the signature pool, on the main thread (a lone signature in its turn of the event loop, or VERIFY_THREADS=0), or by the front-end threads (FRONT_ENDS > 1: each recovers, on its own pool, the orders of the requests it takes).',
    type: 'counter', samples: () => [
      [{ where: 'pool' }, verifier.recovered.pool], [{ where: 'front_end' }, verifier.recovered.frontEnd],
      ...(frontEnds === undefined ? [] : [[{ where: 'front_end_threads' }, frontEnds.signaturesRecovered()] as [{ where: string }, number]]),
    ],
  });
  metrics.gauge({
    name: 'clobd_rate_limit_refusals_total', help: 'Requests answered 429, by the cap that refused them (one refused by two caps counts under both).',
    type: 'counter', samples: () => limiter.caps.map((cap, id) => [{ cap: cap.name, scope: cap.scope }, limiter.refusals[id]!]),
  });
  metrics.gauge({
    name: 'clobd_ws_connections', help: 'WebSocket connections open.', type: 'gauge', samples: () => [[{}, channels.connections()]],
  });
  metrics.gauge({
    name: 'clobd_ws_slow_readers_total', help: 'WebSocket readers closed because a message to them found their send buffer over its cap.', type: 'counter',
    samples: () => [[{}, channels.slowReaders]],
  });
  metrics.gauge({
    name: 'clobd_ws_closed_abnormally_total', help: 'WebSocket connections ended without a close frame (1006: dropped by the client, or cut off as slow readers).',
    type: 'counter', samples: () => [[{}, channels.closedAbnormally]],
  });
  return metrics;
}

/** The API key cache (auth/key_cache.ts): how full it is, and how often an L2 check found its key there. */
export function apiKeyMetrics(metrics: Metrics, keys: ApiKeyStore): void {
  const { cache } = keys;
  metrics.gauge({
    name: 'clobd_api_key_cache_entries', help: `Decoded API keys kept in memory for the L2 check (at most KEY_CACHE_ENTRIES, ${cache.entriesMax} here).`,
    type: 'gauge', samples: () => [[{}, cache.size]],
  });
  metrics.gauge({
    name: 'clobd_api_key_cache_lookups_total', help: 'Lookups of an API key by the L2 check: found in the cache (hit), or read from the key store (miss; unknown keys too).',
    type: 'counter', samples: () => [[{ result: 'hit' }, cache.hits], [{ result: 'miss' }, cache.misses]],
  });
  metrics.gauge({
    name: 'clobd_api_key_cache_evictions_total', help: 'Keys dropped from the full cache to make room, the least recently used first.',
    type: 'counter', samples: () => [[{}, cache.evictions]],
  });
}

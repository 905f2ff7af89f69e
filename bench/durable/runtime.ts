// Drives the real runtime in this process: startServer on a temporary DATA_DIR, the internal
// trading client, every answer durable. Two loads: a closed loop with a bounded number of
// requests in flight (peak throughput), and an open loop at a fixed arrival rate whose latency
// is taken from each request's scheduled send time, so a stalled sender cannot hide queueing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import { Side } from '../../engine/command.js';
import type { ShardStatus } from '../../engine/shard/protocol.js';
import { loadConfig } from '../../http/config.js';
import { createLogger } from '../../http/log.js';
import { startServer, type Server } from '../../http/server.js';
import { readDemoState } from '../../http/trading/demo_state.js';
import type { TradeResult, TradingClient } from '../../http/trading/client.js';
import { DEPOSIT_MICROS, ROW_CANCEL, type OrderFlow } from './flow.js';

export interface BenchRuntime {
  readonly server: Server;
  readonly dataDir: string;
  /** Stops the server and removes its DATA_DIR. */
  close(): Promise<void>;
}

export function benchConfig(dataDir: string, shards: number) {
  // No demo flow: the runtime's books must hold only what the benchmark's own flow placed.
  return loadConfig({ DATA_DIR: dataDir, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', SHARDS: String(shards), LOG_LEVEL: 'warn', DEMO_FLOW: 'off' }, new Map());
}

/**
 * Starts the server on a fresh (or the given) DATA_DIR with the demo catalog, and cancels the
 * demo market maker's quotes: the flows' oracle engine starts from empty books, so the runtime
 * must too, or crossing orders fill against quotes the oracle never saw.
 */
export async function startRuntime(shards: number, dataDir = mkdtempSync(join(tmpdir(), 'clobd-bench-durable-'))): Promise<BenchRuntime> {
  const server = await startServer(benchConfig(dataDir, shards), createLogger('warn'));
  const maker = readDemoState(dataDir)?.maker.address;
  if (maker !== undefined) await server.trading.client.cancelAll(maker);
  return {
    server, dataDir,
    async close() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Deposits every flow account's collateral (one durable treasury commit each). */
export function fundAccounts(client: TradingClient, accounts: readonly string[]): void {
  for (const account of accounts) {
    if (!client.deposit(account, DEPOSIT_MICROS)) throw new Error('deposit refused');
  }
}

function isRejected(result: TradeResult): boolean {
  return result.events.some((event) => event.kind === 'ORDER_REJECTED' || event.kind === 'CANCEL_REJECTED' || event.kind === 'COMMAND_REJECTED');
}

/**
 * Sends one row; its frame is written before this returns (the markets' fees are known after
 * the warm-up, so a place does not wait for one), so frames leave in row order.
 */
function sendRow(client: TradingClient, flow: OrderFlow, row: number): Promise<TradeResult> {
  const account = flow.accounts[flow.account[row]!]!;
  if (flow.rowKind[row] === ROW_CANCEL) return client.cancelOrder(account, flow.orderId[row]!);
  return client.placeOrder({
    account, orderId: flow.orderId[row]!, marketKey: flow.specs[flow.market[row]!]!.key, outcome: flow.outcome[row]!,
    side: flow.side[row] as Side, orderType: flow.orderType[row] as 0 | 2 | 3, priceUnits: flow.priceUnits[row]!,
    sizeMicros: flow.sizeMicros[row]!,
  });
}

export interface LoadFigures {
  readonly commands: number;
  readonly seconds: number;
  /** Rows whose rejection differs from the oracle's (0 when the runtime kept per-market order). */
  readonly rejectionMismatches: number;
  /** Requests refused with ShardUnavailable (full ring) or failed otherwise. */
  readonly failures: number;
}

class Tally {
  mismatches = 0;
  failures = 0;

  /** Counts the answer to `row` against the oracle's; then calls `next`. */
  settle(flow: OrderFlow, row: number, sent: Promise<TradeResult>, next: () => void): void {
    sent.then(
      (result) => {
        if (isRejected(result) !== (flow.rejected[row] === 1)) this.mismatches++;
        next();
      },
      () => {
        this.failures++;
        next();
      },
    );
  }
}

/**
 * Rows [from, to) with at most `inFlight` requests outstanding: each answer sends the next row,
 * from its own callback (a lane that awaited each answer cost the front end's thread an async
 * frame and two more promises per request, ~15 % of what it allocated at the peak).
 */
export function closedLoop(client: TradingClient, flow: OrderFlow, from: number, to: number, inFlight: number): Promise<LoadFigures> {
  const tally = new Tally();
  let next = from;
  let outstanding = 0;
  const started = performance.now();
  return new Promise((resolve) => {
    const sendNext = (): void => {
      if (next < to) {
        const row = next++;
        outstanding++;
        tally.settle(flow, row, sendRow(client, flow, row), answered);
      } else if (outstanding === 0) {
        const seconds = (performance.now() - started) / 1000;
        resolve({ commands: to - from, seconds, rejectionMismatches: tally.mismatches, failures: tally.failures });
      }
    };
    const answered = (): void => {
      outstanding--;
      sendNext();
    };
    for (let lane = 0; lane < inFlight && next < to; lane++) sendNext();
    if (outstanding === 0) sendNext();
  });
}

/**
 * Rows [from, to) sent at `ratePerSecond`, each at its scheduled time or as soon after as the
 * event loop allows; latency (µs) from the scheduled time to the answer goes into `histogram`.
 */
export function openLoop(client: TradingClient, flow: OrderFlow, from: number, to: number, ratePerSecond: number): Promise<LoadFigures & { histogram: RecordableHistogram }> {
  const histogram = createHistogram();
  const tally = new Tally();
  const total = to - from;
  const intervalMs = 1000 / ratePerSecond;
  const startMs = performance.now() + 1;
  let sent = 0;
  let answered = 0;
  return new Promise((resolve) => {
    const finish = (): void => {
      const seconds = (performance.now() - startMs) / 1000;
      resolve({ commands: total, seconds, rejectionMismatches: tally.mismatches, failures: tally.failures, histogram });
    };
    const tick = (): void => {
      const due = Math.min(total, Math.floor((performance.now() - startMs) / intervalMs) + 1);
      while (sent < due) {
        const row = from + sent;
        const scheduledMs = startMs + sent * intervalMs;
        sent++;
        tally.settle(flow, row, sendRow(client, flow, row), () => {
          histogram.record(Math.max(1, Math.round((performance.now() - scheduledMs) * 1000)));
          if (++answered === total) finish();
        });
      }
      if (sent < total) setImmediate(tick);
    };
    tick();
  });
}

export interface CommitFigures {
  readonly commits: number;
  readonly framesCommitted: number;
  readonly commitMs: number;
}

/** Commits between two status readings, summed over shards. */
export function commitsBetween(before: readonly ShardStatus[], after: readonly ShardStatus[]): CommitFigures {
  const sum = (statuses: readonly ShardStatus[], pick: (status: ShardStatus) => number): number => statuses.reduce((total, status) => total + pick(status), 0);
  return {
    commits: sum(after, (s) => s.commits) - sum(before, (s) => s.commits),
    framesCommitted: sum(after, (s) => s.framesCommitted) - sum(before, (s) => s.framesCommitted),
    commitMs: sum(after, (s) => s.commitMs) - sum(before, (s) => s.commitMs),
  };
}

// Runs one attacker of the isolation benchmark in a worker thread (attacker_worker.ts) and
// brings back what it saw. Whatever the attacker does (a flood client that throws, a worker that
// never gets ready or never reports), the phase goes on: the report then says why it is missing,
// and the worker is always terminated, which closes every socket it still held.
import { Worker } from 'node:worker_threads';
import { emptyCounts, type AttackCounts } from './counts.js';
import type { HttpFloodPlan } from './http_flood.js';
import type { WsFloodPlan } from './ws_flood.js';

export type AttackPlan = HttpFloodPlan | WsFloodPlan;

export interface AttackerInput {
  readonly plan: AttackPlan;
  readonly durationMs: number;
}

export interface AttackReport {
  readonly counts: AttackCounts;
  /** How long the attacker flooded. */
  readonly durationMs: number;
  /** Why the attacker's figures are missing or partial, when they are. */
  readonly failure?: string;
}

export interface RunningAttack {
  /** Starts the flood; the report comes `durationMs` later. */
  go(): void;
  readonly report: Promise<AttackReport>;
}

/** Connecting every socket: seconds on a busy machine, never this long. */
const READY_MS_MAX = 15_000;
/** Past its duration, the time the worker gets to close its sockets and report. */
const REPORT_GRACE_MS = 10_000;

const workerUrl = new URL('./attacker_worker.js', import.meta.url);

type WorkerMessage = { readonly kind: 'ready' } | { readonly kind: 'report'; readonly counts: AttackCounts; readonly durationMs: number };

/** Starts the attacker's worker and resolves once its sockets are connected (or it failed: the report says so). */
export async function startAttack(input: AttackerInput): Promise<RunningAttack> {
  const worker = new Worker(workerUrl, { workerData: input });
  let failure: string | undefined;
  let settleReady = (): void => undefined;
  let settleReport = (_report: AttackReport): void => undefined;
  const ready = new Promise<void>((resolve) => (settleReady = resolve));
  const report = new Promise<AttackReport>((resolve) => (settleReport = resolve));
  const fail = (why: string): void => {
    failure ??= why;
    settleReady();
    settleReport({ counts: emptyCounts(), durationMs: 0, failure });
    void worker.terminate();
  };
  worker.on('message', (message: WorkerMessage) => {
    if (message.kind === 'ready') settleReady();
    else {
      settleReport({ counts: message.counts, durationMs: message.durationMs });
      void worker.terminate();
    }
  });
  worker.on('error', (error) => fail(`attacker failed: ${error.message}`));
  worker.on('exit', (code) => fail(`attacker exited (${code}) before it reported`));
  const readyTimer = setTimeout(() => fail(`attacker not connected within ${READY_MS_MAX} ms`), READY_MS_MAX);
  await ready;
  clearTimeout(readyTimer);
  return {
    go: () => {
      if (failure !== undefined) return;
      worker.postMessage('go');
      const reportTimer = setTimeout(() => fail(`attacker did not report within ${REPORT_GRACE_MS} ms of its end`), input.durationMs + REPORT_GRACE_MS);
      void report.then(() => clearTimeout(reportTimer));
    },
    report,
  };
}

// A generator thread of `npm run load -- ... --workers N`: prepares its share of the run (parts.ts),
// says so, measures when the CLI says go, and posts its figures. Its histograms and counters are
// the CLI's own (shared with this thread), so the CLI reads them for the progress line and merges
// them for the result. A failure is posted as its one line.
import { parentPort, workerData } from 'node:worker_threads';
import { preparePart, type PartConfig } from './parts.js';
import { LoadError, oneLine } from './refusals.js';

/** What the CLI and a generator thread tell each other. */
export type FromWorker =
  | { readonly kind: 'note'; readonly line: string }
  | { readonly kind: 'prepared' }
  | { readonly kind: 'done'; readonly outcome: Awaited<ReturnType<Awaited<ReturnType<typeof preparePart>>['measure']>> }
  | { readonly kind: 'failed'; readonly line: string; readonly stack: string | undefined; readonly exitCode: number };

export interface WorkerInput {
  readonly config: PartConfig;
  readonly totalSubscribers: number;
}

const port = parentPort;
if (port !== null) {
  const { config, totalSubscribers } = workerData as WorkerInput;
  const post = (message: FromWorker): void => port.postMessage(message);
  const fail = (error: unknown): void => post({
    kind: 'failed', line: oneLine(error), stack: error instanceof Error ? error.stack : undefined, exitCode: error instanceof LoadError ? error.exitCode : 1,
  });
  try {
    const part = await preparePart(config, totalSubscribers, (line) => post({ kind: 'note', line }));
    port.once('message', () => {
      part.measure().then((outcome) => post({ kind: 'done', outcome }), fail);
    });
    post({ kind: 'prepared' });
  } catch (error) {
    fail(error);
  }
}

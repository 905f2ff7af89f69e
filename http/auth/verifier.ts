// Where order signatures are checked. Recovery is the costliest step of a placement (~45-65 µs
// native per signature here), so the front end can hand it to a piscina pool instead of doing it
// on the event loop. Requests that arrive together are recovered together: one pool task per
// batch of up to BATCH_MAX signatures, which keeps the message-passing cost per signature small.
// Every batch of two or more goes to the pool; a lone signature is recovered at once on the front
// end's thread, where it costs less than the hand-offs (see PoolVerifier). Nothing is cached:
// every order's own digest and signature are checked every time.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { HttpError } from '../errors.js';
import { recoverAddress } from './recover.js';
import type { RecoverTask } from './recover_task.js';

export interface SignatureVerifier {
  /** The lower-case address that signed `digest`, or undefined. */
  recover(digest: Uint8Array, signature: string): Promise<string | undefined>;
  /** Signatures recovered so far: on pool threads, and on the front end's own thread. */
  readonly recovered: { pool: number; frontEnd: number };
  close(): Promise<void>;
}

/** The refusal of a signature that finds the pool's queue full (503 with Retry-After). */
export function signaturesBusy(): HttpError {
  return new HttpError(503, 'signature checks are busy, retry shortly', undefined, [['retry-after', '1']]);
}

/** Whether `error` is that refusal. */
export function isSignaturesBusy(error: unknown): boolean {
  return error instanceof HttpError && error.status === 503 && error.message === 'signature checks are busy, retry shortly';
}

/**
 * The pool threads each front-end thread gets (each recovers the signatures of the orders it
 * takes): VERIFY_THREADS divided among the FRONT_ENDS threads, rounded up, so at least one each
 * unless it is 0.
 */
export function verifyThreadsEach(total: number, frontEnds: number): number {
  return total === 0 ? 0 : Math.max(1, Math.ceil(total / frontEnds));
}

/** A pool of `threads` (PoolVerifier), or recovery on the calling thread with 0. */
export function makeVerifier(threads: number): SignatureVerifier {
  return threads === 0 ? new InlineVerifier() : new PoolVerifier(threads);
}

/** Recovers on the calling thread. */
export class InlineVerifier implements SignatureVerifier {
  readonly recovered = { pool: 0, frontEnd: 0 };

  recover(digest: Uint8Array, signature: string): Promise<string | undefined> {
    this.recovered.frontEnd++;
    return Promise.resolve(recoverAddress(digest, signature));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const BATCH_MAX = 64;
/**
 * Batches this small are recovered on the front end's thread even when a pool thread is free.
 * A turn of the event loop that brought one order is what a bot trading at its own pace sends:
 * handing its signature to the pool and back costs two thread wake-ups (~30 µs each on this VM,
 * more from an idle CPU) and the task's messages, more than the recovery itself. One connection
 * placing one order at a time (npm run load -- orders --connections 1): p50 0.89-0.96 ms through
 * the pool against 0.71-0.79 ms recovered here, p99 3.9-4.3 against 2.3-3.1 ms.
 */
const INLINE_BATCH_MAX = 1;
/** Longest close waits for a pool thread still loading its task module. */
const LOAD_WAIT_MS = 10_000;
/**
 * Signatures waiting for the pool or on it. Beyond this an order is refused with 503 and
 * Retry-After instead of queued: ~4 000 signatures are ~0.15 s of recovery for two threads here.
 */
const SIGNATURES_QUEUED_MAX = 4096;
/** Piscina's own bound on queued tasks: never the one reached, since no task is smaller than one signature. */
const QUEUE_MAX = SIGNATURES_QUEUED_MAX;

interface Waiting {
  readonly digest: Uint8Array;
  readonly signature: string;
  readonly resolve: (address: string | undefined) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Recovers on piscina threads, batching what arrives in the same turn of the event loop, and on
 * the calling thread only when the turn brought a single signature (INLINE_BATCH_MAX). A larger
 * batch goes to the pool even when every pool thread is busy: it waits in the pool's queue.
 *
 * Until 2026-11-26 such a batch was recovered on the calling thread instead, so that both cores
 * worked. But one uWS dispatch delivers up to every connection's request, and the front end then
 * recovered batch after batch inside it while the pool's finished batch waited for the dispatch
 * to return: on the order benchmark's floor route (bench/orders/floor.ts) without its write, a
 * pool batch took 67 ms from run to answer for ~4 ms of work, and the pool recovered 7 % of the
 * signatures. The front end's thread bounds the peak, so the recoveries belong on the pool, one
 * thread per core. bench/orders, SHARDS=1, six alternating full runs against the old split with
 * one pool thread: the peak within noise (median ratio 1.02), its p99 lower in all six (48.6-60.6
 * against 58.5-68.3 ms).
 */
export class PoolVerifier implements SignatureVerifier {
  private readonly pool: Piscina<RecoverTask, (string | null)[]>;
  private waiting: Waiting[] = [];
  private scheduled = false;
  /** Signatures given to the pool and not answered yet. */
  private queued = 0;
  readonly recovered = { pool: 0, frontEnd: 0 };
  /** Settles once every pool thread has loaded the task module (or exited). */
  private readonly loaded: Promise<void>;

  /** `queuedMax`: SIGNATURES_QUEUED_MAX but in tests. */
  constructor(threads = availableParallelism(), private readonly queuedMax = SIGNATURES_QUEUED_MAX) {
    // A named export, not a default one: piscina require()s the task file first, and Node 20's
    // require() of an ES module with a default export builds a facade module that, now and
    // then, fails a native assertion and aborts the whole process (seen in the crash test).
    // recordTiming off: piscina's run- and wait-time histograms (read by nothing here) cost the
    // front end ~10-15 µs of CPU per task (a noop task's round trip, 43-61 µs against 57-112 µs).
    this.pool = new Piscina({
      filename: new URL('./recover_task.js', import.meta.url).href, name: 'recoverBatch', minThreads: threads, maxThreads: threads, maxQueue: QUEUE_MAX,
      recordTiming: false,
    });
    this.loaded = Promise.all(this.pool.threads.map(untilLoaded)).then(() => undefined);
  }

  recover(digest: Uint8Array, signature: string): Promise<string | undefined> {
    if (this.waiting.length + this.queued >= this.queuedMax) {
      return Promise.reject(signaturesBusy());
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ digest, signature, resolve, reject });
      if (this.waiting.length >= BATCH_MAX) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Stops the pool once its threads have loaded (a thread terminated while it loads the native
   * addons, a server stopped as it starts, can abort the whole process inside an addon's
   * initialisation: "FATAL ERROR: Error::Error napi_create_reference", seen in the crash test),
   * and once the batches it holds are recovered: their requests are answered, not failed with
   * "Terminating worker thread".
   */
  async close(): Promise<void> {
    await this.loaded;
    await this.pool.close();
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    if (batch.length <= INLINE_BATCH_MAX) {
      // recoverAddress answers undefined for any bad signature; it does not throw.
      for (const w of batch) w.resolve(recoverAddress(w.digest, w.signature));
      this.recovered.frontEnd += batch.length;
      return;
    }
    this.queued += batch.length;
    this.recovered.pool += batch.length;
    this.pool.run({ digests: batch.map((w) => w.digest), signatures: batch.map((w) => w.signature) }).then(
      (addresses) => {
        this.queued -= batch.length;
        batch.forEach((w, index) => w.resolve(addresses[index] ?? undefined));
      },
      (error: Error) => {
        this.queued -= batch.length;
        batch.forEach((w) => w.reject(error));
      },
    );
  }
}

/**
 * Settles when a piscina thread has loaded its task module (the first message it posts to its
 * parent is the ready message piscina sends after preloading the module), exits, or
 * LOAD_WAIT_MS passes.
 */
function untilLoaded(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      worker.off('message', done);
      worker.off('exit', done);
      resolve();
    };
    const timer = setTimeout(done, LOAD_WAIT_MS);
    timer.unref();
    worker.on('message', done);
    worker.on('exit', done);
  });
}

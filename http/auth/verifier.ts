// Where order signatures are checked. Recovery is the costliest step of a placement (~45-65 µs
// native per signature here), so the front end can hand it to a piscina pool instead of doing it
// on the event loop. Requests that arrive together are recovered together: one pool task per
// batch of up to BATCH_MAX signatures, which keeps the message-passing cost per signature small.
// The pool and the front end share the work: a batch goes to the pool only while a pool thread
// has none and it holds more than one signature; a lone signature, or a batch that would wait
// behind the pool's, is recovered at once on the front end's thread instead (see PoolVerifier).
// Nothing is cached: every order's own digest and signature are checked every time.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { recoverAddress } from './recover.js';
import type { RecoverTask } from './recover_task.js';

export interface SignatureVerifier {
  /** The lower-case address that signed `digest`, or undefined. */
  recover(digest: Uint8Array, signature: string): Promise<string | undefined>;
  /** Signatures recovered so far: on pool threads, and on the front end's own thread. */
  readonly recovered: { pool: number; frontEnd: number };
  close(): Promise<void>;
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
/** Tasks waiting for a pool thread (a bound only: the pool is given at most one batch per thread). */
const QUEUE_MAX = 4096;

interface Waiting {
  readonly digest: Uint8Array;
  readonly signature: string;
  readonly resolve: (address: string | undefined) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Recovers on piscina threads, batching what arrives in the same turn of the event loop, and on
 * the calling thread when the turn brought a single signature (INLINE_BATCH_MAX) or every pool
 * thread already has a batch. A second batch queued behind a busy pool thread waited a whole
 * batch's recovery (up to BATCH_MAX × ~50 µs) and then paid the hand-offs, while the front end's
 * own thread had time to spare; recovering it here instead uses both cores (bench/orders, pool:
 * SHARDS=2 full runs 7 728 -> 9 115 orders/s; SHARDS=1 quick runs 9 300 -> 9 900-10 400, full
 * runs unchanged at ~9 600, the process CPU-bound).
 */
export class PoolVerifier implements SignatureVerifier {
  private readonly pool: Piscina<RecoverTask, (string | null)[]>;
  private waiting: Waiting[] = [];
  private scheduled = false;
  /** Batches given to the pool and not answered yet: at most one per pool thread while the front end shares the work. */
  private inPool = 0;
  readonly recovered = { pool: 0, frontEnd: 0 };
  /** Settles once every pool thread has loaded the task module (or exited). */
  private readonly loaded: Promise<void>;

  /**
   * `frontEndShare` false sends every batch to the pool, queued behind a busy thread (piscina's
   * queue, QUEUE_MAX tasks), and recovers nothing on the calling thread: the benchmark's floor
   * route (bench/orders/floor.ts), whose front end has little else to do, measured fastest so.
   */
  constructor(private readonly threads = Math.max(1, availableParallelism() - 1), private readonly frontEndShare = true) {
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
    if (this.frontEndShare && (batch.length <= INLINE_BATCH_MAX || this.inPool >= this.threads)) {
      // recoverAddress answers undefined for any bad signature; it does not throw.
      for (const w of batch) w.resolve(recoverAddress(w.digest, w.signature));
      this.recovered.frontEnd += batch.length;
      return;
    }
    this.inPool++;
    this.recovered.pool += batch.length;
    this.pool.run({ digests: batch.map((w) => w.digest), signatures: batch.map((w) => w.signature) }).then(
      (addresses) => {
        this.inPool--;
        batch.forEach((w, index) => w.resolve(addresses[index] ?? undefined));
      },
      (error: Error) => {
        this.inPool--;
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

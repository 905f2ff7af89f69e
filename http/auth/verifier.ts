// Where order signatures are checked. Recovery is the costliest step of a placement (~55 µs
// native per signature here), so the front end can hand it to a piscina pool instead of doing it
// on the event loop. Requests that arrive together are recovered together: one pool task per
// batch of up to BATCH_MAX signatures, which keeps the message-passing cost per signature small.
// Nothing is cached: every order's own digest and signature are checked every time.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { recoverAddress } from './recover.js';
import type { RecoverTask } from './recover_task.js';

export interface SignatureVerifier {
  /** The lower-case address that signed `digest`, or undefined. */
  recover(digest: Uint8Array, signature: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Recovers on the calling thread. */
export class InlineVerifier implements SignatureVerifier {
  recover(digest: Uint8Array, signature: string): Promise<string | undefined> {
    return Promise.resolve(recoverAddress(digest, signature));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const BATCH_MAX = 64;
/** Tasks waiting for a pool thread; past this the verifier refuses with a 503 upstream. */
const QUEUE_MAX = 4096;

interface Waiting {
  readonly digest: Uint8Array;
  readonly signature: string;
  readonly resolve: (address: string | undefined) => void;
  readonly reject: (error: Error) => void;
}

/** Recovers on piscina threads, batching what arrives in the same turn of the event loop. */
export class PoolVerifier implements SignatureVerifier {
  private readonly pool: Piscina<RecoverTask, (string | null)[]>;
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(threads = Math.max(1, availableParallelism() - 1)) {
    // A named export, not a default one: piscina require()s the task file first, and Node 20's
    // require() of an ES module with a default export builds a facade module that, now and
    // then, fails a native assertion and aborts the whole process (seen in the crash test).
    this.pool = new Piscina({
      filename: new URL('./recover_task.js', import.meta.url).href, name: 'recoverBatch', minThreads: threads, maxThreads: threads, maxQueue: QUEUE_MAX,
    });
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

  close(): Promise<void> {
    return this.pool.destroy();
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    this.pool.run({ digests: batch.map((w) => w.digest), signatures: batch.map((w) => w.signature) }).then(
      (addresses) => batch.forEach((w, index) => w.resolve(addresses[index] ?? undefined)),
      (error: Error) => batch.forEach((w) => w.reject(error)),
    );
  }
}

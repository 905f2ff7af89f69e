// A shard's side of the replicated journal (http/replication/). Every committed batch's journal
// entry is handed, copied, to the replication thread, which appends it to the shard's JetStream
// subject and writes back, in shared memory, the last batch the stream holds ("acked").
//
// - REPLICATION=sync: a batch's answers wait here until the stream holds the batch. The shard
//   meanwhile goes on applying and committing what arrives (the next batch grows while the
//   stream acknowledges: group commit over the network as over the disk).
// - Either mode: at most `bytesMax` bytes of entries may wait for the stream. Past that the shard
//   waits for it, its command ring fills, and the front end answers 503 (busy) at once: a stream
//   that is down or slow never grows a queue without bound.
// - The store keeps every journal entry the stream lacks (ShardStore.keepJournalAfter): a worker
//   that starts again sends what the stream misses from there.
//
// The engine does not depend on any of this: the worker calls it only when replication is on.
import type { MessagePort } from 'node:worker_threads';

/** What a shard worker needs to feed the replicated journal (ShardWorkerData.journalFeed). */
export interface JournalFeedSetup {
  /** To the replication thread: one JournalEntry message per committed batch. */
  readonly port: MessagePort;
  /** A BigInt64Array of FEED_WORDS: the last batch the stream holds, and the feed's state. */
  readonly shared: SharedArrayBuffer;
  /** REPLICATION=sync: answers wait for the stream. */
  readonly sync: boolean;
  /** Most bytes of entries waiting for the stream before the shard waits. */
  readonly bytesMax: number;
}

/**
 * What a replica's shard worker needs to follow the replicated journal (ShardWorkerData.following):
 * the replication thread posts it the primary's batches (JournalEntry messages) from the one
 * after the worker's last (which the worker posts first, as a FollowFrom), and the worker
 * writes each batch it applied to the ACKED word, which the thread reads to send no more than a
 * bounded number ahead.
 */
export interface JournalFollowSetup {
  readonly port: MessagePort;
  readonly shared: SharedArrayBuffer;
}

/** A following worker's first message: the last batch it holds, after which the thread starts. */
export interface FollowFrom {
  readonly type: 'from';
  readonly batch: number;
}

/** The shared words: [ACKED] the last batch the stream holds; [STATE] a FEED_STATE. */
export const FEED_WORDS = { ACKED: 0, STATE: 1 } as const;
export const FEED_WORD_COUNT = 2;

/**
 * OK: the stream takes this shard's batches. FENCED: another writer appended to the shard's
 * subject (a primary that took over): nothing this worker commits from now on may be answered.
 */
export const FEED_STATE = { OK: 0n, FENCED: 1n } as const;

/** A committed batch's journal entry, as the worker posts it (its bytes are transferred). */
export interface JournalEntry {
  readonly batch: number;
  readonly bytes: Uint8Array;
}

/** A batch's answers, held until the stream holds the batch. */
interface Held {
  readonly batch: number;
  readonly bytes: Buffer;
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

/** Longest single sleep while waiting for the stream, between looks at the kill switch. */
const WAIT_SLICE_MS = 5;

export class JournalFeed {
  private readonly words: BigInt64Array;
  /** Batches sent and not yet acked, oldest first, from `sentHead` on: [batch, bytes]. */
  private readonly sent: [number, number][] = [];
  private sentHead = 0;
  private sentBytes = 0;
  private readonly held: Held[] = [];
  private heldHead = 0;

  constructor(private readonly setup: JournalFeedSetup) {
    this.words = new BigInt64Array(setup.shared);
  }

  get sync(): boolean {
    return this.setup.sync;
  }

  /** The last batch the stream holds. */
  acked(): number {
    return Number(Atomics.load(this.words, FEED_WORDS.ACKED));
  }

  fenced(): boolean {
    return Atomics.load(this.words, FEED_WORDS.STATE) === FEED_STATE.FENCED;
  }

  /** Hands a committed batch's entry (copied: `bytes` is reused by the caller) to the replication thread. */
  send(batch: number, bytes: Uint8Array): void {
    const copy = new Uint8Array(bytes.length);
    copy.set(bytes);
    this.setup.port.postMessage({ batch, bytes: copy } satisfies JournalEntry, [copy.buffer]);
    this.sent.push([batch, copy.length]);
    this.sentBytes += copy.length;
  }

  /** Whether the entries waiting for the stream passed `bytesMax` (the shard must wait before taking more). */
  full(): boolean {
    this.forgetAcked();
    return this.sentBytes > this.setup.bytesMax;
  }

  /** Bytes of entries sent and not yet acked. */
  waitingBytes(): number {
    this.forgetAcked();
    return this.sentBytes;
  }

  /** Holds a batch's answers (copied out of `source`'s [starts[i], ends[i]) ranges) until the stream holds `batch`. */
  hold(batch: number, source: Buffer, starts: readonly number[], ends: readonly number[]): void {
    if (starts.length === 0) return;
    const from = starts[0]!;
    const to = ends[ends.length - 1]!;
    const bytes = Buffer.from(source.subarray(from, to));
    this.held.push({ batch, bytes, starts: starts.map((start) => start - from), ends: ends.map((end) => end - from) });
  }

  /** Whether answers are held (later answers must queue behind them, to keep the shard's order). */
  holding(): boolean {
    return this.heldHead < this.held.length;
  }

  /** Whether the oldest held answers may go (their batch is in the stream). */
  releasable(): boolean {
    return this.holding() && this.held[this.heldHead]!.batch <= this.acked();
  }

  /** Hands every held batch the stream now holds to `write`, oldest first. */
  release(write: (bytes: Buffer, starts: readonly number[], ends: readonly number[]) => void): void {
    const acked = this.acked();
    while (this.heldHead < this.held.length && this.held[this.heldHead]!.batch <= acked) {
      const held = this.held[this.heldHead]!;
      this.heldHead++;
      write(held.bytes, held.starts, held.ends);
    }
    if (this.heldHead === this.held.length) {
      this.held.length = 0;
      this.heldHead = 0;
    } else if (this.heldHead > 1024 && this.heldHead * 2 > this.held.length) {
      this.held.splice(0, this.heldHead);
      this.heldHead = 0;
    }
  }

  /** The request ids of every held answer (an answer's first word), oldest first. */
  heldRequestIds(): number[] {
    return this.held.slice(this.heldHead).flatMap((held) => held.starts.map((start) => held.bytes.readUInt32LE(start)));
  }

  /**
   * Blocks until the stream holds `batch`, the feed is fenced, or `timeoutMs` passed; calls
   * `check` (the kill switch) between sleeps. True once the stream holds it.
   */
  waitFor(batch: number, timeoutMs: number, check: () => void): boolean {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const acked = Atomics.load(this.words, FEED_WORDS.ACKED);
      if (Number(acked) >= batch) return true;
      if (this.fenced()) return false;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      check();
      Atomics.wait(this.words, FEED_WORDS.ACKED, acked, Math.min(WAIT_SLICE_MS, left));
    }
  }

  /** Blocks while more than `bytesMax` bytes wait for the stream (see waitFor). */
  waitForRoom(check: () => void): void {
    while (this.full() && !this.fenced()) {
      const oldest = this.sent[this.sentHead]!;
      this.waitFor(oldest[0], WAIT_SLICE_MS, check);
    }
  }

  private forgetAcked(): void {
    const acked = this.acked();
    while (this.sentHead < this.sent.length && this.sent[this.sentHead]![0] <= acked) {
      this.sentBytes -= this.sent[this.sentHead]![1];
      this.sentHead++;
    }
    if (this.sentHead > 1024 && this.sentHead * 2 > this.sent.length) {
      this.sent.splice(0, this.sentHead);
      this.sentHead = 0;
    }
  }
}

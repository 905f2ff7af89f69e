// Finished order id → its entry in the history ring, for duplicate checks and reads of recent
// orders. The id strings stay in the ring; a probe compares them only where a hash matches. The
// ring is kept small (ORDER_HISTORY_DEFAULT), so the index stays in the core's caches: with a
// million remembered orders every probe was a miss of the last-level cache, about a quarter of a
// command's time.
//
// When the ring forgets its oldest entry, the entry's bucket stays: a probe that meets it
// compares the id the entry now holds (a newer order's, or none), which does not match, and goes
// on. Once the buckets hold twice the ring's capacity, the index is rebuilt from the ring alone,
// one insert for each entry it holds, a ring's worth of finished orders apart. Finding each
// forgotten entry's bucket and shifting its neighbours back cost ~200 instructions a command of
// the fast flow (a finished order nearly every command).
import { assert } from '../assert.js';
import { IdBuckets } from './id_buckets.js';
import type { OrderHistory } from './order_history.js';

export class FinishedIndex {
  private readonly buckets: IdBuckets;
  private readonly history: OrderHistory;
  /** Entries held, the ring's and forgotten ones, at which the index is rebuilt: its most. */
  readonly entriesMax: number;

  constructor(history: OrderHistory) {
    this.history = history;
    this.entriesMax = 2 * history.capacity;
    this.buckets = new IdBuckets(this.entriesMax);
  }

  /** Entries indexed: every entry the ring holds, and forgotten ones not yet rebuilt away. */
  size(): number {
    return this.buckets.entries;
  }

  /** The history entry of the finished order `id` (hashed as `hash`), or -1. */
  find(id: string, hash: number): number {
    return this.buckets.findKey(id, hash, this.history.id);
  }

  /** Indexes history entry `entry`, just appended to the ring for an order hashed as `hash`. */
  add(hash: number, entry: number): void {
    if (this.buckets.entries === this.entriesMax) {
      this.rebuild();
      return;
    }
    this.buckets.reserveOne();
    this.buckets.insert(hash, entry);
  }

  /**
   * Indexes what the ring holds (its newest entry included), and nothing else. The ring is full
   * by then (a capacity's worth of entries were forgotten), so every entry is one of its orders.
   */
  private rebuild(): void {
    assert(this.history.isFull(), 'rebuild: the ring is full');
    this.buckets.refill(this.history.idHash, this.history.capacity);
  }
}

// Finished order id → its entry in the history ring, for duplicate checks and reads of recent
// orders. The id strings stay in the ring; a probe compares them only where a hash matches.
// When the ring forgets its oldest entry, that entry's bucket is found by hash and entry (no
// string compared) and deleted. The ring is kept small (ORDER_HISTORY_DEFAULT), so the index
// stays in the core's caches: with a million remembered orders every probe and every delete was
// a miss of the last-level cache, about a quarter of a command's time.
import { IdBuckets } from './id_buckets.js';
import type { OrderHistory } from './order_history.js';

export class FinishedIndex {
  private readonly buckets: IdBuckets;
  private readonly history: OrderHistory;

  constructor(history: OrderHistory) {
    this.history = history;
    this.buckets = new IdBuckets(history.capacity);
  }

  size(): number {
    return this.buckets.entries;
  }

  /** The history entry of the finished order `id` (hashed as `hash`), or -1. */
  find(id: string, hash: number): number {
    return this.buckets.findKey(id, hash, this.history.id);
  }

  /** Indexes history entry `entry`, just recorded for an order hashed as `hash`. */
  add(hash: number, entry: number): void {
    this.buckets.reserveOne();
    this.buckets.insert(hash, entry);
  }

  /** Drops history entry `entry` (hashed as `hash`), which the ring is forgetting. */
  remove(hash: number, entry: number): void {
    this.buckets.deleteAt(this.buckets.find(hash, entry));
  }
}

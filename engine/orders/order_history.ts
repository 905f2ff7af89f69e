// Finished orders (filled, cancelled, expired), remembered in a bounded ring so a resubmitted
// id is rejected as a duplicate and a reader can still see how a recent order ended. When the
// ring is full the oldest entry is forgotten: memory stays bounded however long the engine runs,
// and the capacity (an engine option) says how far back duplicate detection reaches.
import { assert } from '../assert.js';
import type { CancelReason } from './order_status.js';

export class OrderHistory {
  readonly capacity: number;
  readonly id: string[];
  /** The id's hash (state.hashId), so forgetting an entry finds its index bucket without the id. */
  readonly idHash: Int32Array;
  readonly account: Int32Array;
  readonly market: Int32Array;
  readonly outcome: Uint8Array;
  readonly side: Uint8Array;
  readonly orderType: Uint8Array;
  readonly bookPrice: Int32Array;
  readonly originalMicros: Float64Array;
  readonly matchedMicros: Float64Array;
  readonly cancelReason: Uint8Array;
  readonly createdAtMs: Float64Array;
  readonly expirationMs: Float64Array;
  readonly finishedAtMs: Float64Array;
  private oldestEntry = 0;
  /** Where the next entry goes: (oldest + count) mod capacity, kept to avoid the division. */
  private nextEntry = 0;
  private entries = 0;

  constructor(capacity: number) {
    assert(Number.isInteger(capacity) && capacity > 0, 'history capacity');
    this.capacity = capacity;
    // Holes until used: ids are read only for entries in the ring.
    this.id = new Array<string>(capacity);
    this.idHash = new Int32Array(capacity);
    this.account = new Int32Array(capacity);
    this.market = new Int32Array(capacity);
    this.outcome = new Uint8Array(capacity);
    this.side = new Uint8Array(capacity);
    this.orderType = new Uint8Array(capacity);
    this.bookPrice = new Int32Array(capacity);
    this.originalMicros = new Float64Array(capacity);
    this.matchedMicros = new Float64Array(capacity);
    this.cancelReason = new Uint8Array(capacity);
    this.createdAtMs = new Float64Array(capacity);
    this.expirationMs = new Float64Array(capacity);
    this.finishedAtMs = new Float64Array(capacity);
  }

  count(): number {
    return this.entries;
  }

  isFull(): boolean {
    return this.entries === this.capacity;
  }

  dropOldest(): void {
    assert(this.entries > 0, 'dropOldest: history not empty');
    this.id[this.oldestEntry] = '';
    this.oldestEntry = this.oldestEntry + 1 === this.capacity ? 0 : this.oldestEntry + 1;
    this.entries -= 1;
  }

  /** Claims the newest entry; the caller fills its columns. */
  append(): number {
    assert(this.entries < this.capacity, 'append: the caller drops the oldest first');
    const entry = this.nextEntry;
    this.nextEntry = entry + 1 === this.capacity ? 0 : entry + 1;
    this.entries += 1;
    return entry;
  }

  /**
   * Writes every column of `entry` but its times, which the caller writes into createdAtMs,
   * expirationMs and finishedAtMs itself: a time is past the small-integer range, and where
   * TurboFan did not inline this call it boxed each one into a new heap number (V8's sampling
   * heap profiler: ~15 bytes a command of the deep flow, in the compilations that left it out).
   */
  record(
    entry: number, id: string, account: number, market: number, outcome: number, side: number,
    orderType: number, bookPrice: number, originalMicros: number, matchedMicros: number, cancelReason: CancelReason,
  ): void {
    this.id[entry] = id;
    this.account[entry] = account;
    this.market[entry] = market;
    this.outcome[entry] = outcome;
    this.side[entry] = side;
    this.orderType[entry] = orderType;
    this.bookPrice[entry] = bookPrice;
    this.originalMicros[entry] = originalMicros;
    this.matchedMicros[entry] = matchedMicros;
    this.cancelReason[entry] = cancelReason;
  }

  cancelReasonOf(entry: number): CancelReason {
    return this.cancelReason[entry] as CancelReason;
  }

  /** The i-th entry from the oldest (for snapshots, which keep the ring's order). */
  entryAt(index: number): number {
    assert(index >= 0 && index < this.entries, 'entryAt: index in range');
    return (this.oldestEntry + index) % this.capacity;
  }
}

// GTD orders by expiration: a binary min-heap over preallocated arrays, keyed by (expiration,
// placement serial) so equal expirations leave in placement order on every replay. Cancelled
// or filled orders are not removed from the heap; their entries are recognised as stale when
// they surface (the slot's serial no longer matches) and dropped. When stale entries fill the
// heap it is compacted in place, so its size stays within a constant factor of the live orders.
import { assert } from '../assert.js';

/** Tells whether the order placed as `serial` still lives in `slot`. */
export type LiveCheck = (slot: number, serial: number) => boolean;

export class ExpiryHeap {
  readonly capacity: number;
  private readonly expirations: Float64Array;
  private readonly serials: Float64Array;
  private readonly slots: Int32Array;
  private length = 0;

  constructor(capacity: number) {
    assert(Number.isInteger(capacity) && capacity > 0, 'expiry heap capacity');
    this.capacity = capacity;
    this.expirations = new Float64Array(capacity);
    this.serials = new Float64Array(capacity);
    this.slots = new Int32Array(capacity);
  }

  size(): number {
    return this.length;
  }

  /** The earliest expiration, or +Infinity when empty. */
  peekExpiration(): number {
    return this.length === 0 ? Infinity : this.expirations[0]!;
  }

  peekSlot(): number {
    return this.slots[0]!;
  }

  peekSerial(): number {
    return this.serials[0]!;
  }

  push(expirationMs: number, serial: number, slot: number, isLive: LiveCheck): void {
    if (this.length === this.capacity) this.compact(isLive);
    assert(this.length < this.capacity, 'push: compaction made room (capacity > live orders)');
    let index = this.length;
    this.length += 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.less(expirationMs, serial, parent)) break;
      this.move(parent, index);
      index = parent;
    }
    this.put(index, expirationMs, serial, slot);
  }

  pop(): void {
    assert(this.length > 0, 'pop: heap not empty');
    this.length -= 1;
    if (this.length === 0) return;
    const last = this.length;
    this.siftDown(0, this.expirations[last]!, this.serials[last]!, this.slots[last]!);
  }

  /** Drops every stale entry and restores the heap order. */
  compact(isLive: LiveCheck): void {
    let kept = 0;
    for (let index = 0; index < this.length; index += 1) {
      if (isLive(this.slots[index]!, this.serials[index]!)) {
        this.move(index, kept);
        kept += 1;
      }
    }
    this.length = kept;
    for (let index = (kept >> 1) - 1; index >= 0; index -= 1) {
      this.siftDown(index, this.expirations[index]!, this.serials[index]!, this.slots[index]!);
    }
  }

  /** Visits every entry, stale ones included (verify mode). */
  forEach(visit: (expirationMs: number, serial: number, slot: number) => void): void {
    for (let index = 0; index < this.length; index += 1) {
      visit(this.expirations[index]!, this.serials[index]!, this.slots[index]!);
    }
  }

  private siftDown(start: number, expirationMs: number, serial: number, slot: number): void {
    let index = start;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= this.length) break;
      if (child + 1 < this.length && this.lessAt(child + 1, child)) child += 1;
      if (!this.lessThanValues(child, expirationMs, serial)) break;
      this.move(child, index);
      index = child;
    }
    this.put(index, expirationMs, serial, slot);
  }

  /** Whether (expirationMs, serial) sorts before the entry at `index`. */
  private less(expirationMs: number, serial: number, index: number): boolean {
    const other = this.expirations[index]!;
    return expirationMs < other || (expirationMs === other && serial < this.serials[index]!);
  }

  private lessAt(a: number, b: number): boolean {
    return this.less(this.expirations[a]!, this.serials[a]!, b);
  }

  /** Whether the entry at `index` sorts before (expirationMs, serial). */
  private lessThanValues(index: number, expirationMs: number, serial: number): boolean {
    const own = this.expirations[index]!;
    return own < expirationMs || (own === expirationMs && this.serials[index]! < serial);
  }

  private move(from: number, to: number): void {
    this.expirations[to] = this.expirations[from]!;
    this.serials[to] = this.serials[from]!;
    this.slots[to] = this.slots[from]!;
  }

  private put(index: number, expirationMs: number, serial: number, slot: number): void {
    this.expirations[index] = expirationMs;
    this.serials[index] = serial;
    this.slots[index] = slot;
  }
}

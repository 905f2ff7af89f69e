// What one command touched (price levels, balances) and the values they had before it, so the
// engine emits one event per changed item at the end of the command, in key order, instead of
// one per intermediate step. An item's key is a pair of small integers (for a level: market and
// side, then price; for a balance: account, then asset), sorted as one number, first × KEY_SPAN +
// second, and kept as its two halves too (dividing the key back cost the end of every command a
// float division per item), plus a reference the owner uses to read the current value. Owners
// mark items with the current `stamp` to record each item once per command without a lookup;
// clearing bumps the stamp, which unmarks everything at once.
//
// A command usually touches a handful of items, so they are put in key order by an insertion
// sort of their indices (`order`; a heap sort when there are many); the items never move. The columns are public so the end of
// the command reads them in one tight loop.
import { assert } from './assert.js';
import { DIRTY_KEY_SPAN } from './constants.js';

/** The second half of a key is below this (a price ≤ 10 000, an asset ≤ 2 × 4096 + 1). */
export const KEY_SPAN = DIRTY_KEY_SPAN;

/** Up to this many items an insertion sort is cheapest; past it a heap sort bounds the work. */
const INSERTION_SORT_MAX = 32;

export class DirtyList {
  /** Items whose stamp equals this were already recorded in the current command. */
  stamp = 1;
  /** Items recorded in the current command. */
  length = 0;
  /** first × KEY_SPAN + second: the sort key. */
  keys: Float64Array;
  /** The key's halves as they were given, so a reader need not divide the key back. */
  firsts: Int32Array;
  seconds: Int32Array;
  refs: Int32Array;
  startsA: Float64Array;
  startsB: Float64Array;
  /** After sort(): item indices in key order. */
  order: Int32Array;

  constructor(initialCapacity: number) {
    assert(Number.isInteger(initialCapacity) && initialCapacity > 0, 'dirty list capacity');
    this.keys = new Float64Array(initialCapacity);
    this.firsts = new Int32Array(initialCapacity);
    this.seconds = new Int32Array(initialCapacity);
    this.refs = new Int32Array(initialCapacity);
    this.startsA = new Float64Array(initialCapacity);
    this.startsB = new Float64Array(initialCapacity);
    this.order = new Int32Array(initialCapacity);
  }

  /** Records an item: its key pair, its owner's reference and its values before the command. */
  add(first: number, second: number, ref: number, startA: number, startB: number): void {
    const index = this.length;
    if (index === this.keys.length) this.grow();
    this.keys[index] = first * KEY_SPAN + second;
    this.firsts[index] = first;
    this.seconds[index] = second;
    this.refs[index] = ref;
    this.startsA[index] = startA;
    this.startsB[index] = startB;
    this.length = index + 1;
  }

  /** Forgets every item and starts a new command. */
  clear(): void {
    this.length = 0;
    this.stamp += 1;
  }

  /** Fills `order` with the item indices sorted by key (keys are distinct). */
  sort(): void {
    if (this.length <= INSERTION_SORT_MAX) this.insertionSort();
    else this.heapSort();
  }

  private insertionSort(): void {
    const keys = this.keys;
    const order = this.order;
    const length = this.length;
    for (let index = 0; index < length; index += 1) {
      const key = keys[index]!;
      let hole = index;
      while (hole > 0 && keys[order[hole - 1]!]! > key) {
        order[hole] = order[hole - 1]!;
        hole -= 1;
      }
      order[hole] = index;
    }
  }

  /** O(n log n) in place, for the commands that touch many items (cancel-all, resolution). */
  private heapSort(): void {
    const order = this.order;
    const length = this.length;
    for (let index = 0; index < length; index += 1) order[index] = index;
    for (let root = (length >> 1) - 1; root >= 0; root -= 1) this.siftDown(root, length);
    for (let end = length - 1; end > 0; end -= 1) {
      const top = order[0]!;
      order[0] = order[end]!;
      order[end] = top;
      this.siftDown(0, end);
    }
  }

  /** Restores the max-heap below `root` within order[0, end). */
  private siftDown(root: number, end: number): void {
    const keys = this.keys;
    const order = this.order;
    const item = order[root]!;
    const key = keys[item]!;
    let hole = root;
    for (;;) {
      let child = 2 * hole + 1;
      if (child >= end) break;
      if (child + 1 < end && keys[order[child + 1]!]! > keys[order[child]!]!) child += 1;
      if (keys[order[child]!]! <= key) break;
      order[hole] = order[child]!;
      hole = child;
    }
    order[hole] = item;
  }

  private grow(): void {
    const capacity = this.keys.length * 2;
    this.keys = grown(this.keys, new Float64Array(capacity));
    this.firsts = grown(this.firsts, new Int32Array(capacity));
    this.seconds = grown(this.seconds, new Int32Array(capacity));
    this.refs = grown(this.refs, new Int32Array(capacity));
    this.startsA = grown(this.startsA, new Float64Array(capacity));
    this.startsB = grown(this.startsB, new Float64Array(capacity));
    this.order = new Int32Array(capacity);
  }
}

function grown<T extends Float64Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

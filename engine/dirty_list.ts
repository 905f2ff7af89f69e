// What one command touched (price levels, balances) and the values they had before it, so the
// engine emits one event per changed item at the end of the command, in key order, instead of
// one per intermediate step. An item's key is a pair of small integers (for a level: market and
// side, then price; for a balance: account, then asset) plus a reference the owner uses to read
// the current value. Owners mark items with the current `stamp` to record each item once per
// command without a lookup; clearing bumps the stamp, which unmarks everything at once.
import { assert } from './assert.js';

export class DirtyList {
  /** Items whose stamp equals this were already recorded in the current command. */
  stamp = 1;
  private firstColumn: Int32Array;
  private secondColumn: Int32Array;
  private refColumn: Int32Array;
  private startAColumn: Float64Array;
  private startBColumn: Float64Array;
  private length = 0;

  constructor(initialCapacity: number) {
    assert(Number.isInteger(initialCapacity) && initialCapacity > 0, 'dirty list capacity');
    this.firstColumn = new Int32Array(initialCapacity);
    this.secondColumn = new Int32Array(initialCapacity);
    this.refColumn = new Int32Array(initialCapacity);
    this.startAColumn = new Float64Array(initialCapacity);
    this.startBColumn = new Float64Array(initialCapacity);
  }

  count(): number {
    return this.length;
  }

  first(index: number): number {
    return this.firstColumn[index]!;
  }

  second(index: number): number {
    return this.secondColumn[index]!;
  }

  ref(index: number): number {
    return this.refColumn[index]!;
  }

  startA(index: number): number {
    return this.startAColumn[index]!;
  }

  startB(index: number): number {
    return this.startBColumn[index]!;
  }

  add(first: number, second: number, ref: number, startA: number, startB: number): void {
    if (this.length === this.firstColumn.length) this.grow();
    const index = this.length;
    this.firstColumn[index] = first;
    this.secondColumn[index] = second;
    this.refColumn[index] = ref;
    this.startAColumn[index] = startA;
    this.startBColumn[index] = startB;
    this.length = index + 1;
  }

  /** Forgets every item and starts a new command. */
  clear(): void {
    this.length = 0;
    this.stamp += 1;
  }

  /** Sorts the items by (first, second), which are distinct: insertion sort within Shell gaps. */
  sort(): void {
    let gap = 1;
    while (gap < this.length / 3) gap = 3 * gap + 1;
    for (; gap >= 1; gap = (gap - 1) / 3) {
      for (let index = gap; index < this.length; index += 1) this.insertWithGap(index, gap);
    }
  }

  private insertWithGap(index: number, gap: number): void {
    const first = this.firstColumn[index]!;
    const second = this.secondColumn[index]!;
    const ref = this.refColumn[index]!;
    const startA = this.startAColumn[index]!;
    const startB = this.startBColumn[index]!;
    let hole = index;
    while (hole >= gap && this.isAfter(hole - gap, first, second)) {
      this.move(hole - gap, hole);
      hole -= gap;
    }
    this.firstColumn[hole] = first;
    this.secondColumn[hole] = second;
    this.refColumn[hole] = ref;
    this.startAColumn[hole] = startA;
    this.startBColumn[hole] = startB;
  }

  private isAfter(index: number, first: number, second: number): boolean {
    const own = this.firstColumn[index]!;
    return own > first || (own === first && this.secondColumn[index]! > second);
  }

  private move(from: number, to: number): void {
    this.firstColumn[to] = this.firstColumn[from]!;
    this.secondColumn[to] = this.secondColumn[from]!;
    this.refColumn[to] = this.refColumn[from]!;
    this.startAColumn[to] = this.startAColumn[from]!;
    this.startBColumn[to] = this.startBColumn[from]!;
  }

  private grow(): void {
    const capacity = this.firstColumn.length * 2;
    const first = new Int32Array(capacity);
    const second = new Int32Array(capacity);
    const ref = new Int32Array(capacity);
    const startsA = new Float64Array(capacity);
    const startsB = new Float64Array(capacity);
    first.set(this.firstColumn);
    second.set(this.secondColumn);
    ref.set(this.refColumn);
    startsA.set(this.startAColumn);
    startsB.set(this.startBColumn);
    this.firstColumn = first;
    this.secondColumn = second;
    this.refColumn = ref;
    this.startAColumn = startsA;
    this.startBColumn = startsB;
  }
}

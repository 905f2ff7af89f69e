// What one command touched (price levels, balances) and the values they had before it, so the
// engine emits one event per changed item at the end of the command, in key order, instead of
// one per intermediate step. Owners mark items with the current `stamp` to record each item
// once per command without a lookup; clearing bumps the stamp, which unmarks everything at once.
import { assert } from './assert.js';

export class DirtyList {
  /** Items whose stamp equals this were already recorded in the current command. */
  stamp = 1;
  private keyColumn: Float64Array;
  private startAColumn: Float64Array;
  private startBColumn: Float64Array;
  private length = 0;

  constructor(initialCapacity: number) {
    assert(Number.isInteger(initialCapacity) && initialCapacity > 0, 'dirty list capacity');
    this.keyColumn = new Float64Array(initialCapacity);
    this.startAColumn = new Float64Array(initialCapacity);
    this.startBColumn = new Float64Array(initialCapacity);
  }

  count(): number {
    return this.length;
  }

  key(index: number): number {
    return this.keyColumn[index]!;
  }

  startA(index: number): number {
    return this.startAColumn[index]!;
  }

  startB(index: number): number {
    return this.startBColumn[index]!;
  }

  add(key: number, startA: number, startB: number): void {
    if (this.length === this.keyColumn.length) this.grow();
    this.keyColumn[this.length] = key;
    this.startAColumn[this.length] = startA;
    this.startBColumn[this.length] = startB;
    this.length += 1;
  }

  /** Forgets every item and starts a new command. */
  clear(): void {
    this.length = 0;
    this.stamp += 1;
  }

  /** Sorts the items by key (keys are distinct): insertion sort within Shell-sort gaps. */
  sort(): void {
    let gap = 1;
    while (gap < this.length / 3) gap = 3 * gap + 1;
    for (; gap >= 1; gap = (gap - 1) / 3) {
      for (let index = gap; index < this.length; index += 1) this.insertWithGap(index, gap);
    }
  }

  private insertWithGap(index: number, gap: number): void {
    const key = this.keyColumn[index]!;
    const startA = this.startAColumn[index]!;
    const startB = this.startBColumn[index]!;
    let hole = index;
    while (hole >= gap && this.keyColumn[hole - gap]! > key) {
      this.keyColumn[hole] = this.keyColumn[hole - gap]!;
      this.startAColumn[hole] = this.startAColumn[hole - gap]!;
      this.startBColumn[hole] = this.startBColumn[hole - gap]!;
      hole -= gap;
    }
    this.keyColumn[hole] = key;
    this.startAColumn[hole] = startA;
    this.startBColumn[hole] = startB;
  }

  private grow(): void {
    const capacity = this.keyColumn.length * 2;
    const keys = new Float64Array(capacity);
    const startsA = new Float64Array(capacity);
    const startsB = new Float64Array(capacity);
    keys.set(this.keyColumn);
    startsA.set(this.startAColumn);
    startsB.set(this.startBColumn);
    this.keyColumn = keys;
    this.startAColumn = startsA;
    this.startBColumn = startsB;
  }
}

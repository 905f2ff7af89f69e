// (small integer, small integer) → integer, an open-addressing hash table with linear probing
// over typed arrays, used for (account, market) → position. It grows by doubling while entries
// are added (new positions are rare next to orders) and never allocates on a lookup.
import { assert } from '../assert.js';

const EMPTY = -1;

function hashPair(a: number, b: number): number {
  let hash = Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca6b);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  return hash ^ (hash >>> 12);
}

export class PairTable {
  private keysA: Int32Array;
  private keysB: Int32Array;
  private values: Int32Array;
  private mask: number;
  private entries = 0;

  constructor(initialCapacity: number) {
    let capacity = 16;
    while (capacity < initialCapacity) capacity *= 2;
    this.keysA = new Int32Array(capacity).fill(EMPTY);
    this.keysB = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  size(): number {
    return this.entries;
  }

  /** The value stored for (a, b), or -1. */
  get(a: number, b: number): number {
    let position = hashPair(a, b) & this.mask;
    for (;;) {
      const key = this.keysA[position]!;
      if (key === EMPTY) return -1;
      if (key === a && this.keysB[position] === b) return this.values[position]!;
      position = (position + 1) & this.mask;
    }
  }

  /** Stores a pair known to be absent. */
  insert(a: number, b: number, value: number): void {
    assert(a >= 0 && b >= 0, 'insert: keys are non-negative');
    if (2 * (this.entries + 1) > this.keysA.length) this.grow();
    this.place(a, b, value);
    this.entries += 1;
  }

  delete(a: number, b: number): void {
    let position = hashPair(a, b) & this.mask;
    while (!(this.keysA[position] === a && this.keysB[position] === b)) {
      assert(this.keysA[position] !== EMPTY, 'delete: pair present');
      position = (position + 1) & this.mask;
    }
    this.shiftBack(position);
    this.entries -= 1;
  }

  private shiftBack(position: number): void {
    let hole = position;
    let probe = (position + 1) & this.mask;
    for (;;) {
      const a = this.keysA[probe]!;
      if (a === EMPTY) break;
      const b = this.keysB[probe]!;
      const home = hashPair(a, b) & this.mask;
      if (((probe - home) & this.mask) >= ((probe - hole) & this.mask)) {
        this.keysA[hole] = a;
        this.keysB[hole] = b;
        this.values[hole] = this.values[probe]!;
        hole = probe;
      }
      probe = (probe + 1) & this.mask;
    }
    this.keysA[hole] = EMPTY;
  }

  private place(a: number, b: number, value: number): void {
    let position = hashPair(a, b) & this.mask;
    while (this.keysA[position] !== EMPTY) position = (position + 1) & this.mask;
    this.keysA[position] = a;
    this.keysB[position] = b;
    this.values[position] = value;
  }

  private grow(): void {
    const keysA = this.keysA;
    const keysB = this.keysB;
    const values = this.values;
    const capacity = keysA.length * 2;
    this.keysA = new Int32Array(capacity).fill(EMPTY);
    this.keysB = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let position = 0; position < keysA.length; position += 1) {
      if (keysA[position] !== EMPTY) this.place(keysA[position]!, keysB[position]!, values[position]!);
    }
  }
}

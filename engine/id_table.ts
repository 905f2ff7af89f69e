// Order id → integer, an open-addressing hash table with linear probing over preallocated
// arrays. A JavaScript Map would reallocate its backing store as ids come and go (one order in,
// one order out, forever), which shows up as steady garbage on the hot path; this table never
// allocates after construction. Deletion shifts later entries back instead of leaving
// tombstones, so probe lengths stay short however long the engine runs.
import { assert } from './assert.js';

const EMPTY = '';

/** Characters hashed from the end of an id (all of a shorter id). */
const HASHED_CHARS_MAX = 20;

/**
 * Hash of an order id: its length and its last HASHED_CHARS_MAX characters, in two interleaved
 * FNV-1a lanes, then a murmur3 finalizer. Ids are EIP-712 hashes (random in every character) or,
 * in tests and tools, counters that vary at the end, so the tail carries all the entropy the
 * table needs; hashing every character of a 66-character id cost a third of a command. `seed`
 * varies the probe layout (never the engine's behaviour) so it cannot be precomputed.
 */
export function hashOrderId(id: string, seed: number): number {
  let a = 0x811c9dc5 ^ seed;
  let b = 0x01000193 ^ Math.imul(seed, 0x9e3779b1);
  const length = id.length;
  let index = length > HASHED_CHARS_MAX ? length - HASHED_CHARS_MAX : 0;
  for (; index + 1 < length; index += 2) {
    a = Math.imul(a ^ id.charCodeAt(index), 0x01000193);
    b = Math.imul(b ^ id.charCodeAt(index + 1), 0x01000193);
  }
  if (index < length) a = Math.imul(a ^ id.charCodeAt(index), 0x01000193);
  let hash = a ^ Math.imul(b, 0x9e3779b1) ^ length;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

export class IdTable {
  readonly capacity: number;
  private readonly mask: number;
  private readonly keys: string[];
  private readonly hashes: Int32Array;
  private readonly values: Int32Array;
  private entries = 0;
  private readonly entriesMax: number;

  private readonly seed: number;

  /** Holds up to `entriesMax` ids at a load factor of at most one half. */
  constructor(entriesMax: number, seed: number) {
    assert(Number.isInteger(entriesMax) && entriesMax > 0, 'id table size');
    let capacity = 16;
    while (capacity < 2 * entriesMax) capacity *= 2;
    this.capacity = capacity;
    this.mask = capacity - 1;
    this.entriesMax = entriesMax;
    this.seed = seed | 0;
    this.keys = new Array<string>(capacity).fill(EMPTY);
    this.hashes = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
  }

  /** The hash `find`, `insert` and the stored hashes use. */
  hash(id: string): number {
    return hashOrderId(id, this.seed);
  }

  size(): number {
    return this.entries;
  }

  /** The entry's position, or -1 when `id` is absent. */
  find(id: string, hash: number): number {
    let position = hash & this.mask;
    for (;;) {
      const key = this.keys[position]!;
      if (key === EMPTY) return -1;
      if (this.hashes[position] === hash && key === id) return position;
      position = (position + 1) & this.mask;
    }
  }

  valueAt(position: number): number {
    return this.values[position]!;
  }

  setValueAt(position: number, value: number): void {
    this.values[position] = value;
  }

  /** Inserts an id known to be absent. */
  insert(id: string, hash: number, value: number): void {
    assert(id !== EMPTY, 'insert: ids are non-empty');
    assert(this.entries < this.entriesMax, 'insert: the table was sized for every id');
    let position = hash & this.mask;
    while (this.keys[position] !== EMPTY) position = (position + 1) & this.mask;
    this.keys[position] = id;
    this.hashes[position] = hash;
    this.values[position] = value;
    this.entries += 1;
  }

  /** Removes the entry at `position` and shifts back the entries probing past it. */
  deleteAt(position: number): void {
    assert(this.keys[position] !== EMPTY, 'deleteAt: entry present');
    let hole = position;
    let probe = (position + 1) & this.mask;
    for (;;) {
      const key = this.keys[probe]!;
      if (key === EMPTY) break;
      const home = this.hashes[probe]! & this.mask;
      // The entry at `probe` may move into the hole only if its home is not in (hole, probe].
      if (((probe - home) & this.mask) >= ((probe - hole) & this.mask)) {
        this.keys[hole] = key;
        this.hashes[hole] = this.hashes[probe]!;
        this.values[hole] = this.values[probe]!;
        hole = probe;
      }
      probe = (probe + 1) & this.mask;
    }
    this.keys[hole] = EMPTY;
    this.entries -= 1;
  }

  /** Visits every entry (for verify mode and snapshots). */
  forEach(visit: (id: string, value: number) => void): void {
    for (let position = 0; position < this.capacity; position += 1) {
      const key = this.keys[position]!;
      if (key !== EMPTY) visit(key, this.values[position]!);
    }
  }
}

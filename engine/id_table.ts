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
function hashOrderId(id: string, seed: number): number {
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

/**
 * Values are stored shifted by this offset, so a stored 0 marks an unused bucket and a new
 * table needs no initialisation pass (real values lie in (-2^30, 2^30)).
 */
const VALUE_OFFSET = 2 ** 30;

export class IdTable {
  readonly capacity: number;
  private readonly mask: number;
  private readonly keys: string[];
  /** (hash, value) per bucket, interleaved: a probe reads one cache line, not one per column. */
  private readonly pairs: Int32Array;
  private readonly seed: number;
  private entries = 0;
  private readonly entriesMax: number;

  /** Holds up to `entriesMax` ids at a load factor of at most one half. */
  constructor(entriesMax: number, seed: number) {
    assert(Number.isInteger(entriesMax) && entriesMax > 0 && entriesMax < 2 ** 29, 'id table size');
    assert(entriesMax < VALUE_OFFSET, 'values stay clear of the empty marker');
    let capacity = 16;
    while (capacity < 2 * entriesMax) capacity *= 2;
    this.capacity = capacity;
    this.mask = capacity - 1;
    this.entriesMax = entriesMax;
    this.seed = seed | 0;
    // Holes until used: a key is read only where the pair says the bucket is in use.
    this.keys = new Array<string>(capacity);
    this.pairs = new Int32Array(2 * capacity);
  }

  /** The hash `find`, `insert` and the stored hashes use. */
  hash(id: string): number {
    return hashOrderId(id, this.seed);
  }

  size(): number {
    return this.entries;
  }

  /** The entry's position, or -1 when `id` is absent. Keys are read only when hashes match. */
  find(id: string, hash: number): number {
    let position = hash & this.mask;
    for (;;) {
      if (this.pairs[2 * position + 1] === 0) return -1;
      if (this.pairs[2 * position] === hash && this.keys[position] === id) return position;
      position = (position + 1) & this.mask;
    }
  }

  valueAt(position: number): number {
    return this.pairs[2 * position + 1]! - VALUE_OFFSET;
  }

  setValueAt(position: number, value: number): void {
    assert(value > -VALUE_OFFSET && value < VALUE_OFFSET, 'setValueAt: value in range');
    this.pairs[2 * position + 1] = value + VALUE_OFFSET;
  }

  /** Inserts an id known to be absent. */
  insert(id: string, hash: number, value: number): void {
    assert(id !== EMPTY && value > -VALUE_OFFSET && value < VALUE_OFFSET, 'insert: a real id and value');
    assert(this.entries < this.entriesMax, 'insert: the table was sized for every id');
    let position = hash & this.mask;
    while (this.pairs[2 * position + 1] !== 0) position = (position + 1) & this.mask;
    this.keys[position] = id;
    this.pairs[2 * position] = hash;
    this.pairs[2 * position + 1] = value + VALUE_OFFSET;
    this.entries += 1;
  }

  /** Removes the entry at `position` and shifts back the entries probing past it. */
  deleteAt(position: number): void {
    assert(this.pairs[2 * position + 1] !== 0, 'deleteAt: entry present');
    let hole = position;
    let probe = (position + 1) & this.mask;
    for (;;) {
      const value = this.pairs[2 * probe + 1]!;
      if (value === 0) break;
      const hash = this.pairs[2 * probe]!;
      const home = hash & this.mask;
      // The entry at `probe` may move into the hole only if its home is not in (hole, probe].
      if (((probe - home) & this.mask) >= ((probe - hole) & this.mask)) {
        this.keys[hole] = this.keys[probe]!;
        this.pairs[2 * hole] = hash;
        this.pairs[2 * hole + 1] = value;
        hole = probe;
      }
      probe = (probe + 1) & this.mask;
    }
    this.keys[hole] = EMPTY;
    this.pairs[2 * hole + 1] = 0;
    this.entries -= 1;
  }
}

// Order id → integer, an open-addressing hash table with linear probing over one preallocated
// array of (hash, value, key) buckets. A JavaScript Map would reallocate its backing store as
// ids come and go (one order in, one order out, forever), which shows up as steady garbage on
// the hot path; this table never allocates after construction. Deletion shifts later entries
// back instead of leaving tombstones, so probe lengths stay short however long the engine runs.
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

/** Hashes are kept to 30 bits so a bucket stores them as small integers, never as boxed numbers. */
const HASH_MASK = 0x3fffffff;

/**
 * Values are stored shifted by this offset, so a stored 0 marks an unused bucket and a new
 * table needs no initialisation pass. Real values lie in (-2^29, 2^29), so every stored value
 * is a small integer too (below 2^30).
 */
const VALUE_OFFSET = 2 ** 29;

/** Elements per bucket: hash, stored value, key. */
const BUCKET = 3;

export class IdTable {
  readonly capacity: number;
  private readonly mask: number;
  /**
   * (hash, value, key) per bucket in one array, so a probe and the key comparison that ends it
   * read the same cache line: with the keys in a column of their own, every lookup that found
   * its id, and every insert and delete, touched a second random line of a table tens of
   * megabytes large.
   */
  private readonly buckets: (number | string)[];
  private readonly seed: number;
  private entries = 0;
  private readonly entriesMax: number;

  /** Holds up to `entriesMax` ids at a load factor of at most one half. */
  constructor(entriesMax: number, seed: number) {
    assert(Number.isInteger(entriesMax) && entriesMax > 0 && entriesMax < VALUE_OFFSET, 'id table size');
    let capacity = 16;
    while (capacity < 2 * entriesMax) capacity *= 2;
    this.capacity = capacity;
    this.mask = capacity - 1;
    this.entriesMax = entriesMax;
    this.seed = seed | 0;
    // Filled with small integers so the array's elements start (and stay) in one packed kind;
    // a key slot is read only where the value says the bucket is in use.
    this.buckets = new Array<number | string>(BUCKET * capacity).fill(0);
  }

  /** The hash `find`, `insert` and the stored hashes use (30 bits). */
  hash(id: string): number {
    return hashOrderId(id, this.seed) & HASH_MASK;
  }

  size(): number {
    return this.entries;
  }

  /** The entry's position, or -1 when `id` is absent. Keys are compared only when hashes match. */
  find(id: string, hash: number): number {
    const buckets = this.buckets;
    let position = hash & this.mask;
    for (;;) {
      const base = BUCKET * position;
      if (buckets[base + 1] === 0) return -1;
      if (buckets[base] === hash && buckets[base + 2] === id) return position;
      position = (position + 1) & this.mask;
    }
  }

  /**
   * The position of the entry holding `value`, which must be present and held by no other entry.
   * Hashes and values identify it, so no key is compared.
   */
  findValue(hash: number, value: number): number {
    const buckets = this.buckets;
    const stored = value + VALUE_OFFSET;
    let position = hash & this.mask;
    while (buckets[BUCKET * position + 1] !== stored || buckets[BUCKET * position] !== hash) {
      assert(buckets[BUCKET * position + 1] !== 0, 'findValue: the value is present');
      position = (position + 1) & this.mask;
    }
    return position;
  }

  valueAt(position: number): number {
    return (this.buckets[BUCKET * position + 1] as number) - VALUE_OFFSET;
  }

  setValueAt(position: number, value: number): void {
    assert(value > -VALUE_OFFSET && value < VALUE_OFFSET, 'setValueAt: value in range');
    this.buckets[BUCKET * position + 1] = value + VALUE_OFFSET;
  }

  /** Inserts an id known to be absent. */
  insert(id: string, hash: number, value: number): void {
    assert(id !== EMPTY && value > -VALUE_OFFSET && value < VALUE_OFFSET, 'insert: a real id and value');
    assert(hash === (hash & HASH_MASK), 'insert: a hash from hash()');
    assert(this.entries < this.entriesMax, 'insert: the table was sized for every id');
    const buckets = this.buckets;
    let position = hash & this.mask;
    while (buckets[BUCKET * position + 1] !== 0) position = (position + 1) & this.mask;
    const base = BUCKET * position;
    buckets[base] = hash;
    buckets[base + 1] = value + VALUE_OFFSET;
    buckets[base + 2] = id;
    this.entries += 1;
  }

  /** Removes the entry at `position` and shifts back the entries probing past it. */
  deleteAt(position: number): void {
    const buckets = this.buckets;
    assert(buckets[BUCKET * position + 1] !== 0, 'deleteAt: entry present');
    let hole = position;
    let probe = (position + 1) & this.mask;
    for (;;) {
      const value = buckets[BUCKET * probe + 1] as number;
      if (value === 0) break;
      const hash = buckets[BUCKET * probe] as number;
      const home = hash & this.mask;
      // The entry at `probe` may move into the hole only if its home is not in (hole, probe].
      if (((probe - home) & this.mask) >= ((probe - hole) & this.mask)) {
        buckets[BUCKET * hole] = hash;
        buckets[BUCKET * hole + 1] = value;
        buckets[BUCKET * hole + 2] = buckets[BUCKET * probe + 2]!;
        hole = probe;
      }
      probe = (probe + 1) & this.mask;
    }
    buckets[BUCKET * hole + 1] = 0;
    buckets[BUCKET * hole + 2] = EMPTY;
    this.entries -= 1;
  }
}

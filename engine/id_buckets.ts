// The bucket array under the order-id indexes (live_index.ts, finished_index.ts, and the shard's
// stored orders, shard/stored_orders.ts): open addressing with linear probing over (hash, value)
// pairs in one Int32Array, 8 bytes a bucket. The keys themselves stay where the orders keep them
// (the order table, the history ring, the shard's LMDB table); a probe compares 30-bit hashes
// and its caller compares the id only where a hash matches. With the keys in the buckets (a
// JavaScript array of numbers and strings, 24 bytes a bucket) the table of a million remembered
// orders took 96 MB, and nearly every probe of it was a miss of the last-level cache: about a
// quarter of a command's time.
//
// Deletion shifts later entries back instead of leaving tombstones, so probe lengths stay short
// however long the engine runs. The array grows by doubling (rehashing from the stored hashes,
// no key is read) up to a fixed maximum, so memory follows what is indexed, within a bound.
import { assert } from './assert.js';

/**
 * Characters hashed from the end of an id (all of a shorter id): 48 bits of an EIP-712 hash,
 * more than the 30 a bucket keeps, and more than anyone can grind ids to share.
 */
const HASHED_CHARS_MAX = 12;

/** Hashes are kept to 30 bits; bit 30 marks a bucket in use, so a stored word is never 0. */
const HASH_MASK = 0x3fffffff;
const IN_USE = 0x40000000;

/**
 * Hash of an order id: its length and its last HASHED_CHARS_MAX characters, in two interleaved
 * FNV-1a lanes, then a murmur3 finalizer. Ids are EIP-712 hashes (random in every character) or,
 * in tests and tools, counters that vary at the end, so the tail carries all the entropy the
 * table needs; hashing every character of a 66-character id cost a third of a command, and 20 of
 * them still ~5 %. `seed` varies the probe layout (never the engine's behaviour) so it cannot be
 * precomputed.
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
  return (hash ^ (hash >>> 16)) & HASH_MASK;
}

/** Smallest power of two ≥ `count` (and ≥ 16). */
function powerOfTwoAtLeast(count: number): number {
  let capacity = 16;
  while (capacity < count) capacity *= 2;
  return capacity;
}

const BUCKETS_INITIAL = 1024;

export class IdBuckets {
  /** words[2b] is bucket b's stored hash (0 when unused), words[2b + 1] its value. */
  words: Int32Array;
  /** Buckets − 1 (the count is a power of two). */
  mask: number;
  /** Buckets in use. */
  entries = 0;
  readonly bucketsMax: number;
  /** findKey's probe: the id sought and the keys of the values (set per call, matched by keyMatches). */
  private probeId = '';
  private probeKeys: readonly string[] = [];
  private readonly keyMatches = (value: number): boolean => this.probeKeys[value] === this.probeId;

  /** Holds up to `entriesMax` entries at a load of at most one half. */
  constructor(entriesMax: number) {
    assert(Number.isInteger(entriesMax) && entriesMax > 0 && entriesMax <= 2 ** 28, 'id buckets size');
    this.bucketsMax = powerOfTwoAtLeast(2 * entriesMax);
    const buckets = Math.min(BUCKETS_INITIAL, this.bucketsMax);
    this.words = new Int32Array(2 * buckets);
    this.mask = buckets - 1;
  }

  buckets(): number {
    return this.mask + 1;
  }

  valueAt(bucket: number): number {
    return this.words[2 * bucket + 1]!;
  }

  /** Doubles the array first if one more entry would load it past one half (and it may grow). */
  reserveOne(): void {
    if (2 * (this.entries + 1) > this.mask + 1 && this.mask + 1 < this.bucketsMax) this.grow();
  }

  /** Stores (hash, value) in the first unused bucket from the hash's home. */
  insert(hash: number, value: number): void {
    assert(this.entries <= this.mask, 'insert: a bucket is free');
    const words = this.words;
    const mask = this.mask;
    let bucket = hash & mask;
    while (words[2 * bucket] !== 0) bucket = (bucket + 1) & mask;
    words[2 * bucket] = hash | IN_USE;
    words[2 * bucket + 1] = value;
    this.entries += 1;
  }

  /**
   * The value of the entry whose key is `id`, or -1: `keys[value]` is an entry's key, and keys
   * are compared only where the stored hash matches.
   */
  findKey(id: string, hash: number, keys: readonly string[]): number {
    this.probeId = id;
    this.probeKeys = keys;
    const bucket = this.findMatch(hash, this.keyMatches);
    return bucket === -1 ? -1 : this.words[2 * bucket + 1]!;
  }

  /**
   * The bucket of the entry hashed as `hash` whose value `matches` accepts, or -1: for keys kept
   * where a lookup costs more than an array read (on disk), compared only where the hash matches.
   */
  findMatch(hash: number, matches: (value: number) => boolean): number {
    const words = this.words;
    const mask = this.mask;
    const stored = hash | IN_USE;
    let bucket = hash & mask;
    for (;;) {
      const word = words[2 * bucket]!;
      if (word === 0) return -1;
      if (word === stored && matches(words[2 * bucket + 1]!)) return bucket;
      bucket = (bucket + 1) & mask;
    }
  }

  setValueAt(bucket: number, value: number): void {
    assert(this.words[2 * bucket] !== 0, 'setValueAt: entry present');
    this.words[2 * bucket + 1] = value;
  }

  /** The bucket holding (hash, value), which must be present. */
  find(hash: number, value: number): number {
    const words = this.words;
    const stored = hash | IN_USE;
    let bucket = hash & this.mask;
    while (words[2 * bucket] !== stored || words[2 * bucket + 1] !== value) {
      assert(words[2 * bucket] !== 0, 'find: the entry is present');
      bucket = (bucket + 1) & this.mask;
    }
    return bucket;
  }

  /** Empties `bucket` and shifts back the entries probing past it. */
  deleteAt(bucket: number): void {
    const words = this.words;
    const mask = this.mask;
    assert(words[2 * bucket] !== 0, 'deleteAt: entry present');
    let hole = bucket;
    let probe = (bucket + 1) & mask;
    for (;;) {
      const stored = words[2 * probe]!;
      if (stored === 0) break;
      const home = stored & mask;
      // The entry at `probe` may move into the hole only if its home is not in (hole, probe].
      if (((probe - home) & mask) >= ((probe - hole) & mask)) {
        words[2 * hole] = stored;
        words[2 * hole + 1] = words[2 * probe + 1]!;
        hole = probe;
      }
      probe = (probe + 1) & mask;
    }
    words[2 * hole] = 0;
    words[2 * hole + 1] = 0;
    this.entries -= 1;
  }

  private grow(): void {
    const old = this.words;
    const buckets = 2 * (this.mask + 1);
    this.words = new Int32Array(2 * buckets);
    this.mask = buckets - 1;
    this.entries = 0;
    for (let index = 0; index < old.length; index += 2) {
      if (old[index] !== 0) this.insert(old[index]! & HASH_MASK, old[index + 1]!);
    }
  }
}

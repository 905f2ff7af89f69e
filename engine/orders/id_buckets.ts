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
// however long the engine runs. The array grows by doubling up to a fixed maximum, so memory
// follows what is indexed, within a bound; the old array's entries move over a few per insert
// (rehashed from the stored hashes, no key is read), so no one insert pays for them all: the
// shard's index of 1.5 million stored orders took ~120 ms to rehash at once, inside a commit.
//
// Index arithmetic is truncated with `| 0`, so TurboFan drops its overflow checks (see events.ts).
import { assert } from '../assert.js';

/**
 * Characters hashed from the end of an id (all of a shorter id): 32 bits of an EIP-712 hash,
 * more than the 30 a bucket keeps. Grinding ids to share a bucket costs the same whatever the
 * width: a hash of the whole id is no keyed hash either. Each character costs ~20 instructions
 * (V8's inline charCodeAt checks the string's representation every time): 8 instead of 12 took
 * the fast flow from 6 139 to 5 863 instructions a command (callgrind; ABBA +2.8 %, 4 of 6).
 */
const HASHED_CHARS_MAX = 8;

/** Hashes are kept to 30 bits; bit 30 marks a bucket in use, so a stored word is never 0. */
const HASH_MASK = 0x3fffffff;
const IN_USE = 0x40000000;

/**
 * An order id's key: its length and its last HASHED_CHARS_MAX characters, in two interleaved
 * FNV-1a lanes, 32 bits. Ids are EIP-712 hashes (random in every character) or, in tests and
 * tools, counters that vary at the end, so the tail carries all the entropy the table needs;
 * hashing every character of a 66-character id cost a third of a command, and 20 of them still
 * ~5 %. Unseeded, so it can be computed where the id enters (the front end computes it as it
 * writes the command's frame, and the command carries it: see Command.orderIdKey), off the
 * matching thread; `seededHash` then spreads it over the buckets with the engine's seed. Keys are
 * journaled in the command frames, so a different key function needs a new frame flag: the frames
 * of the old one must be keyed again as they are read, as frames without a key are.
 */
export function idKey(id: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  const length = id.length;
  let index = length > HASHED_CHARS_MAX ? length - HASHED_CHARS_MAX : 0;
  for (; index + 1 < length; index += 2) {
    a = Math.imul(a ^ id.charCodeAt(index), 0x01000193);
    b = Math.imul(b ^ id.charCodeAt(index + 1), 0x01000193);
  }
  if (index < length) a = Math.imul(a ^ id.charCodeAt(index), 0x01000193);
  return a ^ Math.imul(b, 0x9e3779b1) ^ length;
}

/**
 * The bucket hash of an id key: a murmur3 finalizer over the key mixed with `seed`, 30 bits.
 * `seed` varies the probe layout (never the engine's behaviour), so no one can precompute ids
 * that share a bucket; ids whose keys are equal share one whatever the seed, but finding such
 * EIP-712 ids costs 2^32 hashes each, as it did when the seed went into the lanes.
 */
export function seededHash(key: number, seed: number): number {
  let hash = key ^ Math.imul(seed, 0x9e3779b1);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) & HASH_MASK;
}

/** The bucket hash of an order id under `seed`. */
export function hashOrderId(id: string, seed: number): number {
  return seededHash(idKey(id), seed);
}

/** Smallest power of two ≥ `count` (and ≥ 16). */
function powerOfTwoAtLeast(count: number): number {
  let capacity = 16;
  while (capacity < count) capacity *= 2;
  return capacity;
}

const BUCKETS_INITIAL = 1024;
/**
 * Old buckets moved into the grown array per insert while it grows: the old array is half full
 * when growth starts, so at 4 buckets an insert it is drained after a quarter of its size in
 * inserts, and the new array never passes a load of 3/8 meanwhile.
 */
const MOVED_PER_INSERT = 4;
/**
 * Bucket references (what find and findMatch return) at or above this name bucket ref − OLD_REF
 * of the old array; below it, a bucket of the current one. Arrays hold at most 2^29 buckets.
 */
const OLD_REF = 0x40000000;
/** An old bucket whose entry moved or was deleted while the old array drains: probes go past it. */
const GONE = -1;
/**
 * `old` while no old array drains: empty, so the field always holds an Int32Array and TurboFan
 * loads it without checking its map (with undefined there, every load of it was checked).
 */
const NO_OLD = new Int32Array(0);

export class IdBuckets {
  /** words[2b] is bucket b's stored hash (0 when unused), words[2b + 1] its value. */
  private words: Int32Array;
  /** Buckets − 1 (the count is a power of two). */
  private mask: number;
  /**
   * While the array grows: the array before, drained MOVED_PER_INSERT buckets per insert from
   * `drained` up. Its entries not moved yet are found there; a moved or deleted one leaves GONE
   * behind, so no entry is shifted back past the drain point and none is missed or found twice.
   */
  private old: Int32Array = NO_OLD;
  private oldMask = 0;
  private drained = 0;
  /** Entries held, in either array. */
  entries = 0;
  readonly bucketsMax: number;

  /** Holds up to `entriesMax` entries at a load of at most one half. */
  constructor(entriesMax: number) {
    assert(Number.isInteger(entriesMax) && entriesMax > 0 && entriesMax <= 2 ** 28, 'id buckets size');
    this.bucketsMax = powerOfTwoAtLeast(2 * entriesMax);
    const buckets = Math.min(BUCKETS_INITIAL, this.bucketsMax);
    this.words = new Int32Array(2 * buckets);
    this.mask = buckets - 1;
  }

  /** Buckets of the current array. */
  buckets(): number {
    return this.mask + 1;
  }

  /** The value at a bucket reference (from find, findKey's probe or findMatch). */
  valueAt(ref: number): number {
    return ref >= OLD_REF ? this.old[2 * (ref - OLD_REF) + 1]! : this.words[(2 * ref + 1) | 0]!;
  }

  /**
   * Makes room for one more entry: doubles the array when one more would pass a load of one half
   * and it is below its maximum, first draining what an earlier doubling left in the old array
   * (rare: inserts drain it long before the next doubling is due).
   */
  reserveOne(): void {
    if (2 * (this.entries + 1) <= this.mask + 1 || this.mask + 1 >= this.bucketsMax) return;
    while (this.old !== NO_OLD) this.drain(this.oldMask + 1);
    this.old = this.words;
    this.oldMask = this.mask;
    this.drained = 0;
    const buckets = 2 * (this.mask + 1);
    this.words = new Int32Array(2 * buckets);
    this.mask = buckets - 1;
  }

  /**
   * Holds exactly (hashes[v], v) for every v below `count`, whatever it held before (the array
   * keeps its size, which must hold them at a load of one half).
   */
  refill(hashes: Int32Array, count: number): void {
    assert(2 * count <= this.mask + 1, 'refill: room at a load of one half');
    this.words.fill(0);
    this.old = NO_OLD;
    this.drained = 0;
    for (let value = 0; value < count; value++) this.place(hashes[value]!, value);
    this.entries = count;
  }

  /** Stores (hash, value) in the first unused bucket from the hash's home. */
  insert(hash: number, value: number): void {
    assert(this.entries <= this.mask, 'insert: a bucket is free');
    if (this.old !== NO_OLD) this.drain(MOVED_PER_INSERT);
    this.place(hash, value);
    this.entries += 1;
  }

  /**
   * The value of the entry whose key is `id`, or -1: `keys[value]` is an entry's key, and keys
   * are compared only where the stored hash matches.
   */
  findKey(id: string, hash: number, keys: readonly string[]): number {
    const bucket = probeKey(this.words, this.mask, hash, id, keys);
    if (bucket !== -1) return this.words[(2 * bucket + 1) | 0]!;
    if (this.old === NO_OLD) return -1;
    const old = probeKey(this.old, this.oldMask, hash, id, keys);
    return old === -1 ? -1 : this.old[(2 * old + 1) | 0]!;
  }

  /**
   * The bucket reference of the entry hashed as `hash` whose value is the slot of the order `id`
   * (words `words[at ..]`, at -1 for none) in `orders`, or -1 (see OrderTable.idMatches).
   */
  findOrderRef(id: string, hash: number, words: Float64Array, at: number, orders: IdMatcher): number {
    const bucket = probeOrder(this.words, this.mask, hash, id, words, at, orders);
    if (bucket !== -1 || this.old === NO_OLD) return bucket;
    const old = probeOrder(this.old, this.oldMask, hash, id, words, at, orders);
    return old === -1 ? -1 : OLD_REF + old;
  }

  /**
   * Whether the bucket at reference `ref` holds the entry (hash, value). A stale reference into
   * the current array stays in range (it only grows); one into an old array drained since is not.
   */
  holds(ref: number, hash: number, value: number): boolean {
    const words = ref >= OLD_REF ? this.old : this.words;
    const at = (2 * (ref >= OLD_REF ? ref - OLD_REF : ref)) | 0;
    return at < words.length && words[at] === (hash | IN_USE) && words[(at + 1) | 0] === value;
  }

  /**
   * The bucket reference of the entry hashed as `hash` whose value `matches` accepts, or -1: for
   * keys kept where a lookup costs more than an array read (on disk), compared only where the
   * hash matches.
   */
  findMatch(hash: number, matches: (value: number) => boolean): number {
    const bucket = probe(this.words, this.mask, hash, matches);
    if (bucket !== -1 || this.old === NO_OLD) return bucket;
    const old = probe(this.old, this.oldMask, hash, matches);
    return old === -1 ? -1 : OLD_REF + old;
  }

  setValueAt(ref: number, value: number): void {
    if (ref >= OLD_REF) {
      assert(this.old[2 * (ref - OLD_REF)]! > 0, 'setValueAt: entry present');
      this.old[2 * (ref - OLD_REF) + 1] = value;
      return;
    }
    assert(this.words[(2 * ref) | 0] !== 0, 'setValueAt: entry present');
    this.words[(2 * ref + 1) | 0] = value;
  }

  /** The bucket reference of (hash, value), which must be present. */
  find(hash: number, value: number): number {
    const bucket = probeValue(this.words, this.mask, hash, value);
    if (bucket !== -1) return bucket;
    const old = this.old === NO_OLD ? -1 : probeValue(this.old, this.oldMask, hash, value);
    assert(old !== -1, 'find: the entry is present');
    return OLD_REF + old;
  }

  /** Removes the entry at a bucket reference. */
  deleteAt(ref: number): void {
    if (ref >= OLD_REF) {
      const bucket = ref - OLD_REF;
      assert(this.old[(2 * bucket) | 0]! > 0, 'deleteAt: entry present');
      this.old[(2 * bucket) | 0] = GONE;
    } else {
      deleteShifting(this.words, this.mask, ref);
    }
    this.entries -= 1;
  }

  /** Moves up to `count` old buckets' entries into the current array; drops the old one once empty. */
  private drain(count: number): void {
    const old = this.old;
    const end = Math.min(this.oldMask + 1, this.drained + count);
    for (let bucket = this.drained; bucket < end; bucket++) {
      const stored = old[(2 * bucket) | 0]!;
      if (stored <= 0) continue;
      this.place(stored & HASH_MASK, old[(2 * bucket + 1) | 0]!);
      old[(2 * bucket) | 0] = GONE;
    }
    this.drained = end;
    if (end === this.oldMask + 1) this.old = NO_OLD;
  }

  private place(hash: number, value: number): void {
    const words = this.words;
    const mask = this.mask;
    let bucket = hash & mask;
    while (words[(2 * bucket) | 0] !== 0) bucket = (bucket + 1) & mask;
    words[(2 * bucket) | 0] = hash | IN_USE;
    words[(2 * bucket + 1) | 0] = value;
  }
}

// Four copies of one linear probe, from `hash`'s home to the first unused bucket (GONE buckets
// never match), each with its own comparison: the engine's three, written out, are inlined where
// they are used; through a callback, as the shard's index needs, every hash match was a call
// (callgrind, all code: fast flow 6 041 -> 5 613 instructions a command, deep 3 752 -> 3 591;
// interleaved replays of 2·10^6 commands, fast +2.7 %, ahead in 5 of 6).

/** The bucket of the entry hashed as `hash` whose key `keys[value]` is `id`, or -1. */
function probeKey(words: Int32Array, mask: number, hash: number, id: string, keys: readonly string[]): number {
  const stored = hash | IN_USE;
  let bucket = hash & mask;
  for (;;) {
    const word = words[(2 * bucket) | 0]!;
    if (word === 0) return -1;
    if (word === stored && keys[words[(2 * bucket + 1) | 0]!] === id) return bucket;
    bucket = (bucket + 1) & mask;
  }
}

/** What findOrderRef compares an id with: the order table (OrderTable.idMatches). */
export interface IdMatcher {
  idMatches(slot: number, id: string, words: Float64Array, at: number): boolean;
}

/** The bucket of the entry hashed as `hash` whose slot holds the order `id`, or -1. */
function probeOrder(
  words: Int32Array, mask: number, hash: number, id: string, idWords: Float64Array, at: number, orders: IdMatcher,
): number {
  const stored = hash | IN_USE;
  let bucket = hash & mask;
  for (;;) {
    const word = words[(2 * bucket) | 0];
    if (word === 0) return -1;
    if (word === stored && orders.idMatches(words[(2 * bucket + 1) | 0]!, id, idWords, at)) return bucket;
    bucket = (bucket + 1) & mask;
  }
}

/** The bucket of the entry (hash, value), or -1. */
function probeValue(words: Int32Array, mask: number, hash: number, value: number): number {
  const stored = hash | IN_USE;
  let bucket = hash & mask;
  for (;;) {
    const word = words[(2 * bucket) | 0]!;
    if (word === 0) return -1;
    if (word === stored && words[(2 * bucket + 1) | 0] === value) return bucket;
    bucket = (bucket + 1) & mask;
  }
}

/** The bucket of the entry hashed as `hash` whose value `matches` accepts, or -1. */
function probe(words: Int32Array, mask: number, hash: number, matches: (value: number) => boolean): number {
  const stored = hash | IN_USE;
  let bucket = hash & mask;
  for (;;) {
    const word = words[(2 * bucket) | 0]!;
    if (word === 0) return -1;
    if (word === stored && matches(words[(2 * bucket + 1) | 0]!)) return bucket;
    bucket = (bucket + 1) & mask;
  }
}

/** Empties `bucket` and shifts back the entries probing past it (an array with no GONE buckets). */
function deleteShifting(words: Int32Array, mask: number, bucket: number): void {
  assert(words[(2 * bucket) | 0] !== 0, 'deleteAt: entry present');
  let hole = bucket;
  let probeAt = (bucket + 1) & mask;
  for (;;) {
    const stored = words[(2 * probeAt) | 0]!;
    if (stored === 0) break;
    const home = stored & mask;
    // The entry at `probeAt` may move into the hole only if its home is not in (hole, probeAt].
    if (((probeAt - home) & mask) >= ((probeAt - hole) & mask)) {
      words[(2 * hole) | 0] = stored;
      words[(2 * hole + 1) | 0] = words[(2 * probeAt + 1) | 0]!;
      hole = probeAt;
    }
    probeAt = (probeAt + 1) & mask;
  }
  words[(2 * hole) | 0] = 0;
  words[(2 * hole + 1) | 0] = 0;
}

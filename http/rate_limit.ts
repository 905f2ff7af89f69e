// Request caps (interface.md "Limits", contract §7): token buckets in a SharedArrayBuffer,
// updated under per-bucket locks taken with Atomics, so every thread that serves requests
// shares them.
//
// A cap allows `requests` per `windowS`: its bucket holds at most `requests` tokens and refills
// evenly across the window. Amounts are integers: a bucket counts tokens × window-milliseconds,
// so a millisecond refills exactly `requests` units and admission at the edges of a window is
// exact. A request charged to several caps (the burst and sustained windows of POST /order, an
// endpoint's cap and its listener's combined cap) is admitted only if every bucket has the
// tokens, and then charged to all of them; otherwise to none.
//
// The table has a fixed number of slots: a key (cap, client address or API key) hashes to a
// window of WINDOW slots; when none is free, the slot used longest ago is taken over. A flood
// of distinct addresses therefore cannot grow memory, and the keys it evicts were idle longest.
import { HttpError } from './errors.js';

export type CapScope = 'ip' | 'key';

export interface Cap {
  readonly name: string;
  readonly requests: number;
  readonly windowS: number;
  /** Per client address, or per API key (the trading writes). */
  readonly scope: CapScope;
}

/** The interface's Limits table: the defaults. */
export const DEFAULT_CAPS: readonly Cap[] = [
  { name: 'catalog', requests: 4000, windowS: 10, scope: 'ip' },
  { name: 'GET /events', requests: 500, windowS: 10, scope: 'ip' },
  { name: 'GET /markets (catalog)', requests: 300, windowS: 10, scope: 'ip' },
  { name: 'catalog listings', requests: 900, windowS: 10, scope: 'ip' },
  { name: 'GET /tags', requests: 200, windowS: 10, scope: 'ip' },
  { name: 'GET /public-search', requests: 350, windowS: 10, scope: 'ip' },
  { name: 'trading', requests: 5000, windowS: 10, scope: 'ip' },
  { name: 'GET /', requests: 50, windowS: 10, scope: 'ip' },
  { name: 'GET /book', requests: 200, windowS: 10, scope: 'ip' },
  { name: 'POST /books', requests: 80, windowS: 10, scope: 'ip' },
  { name: 'GET /price', requests: 200, windowS: 10, scope: 'ip' },
  { name: 'POST /prices', requests: 80, windowS: 10, scope: 'ip' },
  { name: 'GET /midpoint', requests: 200, windowS: 10, scope: 'ip' },
  { name: 'GET /prices-history', requests: 100, windowS: 10, scope: 'ip' },
  { name: 'POST /batch-prices-history', requests: 80, windowS: 10, scope: 'ip' },
  { name: 'GET /trades', requests: 150, windowS: 10, scope: 'ip' },
  { name: 'POST /order burst', requests: 2400, windowS: 10, scope: 'key' },
  { name: 'POST /order sustained', requests: 24000, windowS: 600, scope: 'key' },
  { name: 'DELETE /order burst', requests: 2400, windowS: 10, scope: 'key' },
  { name: 'DELETE /order sustained', requests: 24000, windowS: 600, scope: 'key' },
];

/** The per-API-key caps placing orders is charged to (both windows must admit), and cancelling. */
export const PLACE_CAPS = ['POST /order burst', 'POST /order sustained'] as const;
export const CANCEL_CAPS = ['DELETE /order burst', 'DELETE /order sustained'] as const;

/** Slots of the shared table (32 bytes each: 2 MiB). */
export const BUCKET_SLOTS = 1 << 16;
/** Slots a key may live in, from its hash on. */
const WINDOW = 8;
const SLOT_INT32 = 8;
const SLOT_FLOAT64 = 4;
// Int32 words of a slot: lock, key hash (two words), cap id + 1 (0: free).
const LOCK = 0;
const HASH_HIGH = 1;
const HASH_LOW = 2;
const CAP = 3;
// Float64 words: tokens × window ms, time of the last charge or refill (ms).
const TOKENS = 2;
const TOUCHED = 3;
/** Attempts at locking a set of buckets before giving up on a contended charge (never seen). */
const ATTEMPTS = 64;

export function allocateBuckets(slots = BUCKET_SLOTS): SharedArrayBuffer {
  if (!(slots >= WINDOW && (slots & (slots - 1)) === 0)) throw new Error('bucket slots must be a power of two');
  return new SharedArrayBuffer(slots * SLOT_INT32 * 4);
}

/** Two independent 32-bit FNV-style hashes of the key (a cap is mixed in per bucket). */
function hashKey(key: Uint8Array | string, out: Int32Array): void {
  let high = 0x811c9dc5;
  let low = 0x050c5d1f;
  const length = key.length;
  for (let index = 0; index < length; index++) {
    const unit = typeof key === 'string' ? key.charCodeAt(index) : key[index]!;
    high = Math.imul(high ^ unit, 0x01000193);
    low = Math.imul((low ^ unit) + 0x9e3779b9, 0x85ebca6b);
  }
  out[0] = high;
  out[1] = low;
}

/** The bucket hash of (cap, key hash) into out[2], out[3]; the low word is never 0. */
function mixCap(cap: number, out: Int32Array): void {
  const high = Math.imul(out[0]! ^ Math.imul(cap + 1, 0x27d4eb2d), 0x01000193);
  const low = Math.imul((out[1]! ^ (cap + 1)) + 0x165667b1, 0xc2b2ae35);
  out[2] = high ^ (high >>> 15);
  const mixed = low ^ (low >>> 13);
  out[3] = mixed === 0 ? 1 : mixed;
}

export class RateLimiter {
  private readonly words: Int32Array;
  private readonly numbers: Float64Array;
  private readonly mask: number;
  private readonly byName = new Map<string, number>();
  /** [0, 1]: the key's hash; [2, 3]: one bucket's (see mixCap). */
  private readonly hash = new Int32Array(4);
  // Scratch of one charge, by position in its caps: slot and key hash; and the slots to lock.
  private readonly found: number[] = [];
  private readonly highs: number[] = [];
  private readonly lows: number[] = [];
  private readonly locked: number[] = [];
  private readonly short: boolean[] = [];
  /**
   * Charges this limiter refused, by cap id (a charge refused by two caps counts under both), for
   * the operator's metrics: counted by the thread that charged, without a lock.
   */
  readonly refusals: Float64Array;

  constructor(buffer: SharedArrayBuffer, readonly caps: readonly Cap[], private readonly now: () => number) {
    this.refusals = new Float64Array(caps.length);
    this.words = new Int32Array(buffer);
    this.numbers = new Float64Array(buffer);
    this.mask = this.words.length / SLOT_INT32 - 1;
    caps.forEach((cap, id) => this.byName.set(cap.name, id));
  }

  /** The id of a cap by name; undefined when it is not configured (e.g. limits are off). */
  capId(name: string): number | undefined {
    return this.byName.get(name);
  }

  /**
   * Charges `cost` tokens to `key` under every cap of `caps`: all or none. Returns 0 when
   * admitted, else the whole seconds until the charge could be admitted (at least 1).
   */
  charge(caps: readonly number[], key: Uint8Array | string, cost = 1): number {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const result = this.tryCharge(caps, key, cost);
      if (result >= 0) return result;
    }
    // Contended past reason: refuse rather than spin, as an over-cap request is refused.
    return 1;
  }

  /** One attempt: -1 when a bucket changed hands between finding and locking it. */
  private tryCharge(caps: readonly number[], key: Uint8Array | string, cost: number): number {
    const { found, highs, lows, locked, short } = this;
    const nowMs = this.now();
    const count = caps.length;
    locked.length = 0;
    hashKey(key, this.hash);
    for (let index = 0; index < count; index++) {
      const slot = this.find(caps[index]!, nowMs);
      found[index] = slot;
      highs[index] = this.hash[2]!;
      lows[index] = this.hash[3]!;
      if (!locked.includes(slot)) locked.push(slot);
    }
    // Locks in slot order, so two charges never wait on each other in a cycle.
    locked.sort((a, b) => a - b);
    for (const slot of locked) this.lock(slot);
    try {
      let retryMs = 0;
      for (let index = 0; index < count; index++) {
        const slot = found[index]!;
        const base = slot * SLOT_INT32;
        const cap = caps[index]!;
        if (this.words[base + CAP] !== cap + 1 || this.words[base + HASH_HIGH] !== highs[index] || this.words[base + HASH_LOW] !== lows[index]) return -1;
        const { requests, windowS } = this.caps[cap]!;
        const windowMs = windowS * 1000;
        const deficit = cost * windowMs - this.refill(slot, requests, windowMs, nowMs);
        short[index] = deficit > 0;
        if (deficit > 0) retryMs = Math.max(retryMs, cost > requests ? windowMs : Math.ceil(deficit / requests));
      }
      if (retryMs > 0) {
        for (let index = 0; index < count; index++) if (short[index]) this.refusals[caps[index]!]!++;
        return Math.max(1, Math.ceil(retryMs / 1000));
      }
      for (let index = 0; index < count; index++) {
        const at = found[index]! * SLOT_FLOAT64 + TOKENS;
        this.numbers[at] = this.numbers[at]! - cost * this.caps[caps[index]!]!.windowS * 1000;
      }
      return 0;
    } finally {
      for (const slot of locked) this.unlock(slot);
    }
  }

  /** Tokens of a locked slot after refilling it to `nowMs` (×window ms). */
  private refill(slot: number, requests: number, windowMs: number, nowMs: number): number {
    const at = slot * SLOT_FLOAT64;
    const elapsed = Math.max(0, nowMs - this.numbers[at + TOUCHED]!);
    const tokens = Math.min(requests * windowMs, this.numbers[at + TOKENS]! + elapsed * requests);
    this.numbers[at + TOKENS] = tokens;
    this.numbers[at + TOUCHED] = Math.max(nowMs, this.numbers[at + TOUCHED]!);
    return tokens;
  }

  /**
   * The slot of (cap, key): found in its window, or claimed (a free slot, else the one touched
   * longest ago) and filled to capacity.
   */
  private find(cap: number, nowMs: number): number {
    mixCap(cap, this.hash);
    const high = this.hash[2]!;
    const low = this.hash[3]!;
    const start = low & this.mask;
    let victim = -1;
    let victimTouched = Number.POSITIVE_INFINITY;
    for (let step = 0; step < WINDOW; step++) {
      const slot = (start + step) & this.mask;
      const base = slot * SLOT_INT32;
      const owner = Atomics.load(this.words, base + CAP);
      if (owner === cap + 1 && Atomics.load(this.words, base + HASH_HIGH) === high && Atomics.load(this.words, base + HASH_LOW) === low) return slot;
      const touched = owner === 0 ? Number.NEGATIVE_INFINITY : this.numbers[slot * SLOT_FLOAT64 + TOUCHED]!;
      if (touched < victimTouched) {
        victim = slot;
        victimTouched = touched;
      }
    }
    this.lock(victim);
    try {
      const base = victim * SLOT_INT32;
      // Another thread may have claimed it for this very key meanwhile: then it is ours as is.
      const mine = this.words[base + CAP] === cap + 1 && this.words[base + HASH_HIGH] === high && this.words[base + HASH_LOW] === low;
      if (!mine) {
        this.words[base + HASH_HIGH] = high;
        this.words[base + HASH_LOW] = low;
        this.numbers[victim * SLOT_FLOAT64 + TOKENS] = this.caps[cap]!.requests * this.caps[cap]!.windowS * 1000;
        this.numbers[victim * SLOT_FLOAT64 + TOUCHED] = nowMs;
        Atomics.store(this.words, base + CAP, cap + 1);
      }
    } finally {
      this.unlock(victim);
    }
    return victim;
  }

  // A lock word is 0 (free), 1 (held) or 2 (held, and a thread may be waiting): the release
  // wakes a waiter only when there may be one, so an uncontended charge makes no futex call.
  private lock(slot: number): void {
    const at = slot * SLOT_INT32 + LOCK;
    if (Atomics.compareExchange(this.words, at, 0, 1) === 0) return;
    while (Atomics.exchange(this.words, at, 2) !== 0) Atomics.wait(this.words, at, 2, 1);
  }

  private unlock(slot: number): void {
    const at = slot * SLOT_INT32 + LOCK;
    if (Atomics.exchange(this.words, at, 0) === 2) Atomics.notify(this.words, at, 1);
  }
}

/**
 * The caps in force: the defaults with RATE_LIMITS applied. `off` disables limiting (an empty
 * list); otherwise the value is the path of a JSON file mapping cap names to
 * `{"requests": n, "windowSeconds": s}`. Unknown names and bad numbers are configuration errors.
 */
export function capsFrom(setting: string | undefined, readFile: (path: string) => string): Cap[] {
  if (setting === 'off') return [];
  if (setting === undefined) return [...DEFAULT_CAPS];
  let overrides: unknown;
  try {
    overrides = JSON.parse(readFile(setting));
  } catch (error) {
    throw new RangeError(`RATE_LIMITS: cannot read ${setting} as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) throw new RangeError('RATE_LIMITS: the file must hold an object of caps');
  const caps = new Map(DEFAULT_CAPS.map((cap) => [cap.name, cap]));
  for (const [name, value] of Object.entries(overrides)) {
    const cap = caps.get(name);
    if (cap === undefined) throw new RangeError(`RATE_LIMITS: unknown cap "${name}"; known: ${DEFAULT_CAPS.map((known) => known.name).join(', ')}`);
    const { requests, windowSeconds } = (value ?? {}) as { requests?: unknown; windowSeconds?: unknown };
    const valid = (n: unknown, max: number): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= max;
    if (!valid(requests, 1_000_000_000) || !valid(windowSeconds ?? cap.windowS, 86_400)) {
      throw new RangeError(`RATE_LIMITS: "${name}" needs {"requests": integer >= 1, "windowSeconds": integer from 1 to 86400}`);
    }
    caps.set(name, { ...cap, requests, windowS: (windowSeconds as number | undefined) ?? cap.windowS });
  }
  return [...caps.values()];
}

/**
 * Charges a trading write to the caller's API key under the named caps (the burst and sustained
 * windows of POST /order or DELETE /order); `cost` is the orders or ids it carries. Over a cap
 * it throws the 429 the edge answers, and nothing is executed.
 */
export type KeyCharge = (apiKey: string, cost: number) => void;

export function keyCharge(limiter: RateLimiter | undefined, names: readonly string[]): KeyCharge {
  const ids = names.map((name) => limiter?.capId(name)).filter((id): id is number => id !== undefined);
  if (limiter === undefined || ids.length === 0) return () => undefined;
  return (apiKey, cost) => {
    const retryAfterS = limiter.charge(ids, apiKey, cost);
    if (retryAfterS > 0) throw new HttpError(429, 'Too Many Requests', undefined, [['retry-after', String(retryAfterS)]]);
  };
}

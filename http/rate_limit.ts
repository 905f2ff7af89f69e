// Request caps (interface.md "Limits", contract §7): token buckets in a SharedArrayBuffer,
// updated under locks taken with Atomics, so every thread that serves requests shares them.
//
// A cap allows `requests` per `windowS`: its bucket holds at most `requests` tokens and refills
// evenly across the window. Amounts are integers: a bucket counts tokens × window-milliseconds,
// so a millisecond refills exactly `requests` units and admission at the edges of a window is
// exact. A request charged to several caps (the burst and sustained windows of POST /order, an
// endpoint's cap and its listener's combined cap) is admitted only if every bucket has the
// tokens, and then charged to all of them; otherwise to none.
//
// The table has a fixed number of slots in regions of REGION_SLOTS, one lock per region. A key
// (client address or account address) hashes to one region, and every bucket of that key (one per cap)
// lives in it, so a charge takes exactly one lock whatever its caps. When a region has no free
// slot, the slot used longest ago is taken over: a flood of distinct addresses therefore cannot
// grow memory, and the buckets it evicts were idle longest.
import { HttpError } from './errors.js';

/**
 * Whose bucket a cap fills: the client's address; the account (the address an API key belongs
 * to, so an account's keys share its caps); one WebSocket (http/ws/caps.ts); or `all`, one bucket for every client together,
 * the last bound on what costly reads may take of a front end whatever the addresses they come
 * from.
 */
export type CapScope = 'ip' | 'account' | 'all' | 'socket';

export interface Cap {
  readonly name: string;
  readonly requests: number;
  readonly windowS: number;
  readonly scope: CapScope;
}

/** The caps of the interface's Limits table (their defaults), then clobd's own for every other route. */
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
  { name: 'POST /order burst', requests: 2400, windowS: 10, scope: 'account' },
  { name: 'POST /order sustained', requests: 24000, windowS: 600, scope: 'account' },
  { name: 'DELETE /order burst', requests: 2400, windowS: 10, scope: 'account' },
  { name: 'DELETE /order sustained', requests: 24000, windowS: 600, scope: 'account' },
  // clobd's own: every route the table does not name has one too (test/http/route_caps.test.ts).
  { name: 'data', requests: 1000, windowS: 10, scope: 'ip' },
  { name: 'GET /activity', requests: 150, windowS: 10, scope: 'ip' },
  // Polymarket's getMarketTradesEvents: a market's latest fills, from the index GET /trades reads.
  { name: 'GET /markets/live-activity', requests: 150, windowS: 10, scope: 'ip' },
  { name: 'rows read', requests: 20_000, windowS: 10, scope: 'ip' },
  { name: 'rows read (all clients)', requests: 30_000, windowS: 10, scope: 'all' },
  { name: 'market data', requests: 1500, windowS: 10, scope: 'ip' },
  { name: 'catalog items', requests: 2000, windowS: 10, scope: 'ip' },
  // The rows a catalog list renders: GET /markets its markets, GET /events its events and the
  // markets nested in them (an events page can be much heavier than its limit says). Answers
  // served from the response cache cost none.
  { name: 'catalog rows', requests: 50_000, windowS: 10, scope: 'ip' },
  { name: 'catalog rows (all clients)', requests: 200_000, windowS: 10, scope: 'all' },
  { name: 'service', requests: 300, windowS: 10, scope: 'ip' },
  { name: 'order writes', requests: 5000, windowS: 10, scope: 'ip' },
  { name: 'account', requests: 1500, windowS: 10, scope: 'ip' },
  { name: 'account reads', requests: 600, windowS: 10, scope: 'account' },
  { name: 'admin', requests: 1000, windowS: 10, scope: 'ip' },
  // The WebSocket channels (http/ws/caps.ts, issue 39). An honest bot (a few sockets, each
  // subscribing its few hundred tokens at once or one message each, a PING every 10 s) stays far
  // below every one: a socket may subscribe its whole ASSETS_PER_SOCKET (500) four times over
  // in a window, one message per token, and an address may open WS_SOCKETS_PER_IP (64) sockets
  // twice over. `… ids` count the token or condition ids a subscription names; `… KiB` the
  // `book` messages it makes the server send.
  { name: 'WS upgrades', requests: 128, windowS: 10, scope: 'ip' },
  { name: 'WS messages', requests: 5000, windowS: 10, scope: 'ip' },
  { name: 'WS subscription ids burst', requests: 10000, windowS: 10, scope: 'ip' },
  { name: 'WS subscription ids sustained', requests: 100000, windowS: 600, scope: 'ip' },
  { name: 'WS snapshot KiB burst', requests: 32768, windowS: 10, scope: 'ip' },
  { name: 'WS snapshot KiB sustained', requests: 262144, windowS: 600, scope: 'ip' },
  { name: 'WS socket messages', requests: 500, windowS: 10, scope: 'socket' },
  { name: 'WS socket PINGs', requests: 20, windowS: 10, scope: 'socket' },
  { name: 'WS socket subscription ids', requests: 2000, windowS: 10, scope: 'socket' },
  { name: 'WS socket snapshot KiB', requests: 8192, windowS: 10, scope: 'socket' },
  { name: 'WS account messages', requests: 1000, windowS: 10, scope: 'account' },
  { name: 'WS account subscription ids', requests: 5000, windowS: 10, scope: 'account' },
  // Every client together: what subscriptions may make the front end send, whatever the
  // addresses they come from (a burst of honest bots subscribing at once may be told to come back).
  { name: 'WS subscription ids (all clients)', requests: 100_000, windowS: 10, scope: 'all' },
  { name: 'WS snapshot KiB (all clients)', requests: 16_384, windowS: 10, scope: 'all' },
  // API keys (issue 39): every /auth route, as Polymarket caps its API key endpoints; and key
  // creations, each a durable write and a record kept until it is deleted, so that one client
  // address cannot grow the key store faster than 1000 keys an hour (~0.5 MB) however many
  // wallets it signs with. A refused creation (a nonce already used) is charged too.
  { name: 'API keys', requests: 100, windowS: 10, scope: 'ip' },
  { name: 'POST /auth/api-key', requests: 1000, windowS: 3600, scope: 'ip' },
  { name: 'POST /auth/api-key (all clients)', requests: 100, windowS: 10, scope: 'all' },
];

/** The caps a list read is charged the rows it may read to: the client's, and everyone's together. */
export const ROWS_CAPS = ['rows read', 'rows read (all clients)'] as const;
/** The caps a catalog list is charged the rows it renders to (events and the markets they nest, or markets). */
export const CATALOG_ROWS_CAPS = ['catalog rows', 'catalog rows (all clients)'] as const;

/** The key of the one bucket of a cap of scope `all`. */
export const ALL_CLIENTS = '*';

/** The per-account caps placing orders is charged to (both windows must admit), and cancelling. */
export const PLACE_CAPS = ['POST /order burst', 'POST /order sustained'] as const;
export const CANCEL_CAPS = ['DELETE /order burst', 'DELETE /order sustained'] as const;

/** Slots of the shared table (32 bytes each: 2 MiB). */
export const BUCKET_SLOTS = 1 << 16;
/** Slots of a region: the buckets of every key that hashes to it (a key uses a bucket per cap it is charged to). */
const REGION_SLOTS = 64;
const SLOT_INT32 = 8;
const SLOT_FLOAT64 = 4;
// Int32 words of a slot: lock (used in a region's first slot), key hash (two words), cap id + 1
// (0: free; a slot once claimed is never freed, only taken over).
const LOCK = 0;
const HASH_HIGH = 1;
const HASH_LOW = 2;
const CAP = 3;
// Float64 words: tokens × window ms, time of the last charge or refill (ms).
const TOKENS = 2;
const TOUCHED = 3;
/** Caps one charge may name (routes name their own and their listener's, or two windows). */
const CAPS_PER_CHARGE_MAX = 8;

export function allocateBuckets(slots = BUCKET_SLOTS): SharedArrayBuffer {
  if (!(slots >= REGION_SLOTS && (slots & (slots - 1)) === 0)) throw new Error(`bucket slots must be a power of two, at least ${REGION_SLOTS}`);
  return new SharedArrayBuffer(slots * SLOT_INT32 * 4);
}

export class RateLimiter {
  private readonly words: Int32Array;
  private readonly numbers: Float64Array;
  private readonly regionMask: number;
  private readonly byName = new Map<string, number>();
  // Per cap id: tokens refilled per millisecond (= requests, in tokens × window ms) and the
  // window in ms (what one token costs), so a charge reads no cap object.
  private readonly requests: Float64Array;
  private readonly windowMs: Float64Array;
  // The key's two hashes, and the bucket hash of (cap, key) after mixCap.
  private keyHigh = 0;
  private keyLow = 0;
  private bucketHigh = 0;
  private bucketLow = 0;
  /** Scratch: a string key's units (grown to the longest key seen). */
  private units = new Int32Array(64);
  /** Scratch of one charge: the slot of each of its caps, by position. */
  private readonly found = new Int32Array(CAPS_PER_CHARGE_MAX);
  /**
   * Charges this limiter refused, by cap id (a charge refused by two caps counts under both), for
   * the operator's metrics: counted by the thread that charged, without a lock.
   */
  readonly refusals: Float64Array;

  constructor(buffer: SharedArrayBuffer, readonly caps: readonly Cap[], private readonly now: () => number) {
    this.refusals = new Float64Array(caps.length);
    this.words = new Int32Array(buffer);
    this.numbers = new Float64Array(buffer);
    this.regionMask = this.words.length / SLOT_INT32 / REGION_SLOTS - 1;
    this.requests = Float64Array.from(caps, (cap) => cap.requests);
    this.windowMs = Float64Array.from(caps, (cap) => cap.windowS * 1000);
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
  charge(caps: readonly number[], key: Int32Array | string, cost = 1): number {
    const count = caps.length;
    if (count > CAPS_PER_CHARGE_MAX) throw new RangeError(`a charge names at most ${CAPS_PER_CHARGE_MAX} caps`);
    if (typeof key === 'string') this.hashKey(this.textUnits(key), key.length);
    else this.hashKey(key, key.length);
    const { found, numbers } = this;
    const nowMs = this.now();
    const region = (this.keyHigh & this.regionMask) * REGION_SLOTS;
    this.lock(region);
    try {
      let retryMs = 0;
      for (let index = 0; index < count; index++) {
        const cap = caps[index]!;
        const slot = this.find(region, cap, index, nowMs);
        found[index] = slot;
        const requests = this.requests[cap]!;
        const windowMs = this.windowMs[cap]!;
        const deficit = cost * windowMs - this.refill(slot, requests, windowMs, nowMs);
        if (deficit > 0) retryMs = Math.max(retryMs, cost > requests ? windowMs : Math.ceil(deficit / requests));
      }
      if (retryMs > 0) {
        for (let index = 0; index < count; index++) {
          const cap = caps[index]!;
          if (numbers[found[index]! * SLOT_FLOAT64 + TOKENS]! < cost * this.windowMs[cap]!) this.refusals[cap]!++;
        }
        return Math.max(1, Math.ceil(retryMs / 1000));
      }
      for (let index = 0; index < count; index++) {
        const at = found[index]! * SLOT_FLOAT64 + TOKENS;
        numbers[at] = numbers[at]! - cost * this.windowMs[caps[index]!]!;
      }
      return 0;
    } finally {
      this.unlock(region);
    }
  }

  /** A string key as one 32-bit word per UTF-16 unit, so both kinds of key hash in one loop. */
  private textUnits(key: string): Int32Array {
    if (this.units.length < key.length) this.units = new Int32Array(key.length * 2);
    for (let index = 0; index < key.length; index++) this.units[index] = key.charCodeAt(index);
    return this.units;
  }

  /**
   * Two independent 32-bit FNV-style hashes of the key's first `length` words (a client address
   * is 1 or 4 words; a string key one word per unit); a cap is mixed in per bucket.
   */
  private hashKey(key: Int32Array, length: number): void {
    let high = 0x811c9dc5;
    let low = 0x050c5d1f;
    for (let index = 0; index < length; index++) {
      const unit = key[index]!;
      high = Math.imul(high ^ unit, 0x01000193);
      low = Math.imul((low ^ unit) + 0x9e3779b9, 0x85ebca6b);
    }
    this.keyHigh = high ^ (high >>> 16);
    this.keyLow = low;
  }

  /** The bucket hash of (cap, key) into bucketHigh, bucketLow. */
  private mixCap(cap: number): void {
    const high = Math.imul(this.keyHigh ^ Math.imul(cap + 1, 0x27d4eb2d), 0x01000193);
    const low = Math.imul((this.keyLow ^ (cap + 1)) + 0x165667b1, 0xc2b2ae35);
    this.bucketHigh = high ^ (high >>> 15);
    this.bucketLow = low ^ (low >>> 13);
  }

  /**
   * The slot of (cap, key) in its locked region: found, or claimed (a free slot, else the one
   * touched longest ago, never one of this charge's own) and filled to capacity. Probing starts
   * at the bucket's hash; since a claimed slot is never freed, a free slot ends the search.
   */
  private find(region: number, cap: number, position: number, nowMs: number): number {
    this.mixCap(cap);
    const { words, numbers, bucketHigh: high, bucketLow: low } = this;
    const start = low & (REGION_SLOTS - 1);
    let victim = -1;
    let victimTouched = Number.POSITIVE_INFINITY;
    for (let step = 0; step < REGION_SLOTS; step++) {
      const slot = region + ((start + step) & (REGION_SLOTS - 1));
      const base = slot * SLOT_INT32;
      const owner = words[base + CAP]!;
      if (owner === 0) {
        victim = slot;
        break;
      }
      if (owner === cap + 1 && words[base + HASH_LOW] === low && words[base + HASH_HIGH] === high) return slot;
      const touched = numbers[slot * SLOT_FLOAT64 + TOUCHED]!;
      if (touched < victimTouched && !this.taken(slot, position)) {
        victim = slot;
        victimTouched = touched;
      }
    }
    const base = victim * SLOT_INT32;
    words[base + HASH_HIGH] = high;
    words[base + HASH_LOW] = low;
    words[base + CAP] = cap + 1;
    numbers[victim * SLOT_FLOAT64 + TOKENS] = this.requests[cap]! * this.windowMs[cap]!;
    numbers[victim * SLOT_FLOAT64 + TOUCHED] = nowMs;
    return victim;
  }

  /** Whether one of the first `count` caps of this charge has its bucket in `slot`. */
  private taken(slot: number, count: number): boolean {
    for (let index = 0; index < count; index++) if (this.found[index] === slot) return true;
    return false;
  }

  /** Tokens of a slot of the locked region after refilling it to `nowMs` (×window ms). */
  private refill(slot: number, requests: number, windowMs: number, nowMs: number): number {
    const at = slot * SLOT_FLOAT64;
    const touched = this.numbers[at + TOUCHED]!;
    const tokens = Math.min(requests * windowMs, this.numbers[at + TOKENS]! + Math.max(0, nowMs - touched) * requests);
    this.numbers[at + TOKENS] = tokens;
    if (nowMs > touched) this.numbers[at + TOUCHED] = nowMs;
    return tokens;
  }

  // A region's lock word is 0 (free), 1 (held) or 2 (held, and a thread may be waiting): the
  // release wakes a waiter only when there may be one, so an uncontended charge makes no futex call.
  private lock(region: number): void {
    const at = region * SLOT_INT32 + LOCK;
    if (Atomics.compareExchange(this.words, at, 0, 1) === 0) return;
    while (Atomics.exchange(this.words, at, 2) !== 0) Atomics.wait(this.words, at, 2, 1);
  }

  private unlock(region: number): void {
    const at = region * SLOT_INT32 + LOCK;
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
 * Charges a trading write to the caller's account (the address of the API key it is signed
 * with, so every key of one wallet spends the same tokens) under the named caps (the burst and
 * sustained windows of POST /order or DELETE /order); `cost` is the orders or ids it carries.
 * Over a cap it throws the 429 the edge answers, and nothing is executed. It takes the
 * authenticated key, not a string, so that nothing charges a key's own id by mistake.
 */
export type AccountCharge = (key: { readonly address: string }, cost: number) => void;

/** The ids of the caps of `names` that are in force (those a setting removed are left out). */
export function capIdsIn(limiter: RateLimiter | undefined, names: readonly string[]): number[] {
  return names.map((name) => limiter?.capId(name)).filter((id): id is number => id !== undefined);
}

export function accountCharge(limiter: RateLimiter | undefined, names: readonly string[]): AccountCharge {
  const ids = capIdsIn(limiter, names);
  if (limiter === undefined || ids.length === 0) return () => undefined;
  return (key, cost) => {
    const retryAfterS = limiter.charge(ids, key.address, cost);
    if (retryAfterS > 0) throw new HttpError(429, 'Too Many Requests', undefined, [['retry-after', String(retryAfterS)]]);
  };
}

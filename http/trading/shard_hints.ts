// Which shard took each accepted order, as a hint for cancels and reads by order id (an id alone
// does not say its market, so without a hint every shard is asked at once). A fixed table of one
// 32-bit word per slot, indexed by a seeded hash of the id (the engine's, engine/orders/id_buckets.ts): a
// 24-bit fingerprint of the id (a second seed) and the shard + 1 (0 = empty). Nothing is kept per
// order as an object, so the front end's heap does not grow with the orders it has seen: a Map of
// the last 2^20 ids held each id's string in old space, every one promoted and later left for a
// full collection, and its upkeep was ~4 % of the front end's thread at durable peak.
//
// A newer id overwrites its slot, so an old order may have no hint (every shard is asked, as for
// an unknown id). A hint names the wrong shard only when two ids share both the slot and the
// fingerprint (about one lookup in 16 million); callers then ask the other shards after the
// hinted one says it does not know the order, so even that answer is right, only later. The
// seeds are secret and fresh at every start, so nobody can aim ids at another account's slots.
import { randomInt } from 'node:crypto';
import { hashOrderId } from '../../engine/orders/id_buckets.js';

/** log2 of the slots in the table (4 MiB). */
const SLOT_BITS = 20;
const SHARD_MASK = 0xff;

/** Where orders went, as far as the front end remembers. */
export interface OrderHints {
  remember(orderId: string, shard: number): void;
  guess(orderId: string): number | undefined;
}

export class ShardHints implements OrderHints {
  private readonly slots: Uint32Array;
  private readonly mask: number;
  /** Two secret seeds of the engine's order-id hash: one places the slot, one makes the fingerprint. */
  private readonly slotSeed = randomInt(0x7fffffff);
  private readonly fingerprintSeed = randomInt(0x7fffffff);
  private slot = 0;
  private fingerprint = 0;

  /** `slotBits`: log2 of the slots (tests use few, so that ids share them). */
  constructor(slotBits = SLOT_BITS) {
    this.slots = new Uint32Array(1 << slotBits);
    this.mask = (1 << slotBits) - 1;
  }

  /** Remembers that `shard` (< 255) took order `orderId`. */
  remember(orderId: string, shard: number): void {
    this.hash(orderId);
    this.slots[this.slot] = (this.fingerprint | (shard + 1)) >>> 0;
  }

  /** The shard that took `orderId`, or undefined when its slot holds no hint for it. */
  guess(orderId: string): number | undefined {
    this.hash(orderId);
    const value = this.slots[this.slot]!;
    if (value === 0 || ((value & ~SHARD_MASK) >>> 0) !== this.fingerprint) return undefined;
    return (value & SHARD_MASK) - 1;
  }

  /** The slot, and the fingerprint in the word's upper 24 bits, from two seeded 30-bit id hashes. */
  private hash(orderId: string): void {
    this.slot = hashOrderId(orderId, this.slotSeed) & this.mask;
    this.fingerprint = ((hashOrderId(orderId, this.fingerprintSeed) << 2) & ~SHARD_MASK) >>> 0;
  }
}

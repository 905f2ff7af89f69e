// One side of an order book: price levels in arrays indexed by price, each level a FIFO of order
// slots linked intrusively through next/prev words kept per slot (SlotLinks), plus the
// aggregate size per level and the best occupied level. Appending, cancelling anywhere in a level and consuming the head
// are O(1); finding the next occupied level after the best one empties goes through a bitmap.
//
// The ladder knows nothing about markets, outcomes or money: it is generic over its number of
// levels and over whatever the caller stores in the slots, so the same code runs the binary
// market books and a plain limit-order-book workload (test/engine/ladder.test.ts runs one with
// a million levels against a sorted reference).
//
// Index arithmetic is truncated with `| 0`, so TurboFan drops its overflow checks (see events.ts).
import { assert } from '../assert.js';
import { LevelBitmap } from './level_bitmap.js';

/** The null slot and the null level. */
export const NIL = -1;

/**
 * Intrusive FIFO links of the order slots, shared by every ladder over those slots: slot s's
 * successor is words[s × stride + nextOffset] and its predecessor words[s × stride + prevOffset],
 * so the links can live inside whatever record layout the slots use.
 */
export interface SlotLinks {
  readonly words: Int32Array;
  readonly stride: number;
  readonly nextOffset: number;
  readonly prevOffset: number;
}

export class Ladder {
  readonly levelsCount: number;
  /** Bids: the best level is the highest price. Asks: the lowest. */
  readonly bestIsHighest: boolean;
  private readonly words: Int32Array;
  private readonly stride: number;
  private readonly nextOffset: number;
  private readonly prevOffset: number;
  private readonly heads: Int32Array;
  private readonly tails: Int32Array;
  private readonly sizes: Float64Array;
  private readonly counts: Int32Array;
  private readonly occupied: LevelBitmap;
  private bestLevel = NIL;
  private orders = 0;

  constructor(levelsCount: number, bestIsHighest: boolean, links: SlotLinks) {
    assert(Number.isInteger(levelsCount) && levelsCount > 0, 'ladder levels');
    assert(links.nextOffset < links.stride && links.prevOffset < links.stride, 'links inside the record');
    this.levelsCount = levelsCount;
    this.bestIsHighest = bestIsHighest;
    this.words = links.words;
    this.stride = links.stride;
    this.nextOffset = links.nextOffset;
    this.prevOffset = links.prevOffset;
    this.heads = new Int32Array(levelsCount).fill(NIL);
    this.tails = new Int32Array(levelsCount).fill(NIL);
    this.sizes = new Float64Array(levelsCount);
    this.counts = new Int32Array(levelsCount);
    this.occupied = new LevelBitmap(levelsCount);
  }

  /** The best occupied level, or NIL when this side is empty. */
  best(): number {
    return this.bestLevel;
  }

  /** Orders resting on this side. */
  ordersCount(): number {
    return this.orders;
  }

  /** The oldest slot at `level`, or NIL. */
  head(level: number): number {
    return this.heads[level]!;
  }

  /** The slot after `slot` in its level's FIFO, or NIL. */
  after(slot: number): number {
    return this.words[(slot * this.stride + this.nextOffset) | 0]!;
  }

  sizeAt(level: number): number {
    return this.sizes[level]!;
  }

  countAt(level: number): number {
    return this.counts[level]!;
  }

  /** The next occupied level strictly worse than `level`, or NIL. */
  worseThan(level: number): number {
    return this.bestIsHighest
      ? this.occupied.prevAtOrBelow(level - 1)
      : this.occupied.nextAtOrAbove(level + 1);
  }

  /** Appends `slot` at the tail of `level`, with `sizeMicros` added to the level's aggregate. */
  append(level: number, slot: number, sizeMicros: number): void {
    assert(level >= 0 && level < this.levelsCount, 'append: level in range');
    const tail = this.tails[level]!;
    const base = (slot * this.stride) | 0;
    this.words[(base + this.prevOffset) | 0] = tail;
    this.words[(base + this.nextOffset) | 0] = NIL;
    if (tail === NIL) {
      this.heads[level] = slot;
      this.occupied.set(level);
      if (this.bestLevel === NIL || this.isBetter(level, this.bestLevel)) this.bestLevel = level;
    } else {
      this.words[(tail * this.stride + this.nextOffset) | 0] = slot;
    }
    this.tails[level] = slot;
    this.sizes[level] = this.sizes[level]! + sizeMicros;
    this.counts[level] = this.counts[level]! + 1;
    this.orders += 1;
  }

  /** Unlinks `slot` from anywhere in `level`; `sizeMicros` is what it still had resting. */
  remove(level: number, slot: number, sizeMicros: number): void {
    const base = (slot * this.stride) | 0;
    const before = this.words[(base + this.prevOffset) | 0]!;
    const after = this.words[(base + this.nextOffset) | 0]!;
    if (before === NIL) this.heads[level] = after;
    else this.words[(before * this.stride + this.nextOffset) | 0] = after;
    if (after === NIL) this.tails[level] = before;
    else this.words[(after * this.stride + this.prevOffset) | 0] = before;
    this.words[(base + this.nextOffset) | 0] = NIL;
    this.words[(base + this.prevOffset) | 0] = NIL;
    const count = this.counts[level]! - 1;
    const size = this.sizes[level]! - sizeMicros;
    assert(count >= 0 && size >= 0, 'remove: level aggregates stay non-negative');
    this.counts[level] = count;
    this.sizes[level] = size;
    this.orders -= 1;
    if (count === 0) this.vacate(level, size);
  }

  /** Takes `sizeMicros` off the level's aggregate after a partial fill of one of its orders. */
  reduce(level: number, sizeMicros: number): void {
    const size = this.sizes[level]! - sizeMicros;
    assert(size > 0, 'reduce: a partially filled order keeps its level non-empty');
    this.sizes[level] = size;
  }

  private vacate(level: number, size: number): void {
    assert(size === 0, 'an empty level has no size');
    this.occupied.clear(level);
    if (level === this.bestLevel) this.bestLevel = this.worseThan(level);
  }

  private isBetter(level: number, than: number): boolean {
    return this.bestIsHighest ? level > than : level < than;
  }

  /**
   * Self-check for verify mode, O(occupied levels + orders): links, aggregates, bitmap and best.
   * It walks the bitmap from the best level, so an order on a level whose bit is missing shows
   * up as a difference in the order count.
   */
  verify(sizeOf: (slot: number) => number): void {
    let orders = 0;
    let previous = NIL;
    for (let level = this.bestLevel; level !== NIL; level = this.worseThan(level)) {
      assert(previous === NIL || this.isBetter(previous, level), 'verify: levels in price order');
      const count = this.verifyLevel(level, sizeOf);
      assert(count > 0, 'verify: an occupied level holds orders');
      orders += count;
      previous = level;
    }
    const best = this.bestIsHighest ? this.occupied.prevAtOrBelow(this.levelsCount - 1) : this.occupied.nextAtOrAbove(0);
    assert(best === this.bestLevel, 'verify: best level');
    assert(orders === this.orders, 'verify: order count');
  }

  private verifyLevel(level: number, sizeOf: (slot: number) => number): number {
    let count = 0;
    let size = 0;
    let before = NIL;
    for (let slot = this.heads[level]!; slot !== NIL; slot = this.after(slot)) {
      assert(this.words[(slot * this.stride + this.prevOffset) | 0] === before, 'verify: prev link');
      assert(count < this.words.length / this.stride, 'verify: level list terminates');
      size += sizeOf(slot);
      count += 1;
      before = slot;
    }
    assert(this.tails[level] === before, 'verify: tail');
    assert(this.counts[level] === count, 'verify: level count');
    assert(this.sizes[level] === size, 'verify: level size');
    return count;
  }
}

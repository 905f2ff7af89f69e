// A two-level bitset over price levels: which levels hold orders. Finding the next non-empty
// level above or below a price costs a few word operations instead of a scan over empty levels,
// which keeps best-price tracking O(1)-ish when a whole level is swept or cancelled.
import { assert } from '../assert.js';

const NONE = -1;

/** Index of the lowest set bit of a non-zero 32-bit word. */
function lowestBit(word: number): number {
  return 31 - Math.clz32(word & -word);
}

/** Index of the highest set bit of a non-zero 32-bit word. */
function highestBit(word: number): number {
  return 31 - Math.clz32(word);
}

/** Mask of bits at and above `bit` (0..31). */
function maskFrom(bit: number): number {
  return -1 << bit;
}

/** Mask of bits at and below `bit` (0..31). */
function maskTo(bit: number): number {
  return -1 >>> (31 - bit);
}

export class LevelBitmap {
  readonly bitsCount: number;
  private readonly words: Int32Array;
  /** Bit w is set when words[w] is non-zero. */
  private readonly summary: Int32Array;

  constructor(bitsCount: number) {
    assert(Number.isInteger(bitsCount) && bitsCount > 0 && bitsCount <= 2 ** 30, 'bitmap size');
    this.bitsCount = bitsCount;
    this.words = new Int32Array((bitsCount + 31) >>> 5);
    this.summary = new Int32Array((this.words.length + 31) >>> 5);
  }

  has(bit: number): boolean {
    return ((this.words[bit >>> 5]! >>> (bit & 31)) & 1) === 1;
  }

  set(bit: number): void {
    const word = bit >>> 5;
    this.words[word] = this.words[word]! | (1 << (bit & 31));
    this.summary[word >>> 5] = this.summary[word >>> 5]! | (1 << (word & 31));
  }

  clear(bit: number): void {
    const word = bit >>> 5;
    const value = this.words[word]! & ~(1 << (bit & 31));
    this.words[word] = value;
    if (value === 0) this.summary[word >>> 5] = this.summary[word >>> 5]! & ~(1 << (word & 31));
  }

  /** The lowest set bit ≥ `from`, or -1. */
  nextAtOrAbove(from: number): number {
    if (from >= this.bitsCount) return NONE;
    const start = from < 0 ? 0 : from;
    const word = start >>> 5;
    const bits = this.words[word]! & maskFrom(start & 31);
    if (bits !== 0) return (word << 5) + lowestBit(bits);
    const nextWord = this.nextWordAtOrAbove(word + 1);
    return nextWord === NONE ? NONE : (nextWord << 5) + lowestBit(this.words[nextWord]!);
  }

  /** The highest set bit ≤ `from`, or -1. */
  prevAtOrBelow(from: number): number {
    if (from < 0) return NONE;
    const start = from >= this.bitsCount ? this.bitsCount - 1 : from;
    const word = start >>> 5;
    const bits = this.words[word]! & maskTo(start & 31);
    if (bits !== 0) return (word << 5) + highestBit(bits);
    const prevWord = this.prevWordAtOrBelow(word - 1);
    return prevWord === NONE ? NONE : (prevWord << 5) + highestBit(this.words[prevWord]!);
  }

  private nextWordAtOrAbove(from: number): number {
    if (from >= this.words.length) return NONE;
    let group = from >>> 5;
    let bits = this.summary[group]! & maskFrom(from & 31);
    while (bits === 0) {
      group += 1;
      if (group >= this.summary.length) return NONE;
      bits = this.summary[group]!;
    }
    return (group << 5) + lowestBit(bits);
  }

  private prevWordAtOrBelow(from: number): number {
    if (from < 0) return NONE;
    let group = from >>> 5;
    let bits = this.summary[group]! & maskTo(from & 31);
    while (bits === 0) {
      group -= 1;
      if (group < 0) return NONE;
      bits = this.summary[group]!;
    }
    return (group << 5) + highestBit(bits);
  }
}

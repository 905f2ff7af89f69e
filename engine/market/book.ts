// The book of one binary market, kept once, in the YES orientation. BUY YES at p is a bid at p,
// SELL YES at p an ask at p, BUY NO at q an ask at 1 − q and SELL NO at q a bid at 1 − q. The NO
// token's book is this one mirrored (side flipped, price 1 − p); it is derived, never stored.
// Every level change made through rest, remove and reduce is recorded in the command's dirty list
// so the engine emits one LEVEL event per changed level; a command that changes one level alone
// goes to the ladder directly and emits its LEVEL event itself (see change_events.ts).
import { assert } from '../assert.js';
import { PRICE_LEVELS_COUNT, PRICE_UNITS_PER_ONE } from '../constants.js';
import { DirtyList } from '../events/dirty_list.js';
import { Ladder, type SlotLinks } from './ladder.js';

/** Sides of the YES-orientation book. */
export const BookSide = { Bid: 0, Ask: 1 } as const;
export type BookSide = (typeof BookSide)[keyof typeof BookSide];

/** The book side of an order: outcome 0/1 (YES/NO) xor side 0/1 (BUY/SELL). */
export function bookSideOf(outcome: number, side: number): BookSide {
  return (outcome ^ side) as BookSide;
}

/**
 * A price in YES-orientation units from a price in `outcome`'s own units, and back: the map is
 * its own inverse (p ↦ 1 − p for NO).
 */
export function bookPriceOf(outcome: number, priceUnits: number): number {
  return outcome === 0 ? priceUnits : PRICE_UNITS_PER_ONE - priceUnits;
}

/** The side a YES-orientation level shows in `outcome`'s own book (NO mirrors it). */
export function tokenSideOf(outcome: number, bookSide: BookSide): BookSide {
  return (outcome ^ bookSide) as BookSide;
}

export class Book {
  readonly market: number;
  readonly bids: Ladder;
  readonly asks: Ladder;
  private readonly dirty: DirtyList;
  /** Dirty-list stamps by side × PRICE_LEVELS_COUNT + price. */
  private readonly stamps: Float64Array;

  constructor(market: number, links: SlotLinks, dirty: DirtyList) {
    this.market = market;
    this.bids = new Ladder(PRICE_LEVELS_COUNT, true, links);
    this.asks = new Ladder(PRICE_LEVELS_COUNT, false, links);
    this.dirty = dirty;
    this.stamps = new Float64Array(2 * PRICE_LEVELS_COUNT);
  }

  ladder(side: BookSide): Ladder {
    return side === BookSide.Bid ? this.bids : this.asks;
  }

  rest(side: BookSide, bookPrice: number, slot: number, sizeMicros: number): void {
    assert(bookPrice > 0 && bookPrice < PRICE_UNITS_PER_ONE, 'rest: price inside (0, 1)');
    this.touch(side, bookPrice);
    this.ladder(side).append(bookPrice, slot, sizeMicros);
  }

  remove(side: BookSide, bookPrice: number, slot: number, sizeMicros: number): void {
    this.touch(side, bookPrice);
    this.ladder(side).remove(bookPrice, slot, sizeMicros);
  }

  reduce(side: BookSide, bookPrice: number, sizeMicros: number): void {
    this.touch(side, bookPrice);
    this.ladder(side).reduce(bookPrice, sizeMicros);
  }

  /** Whether the best bid is below the best ask (or a side is empty). */
  isUncrossed(): boolean {
    const bid = this.bids.best();
    const ask = this.asks.best();
    return bid === -1 || ask === -1 || bid < ask;
  }

  private touch(side: BookSide, bookPrice: number): void {
    const index = side * PRICE_LEVELS_COUNT + bookPrice;
    if (this.stamps[index] === this.dirty.stamp) return;
    this.stamps[index] = this.dirty.stamp;
    const dirty = this.dirty;
    const item = dirty.add(2 * this.market + side, bookPrice, 0);
    dirty.startsA[item] = this.ladder(side).sizeAt(bookPrice);
    dirty.startsB[item] = 0;
  }
}

// Markets of one engine, by the small integer index the caller assigns in AddMarket: trading
// parameters (tick and the size step it implies, minimum size, taker fee), state (accepting
// orders, resolved, winner) and the book. Columns are preallocated for every index; a book (about
// 330 KB) only for added markets.
import { assert } from '../assert.js';
import { Book } from './book.js';
import type { DirtyList } from '../events/dirty_list.js';
import type { SlotLinks } from './ladder.js';
import { sizeStepMicros } from '../ledger/notional.js';

export const NO_WINNER = -1;

export class Markets {
  readonly marketsMax: number;
  readonly exists: Uint8Array;
  readonly tickUnits: Int32Array;
  /** The size step of the market's tick (notional.ts), kept with it so a placement reads one number. */
  readonly sizeStepMicros: Int32Array;
  readonly minSizeMicros: Float64Array;
  readonly feeBps: Int32Array;
  readonly accepting: Uint8Array;
  readonly resolved: Uint8Array;
  readonly winner: Int8Array;
  private readonly books: (Book | undefined)[];
  private readonly links: SlotLinks;
  private readonly dirty: DirtyList;
  private added = 0;

  constructor(marketsMax: number, links: SlotLinks, dirty: DirtyList) {
    assert(Number.isInteger(marketsMax) && marketsMax > 0, 'markets max');
    this.marketsMax = marketsMax;
    this.exists = new Uint8Array(marketsMax);
    this.tickUnits = new Int32Array(marketsMax);
    this.sizeStepMicros = new Int32Array(marketsMax);
    this.minSizeMicros = new Float64Array(marketsMax);
    this.feeBps = new Int32Array(marketsMax);
    this.accepting = new Uint8Array(marketsMax);
    this.resolved = new Uint8Array(marketsMax);
    this.winner = new Int8Array(marketsMax).fill(NO_WINNER);
    this.books = new Array<Book | undefined>(marketsMax).fill(undefined);
    this.links = links;
    this.dirty = dirty;
  }

  count(): number {
    return this.added;
  }

  /** Whether `market` is an added market's index (false for anything out of range). */
  has(market: number): boolean {
    return Number.isInteger(market) && market >= 0 && market < this.marketsMax && this.exists[market] === 1;
  }

  add(market: number, tickUnits: number, minSizeMicros: number, feeBps: number): void {
    assert(!this.has(market), 'add: market is new');
    this.exists[market] = 1;
    this.setTick(market, tickUnits);
    this.minSizeMicros[market] = minSizeMicros;
    this.feeBps[market] = feeBps;
    this.accepting[market] = 1;
    this.resolved[market] = 0;
    this.winner[market] = NO_WINNER;
    this.books[market] = new Book(market, this.links, this.dirty);
    this.added += 1;
  }

  /** Sets the market's tick and its size step; resting orders keep their prices and sizes. */
  setTick(market: number, tickUnits: number): void {
    this.tickUnits[market] = tickUnits;
    this.sizeStepMicros[market] = sizeStepMicros(tickUnits);
  }

  book(market: number): Book {
    const book = this.books[market];
    assert(book !== undefined, 'book: market exists');
    return book;
  }

  /** Added market indices, ascending. */
  indices(): number[] {
    const result: number[] = [];
    for (let market = 0; market < this.marketsMax; market += 1) if (this.exists[market] === 1) result.push(market);
    return result;
  }
}

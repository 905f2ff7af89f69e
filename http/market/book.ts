// The front end's copy of one market's order book and state, kept from the shards' answers (see
// market_data.ts). Levels are stored once, in the YES orientation the engine uses; the NO book
// is derived when a token's view is asked for (a NO bid at q is a YES ask at 1 − q). Every change
// bumps `version`, and whatever is derived from the levels (best prices, serialized bodies) is
// cached against it, so a read between two changes costs a lookup.
import { BookSide } from '../../engine/market/book.js';
import { PRICE_UNITS_PER_ONE } from '../../engine/constants.js';
import { notionalMicros } from '../../engine/ledger/notional.js';
import type { BookView, MarketView } from '../../engine/state/reads.js';
import type { BookVersion, BookVersions } from './book_versions.js';
import { TradedVolume } from './volume.js';

export const BUY = 0;
export const SELL = 1;
export type TradeSide = typeof BUY | typeof SELL;

export interface LastTrade {
  /** In the token's own price units. */
  readonly priceUnits: number;
  /** The taker's side. */
  readonly side: TradeSide;
  readonly timeMs: number;
}

/** One side of a token's book, best level last (as Polymarket serves them). */
export interface TokenLevels {
  readonly prices: number[];
  readonly sizes: number[];
}

interface Derived {
  version: number;
  /** YES-orientation best bid and ask, -1 when that side is empty. */
  bestBid: number;
  bestAsk: number;
}

export class MarketBook {
  /** YES-orientation price units → aggregate size (micros). */
  readonly bids = new Map<number, number>();
  readonly asks = new Map<number, number>();
  /** Collateral micros of price × size over every level, bids and asks (the catalog's liquidity), kept as levels change. */
  restingNotionalMicros = 0;
  version = 0;
  /** Time of the last change to the levels or the market's state (ms). */
  changedAtMs = 0;
  tickUnits: number;
  minSizeMicros: number;
  feeBps: number;
  accepting: boolean;
  resolved: boolean;
  winner: number;
  /** By outcome. */
  readonly lastTrades: (LastTrade | undefined)[] = [undefined, undefined];
  /** What the market traded (the catalog's volume and volume24hr); a fill changes it with its last trades. */
  readonly volume = new TradedVolume();
  private readonly derived: Derived = { version: -1, bestBid: -1, bestAsk: -1 };
  /** Derived answers by slot (see `memo`), each stamped with the version it was built from. */
  private readonly derivedBySlot: ({ version: number; value: unknown } | undefined)[] = [];

  /** This book's cell of the shared versions (book_versions.ts), -1 for none. */
  private readonly cell: number;

  constructor(readonly conditionId: string, view: MarketView, timeMs: number, private readonly versions?: BookVersions) {
    this.cell = versions?.allocate() ?? -1;
    this.changedAtMs = timeMs;
    this.tickUnits = view.tickUnits;
    this.minSizeMicros = view.minSizeMicros;
    this.feeBps = view.feeBps;
    this.accepting = view.accepting;
    this.resolved = view.resolved;
    this.winner = view.winner;
  }

  /** Replaces the levels with a shard's book (YES orientation, best first), as of `timeMs`. */
  load(view: BookView, timeMs: number): void {
    this.changedAtMs = timeMs;
    this.bids.clear();
    this.asks.clear();
    this.restingNotionalMicros = 0;
    for (const level of view.bids) {
      this.bids.set(level.priceUnits, level.sizeMicros);
      this.restingNotionalMicros += notionalMicros(level.priceUnits, level.sizeMicros);
    }
    for (const level of view.asks) {
      this.asks.set(level.priceUnits, level.sizeMicros);
      this.restingNotionalMicros += notionalMicros(level.priceUnits, level.sizeMicros);
    }
    this.changed();
  }

  setState(view: Omit<MarketView, 'market' | 'setsMicros'>, timeMs: number): void {
    this.changedAtMs = timeMs;
    this.tickUnits = view.tickUnits;
    this.minSizeMicros = view.minSizeMicros;
    this.feeBps = view.feeBps;
    this.accepting = view.accepting;
    this.resolved = view.resolved;
    this.winner = view.winner;
    this.changed();
  }

  /** A LEVEL event: the new aggregate size at a YES-orientation price (0 removes the level). */
  setLevel(side: BookSide, priceUnits: number, sizeMicros: number, timeMs: number): void {
    const levels = side === BookSide.Bid ? this.bids : this.asks;
    this.restingNotionalMicros += notionalMicros(priceUnits, sizeMicros) - notionalMicros(priceUnits, levels.get(priceUnits) ?? 0);
    if (sizeMicros === 0) levels.delete(priceUnits);
    else levels.set(priceUnits, sizeMicros);
    this.changedAtMs = timeMs;
    this.changed();
  }

  setLastTrade(outcome: number, trade: LastTrade): void {
    this.lastTrades[outcome] = trade;
    this.changed();
  }

  private changed(): void {
    this.version++;
    if (this.cell !== -1) this.versions!.set(this.cell, this.version);
  }

  /** While an answer built from this book's current state stays right (book_versions.ts); undefined when the book has no cell. */
  validity(): BookVersion | undefined {
    return this.cell === -1 ? undefined : { cell: this.cell, version: this.version | 0 };
  }

  /**
   * The value in `slot` as of the current version: built once per version by `build`, then
   * served as it is until the book changes. Slots are the callers' own small integers.
   */
  memo<T>(slot: number, build: () => T): T {
    const cached = this.derivedBySlot[slot];
    if (cached !== undefined && cached.version === this.version) return cached.value as T;
    const value = build();
    this.derivedBySlot[slot] = { version: this.version, value };
    return value;
  }

  /** Best bid (BUY) or best ask (SELL) of `outcome`'s own book in its units; -1 when empty. */
  best(outcome: number, side: TradeSide): number {
    const derived = this.derive();
    if (outcome === 0) return side === BUY ? derived.bestBid : derived.bestAsk;
    const mirrored = side === BUY ? derived.bestAsk : derived.bestBid;
    return mirrored === -1 ? -1 : PRICE_UNITS_PER_ONE - mirrored;
  }

  /** `outcome`'s bids ascending and asks descending: best last on both sides. */
  levels(outcome: number): { bids: TokenLevels; asks: TokenLevels } {
    if (outcome === 0) return { bids: sorted(this.bids, 1, false), asks: sorted(this.asks, -1, false) };
    // A NO bid at 1 − p is a YES ask at p: the YES asks, descending by YES price, are the NO
    // bids ascending by NO price.
    return { bids: sorted(this.asks, -1, true), asks: sorted(this.bids, 1, true) };
  }

  private derive(): Derived {
    const derived = this.derived;
    if (derived.version === this.version) return derived;
    derived.bestBid = -1;
    derived.bestAsk = -1;
    for (const price of this.bids.keys()) if (price > derived.bestBid) derived.bestBid = price;
    for (const price of this.asks.keys()) if (derived.bestAsk === -1 || price < derived.bestAsk) derived.bestAsk = price;
    derived.version = this.version;
    return derived;
  }
}

/** Levels sorted by YES price (`direction` 1 ascending, -1 descending), mirrored to 1 − p on request. */
function sorted(levels: Map<number, number>, direction: 1 | -1, mirror: boolean): TokenLevels {
  const prices = [...levels.keys()].sort((a, b) => direction * (a - b));
  return {
    prices: mirror ? prices.map((price) => PRICE_UNITS_PER_ONE - price) : prices,
    sizes: prices.map((price) => levels.get(price)!),
  };
}

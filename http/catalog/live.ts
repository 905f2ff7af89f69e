// Gamma's live market fields, from the front end's read model of the books (market_data.ts) and
// the clock: prices and quotes of the first outcome's book, what the market traded in all and in
// the last day (kept as fills arrive, market/volume.ts), and the value of its resting orders.
// Integers inside (price units of 0.0001, collateral micros); views.ts makes them decimals.
//
// A market's values are built once per version of its book and clock hour, so a list of 500
// markets costs 500 lookups between two changes, and no read walks a trade. `version()` moves on
// whenever any book, trade or market state changes (the read model tells it, as it tells the
// WebSocket channels) and when the clock enters a new hour, so cached answers that show these
// fields are never served stale.
import { PRICE_UNITS_PER_ONE } from '../../engine/constants.js';
import { HOUR_MS } from '../../engine/shard/feed_tables.js';
import { BUY, SELL, type MarketBook } from '../market/book.js';
import type { AppliedAnswer, MarketDataListener } from '../market/market_data.js';

/** Price units (0.0001) of a quote; micros of an amount. */
export interface LiveMarket {
  /** Per outcome: the price as Gamma's outcomePrices shows it, in units of 0.00005 (a midpoint may fall between two price units). */
  readonly outcomeHalfUnits: readonly [number, number];
  /** The first outcome's best bid and ask, -1 when that side has no order. */
  readonly bestBidUnits: number;
  readonly bestAskUnits: number;
  /** The first outcome's last trade price, -1 before its first trade. */
  readonly lastTradeUnits: number;
  readonly volumeMicros: number;
  readonly volume24hrMicros: number;
  readonly liquidityMicros: number;
}

/** Above this spread (0.10) the last trade shows instead of the midpoint, as on Polymarket. */
export const MIDPOINT_SPREAD_MAX_UNITS = PRICE_UNITS_PER_ONE / 10;
/** What an outcome shows with neither a quoted spread nor a trade: 0.5, in half units. */
const NO_PRICE_HALF_UNITS = PRICE_UNITS_PER_ONE;

/** A market without an order book, or before its book loaded: nothing quoted, nothing traded. */
export const NO_LIVE: LiveMarket = Object.freeze({
  outcomeHalfUnits: [NO_PRICE_HALF_UNITS, NO_PRICE_HALF_UNITS] as const, bestBidUnits: -1, bestAskUnits: -1, lastTradeUnits: -1,
  volumeMicros: 0, volume24hrMicros: 0, liquidityMicros: 0,
});

/**
 * An outcome's price as Gamma shows it (half units): once resolved 1 for the winner and 0 for
 * the other; the midpoint of its book when the spread is at most 0.10; else its last trade; else
 * the midpoint of a wider spread; else 0.5.
 */
function outcomeHalfUnits(book: MarketBook, outcome: number): number {
  if (book.resolved) return book.winner === outcome ? 2 * PRICE_UNITS_PER_ONE : 0;
  const bid = book.best(outcome, BUY);
  const ask = book.best(outcome, SELL);
  const quoted = bid !== -1 && ask !== -1;
  if (quoted && ask - bid <= MIDPOINT_SPREAD_MAX_UNITS) return bid + ask;
  const last = book.lastTrades[outcome];
  if (last !== undefined) return 2 * last.priceUnits;
  return quoted ? bid + ask : NO_PRICE_HALF_UNITS;
}


interface Built {
  readonly version: number;
  readonly hour: number;
  readonly value: LiveMarket;
}

export class CatalogLive implements MarketDataListener {
  private changes = 0;
  private hourSeen = 0;
  /** Each book's values as of its version and the clock hour. */
  private readonly built = new WeakMap<MarketBook, Built>();

  constructor(
    private readonly book: (conditionId: string) => MarketBook | undefined,
    private readonly now: () => number,
  ) {}

  /** An answer the read model applied: it changes what the catalog shows when it moved a level, made a fill or changed a market's state. */
  applied(answer: AppliedAnswer): void {
    if (answer.states.length > 0) {
      this.changes++;
      return;
    }
    for (const event of answer.events) {
      if (event.kind === 'LEVEL' || event.kind === 'FILL') {
        this.changes++;
        return;
      }
    }
  }

  reloaded(): void {
    this.changes++;
  }

  /** Grows whenever a value of any market may have changed (a book, a trade, a state, the clock's hour). */
  version(): number {
    const hour = Math.floor(this.now() / HOUR_MS);
    if (hour > this.hourSeen) this.hourSeen = hour;
    return this.changes + this.hourSeen;
  }

  market(conditionId: string): LiveMarket {
    const book = this.book(conditionId);
    if (book === undefined) return NO_LIVE;
    const hour = Math.floor(this.now() / HOUR_MS);
    const built = this.built.get(book);
    if (built !== undefined && built.version === book.version && built.hour === hour) return built.value;
    const value: LiveMarket = {
      outcomeHalfUnits: [outcomeHalfUnits(book, 0), outcomeHalfUnits(book, 1)],
      bestBidUnits: book.best(0, BUY),
      bestAskUnits: book.best(0, SELL),
      lastTradeUnits: book.lastTrades[0]?.priceUnits ?? -1,
      volumeMicros: book.volume.totalMicros,
      volume24hrMicros: book.volume.lastDayMicros(hour * HOUR_MS),
      // What a taker could trade against every resting order at its price (the read model keeps the sum as levels change).
      liquidityMicros: book.restingNotionalMicros,
    };
    this.built.set(book, { version: book.version, hour, value });
    return value;
  }
}

// The front end's read model of the markets: every book, market state and last trade, kept from
// the answers the shards commit (ShardObserver). Market-data reads never wait on a matching
// worker. (The public feeds read the shards' own stores: feed_reader.ts.)
//
// Start and restart of a shard (shard_model.ts): its answers are held back while the model loads
// the shard's books, market states and last trades (as of an engine sequence number S). Then the
// held answers are applied, their events only after S (a LEVEL event carries the level's new
// total, so applying them in order after the snapshot is exact).
import type { EngineEvent, FillEvent } from '../../engine/events/event_objects.js';
import { BookVersions } from './book_versions.js';
import { notionalMicros } from '../../engine/ledger/notional.js';
import type { FrameResult } from '../../engine/shard/core.js';
import type { MarketData as ShardMarketData } from '../../engine/shard/protocol.js';
import type { Logger } from '../log.js';
import { ShardModel, type LoadedShard } from '../trading/shard_model.js';
import type { ShardPool } from '../trading/shards.js';
import { MarketBook, type TradeSide } from './book.js';

/**
 * What one committed answer changed, as the live channels publish it. Its events are the
 * answer's own array (a copy only after a reload, when the loaded books already hold a prefix):
 * the read model makes one object per answer, not one per event, on the front end's busiest path.
 */
export interface AppliedAnswer {
  readonly shard: number;
  /** The command's time. */
  readonly timeMs: number;
  /** When the read model applied the answer (after its durable commit, before its requester hears). */
  readonly appliedMs: number;
  /** The events the read model had not seen, in order (books: MarketData.bookAt(shard, market)). */
  readonly events: readonly EngineEvent[];
  /** Books whose market state (tick, accepting, resolution) changed. */
  readonly states: readonly MarketBook[];
}

const NO_BOOKS: readonly MarketBook[] = Object.freeze([]);

/** Told of every answer the read model applies, after it applied it (the WebSocket channels). */
export interface MarketDataListener {
  applied(answer: AppliedAnswer): void;
  /** A shard's books were reloaded whole (the shard restarted): followers need them again. */
  reloaded(books: readonly MarketBook[]): void;
}

interface ShardState extends LoadedShard {
  /** Engine market index → book. */
  books: MarketBook[];
}

export class MarketData extends ShardModel<ShardState, ShardMarketData> {
  private readonly books = new Map<string, MarketBook>();
  /**
   * Each book's version in shared memory, for the front-end threads' kept reads; only with such
   * threads (`shareVersions`): without them no read needs a cell, and none is written.
   */
  readonly versions: BookVersions | undefined;
  private readonly listeners: MarketDataListener[] = [];

  constructor(pool: ShardPool, log: Logger, private readonly now: () => number, shareVersions = false) {
    super(pool, log, 'market data', () => ({ held: [], baseSeq: 0, generation: 0, books: [] }));
    this.versions = shareVersions ? new BookVersions() : undefined;
  }

  /** The book of a market with an order book, by condition id. */
  book(conditionId: string): MarketBook | undefined {
    return this.books.get(conditionId);
  }

  listen(listener: MarketDataListener): void {
    this.listeners.push(listener);
  }

  /** The book of engine market `index` on `shard`, once loaded. */
  bookAt(shard: number, index: number): MarketBook | undefined {
    return this.shards[shard]?.books[index];
  }

  protected read(shard: number): Promise<ShardMarketData> {
    return this.pool.read<ShardMarketData>(shard, { kind: 'marketData' });
  }

  protected restore(_shard: number, state: ShardState, data: ShardMarketData): Record<string, number> {
    state.books = [];
    const nowMs = this.now();
    for (const { key, view, book, lastTrades, volume } of data.markets) {
      const model = this.bookFor(state, view.market, key, view, nowMs);
      model.setState(view, nowMs);
      model.load(book, nowMs);
      model.volume.load(volume);
      lastTrades.forEach((trade, outcome) => {
        if (trade !== null) model.setLastTrade(outcome, { priceUnits: trade[0], side: trade[1] as TradeSide, timeMs: trade[2] });
      });
    }
    return { markets: data.markets.length };
  }

  protected override restored(state: ShardState): void {
    this.tell((listener) => listener.reloaded(state.books.filter((book) => book !== undefined)));
  }

  protected apply(shard: number, state: ShardState, result: FrameResult): void {
    const events = result.events;
    // Sequence numbers rise through an answer, so what a reload's books already hold is a prefix.
    let from = 0;
    while (from < events.length && events[from]!.seq <= state.baseSeq) from++;
    let states: MarketBook[] | undefined;
    for (let index = from; index < events.length; index++) {
      const event = events[index]!;
      if (event.kind === 'FILL') {
        const book = state.books[event.market];
        if (book !== undefined) noteTrade(book, event, result.timeMs);
      } else if (event.kind === 'LEVEL') {
        state.books[event.market]?.setLevel(event.side, event.priceUnits, event.sizeMicros, result.timeMs);
      } else if (event.kind === 'MARKET') {
        const key = this.pool.marketKeyAt(shard, event.market);
        if (key === undefined) continue;
        const view = { ...event, market: event.market, setsMicros: 0 };
        const book = this.bookFor(state, event.market, key, view, result.timeMs);
        book.setState(view, result.timeMs);
        (states ??= []).push(book);
      }
    }
    if (this.listeners.length === 0 || from === events.length) return;
    const answer: AppliedAnswer = {
      shard, timeMs: result.timeMs, appliedMs: this.now(), events: from === 0 ? events : events.slice(from), states: states ?? NO_BOOKS,
    };
    this.tell((listener) => listener.applied(answer));
  }

  /** A listener's failure is logged: it must never stop the read model. */
  private tell(what: (listener: MarketDataListener) => void): void {
    for (const listener of this.listeners) {
      try {
        what(listener);
      } catch (error) {
        this.log.error('market data listener failed', { error: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  private bookFor(state: ShardState, index: number, key: string, view: ConstructorParameters<typeof MarketBook>[1], timeMs: number): MarketBook {
    let book = state.books[index];
    if (book === undefined) {
      book = this.books.get(key) ?? new MarketBook(key, view, timeMs, this.versions);
      state.books[index] = book;
      this.books.set(key, book);
    }
    return book;
  }
}

/**
 * A fill's last trade of each token it traded (the other token's side is the opposite), and what
 * it traded: once, at the taker's price (as the shard's market-volume counts it).
 */
function noteTrade(book: MarketBook, fill: FillEvent, timeMs: number): void {
  book.volume.add(notionalMicros(fill.takerPriceUnits, fill.sizeMicros), timeMs);
  book.setLastTrade(fill.takerOutcome, { priceUnits: fill.takerPriceUnits, side: fill.takerSide as TradeSide, timeMs });
  if (fill.makerOutcome !== fill.takerOutcome) {
    book.setLastTrade(fill.makerOutcome, { priceUnits: fill.makerPriceUnits, side: (1 - fill.takerSide) as TradeSide, timeMs });
  }
}

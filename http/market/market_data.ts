// The front end's read model of the markets: every book, market state and last trade, kept from
// the answers the shards commit (ShardObserver), and the public feeds' store fed from the same
// answers. Market-data reads never wait on a matching worker.
//
// Start and restart of a shard: its answers are held back while the model loads the shard's
// books and market states (as of an engine sequence number S) and the feed store catches up on
// the fills and redemptions the shard stored after the store's cursor. Then the held answers are
// applied: book events only after S (a LEVEL event carries the level's new total, so applying
// them in order after the snapshot is exact), fills and redemptions only after the cursor.
import type { EngineEvent, FillEvent, LevelEvent } from '../../engine/event_objects.js';
import type { FrameResult, Redemption } from '../../engine/shard/core.js';
import type { MarketData as ShardMarketData } from '../../engine/shard/protocol.js';
import type { FeedRecords } from '../../engine/shard/store.js';
import type { MarketRecord } from '../catalog/model.js';
import type { Logger } from '../log.js';
import type { ShardObserver, ShardPool } from '../trading/shards.js';
import { MarketBook } from './book.js';
import type { Cursor, FeedStore } from './feed_store.js';

/** Records read from a shard per catch-up request. */
const CATCH_UP_BATCH = 10_000;
/** Wait before loading a shard again after a failed load. */
const RELOAD_DELAY_MS = 500;

/** What one committed answer changed, as the live channels publish it. */
export interface AppliedAnswer {
  readonly shard: number;
  /** The command's time. */
  readonly timeMs: number;
  /** When the read model applied the answer (after its durable commit, before its requester hears). */
  readonly appliedMs: number;
  /** Level changes with their book, in event order. */
  readonly levels: readonly { readonly book: MarketBook; readonly event: LevelEvent }[];
  /** Fills new to the read model, with the book of their market (undefined outside the catalog). */
  readonly fills: readonly { readonly book: MarketBook | undefined; readonly event: FillEvent }[];
  /** Books whose market state (tick, accepting, resolution) changed. */
  readonly states: readonly MarketBook[];
  /** Order events (accepted, updated, cancelled) the read model had not seen. */
  readonly orders: readonly EngineEvent[];
}

/** Told of every answer the read model applies, after it applied it (the WebSocket channels). */
export interface MarketDataListener {
  applied(answer: AppliedAnswer): void;
  /** A shard's books were reloaded whole (the shard restarted): followers need them again. */
  reloaded(books: readonly MarketBook[]): void;
}

interface ShardState {
  /** Answers held back while the shard loads; undefined once loaded. */
  held: FrameResult[] | undefined;
  /** The engine sequence number the loaded books reflect. */
  baseSeq: number;
  /** Bumped by every start, so a load overtaken by a newer start gives up. */
  generation: number;
  /** Engine market index → book. */
  books: MarketBook[];
}

function after(key: readonly [number, number], seq: number, index: number): boolean {
  return seq > key[0] || (seq === key[0] && index > key[1]);
}

export class MarketData implements ShardObserver {
  private readonly books = new Map<string, MarketBook>();
  private readonly shards: ShardState[];
  private readonly waiting: (() => void)[] = [];
  private readonly listeners: MarketDataListener[] = [];

  constructor(
    private readonly pool: ShardPool,
    readonly feeds: FeedStore,
    private readonly catalog: (conditionId: string) => MarketRecord | undefined,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {
    this.shards = Array.from({ length: pool.count }, () => ({ held: [], baseSeq: 0, generation: 0, books: [] }));
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

  /** Whether every shard's books are loaded. */
  loaded(): boolean {
    return this.shards.every((state) => state.held === undefined);
  }

  /** Resolves once every shard's books are loaded (the server says it is ready after that). */
  whenLoaded(): Promise<void> {
    if (this.loaded()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  answered(shard: number, result: FrameResult): void {
    const state = this.shards[shard]!;
    if (state.held !== undefined) state.held.push(result);
    else this.apply(shard, state, result);
  }

  started(shard: number): void {
    const state = this.shards[shard]!;
    state.generation++;
    state.held = [];
    void this.load(shard, state, state.generation);
  }

  private async load(shard: number, state: ShardState, generation: number): Promise<void> {
    try {
      const data = await this.pool.read<ShardMarketData>(shard, { kind: 'marketData' });
      await this.catchUp(shard, generation);
      if (state.generation !== generation) return;
      state.books = [];
      const nowMs = this.now();
      for (const { key, view, book } of data.markets) {
        const model = this.bookFor(state, view.market, key, view, nowMs);
        model.setState(view, nowMs);
        model.load(book, nowMs);
      }
      state.baseSeq = data.seq;
      const held = state.held ?? [];
      state.held = undefined;
      this.tell((listener) => listener.reloaded(state.books.filter((book) => book !== undefined)));
      for (const result of held) this.apply(shard, state, result);
      this.log.info('market data loaded', { shard, markets: data.markets.length, seq: data.seq });
      if (this.loaded()) for (const resolve of this.waiting.splice(0)) resolve();
    } catch (error) {
      if (state.generation !== generation) return;
      this.log.warn('market data load failed; retrying', { shard, error: error instanceof Error ? error.message : String(error) });
      setTimeout(() => {
        if (state.generation === generation && this.pool.isReady(shard)) void this.load(shard, state, generation);
      }, RELOAD_DELAY_MS).unref();
    }
  }

  /** Feeds the store everything the shard stored after the store's cursor. */
  private async catchUp(shard: number, generation: number): Promise<void> {
    for (;;) {
      const cursor = this.feeds.cursor(shard);
      const records = await this.pool.read<FeedRecords>(shard, {
        kind: 'feedAfter', fillKey: [...cursor.fill], redemptionKey: [...cursor.redemption], max: CATCH_UP_BATCH,
      });
      if (this.shards[shard]!.generation !== generation) return;
      for (const fill of records.fills) this.recordFill(shard, fill, fill.timeMs, cursor);
      for (const redemption of records.redemptions) this.recordRedemption(shard, redemption, redemption.index, redemption.timeMs, cursor);
      if (records.fills.length < CATCH_UP_BATCH && records.redemptions.length < CATCH_UP_BATCH) return;
    }
  }

  private apply(shard: number, state: ShardState, result: FrameResult): void {
    const cursor = this.feeds.cursor(shard);
    const telling = this.listeners.length > 0;
    const levels: { book: MarketBook; event: LevelEvent }[] = [];
    const fills: { book: MarketBook | undefined; event: FillEvent }[] = [];
    const states: MarketBook[] = [];
    const orders: EngineEvent[] = [];
    for (const event of result.events) {
      if (event.kind === 'FILL') {
        if (this.recordFill(shard, event, result.timeMs, cursor) && telling) fills.push({ book: state.books[event.market], event });
        continue;
      }
      if (event.seq <= state.baseSeq) continue;
      if (event.kind === 'LEVEL') {
        const book = state.books[event.market];
        if (book === undefined) continue;
        book.setLevel(event.side, event.priceUnits, event.sizeMicros, result.timeMs);
        if (telling) levels.push({ book, event });
      } else if (event.kind === 'MARKET') {
        const key = this.pool.marketKeyAt(shard, event.market);
        if (key === undefined) continue;
        const view = { ...event, market: event.market, setsMicros: 0 };
        const book = this.bookFor(state, event.market, key, view, result.timeMs);
        book.setState(view, result.timeMs);
        if (telling) states.push(book);
      } else if (telling && (event.kind === 'ORDER_ACCEPTED' || event.kind === 'ORDER_UPDATED' || event.kind === 'ORDER_CANCELLED')) {
        orders.push(event);
      }
    }
    result.redemptions.forEach((redemption, index) => this.recordRedemption(shard, redemption, index, result.timeMs, cursor));
    if (levels.length + fills.length + states.length + orders.length === 0) return;
    const answer: AppliedAnswer = { shard, timeMs: result.timeMs, appliedMs: this.now(), levels, fills, states, orders };
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
      book = this.books.get(key) ?? new MarketBook(key, view, timeMs);
      const tokens = this.catalog(key)?.tokenIds;
      if (tokens !== undefined) {
        tokens.forEach((tokenId, outcome) => {
          const trade = this.feeds.lastTrade(tokenId);
          if (trade !== undefined) book!.setLastTrade(outcome, trade);
        });
      }
      state.books[index] = book;
      this.books.set(key, book);
    }
    return book;
  }

  /** A fill after the store's cursor: its public items, and the last trade of its tokens. True when new. */
  private recordFill(shard: number, fill: FillEvent, timeMs: number, cursor: Cursor): boolean {
    if (!after(cursor.fill, fill.seq, fill.fillIndex)) return false;
    const key = this.pool.marketKeyAt(shard, fill.market);
    if (key === undefined) {
      this.log.warn('fill of a market the pool does not know', { shard, market: fill.market });
      return false;
    }
    this.feeds.recordFill(shard, fill, timeMs, key, this.catalog(key)?.tokenIds);
    const book = this.books.get(key);
    if (book !== undefined) {
      book.setLastTrade(fill.takerOutcome, { priceUnits: fill.takerPriceUnits, side: fill.takerSide as 0 | 1, timeMs });
      if (fill.makerOutcome !== fill.takerOutcome) {
        book.setLastTrade(fill.makerOutcome, { priceUnits: fill.makerPriceUnits, side: (1 - fill.takerSide) as 0 | 1, timeMs });
      }
    }
    return true;
  }

  private recordRedemption(shard: number, redemption: Redemption, index: number, timeMs: number, cursor: Cursor): void {
    if (!after(cursor.redemption, redemption.seq, index)) return;
    const key = this.pool.marketKeyAt(shard, redemption.market);
    if (key === undefined) return;
    this.feeds.recordRedemption(shard, redemption, index, timeMs, key);
  }
}

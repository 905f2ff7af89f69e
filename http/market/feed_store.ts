// The public feeds' store (DATA_DIR/feeds): every fill as two public items (the taker's side and
// the maker's), what each resolution paid each holder, every token's last trade and its price
// history compacted to the last trade of each minute. Written by the front end as the shards'
// answers arrive (market_data.ts), read by the feed, history and last-trade routes without
// asking a worker.
//
// The shards' own stores are the truth: every fill and redemption is committed there before its
// answer leaves the shard. This store records, per shard, the key of the last fill and
// redemption it holds (the cursor, written in the same transaction as them), and after any
// restart it reads what the shard stored after its cursor (catchUp in market_data.ts). Its
// writes are therefore not synced, and every key is a function of the fill, so a record written
// twice is written identically.
//
// Writes are buffered and committed together (one transaction every few milliseconds, and
// before any read, so a read sees everything recorded before it): per-write transactions cost
// the front end's thread more than the records themselves.
//
//   items     [timeMs, shard, seq, fillIndex, role] → [conditionId, outcome, side, price, size, address]
//   by-user   [address, timeMs, shard, seq, fillIndex, role] → 0
//   by-market [conditionId, timeMs, shard, seq, fillIndex, role] → 0
//   redeems   [address, timeMs, shard, seq, index] → [conditionId, winner, yes shares, no shares]
//   history   [tokenId, minute (unix s)] → price units of the minute's last trade
//   last      tokenId → [price units, side, timeMs]
//   cursors   shard → [fill seq, fill index, redemption seq, redemption index]
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type Key, type RootDatabase } from 'lmdb';
import type { FillEvent } from '../../engine/event_objects.js';
import type { Redemption } from '../../engine/shard/core.js';
import type { LastTrade, TradeSide } from './book.js';

/** The taker's item of a fill, or the maker's. */
export const TAKER = 0;
export const MAKER = 1;

/** Where a fill happened, in the order feeds sort by (newest = greatest). */
export type ItemKey = readonly [timeMs: number, shard: number, seq: number, fillIndex: number, role: number];

/** One side of a fill as the public feeds show it. */
export interface PublicItem {
  readonly key: ItemKey;
  readonly conditionId: string;
  readonly outcome: number;
  readonly side: TradeSide;
  readonly priceUnits: number;
  readonly sizeMicros: number;
  readonly address: string;
}

export interface RedeemItem {
  readonly address: string;
  readonly timeMs: number;
  readonly shard: number;
  readonly seq: number;
  readonly conditionId: string;
  readonly winner: number;
  readonly sharesMicros: readonly [number, number];
}

export interface Cursor {
  readonly fill: [seq: number, fillIndex: number];
  readonly redemption: [seq: number, index: number];
}

export interface TradeQuery {
  readonly limit: number;
  readonly offset: number;
  readonly takerOnly: boolean;
  /** Lower-case condition ids; empty: every market. */
  readonly markets: readonly string[];
  /** Lower-case address, or undefined. */
  readonly user: string | undefined;
  readonly side: TradeSide | undefined;
  /** Items must pass this (cash or token thresholds). */
  readonly accept: (item: PublicItem) => boolean;
}

/** A stored record that does not decode: the feed answers internal_error, the rest serves on. */
export class FeedCorrupt extends Error {
  override readonly name = 'FeedCorrupt';
}

/** Most index entries one feed read may look at before it answers with what it found. */
export const FEED_SCAN_MAX = 200_000;
/** Longest a recorded write waits for its commit when no read asks for it first. */
const FLUSH_EVERY_MS = 10;

type ItemValue = [conditionId: string, outcome: number, side: number, priceUnits: number, sizeMicros: number, address: string];
type RedeemValue = [conditionId: string, winner: number, yes: number, no: number];
type UserKey = [string, number, number, number, number, number];

const SECOND_MS = 1000;
const MINUTE_S = 60;

function isItemValue(value: unknown): value is ItemValue {
  return Array.isArray(value) && value.length === 6 && typeof value[0] === 'string' && typeof value[5] === 'string'
    && [1, 2, 3, 4].every((at) => Number.isSafeInteger(value[at]));
}

function isRedeemValue(value: unknown): value is RedeemValue {
  return Array.isArray(value) && value.length === 4 && typeof value[0] === 'string' && [1, 2, 3].every((at) => Number.isSafeInteger(value[at]));
}

function itemOf(key: ItemKey, value: unknown): PublicItem {
  if (!isItemValue(value)) throw new FeedCorrupt(`trade item ${key.join(':')} does not decode`);
  const [conditionId, outcome, side, priceUnits, sizeMicros, address] = value;
  return { key, conditionId, outcome, side: side as TradeSide, priceUnits, sizeMicros, address };
}

/** Newest first: compares two item keys, descending. */
export function newestFirst(a: ItemKey, b: ItemKey): number {
  for (let at = 0; at < 5; at++) {
    const difference = b[at]! - a[at]!;
    if (difference !== 0) return difference;
  }
  return 0;
}

export class FeedStore {
  private readonly root: RootDatabase;
  private readonly items: Database<unknown, Key>;
  private readonly byUser: Database<unknown, Key>;
  private readonly byMarket: Database<unknown, Key>;
  private readonly redeems: Database<unknown, Key>;
  private readonly history: Database<number, Key>;
  private readonly last: Database<[number, number, number], string>;
  private readonly cursors: Database<[number, number, number, number], number>;
  /** What was written last per token, so an older fill never overwrites a newer one. */
  private readonly newest = new Map<string, ItemKey>();
  private readonly cursorCache = new Map<number, Cursor>();
  /** Writes recorded since the last commit: database, key, value. */
  private pending: [Database<unknown, Key>, Key, unknown][] = [];
  private readonly dirtyCursors = new Set<number>();
  private readonly dirtyLast = new Map<string, LastTrade>();
  /**
   * History rows recorded since the last commit, by token and minute: every fill rewrites its
   * minute's row, so only the last write of each row in a commit is made.
   */
  private readonly dirtyMinutes = new Map<string, [key: [string, number], priceUnits: number]>();
  private readonly flusher: NodeJS.Timeout;

  constructor(dataDir: string) {
    const path = join(dataDir, 'feeds');
    mkdirSync(path, { recursive: true });
    // Not synced per write: the shards' stores are the truth, and catch-up refills the tail.
    this.root = open({ path, encoding: 'msgpack', compression: false, noSync: true, maxDbs: 8 });
    const ordered = { encoding: 'msgpack', keyEncoding: 'ordered-binary' } as const;
    this.items = this.root.openDB({ name: 'items', ...ordered });
    this.byUser = this.root.openDB({ name: 'by-user', ...ordered });
    this.byMarket = this.root.openDB({ name: 'by-market', ...ordered });
    this.redeems = this.root.openDB({ name: 'redeems', ...ordered });
    this.history = this.root.openDB({ name: 'history', ...ordered });
    this.last = this.root.openDB({ name: 'last', encoding: 'msgpack' });
    this.cursors = this.root.openDB({ name: 'cursors', encoding: 'msgpack' });
    this.flusher = setInterval(() => this.flush(), FLUSH_EVERY_MS);
    this.flusher.unref();
  }

  /** Commits every write recorded so far (reads call it first). */
  flush(): void {
    if (this.pending.length === 0 && this.dirtyCursors.size === 0 && this.dirtyLast.size === 0 && this.dirtyMinutes.size === 0) return;
    const pending = this.pending;
    this.pending = [];
    this.root.transactionSync(() => {
      for (const [database, key, value] of pending) database.putSync(key, value);
      for (const shard of this.dirtyCursors) {
        const cursor = this.cursor(shard);
        this.cursors.putSync(shard, [cursor.fill[0], cursor.fill[1], cursor.redemption[0], cursor.redemption[1]]);
      }
      for (const [tokenId, trade] of this.dirtyLast) this.last.putSync(tokenId, [trade.priceUnits, trade.side, trade.timeMs]);
      for (const [key, priceUnits] of this.dirtyMinutes.values()) this.history.putSync(key, priceUnits);
    });
    this.dirtyCursors.clear();
    this.dirtyLast.clear();
    this.dirtyMinutes.clear();
  }

  private write(database: Database<unknown, Key>, key: Key, value: unknown): void {
    this.pending.push([database, key, value]);
  }

  /** The keys of the shard's last fill and redemption held here (as written, even if not yet committed). */
  cursor(shard: number): Cursor {
    let cursor = this.cursorCache.get(shard);
    if (cursor === undefined) {
      const stored = this.cursors.get(shard);
      cursor = stored === undefined ? { fill: [0, -1], redemption: [0, -1] } : { fill: [stored[0], stored[1]], redemption: [stored[2], stored[3]] };
      this.cursorCache.set(shard, cursor);
    }
    return cursor;
  }

  /**
   * Records a fill's two public items, the last trade and history of the tokens it traded, and
   * moves the shard's cursor. `tokens` are the market's token ids by outcome (undefined for a
   * market outside the catalog: its items are kept, it has no token history).
   */
  recordFill(shard: number, fill: FillEvent, timeMs: number, conditionId: string, tokens: readonly [string, string] | undefined): void {
    const { seq, fillIndex } = fill;
    const sides: [number, ItemValue][] = [
      [TAKER, [conditionId, fill.takerOutcome, fill.takerSide, fill.takerPriceUnits, fill.sizeMicros, fill.takerAccount]],
      [MAKER, [conditionId, fill.makerOutcome, fill.makerSide, fill.makerPriceUnits, fill.sizeMicros, fill.makerAccount]],
    ];
    for (const [role, value] of sides) {
      const key: ItemKey = [timeMs, shard, seq, fillIndex, role];
      this.write(this.items, key as unknown as Key, value);
      this.write(this.byUser, [value[5], ...key] as Key, 0);
      this.write(this.byMarket, [conditionId, ...key] as Key, 0);
    }
    this.moveCursor(shard, { ...this.cursor(shard), fill: [seq, fillIndex] });
    if (tokens === undefined) return;
    const key: ItemKey = [timeMs, shard, seq, fillIndex, TAKER];
    this.noteTrade(tokens[fill.takerOutcome]!, key, { priceUnits: fill.takerPriceUnits, side: fill.takerSide as TradeSide, timeMs });
    if (fill.makerOutcome !== fill.takerOutcome) {
      // Buying one token at p is selling the other at 1 − p: the other token's trade has the opposite side.
      const side = (1 - fill.takerSide) as TradeSide;
      this.noteTrade(tokens[fill.makerOutcome]!, key, { priceUnits: fill.makerPriceUnits, side, timeMs });
    }
  }

  recordRedemption(shard: number, redemption: Redemption, index: number, timeMs: number, conditionId: string): void {
    const value: RedeemValue = [conditionId, redemption.winner, redemption.sharesMicros[0], redemption.sharesMicros[1]];
    this.write(this.redeems, [redemption.account, timeMs, shard, redemption.seq, index] as Key, value);
    this.moveCursor(shard, { ...this.cursor(shard), redemption: [redemption.seq, index] });
  }

  lastTrade(tokenId: string): LastTrade | undefined {
    this.flush();
    const value = this.last.get(tokenId);
    return value === undefined ? undefined : { priceUnits: value[0], side: value[1] as TradeSide, timeMs: value[2] };
  }

  /**
   * The minutes of `tokenId` that had trades from `fromS` to `toS` (unix seconds, inclusive),
   * each with its last trade's price, oldest first; plus the last minute before `fromS`.
   */
  minutes(tokenId: string, fromS: number, toS: number): { before: [number, number] | undefined; minutes: [number, number][] } {
    this.flush();
    const startMinute = Math.floor(fromS / MINUTE_S) * MINUTE_S;
    let before: [number, number] | undefined;
    for (const { key, value } of this.history.getRange({ start: [tokenId, startMinute], end: [tokenId], reverse: true, limit: 1 })) {
      const minute = (key as [string, number])[1];
      if (minute < startMinute) before = [minute, value];
    }
    const minutes: [number, number][] = [];
    for (const { key, value } of this.history.getRange({ start: [tokenId, startMinute], end: [tokenId, toS + 1] })) {
      minutes.push([(key as [string, number])[1], value]);
    }
    return { before, minutes };
  }

  /** The first minute `tokenId` traded in (unix s), or undefined. */
  firstMinute(tokenId: string): number | undefined {
    this.flush();
    for (const { key } of this.history.getRange({ start: [tokenId], end: [tokenId, Number.MAX_SAFE_INTEGER], limit: 1 })) {
      return (key as [string, number])[1];
    }
    return undefined;
  }

  /** Public items matching `query`, newest first, after skipping `offset` of them. */
  trades(query: TradeQuery): PublicItem[] {
    this.flush();
    const wanted = query.offset + query.limit;
    const passes = (item: PublicItem): boolean => (!query.takerOnly || item.key[4] === TAKER)
      && (query.side === undefined || item.side === query.side)
      && (query.markets.length === 0 || query.markets.includes(item.conditionId))
      && (query.user === undefined || item.address === query.user)
      && query.accept(item);
    let found: PublicItem[];
    if (query.user !== undefined) {
      found = this.scan(this.indexed(this.byUser, query.user), passes, wanted);
    } else if (query.markets.length > 0) {
      found = query.markets.flatMap((market) => this.scan(this.indexed(this.byMarket, market), passes, wanted));
      found.sort((a, b) => newestFirst(a.key, b.key));
    } else {
      found = this.scan(this.allItems(), passes, wanted);
    }
    return found.slice(query.offset, wanted);
  }

  /** The address's public items (as taker and maker), newest first, at most `count`. */
  itemsOf(address: string, count: number): PublicItem[] {
    this.flush();
    return this.scan(this.indexed(this.byUser, address), () => true, count);
  }

  /** What resolutions paid the address, newest first, at most `count`. */
  redeemsOf(address: string, count: number): RedeemItem[] {
    this.flush();
    const out: RedeemItem[] = [];
    const range = this.redeems.getRange({ start: [address, Number.MAX_SAFE_INTEGER], end: [address], reverse: true, limit: count });
    for (const { key, value } of range) {
      const [, timeMs, shard, seq] = key as [string, number, number, number, number];
      if (!isRedeemValue(value)) throw new FeedCorrupt(`redemption ${(key as unknown[]).join(':')} does not decode`);
      out.push({ address, timeMs, shard, seq, conditionId: value[0], winner: value[1], sharesMicros: [value[2], value[3]] });
    }
    return out;
  }

  /** Resolves once every write so far is in the store. */
  flushed(): Promise<boolean> {
    this.flush();
    return this.root.flushed;
  }

  close(): Promise<void> {
    clearInterval(this.flusher);
    this.flush();
    return this.root.close();
  }

  private moveCursor(shard: number, cursor: Cursor): void {
    this.cursorCache.set(shard, cursor);
    this.dirtyCursors.add(shard);
  }

  private noteTrade(tokenId: string, key: ItemKey, trade: LastTrade): void {
    const newest = this.newest.get(tokenId);
    if (newest !== undefined && newestFirst(key, newest) > 0) return;
    this.newest.set(tokenId, key);
    this.dirtyLast.set(tokenId, trade);
    const minute = Math.floor(trade.timeMs / SECOND_MS / MINUTE_S) * MINUTE_S;
    this.dirtyMinutes.set(`${tokenId}\n${minute}`, [[tokenId, minute], trade.priceUnits]);
  }

  private *allItems(): Generator<PublicItem> {
    for (const { key, value } of this.items.getRange({ reverse: true })) yield itemOf(key as unknown as ItemKey, value);
  }

  /** Items through an index keyed [prefix, ...item key], newest first. */
  private *indexed(index: Database<unknown, Key>, prefix: string): Generator<PublicItem> {
    for (const { key } of index.getRange({ start: [prefix, Number.MAX_SAFE_INTEGER], end: [prefix], reverse: true })) {
      const itemKey = (key as UserKey).slice(1) as unknown as ItemKey;
      const value = this.items.get(itemKey as unknown as Key);
      if (value === undefined) throw new FeedCorrupt(`index entry ${(key as unknown[]).join(':')} has no item`);
      yield itemOf(itemKey, value);
    }
  }

  private scan(items: Iterable<PublicItem>, passes: (item: PublicItem) => boolean, wanted: number): PublicItem[] {
    const found: PublicItem[] = [];
    if (wanted === 0) return found;
    let scanned = 0;
    for (const item of items) {
      if (passes(item)) {
        found.push(item);
        if (found.length >= wanted) break;
      }
      if (++scanned >= FEED_SCAN_MAX) break;
    }
    return found;
  }
}

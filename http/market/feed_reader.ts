// The public feeds' reads: every fill as two public items (the taker's side and the maker's),
// what each resolution paid each holder, and every token's price history compacted to the last
// trade of each minute, read on the front end's thread straight from the shards' own LMDB
// environments (engine/shard/feed_tables.ts), never asking a worker.
//
// A shard commits a fill's records and indexes in the same durable transaction as the fill,
// before the fill's answer leaves it, so a read after an answer sees its fills: there is no
// second store to feed, catch up or keep in step (the front end kept one until it cost about a
// third of its thread in LMDB writes, and its commits stalled the event loop). LMDB readers never
// block the writer; each read starts from a fresh read transaction, since another thread writes.
//
// Items sort newest first by [timeMs, shard, seq, fill index, role], across shards: each shard's
// index is newest first already, so a read takes up to `offset + limit` items from each shard
// (or market) and merges them (feed_pages.ts). A page's cursor says where each shard's (or
// market's) stream stopped, and the next page seeks there: paging costs what a page reads, so
// every fill can be read however many there are (an offset stops at TRADES_OFFSET_MAX).
import { join } from 'node:path';
import type { RootDatabase } from 'lmdb';
import { openDurable } from '../../engine/durable_env.js';
import { shardStoreName } from '../../engine/shard/store.js';
import {
  accountFillEntries, FillLookup, fillsNewestFirst, MAKER, marketFillEntries, minuteOf, openFeedTables, TAKER, type FeedTables, type FillEntry,
  type StoredFill, type StoredRedemption,
} from '../../engine/shard/feed_tables.js';
import type { TradeSide } from './book.js';
import { olderItems, readPage, type FeedCursor } from './feed_pages.js';

export { MAKER, TAKER };

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
  readonly index: number;
  readonly conditionId: string;
  readonly winner: number;
  readonly sharesMicros: readonly [number, number];
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

/** Where the shards keep the markets and tokens the feeds name. */
export interface FeedPlaces {
  readonly shards: number;
  /** The condition id of engine market `market` on `shard`. */
  readonly keyOf: (shard: number, market: number) => string | undefined;
  /** The shard and engine market of a condition id. */
  readonly placeOf: (conditionId: string) => { readonly shard: number; readonly market: number } | undefined;
  /** The condition id and outcome of a token id. */
  readonly tokenOf: (tokenId: string) => { readonly conditionId: string; readonly outcome: number } | undefined;
}

/** A stored record that does not decode: the feed answers internal_error, the rest serves on. */
export class FeedCorrupt extends Error {
  override readonly name = 'FeedCorrupt';
}

/** Newest first: compares two item keys, descending. */
export function newestFirst(a: ItemKey, b: ItemKey): number {
  for (let at = 0; at < 5; at++) {
    const difference = b[at]! - a[at]!;
    if (difference !== 0) return difference;
  }
  return 0;
}

const NEWEST = Number.MAX_SAFE_INTEGER;

function isStoredRedemption(value: unknown): value is StoredRedemption {
  const redemption = value as Partial<StoredRedemption> | undefined;
  return typeof redemption === 'object' && redemption !== null && typeof redemption.account === 'string'
    && Array.isArray(redemption.sharesMicros) && [redemption.seq, redemption.market, redemption.winner, redemption.timeMs]
    .every((number) => Number.isSafeInteger(number));
}

export class FeedReader {
  private readonly roots: RootDatabase[] = [];
  private readonly tables: FeedTables[] = [];
  private readonly lookups: FillLookup[] = [];

  constructor(dataDir: string, private readonly places: FeedPlaces) {
    for (let shard = 0; shard < places.shards; shard++) {
      // The shard's worker opened this environment first; lmdb shares it within the process.
      const root = openDurable(join(dataDir, shardStoreName(shard)), 16);
      this.roots.push(root);
      const tables = openFeedTables(root);
      this.tables.push(tables);
      this.lookups.push(new FillLookup(tables));
    }
  }

  /**
   * Public items matching `query`, newest first: after skipping `offset` of them, or from where
   * `cursor` (a page's `next`) says; `next` is undefined once there is no more.
   */
  trades(query: TradeQuery, cursor?: FeedCursor): { items: PublicItem[]; next: FeedCursor | undefined } {
    this.refresh();
    const passes = (item: PublicItem): boolean => (!query.takerOnly || item.key[4] === TAKER)
      && (query.side === undefined || item.side === query.side)
      && (query.markets.length === 0 || query.markets.includes(item.conditionId))
      && (query.user === undefined || item.address === query.user)
      && query.accept(item);
    const streams: ((after: FillEntry | undefined) => Iterable<PublicItem>)[] = [];
    if (query.user !== undefined) {
      const user = query.user;
      for (let shard = 0; shard < this.tables.length; shard++) streams.push((after) => this.itemsOfAccount(shard, user, after));
    } else if (query.markets.length > 0) {
      for (const conditionId of new Set(query.markets)) {
        const place = this.places.placeOf(conditionId);
        if (place !== undefined) streams.push((after) => this.itemsOfMarket(place.shard, place.market, after));
      }
    } else {
      for (let shard = 0; shard < this.tables.length; shard++) streams.push((after) => this.allItems(shard, after));
    }
    return readPage({ streams, wanted: query.offset + query.limit, skip: query.offset, passes, order: byItemKey, entryOf: itemEntry }, cursor);
  }

  /**
   * The fills of `address` (as taker or maker; a self-trade once), newest first: `limit` of those
   * that pass, from where `cursor` says; each with its shard.
   */
  fillsOf(
    address: string, limit: number, passes: (fill: StoredFill, shard: number) => boolean, cursor?: FeedCursor,
  ): { fills: { fill: StoredFill; shard: number }[]; next: FeedCursor | undefined } {
    this.refresh();
    const streams = Array.from({ length: this.tables.length }, (_, shard) => (after: FillEntry | undefined) => this.fillsOfAccount(shard, address, after));
    const page = readPage({
      streams, wanted: limit, skip: 0, passes: (entry) => passes(entry.fill, entry.shard), entryOf: (entry) => entry.entry,
      order: (a, b) => b.fill.timeMs - a.fill.timeMs || b.shard - a.shard || b.fill.seq - a.fill.seq || b.fill.fillIndex - a.fill.fillIndex,
    }, cursor);
    return { fills: page.items.map(({ fill, shard }) => ({ fill, shard })), next: page.next };
  }

  /** What resolutions paid the address, newest first, at most `count`. */
  redeemsOf(address: string, count: number): RedeemItem[] {
    this.refresh();
    const out: RedeemItem[] = [];
    this.tables.forEach((tables, shard) => {
      const range = tables.accountRedemptions.getRange({ start: [address, NEWEST], end: [address], reverse: true, limit: count });
      for (const { key } of range) {
        const redemption: unknown = tables.redemptions.get([key[1], key[2]]);
        if (!isStoredRedemption(redemption)) throw new FeedCorrupt(`redemption ${key.join(':')} does not decode`);
        const conditionId = this.places.keyOf(shard, redemption.market) ?? '';
        out.push({
          address, timeMs: redemption.timeMs, shard, seq: redemption.seq, index: key[2], conditionId, winner: redemption.winner,
          sharesMicros: [redemption.sharesMicros[0], redemption.sharesMicros[1]],
        });
      }
    });
    out.sort((a, b) => b.timeMs - a.timeMs || b.shard - a.shard || b.seq - a.seq || b.index - a.index);
    return out.slice(0, count);
  }

  /**
   * The minutes of `tokenId` that had trades from `fromS` to `toS` (unix seconds, inclusive),
   * each with its last trade's price, oldest first; plus the last minute before `fromS`.
   */
  minutes(tokenId: string, fromS: number, toS: number): { before: [number, number] | undefined; minutes: [number, number][] } {
    this.refresh();
    const token = this.token(tokenId);
    if (token === undefined) return { before: undefined, minutes: [] };
    const { prices, market, outcome } = token;
    const startMinute = minuteOf(fromS * 1000);
    let before: [number, number] | undefined;
    for (const { key, value } of prices.getRange({ start: [market, outcome, startMinute], end: [market, outcome], reverse: true, limit: 1 })) {
      if (key[2] < startMinute) before = [key[2], value];
    }
    const minutes: [number, number][] = [];
    for (const { key, value } of prices.getRange({ start: [market, outcome, startMinute], end: [market, outcome, toS + 1] })) {
      minutes.push([key[2], value]);
    }
    return { before, minutes };
  }

  /** The first minute `tokenId` traded in (unix s), or undefined. */
  firstMinute(tokenId: string): number | undefined {
    this.refresh();
    const token = this.token(tokenId);
    if (token === undefined) return undefined;
    for (const { key } of token.prices.getRange({ start: [token.market, token.outcome], end: [token.market, token.outcome, NEWEST], limit: 1 })) {
      return key[2];
    }
    return undefined;
  }

  close(): Promise<void> {
    return Promise.all(this.roots.map((root) => root.close())).then(() => undefined);
  }

  /** Another thread writes these environments: each read starts from what is committed now. */
  private refresh(): void {
    for (const root of this.roots) root.resetReadTxn();
  }

  private token(tokenId: string): { prices: FeedTables['prices']; market: number; outcome: number } | undefined {
    const token = this.places.tokenOf(tokenId);
    const place = token === undefined ? undefined : this.places.placeOf(token.conditionId);
    if (token === undefined || place === undefined) return undefined;
    return { prices: this.tables[place.shard]!.prices, market: place.market, outcome: token.outcome };
  }

  private fill(shard: number, seq: number, fillIndex: number): StoredFill {
    try {
      return this.lookups[shard]!.at(seq, fillIndex);
    } catch (error) {
      throw corrupt(shard, error);
    }
  }

  /** Both items of every fill of the shard, newest first, older than `after`. */
  private *allItems(shard: number, after: FillEntry | undefined): Generator<PublicItem> {
    const fills = fillsNewestFirst(this.tables[shard]!, after === undefined ? undefined : [after[0], after[1]]);
    const items = (function* (reader: FeedReader): Generator<PublicItem> {
      for (const fill of fills) yield* reader.bothItems(shard, fill);
    })(this);
    yield* this.stored(shard, olderItems(items, after, itemEntry));
  }

  private *itemsOfMarket(shard: number, market: number, after: FillEntry | undefined): Generator<PublicItem> {
    const items = (function* (reader: FeedReader): Generator<PublicItem> {
      for (const [seq, fillIndex] of marketFillEntries(reader.tables[shard]!, market, after)) yield* reader.bothItems(shard, reader.fill(shard, seq, fillIndex));
    })(this);
    yield* this.stored(shard, olderItems(items, after, itemEntry));
  }

  private *itemsOfAccount(shard: number, address: string, after: FillEntry | undefined): Generator<PublicItem> {
    const tables = this.tables[shard]!;
    for (const [seq, fillIndex, role] of this.stored(shard, accountFillEntries(tables, tables.accounts.get(address), after))) {
      yield this.item(shard, this.fill(shard, seq, fillIndex), role);
    }
  }

  /** The account's fills of the shard, newest first, older than `after`: a self-trade's two entries give one fill. */
  private *fillsOfAccount(shard: number, address: string, after: FillEntry | undefined): Generator<{ fill: StoredFill; shard: number; entry: FillEntry }> {
    const tables = this.tables[shard]!;
    let last: FillEntry | undefined;
    for (const entry of this.stored(shard, accountFillEntries(tables, tables.accounts.get(address), after))) {
      if (last !== undefined && last[0] === entry[0] && last[1] === entry[1]) continue;
      last = entry;
      // Its place is that of its last entry (the taker's), so the next page starts past both.
      yield { fill: this.fill(shard, entry[0], entry[1]), shard, entry: [entry[0], entry[1], TAKER] };
    }
  }

  /** Records read from a shard's tables; one that does not decode is corruption (FeedCorrupt). */
  private *stored<T>(shard: number, records: Iterable<T>): Generator<T> {
    try {
      yield* records;
    } catch (error) {
      throw corrupt(shard, error);
    }
  }

  /** The maker's item, then the taker's: newest first, as the index orders roles. */
  *bothItems(shard: number, fill: StoredFill): Generator<PublicItem> {
    yield this.item(shard, fill, MAKER);
    yield this.item(shard, fill, TAKER);
  }

  private item(shard: number, fill: StoredFill, role: number): PublicItem {
    const conditionId = this.places.keyOf(shard, fill.market) ?? '';
    const key: ItemKey = [fill.timeMs, shard, fill.seq, fill.fillIndex, role];
    return role === TAKER
      ? {
        key, conditionId, outcome: fill.takerOutcome, side: fill.takerSide as TradeSide, priceUnits: fill.takerPriceUnits,
        sizeMicros: fill.sizeMicros, address: fill.takerAccount,
      }
      : {
        key, conditionId, outcome: fill.makerOutcome, side: fill.makerSide as TradeSide, priceUnits: fill.makerPriceUnits,
        sizeMicros: fill.sizeMicros, address: fill.makerAccount,
      };
  }
}

/** A shard's record that did not decode, as the feeds report it. */
function corrupt(shard: number, error: unknown): FeedCorrupt {
  return new FeedCorrupt(`shard ${shard}: ${error instanceof Error ? error.message : String(error)}`);
}

/** Where an item stands in its shard's index. */
function itemEntry(item: PublicItem): FillEntry {
  return [item.key[2], item.key[3], item.key[4]];
}

function byItemKey(a: PublicItem, b: PublicItem): number {
  return newestFirst(a.key, b.key);
}

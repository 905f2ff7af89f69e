// The tables of a shard's LMDB environment that the public feeds read: the shard writes them in
// each batch's durable transaction (store.ts), and the front end reads them in place, from its
// own thread, without asking the worker (http/market/feed_reader.ts). A fill is therefore in the
// feeds as soon as its answer is out, and there is no second store to keep in step.
//
//   fills               [seq, fill index] → the fills from there on, a group of up to
//                       GROUP_RECORDS_MAX in key order (stored_codec.ts)
//   account-fill-ids    [account id, seq, fill index, role] → a posting: that entry and the
//                       account's next ones of the same batch, up to POSTING_ENTRIES_MAX, each
//                       [seq, fill index, role]; entries are the taker's and the maker's side of
//                       every fill (a self-trade has both); the id is the shard's number for the
//                       address (accounts table, account_ids.ts)
//   market-fills        [market, seq, fill index] → a posting of the market's fills (role 0)
//   redemptions         [seq, index] → StoredRedemption
//   account-redemptions [address, seq, index] → 0
//   prices              [market, outcome, minute (unix s)] → price units of the minute's last trade
//   last-trades         [market, outcome] → [price units, side, timeMs]
//   market-volume       [market] → what the market's fills traded, each fill once at the taker's
//                       price (collateral micros): [in all, then hour, micros of that hour, ...
//                       for each of the last VOLUME_HOURS hours (unix hours) up to its newest
//                       fill's that had fills, oldest first] (MarketVolumeValue)
//
// A batch writes its fills in groups and each account's and market's entries in one posting
// each, instead of a put per fill and per index entry (four per fill): a put costs ~2.5 µs here
// whatever its size, and those puts were the largest part of a durable commit. Readers walk the
// postings newest first and find a fill in its group (FillLookup). Older versions stored a fill
// and an index entry (value 0) per key; those read as groups and postings of one.
import type { Database, Key, RootDatabase } from 'lmdb';
import type { FillEvent } from '../events/event_objects.js';
import { notionalMicros } from '../ledger/notional.js';
import { openAccounts, type AccountIds } from './account_ids.js';
import type { Redemption } from './core.js';
import { decoded, putInGroups, readStoredFill, readStoredFills, storedFillRecordIn, StoredWriter } from './stored_codec.js';

/** Encodes the fills this thread writes. */
const stored = new StoredWriter();

const POSTING_LAYOUT = 1;
/** Entries in one posting: f64 seq, u32 fill index, u8 role. */
export const POSTING_ENTRIES_MAX = 256;
const POSTING_ENTRY_BYTES = 13;

/** The taker's side of a fill, and the maker's. */
export const TAKER = 0;
export const MAKER = 1;

/** A fill as stored: the engine's event and the time of the command that made it. */
export type StoredFill = FillEvent & { readonly timeMs: number };
/** `index`: the redemption's place among those of its command (its key is [seq, index]). */
export type StoredRedemption = Redemption & { readonly timeMs: number; readonly index: number };

export type AccountFillKey = [accountId: number, seq: number, fillIndex: number, role: number];
/** Where a fill is, and which side of it an index entry names. */
export type FillEntry = [seq: number, fillIndex: number, role: number];
export type LastTradeValue = [priceUnits: number, side: number, timeMs: number];
/** [micros in all, then (unix hour, micros of that hour) pairs, oldest first]: see market-volume above. */
export type MarketVolumeValue = number[];

/** Hours a market's volume is kept by the hour (the catalog's volume24hr): the newest fill's and the 23 before it. */
export const VOLUME_HOURS = 24;
export const HOUR_MS = 3_600_000;

const SECOND_MS = 1000;
const MINUTE_S = 60;

export interface FeedTables {
  /** Values: read them with readStoredFills. */
  readonly fills: Database<unknown, [number, number]>;
  /** Values: postings (or 0, an entry an older version stored alone). */
  readonly accountFills: Database<unknown, AccountFillKey>;
  /** Address → the account id of accountFills (account_ids.ts). */
  readonly accounts: Database<number, string>;
  readonly marketFills: Database<unknown, [number, number, number]>;
  readonly redemptions: Database<StoredRedemption, [number, number]>;
  readonly accountRedemptions: Database<number, [string, number, number]>;
  readonly prices: Database<number, [number, number, number]>;
  readonly lastTrades: Database<LastTradeValue, [number, number]>;
  readonly marketVolume: Database<MarketVolumeValue, number>;
}

export function openFeedTables(root: RootDatabase): FeedTables {
  const ordered = { encoding: 'msgpack', keyEncoding: 'ordered-binary' } as const;
  return {
    fills: root.openDB<unknown, [number, number]>({ name: 'fills', ...ordered }),
    accountFills: root.openDB<unknown, AccountFillKey>({ name: 'account-fill-ids', ...ordered }),
    accounts: openAccounts(root),
    marketFills: root.openDB<unknown, [number, number, number]>({ name: 'market-fills', ...ordered }),
    redemptions: root.openDB<StoredRedemption, [number, number]>({ name: 'redemptions', ...ordered }),
    accountRedemptions: root.openDB<number, [string, number, number]>({ name: 'account-redemptions', ...ordered }),
    prices: root.openDB<number, [number, number, number]>({ name: 'prices', ...ordered }),
    lastTrades: root.openDB<LastTradeValue, [number, number]>({ name: 'last-trades', ...ordered }),
    marketVolume: root.openDB<MarketVolumeValue, number>({ name: 'market-volume', ...ordered }),
  };
}

/**
 * The account's fill entries, newest first, from the one before `before` on (all without it):
 * none when it has no id (no fill of it is stored). The read seeks: it starts at the posting that
 * holds `before`, whatever the number of newer entries.
 */
export function accountFillEntries(tables: FeedTables, accountId: number | undefined, before?: FillEntry): Iterable<FillEntry> {
  if (accountId === undefined) return [];
  const start: AccountFillKey = before === undefined ? [accountId, NEWEST, 0, 0] : [accountId, ...before];
  return olderThan(postedEntries(tables.accountFills.getRange({ start, end: [accountId], reverse: true }), ACCOUNT_KEY), before);
}

/** The market's fill entries (role TAKER), newest first, from the fill `before` names on (included: its other roles may remain). */
export function marketFillEntries(tables: FeedTables, market: number, before?: FillEntry): Iterable<FillEntry> {
  const start: [number, number, number] = before === undefined ? [market, NEWEST, 0] : [market, before[0], before[1]];
  const from: FillEntry | undefined = before === undefined ? undefined : [before[0], before[1], TAKER + 1];
  return olderThan(postedEntries(tables.marketFills.getRange({ start, end: [market], reverse: true }), MARKET_KEY), from);
}

/** Compares two entries in index order (seq, fill index, role). */
export function compareEntries(a: FillEntry, b: FillEntry): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The entries of a newest-first walk that are older than `before` (all without it). */
function* olderThan(entries: Iterable<FillEntry>, before: FillEntry | undefined): Generator<FillEntry> {
  for (const entry of entries) if (before === undefined || compareEntries(entry, before) < 0) yield entry;
}

/** The fills of the fills table's value at `key`, in key order; throws when it does not decode (the store is corrupt). */
export function fillsAt(key: readonly [number, number], value: unknown): StoredFill[] {
  return decoded(readStoredFills(value), `the fills from ${key.join(':')}`);
}

/** Every fill of the shard, newest first, from the fill at [seq, fill index] `from` on (included). */
export function* fillsNewestFirst(tables: FeedTables, from?: readonly [number, number]): Generator<StoredFill> {
  const range = from === undefined ? tables.fills.getRange({ reverse: true }) : tables.fills.getRange({ start: [from[0], from[1]], reverse: true });
  for (const { key, value } of range) {
    const fills = fillsAt(key, value);
    for (let index = fills.length - 1; index >= 0; index--) {
      const fill = fills[index]!;
      if (from === undefined || compareFill(fill.seq, fill.fillIndex, from[0], from[1]) <= 0) yield fill;
    }
  }
}

/**
 * Finds fills by [seq, fill index] in their groups, keeping the last group read: an index's
 * entries are often in the same group (a market's), and a reader asks for them newest first.
 * Only the record asked for is decoded; the others are told apart by the key at their start
 * (decoding a whole group of 64 to read one fill made an account's trades ~13× slower to read
 * than one fill per key had been). Groups never change once written, so the group kept stays
 * right across read transactions.
 */
export class FillLookup {
  private groupFirst: [number, number] = [0, 0];
  private group: unknown = undefined;

  constructor(private readonly tables: FeedTables) {}

  /** The fill; throws when it is missing or does not decode (the store is corrupt). */
  at(seq: number, fillIndex: number): StoredFill {
    let record = this.inGroup(seq, fillIndex);
    if (record === null) {
      for (const { key, value } of this.tables.fills.getRange({ start: [seq, fillIndex], reverse: true, limit: 1 })) {
        this.groupFirst = key;
        this.group = value;
      }
      record = this.inGroup(seq, fillIndex);
    }
    if (record === null) throw new Error(`fill ${seq}:${fillIndex} is not stored`);
    return decoded(readStoredFill(decoded(record, `the fills from ${this.groupFirst.join(':')}`)), `fill ${seq}:${fillIndex}`);
  }

  /** The fill's record in the group kept; null when it is not there; undefined when the group does not decode. */
  private inGroup(seq: number, fillIndex: number): unknown {
    if (this.group === undefined || compareFill(seq, fillIndex, this.groupFirst[0], this.groupFirst[1]) < 0) return null;
    return storedFillRecordIn(this.group, seq, fillIndex);
  }
}

function compareFill(seq: number, fillIndex: number, otherSeq: number, otherFillIndex: number): number {
  return seq - otherSeq || fillIndex - otherFillIndex;
}

const NEWEST = Number.MAX_SAFE_INTEGER;
/** The entry an index key names (what an older version stored alone, value 0). */
const ACCOUNT_KEY = (key: AccountFillKey): FillEntry => [key[1], key[2], key[3]];
const MARKET_KEY = (key: [number, number, number]): FillEntry => [key[1], key[2], TAKER];

/** The entries of postings read newest first, each posting's newest first. */
function* postedEntries<K>(range: Iterable<{ key: K; value: unknown }>, entryOfKey: (key: K) => FillEntry): Generator<FillEntry> {
  for (const { key, value } of range) {
    if (value === 0) {
      yield entryOfKey(key);
      continue;
    }
    const posting = value as Buffer;
    if (!Buffer.isBuffer(posting) || posting[0] !== POSTING_LAYOUT || (posting.length - 1) % POSTING_ENTRY_BYTES !== 0) {
      throw new Error(`the fill index entry ${String(key)} does not decode`);
    }
    for (let at = posting.length - POSTING_ENTRY_BYTES; at >= 1; at -= POSTING_ENTRY_BYTES) {
      yield [posting.readDoubleLE(at), posting.readUInt32LE(at + 8), posting[at + 12]!];
    }
  }
}

/** One index's entries of a batch, by owner (account id or market), each owner's in key order. */
class Postings {
  private readonly entries = new Map<number, number[]>();

  add(owner: number, seq: number, fillIndex: number, role: number): void {
    let list = this.entries.get(owner);
    if (list === undefined) this.entries.set(owner, list = []);
    list.push(seq, fillIndex, role);
  }

  /** Puts each owner's entries, POSTING_ENTRIES_MAX a value, keyed by `keyOf(owner, first entry)`. */
  write<K extends Key>(table: Database<unknown, K>, keyOf: (owner: number, seq: number, fillIndex: number, role: number) => K): void {
    for (const [owner, list] of this.entries) {
      for (let first = 0; first < list.length; first += 3 * POSTING_ENTRIES_MAX) {
        const end = Math.min(list.length, first + 3 * POSTING_ENTRIES_MAX);
        const posting = Buffer.allocUnsafe(1 + ((end - first) / 3) * POSTING_ENTRY_BYTES);
        posting[0] = POSTING_LAYOUT;
        for (let at = first, out = 1; at < end; at += 3, out += POSTING_ENTRY_BYTES) {
          posting.writeDoubleLE(list[at]!, out);
          posting.writeUInt32LE(list[at + 1]!, out + 8);
          posting[out + 12] = list[at + 2]!;
        }
        table.putSync(keyOf(owner, list[first]!, list[first + 1]!, list[first + 2]!), posting);
      }
    }
  }
}

/** The minute (unix seconds) a time (ms) falls in. */
export function minuteOf(timeMs: number): number {
  return Math.floor(timeMs / SECOND_MS / MINUTE_S) * MINUTE_S;
}

/**
 * Writes fills and redemptions with their indexes, inside the caller's transaction: the fills in
 * groups (see the file comment), then what indexFills derives from them.
 */
export function writeFeeds(tables: FeedTables, accounts: AccountIds, fills: readonly StoredFill[], redemptions: readonly StoredRedemption[]): void {
  putInGroups(fills, (fill) => stored.fill(fill), (first, value) => tables.fills.putSync([fills[first]!.seq, fills[first]!.fillIndex], value));
  indexFills(tables, accounts, fills);
  for (const redemption of redemptions) {
    tables.redemptions.putSync([redemption.seq, redemption.index], redemption);
    tables.accountRedemptions.putSync([redemption.account, redemption.seq, redemption.index], 0);
  }
}

/**
 * Writes what the feeds read of stored fills, in sequence order, inside the caller's
 * transaction: their postings by account and by market, and each token's last trade and
 * minute prices, once per batch (the last fill's), not once per fill.
 */
export function indexFills(tables: FeedTables, accounts: AccountIds, fills: readonly StoredFill[]): void {
  const last = new Map<number, [market: number, outcome: number, value: LastTradeValue]>();
  const minutes = new Map<number, [market: number, outcome: number, minute: number, priceUnits: number]>();
  const trade = (market: number, outcome: number, priceUnits: number, side: number, timeMs: number): void => {
    const token = 2 * market + outcome;
    const minute = minuteOf(timeMs);
    last.set(token, [market, outcome, [priceUnits, side, timeMs]]);
    minutes.set(token * 2 ** 32 + minute, [market, outcome, minute, priceUnits]);
  };
  const byAccount = new Postings();
  const byMarket = new Postings();
  for (const fill of fills) {
    const { seq, fillIndex, market } = fill;
    byAccount.add(accounts.idOf(fill.takerAccount), seq, fillIndex, TAKER);
    byAccount.add(accounts.idOf(fill.makerAccount), seq, fillIndex, MAKER);
    byMarket.add(market, seq, fillIndex, TAKER);
    trade(market, fill.takerOutcome, fill.takerPriceUnits, fill.takerSide, fill.timeMs);
    // Buying one token at p is selling the other at 1 − p: the other token's trade has the opposite side.
    if (fill.makerOutcome !== fill.takerOutcome) trade(market, fill.makerOutcome, fill.makerPriceUnits, 1 - fill.takerSide, fill.timeMs);
  }
  byAccount.write(tables.accountFills, (account, seq, fillIndex, role) => [account, seq, fillIndex, role]);
  byMarket.write(tables.marketFills, (market, seq, fillIndex) => [market, seq, fillIndex]);
  for (const [market, outcome, value] of last.values()) tables.lastTrades.putSync([market, outcome], value);
  for (const [market, outcome, minute, priceUnits] of minutes.values()) tables.prices.putSync([market, outcome, minute], priceUnits);
  addVolumes(tables, fills);
}

/**
 * Adds what `fills` traded to their markets' volumes (market-volume), once per market a batch:
 * each fill counts once, at the taker's price, as the taker's item of the public trades shows it.
 */
export function addVolumes(tables: FeedTables, fills: readonly StoredFill[]): void {
  const byMarket = new Map<number, Map<number, number>>();
  for (const fill of fills) {
    let hours = byMarket.get(fill.market);
    if (hours === undefined) byMarket.set(fill.market, hours = new Map());
    const hour = Math.floor(fill.timeMs / HOUR_MS);
    hours.set(hour, (hours.get(hour) ?? 0) + notionalMicros(fill.takerPriceUnits, fill.sizeMicros));
  }
  for (const [market, hours] of byMarket) tables.marketVolume.putSync(market, mergeVolume(tables.marketVolume.get(market), hours));
}

/** `stored` plus micros by hour: the total grows by all of them; hours older than the newest's last VOLUME_HOURS go. */
export function mergeVolume(stored: readonly number[] | undefined, added: ReadonlyMap<number, number>): MarketVolumeValue {
  const hours = new Map<number, number>();
  let total = stored?.[0] ?? 0;
  if (stored !== undefined) for (let at = 1; at + 1 < stored.length; at += 2) hours.set(stored[at]!, stored[at + 1]!);
  for (const [hour, micros] of added) {
    hours.set(hour, (hours.get(hour) ?? 0) + micros);
    total += micros;
  }
  let newest = -Infinity;
  for (const hour of hours.keys()) newest = Math.max(newest, hour);
  const value: MarketVolumeValue = [total];
  for (const hour of [...hours.keys()].sort((a, b) => a - b)) if (hour > newest - VOLUME_HOURS) value.push(hour, hours.get(hour)!);
  return value;
}

// The tables of a shard's LMDB environment that the public feeds read: the shard writes them in
// each batch's durable transaction (store.ts), and the front end reads them in place, from its
// own thread, without asking the worker (http/market/feed_reader.ts). A fill is therefore in the
// feeds as soon as its answer is out, and there is no second store to keep in step.
//
//   fills               [seq, fill index] → StoredFill (stored_codec.ts)
//   account-fill-ids    [account id, seq, fill index, role] → 0: the taker's and the maker's side
//                       of every fill (a self-trade has both); the id is the shard's number for the
//                       address (accounts table, account_ids.ts)
//   market-fills        [market, seq, fill index] → 0
//   redemptions         [seq, index] → StoredRedemption
//   account-redemptions [address, seq, index] → 0
//   prices              [market, outcome, minute (unix s)] → price units of the minute's last trade
//   last-trades         [market, outcome] → [price units, side, timeMs]
import type { Database, RootDatabase } from 'lmdb';
import type { FillEvent } from '../event_objects.js';
import { openAccounts, type AccountIds } from './account_ids.js';
import type { Redemption } from './core.js';
import { StoredWriter } from './stored_codec.js';

/** Encodes the fills this thread writes. */
const stored = new StoredWriter();

/** The taker's side of a fill, and the maker's. */
export const TAKER = 0;
export const MAKER = 1;

/** A fill as stored: the engine's event and the time of the command that made it. */
export type StoredFill = FillEvent & { readonly timeMs: number };
/** `index`: the redemption's place among those of its command (its key is [seq, index]). */
export type StoredRedemption = Redemption & { readonly timeMs: number; readonly index: number };

export type AccountFillKey = [accountId: number, seq: number, fillIndex: number, role: number];
export type LastTradeValue = [priceUnits: number, side: number, timeMs: number];

const SECOND_MS = 1000;
const MINUTE_S = 60;

export interface FeedTables {
  /** Values: read them with readStoredFill. */
  readonly fills: Database<unknown, [number, number]>;
  readonly accountFills: Database<number, AccountFillKey>;
  /** Address → the account id of accountFills (account_ids.ts). */
  readonly accounts: Database<number, string>;
  readonly marketFills: Database<number, [number, number, number]>;
  readonly redemptions: Database<StoredRedemption, [number, number]>;
  readonly accountRedemptions: Database<number, [string, number, number]>;
  readonly prices: Database<number, [number, number, number]>;
  readonly lastTrades: Database<LastTradeValue, [number, number]>;
}

export function openFeedTables(root: RootDatabase): FeedTables {
  const ordered = { encoding: 'msgpack', keyEncoding: 'ordered-binary' } as const;
  return {
    fills: root.openDB<unknown, [number, number]>({ name: 'fills', ...ordered }),
    accountFills: root.openDB<number, AccountFillKey>({ name: 'account-fill-ids', ...ordered }),
    accounts: openAccounts(root),
    marketFills: root.openDB<number, [number, number, number]>({ name: 'market-fills', ...ordered }),
    redemptions: root.openDB<StoredRedemption, [number, number]>({ name: 'redemptions', ...ordered }),
    accountRedemptions: root.openDB<number, [string, number, number]>({ name: 'account-redemptions', ...ordered }),
    prices: root.openDB<number, [number, number, number]>({ name: 'prices', ...ordered }),
    lastTrades: root.openDB<LastTradeValue, [number, number]>({ name: 'last-trades', ...ordered }),
  };
}

/** The account's fill entries, newest first: none when it has no id (no fill of it is stored). */
export function accountFillKeys(tables: FeedTables, accountId: number | undefined): Iterable<AccountFillKey> {
  if (accountId === undefined) return [];
  return tables.accountFills.getKeys({ start: [accountId, Number.MAX_SAFE_INTEGER], end: [accountId], reverse: true });
}

/** The minute (unix seconds) a time (ms) falls in. */
export function minuteOf(timeMs: number): number {
  return Math.floor(timeMs / SECOND_MS / MINUTE_S) * MINUTE_S;
}

/**
 * Writes fills and redemptions with their indexes, inside the caller's transaction. A batch
 * writes each token's last trade, and each token-minute's price, once (the last fill's), not once
 * per fill. Fills come in sequence order, so the last one written is the newest.
 */
export function writeFeeds(tables: FeedTables, accounts: AccountIds, fills: readonly StoredFill[], redemptions: readonly StoredRedemption[]): void {
  const last = new Map<number, [market: number, outcome: number, value: LastTradeValue]>();
  const minutes = new Map<number, [market: number, outcome: number, minute: number, priceUnits: number]>();
  const trade = (market: number, outcome: number, priceUnits: number, side: number, timeMs: number): void => {
    const token = 2 * market + outcome;
    const minute = minuteOf(timeMs);
    last.set(token, [market, outcome, [priceUnits, side, timeMs]]);
    minutes.set(token * 2 ** 32 + minute, [market, outcome, minute, priceUnits]);
  };
  for (const fill of fills) {
    const { seq, fillIndex, market } = fill;
    tables.fills.putSync([seq, fillIndex], stored.fill(fill));
    tables.accountFills.putSync([accounts.idOf(fill.takerAccount), seq, fillIndex, TAKER], 0);
    tables.accountFills.putSync([accounts.idOf(fill.makerAccount), seq, fillIndex, MAKER], 0);
    tables.marketFills.putSync([market, seq, fillIndex], 0);
    trade(market, fill.takerOutcome, fill.takerPriceUnits, fill.takerSide, fill.timeMs);
    // Buying one token at p is selling the other at 1 − p: the other token's trade has the opposite side.
    if (fill.makerOutcome !== fill.takerOutcome) trade(market, fill.makerOutcome, fill.makerPriceUnits, 1 - fill.takerSide, fill.timeMs);
  }
  for (const [market, outcome, value] of last.values()) tables.lastTrades.putSync([market, outcome], value);
  for (const [market, outcome, minute, priceUnits] of minutes.values()) tables.prices.putSync([market, outcome, minute], priceUnits);
  for (const redemption of redemptions) {
    tables.redemptions.putSync([redemption.seq, redemption.index], redemption);
    tables.accountRedemptions.putSync([redemption.account, redemption.seq, redemption.index], 0);
  }
}

// A shard's LMDB environment (DATA_DIR/shard-<i>, its own writer lock). Per batch, one
// synchronous transaction holds the batch's journal entry and the state it changed:
//   journal   batch number → the batch's command frames, back to back ([u32 length][frame])
//   finished-orders  every finished order (filled, cancelled, expired) as it stood when it
//             finished, appended in commit order, with its id index in memory (stored_orders.ts);
//             live orders are in the engine (snapshot + journal)
//   fills, account-fill-ids, accounts, market-fills, redemptions, account-redemptions, prices, last-trades,
//   market-volume
//             what the public feeds read, with their indexes (feed_tables.ts)
//   balance-changes batch number → the batch's balance changes in order, each
//             [address, market, outcome, free, reserved] (market -1: collateral)
//   snapshots [id, part, chunk] → the engine snapshot in chunks; meta 'snapshot' → the newest
//             complete one
// The environment is opened with noSync/noMetaSync false and commits are synchronous, so a
// batch's commit is on disk (data and meta pages synced) when commitBatch returns: its answers
// are released after that, never before. Snapshots are written a few chunks per batch, and a
// snapshot becomes the recovery point only when its last chunk is in; what it covers (journal
// entries, balance changes, older snapshots' chunks) is then pruned a few entries per commit.
//
// Balances are written as one record per batch, not as a row per balance: nothing reads them
// back (the engine holds them; recovery replays the journal over a snapshot), and rows keyed by
// address put every change on a page of its own, which each commit then rewrites in full (4 KB
// for a 16-byte change). For the same reason finished orders are appended, not keyed by their
// id (a hash: one page per order); the fill indexes are read by their keys
// (accounts by a small id per address, account_ids.ts, not the 42-character address).
// An order is written once, when it finishes, since a live order is always in the engine's
// memory.
import { join } from 'node:path';
import type { Database, Key, RootDatabase } from 'lmdb';
import { openDurable } from '../durable_env.js';
import type { OrderView } from '../state/reads.js';
import type { ColumnarSnapshot, EngineSnapshot } from '../state/snapshot.js';
import { AccountIds } from './account_ids.js';
import type { CoreState } from './core.js';
import { BalanceLog, decoded, readBalanceChanges, type BalanceChange } from './stored_codec.js';
import { StoredOrders } from './stored_orders.js';
import {
  addVolumes, fillsAt, indexFills, openFeedTables, writeFeeds, type FeedTables, type LastTradeValue, type MarketVolumeValue,
  type StoredFill, type StoredRedemption,
} from './feed_tables.js';

/**
 * Entries per snapshot chunk (orders, history): about 1 MB packed. The chunks go out in the
 * batches' own synchronous commits, so a chunk's size is a pause of the shard (~15 ms here);
 * chunks of 50 000 held a batch's answers back by a tenth of a second.
 */
const CHUNK_ENTRIES = 10_000;

export interface SnapshotHead {
  readonly id: number;
  /** The last batch the snapshot includes; recovery replays the journal after it. */
  readonly batch: number;
  readonly core: CoreState;
  readonly engine: Omit<EngineSnapshot, 'orders' | 'history'>;
  readonly orderChunks: number;
  readonly historyChunks: number;
}


export interface BatchChanges {
  readonly orders: Map<string, OrderView>;
  readonly fills: StoredFill[];
  readonly redemptions: StoredRedemption[];
  /** Every balance change of the batch, in order. */
  readonly balances: BalanceLog;
}

export function emptyChanges(): BatchChanges {
  return { orders: new Map(), fills: [], redemptions: [], balances: new BalanceLog() };
}

/** What ShardStore.decodeAll decoded. */
export interface StoreRecordCounts {
  readonly fills: number;
  readonly finishedOrders: number;
  readonly balanceChanges: number;
}

type ChunkKey = [number, number, number];
/**
 * The feeds' tables and indexes as this version writes them (see indexFeeds): 1 added the role
 * to account-fills, 2 keyed them by account id (account-fill-ids) instead of address.
 */
const FEEDS_VERSION = 2;
/** The market volumes (market-volume) as this version writes them; a store without them gets them from its fills (see indexVolumes). */
const VOLUMES_VERSION = 1;
/** Records per transaction when indexFeeds rebuilds what an older version stored. */
const FEED_INDEX_BATCH = 10_000;
/** What the write before serving needs room for (see probeWrite). */
const PROBE_BYTES = 1 << 20;
/** Entries pruned per commit (journal entries, balance changes, old snapshot chunks). */
const PRUNE_ENTRIES_MAX = 16;
const PART_ORDERS = 0;
const PART_HISTORY = 1;

/** A snapshot being written a few chunks at a time. */
interface PendingSnapshot {
  readonly head: SnapshotHead;
  /** Each chunk's key and its entries, made when the chunk is written. */
  readonly chunks: [ChunkKey, () => unknown[]][];
  next: number;
}

/** The directory of shard `shard`'s store under DATA_DIR. */
export function shardStoreName(shard: number): string {
  return `shard-${shard}`;
}

export class ShardStore {
  readonly path: string;
  private readonly root: RootDatabase;
  private readonly meta: Database<unknown, string>;
  private readonly journal: Database<Buffer, number>;
  private readonly orders: StoredOrders;
  private readonly feeds: FeedTables;
  private readonly accounts: AccountIds;
  /** Values: read them with readBalanceChanges. */
  private readonly balanceChanges: Database<unknown, number>;
  private readonly snapshots: Database<unknown[], ChunkKey>;
  private pending: PendingSnapshot | undefined = undefined;
  /** Id of the newest snapshot begun, complete or still being written. */
  private snapshotId: number;
  /** The newest complete snapshot: what it covers may be pruned. */
  private recoveryPoint: { readonly id: number; readonly batch: number } | undefined;
  /** Whether the last commit left something to prune (true at start: a crash may have). */
  private pruning = true;
  /**
   * Journal entries after this batch are kept whatever a snapshot covers: a replicated journal
   * (engine/shard/replica_feed.ts) has not taken them yet, and they are sent again from here.
   */
  private journalKeptAfter = Number.POSITIVE_INFINITY;

  constructor(dataDir: string, shard: number) {
    this.path = join(dataDir, shardStoreName(shard));
    this.root = openDurable(this.path, 16);
    this.meta = this.root.openDB({ name: 'meta', encoding: 'msgpack' });
    this.journal = this.root.openDB({ name: 'journal', encoding: 'binary', keyEncoding: 'ordered-binary' });
    this.orders = new StoredOrders(this.root);
    this.feeds = openFeedTables(this.root);
    this.accounts = new AccountIds(this.feeds.accounts);
    this.balanceChanges = this.root.openDB({ name: 'balance-changes', encoding: 'msgpack', keyEncoding: 'ordered-binary' });
    this.snapshots = this.root.openDB({ name: 'snapshots', encoding: 'msgpack', keyEncoding: 'ordered-binary' });
    const head = this.meta.get('snapshot') as SnapshotHead | undefined;
    this.snapshotId = head?.id ?? 0;
    this.recoveryPoint = head === undefined ? undefined : { id: head.id, batch: head.batch };
    this.indexFeeds();
    this.indexVolumes();
  }

  /**
   * Fills and redemptions stored by a version before FEEDS_VERSION get the indexes the feeds
   * need, once: emptied, then rebuilt from the fills and redemptions themselves, in transactions
   * of FEED_INDEX_BATCH records (a crash meanwhile only means doing it again). The address-keyed
   * account-fills table of versions 0 and 1 is dropped afterwards.
   */
  private indexFeeds(): void {
    if (this.meta.get('feeds') === FEEDS_VERSION) return;
    const { redemptions, accountFills, marketFills } = this.feeds;
    this.root.transactionSync(() => {
      accountFills.clearSync();
      marketFills.clearSync();
      this.feeds.marketVolume.clearSync();
    });
    const indexAll = <T>(records: Iterable<T>, write: (batch: T[]) => void): void => {
      let batch: T[] = [];
      for (const record of records) {
        batch.push(record);
        if (batch.length === FEED_INDEX_BATCH) {
          this.transact(() => write(batch));
          batch = [];
        }
      }
      if (batch.length > 0) this.transact(() => write(batch));
    };
    indexAll(this.fills(), (batch) => indexFills(this.feeds, this.accounts, batch));
    indexAll(redemptions.getRange().map(({ value }) => value), (batch) => writeFeeds(this.feeds, this.accounts, [], batch));
    this.root.openDB({ name: 'account-fills' }).dropSync();
    this.meta.putSync('volumes', VOLUMES_VERSION);
    this.meta.putSync('feeds', FEEDS_VERSION);
  }

  /**
   * A store written before the market volumes existed gets them from its fills, once: emptied,
   * then summed in transactions of FEED_INDEX_BATCH fills (a crash meanwhile only means doing it
   * again).
   */
  private indexVolumes(): void {
    if (this.meta.get('volumes') === VOLUMES_VERSION) return;
    this.root.transactionSync(() => this.feeds.marketVolume.clearSync());
    let batch: StoredFill[] = [];
    for (const fill of this.fills()) {
      batch.push(fill);
      if (batch.length === FEED_INDEX_BATCH) {
        const full = batch;
        this.transact(() => addVolumes(this.feeds, full));
        batch = [];
      }
    }
    const rest = batch;
    this.transact(() => {
      if (rest.length > 0) addVolumes(this.feeds, rest);
      this.meta.putSync('volumes', VOLUMES_VERSION);
    });
  }

  /**
   * The last committed batch number (0 before the first): the newest journal entry's, or the
   * snapshot's once pruning has removed every entry it covers (every batch with frames has an
   * entry, and batches without frames take no number).
   */
  lastBatch(): number {
    for (const batch of this.journal.getKeys({ reverse: true, limit: 1 })) return batch;
    return this.recoveryPoint?.batch ?? 0;
  }

  /** Whether `orderId` (whose idKey, from its frame, is `key`) is stored. */
  hasOrder(orderId: string, key: number): boolean {
    return this.orders.has(orderId, key);
  }

  order(orderId: string): OrderView | undefined {
    return this.orders.get(orderId);
  }

  fillsAll(): StoredFill[] {
    return [...this.fills()];
  }

  /** Every stored fill, oldest first. */
  private *fills(): Generator<StoredFill> {
    for (const { key, value } of this.feeds.fills.getRange()) yield* fillsAt(key, value);
  }

  /** The last trade of each outcome of `market` ([YES, NO]; undefined where none). */
  lastTrades(market: number): [LastTradeValue | undefined, LastTradeValue | undefined] {
    return [this.feeds.lastTrades.get([market, 0]), this.feeds.lastTrades.get([market, 1])];
  }

  /** What `market`'s fills traded (MarketVolumeValue), or undefined before its first fill. */
  volume(market: number): MarketVolumeValue | undefined {
    return this.feeds.marketVolume.get(market);
  }

  ordersAll(): OrderView[] {
    return this.orders.all();
  }

  /** The newest complete snapshot, reassembled; undefined on a fresh shard. */
  loadSnapshot(): { head: SnapshotHead; engine: EngineSnapshot } | undefined {
    const head = this.meta.get('snapshot') as SnapshotHead | undefined;
    if (head === undefined) return undefined;
    const read = (part: number, count: number): unknown[] => {
      const out: unknown[] = [];
      for (let chunk = 0; chunk < count; chunk++) {
        const entries = this.snapshots.get([head.id, part, chunk]);
        if (entries === undefined) throw new Error(`snapshot ${head.id} misses chunk ${part}/${chunk}`);
        for (const entry of entries) out.push(entry);
      }
      return out;
    };
    const engine = {
      ...head.engine,
      orders: read(PART_ORDERS, head.orderChunks),
      history: read(PART_HISTORY, head.historyChunks),
    } as EngineSnapshot;
    return { head, engine };
  }

  /**
   * Decodes every record the store keeps that a start does not read (a check of the whole store,
   * which the data directory's page walk runs): its fills, finished orders and balance changes.
   * Recovery decodes the rest, the snapshot and the journal after it. Throws, naming the table, at
   * the first record that does not decode.
   */
  decodeAll(): StoreRecordCounts {
    const within = <T>(table: string, decode: () => T): T => {
      try {
        return decode();
      } catch (error) {
        throw new Error(`in its table ${table}: ${(error as Error).message}`);
      }
    };
    const fills = within('fills', () => {
      let count = 0;
      for (const _fill of this.fills()) count++;
      return count;
    });
    const balanceChanges = within('balance-changes', () => {
      let count = 0;
      for (const [, changes] of this.balanceChangesAfter(0)) count += changes.length;
      return count;
    });
    return { fills, finishedOrders: within('finished-orders', () => this.orders.decodeAll()), balanceChanges };
  }

  /** The balance changes of the batches after `batch` that made any, oldest first. */
  *balanceChangesAfter(batch: number): Generator<[number, BalanceChange[]]> {
    for (const { key, value } of this.balanceChanges.getRange({ start: batch + 1 })) {
      yield [key, decoded(readBalanceChanges(value), `the balance changes of batch ${key}`)];
    }
  }

  /**
   * Keeps every journal entry after `batch` from pruning (the replicated journal took the rest);
   * entries a snapshot covers that are kept now are pruned after the next snapshot.
   */
  keepJournalAfter(batch: number): void {
    this.journalKeptAfter = batch;
  }

  /** Journal entries after `batch`, oldest first. */
  *journalAfter(batch: number): Generator<[number, Buffer]> {
    for (const { key, value } of this.journal.getRange({ start: batch + 1 })) yield [key, value];
  }

  /**
   * Commits one batch durably, in one transaction: its frames, its state changes, and the next
   * chunks of a snapshot being written. Returns once the commit is on disk; throws if it failed.
   */
  commitBatch(batch: number, frames: Buffer, changes: BatchChanges, snapshotChunks: number): void {
    this.transact(() => {
      if (frames.length > 0) this.journal.putSync(batch, frames);
      this.orders.write(changes.orders);
      writeFeeds(this.feeds, this.accounts, changes.fills, changes.redemptions);
      if (changes.balances.count > 0) this.balanceChanges.putSync(batch, changes.balances.value());
      this.writeSnapshotChunks(snapshotChunks);
      this.prune();
    });
  }

  /**
   * Writes PROBE_BYTES and removes them, in two synchronous commits, before the shard serves: it
   * throws when the disk cannot take that much more, so a shard whose storage failed stays down
   * until it has room again. A smaller probe fits in pages LMDB frees and reuses (the failed
   * commit's among them), passes on a full disk, and the shard would go up and down with every
   * batch it could not commit.
   */
  probeWrite(): void {
    this.root.transactionSync(() => this.meta.putSync('probe', Buffer.alloc(PROBE_BYTES)));
    this.root.transactionSync(() => this.meta.removeSync('probe'));
  }

  /** One synchronous transaction; the in-memory indexes of what it wrote follow its outcome. */
  private transact(body: () => void): void {
    try {
      this.root.transactionSync(body);
    } catch (error) {
      this.orders.aborted();
      this.accounts.aborted();
      throw error;
    }
    this.orders.committed();
    this.accounts.committed();
  }

  /** Whether a snapshot is still being written, or what one covers still being pruned. */
  snapshotPending(): boolean {
    return this.pending !== undefined || this.pruning;
  }

  /** Starts writing `engine` + `core` as of `batch` (taken between batches). */
  beginSnapshot(batch: number, core: CoreState, engine: ColumnarSnapshot): void {
    const id = this.snapshotId + 1;
    this.snapshotId = id;
    const chunks: [ChunkKey, () => unknown[]][] = [];
    const cut = (part: number, count: number, entries: (from: number, to: number) => unknown[]): number => {
      let chunk = 0;
      for (let from = 0; from < count; from += CHUNK_ENTRIES) {
        const to = Math.min(count, from + CHUNK_ENTRIES);
        chunks.push([[id, part, chunk], () => entries(from, to)]);
        chunk++;
      }
      return chunk;
    };
    const { orders, history, ...rest } = engine;
    const orderChunks = cut(PART_ORDERS, orders.length, (from, to) => orders.slice(from, to));
    const historyChunks = cut(PART_HISTORY, history.count, (from, to) => history.entries(from, to));
    this.pending = { head: { id, batch, core, engine: rest, orderChunks, historyChunks }, chunks, next: 0 };
  }

  /** Writes everything a pending snapshot still needs in one transaction (clean stop). */
  finishSnapshot(): void {
    if (this.pending === undefined) return;
    this.root.transactionSync(() => {
      this.writeSnapshotChunks(Number.MAX_SAFE_INTEGER);
      while (this.pruning) this.prune();
    });
  }

  close(): Promise<void> {
    return this.root.close();
  }

  /** Inside a write transaction: up to `count` chunks, then the head once all are in. */
  private writeSnapshotChunks(count: number): void {
    const pending = this.pending;
    if (pending === undefined) return;
    for (let written = 0; written < count && pending.next < pending.chunks.length; written++) {
      const [key, entries] = pending.chunks[pending.next]!;
      this.snapshots.putSync(key, entries());
      pending.next++;
    }
    if (pending.next < pending.chunks.length) return;
    this.meta.putSync('snapshot', pending.head);
    this.recoveryPoint = { id: pending.head.id, batch: pending.head.batch };
    this.pruning = true;
    this.pending = undefined;
  }

  /**
   * Inside a write transaction: removes at most PRUNE_ENTRIES_MAX of what the recovery point
   * covers (journal entries and balance changes up to its batch, chunks of older snapshots).
   * A snapshot covers hundreds of thousands of frames, and removing them all in one commit held
   * a batch's answers back for a third of a second; spread over the next commits, each pays a
   * few milliseconds. Recovery reads only what lies after the recovery point, so what is not
   * pruned yet is never replayed.
   */
  private prune(): void {
    const point = this.recoveryPoint;
    if (point === undefined || !this.pruning) {
      this.pruning = false;
      return;
    }
    let removed = 0;
    const ranges: [Database<unknown, Key>, Key][] = [
      [this.journal as Database<unknown, Key>, Math.min(point.batch, this.journalKeptAfter) + 1],
      [this.balanceChanges as Database<unknown, Key>, point.batch + 1],
      [this.snapshots as Database<unknown, Key>, [point.id]],
    ];
    for (const [database, end] of ranges) {
      for (const key of database.getKeys({ end, limit: PRUNE_ENTRIES_MAX - removed })) {
        database.removeSync(key);
        removed++;
      }
    }
    this.pruning = removed === PRUNE_ENTRIES_MAX;
  }
}

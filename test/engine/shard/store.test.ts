// The shard store on real LMDB: a batch's balance changes are one record, in the order they
// happened, committed with the batch's journal entry; a snapshot that covers a batch drops its
// journal entry and its balance changes together, and later batches keep both; the last batch
// number survives pruning every journal entry; a store an older version wrote gets the feeds'
// indexes when it opens (fills of an account by its id, not its address).
import assert from 'node:assert/strict';
import type { FeedCursor } from '../../../http/market/feed_pages.js';
import { FeedReader } from '../../../http/market/feed_reader.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { withTemporaryDir } from '../../support/temporary_dir.js';
import { open } from 'lmdb';
import { ShardCore } from '../../../engine/shard/core.js';
import {
  accountFillEntries, MAKER, marketFillEntries, openFeedTables, POSTING_ENTRIES_MAX, TAKER, type StoredFill,
} from '../../../engine/shard/feed_tables.js';
import { emptyChanges, ShardStore } from '../../../engine/shard/store.js';
import type { BalanceChange } from '../../../engine/shard/stored_codec.js';

const ALICE = '0x00000000000000000000000000000000000000a1';
const BOB = '0x00000000000000000000000000000000000000b2';

function frames(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

function commit(store: ShardStore, batch: number, balances: BalanceChange[], snapshotChunks = 0): void {
  const changes = emptyChanges();
  for (const change of balances) changes.balances.add(...change);
  store.commitBatch(batch, frames(`frames of batch ${batch}`), changes, snapshotChunks);
}

test('balance changes are one record per batch, in order, and a snapshot drops them with the journal it covers', () => withTemporaryDir(async (dataDir) => {
  const store = new ShardStore(dataDir, 0);
  const first: BalanceChange[] = [[ALICE, -1, -1, 900, 100], [BOB, 3, 1, 5_000_000, 0], [ALICE, -1, -1, 850, 150]];
  const second: BalanceChange[] = [[BOB, -1, -1, 42, 0]];
  commit(store, 1, first);
  commit(store, 2, second);
  commit(store, 3, []);
  assert.deepEqual([...store.balanceChangesAfter(0)], [[1, first], [2, second]], 'batch 3 changed no balance and wrote no record');
  assert.deepEqual([...store.journalAfter(0)].map(([batch]) => batch), [1, 2, 3]);

  const core = new ShardCore({ operatorAddress: ALICE });
  store.beginSnapshot(2, core.coreState(), core.engine.columnarSnapshot());
  const third: BalanceChange[] = [[ALICE, 7, 0, 1, 2]];
  commit(store, 4, third, Number.MAX_SAFE_INTEGER);
  assert.equal(store.snapshotPending(), false);
  assert.deepEqual([...store.balanceChangesAfter(0)], [[4, third]], 'the snapshot of batch 2 covers batches 1 and 2');
  assert.deepEqual([...store.journalAfter(0)].map(([batch]) => batch), [3, 4]);
  assert.equal(store.loadSnapshot()?.head.batch, 2);
  await store.close();

  const reopened = new ShardStore(dataDir, 0);
  assert.deepEqual([...reopened.balanceChangesAfter(0)], [[4, third]], 'the records are on disk');
  assert.equal(reopened.lastBatch(), 4);
  await reopened.close();
}));

test('what a snapshot covers is pruned a few entries per commit, and recovery reads past it meanwhile', () => withTemporaryDir(async (dataDir) => {
  const store = new ShardStore(dataDir, 0);
  const core = new ShardCore({ operatorAddress: ALICE });
  const change = (batch: number): BalanceChange[] => [[ALICE, -1, -1, batch, 0]];
  for (let batch = 1; batch <= 40; batch++) commit(store, batch, change(batch));
  store.beginSnapshot(40, core.coreState(), core.engine.columnarSnapshot());
  commit(store, 41, change(41), Number.MAX_SAFE_INTEGER);
  const batchesOf = (): number[] => [...store.journalAfter(0)].map(([batch]) => batch);
  assert.ok(batchesOf().some((batch) => batch <= 40), 'one commit does not prune 80 entries');
  assert.equal(store.snapshotPending(), true, 'pruning keeps the shard committing');
  assert.deepEqual([...store.journalAfter(40)].map(([batch]) => batch), [41], 'recovery replays only what follows the snapshot');
  let batch = 41;
  while (store.snapshotPending()) commit(store, ++batch, change(batch));
  assert.ok(batch - 41 >= 4, `pruning took ${batch - 41} further commits`);
  assert.deepEqual(batchesOf(), Array.from({ length: batch - 40 }, (_, index) => 41 + index));
  assert.deepEqual([...store.balanceChangesAfter(0)].map(([key]) => key), batchesOf());

  // A second snapshot replaces the first, whose chunks go the same way.
  store.beginSnapshot(batch, core.coreState(), core.engine.columnarSnapshot());
  commit(store, ++batch, change(batch), Number.MAX_SAFE_INTEGER);
  while (store.snapshotPending()) commit(store, ++batch, change(batch));
  assert.equal(store.loadSnapshot()?.head.id, 2);
  await store.close();
}));

test('the last batch is the newest journal entry, or the snapshot once pruning took every entry', () => withTemporaryDir(async (dataDir) => {
  const store = new ShardStore(dataDir, 0);
  assert.equal(store.lastBatch(), 0, 'a fresh store');
  for (let batch = 1; batch <= 3; batch++) commit(store, batch, []);
  assert.equal(store.lastBatch(), 3);
  const core = new ShardCore({ operatorAddress: ALICE });
  store.beginSnapshot(3, core.coreState(), core.engine.columnarSnapshot());
  // Commits without frames (the worker's while idle) take no batch number.
  while (store.snapshotPending()) store.commitBatch(3, Buffer.alloc(0), emptyChanges(), Number.MAX_SAFE_INTEGER);
  assert.deepEqual([...store.journalAfter(0)], [], 'the snapshot covers every entry');
  assert.equal(store.lastBatch(), 3);
  await store.close();
  const reopened = new ShardStore(dataDir, 0);
  assert.equal(reopened.lastBatch(), 3);
  commit(reopened, 4, []);
  assert.equal(reopened.lastBatch(), 4);
  await reopened.close();
}));

/** The shard's fills and indexes as the front end reads them (one shard, markets named by number). */
function feedReader(dataDir: string): FeedReader {
  return new FeedReader(dataDir, {
    shards: 1, keyOf: (_shard, market) => `market-${market}`, placeOf: () => undefined, tokenOf: () => undefined,
  });
}

/** The address's fills, newest first, at most `max` (one page). */
function fillsOf(feeds: FeedReader, address: string, max: number): StoredFill[] {
  return feeds.fillsOf(address, max, () => true).fills.map(({ fill }) => fill);
}

for (const version of [0, 1]) {
  test(`a store feeds version ${version} wrote gets this version's indexes once, when it opens`, () => withTemporaryDir(async (dataDir) => {
    // As an older version left it: fills and account-fills keyed by address (version 0: without
    // a role and no other index; version 1: with the role).
    const path = join(dataDir, 'shard-0');
    mkdirSync(path, { recursive: true });
    const root = open({ path, encoding: 'msgpack', compression: false, maxDbs: 16 });
    const meta = root.openDB({ name: 'meta', encoding: 'msgpack' });
    const fills = root.openDB({ name: 'fills', encoding: 'msgpack', keyEncoding: 'ordered-binary' });
    const accountFills = root.openDB({ name: 'account-fills', encoding: 'msgpack', keyEncoding: 'ordered-binary' });
    const redemptions = root.openDB({ name: 'redemptions', encoding: 'msgpack', keyEncoding: 'ordered-binary' });
    const fill = (seq: number, taker: string, maker: string, minute: number): StoredFill => ({
      kind: 'FILL', seq, fillIndex: 0, market: 3, takerOrderId: `t${seq}`, takerAccount: taker, takerOutcome: 0, takerSide: 0,
      takerPriceUnits: 4000 + seq, makerOrderId: `m${seq}`, makerAccount: maker, makerOutcome: 1, makerSide: 0,
      makerPriceUnits: 6000 - seq, sizeMicros: 1_000_000, takerFeeMicros: 0, fillKind: 1, timeMs: minute * 60_000 + seq,
    });
    const old = [fill(1, ALICE, BOB, 10), fill(2, BOB, BOB, 10), fill(3, ALICE, BOB, 11)];
    await root.transaction(() => {
      for (const f of old) {
        fills.put([f.seq, 0], f);
        accountFills.put(version === 0 ? [f.takerAccount, f.seq, 0] : [f.takerAccount, f.seq, 0, TAKER], 0);
        if (version === 1) accountFills.put([f.makerAccount, f.seq, 0, MAKER], 0);
        else if (f.makerAccount !== f.takerAccount) accountFills.put([f.makerAccount, f.seq, 0], 0);
      }
      redemptions.put([3, 0], { seq: 3, account: ALICE, market: 3, winner: 0, sharesMicros: [2_000_000, 0], timeMs: 700_000, index: 0 });
      if (version === 1) meta.put('feeds', 1);
    });
    await root.close();

    const store = new ShardStore(dataDir, 0);
    const reopened = open({ path, encoding: 'msgpack', compression: false, maxDbs: 16 });
    const tables = openFeedTables(reopened);
    assert.deepEqual([...tables.accounts.getRange()].map(({ key, value }) => [key, value]), [[ALICE, 1], [BOB, 2]], 'ids in the order of first fills');
    assert.deepEqual([1, 2].map((id) => [...accountFillEntries(tables, id)]), [
      [[3, 0, TAKER], [1, 0, TAKER]], [[3, 0, MAKER], [2, 0, MAKER], [2, 0, TAKER], [1, 0, MAKER]],
    ], 'every side of every fill, with its role, by account id, newest first');
    assert.deepEqual([...reopened.openDB({ name: 'account-fills', encoding: 'msgpack', keyEncoding: 'ordered-binary' }).getKeys()], [], 'the address-keyed table is gone');
    assert.deepEqual([...marketFillEntries(tables, 3)], [[3, 0, TAKER], [2, 0, TAKER], [1, 0, TAKER]]);
    assert.deepEqual([...tables.accountRedemptions.getKeys()], [[ALICE, 3, 0]]);
    assert.deepEqual([...tables.prices.getRange()].map(({ key, value }) => [key, value]), [
      [[3, 0, 600], 4002], [[3, 0, 660], 4003], [[3, 1, 600], 5998], [[3, 1, 660], 5997],
    ], 'each token-minute keeps its last trade');
    assert.deepEqual(store.lastTrades(3), [[4003, 0, 660_003], [5997, 1, 660_003]]);
    const feeds = feedReader(dataDir);
    assert.deepEqual(fillsOf(feeds, BOB, 10).map((f) => f.seq), [3, 2, 1], 'a self-trade is one fill of the account');
    assert.deepEqual(fillsOf(feeds, ALICE, 1).map((f) => f.seq), [3]);
    assert.deepEqual(fillsOf(feeds, '0x00000000000000000000000000000000000000c3', 10), [], 'an address without fills');
    await feeds.close();
    await reopened.close();
    await store.close();
  }));
}

test('fills and index entries stored one per key (feeds version 2) read with the groups and postings written after them', () => withTemporaryDir(async (dataDir) => {
  const fill = (seq: number, fillIndex: number, taker: string, maker: string): StoredFill => ({
    kind: 'FILL', seq, fillIndex, market: 2, takerOrderId: `t${seq}-${fillIndex}`, takerAccount: taker, takerOutcome: 0, takerSide: 0,
    takerPriceUnits: 4000, makerOrderId: `m${seq}-${fillIndex}`, makerAccount: maker, makerOutcome: 0, makerSide: 1,
    makerPriceUnits: 4000, sizeMicros: 1_000_000, takerFeeMicros: 0, fillKind: 0, timeMs: 1_700_000_000_000 + seq,
  });
  // As version 2 left it: a fill per key and an index entry per key (value 0).
  const path = join(dataDir, 'shard-0');
  mkdirSync(path, { recursive: true });
  const root = open({ path, encoding: 'msgpack', compression: false, maxDbs: 16 });
  const oldTables = openFeedTables(root);
  const old = [fill(1, 0, ALICE, BOB), fill(1, 1, BOB, ALICE)];
  await root.transaction(() => {
    root.openDB({ name: 'meta', encoding: 'msgpack' }).put('feeds', 2);
    oldTables.accounts.put(ALICE, 1);
    oldTables.accounts.put(BOB, 2);
    for (const f of old) {
      oldTables.fills.put([f.seq, f.fillIndex], f);
      oldTables.accountFills.put([f.takerAccount === ALICE ? 1 : 2, f.seq, f.fillIndex, TAKER], 0);
      oldTables.accountFills.put([f.makerAccount === ALICE ? 1 : 2, f.seq, f.fillIndex, MAKER], 0);
      oldTables.marketFills.put([2, f.seq, f.fillIndex], 0);
    }
  });
  await root.close();

  // Then batches in groups: one larger than a group and than a posting (ALICE takes every fill).
  const store = new ShardStore(dataDir, 0);
  const many = Array.from({ length: POSTING_ENTRIES_MAX + 10 }, (_, index) => fill(2 + Math.floor(index / 3), index % 3, ALICE, BOB));
  const changes = emptyChanges();
  changes.fills.push(...many);
  store.commitBatch(1, frames('b1'), changes, 0);
  const last = emptyChanges();
  last.fills.push(fill(500, 0, BOB, BOB));
  store.commitBatch(2, frames('b2'), last, 0);

  const every = [...old, ...many, last.fills[0]!];
  assert.deepEqual(store.fillsAll(), every, 'every fill once, oldest first');
  const newestFirst = (fills: StoredFill[]): number[][] => fills.map((f) => [f.seq, f.fillIndex]).reverse();
  const feeds = feedReader(dataDir);
  assert.deepEqual(fillsOf(feeds, ALICE, 1_000).map((f) => [f.seq, f.fillIndex]), newestFirst([...old, ...many]));
  assert.deepEqual(fillsOf(feeds, BOB, 1_000).map((f) => [f.seq, f.fillIndex]), newestFirst(every), 'a self-trade once');
  assert.deepEqual(fillsOf(feeds, BOB, 3).map((f) => f.seq), [500, many.at(-1)!.seq, many.at(-2)!.seq]);
  // Paged by cursor, 7 at a time (pages end inside postings and groups): the same fills, once each.
  for (const address of [ALICE, BOB]) {
    const paged: number[][] = [];
    let cursor: FeedCursor | undefined;
    do {
      const page = feeds.fillsOf(address, 7, () => true, cursor);
      assert.ok(page.fills.length <= 7);
      paged.push(...page.fills.map(({ fill }) => [fill.seq, fill.fillIndex]));
      cursor = page.next;
    } while (cursor !== undefined);
    assert.deepEqual(paged, fillsOf(feeds, address, 1_000).map((f) => [f.seq, f.fillIndex]), `${address}: every fill once, in order`);
  }
  await feeds.close();
  const tables = openFeedTables(open({ path, encoding: 'msgpack', compression: false, maxDbs: 16 }));
  assert.deepEqual([...marketFillEntries(tables, 2)].map(([seq, fillIndex]) => [seq, fillIndex]), newestFirst(every));
  assert.equal([...tables.accountFills.getKeys({ start: [1], end: [2] })].length, 2 + 2, 'two old entries, two postings');
  assert.ok([...tables.fills.getKeys()].length <= 2 + Math.ceil(many.length / 64) + 1, 'fills in groups');
  await store.close();
}));

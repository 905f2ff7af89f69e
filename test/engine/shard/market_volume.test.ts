// What a market traded, kept with its fills (market-volume, the catalog's volume and volume24hr):
// each fill once at the taker's price, in all and by the hour for the last 24 hours up to the
// newest fill; written in the batch's own commit, read back by the worker for the front end's
// read model, built from the fills once for a store written before it existed. And the front
// end's copy (http/market/volume.ts): the same values from the record and from the fills, its
// window moving by the clock hour.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { open } from 'lmdb';
import { HOUR_MS, mergeVolume, openFeedTables, type StoredFill } from '../../../engine/shard/feed_tables.js';
import { emptyChanges, ShardStore } from '../../../engine/shard/store.js';
import { TradedVolume } from '../../../http/market/volume.js';
import { withTemporaryDir } from '../../support/temporary_dir.js';

const ALICE = '0x00000000000000000000000000000000000000a1';
const BOB = '0x00000000000000000000000000000000000000b2';
const HOUR = 500_000;

function fill(seq: number, market: number, takerPriceUnits: number, sizeMicros: number, hour: number): StoredFill {
  return {
    kind: 'FILL', seq, fillIndex: 0, market, takerOrderId: `t${seq}`, takerAccount: ALICE, takerOutcome: 1, takerSide: 0, takerPriceUnits,
    makerOrderId: `m${seq}`, makerAccount: BOB, makerOutcome: 0, makerSide: 0, makerPriceUnits: 10_000 - takerPriceUnits, sizeMicros,
    takerFeeMicros: 0, fillKind: 1, timeMs: hour * HOUR_MS + seq,
  };
}

function commitFills(store: ShardStore, batch: number, fills: StoredFill[]): void {
  const changes = emptyChanges();
  changes.fills.push(...fills);
  store.commitBatch(batch, Buffer.from(`batch ${batch}`), changes, 0);
}

test('mergeVolume adds to the total and keeps the hours within a day of the newest', () => {
  assert.deepEqual(mergeVolume(undefined, new Map([[HOUR, 5]])), [5, HOUR, 5]);
  assert.deepEqual(mergeVolume([5, HOUR, 5], new Map([[HOUR, 2], [HOUR + 3, 1]])), [8, HOUR, 7, HOUR + 3, 1]);
  // The newest hour moves on: hours 24 or more before it go, the total keeps them.
  assert.deepEqual(mergeVolume([8, HOUR, 7, HOUR + 3, 1], new Map([[HOUR + 24, 4]])), [12, HOUR + 3, 1, HOUR + 24, 4]);
  // A late fill (an older hour) adds to the total; kept only while within the day.
  assert.deepEqual(mergeVolume([12, HOUR + 3, 1, HOUR + 24, 4], new Map([[HOUR + 1, 9], [HOUR - 5, 6]])), [27, HOUR + 1, 9, HOUR + 3, 1, HOUR + 24, 4]);
});

test('a batch adds its fills to their markets once, at the taker price; a store without volumes gets them from its fills', () => withTemporaryDir(async (dataDir) => {
  const store = new ShardStore(dataDir, 0);
  assert.equal(store.volume(3), undefined);
  // 2 × 0.40, 5 × 0.55 in one hour; 1 × 0.99 two hours later; market 4 apart.
  commitFills(store, 1, [fill(1, 3, 4000, 2_000_000, HOUR), fill(2, 3, 5500, 5_000_000, HOUR), fill(3, 4, 1000, 10_000_000, HOUR)]);
  commitFills(store, 2, [fill(4, 3, 9900, 1_000_000, HOUR + 2)]);
  assert.deepEqual(store.volume(3), [4_540_000, HOUR, 3_550_000, HOUR + 2, 990_000]);
  assert.deepEqual(store.volume(4), [1_000_000, HOUR, 1_000_000]);
  await store.close();

  // As a version before the volumes left it: the fills, no market-volume and no mark of it.
  const path = join(dataDir, 'shard-0');
  const root = open({ path, encoding: 'msgpack', compression: false, maxDbs: 16 });
  await root.transaction(() => {
    openFeedTables(root).marketVolume.clearSync();
    root.openDB({ name: 'meta', encoding: 'msgpack' }).removeSync('volumes');
  });
  await root.close();
  const reopened = new ShardStore(dataDir, 0);
  assert.deepEqual(reopened.volume(3), [4_540_000, HOUR, 3_550_000, HOUR + 2, 990_000]);
  assert.deepEqual(reopened.volume(4), [1_000_000, HOUR, 1_000_000]);
  // Once: later batches add to what was built.
  commitFills(reopened, 3, [fill(5, 4, 5000, 2_000_000, HOUR + 30)]);
  assert.deepEqual(reopened.volume(4), [2_000_000, HOUR + 30, 1_000_000]);
  await reopened.close();
  const again = new ShardStore(dataDir, 0);
  assert.deepEqual(again.volume(4), [2_000_000, HOUR + 30, 1_000_000]);
  await again.close();
}));

test('the front end’s copy: the same day from the record as from the fills, moving on by the clock hour', () => {
  const fills: [number, number][] = [[1_000, HOUR * HOUR_MS + 10], [2_000, (HOUR + 1) * HOUR_MS], [4_000, (HOUR + 23) * HOUR_MS + 5], [8_000, (HOUR + 24) * HOUR_MS]];
  const live = new TradedVolume();
  const stored = new Map<number, number>();
  let record: number[] | undefined;
  for (const [micros, timeMs] of fills) {
    live.add(micros, timeMs);
    stored.clear();
    stored.set(Math.floor(timeMs / HOUR_MS), micros);
    record = mergeVolume(record, stored);
  }
  const loaded = new TradedVolume();
  loaded.load(record ?? null);
  for (const copy of [live, loaded]) {
    assert.equal(copy.totalMicros, 15_000);
    // At HOUR + 24: the hours HOUR + 1 .. HOUR + 24 (the first fill's hour is a day old).
    assert.equal(copy.lastDayMicros((HOUR + 24) * HOUR_MS), 14_000);
    assert.equal(copy.lastDayMicros((HOUR + 24) * HOUR_MS + HOUR_MS - 1), 14_000);
    assert.equal(copy.lastDayMicros((HOUR + 25) * HOUR_MS), 12_000);
    assert.equal(copy.lastDayMicros((HOUR + 47) * HOUR_MS), 8_000);
    assert.equal(copy.lastDayMicros((HOUR + 48) * HOUR_MS), 0);
  }
  // A fill a day older than what its slot holds is outside every window: only the total takes it.
  live.add(16_000, (HOUR + 0) * HOUR_MS);
  assert.equal(live.totalMicros, 31_000);
  assert.equal(live.lastDayMicros((HOUR + 24) * HOUR_MS), 14_000);
  // Nothing traded: a null record.
  loaded.load(null);
  assert.deepEqual([loaded.totalMicros, loaded.lastDayMicros((HOUR + 24) * HOUR_MS)], [0, 0]);
});

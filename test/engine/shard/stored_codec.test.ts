// Stored fills and finished orders on real LMDB: what the shard writes in its binary layout reads
// back field for field, one per value or in groups; values an older version stored as objects
// read as they are; a value of another layout, or cut short, does not decode; one reused scratch
// buffer serves every put.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withTemporaryDir } from '../../support/temporary_dir.js';
import { openDurable } from '../../../engine/durable_env.js';
import type { FillKind } from '../../../engine/events/events.js';
import { CancelReason, OrderStatus } from '../../../engine/orders/order_status.js';
import type { OrderView } from '../../../engine/state/reads.js';
import type { StoredFill } from '../../../engine/shard/feed_tables.js';
import {
  BalanceLog, GroupWriter, readBalanceChanges, readStoredFill, readStoredFills, readStoredOrder, readStoredOrders, storedFillRecordIn,
  storedOrderIdsOf, StoredWriter, type BalanceChange,
} from '../../../engine/shard/stored_codec.js';
import { Prng } from '../prng.js';

/** An integer in [low, high), high up to 2^53. */
function int(prng: Prng, low: number, high: number): number {
  return low + ((prng.nextUint32() * 2 ** 21 + (prng.nextUint32() >>> 11)) % (high - low));
}

const ADDRESS = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;
const ORDER_ID = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

function randomFill(prng: Prng, seq: number): StoredFill {
  return {
    kind: 'FILL', seq, fillIndex: int(prng, 0, 40), market: int(prng, 0, 5000), takerOrderId: ORDER_ID(int(prng, 0, 1e9)),
    takerAccount: ADDRESS(int(prng, 0, 1e6)), takerOutcome: int(prng, 0, 2), takerSide: int(prng, 0, 2), takerPriceUnits: int(prng, 1, 10_000),
    makerOrderId: `internal-${seq}`, makerAccount: ADDRESS(int(prng, 0, 1e6)), makerOutcome: int(prng, 0, 2), makerSide: int(prng, 0, 2),
    makerPriceUnits: int(prng, 1, 10_000), sizeMicros: int(prng, 1, 2 ** 50), takerFeeMicros: int(prng, 0, 2 ** 40), fillKind: int(prng, 0, 3) as FillKind,
    timeMs: 1_700_000_000_000 + int(prng, 0, 1e9),
  };
}

function randomOrder(prng: Prng, n: number): OrderView {
  return {
    orderId: ORDER_ID(n), owner: ADDRESS(int(prng, 0, 1e6)), market: int(prng, 0, 5000), outcome: int(prng, 0, 2), side: int(prng, 0, 2),
    orderType: int(prng, 0, 4), priceUnits: int(prng, 1, 10_000), originalMicros: int(prng, 1, 2 ** 50), matchedMicros: int(prng, 0, 2 ** 50),
    remainingMicros: 0, status: OrderStatus.CANCELED, cancelReason: CancelReason.EXPIRED, createdAtMs: int(prng, 0, 2 ** 45),
    expirationMs: int(prng, 0, 2 ** 45), updatedAtMs: int(prng, 0, 2 ** 45),
  };
}

test('fills and orders in the binary layout read back exactly from LMDB, and objects older versions stored read as they are', () => withTemporaryDir(async (dir) => {
  const root = openDurable(dir, 4);
  const fills = root.openDB<unknown, [number, number]>({ name: 'fills', encoding: 'msgpack', keyEncoding: 'ordered-binary' });
  const orders = root.openDB<unknown, string>({ name: 'orders', encoding: 'msgpack' });
  const prng = new Prng(7);
  const writer = new StoredWriter();
  const wantFills = Array.from({ length: 300 }, (_, seq) => randomFill(prng, seq + 1));
  const wantOrders = Array.from({ length: 300 }, (_, n) => randomOrder(prng, n));
  const oldFill = randomFill(prng, 1_000);
  const oldOrder = randomOrder(prng, 1_000);
  root.transactionSync(() => {
    // One scratch buffer for every put: each value is copied when it is put.
    for (const fill of wantFills) fills.putSync([fill.seq, fill.fillIndex], writer.fill(fill));
    for (const view of wantOrders) orders.putSync(view.orderId, writer.order(view));
    fills.putSync([oldFill.seq, oldFill.fillIndex], oldFill);
    orders.putSync(oldOrder.orderId, oldOrder);
  });
  for (const fill of [...wantFills, oldFill]) assert.deepEqual(readStoredFill(fills.get([fill.seq, fill.fillIndex])), fill);
  for (const view of [...wantOrders, oldOrder]) assert.deepEqual(readStoredOrder(orders.get(view.orderId)), view);
  // The id alone, from the bytes as the table holds them (what a store reads when it opens).
  const raw = root.openDB<Buffer, string>({ name: 'orders', encoding: 'binary' });
  for (const view of wantOrders) assert.deepEqual(storedOrderIdsOf(raw.get(view.orderId)!), [view.orderId]);
  assert.equal(storedOrderIdsOf(raw.get(oldOrder.orderId)!), undefined, 'an object is decoded whole instead');
  const framed = Buffer.from(raw.get(wantOrders[0]!.orderId)!);
  assert.equal(storedOrderIdsOf(framed.subarray(0, 10)), undefined, 'cut short');
  await root.close();
}));

test('groups of fills and of orders read back in order from LMDB, whatever msgpack bin holds them', () => withTemporaryDir(async (dir) => {
  const root = openDurable(dir, 4);
  const table = root.openDB<unknown, number>({ name: 'groups', encoding: 'msgpack', keyEncoding: 'ordered-binary' });
  const raw = root.openDB<Buffer, number>({ name: 'groups', encoding: 'binary', keyEncoding: 'ordered-binary' });
  const prng = new Prng(9);
  const writer = new StoredWriter();
  const group = new GroupWriter();
  const fills = Array.from({ length: 64 }, (_, seq) => randomFill(prng, seq + 1));
  // 1 order: a bin 8; 64: a bin 16; 600 (more than a writer puts in one group): a bin 32.
  const orderGroups = [1, 64, 600].map((count) => Array.from({ length: count }, () => randomOrder(prng, int(prng, 0, 1e12))));
  root.transactionSync(() => {
    for (const fill of fills) group.add(writer.fill(fill));
    assert.equal(group.records, 64);
    table.putSync(0, group.value());
    orderGroups.forEach((views, index) => {
      group.reset();
      for (const view of views) group.add(writer.order(view));
      table.putSync(index + 1, group.value());
    });
  });
  assert.deepEqual(readStoredFills(table.get(0)), fills);
  assert.deepEqual(readStoredFills(Buffer.from(writer.fill(fills[0]!))), [fills[0]], 'one fill alone reads as a group of one');
  assert.deepEqual(readStoredOrders(table.get(5)), undefined, 'no value');
  orderGroups.forEach((views, index) => {
    assert.deepEqual(readStoredOrders(table.get(index + 1)), views);
    assert.deepEqual(storedOrderIdsOf(raw.get(index + 1)!), views.map((view) => view.orderId));
  });
  assert.deepEqual([raw.get(1)![0], raw.get(2)![0], raw.get(3)![0]], [0xc4, 0xc5, 0xc6], 'bin 8, bin 16, bin 32');
  const cut = Buffer.from(table.get(0) as Buffer).subarray(0, 100);
  assert.equal(readStoredFills(cut), undefined, 'a group cut short');
  // One fill found in its group by the key at the start of each record.
  const group0 = table.get(0);
  for (const fill of [fills[0]!, fills[37]!, fills[63]!]) {
    assert.deepEqual(readStoredFill(storedFillRecordIn(group0, fill.seq, fill.fillIndex)), fill);
  }
  assert.equal(storedFillRecordIn(group0, 1_000, 0), null, 'not in the group');
  assert.equal(storedFillRecordIn(cut, 1_000, 0), undefined, 'a group cut short does not decode');
  const single = Buffer.from(writer.fill(fills[5]!));
  assert.equal(storedFillRecordIn(single, fills[5]!.seq, fills[5]!.fillIndex), single, 'one fill alone, as older versions stored it');
  assert.equal(storedFillRecordIn(fills[6], fills[6]!.seq, fills[6]!.fillIndex), fills[6], 'a fill stored as an object');
  assert.equal(storedFillRecordIn(fills[6], fills[7]!.seq, fills[7]!.fillIndex), null);
  assert.equal(readStoredOrders(table.get(0)), undefined, 'fills are not orders');
  await root.close();
}));

test('a value of another layout, cut short, or with bytes past its end does not decode', () => {
  const prng = new Prng(8);
  const writer = new StoredWriter();
  const fill = Buffer.from(writer.fill(randomFill(prng, 5)));
  const order = Buffer.from(writer.order(randomOrder(prng, 5)));
  assert.notEqual(readStoredFill(fill), undefined);
  assert.equal(readStoredFill(Buffer.concat([Buffer.from([3]), fill.subarray(1)])), undefined, 'unknown layout');
  assert.equal(readStoredFill(Buffer.concat([fill, Buffer.from([0])])), undefined, 'trailing byte');
  assert.throws(() => readStoredFill(fill.subarray(0, fill.length - 3)), RangeError, 'cut short');
  assert.equal(readStoredFill(Buffer.alloc(0)), undefined);
  assert.equal(readStoredOrder(Buffer.concat([order, Buffer.from([0])])), undefined);
  assert.equal(readStoredFill({ seq: 'x' }), undefined, 'an object without a fill\'s fields');
  assert.equal(readStoredOrder(42), undefined);
});

test('a balance log reads back in order, collateral (-1) included; arrays older versions stored read as they are', () => {
  const changes: BalanceChange[] = [[ADDRESS(1), -1, -1, 900, 100], [ADDRESS(2), 4_999, 1, 2 ** 50, 0], [ADDRESS(1), -1, -1, 850, 150]];
  const log = new BalanceLog();
  assert.deepEqual(readBalanceChanges(Buffer.from(log.value())), [], 'an empty log');
  for (const change of changes) log.add(...change);
  assert.equal(log.count, 3);
  assert.deepEqual(readBalanceChanges(Buffer.from(log.value())), changes);
  assert.deepEqual(readBalanceChanges(changes), changes);
  assert.equal(readBalanceChanges(Buffer.concat([log.value(), Buffer.from([1])])), undefined);
  assert.equal(readBalanceChanges('x'), undefined);
});

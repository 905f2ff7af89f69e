// Finished orders on real LMDB, appended in commit order and found by id through the index in
// memory: found once their commit is in, not before and not after an abort; found again after a
// reopen (the index is rebuilt from the table); an id stored twice reads as its newest copy; the
// id-keyed table an older version wrote is moved over when the store opens. And the bucket probe
// the index relies on tells apart ids whose hashes are equal.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { test } from 'node:test';
import { withTemporaryDir } from '../../support/temporary_dir.js';
import { open } from 'lmdb';
import { openDurable } from '../../../engine/durable_env.js';
import { IdBuckets } from '../../../engine/orders/id_buckets.js';
import { CancelReason, OrderStatus } from '../../../engine/orders/order_status.js';
import type { OrderView } from '../../../engine/state/reads.js';
import { StoredWriter } from '../../../engine/shard/stored_codec.js';
import { StoredOrders } from '../../../engine/shard/stored_orders.js';

const ORDER_ID = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

function order(n: number, matchedMicros = 0): OrderView {
  return {
    orderId: ORDER_ID(n), owner: `0x${(n % 7).toString(16).padStart(40, '0')}`, market: n % 3, outcome: n % 2, side: (n >> 1) % 2,
    orderType: 0, priceUnits: 100 + n, originalMicros: 5_000_000, matchedMicros, remainingMicros: 0,
    status: matchedMicros === 5_000_000 ? OrderStatus.MATCHED : OrderStatus.CANCELED, cancelReason: CancelReason.NONE,
    createdAtMs: 1_700_000_000_000 + n, expirationMs: 0, updatedAtMs: 1_700_000_000_500 + n,
  };
}

function mapOf(views: readonly OrderView[]): Map<string, OrderView> {
  return new Map(views.map((view) => [view.orderId, view]));
}

test('finished orders are found by id once their commit is in, and again after a reopen', () => withTemporaryDir(async (dir) => {
  let root = openDurable(dir, 4);
  let stored = new StoredOrders(root);
  const first = Array.from({ length: 500 }, (_, n) => order(n));
  root.transactionSync(() => stored.write(mapOf(first)));
  assert.equal(stored.has(first[0]!.orderId), false, 'not indexed before committed()');
  stored.committed();
  for (const view of first) assert.deepEqual(stored.get(view.orderId), view);
  assert.equal(stored.has(ORDER_ID(500)), false);
  assert.equal(stored.get(ORDER_ID(10_000)), undefined);

  // An aborted transaction leaves neither its orders nor a gap in the numbering.
  assert.throws(() => root.transactionSync(() => {
    stored.write(mapOf([order(900)]));
    throw new Error('abort');
  }), /abort/);
  stored.aborted();
  assert.equal(stored.has(ORDER_ID(900)), false);

  // The same id finished again (a replaced record) reads as its newest copy.
  const again = order(7, 5_000_000);
  root.transactionSync(() => stored.write(mapOf([again, order(501)])));
  stored.committed();
  assert.deepEqual(stored.get(again.orderId), again);
  assert.deepEqual(stored.all().map((view) => view.orderId), [...first, again, order(501)].map((view) => view.orderId), 'appended in commit order, n without gaps');
  await root.close();

  root = openDurable(dir, 4);
  stored = new StoredOrders(root);
  for (const view of first.slice(8)) assert.deepEqual(stored.get(view.orderId), view, 'the index is rebuilt from the table');
  assert.deepEqual(stored.get(again.orderId), again, 'and keeps the newest copy');
  assert.equal(stored.has(ORDER_ID(900)), false);
  root.transactionSync(() => stored.write(mapOf([order(502)])));
  stored.committed();
  assert.equal(stored.all().at(-1)?.orderId, ORDER_ID(502), 'numbering goes on after the newest');
  assert.equal(stored.all().length, 503);
  await root.close();
}));

test('the id-keyed orders table of an older version is moved over when the store opens', () => withTemporaryDir(async (dir) => {
  mkdirSync(dir, { recursive: true });
  const old = open({ path: dir, encoding: 'msgpack', compression: false, maxDbs: 4 });
  const legacy = old.openDB<unknown, string>({ name: 'orders', encoding: 'msgpack' });
  const writer = new StoredWriter();
  const binary = Array.from({ length: 25_000 }, (_, n) => order(n));
  const objects = [order(30_000), order(30_001)];
  old.transactionSync(() => {
    for (const view of binary) legacy.putSync(view.orderId, writer.order(view));
    for (const view of objects) legacy.putSync(view.orderId, view);
  });
  await old.close();

  const root = openDurable(dir, 4);
  const stored = new StoredOrders(root);
  for (const view of [...binary, ...objects]) assert.deepEqual(stored.get(view.orderId), view);
  assert.equal(stored.all().length, binary.length + objects.length, 'each order once');
  const leftOver = root.openDB<unknown, string>({ name: 'orders', encoding: 'msgpack' });
  assert.equal([...leftOver.getKeys()].length, 0, 'the old table is emptied');
  await root.close();
}));

test('a bucket probe compares only where the hash matches, and tells apart ids of one hash', () => {
  const buckets = new IdBuckets(64);
  const keys = ['a', 'b', 'c'];
  for (let value = 0; value < keys.length; value++) {
    buckets.reserveOne();
    buckets.insert(12_345, value);
  }
  const asked: number[] = [];
  const probe = (key: string): number => buckets.findMatch(12_345, (value) => {
    asked.push(value);
    return keys[value] === key;
  });
  assert.equal(buckets.valueAt(probe('c')), 2);
  assert.deepEqual(asked, [0, 1, 2]);
  assert.equal(probe('d'), -1);
  assert.equal(buckets.findMatch(54_321, () => assert.fail('no stored hash matches')), -1);
  buckets.setValueAt(probe('b'), 9);
  keys[9] = 'b';
  assert.equal(buckets.valueAt(probe('b')), 9);
});

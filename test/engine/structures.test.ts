// The engine's small data structures against obvious models: the level bitmap, the order-id
// indexes, the pair table, the expiry heap, the dirty list's sort, the fee formula and the event
// buffer's growth.
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { Command, CommandKind, OrderType, makeCommand, type CommandInit } from '../../engine/command.js';
import { Engine } from '../../engine/engine.js';
import { DirtyList } from '../../engine/events/dirty_list.js';
import { eventsToObjects } from '../../engine/events/event_objects.js';
import { EventBuffer, Field, FillKind } from '../../engine/events/events.js';
import { ExpiryHeap } from '../../engine/orders/expiry_heap.js';
import { takerFeeMicros } from '../../engine/ledger/fee.js';
import { FinishedIndex } from '../../engine/orders/finished_index.js';
import { ID_WORDS, NO_ID_WORDS, parseIdWords } from '../../engine/orders/id_words.js';
import { SIZE_MICROS_PER_LOT as LOT } from '../../engine/constants.js';
import { hashOrderId, idKey, IdBuckets } from '../../engine/orders/id_buckets.js';
import { LiveIndex } from '../../engine/orders/live_index.js';
import { OrderHistory } from '../../engine/orders/order_history.js';
import { OrderTable } from '../../engine/orders/orders.js';
import { LevelBitmap } from '../../engine/market/level_bitmap.js';
import { PairTable } from '../../engine/ledger/pair_table.js';
import { Prng } from './prng.js';

suite('structures', () => {
  test('the level bitmap finds the next set bit above and below like a scan does', () => {
    const prng = new Prng(3);
    for (const size of [1, 31, 32, 33, 1024, 10_001, 40_000]) {
      const bitmap = new LevelBitmap(size);
      const model = new Uint8Array(size);
      for (let step = 0; step < 3000; step += 1) {
        const bit = prng.below(size);
        if (prng.chance(0.6)) { bitmap.set(bit); model[bit] = 1; } else { bitmap.clear(bit); model[bit] = 0; }
        const from = prng.between(-2, size + 1);
        let above = -1;
        for (let i = Math.max(0, from); i < size; i += 1) if (model[i] === 1) { above = i; break; }
        let below = -1;
        for (let i = Math.min(size - 1, from); i >= 0; i -= 1) if (model[i] === 1) { below = i; break; }
        assert.equal(bitmap.nextAtOrAbove(from), above);
        assert.equal(bitmap.prevAtOrBelow(from), below);
      }
    }
  });

  test('the id buckets behave like a Map through inserts, growth and back-shifting deletes', () => {
    const prng = new Prng(5);
    const buckets = new IdBuckets(600);
    const model = new Map<number, number>();
    for (let step = 0; step < 60_000; step += 1) {
      // Few distinct hashes, so long probe chains, collisions and wrap-around all happen.
      const key = prng.below(900);
      const hash = key % 7 === 0 ? 5 : hashOrderId(String(key), 3);
      const value = key;
      if (!model.has(key) && model.size < 600) {
        buckets.reserveOne();
        buckets.insert(hash, value);
        model.set(key, hash);
      } else if (model.has(key)) {
        buckets.deleteAt(buckets.find(hash, value));
        model.delete(key);
      }
      assert.equal(buckets.entries, model.size);
    }
    for (const [key, hash] of model) assert.equal(buckets.valueAt(buckets.find(hash, key)), key);
    assert.ok(buckets.buckets() <= buckets.bucketsMax && buckets.bucketsMax === 2048);
  });

  test('the id buckets grow a few old buckets per insert: every entry is found once, through deletes and value changes while the old array drains', () => {
    const prng = new Prng(11);
    const buckets = new IdBuckets(20_000);
    // key → [hash, value]; values are unique, and keyOf maps each back to its key.
    const model = new Map<number, [number, number]>();
    const keyOf = new Map<number, number>();
    // The keys present, for picking one at random (swap-removed).
    const present: number[] = [];
    const at = new Map<number, number>();
    const forget = (key: number): void => {
      const index = at.get(key)!;
      const last = present.pop()!;
      if (last !== key) {
        present[index] = last;
        at.set(last, index);
      }
      at.delete(key);
    };
    // Deleted keys (with their hashes) must stay gone, whichever array held them.
    const deleted: [number, number][] = [];
    let nextValue = 1;
    let nextKey = 0;
    const findKey = (key: number, hash: number): number => buckets.findMatch(hash, (value) => keyOf.get(value) === key);
    for (let step = 0; step < 120_000; step += 1) {
      const roll = prng.below(100);
      if (roll < 60 && model.size < 20_000) {
        const key = nextKey++;
        // One key in eight shares a hash, so long chains cross the old array's drained part.
        const hash = key % 8 === 0 ? 77 : hashOrderId(String(key), 1);
        const value = nextValue++;
        buckets.reserveOne();
        buckets.insert(hash, value);
        model.set(key, [hash, value]);
        keyOf.set(value, key);
        at.set(key, present.length);
        present.push(key);
      } else if (roll < 85 && present.length > 0) {
        const key = prng.pick(present);
        const [hash, value] = model.get(key)!;
        const ref = buckets.find(hash, value);
        assert.ok(buckets.holds(ref, hash, value), 'the bucket found holds the entry');
        buckets.deleteAt(ref);
        assert.ok(!buckets.holds(ref, hash, value), 'a deleted entry is held nowhere');
        model.delete(key);
        keyOf.delete(value);
        forget(key);
        // keyOf no longer maps the value, so compare against the deleted key's value itself.
        assert.equal(buckets.findMatch(hash, (stored) => stored === value), -1, `key ${key} is gone at once`);
        deleted.push([key, value]);
      } else if (roll < 95 && present.length > 0) {
        const key = prng.pick(present);
        const [hash, value] = model.get(key)!;
        const ref = findKey(key, hash);
        assert.equal(buckets.valueAt(ref), value);
        const renewed = nextValue++;
        buckets.setValueAt(ref, renewed);
        model.set(key, [hash, renewed]);
        keyOf.delete(value);
        keyOf.set(renewed, key);
      } else {
        assert.equal(findKey(nextKey + 1, hashOrderId(String(nextKey + 1), 1)), -1, 'a key never inserted is not found');
        if (deleted.length > 0) {
          const [key, value] = prng.pick(deleted);
          const hash = key % 8 === 0 ? 77 : hashOrderId(String(key), 1);
          assert.equal(buckets.findMatch(hash, (stored) => stored === value), -1, `deleted key ${key} stays gone`);
        }
      }
      assert.equal(buckets.entries, model.size);
      if (step % 2_000 === 0 || step === 119_999) {
        for (const [key, [hash, value]] of model) {
          assert.equal(buckets.valueAt(findKey(key, hash)), value, `step ${step}: key ${key}`);
          assert.equal(buckets.valueAt(buckets.find(hash, value)), value);
        }
        for (const [key, value] of deleted) {
          const hash = key % 8 === 0 ? 77 : hashOrderId(String(key), 1);
          assert.equal(buckets.findMatch(hash, (stored) => stored === value), -1, `step ${step}: deleted key ${key} stays gone`);
        }
      }
    }
    assert.ok(buckets.buckets() >= 16_384, `the array doubled several times: ${buckets.buckets()} buckets`);
  });

  test('a reference into the old array holds nothing once that array has drained', () => {
    const buckets = new IdBuckets(4096);
    const hashOf = (value: number): number => hashOrderId(`id-${value}`, 3);
    const insert = (value: number): void => {
      buckets.reserveOne();
      buckets.insert(hashOf(value), value);
    };
    let value = 0;
    while (buckets.buckets() === 1024) insert(value++);
    // Grown just now: the entries inserted first still sit in the old array.
    const ref = buckets.find(hashOf(0), 0);
    assert.ok(ref >= 0x40000000, 'entry 0 is found in the old array');
    assert.ok(buckets.holds(ref, hashOf(0), 0));
    for (let more = 0; more < 300; more += 1) insert(value++);
    assert.ok(!buckets.holds(ref, hashOf(0), 0), 'the stale reference holds nothing');
    assert.ok(buckets.find(hashOf(0), 0) < 0x40000000, 'entry 0 moved to the current array');
  });

  test('the live index finds exactly the resting ids, through collisions and removals', () => {
    const prng = new Prng(6);
    const orders = new OrderTable(400);
    const index = new LiveIndex(orders);
    const model = new Map<string, number>();
    const hashOf = (id: string): number => (id.length % 3 === 0 ? 17 : hashOrderId(id, 0));
    for (let step = 0; step < 40_000; step += 1) {
      const id = `0x${prng.below(700).toString(16)}`;
      // A third of the ids share one hash, so probes must compare the ids themselves.
      const hash = hashOf(id);
      const slot = model.get(id);
      // A removal usually follows a find of its own order (a cancel); sometimes another order's
      // (a filled maker), so the bucket the index remembers is stale and it must probe.
      if (prng.below(3) === 0 && model.size > 0) {
        const other = prng.pick([...model.keys()]);
        assert.equal(index.find(other, hashOf(other)), model.get(other));
      } else {
        assert.equal(index.find(id, hash), slot ?? -1);
      }
      if (slot === undefined && orders.hasFreeSlot()) {
        const fresh = orders.allocate(id, hash, NO_ID_WORDS, -1, 0, 0, 0, 0, 0, 0, 100, LOT, LOT, step);
        index.add(hash, fresh);
        model.set(id, fresh);
      } else if (slot !== undefined) {
        index.remove(hash, slot);
        orders.release(slot);
        model.delete(id);
      }
      assert.equal(index.size(), model.size);
    }
  });

  test("a reused slot keeps no earlier order's id words, and the record keeps what it was given", () => {
    const orders = new OrderTable(4);
    const words = new Float64Array(ID_WORDS);
    const first = `0x${'0123456789abcdef'.repeat(4)}`;
    assert.ok(parseIdWords(first, words, 0));
    const slot = orders.allocate(first, 5, words, 0, 3, 4, 1, 1, 0, OrderType.GTD, 4200, 7 * LOT, 2 * LOT, 9);
    orders.setCreatedAt(slot, 1_700_000_000_123);
    orders.setExpiration(slot, 1_800_000_000_000);
    assert.ok(orders.hasIdWords(slot));
    assert.ok(orders.idMatches(slot, first, words, 0));
    assert.deepEqual(
      [orders.idHashOf(slot), orders.accountOf(slot), orders.positionOf(slot), orders.marketOf(slot), orders.outcomeOf(slot),
        orders.sideOf(slot), orders.orderTypeOf(slot), orders.levelOf(slot), orders.originalOf(slot), orders.remainingOf(slot),
        orders.serialOf(slot), orders.createdAtOf(slot), orders.expirationOf(slot)],
      [5, 3, 4, 1, 1, 0, OrderType.GTD, 4200, 7 * LOT, 2 * LOT, 9, 1_700_000_000_123, 1_800_000_000_000],
    );
    orders.release(slot);
    // The next order takes the freed slot: an id without words (the same text in capitals), a
    // GTC, so no expiration. The first id's words must not find it, whatever the index says.
    const second = first.toUpperCase();
    const reused = orders.allocate(second, 5, NO_ID_WORDS, -1, 3, 4, 1, 1, 0, OrderType.GTC, 4200, LOT, LOT, 10);
    assert.equal(reused, slot);
    assert.ok(!orders.hasIdWords(reused));
    assert.ok(!orders.idMatches(reused, first, words, 0));
    assert.ok(orders.idMatches(reused, second, words, -1));
    assert.equal(orders.expirationOf(reused), 0);
  });

  test('sizes that are not whole lots round-trip, from one micro to the largest, and a reused slot forgets them', () => {
    const orders = new OrderTable(2);
    const sizes = [1, LOT - 1, LOT + 1, 9_803_900, 10_000_000 * 1_000_000 - 1, 10_000_000 * 1_000_000];
    for (const original of sizes) {
      const slot = orders.allocate('a', 1, NO_ID_WORDS, -1, 0, 0, 0, 0, 0, OrderType.GTC, 100, original, original, 1);
      assert.deepEqual([orders.originalOf(slot), orders.remainingOf(slot)], [original, original]);
      // A fill can leave whole lots of a finer size, and a finer remainder of whole lots.
      for (const remaining of [original - 1, LOT, 3 * LOT + 7, 1].filter((size) => size > 0 && size <= original)) {
        orders.setRemaining(slot, remaining);
        assert.deepEqual([orders.originalOf(slot), orders.remainingOf(slot)], [original, remaining]);
      }
      orders.release(slot);
      const reused = orders.allocate('b', 2, NO_ID_WORDS, -1, 0, 0, 0, 0, 0, OrderType.GTC, 100, 2 * LOT, LOT, 2);
      assert.deepEqual([orders.originalOf(reused), orders.remainingOf(reused)], [2 * LOT, LOT]);
      orders.release(reused);
    }
  });

  test('the finished index finds exactly the ids the history ring still holds', () => {
    for (const capacity of [1, 5, 64, 1000]) {
      const prng = new Prng(7 + capacity);
      const history = new OrderHistory(capacity);
      const index = new FinishedIndex(history);
      const window: string[] = [];
      for (let step = 0; step < 30_000; step += 1) {
        // Ids come back after being forgotten; a fifth share one hash to force collisions.
        const id = `0x${prng.below(3 * capacity + 5).toString(16)}`;
        const hash = id.length % 5 === 0 ? 9 : hashOrderId(id, 1);
        const entry = index.find(id, hash);
        if (window.includes(id)) {
          assert.equal(history.id[entry], id);
          continue;
        }
        assert.equal(entry, -1, `step ${step}: ${id} was forgotten`);
        if (history.isFull()) {
          history.dropOldest();
          window.shift();
        }
        const fresh = history.append();
        history.id[fresh] = id;
        history.idHash[fresh] = hash;
        index.add(hash, fresh);
        window.push(id);
        // Forgotten ids stay indexed (stale) until the index is rebuilt at twice the capacity.
        assert.ok(index.size() >= window.length && index.size() <= 2 * capacity, `step ${step}: ${index.size()} indexed`);
      }
    }
  });

  test('the pair table behaves like a Map and keeps working as it grows', () => {
    const prng = new Prng(9);
    const table = new PairTable(4);
    const model = new Map<string, number>();
    for (let step = 0; step < 30_000; step += 1) {
      const a = prng.below(300);
      const b = prng.below(20);
      const key = `${a}:${b}`;
      assert.equal(table.get(a, b), model.get(key) ?? -1);
      if (!model.has(key)) { table.insert(a, b, step); model.set(key, step); } else if (prng.chance(0.4)) { table.delete(a, b); model.delete(key); }
    }
    assert.equal(table.size(), model.size);
  });

  test('the expiry heap pops by (expiration, serial) and compacts stale entries when full', () => {
    const prng = new Prng(13);
    const live = new Map<number, number>();
    const heap = new ExpiryHeap(64);
    const isLive = (slot: number, serial: number): boolean => live.get(slot) === serial;
    let serial = 0;
    for (let step = 0; step < 5000; step += 1) {
      const slot = prng.below(40);
      if (live.has(slot) && prng.chance(0.5)) { live.delete(slot); continue; }
      if (live.has(slot)) continue;
      serial += 1;
      live.set(slot, serial);
      heap.push(prng.between(0, 50), serial, slot, isLive);
    }
    const popped: [number, number][] = [];
    while (heap.size() > 0) {
      if (isLive(heap.peekSlot(), heap.peekSerial())) popped.push([heap.peekExpiration(), heap.peekSerial()]);
      heap.pop();
    }
    const sorted = [...popped].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    assert.deepEqual(popped, sorted);
    assert.equal(popped.length, live.size);
  });

  test('the dirty list keeps its items in the order they were added, each with its reference and start values', () => {
    const prng = new Prng(17);
    const list = new DirtyList(2);
    for (const count of [0, 1, 2, 7, 3000]) {
      const items = Array.from({ length: count }, () => [prng.below(1 << 22), prng.below(1 << 14)] as const);
      for (const [first, second] of items) {
        const item = list.add(first, second, first % 1000 + second);
        list.startsA[item] = first * 2;
        list.startsB[item] = second * 2;
      }
      assert.equal(list.length, count);
      items.forEach(([first, second], index) => {
        assert.deepEqual(
          [list.firsts[index], list.seconds[index], list.refs[index], list.startsA[index], list.startsB[index]],
          [first, second, first % 1000 + second, first * 2, second * 2],
        );
      });
      list.clear();
      assert.equal(list.length, 0);
    }
  });

  test('the fee is floor(notional × bps / 10 000), exact up to the largest notional', () => {
    const prng = new Prng(19);
    for (let step = 0; step < 20_000; step += 1) {
      const notional = step < 10 ? 9_999 * 1_000_000_000 - step : prng.below(2 ** 31) * prng.below(4096);
      const bps = prng.below(1001);
      assert.equal(takerFeeMicros(notional, bps), Number((BigInt(notional) * BigInt(bps)) / 10_000n));
    }
  });

  /** A verify-mode engine with a market and a funded account '0xa'; runs a command, returns its event kinds. */
  function fundedEngine(): (command: Command) => string[] {
    const engine = new Engine({ operatorAddress: '0xoperator', verify: true });
    const execute = (command: Command): string[] => {
      engine.execute(command);
      const kinds = eventsToObjects(engine.events).map((event) => event.kind);
      engine.events.clear();
      return kinds;
    };
    execute(makeCommand({ seq: 1, timeMs: 1_000, kind: CommandKind.AddMarket, market: 0, tickUnits: 100, minSizeMicros: 1_000_000 }));
    execute(makeCommand({ seq: 1, timeMs: 1_000, kind: CommandKind.Deposit, account: '0xa', amountMicros: 100_000_000 }));
    return execute;
  }
  const place = { kind: CommandKind.PlaceOrder, account: '0xa', market: 0, priceUnits: 4000, sizeMicros: 5_000_000 } as const;

  test("a command's id key is used while it is its id's, ignored when left from another id, and checked in verify mode", () => {
    const execute = fundedEngine();
    const run = (init: CommandInit): string[] => execute(makeCommand({ seq: 1, timeMs: 1_000, ...init }));
    // Keyed as a decoded frame keys it.
    assert.ok(run({ ...place, orderId: 'first', orderIdKey: idKey('first'), orderIdKeyed: 'first' }).includes('ORDER_ACCEPTED'));
    // A key left from the previous id: the engine hashes the new id itself, so it finds it later.
    assert.ok(run({ ...place, orderId: 'second', orderIdKey: idKey('first'), orderIdKeyed: 'first' }).includes('ORDER_ACCEPTED'));
    assert.deepEqual(run({ ...place, orderId: 'second' }), ['ORDER_REJECTED']);
    assert.ok(run({ kind: CommandKind.CancelOrder, account: '0xa', orderId: 'second', orderIdKey: idKey('second'), orderIdKeyed: 'second' }).includes('ORDER_CANCELLED'));
    // The same text in another string object is the same id, with the same key.
    const copy = Buffer.from('first', 'latin1').toString('latin1');
    assert.ok(run({ kind: CommandKind.CancelOrder, account: '0xa', orderId: 'first', orderIdKey: idKey(copy), orderIdKeyed: copy }).includes('ORDER_CANCELLED'));
    // A carried key that is not its id's would misfile the order: verify mode refuses it.
    assert.throws(() => run({ ...place, orderId: 'third', orderIdKey: idKey('third') ^ 1, orderIdKeyed: 'third' }), /carries its id's key/);
  });

  test("a cancel's id words decide where both sides have them; the strings decide otherwise", () => {
    const execute = fundedEngine();
    const run = (init: CommandInit, withWords = true): string[] => {
      const command = makeCommand({ seq: 1, timeMs: 1_000, ...init });
      command.orderIdKey = idKey(command.orderId);
      command.orderIdKeyed = command.orderId;
      if (withWords && parseIdWords(command.orderId, command.orderIdWords, 0)) command.orderIdWordsAt = 0;
      return execute(command);
    };
    const cancel = (orderId: string, withWords = true): string[] =>
      run({ kind: CommandKind.CancelOrder, account: '0xa', orderId }, withWords);
    // Ids that share their last eight digits share their key, so their hashes meet in one bucket
    // and only the words (or the strings) tell them apart.
    const tail = '89abcdef';
    const id = (lead: string): string => `0x${lead.repeat(56)}${tail}`;
    assert.equal(idKey(id('1')), idKey(id('2')));
    assert.ok(run({ ...place, orderId: id('1') }).includes('ORDER_ACCEPTED'));
    assert.deepEqual(cancel(id('2')), ['CANCEL_REJECTED']);
    assert.deepEqual(cancel(id('2'), false), ['CANCEL_REJECTED']);
    // The same bytes in capitals are another id, with no words: compared as strings, not found.
    assert.deepEqual(cancel(`0x${id('1').slice(2).toUpperCase()}`), ['CANCEL_REJECTED']);
    assert.ok(cancel(id('1')).includes('ORDER_CANCELLED'));
    // Placed without words, cancelled with them: the strings decide.
    assert.ok(run({ ...place, orderId: id('3') }, false).includes('ORDER_ACCEPTED'));
    assert.deepEqual(cancel(id('4')), ['CANCEL_REJECTED']);
    assert.ok(cancel(id('3')).includes('ORDER_CANCELLED'));
    // Placed with words, cancelled without: the strings again.
    assert.ok(run({ ...place, orderId: id('5') }).includes('ORDER_ACCEPTED'));
    assert.ok(cancel(Buffer.from(id('5'), 'latin1').toString('latin1'), false).includes('ORDER_CANCELLED'));
    // Words that are not the id's would find the wrong order: verify mode refuses them.
    assert.ok(run({ ...place, orderId: id('6') }).includes('ORDER_ACCEPTED'));
    const wrong = makeCommand({ seq: 1, timeMs: 1_000, kind: CommandKind.CancelOrder, account: '0xa', orderId: id('6') });
    wrong.orderIdKey = idKey(wrong.orderId);
    wrong.orderIdKeyed = wrong.orderId;
    assert.ok(parseIdWords(id('7'), wrong.orderIdWords, 0));
    wrong.orderIdWordsAt = 0;
    assert.throws(() => execute(wrong), /carries its id's words/);
  });

  test('the event buffer grows by doubling and keeps every row', () => {
    const buffer = new EventBuffer(2);
    for (let index = 0; index < 100; index += 1) {
      buffer.seqCurrent = index;
      buffer.pushFill(index, `t${index}`, 'taker', 1, 0, 0, 4000, 10_000, 1, FillKind.MINT, `m${index}`, 'maker', 1, 0, 6000);
    }
    assert.equal(buffer.count, 100);
    assert.ok(buffer.capacity() >= 100);
    const events = eventsToObjects(buffer);
    assert.equal(events[99]?.kind, 'FILL');
    assert.deepEqual(events[57], {
      kind: 'FILL', seq: 57, fillIndex: 57, market: 1, takerOrderId: 't57', takerAccount: 'taker', takerOutcome: 0,
      takerSide: 0, takerPriceUnits: 4000, makerOrderId: 'm57', makerAccount: 'maker', makerOutcome: 1, makerSide: 0,
      makerPriceUnits: 6000, sizeMicros: 10_000, takerFeeMicros: 1, fillKind: FillKind.MINT,
    });
    buffer.clear();
    assert.equal(buffer.count, 0);
    buffer.setNumber(buffer.pushLevel(2, 1, 5000), Field.sizeMicros, 7);
    assert.deepEqual(eventsToObjects(buffer), [{ kind: 'LEVEL', seq: 99, market: 2, side: 1, priceUnits: 5000, sizeMicros: 7 }]);
  });
});

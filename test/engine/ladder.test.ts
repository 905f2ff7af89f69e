// The generic price ladder on its own: FIFO within a level, removal from anywhere, best-price
// tracking through emptied levels, and a plain limit-order-book workload on a ladder with a
// different number of levels, checked against arrays sorted the obvious way.
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { Ladder, NIL, type SlotLinks } from '../../engine/market/ladder.js';
import { Prng } from './prng.js';

/** Links in a plain array of (next, prev) pairs, as a simple book would keep them. */
function links(slots: number): SlotLinks {
  return { words: new Int32Array(2 * slots).fill(NIL), stride: 2, nextOffset: 0, prevOffset: 1 };
}

function fifo(ladder: Ladder, level: number): number[] {
  const slots: number[] = [];
  for (let slot = ladder.head(level); slot !== NIL; slot = ladder.after(slot)) slots.push(slot);
  return slots;
}

suite('ladder', () => {
  test('keeps each level FIFO and removes from the head, middle and tail', () => {
    const ladder = new Ladder(100, true, links(10));
    for (const slot of [0, 1, 2, 3]) ladder.append(50, slot, 10);
    ladder.remove(50, 1, 10);
    ladder.remove(50, 3, 10);
    ladder.remove(50, 0, 10);
    ladder.append(50, 4, 5);
    assert.deepEqual(fifo(ladder, 50), [2, 4]);
    assert.equal(ladder.sizeAt(50), 15);
    assert.equal(ladder.countAt(50), 2);
    ladder.verify((slot) => (slot === 2 ? 10 : 5));
  });

  test('tracks the best level for bids (highest) and asks (lowest) as levels empty', () => {
    const bids = new Ladder(100, true, links(10));
    const asks = new Ladder(100, false, links(10));
    bids.append(10, 0, 1);
    bids.append(70, 1, 1);
    bids.append(40, 2, 1);
    asks.append(90, 3, 1);
    asks.append(20, 4, 1);
    assert.equal(bids.best(), 70);
    assert.equal(asks.best(), 20);
    bids.remove(70, 1, 1);
    asks.remove(20, 4, 1);
    assert.deepEqual([bids.best(), asks.best()], [40, 90]);
    assert.deepEqual([bids.worseThan(40), bids.worseThan(10), asks.worseThan(90)], [10, NIL, NIL]);
    bids.remove(40, 2, 1);
    bids.remove(10, 0, 1);
    assert.equal(bids.best(), NIL);
  });

  test('runs a plain limit-order book with a million levels against a sorted reference', () => {
    const levels = 1 << 20;
    const slots = 2000;
    const prng = new Prng(11);
    const ladder = new Ladder(levels, false, links(slots));
    const resting = new Map<number, { level: number; size: number; serial: number }>();
    let serial = 0;
    for (let step = 0; step < 20_000; step += 1) {
      const slot = prng.below(slots);
      const order = resting.get(slot);
      if (order === undefined) {
        const level = prng.chance(0.5) ? prng.below(levels) : 500_000 + prng.below(50);
        const size = prng.between(1, 100);
        ladder.append(level, slot, size);
        resting.set(slot, { level, size, serial: serial++ });
      } else {
        ladder.remove(order.level, slot, order.size);
        resting.delete(slot);
      }
      if (step % 1000 === 0) ladder.verify((s) => resting.get(s)!.size);
      // The best order is the one at the lowest level, oldest first there.
      let best: [number, { level: number; serial: number }] | undefined;
      for (const entry of resting) {
        if (best === undefined || entry[1].level < best[1].level || (entry[1].level === best[1].level && entry[1].serial < best[1].serial)) best = entry;
      }
      assert.equal(ladder.best(), best?.[1].level ?? NIL);
      if (best !== undefined) assert.equal(ladder.head(ladder.best()), best[0]);
    }
  });
});

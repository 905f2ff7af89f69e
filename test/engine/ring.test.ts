// The shared-memory ring: frames survive wrap-around intact and in order, a full ring refuses
// at once, many producers lose and duplicate nothing, and a sleeping consumer wakes (for a frame,
// or when told its producer stopped).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { Ring, type RingLayout } from '../../engine/ring.js';

const producerPath = new URL('./ring_producer.js', import.meta.url);

function frame(index: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let at = 0; at < length; at++) bytes[at] = (index * 31 + at) & 0xff;
  return bytes;
}

test('frames of every size come out intact and in order across many wrap-arounds', () => {
  const layout: RingLayout = { slotCount: 64, slotBytes: 32 };
  const ring = new Ring(Ring.allocate(layout), layout);
  let written = 0;
  let read = 0;
  const total = 50_000;
  const lengthOf = (index: number) => (index * 7919) % (ring.frameBytesMax + 1);
  while (read < total) {
    while (written < total && ring.write(frame(written, lengthOf(written)))) written++;
    const out = ring.read();
    assert.ok(out !== undefined, 'a ring that refused a write must hold a frame');
    assert.deepEqual(out, frame(read, lengthOf(read)));
    read++;
  }
  assert.equal(ring.read(), undefined);
  assert.equal(ring.depthSlots(), 0);
});

test('positions keep working when the 32-bit counters wrap', () => {
  const layout: RingLayout = { slotCount: 8, slotBytes: 16 };
  const buffer = Ring.allocate(layout);
  // Start every counter just below 2^31 as if billions of frames had passed.
  const start = 2 ** 31 - 20;
  const control = new Int32Array(buffer, 0, 4);
  control[0] = start;
  control[1] = start;
  const sequence = new Int32Array(buffer, 16, 8);
  for (let slot = 0; slot < 8; slot++) {
    let position = start;
    while ((position & 7) !== slot) position++;
    sequence[slot] = position | 0;
  }
  const ring = new Ring(buffer, layout);
  for (let index = 0; index < 200; index++) {
    assert.ok(ring.write(frame(index, index % 30)));
    assert.deepEqual(ring.read(), frame(index, index % 30));
  }
});

test('a full ring refuses the write at once and accepts again after a read', () => {
  const layout: RingLayout = { slotCount: 16, slotBytes: 16 };
  const ring = new Ring(Ring.allocate(layout), layout);
  let accepted = 0;
  while (ring.write(frame(accepted, 12))) accepted++;
  assert.equal(accepted, 16, 'one 12-byte frame per 16-byte slot');
  assert.equal(ring.depthSlots(), 16);
  assert.equal(ring.write(frame(99, 1)), false);
  assert.deepEqual(ring.read(), frame(0, 12));
  assert.equal(ring.write(frame(16, 12)), true);
  assert.equal(ring.write(frame(17, 12)), false);
});

test('a frame larger than half the ring is a programmer error', () => {
  const layout: RingLayout = { slotCount: 16, slotBytes: 16 };
  const ring = new Ring(Ring.allocate(layout), layout);
  assert.throws(() => ring.claim(ring.frameBytesMax + 1), /exceeds/);
  assert.throws(() => Ring.allocate({ slotCount: 12, slotBytes: 16 }), /power of two/);
});

test('many producers on other threads: every frame arrives once, each producer in order', async () => {
  const layout: RingLayout = { slotCount: 256, slotBytes: 64 };
  const buffer = Ring.allocate(layout);
  const ring = new Ring(buffer, layout);
  const producers = 4;
  const count = 20_000;
  const workers = Array.from({ length: producers }, (_, producer) => new Worker(producerPath, { workerData: { buffer, layout, producer, count } }));
  const done = workers.map((worker) => new Promise<{ fullCount: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  }));
  const next = new Array<number>(producers).fill(0);
  let received = 0;
  while (received < producers * count) {
    const head = ring.peek();
    if (head === undefined) {
      await ring.waitForFrameAsync(50);
      continue;
    }
    const producer = ring.view.getUint32(head.offset, true);
    const index = ring.view.getUint32(head.offset + 4, true);
    assert.equal(index, next[producer], `producer ${producer} out of order`);
    assert.equal(head.length, 8 + ((index * 37 + producer * 11) % 193));
    for (let at = 8; at < head.length; at++) assert.equal(ring.bytes[head.offset + at], producer & 0xff);
    next[producer] = index + 1;
    ring.consume(head);
    received++;
  }
  const reports = await Promise.all(done);
  await Promise.all(workers.map((worker) => worker.terminate()));
  assert.deepEqual(next, new Array<number>(producers).fill(count));
  assert.equal(ring.peek(), undefined);
  assert.ok(reports.some((report) => report.fullCount > 0), 'the ring filled up at least once under contention');
});

/** A worker thread that waits on the ring with `waitForFrame(0, timeoutMs)` and reports. */
function sleeper(buffer: SharedArrayBuffer, layout: RingLayout, timeoutMs: number): { answer: Promise<{ woke: boolean; waitedMs: number }>; worker: Worker } {
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     import(workerData.ringPath).then(({ Ring }) => {
       const ring = new Ring(workerData.buffer, workerData.layout);
       const started = Date.now();
       const woke = ring.waitForFrame(0, workerData.timeoutMs);
       parentPort.postMessage({ woke, waitedMs: Date.now() - started });
     });`,
    { eval: true, workerData: { buffer, layout, timeoutMs, ringPath: new URL('../../engine/ring.js', import.meta.url).href } },
  );
  return { worker, answer: new Promise((resolve) => worker.once('message', resolve)) };
}

test('a consumer sleeping in Atomics.wait wakes when a frame is published', async () => {
  const layout: RingLayout = { slotCount: 8, slotBytes: 16 };
  const buffer = Ring.allocate(layout);
  const ring = new Ring(buffer, layout);
  const { worker, answer } = sleeper(buffer, layout, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(ring.write(frame(1, 5)));
  const { woke, waitedMs } = await answer;
  await worker.terminate();
  assert.equal(woke, true);
  assert.ok(waitedMs < 5000, `woke after ${waitedMs} ms, not at the timeout`);
});

test('a late wake-up meant for an earlier sleep does not end a wait before its timeout', async () => {
  const layout: RingLayout = { slotCount: 8, slotBytes: 16 };
  const buffer = Ring.allocate(layout);
  const { worker, answer } = sleeper(buffer, layout, 400);
  await new Promise((resolve) => setTimeout(resolve, 100));
  // What a producer does when it saw the sleep word set by an earlier wait (ring.ts publish).
  const control = new Int32Array(buffer, 0, 4);
  Atomics.store(control, 2, 0);
  Atomics.notify(control, 2);
  const { woke, waitedMs } = await answer;
  await worker.terminate();
  assert.equal(woke, false, 'no frame was published');
  assert.ok(waitedMs >= 390, `returned after ${waitedMs} ms, before its 400 ms timeout`);
});

test('a consumer waiting asynchronously with no timeout wakes for a frame, and for wakeConsumer without one', async () => {
  const layout: RingLayout = { slotCount: 8, slotBytes: 16 };
  const buffer = Ring.allocate(layout);
  const ring = new Ring(buffer, layout);
  const producer = new Ring(buffer, layout);
  let waiting = ring.waitForFrameAsync(Number.POSITIVE_INFINITY);
  setTimeout(() => producer.write(frame(1, 5)), 20);
  await waiting;
  assert.deepEqual(ring.read(), frame(1, 5));

  waiting = ring.waitForFrameAsync(Number.POSITIVE_INFINITY);
  let woke = false;
  void waiting.then(() => { woke = true; });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(woke, false, 'nothing published, nothing woke it');
  producer.wakeConsumer();
  await waiting;
  assert.equal(ring.peek(), undefined, 'woken without a frame');
});

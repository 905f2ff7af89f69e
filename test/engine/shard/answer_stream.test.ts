// Answers of any size on a result ring: short ones are one frame read in place, long ones go as
// fragments that the reader puts back together, and an answer larger than the whole ring streams
// through it while the reader frees slots. A producer thread writes as a matching worker does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { Ring, type RingLayout } from '../../../engine/ring.js';
import { AnswerAssembler, FRAGMENT_BYTES, isFragment } from '../../../engine/shard/answer_stream.js';

/** 4 MiB of slots (frames up to 2 MiB): an answer of 5 MiB is more than the ring. */
const LAYOUT: RingLayout = { slotCount: 1 << 14, slotBytes: 256 };

function expected(requestId: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  bytes.writeUInt32LE(requestId, 0);
  for (let at = 4; at < length; at++) bytes[at] = (at * 31 + requestId) & 0xff;
  return bytes;
}

test('answers of every size arrive whole and in order, the longest streaming through a ring smaller than itself', async () => {
  const lengths = [12, FRAGMENT_BYTES - 1, FRAGMENT_BYTES, FRAGMENT_BYTES + 1, 40, 5 * FRAGMENT_BYTES + 7, 3 * FRAGMENT_BYTES, 100];
  const buffer = Ring.allocate(LAYOUT);
  const ring = new Ring(buffer, LAYOUT);
  const worker = new Worker(new URL('./answer_producer.js', import.meta.url), { workerData: { buffer, layout: LAYOUT, lengths } });
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  const assembler = new AnswerAssembler();
  const received: Buffer[] = [];
  let fragments = 0;
  const deadline = Date.now() + 30_000;
  while (received.length < lengths.length) {
    assert.ok(Date.now() < deadline, `only ${received.length} answers arrived`);
    const frame = ring.peek();
    if (frame === undefined) {
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    if (isFragment(ring, frame.offset)) {
      fragments++;
      const whole = assembler.add(ring, frame.offset, frame.length);
      ring.consume(frame);
      if (whole !== undefined) received.push(Buffer.from(whole));
    } else {
      assert.ok(!assembler.inProgress(), 'no whole answer inside a long one');
      received.push(Buffer.from(ring.bytes.subarray(frame.offset, frame.offset + frame.length)));
      ring.consume(frame);
    }
  }
  await exited;
  received.forEach((answer, index) => assert.ok(answer.equals(expected(index + 1, lengths[index]!)), `answer ${index + 1} (${lengths[index]} bytes)`));
  const longOnes = lengths.filter((length) => length > FRAGMENT_BYTES);
  assert.equal(fragments, longOnes.reduce((sum, length) => sum + Math.ceil(length / FRAGMENT_BYTES), 0), 'only long answers went in fragments');
});

// Worker body for the answer-stream test: writes answers of the given lengths into a result ring
// with writeAnswer, as a matching worker does (waiting while the ring is full). Each answer starts
// with its request id (index + 1) and is filled with bytes derived from it.
import { workerData } from 'node:worker_threads';
import { Ring, type RingLayout } from '../../../engine/ring.js';
import { writeAnswer } from '../../../engine/shard/answer_stream.js';

interface ProducerData {
  readonly buffer: SharedArrayBuffer;
  readonly layout: RingLayout;
  readonly lengths: readonly number[];
}

const { buffer, layout, lengths } = workerData as ProducerData;
const ring = new Ring(buffer, layout);
const pause = new Int32Array(new SharedArrayBuffer(4));
lengths.forEach((length, index) => {
  const answer = answerBytes(index + 1, length);
  writeAnswer(ring, answer, 0, answer.length, () => Atomics.wait(pause, 0, 0, 0.05));
});

/** The answer of request `requestId`: its id, then bytes that depend on both. */
function answerBytes(requestId: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  bytes.writeUInt32LE(requestId, 0);
  for (let at = 4; at < length; at++) bytes[at] = (at * 31 + requestId) & 0xff;
  return bytes;
}

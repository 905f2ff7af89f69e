// Worker body for the ring tests: writes `count` frames tagged (producer, index) into a ring,
// retrying when it is full, then reports how many writes found the ring full.
import { parentPort, workerData } from 'node:worker_threads';
import { Ring, type RingLayout } from '../../engine/ring.js';

interface ProducerData {
  readonly buffer: SharedArrayBuffer;
  readonly layout: RingLayout;
  readonly producer: number;
  readonly count: number;
}

const { buffer, layout, producer, count } = workerData as ProducerData;
const ring = new Ring(buffer, layout);
let fullCount = 0;
for (let index = 0; index < count; index++) {
  // Frames vary in length (8..200 bytes) so they span one or several slots and force padding.
  const length = 8 + ((index * 37 + producer * 11) % 193);
  for (;;) {
    const claim = ring.claim(length);
    if (claim === undefined) {
      fullCount++;
      continue;
    }
    ring.view.setUint32(claim.offset, producer, true);
    ring.view.setUint32(claim.offset + 4, index, true);
    ring.bytes.fill(producer & 0xff, claim.offset + 8, claim.offset + length);
    ring.publish(claim, length);
    break;
  }
}
parentPort?.postMessage({ fullCount });

// The ring benchmark's other thread. Modes (workerData.mode):
// - 'ring-echo': waits on the request ring (bounded spin, then Atomics.wait) and copies each
//   frame to the reply ring, as a shard answers the front end.
// - 'post-echo': answers each message with the same message, the postMessage baseline.
// - 'ring-drain': decodes command frames from the ring in batches, counting them in `counter`.
// - 'post-drain': decodes the command frames of each posted buffer, counting them likewise.
// A 'stop' message ends the ring modes' loops.
import { parentPort, workerData } from 'node:worker_threads';
import { Command } from '../../engine/command.js';
import { Ring, type RingLayout } from '../../engine/ring.js';
import { decodeFrame, Frame } from '../../engine/shard/frame.js';

export interface EchoWorkerData {
  readonly mode: 'ring-echo' | 'post-echo' | 'ring-drain' | 'post-drain';
  readonly layout: RingLayout;
  readonly requests: SharedArrayBuffer;
  readonly replies: SharedArrayBuffer;
  /** [0]: frames decoded so far (drain modes); notified on every batch. */
  readonly counter: SharedArrayBuffer;
  /** Microseconds each wait polls before sleeping. */
  readonly spinUs: number;
}

/** A posted batch: frames back to back, each [u32 length][frame]. */
export interface PostedBatch {
  readonly bytes: Uint8Array;
}

const data = workerData as EchoWorkerData;
const port = parentPort!;
const counter = new Int32Array(data.counter);
const frame = new Frame(new Command());
let stopping = false;

/** Lets a 'stop' message in between waits. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function ringEcho(): Promise<void> {
  const requests = new Ring(data.requests, data.layout);
  const replies = new Ring(data.replies, data.layout);
  while (!stopping) {
    for (let turn = 0; turn < 10_000 && !stopping; turn++) {
      if (!requests.waitForFrame(data.spinUs, 5)) break;
      const head = requests.peek()!;
      // The main thread reads each reply before its next request, so the reply ring has room.
      const claim = replies.claim(head.length)!;
      replies.bytes.set(requests.bytes.subarray(head.offset, head.offset + head.length), claim.offset);
      replies.publish(claim, head.length);
      requests.consume(head);
    }
    await yieldToEventLoop();
  }
}

async function ringDrain(): Promise<void> {
  const requests = new Ring(data.requests, data.layout);
  while (!stopping) {
    for (let turn = 0; turn < 10_000 && !stopping; turn++) {
      if (!requests.waitForFrame(data.spinUs, 5)) break;
      let decoded = 0;
      for (let head = requests.peek(); head !== undefined; head = requests.peek()) {
        decodeFrame(frame, requests.view, requests.bytes, head.offset, head.length);
        requests.consume(head);
        decoded++;
      }
      Atomics.add(counter, 0, decoded);
      Atomics.notify(counter, 0);
    }
    await yieldToEventLoop();
  }
}

function postDrain(batch: PostedBatch): void {
  const view = new DataView(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength);
  const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength);
  let decoded = 0;
  for (let at = 0; at < batch.bytes.byteLength;) {
    const length = view.getUint32(at, true);
    decodeFrame(frame, view, bytes, at + 4, length);
    at += 4 + length;
    decoded++;
  }
  Atomics.add(counter, 0, decoded);
  Atomics.notify(counter, 0);
}

port.on('message', (message: unknown) => {
  if (message === 'stop') {
    stopping = true;
    if (data.mode.startsWith('post')) port.close();
  } else if (data.mode === 'post-echo') {
    port.postMessage(message);
  } else if (data.mode === 'post-drain') {
    postDrain(message as PostedBatch);
  }
});

if (data.mode === 'ring-echo') await ringEcho();
else if (data.mode === 'ring-drain') await ringDrain();
if (data.mode.startsWith('ring')) port.close();

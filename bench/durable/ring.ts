// The SAB ring against postMessage, both with the same small echo worker:
// - round trip: one command frame there and back, one at a time. The ring side is what the
//   runtime does (write, the other thread polls for a bounded time, then sleeps on
//   Atomics.wait); this thread waits for the reply the same way, which a benchmark may do.
// - batched throughput: real command frames (encodeFrame) written back to back; the worker
//   decodes them (decodeFrame). The baseline posts the same frames in transferred buffers of
//   the same batch size.
import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Command, CommandKind, OrderType, Side } from '../../engine/command.js';
import { Ring, type RingLayout } from '../../engine/ring.js';
import { encodeFrame, Frame, frameLength } from '../../engine/shard/frame.js';
import { COMMAND_LAYOUT, SPIN_US } from '../../engine/shard/protocol.js';
import type { EchoWorkerData, PostedBatch } from './echo_worker.js';
import { makeAccounts } from '../engine/flows.js';

const WAIT_MS = 1000;

export interface RoundTrip {
  readonly name: string;
  readonly p50Us: number;
  readonly p99Us: number;
}

export interface BatchedThroughput {
  readonly name: string;
  readonly framesPerSecond: number;
}

function startWorker(mode: EchoWorkerData['mode'], layout: RingLayout, spinUs: number) {
  const data: EchoWorkerData = {
    mode, layout, spinUs, requests: Ring.allocate(layout), replies: Ring.allocate(layout), counter: new SharedArrayBuffer(4),
  };
  const worker = new Worker(new URL('./echo_worker.js', import.meta.url), { workerData: data });
  const online = new Promise<void>((resolve) => worker.once('online', () => resolve()));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    worker, online, data,
    requests: new Ring(data.requests, layout), replies: new Ring(data.replies, layout), counter: new Int32Array(data.counter),
    async stop(): Promise<void> {
      worker.postMessage('stop');
      await exited;
    },
  };
}

/** Frames of PlaceOrder commands with real-sized addresses and ids, cycled by the writers. */
export function sampleFrames(count: number): Frame[] {
  const accounts = makeAccounts(64);
  return Array.from({ length: count }, (_, index) => {
    const frame = new Frame(new Command());
    Object.assign(frame.command, {
      kind: CommandKind.PlaceOrder, timeMs: 1_800_000_000_000 + index, account: accounts[index % accounts.length]!,
      orderId: `0x${index.toString(16).padStart(64, '0')}`, market: index % 41, outcome: index % 2,
      side: index % 3 === 0 ? Side.Sell : Side.Buy, orderType: OrderType.GTC, priceUnits: 100 * (1 + (index % 99)),
      sizeMicros: 5_000_000 + 10_000 * index,
    });
    frame.requestId = index + 1;
    frame.fundMicros = index % 3 === 0 ? 0 : 2_500_000;
    return frame;
  });
}

function summarise(name: string, histogram: RecordableHistogram): RoundTrip {
  return { name, p50Us: histogram.percentile(50) / 1000, p99Us: histogram.percentile(99) / 1000 };
}

/**
 * Ring round trips; the worker polls for `spinUs` before sleeping (0: every wait sleeps), and
 * this thread waits the same way, or, with `onEventLoop`, as the server's front end does: with
 * Atomics.waitAsync, which resumes through the event loop.
 */
export async function ringRoundTrip(count: number, spinUs: number, onEventLoop = false): Promise<RoundTrip> {
  const echo = startWorker('ring-echo', COMMAND_LAYOUT, spinUs);
  await echo.online;
  const frame = sampleFrames(1)[0]!;
  const length = frameLength(frame);
  const histogram = createHistogram();
  const warmup = Math.ceil(count / 10);
  for (let trip = 0; trip < warmup + count; trip++) {
    const started = performance.now();
    const claim = echo.requests.claim(length)!;
    encodeFrame(frame, echo.requests.view, echo.requests.bytes, claim.offset);
    echo.requests.publish(claim, length);
    if (onEventLoop) {
      while (echo.replies.peek() === undefined) {
        if (performance.now() - started > WAIT_MS) throw new Error('ring echo did not answer');
        await echo.replies.waitForFrameAsync(WAIT_MS);
      }
    } else if (!echo.replies.waitForFrame(spinUs, WAIT_MS)) {
      throw new Error('ring echo did not answer');
    }
    echo.replies.consume(echo.replies.peek()!);
    if (trip >= warmup) histogram.record(Math.max(1, Math.round((performance.now() - started) * 1e6)));
  }
  await echo.stop();
  const worker = spinUs === 0 ? 'no spin (Atomics.wait each time)' : `${spinUs} µs spin then Atomics.wait`;
  return summarise(onEventLoop ? `ring, ${worker}; reply by waitAsync` : `ring, ${worker}`, histogram);
}

/** postMessage round trips of the same frame's bytes. */
export async function postRoundTrip(count: number): Promise<RoundTrip> {
  const echo = startWorker('post-echo', COMMAND_LAYOUT, 0);
  await echo.online;
  const frame = sampleFrames(1)[0]!;
  const bytes = new Uint8Array(frameLength(frame));
  encodeFrame(frame, new DataView(bytes.buffer), bytes, 0);
  const histogram = createHistogram();
  const warmup = Math.ceil(count / 10);
  for (let trip = 0; trip < warmup + count; trip++) {
    const started = performance.now();
    const reply = new Promise((resolve) => echo.worker.once('message', resolve));
    echo.worker.postMessage(bytes);
    await reply;
    if (trip >= warmup) histogram.record(Math.max(1, Math.round((performance.now() - started) * 1e6)));
  }
  await echo.stop();
  return summarise('postMessage', histogram);
}

/** Blocks until the worker has decoded `total` frames. */
function awaitDecoded(counter: Int32Array, total: number): void {
  for (let seen = Atomics.load(counter, 0); seen < total; seen = Atomics.load(counter, 0)) Atomics.wait(counter, 0, seen, WAIT_MS);
}

/** `total` frames through the command ring in batches of `batch`, decoded by the worker. */
export async function ringBatched(total: number, batch: number): Promise<BatchedThroughput> {
  const drain = startWorker('ring-drain', COMMAND_LAYOUT, SPIN_US);
  await drain.online;
  const frames = sampleFrames(1024);
  const lengths = frames.map(frameLength);
  const ring = drain.requests;
  const started = performance.now();
  for (let sent = 0; sent < total;) {
    const end = Math.min(total, sent + batch);
    for (; sent < end; sent++) {
      const index = sent & 1023;
      let claim = ring.claim(lengths[index]!);
      // A full ring: wait for the consumer's next batch instead of spinning on the claim.
      while (claim === undefined) {
        Atomics.wait(drain.counter, 0, Atomics.load(drain.counter, 0), 1);
        claim = ring.claim(lengths[index]!);
      }
      encodeFrame(frames[index]!, ring.view, ring.bytes, claim.offset);
      ring.publish(claim, lengths[index]!);
    }
  }
  awaitDecoded(drain.counter, total);
  const seconds = (performance.now() - started) / 1000;
  await drain.stop();
  return { name: `ring, batches of ${batch}`, framesPerSecond: total / seconds };
}

/** The same frames posted as one transferred buffer per batch. */
export async function postBatched(total: number, batch: number): Promise<BatchedThroughput> {
  const drain = startWorker('post-drain', COMMAND_LAYOUT, 0);
  await drain.online;
  const frames = sampleFrames(1024);
  const lengths = frames.map(frameLength);
  const started = performance.now();
  for (let sent = 0; sent < total;) {
    const end = Math.min(total, sent + batch);
    let bytesNeeded = 0;
    for (let index = sent; index < end; index++) bytesNeeded += 4 + lengths[index & 1023]!;
    const bytes = new Uint8Array(bytesNeeded);
    const view = new DataView(bytes.buffer);
    let at = 0;
    for (; sent < end; sent++) {
      const index = sent & 1023;
      view.setUint32(at, lengths[index]!, true);
      at += 4 + encodeFrame(frames[index]!, view, bytes, at + 4);
    }
    drain.worker.postMessage({ bytes } satisfies PostedBatch, [bytes.buffer]);
  }
  awaitDecoded(drain.counter, total);
  const seconds = (performance.now() - started) / 1000;
  await drain.stop();
  return { name: `postMessage, batches of ${batch}`, framesPerSecond: total / seconds };
}

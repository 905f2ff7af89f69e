// Recovery of a shard's state from its store: the newest complete snapshot, then every journal
// entry after it, each frame applied through the same code that runs live. The matching worker
// recovers this way at every start; the verify command (http/data_dir/verify.ts) does too,
// without a worker, to check the state a start would serve.
import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Command } from '../command.js';
import { ShardCore, type FrameOutcome } from './core.js';
import { decodeFrame, Frame } from './frame.js';
import type { RecoveryFigures } from './protocol.js';
import type { EngineOptions } from '../state/state.js';
import type { ShardStore } from './store.js';

/** Bytes before each frame of a journal entry: its length (u32, little-endian). */
const LENGTH_BYTES = 4;

/**
 * The frames of journal entry `batch`, [u32 length][frame] back to back, as [view, offset,
 * length]; throws when a length runs past the entry (a damaged entry), naming the batch.
 */
function* framesOf(entry: Uint8Array, batch: number): Generator<[DataView, number, number]> {
  const view = new DataView(entry.buffer, entry.byteOffset, entry.byteLength);
  for (let at = 0; at < entry.byteLength;) {
    if (at + LENGTH_BYTES > entry.byteLength) throw new RangeError(`journal entry ${batch} ends inside a frame's length`);
    const length = view.getUint32(at, true);
    if (at + LENGTH_BYTES + length > entry.byteLength) throw new RangeError(`journal entry ${batch} has a frame that runs past its end`);
    yield [view, at + LENGTH_BYTES, length];
    at += LENGTH_BYTES + length;
  }
}

/**
 * Applies journal entry `batch` to `core`, frame by frame (decoded into `frame`), through the
 * code that runs live; returns how many frames it held. Recovery replays the store's entries so,
 * and a replicated journal's reader (http/replication/) the stream's.
 */
export function replayEntry(core: ShardCore, entry: Buffer, batch: number, frame: Frame, replayed: ReplayObserver = () => undefined): number {
  let frames = 0;
  for (const [view, offset, length] of framesOf(entry, batch)) {
    try {
      decodeFrame(frame, view, entry, offset, length);
    } catch (error) {
      throw new RangeError(`journal entry ${batch} holds a frame that does not decode (${(error as Error).message})`);
    }
    replayed(frame, core.apply(frame), batch, core);
    frames++;
  }
  return frames;
}

/** Sees each replayed frame, its outcome and the batch it was journaled in, on the core being rebuilt. */
export type ReplayObserver = (frame: Frame, outcome: FrameOutcome, batch: number, core: ShardCore) => void;

/**
 * Rebuilds the shard's state from `store`. `replayed` sees every replayed frame (the worker
 * answers a dead worker's commands from it).
 */
export function recoverCore(
  store: ShardStore, options: EngineOptions, replayed: ReplayObserver = () => undefined,
): { core: ShardCore; figures: RecoveryFigures } {
  const started = performance.now();
  const snapshot = store.loadSnapshot();
  // A fresh secret seed for the order-id indexes at every start (it changes only their layout):
  // nobody can make ids that collide in them, whatever ids they can produce.
  const engine = { ...options, hashSeed: randomInt(0x7fffffff) };
  const core = new ShardCore(engine, snapshot === undefined ? undefined : { engine: snapshot.engine, core: snapshot.head.core });
  const loaded = performance.now();
  const snapshotBatch = snapshot?.head.batch ?? 0;
  const frame = new Frame(new Command());
  let replayedFrames = 0;
  for (const [batch, entry] of store.journalAfter(snapshotBatch)) replayedFrames += replayEntry(core, entry, batch, frame, replayed);
  const figures = { lastBatch: store.lastBatch(), snapshotBatch, replayedFrames, loadMs: loaded - started, replayMs: performance.now() - loaded };
  return { core, figures };
}

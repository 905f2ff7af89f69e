// The front end's side of the matching workers: it starts one worker per shard, writes command
// frames into each shard's command ring, reads the answers from its result ring, and restarts a
// worker that dies. postMessage carries control only: status, reads for tools and tests, stop.
//
// A worker that dies. Its markets answer 503 with Retry-After until it is back. Answers it wrote
// before dying are read from its result ring first. The commands it took and did not answer wait
// for the next worker's recovery, which answers those it finds committed in the journal (so a
// command the engine committed is never answered as failed); the rest were not executed and get
// a 503. A worker that keeps dying is restarted after a pause that doubles each time (up to
// RESTART_DELAY_MAX_MS); one whose storage failed (a full disk, an I/O error) says so, and the
// pool shows it in `storageFailure` (/ready, /metrics, the logs) until a worker serves again.
import { Worker } from 'node:worker_threads';
import { Command } from '../../engine/command.js';
import { Ring } from '../../engine/ring.js';
import type { FrameResult } from '../../engine/shard/core.js';
import { AnswerDecoder } from '../../engine/shard/answer_codec.js';
import { AnswerAssembler, isFragment } from '../../engine/shard/answer_stream.js';
import { ShardCounters } from '../../engine/shard/counters.js';
import { encodeFrame, Frame, frameLength } from '../../engine/shard/frame.js';
import {
  COMMAND_LAYOUT, RESULT_LAYOUT, STORAGE_FAILED_EXIT, type RecoveryFigures, type ShardBalances, type ShardControl, type ShardMessage,
  type ShardRead, type ShardStatus, type ShardWorkerData,
} from '../../engine/shard/protocol.js';
import type { EngineOptions } from '../../engine/state/state.js';
import { HttpError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Replication } from '../replication/replication.js';
import type { Treasury } from './treasury.js';

/** Why a command could not be handed to its shard: a 503 with Retry-After at the edge. */
export class ShardUnavailable extends HttpError {
  readonly retryAfterS: number;

  constructor(message: string, retryAfterS: number) {
    super(503, message, undefined, [['retry-after', String(retryAfterS)]]);
    this.name = 'ShardUnavailable';
    this.retryAfterS = retryAfterS;
  }
}

/** What a control message's answer carries. */
function controlAnswer(message: Extract<ShardMessage, { type: 'status' | 'balances' | 'read' | 'paused' }>): unknown {
  switch (message.type) {
    case 'status': return message.status;
    case 'balances': return message.balances;
    case 'read': return message.value;
    case 'paused': return { batch: message.batch, seq: message.seq, atMs: message.atMs } satisfies ShardPaused;
  }
}

/** Where a shard stands once a backup's hold began (ShardPool.pause). */
export interface ShardPaused {
  /** Its last committed batch, and the engine's sequence number after it. */
  readonly batch: number;
  readonly seq: number;
  /** When the hold began (epoch ms, fractional). */
  readonly atMs: number;
}

/** A worker that exited during the pool's start, before it served: the start fails with this. */
export class ShardStartFailed extends Error {
  constructor(readonly shard: number, readonly exitCode: number, readonly reason: string) {
    super(`shard ${shard} exited with ${exitCode} while starting${reason === '' ? '' : `: ${reason}`}`);
    this.name = 'ShardStartFailed';
  }
}

/** Sees every answer a shard commits, whoever asked, and every (re)start of a shard. */
export interface ShardObserver {
  /** Called in each shard's commit order, before the requester's promise resolves. */
  answered(shard: number, result: FrameResult): void;
  /** The shard recovered and serves again: what the observer mirrors of it must be reloaded. */
  started(shard: number): void;
}

export interface ShardPoolOptions {
  readonly dataDir: string;
  readonly shards: number;
  readonly engine: EngineOptions;
  readonly snapshotEveryFrames?: number;
  readonly batchFramesMax?: number;
  /** The replicated journal (http/replication/): each worker feeds it its committed batches, or a replica's follows it. */
  readonly replication?: Replication | undefined;
  /** A replica (`follow`): the workers apply the primary's batches from the replicated journal and take no commands. */
  readonly following?: boolean;
}

interface Pending {
  readonly resolve: (result: FrameResult) => void;
  readonly reject: (error: Error) => void;
  readonly account: string;
  readonly fundMicros: number;
  /**
   * Answered by a restarted worker's recovery: the treasury already took this command's funding
   * and credits from that worker's funding table (adopt), so the answer must not settle them again.
   */
  adopted: boolean;
}

/** Why a shard is not serving because its storage failed. */
export interface StorageFailure {
  readonly message: string;
  readonly sinceMs: number;
  /** The shard does not retry: it stays down until the server is started again (the replicated journal refused it). */
  readonly final?: boolean;
}

/** A worker that lived less than this before dying counts as failing again: its restart waits longer. */
const STABLE_MS = 10_000;
/** The pause before the second restart in a row; it doubles with each further one. */
const RESTART_DELAY_MIN_MS = 100;
const RESTART_DELAY_MAX_MS = 10_000;

interface Control {
  readonly resolve: (value: never) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Answers delivered in one turn of the event loop before requests get theirs: a shard that
 * answers faster than the front end can take must not starve the HTTP listeners.
 */
const ANSWERS_PER_TURN = 256;

/** How long a stop waits for each worker to answer what it holds, snapshot and exit. */
const STOP_WAIT_MS = 60_000;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

class ShardHandle {
  worker: Worker | undefined = undefined;
  commandRing: Ring;
  resultRing: Ring;
  /** Decodes this result ring's answers; a new one with every new ring (and worker). */
  answers = new AnswerDecoder();
  /** Puts this result ring's long answers back together; a new one with every new ring. */
  fragments = new AnswerAssembler();
  /** Takes commands: the worker recovered and its storage took a write. */
  ready = false;
  /** Its answers are read: the worker recovered (it may still fail the write before serving). */
  reading = false;
  stopping = false;
  marketKeys: string[] = [];
  recovery: RecoveryFigures | undefined = undefined;
  /** The current worker's thread id in the kernel (undefined off Linux, or before it is ready). */
  threadId: number | undefined = undefined;
  readonly pending = new Map<number, Pending>();
  /** Commands a dead worker took and did not answer, waiting for the next worker's recovery. */
  readonly unanswered = new Map<number, Pending>();
  readonly controls = new Map<number, Control>();
  restarts = 0;
  /** Whether a worker of this shard ever served: one that fails its first start fails the pool's start, and is not restarted. */
  served = false;
  /** The batch the serving (or last) worker recovered to: every later journal entry is its own. */
  startBatch = 0;
  readySinceMs = 0;
  /** Exits in a row of workers that did not live STABLE_MS. */
  failures = 0;
  /** When the pending restart starts (epoch ms), while the shard is down. */
  restartAtMs = 0;
  restartTimer: NodeJS.Timeout | undefined = undefined;
  /** The storage failure the last worker reported, until a worker serves again. */
  storageFailure: StorageFailure | undefined = undefined;
  /** The message of the latest storage failure a worker reported, read when it exits. */
  storageMessage = '';
  storageFailures = 0;
  /** The message of the error the current worker threw, if it threw one (read when it exits). */
  errorMessage = '';
  /** Resolves a promotion once the worker took it (ShardPool.promote). */
  promoted: (() => void) | undefined = undefined;
  /** The current worker's kill switch (the test hook's: see killWorker); a fresh one per worker. */
  killSwitch = new Int32Array(new SharedArrayBuffer(4));
  /** Operator counters the shard's workers write (one after another across restarts). */
  readonly counters = new ShardCounters();
  private readonly buffers: { command: SharedArrayBuffer; result: SharedArrayBuffer };

  constructor(readonly index: number) {
    this.buffers = { command: Ring.allocate(COMMAND_LAYOUT), result: Ring.allocate(RESULT_LAYOUT) };
    this.commandRing = new Ring(this.buffers.command, COMMAND_LAYOUT);
    this.resultRing = new Ring(this.buffers.result, RESULT_LAYOUT);
  }

  /** Fresh rings for a new worker: frames left by a dead one must not run after their 503. */
  renewRings(): { command: SharedArrayBuffer; result: SharedArrayBuffer } {
    this.buffers.command = Ring.allocate(COMMAND_LAYOUT);
    this.buffers.result = Ring.allocate(RESULT_LAYOUT);
    this.commandRing = new Ring(this.buffers.command, COMMAND_LAYOUT);
    this.resultRing = new Ring(this.buffers.result, RESULT_LAYOUT);
    this.answers = new AnswerDecoder();
    this.fragments = new AnswerAssembler();
    return this.buffers;
  }

  currentBuffers(): { command: SharedArrayBuffer; result: SharedArrayBuffer } {
    return this.buffers;
  }
}

export class ShardPool {
  readonly count: number;
  private readonly handles: ShardHandle[];
  private readonly frame = new Frame(new Command());
  private nextRequestId = 1;
  private nextToken = 1;
  private closed = false;
  private readonly observers: ShardObserver[] = [];
  /** Frames refused because a shard's command ring was full, by shard. */
  readonly ringFullRejections: Float64Array;
  /**
   * Reads asked of the workers (`read`: a message the worker answers on its own thread, between
   * two batches), by kind, then shard: what the account and market reads cost the order path.
   */
  readonly reads = new Map<ShardRead['kind'], Float64Array>();

  /** A replica's pool: its workers follow the replicated journal (until promote). */
  private following: boolean;
  /** A replica's workers apply the primary's batches once this is set (startFollowing), and at once when they start again. */
  private followingStarted = false;

  constructor(private readonly options: ShardPoolOptions, private readonly treasury: Treasury, private readonly log: Logger) {
    this.count = options.shards;
    this.following = options.following === true;
    this.handles = Array.from({ length: options.shards }, (_, index) => new ShardHandle(index));
    this.ringFullRejections = new Float64Array(options.shards);
  }

  /** Starts every worker and waits until each has recovered. */
  async start(): Promise<void> {
    await Promise.all(this.handles.map((handle) => this.spawn(handle, handle.currentBuffers())));
  }

  /** The shard a market belongs to: FNV-1a of its key, so the mapping never changes. */
  shardOf(marketKey: string): number {
    let hash = 0x811c9dc5;
    for (let index = 0; index < marketKey.length; index++) hash = Math.imul(hash ^ marketKey.charCodeAt(index), 0x01000193);
    return (hash >>> 0) % this.count;
  }

  marketKeys(shard: number): readonly string[] {
    return this.handles[shard]!.marketKeys;
  }

  /** The key of engine market `market` on `shard` (undefined when unknown). */
  marketKeyAt(shard: number, market: number): string | undefined {
    return this.handles[shard]!.marketKeys[market];
  }

  recovery(shard: number): RecoveryFigures | undefined {
    return this.handles[shard]!.recovery;
  }

  restarts(shard: number): number {
    return this.handles[shard]!.restarts;
  }

  /** Slots of the shard's command ring taken by frames it has not consumed yet. */
  ringDepth(shard: number): number {
    return this.handles[shard]!.commandRing.depthSlots();
  }

  /** Slots of the shard's result ring taken by answers the front end has not read yet. */
  answerDepth(shard: number): number {
    return this.handles[shard]!.resultRing.depthSlots();
  }

  /** The kernel's id of the shard's current worker thread (undefined off Linux or while it starts). */
  threadId(shard: number): number | undefined {
    return this.handles[shard]!.threadId;
  }

  /** The shard's commit and book counters, read in place (no message to the worker). */
  counters(shard: number): ShardCounters {
    return this.handles[shard]!.counters;
  }

  isReady(shard: number): boolean {
    return this.handles[shard]!.ready;
  }

  /** Why the shard is down, when its storage failed (undefined while it serves, or for any other cause). */
  storageFailure(shard: number): StorageFailure | undefined {
    return this.handles[shard]!.storageFailure;
  }

  /** Storage failures the shard's workers reported since the start. */
  storageFailures(shard: number): number {
    return this.handles[shard]!.storageFailures;
  }

  /** The 503 for a command (or a read) to a shard that is not serving. */
  unavailable(shard: number): ShardUnavailable {
    return this.unavailableAnswer(this.handles[shard]!);
  }

  private unavailableAnswer(handle: ShardHandle): ShardUnavailable {
    const retryAfterS = Math.max(1, Math.ceil((handle.restartAtMs - Date.now()) / 1000));
    const failure = handle.storageFailure;
    return new ShardUnavailable(
      failure === undefined ? `shard ${handle.index} is restarting`
        : failure.final === true ? `shard ${handle.index} is down: ${failure.message}`
          : `shard ${handle.index} cannot write to its storage (${failure.message}); it retries by itself`,
      retryAfterS,
    );
  }

  /**
   * Writes one frame (filled in by `fill` on the reused Frame) into the shard's ring and
   * resolves with its answer once the shard has committed it. Throws ShardUnavailable at once
   * when the shard is down or its ring is full. `fundMicros` must already be taken from the
   * treasury; it is settled with the answer or refunded if none comes.
   */
  send(shard: number, fill: (frame: Frame) => void, fundMicros = 0): Promise<FrameResult> {
    const handle = this.handles[shard]!;
    if (!handle.ready) throw this.unavailableAnswer(handle);
    const frame = this.frame;
    fill(frame);
    frame.fundMicros = fundMicros;
    const requestId = this.nextRequestId;
    this.nextRequestId = this.nextRequestId === 0xffff_ffff ? 1 : this.nextRequestId + 1;
    frame.requestId = requestId;
    const ring = handle.commandRing;
    const length = frameLength(frame);
    const claim = ring.claim(length);
    if (claim === undefined) {
      this.ringFullRejections[shard]!++;
      throw new ShardUnavailable(`shard ${shard} is busy`, 1);
    }
    encodeFrame(frame, ring.view, ring.bytes, claim.offset);
    ring.publish(claim, length);
    return new Promise<FrameResult>((resolve, reject) => {
      handle.pending.set(requestId, { resolve, reject, account: frame.command.account, fundMicros, adopted: false });
    });
  }

  /** A replica: the start's checks of what the shards recovered are done; they apply the primary's batches from now on. */
  startFollowing(): void {
    if (!this.following) return;
    this.followingStarted = true;
    for (const handle of this.handles) if (handle.ready) handle.worker?.postMessage({ type: 'follow' } satisfies ShardControl);
  }

  /**
   * A standby promoted (its followers applied every batch the stream holds, and every subject is
   * claimed for its term): each worker stops following and takes commands from the batch it
   * stands at, appending its own to the stream. A shard that is down starts as the primary's.
   */
  async promote(): Promise<void> {
    const replication = this.options.replication;
    if (!this.following || replication === undefined) return;
    this.following = false;
    await Promise.all(this.handles.map(async (handle) => {
      const worker = handle.worker;
      if (worker === undefined || !handle.ready) return;
      const journalFeed = await replication.attach(handle.index, handle.currentBuffers().command, COMMAND_LAYOUT);
      await new Promise<void>((resolve) => {
        handle.promoted = resolve;
        worker.postMessage({ type: 'promote', journalFeed } satisfies ShardControl, [journalFeed.port]);
      });
    }));
  }

  /** Adds an observer; it is told at once of every shard that is already serving. */
  observe(observer: ShardObserver): void {
    this.observers.push(observer);
    for (const handle of this.handles) if (handle.ready) observer.started(handle.index);
  }

  status(shard: number): Promise<ShardStatus> {
    return this.control(shard, (token) => ({ type: 'status', token }));
  }

  /** The shard's invariants and collateral, for the start's check of the data directory. */
  balances(shard: number): Promise<ShardBalances> {
    return this.control(shard, (token) => ({ type: 'balances', token }));
  }

  /**
   * A backup's hold of the shard (HOLD in engine/shard/protocol.ts): `hold` must be set to HELD
   * first. Resolves once the worker holds between two batches, with where it stands.
   */
  pause(shard: number, hold: SharedArrayBuffer, holdMaxMs: number): Promise<ShardPaused> {
    const paused = this.control<ShardPaused>(shard, (token) => ({ type: 'pause', token, hold, holdMaxMs }));
    // An idle worker sleeps on its command ring for up to a few milliseconds before it reads
    // its messages: woken, it reads this one at once, and the shards that hold first wait less.
    this.handles[shard]!.commandRing.wakeConsumer();
    return paused;
  }

  read<T>(shard: number, read: ShardRead): Promise<T> {
    let counts = this.reads.get(read.kind);
    if (counts === undefined) this.reads.set(read.kind, counts = new Float64Array(this.count));
    counts[shard]!++;
    return this.control(shard, (token) => ({ type: 'read', token, read }));
  }

  /**
   * Test hook: ends a worker thread abruptly, as a crash would, at its next point outside a write
   * transaction (mid-batch before the commit, or while it writes answers): see KILLED_EXIT.
   * Resolves once the pool has seen it exit.
   */
  killWorker(shard: number): Promise<void> {
    return this.endWorker(this.handles[shard]!);
  }

  /** Lets every worker answer what it holds, snapshot and close; resolves when all have exited. */
  async stop(): Promise<void> {
    this.closed = true;
    for (const handle of this.handles) {
      clearTimeout(handle.restartTimer);
      this.refuseUnanswered(handle, `the server stopped before shard ${handle.index} answered: read the order's status to learn whether it was executed`);
    }
    await Promise.all(this.handles.map((handle) => new Promise<void>((resolve) => {
      const worker = handle.worker;
      if (worker === undefined) return resolve();
      handle.stopping = true;
      // A worker that does not exit in time (one seen wedged in LMDB's teardown after its thread
      // ended, its exit never reported) must not hold the process: what it has not answered is
      // refused, and the stop goes on.
      const timer = setTimeout(() => {
        this.log.error('shard worker did not stop in time', { shard: handle.index, waitedMs: STOP_WAIT_MS, unanswered: handle.pending.size });
        for (const pending of handle.pending.values()) {
          pending.reject(new ShardUnavailable(`the server stopped before shard ${handle.index} answered: read the order's status to learn whether it was executed`, 1));
        }
        handle.pending.clear();
        // Nor may its thread keep the process alive once everything else has ended.
        worker.unref();
        resolve();
      }, STOP_WAIT_MS);
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ type: 'stop' } satisfies ShardControl);
    })));
  }

  /**
   * After a failed start, before any command: ends every worker without the stop's snapshot (one
   * still recovering ends as soon as it has, before it takes a command); resolves when all have
   * exited.
   */
  async abort(): Promise<void> {
    this.closed = true;
    await Promise.all(this.handles.map(async (handle) => {
      clearTimeout(handle.restartTimer);
      handle.stopping = true;
      await this.endWorker(handle);
    }));
  }

  /**
   * Ends the shard's worker at its next point outside a write transaction (the kill switch, see
   * KILLED_EXIT; a worker still recovering ends once it has, before it takes a command) and
   * resolves once it has exited. Worker.terminate() can land inside a write transaction (the
   * probe write before serving, a commit), and then the thread's exit never comes.
   */
  private endWorker(handle: ShardHandle): Promise<void> {
    const worker = handle.worker;
    if (worker === undefined) return Promise.resolve();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    Atomics.store(handle.killSwitch, 0, 1);
    // An idle worker sleeps on its command ring: wake it to see the switch.
    handle.commandRing.wakeConsumer();
    return exited;
  }

  private control<T>(shard: number, make: (token: number) => ShardControl): Promise<T> {
    const handle = this.handles[shard]!;
    const worker = handle.worker;
    if (worker === undefined || !handle.ready) return Promise.reject(this.unavailableAnswer(handle));
    const token = this.nextToken++;
    return new Promise<T>((resolve, reject) => {
      handle.controls.set(token, { resolve: resolve as (value: never) => void, reject });
      worker.postMessage(make(token));
    });
  }

  /**
   * Starts a worker on `buffers`; with a replicated journal, once the replication thread has
   * attached the shard (it reads what the stream holds of it first: a NATS that cannot be reached
   * keeps the shard down until it can).
   */
  private async spawn(handle: ShardHandle, buffers: { command: SharedArrayBuffer; result: SharedArrayBuffer }): Promise<void> {
    const replication = this.options.replication;
    const journal: Pick<ShardWorkerData, 'journalFeed' | 'following'> = replication === undefined
      ? { journalFeed: undefined, following: undefined }
      : this.following
        ? { journalFeed: undefined, following: replication.follow(handle.index) }
        : { journalFeed: await replication.attach(handle.index, buffers.command, COMMAND_LAYOUT), following: undefined };
    const port = journal.journalFeed?.port ?? journal.following?.port;
    if (this.closed || handle.stopping) {
      port?.close();
      return;
    }
    return this.startWorker(handle, buffers, journal);
  }

  private startWorker(
    handle: ShardHandle, buffers: { command: SharedArrayBuffer; result: SharedArrayBuffer }, journal: Pick<ShardWorkerData, 'journalFeed' | 'following'>,
  ): Promise<void> {
    const data: ShardWorkerData = {
      shard: handle.index, dataDir: this.options.dataDir, commandRing: buffers.command, resultRing: buffers.result,
      commandLayout: COMMAND_LAYOUT, resultLayout: RESULT_LAYOUT, engine: this.options.engine,
      snapshotEveryFrames: this.options.snapshotEveryFrames ?? 500_000, batchFramesMax: this.options.batchFramesMax ?? 4096,
      counters: handle.counters.buffer, killSwitch: (handle.killSwitch = new Int32Array(new SharedArrayBuffer(4))).buffer as SharedArrayBuffer,
      unanswered: handle.unanswered.size === 0 ? undefined : { afterBatch: handle.startBatch, requestIds: [...handle.unanswered.keys()] },
      ...journal,
    };
    const port = journal.journalFeed?.port ?? journal.following?.port;
    const worker = new Worker(new URL('../../engine/shard/worker.js', import.meta.url), { workerData: data, transferList: port === undefined ? [] : [port] });
    handle.worker = worker;
    handle.errorMessage = '';
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (message: ShardMessage) => {
        switch (message.type) {
          case 'recovered':
            handle.marketKeys = message.marketKeys;
            handle.recovery = message.recovery;
            handle.threadId = message.threadId;
            handle.startBatch = message.recovery.lastBatch;
            // The dead worker's unanswered commands: the funding of those it committed is in the
            // new funding table, and that of the others never left; either way the treasury
            // gives back what it took for them (once) and then adopts the table.
            for (const pending of handle.unanswered.values()) if (!pending.adopted) this.treasury.refund(pending.account, pending.fundMicros);
            this.treasury.adopt(handle.index, message.netFunding);
            this.resumeUnanswered(handle, new Set(message.answered));
            handle.reading = true;
            void this.readResults(handle, worker);
            break;
          case 'ready':
            handle.readySinceMs = Date.now();
            if (handle.storageFailure !== undefined) this.log.info('shard storage works again', { shard: handle.index });
            handle.storageFailure = undefined;
            handle.served = true;
            handle.ready = true;
            if (this.following && this.followingStarted) worker.postMessage({ type: 'follow' } satisfies ShardControl);
            this.tellObservers((observer) => observer.started(handle.index));
            this.log.info('shard ready', { shard: handle.index, ...handle.recovery });
            resolve();
            break;
          case 'promoted':
            this.log.info('shard promoted', { shard: handle.index, batch: message.batch });
            handle.promoted?.();
            handle.promoted = undefined;
            break;
          case 'storage-failed':
            handle.storageMessage = message.message;
            this.refuseNotExecuted(handle, message.notExecuted, message.message);
            break;
          case 'status':
          case 'balances':
          case 'read':
          case 'paused': {
            const control = handle.controls.get(message.token);
            handle.controls.delete(message.token);
            if (message.type === 'read' && message.error !== undefined) control?.reject(new Error(`shard ${handle.index} read failed: ${message.error}`));
            else control?.resolve(controlAnswer(message) as never);
            break;
          }
          default:
            break;
        }
      });
      worker.on('error', (error) => {
        handle.errorMessage = error.message;
        this.log.error('shard worker failed', { shard: handle.index, error: error.message });
      });
      worker.on('exit', (code) => {
        const wasReady = handle.ready;
        this.onExit(handle, worker, code);
        const reason = code === STORAGE_FAILED_EXIT ? handle.storageMessage : handle.errorMessage;
        if (!wasReady && !handle.stopping) reject(new ShardStartFailed(handle.index, code, reason));
      });
    });
  }

  /** An observer's failure is logged: it must never stop answers from reaching their requesters. */
  private tellObservers(tell: (observer: ShardObserver) => void): void {
    for (const observer of this.observers) {
      try {
        tell(observer);
      } catch (error) {
        this.log.error('shard observer failed', { error: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  /** Reads up to `max` answers from the ring, delivering each; returns how many it read. */
  private drainResults(handle: ShardHandle, max = Number.POSITIVE_INFINITY): number {
    let read = 0;
    while (read < max) {
      const ring = handle.resultRing;
      const frame = ring.peek();
      if (frame === undefined) return read;
      read++;
      let result: FrameResult;
      if (isFragment(ring, frame.offset)) {
        // A long answer's fragment: copied out, and decoded once its last fragment is in.
        let whole: Buffer | undefined;
        try {
          whole = handle.fragments.add(ring, frame.offset, frame.length);
        } finally {
          ring.consume(frame);
        }
        if (whole === undefined) continue;
        result = handle.answers.decode(whole, 0, whole.length);
      } else {
        // Decoded in place: the slots are released only once the answer is objects.
        try {
          result = handle.answers.decode(ring.bytes, frame.offset, frame.length);
        } finally {
          ring.consume(frame);
        }
      }
      const pending = handle.pending.get(result.requestId);
      if (result.marketKey !== '' && result.market >= 0) handle.marketKeys[result.market] = result.marketKey;
      this.tellObservers((observer) => observer.answered(handle.index, result));
      if (pending === undefined) {
        // A replica's shard replays the primary's commands: its treasury follows their funding.
        if (this.following) this.treasury.follow(handle.index, result.fundedAccount, result.fundedMicros, result.credits);
        continue;
      }
      handle.pending.delete(result.requestId);
      const refused = result.error !== '';
      if (!pending.adopted) {
        this.treasury.settle(handle.index, pending.account, refused ? 0 : pending.fundMicros, result.credits);
        if (refused) this.treasury.refund(pending.account, pending.fundMicros);
      }
      pending.resolve(result);
    }
    return read;
  }

  private async readResults(handle: ShardHandle, worker: Worker): Promise<void> {
    const ring = handle.resultRing;
    while (handle.worker === worker && handle.reading) {
      if (this.drainResults(handle, ANSWERS_PER_TURN) === ANSWERS_PER_TURN) await yieldToEventLoop();
      // No timeout: V8 arms a timer for a finite Atomics.waitAsync, which cost the event loop
      // an extra wake-up (an eventfd write and read) per wait, ~13 µs of CPU; onExit wakes the
      // wait instead when the worker is gone.
      else await ring.waitForFrameAsync(Number.POSITIVE_INFINITY);
    }
  }

  private onExit(handle: ShardHandle, worker: Worker, code: number): void {
    if (handle.worker !== worker) return;
    // A worker that dies while promoted starts again as the primary's (spawn reads `following`).
    handle.promoted?.();
    handle.promoted = undefined;
    const wasReady = handle.ready;
    handle.ready = false;
    if (handle.reading) this.drainResults(handle);
    handle.reading = false;
    handle.worker = undefined;
    // readResults waits on this ring with no timeout: it wakes, sees the worker gone, and ends.
    handle.resultRing.wakeConsumer();
    for (const control of handle.controls.values()) control.reject(new ShardUnavailable(`shard ${handle.index} stopped before answering`, 1));
    handle.controls.clear();
    // What it took and did not answer waits for the next worker (its funding stays taken meanwhile,
    // so no one spends it twice); the answers come from that worker's recovery.
    for (const [requestId, pending] of handle.pending) handle.unanswered.set(requestId, pending);
    handle.pending.clear();
    if (this.closed || handle.stopping || !handle.served) {
      this.refuseUnanswered(handle, `shard ${handle.index} stopped before answering`);
      return;
    }
    handle.restarts++;
    const now = Date.now();
    if (wasReady && now - handle.readySinceMs >= STABLE_MS) handle.failures = 0;
    handle.failures++;
    const delayMs = handle.failures === 1 ? 0 : Math.min(RESTART_DELAY_MAX_MS, RESTART_DELAY_MIN_MS * 2 ** (handle.failures - 2));
    handle.restartAtMs = now + delayMs;
    if (code === STORAGE_FAILED_EXIT) {
      handle.storageFailures++;
      handle.storageFailure = { message: handle.storageMessage || 'storage failed', sinceMs: handle.storageFailure?.sinceMs ?? now };
      this.log.error('shard storage failed; restarting', { shard: handle.index, error: handle.storageMessage, retryInMs: delayMs });
    } else {
      this.log.error('shard worker exited; restarting', { shard: handle.index, code, retryInMs: delayMs });
    }
    handle.restartTimer = setTimeout(() => {
      handle.restartTimer = undefined;
      if (this.closed || handle.stopping) return;
      // A worker that fails to start is logged, and restarted, by onExit; a shard the replicated
      // journal refuses to attach (another server appended to it) stays down, and says why.
      this.spawn(handle, handle.renewRings()).catch((error: unknown) => {
        // A worker that failed its start is onExit's to restart; what lands here is an attach the journal refused.
        if (error instanceof ShardStartFailed || handle.worker !== undefined) return;
        const message = error instanceof Error ? error.message : String(error);
        handle.storageFailure = { message, sinceMs: handle.storageFailure?.sinceMs ?? Date.now(), final: true };
        this.log.error('shard cannot restart', { shard: handle.index, error: message });
        // No worker will answer what the dead one took: those clients must not wait for it.
        this.refuseUnanswered(handle, `shard ${handle.index} cannot start again (${message}): read the order's status to learn whether it was executed`);
      });
    }, delayMs);
  }

  /**
   * A new worker is ready: of the dead worker's unanswered commands, those its recovery answered
   * (`answered`) wait for those answers, which follow on the ring; the others were not executed.
   */
  private resumeUnanswered(handle: ShardHandle, answered: ReadonlySet<number>): void {
    for (const [requestId, pending] of handle.unanswered) {
      if (answered.has(requestId)) {
        pending.adopted = true;
        handle.pending.set(requestId, pending);
      } else {
        pending.reject(new ShardUnavailable(`shard ${handle.index} stopped before running this command: it was not executed`, 1));
      }
    }
    handle.unanswered.clear();
  }

  /** The commands of a batch whose commit failed: not executed, answered 503, their funding back. */
  private refuseNotExecuted(handle: ShardHandle, requestIds: readonly number[], why: string): void {
    for (const requestId of requestIds) {
      const pending = handle.pending.get(requestId) ?? handle.unanswered.get(requestId);
      if (pending === undefined) continue;
      handle.pending.delete(requestId);
      handle.unanswered.delete(requestId);
      if (!pending.adopted) this.treasury.refund(pending.account, pending.fundMicros);
      pending.reject(new ShardUnavailable(`shard ${handle.index} could not write to its storage (${why}): the command was not executed`, 1));
    }
  }

  /** Refuses every unanswered command of a dead worker (the pool stops): their funding comes back. */
  private refuseUnanswered(handle: ShardHandle, message: string): void {
    for (const pending of handle.unanswered.values()) {
      if (!pending.adopted) this.treasury.refund(pending.account, pending.fundMicros);
      pending.reject(new ShardUnavailable(message, 1));
    }
    handle.unanswered.clear();
  }
}

// A matching worker: one thread per shard. It recovers its state (newest snapshot, then the
// journal after it, through the same code that runs live), then loops: drain a batch of frames
// from the command ring, apply them, commit the batch in one durable LMDB transaction, and only
// then write the answers to the result ring. While a commit is being synced, the front end keeps
// filling the ring, so the next batch grows with the load (group commit).
//
// The loop blocks in Atomics.wait after a bounded spin when the ring is empty, and returns to the
// thread's event loop every few milliseconds so control messages (status, reads, stop) arrive.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { Command, CommandKind } from '../command.js';
import { Reject } from '../events/reject.js';
import { Ring } from '../ring.js';
import { fillAt } from '../events/event_objects.js';
import { EventKind, Field, Text, type EventBuffer } from '../events/events.js';
import { emptyOutcome, ShardCore, type FrameOutcome } from './core.js';
import { AnswerWriter } from './answer_codec.js';
import { FRAGMENT_MARK, writeAnswer } from './answer_stream.js';
import { ShardCounters } from './counters.js';
import { recordFinishedOrders } from './finished_orders.js';
import { decodeFrame, Frame } from './frame.js';
import { FEED_WORDS, JournalFeed, type FollowFrom, type JournalEntry, type JournalFeedSetup, type JournalFollowSetup } from './journal_feed.js';
import {
  type AccountData, type MarketData, type RecoveryFigures, type ShardControl, type ShardMessage, type ShardRead, type ShardStatus,
  type ShardWorkerData, HOLD, SPIN_US, STORAGE_FAILED_EXIT, KILLED_EXIT,
} from './protocol.js';
import type { StoredFill } from './feed_tables.js';
import { recoverCore, replayEntry } from './recovery.js';
import { emptyChanges, ShardStore, type BatchChanges } from './store.js';
import { currentThreadId } from './thread_times.js';

/** Longest sleep on an empty ring before looking at control messages. */
const IDLE_WAIT_MS = 5;
/** Longest stretch of work before the loop lets control messages in. */
const YIELD_EVERY_MS = 10;
/** Snapshot chunks written per batch while a snapshot is pending. */
const SNAPSHOT_CHUNKS_PER_BATCH = 2;
/** Longest sleep of a backup's hold before looking at the kill switch and the time again. */
const HOLD_WAIT_MS = 5;
/** How long a stop waits for the replicated journal to take what it committed before answering it. */
const STOP_STREAM_WAIT_MS = 20_000;

const data = workerData as ShardWorkerData;
const port = parentPort!;
const commandRing = new Ring(data.commandRing, data.commandLayout);
const resultRing = new Ring(data.resultRing, data.resultLayout);
const store = new ShardStore(data.dataDir, data.shard);
const frame = new Frame(new Command());
const pause = new Int32Array(new SharedArrayBuffer(4));
const answers = new AnswerWriter();
/** The replicated journal's feed (journal_feed.ts), when replication is on (a promoted replica's from its promotion). */
let feed = data.journalFeed === undefined ? undefined : new JournalFeed(data.journalFeed);
/** A replica's promotion (ShardControl 'promote'): the feed it appends to as the primary's shard. */
let promotion: JournalFeedSetup | undefined;

let core!: ShardCore;
let batch = 0;
let framesSinceSnapshot = 0;
let stopping = false;
const counters = new ShardCounters(data.counters);
const killSwitch = new Int32Array(data.killSwitch);

/** The test hook's crash (see KILLED_EXIT): called only where no write transaction is open. */
function endIfKilled(): void {
  if (Atomics.load(killSwitch, 0) !== 0) process.exit(KILLED_EXIT);
}

/** The books' size for the operator, after recovery and after every commit (O(markets)). */
function countBooks(): void {
  counters.recordBatch(batch);
  const stats = core.engine.stats();
  counters.recordBooks(stats.ordersLive, stats.openInterestMicros, stats.supplyMicros);
}

function status(): ShardStatus {
  const { invariantError } = core.balances();
  return {
    stateHash: core.engine.stateHash(), seq: core.seq, batch, invariantsHold: invariantError === '', invariantError,
    stats: { ...core.engine.stats() }, netFunding: [...core.netFunding],
    commits: counters.commits, framesCommitted: counters.commandsCommitted, commitMs: counters.commitSeconds * 1000,
  };
}

function post(message: ShardMessage): void {
  port.postMessage(message);
}

/**
 * Rebuilds the state from the newest snapshot and the journal after it (recovery.ts). Commands a
 * dead worker took and never answered (`data.unanswered`) that the journal holds were committed:
 * their answers are made again as they are replayed (the engine is deterministic, so they are
 * the answers that worker would have written) into `open`, for the front end once this worker is
 * ready.
 */
function recover(): RecoveryFigures {
  const unanswered = data.unanswered;
  const awaited = new Set(unanswered?.requestIds ?? []);
  const recovered = recoverCore(store, data.engine, (replayed, outcome, entryBatch, rebuilt) => {
    if (unanswered === undefined || entryBatch <= unanswered.afterBatch || !awaited.delete(replayed.requestId)) return;
    answeredAgain.push(replayed.requestId);
    open.answered(answerOf(replayed.command, outcome, rebuilt.events));
  });
  core = recovered.core;
  batch = recovered.figures.lastBatch;
  framesSinceSnapshot = recovered.figures.replayedFrames;
  return recovered.figures;
}

/** Request ids of the dead worker's commands that recovery answered (in `open`). */
const answeredAgain: number[] = [];

function viewOf(bytes: Buffer): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A growable byte buffer for the batch's journal entry. */
class JournalBuffer {
  bytes = Buffer.alloc(1 << 16);
  view = viewOf(this.bytes);
  length = 0;

  append(source: Uint8Array, offset: number, length: number): void {
    while (this.length + 4 + length > this.bytes.length) {
      const grown = Buffer.alloc(this.bytes.length * 2);
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
      this.view = viewOf(grown);
    }
    this.view.setUint32(this.length, length, true);
    this.bytes.set(source.subarray(offset, offset + length), this.length + 4);
    this.length += 4 + length;
  }
}

const journal = new JournalBuffer();

/**
 * A cancel of an order the engine no longer remembers reads ORDER_NOT_FOUND there; when the
 * stored orders (or the open batch) hold it finished, the answer says so, as the engine does for
 * the orders it remembers. The journal is unchanged: this rewrites only the answer's rows.
 */
function explainForgotten(events: EventBuffer): void {
  for (let row = 0; row < events.count; row++) {
    if (events.kindOf(row) !== EventKind.CANCEL_REJECTED || events.get(row, Field.code) !== Reject.ORDER_NOT_FOUND) continue;
    const finished = open.changes.orders.get(events.text(row, Text.orderId)) ?? store.order(events.text(row, Text.orderId));
    if (finished === undefined) continue;
    events.setCode(row, finished.owner === events.text(row, Text.account) ? Reject.ALREADY_DONE : Reject.NOT_OWNER);
  }
}

/** Adds what the frame's events (rows of `events`) change on disk to the batch. */
function record(outcome: FrameOutcome, events: EventBuffer, changes: BatchChanges): void {
  const timeMs = outcome.timeMs;
  outcome.redemptions.forEach((redemption, index) => changes.redemptions.push({ ...redemption, timeMs, index }));
  recordFinishedOrders(events, timeMs, changes.orders);
  for (let row = 0; row < events.count; row++) {
    switch (events.kindOf(row)) {
      case EventKind.FILL: {
        // The time is added to the fill's own object: a copy made by spreading it kept 4 of its
        // 19 fields in the object and the rest in a separate array, and encoding such a fill
        // for the store took ~1.4 µs instead of ~0.3.
        const fill = fillAt(events, row) as StoredFill & { timeMs: number };
        fill.timeMs = timeMs;
        changes.fills.push(fill);
        break;
      }
      case EventKind.BALANCE:
        changes.balances.add(
          events.text(row, Text.account), events.get(row, Field.market), events.get(row, Field.outcome),
          events.get(row, Field.freeMicros), events.get(row, Field.reservedMicros),
        );
        break;
      default:
        break;
    }
  }
}

/**
 * The batch being filled: the frames drained since the last commit, applied as they were read.
 * A batch is whatever arrived during the previous commit (up to batchFramesMax frames), so the
 * group commit adapts to the disk. Its answers are in `answers`, each at [offset, end).
 */
class OpenBatch {
  readonly answerStarts: number[] = [];
  readonly answerEnds: number[] = [];
  readonly changes = emptyChanges();
  journaledFrames = 0;

  answered(start: number): void {
    this.answerStarts.push(start);
    this.answerEnds.push(answers.end());
  }

  /** The request ids of the batch's answers (an answer's first word). */
  requestIds(): number[] {
    return this.answerStarts.map((start) => answers.slice(start, 4).readUInt32LE(0));
  }
}

let open = new OpenBatch();

/** Applies up to batchFramesMax frames from the ring to the engine, into the open batch. */
function drain(): void {
  for (let count = 0; count < data.batchFramesMax; count++) {
    endIfKilled();
    const head = commandRing.peek();
    if (head === undefined) return;
    try {
      decodeFrame(frame, commandRing.view, commandRing.bytes, head.offset, head.length);
    } catch (error) {
      const requestId = head.length >= 12 ? commandRing.view.getUint32(head.offset + 8, true) : FRAGMENT_MARK;
      commandRing.consume(head);
      // A frame too short to name its request has no one to answer (the front end writes whole frames).
      if (requestId !== FRAGMENT_MARK) open.answered(answers.write(emptyOutcome(requestId, 0, `malformed frame: ${(error as Error).message}`), undefined));
      continue;
    }
    const command = frame.command;
    // An order id seen before is refused as a duplicate ahead of every other check, whether the
    // order is live (only the engine has it), finished (both), finished in this batch and already
    // forgotten by the engine (only the open batch has it: a batch [X, Y, X] where Y fills more
    // orders than the engine's history holds) or finished earlier and forgotten (only the stored
    // orders have it), so a replay always reads "Duplicated" and a signed order runs at most once.
    if (command.kind === CommandKind.PlaceOrder && (
      core.engine.knowsOrderOf(command) || open.changes.orders.has(command.orderId) || store.hasOrder(command.orderId, command.orderIdKey)
    )) {
      commandRing.consume(head);
      const refunded: [string, number][] = frame.fundMicros > 0 ? [[command.account, frame.fundMicros]] : [];
      open.answered(answers.writeDuplicate({ ...emptyOutcome(frame.requestId, command.timeMs, ''), credits: refunded }, command));
      continue;
    }
    journal.append(commandRing.bytes, head.offset, head.length);
    commandRing.consume(head);
    const outcome = core.apply(frame);
    const events = core.events;
    if (outcome.error === '') {
      open.journaledFrames++;
      record(outcome, events, open.changes);
    }
    open.answered(answerOf(command, outcome, events));
  }
}

/** Encodes the answer of the command just applied (its events are `events`' rows); returns its offset in `answers`. */
function answerOf(command: Command, outcome: FrameOutcome, events: EventBuffer): number {
  if (command.kind === CommandKind.CancelOrder || command.kind === CommandKind.CancelOrders) explainForgotten(events);
  return answers.write(outcome, outcome.error === '' ? events : undefined);
}

/**
 * Commits the open batch (its frames, the orders it finished as they finished, its fills,
 * balance changes, and the next snapshot chunks) in one transaction, synchronously: the
 * commit is on disk when it returns, and only then are the batch's answers written.
 *
 * The commit runs on this thread. Handing it to lmdb-js's write thread (an asynchronous
 * transaction) let the next batch be applied during the sync, but cost two thread hand-offs per
 * commit: a commit of a few orders took ~1.4 ms there against ~0.9 ms here, at the same peak
 * throughput (bench/durable, bench/orders).
 */
function commitOpenBatch(): void {
  const closed = open;
  open = new OpenBatch();
  const changes = closed.changes;
  if (journal.length > 0) batch++;
  const commitStarted = performance.now();
  try {
    store.commitBatch(batch, journal.bytes.subarray(0, journal.length), changes, SNAPSHOT_CHUNKS_PER_BATCH);
  } catch (error) {
    // A failed commit leaves the engine ahead of the disk: the worker must not go on. The front
    // end restarts it after a pause, and recovery rebuilds the state from what is on disk. The
    // batch's commands were not executed, and the front end answers them 503, unless the disk
    // holds the batch after all (a sync that failed after its pages were in): then they were,
    // and they are answered.
    // (With a synchronous replicated journal they are answered by the next worker, which sends
    // the batch to the stream first.)
    if (journal.length > 0 && store.lastBatch() === batch) {
      if (feed?.sync !== true) writeAnswers(closed);
      storageFailed('commit reported a failure after it was written', error, []);
    }
    storageFailed('commit failed', error, closed.requestIds());
  }
  const journaled = journal.length > 0;
  if (feed !== undefined && journaled) feed.send(batch, journal.bytes.subarray(0, journal.length));
  journal.length = 0;
  counters.recordCommit(closed.answerStarts.length, (performance.now() - commitStarted) / 1000);
  countBooks();
  // REPLICATION=sync: the answers wait for the stream to hold the batch, and a batch that
  // journaled nothing (duplicates, malformed frames) waits behind the batches before it.
  if (feed?.sync === true && (journaled || feed.holding())) holdAnswers(closed);
  else writeAnswers(closed);
  framesSinceSnapshot += closed.journaledFrames;
  if (framesSinceSnapshot >= data.snapshotEveryFrames && !store.snapshotPending()) startSnapshot();
}

function startSnapshot(): void {
  store.beginSnapshot(batch, core.coreState(), core.engine.columnarSnapshot());
  framesSinceSnapshot = 0;
}

/** Writes a batch's answers to the result ring, in order, and forgets them. */
function writeAnswers(closed: OpenBatch): void {
  writeAnswerRanges(answers.slice(0, answers.end()), closed.answerStarts, closed.answerEnds);
  answers.reset();
}

/** Writes the answers at [starts[i], ends[i]) of `bytes` to the result ring, in order. */
function writeAnswerRanges(bytes: Buffer, starts: readonly number[], ends: readonly number[]): void {
  for (let index = 0; index < starts.length; index++) writeAnswer(resultRing, bytes, starts[index]!, ends[index]! - starts[index]!, waitForReader);
}

/** REPLICATION=sync: keeps the batch's answers until the stream holds batch `batch` (the last journaled one). */
function holdAnswers(closed: OpenBatch): void {
  feed!.hold(batch, answers.slice(0, answers.end()), closed.answerStarts, closed.answerEnds);
  answers.reset();
}

/**
 * Between batches, with a replicated journal: writes the held answers the stream now holds;
 * lets the store prune what the stream holds; waits while too much waits for the stream; and
 * ends the worker once another server appended to the shard's subject (it took over as primary):
 * nothing this one commits from then on is in the replicated history, and its held answers are
 * refused.
 */
function tendFeed(feed: JournalFeed): void {
  if (feed.fenced()) {
    storageFailed('another server took over this shard\'s replicated journal (it is the primary now)', new Error('fenced'), feed.heldRequestIds());
  }
  feed.release(writeAnswerRanges);
  store.keepJournalAfter(feed.acked());
  feed.waitForRoom(endIfKilled);
}

/**
 * Tells the front end why storage failed, and which commands were therefore not executed, and
 * ends the worker (see STORAGE_FAILED_EXIT).
 */
function storageFailed(what: string, error: unknown, notExecuted: number[]): never {
  const message = `${what}: ${error instanceof Error ? error.message : String(error)}`;
  post({ type: 'storage-failed', message, notExecuted });
  process.exit(STORAGE_FAILED_EXIT);
}

/** While the result ring is full: waits a moment for the front end to read. */
function waitForReader(): void {
  endIfKilled();
  Atomics.wait(pause, 0, 0, 0.05);
}

function read(request: ShardRead): unknown {
  switch (request.kind) {
    case 'order': return core.engine.getOrder(request.orderId) ?? store.order(request.orderId) ?? null;
    case 'openOrders': return core.engine.openOrdersOf(request.account);
    case 'balance': return core.engine.balanceOf(request.account) ?? null;
    case 'book': return core.engine.bookLevels(request.market) ?? null;
    case 'market': return core.engine.market(request.market) ?? null;
    case 'storedOrders': return store.ordersAll();
    case 'storedFills': return store.fillsAll();
    case 'marketData': return marketData();
    case 'accountData': return { seq: core.seq, accounts: core.engine.accounts() } satisfies AccountData;
    default: return null;
  }
}

/**
 * Every market's state and book as of the engine's current sequence number: the front end's read
 * model starts from this and applies only answers with a later sequence number.
 */
function marketData(): MarketData {
  const markets: MarketData['markets'] = [];
  core.marketKeys.forEach((key, market) => {
    const view = core.engine.market(market);
    const book = core.engine.bookLevels(market);
    if (view !== undefined && book !== undefined) {
      markets.push({ key, view, book, lastTrades: store.lastTrades(market).map((trade) => trade ?? null), volume: store.volume(market) ?? null });
    }
  });
  return { seq: core.seq, markets };
}

/** A read's answer, or its error: a record that does not decode fails the read, not the shard. */
function answerRead(token: number, request: ShardRead): ShardMessage {
  try {
    return { type: 'read', token, value: read(request) };
  } catch (error) {
    return { type: 'read', token, value: null, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * A backup's hold (HOLD in protocol.ts). Control messages come in only between batches, so here
 * every batch this worker answered is committed and no frame after it is applied: the store is
 * at batch `batch`, the engine at `core.seq`. The thread waits (the ring fills meanwhile) until
 * the front end has taken its cut and releases it, or until `holdMaxMs` passed.
 */
function holdForBackup(message: Extract<ShardControl, { type: 'pause' }>): void {
  const hold = new Int32Array(message.hold);
  const started = performance.now();
  post({ type: 'paused', token: message.token, batch, seq: core.seq, atMs: performance.timeOrigin + started });
  for (let state = Atomics.load(hold, 0); state === HOLD.HELD || state === HOLD.CUT; state = Atomics.load(hold, 0)) {
    endIfKilled();
    if (performance.now() - started >= message.holdMaxMs && Atomics.compareExchange(hold, 0, HOLD.HELD, HOLD.EXPIRED) === HOLD.HELD) return;
    Atomics.wait(hold, 0, state, HOLD_WAIT_MS);
  }
}

port.on('message', (message: ShardControl) => {
  switch (message.type) {
    case 'status': post({ type: 'status', token: message.token, status: status() }); break;
    case 'balances': post({ type: 'balances', token: message.token, balances: core.balances() }); break;
    case 'read': post(answerRead(message.token, message.read)); break;
    case 'pause': holdForBackup(message); break;
    case 'stop':
      stopping = true;
      stopFollowing();
      break;
    case 'follow':
      startFollowing();
      break;
    case 'promote':
      promotion = message.journalFeed;
      stopFollowing();
      break;
    default: break;
  }
});

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Ends `follow` (a replica's worker stops). */
let stopFollowing: () => void = () => undefined;
/** Lets `follow` ask for the primary's batches (ShardControl 'follow'). */
let startFollowing: () => void = () => undefined;

/** How often a replica's idle worker looks at the kill switch and writes pending snapshot chunks. */
const FOLLOW_TICK_MS = 20;

/**
 * A replica's worker: applies the primary's batches as the replication thread posts them, each
 * through the code that runs live (recovery's replay), records what each changes on disk as the
 * primary recorded it, commits it under the primary's batch number, and writes its answers for
 * the front end's read models. A batch it holds already is skipped; one that skips a number
 * stops the shard (the stream lost its place, or this data directory is not the primary's).
 */
async function follow(setup: JournalFollowSetup): Promise<void> {
  const words = new BigInt64Array(setup.shared);
  Atomics.store(words, FEED_WORDS.ACKED, BigInt(batch));
  const tick = setInterval(() => {
    endIfKilled();
    if (store.snapshotPending()) commitStreamed(undefined);
  }, FOLLOW_TICK_MS);
  await new Promise<void>((resolve) => {
    stopFollowing = resolve;
    setup.port.on('message', (entry: JournalEntry) => {
      if (stopping) return;
      endIfKilled();
      applyStreamed(entry.batch, Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength));
      Atomics.store(words, FEED_WORDS.ACKED, BigInt(batch));
      Atomics.notify(words, FEED_WORDS.ACKED);
    });
    // The front end says when to start (after its checks of the recovered state, at a start).
    startFollowing = () => setup.port.postMessage({ type: 'from', batch } satisfies FollowFrom);
    if (stopping) resolve();
  });
  clearInterval(tick);
  setup.port.close();
}

/** Applies the primary's batch `entryBatch` (its journal entry `bytes`) and commits it (see follow). */
function applyStreamed(entryBatch: number, bytes: Buffer): void {
  if (entryBatch <= batch) return;
  if (entryBatch !== batch + 1) {
    storageFailed('the replicated journal skips batches', new Error(`shard ${data.shard} holds batch ${batch}, and the stream goes on at ${entryBatch}`), []);
  }
  replayEntry(core, bytes, entryBatch, frame, (replayed, outcome, _batch, rebuilt) => {
    if (outcome.error === '') {
      open.journaledFrames++;
      record(outcome, rebuilt.events, open.changes);
    }
    open.answered(answerOf(replayed.command, outcome, rebuilt.events));
  });
  batch = entryBatch;
  commitStreamed(bytes);
}

/** Commits the open batch of a replica (`bytes`: the batch's journal entry; none: snapshot chunks only), then writes its answers. */
function commitStreamed(bytes: Buffer | undefined): void {
  const closed = open;
  open = new OpenBatch();
  const commitStarted = performance.now();
  try {
    store.commitBatch(batch, bytes ?? Buffer.alloc(0), closed.changes, SNAPSHOT_CHUNKS_PER_BATCH);
  } catch (error) {
    storageFailed('commit failed', error, []);
  }
  counters.recordCommit(closed.answerStarts.length, (performance.now() - commitStarted) / 1000);
  countBooks();
  writeAnswers(closed);
  framesSinceSnapshot += closed.journaledFrames;
  if (framesSinceSnapshot >= data.snapshotEveryFrames && !store.snapshotPending()) startSnapshot();
}

async function loop(): Promise<void> {
  let lastYield = performance.now();
  const fed = feed;
  const releasable = fed?.sync === true ? (): boolean => fed.releasable() || fed.fenced() : undefined;
  while (!stopping) {
    endIfKilled();
    if (fed !== undefined) tendFeed(fed);
    if (commandRing.waitForFrame(SPIN_US, IDLE_WAIT_MS, releasable)) {
      drain();
      commitOpenBatch();
    } else if (store.snapshotPending()) {
      commitOpenBatch();
    }
    const now = performance.now();
    if (now - lastYield >= YIELD_EVERY_MS || commandRing.peek() === undefined) {
      await yieldToEventLoop();
      lastYield = performance.now();
    }
  }
  // Stop: answer what is already in the ring, then leave a snapshot so the next start is quick.
  while (commandRing.peek() !== undefined) {
    if (feed !== undefined) tendFeed(feed);
    drain();
    commitOpenBatch();
  }
  // What the stream has not taken within the wait stays unanswered: the front end tells those
  // clients to read their orders' status.
  if (feed !== undefined) {
    feed.waitFor(batch, STOP_STREAM_WAIT_MS, endIfKilled);
    if (!feed.fenced()) feed.release(writeAnswerRanges);
  }
  await finish();
}

/** A stop's end: a snapshot of the state as it stops, so the next start replays nothing, and the store closed. */
async function finish(): Promise<void> {
  // A snapshot still being written is finished first; then one of the state as it stops.
  store.finishSnapshot();
  if (framesSinceSnapshot > 0) {
    startSnapshot();
    store.finishSnapshot();
  }
  await store.close();
  // Closing the port lets the thread exit; the front end waits for that.
  port.close();
}

/**
 * After recovery, with a replicated journal: sends the stream every committed batch it lacks
 * (the previous worker's, or this data directory's before replication was on). A stream that
 * holds more of this shard than the data directory means this server is not the primary it
 * was: it must not serve.
 */
function sendUnstreamed(feed: JournalFeed): void {
  const streamed = feed.acked();
  if (streamed > batch) {
    storageFailed('the replicated journal is ahead of this data directory', new Error(
      `the stream holds batch ${streamed} of shard ${data.shard}, this data directory only ${batch}: another server was the primary since; start this one from that primary's data`,
    ), []);
  }
  store.keepJournalAfter(streamed);
  let expected = streamed + 1;
  for (const [entryBatch, bytes] of store.journalAfter(streamed)) {
    // A stream that began later than this data directory starts at its first entry; a gap inside it would break it.
    if (entryBatch !== expected && streamed > 0) {
      storageFailed('the replicated journal cannot be completed', new Error(`the stream holds shard ${data.shard} up to batch ${streamed}, and this data directory pruned batch ${expected}`), []);
    }
    feed.send(entryBatch, bytes);
    expected = entryBatch + 1;
  }
}

const recovery = recover();
countBooks();
post({
  type: 'recovered', marketKeys: [...core.marketKeys], netFunding: [...core.netFunding], recovery, threadId: currentThreadId(), answered: answeredAgain,
});
if (feed !== undefined) sendUnstreamed(feed);
// The dead worker's committed commands are answered now (the front end reads the ring from
// 'recovered' on), whether or not this worker can serve: reading the journal needs no room.
// With a synchronous replicated journal, once the stream holds them.
if (feed?.sync === true) holdAnswers(open);
else writeAnswers(open);
open = new OpenBatch();
// A write before serving: a disk that is still full (or failing) keeps the shard down instead of
// taking orders that could not be committed.
try {
  store.probeWrite();
} catch (error) {
  storageFailed('the write before serving failed', error, []);
}
post({ type: 'ready' });
if (data.following === undefined) {
  await loop();
} else {
  await follow(data.following);
  if (promotion === undefined || stopping) {
    await finish();
  } else {
    // Promoted: every batch it applied is the stream's (the front end waited for that), and from
    // now on it takes commands and appends its own.
    const promoted = new JournalFeed(promotion);
    feed = promoted;
    sendUnstreamed(promoted);
    post({ type: 'promoted', batch });
    await loop();
  }
}

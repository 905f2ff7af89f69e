// The replication thread (REPLICATION with NATS): appends every shard's committed batches to the
// JetStream stream, in order, and tells each shard, in shared memory, the last batch the stream
// holds (engine/shard/journal_feed.ts). Its own thread, with its own event loop, so neither the
// shards (which block between frames) nor the front end (the state's thread) spend time on NATS.
//
// Per shard, one message is in flight at a time: whatever the shard committed meanwhile goes
// out together in the next one (up to messageBytesMax), so a slower stream gets larger messages
// instead of a longer queue. Each message expects the subject's last sequence to be the one this
// thread appended last (Nats-Expected-Last-Subject-Sequence): if another server appended to the
// subject since (it took over as primary), the append is refused and the shard is FENCED; its
// answers are never released. Each message has an id (Nats-Msg-Id), so an append retried after
// a lost acknowledgement is taken once. An append that fails otherwise (a NATS node down, the
// stream electing a leader) is retried, with a growing pause, until it is taken.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { DiscardPolicy, jetstream, jetstreamManager, StorageType, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Ring, type RingLayout } from '../../engine/ring.js';
import { FEED_STATE, FEED_WORDS, type FollowFrom, type JournalEntry } from '../../engine/shard/journal_feed.js';
import { encodeEntry, JOURNAL_HEADERS, JournalReader, journalSubject, journalSubjects, streamedBatch } from './journal_message.js';
import { stateSubject } from './state_changes.js';
import { lastMessage, seekAfter } from './stream_reader.js';
import { Lease } from './lease.js';
import { natsOptions } from './nats_connect.js';
import {
  apiErrorCode, JS_ERRORS, PUBLISH_STATS, PUBLISH_STATS_PER_SHARD, type PublisherData, type PublisherMessage, type PublisherReply,
} from './wire.js';

const data = workerData as PublisherData;
const port = parentPort!;
/**
 * This server's term as the primary (its lease's revision, lease.ts); 0 while it holds no lease.
 * Every append carries it, and a subject whose last message carries a later one is not this
 * server's to append to.
 */
let term = 0;
/** The primary's lease (lease.ts), once this server asked for it or watches it. */
let lease: Lease | undefined;
const stats = new Float64Array(data.stats);

/** Pauses between retries of a failed append or read: doubling from the first to the last. */
const RETRY_FIRST_MS = 50;
const RETRY_LAST_MS = 2_000;
/** How long one append may wait for its acknowledgement before it is tried again. */
const APPEND_TIMEOUT_MS = 5_000;
/** Bytes of a message's payload: under NATS's max_payload (1 MiB by default), with room for headers. */
const MESSAGE_BYTES_CAP = 512 * 1024;
/** How long a start waits for JetStream to answer (a cluster electing its leader) before it fails. */
const JETSTREAM_READY_MS = 30_000;
/** With REPLICATION=async, how long a message waits for more batches to go with it. */
const ASYNC_GATHER_MS = 5;
/** JetStream's window for message ids, in which an append tried again is taken once. */
const DUPLICATE_WINDOW_NS = 120_000_000_000;

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function reply(message: PublisherReply): void {
  port.postMessage(message);
}

function log(level: 'info' | 'warn' | 'error', message: string, fields: Record<string, string | number | boolean | null | undefined>): void {
  reply({ type: 'log', level, message, fields });
}

/** One shard's subject: its queue of committed entries and what the stream holds. */
class ShardSubject {
  readonly subject: string;
  private readonly words: BigInt64Array;
  private wake: Ring | undefined;
  private feed: MessagePort | undefined;
  private readonly queue: { batch: number; entry: Uint8Array }[] = [];
  private inFlight: Promise<void> | undefined;
  /** The stream sequence of the last message on the subject (0: none). */
  private lastSeq = 0;
  private fenced = false;

  constructor(readonly shard: number, shared: SharedArrayBuffer, private readonly js: JetStreamClient, private readonly bytesMax: number) {
    this.subject = subjectFor(shard);
    this.words = new BigInt64Array(shared);
  }

  /**
   * A worker starts: what the previous one sent and is still in flight settles first, what it
   * left queued is dropped (the new worker sends, from its journal, everything after what the
   * stream holds), and the stream's last batch of the shard is read and written to ACKED.
   */
  async attach(feed: MessagePort | undefined, wake: SharedArrayBuffer | undefined, layout: RingLayout | undefined, jsm: JetStreamManager): Promise<number> {
    this.feed?.close();
    this.feed = undefined;
    this.queue.length = 0;
    await this.inFlight;
    const { lastBatch, lastSeq } = await claimSubject(this.js, jsm, this.subject);
    this.lastSeq = lastSeq;
    this.fenced = false;
    Atomics.store(this.words, FEED_WORDS.STATE, FEED_STATE.OK);
    Atomics.store(this.words, FEED_WORDS.ACKED, BigInt(lastBatch));
    this.wake = wake === undefined || layout === undefined ? undefined : new Ring(wake, layout);
    this.feed = feed;
    feed?.on('message', (entry: JournalEntry) => this.enqueue(entry.batch, entry.bytes));
    return lastBatch;
  }

  /** Queues a committed batch (a shard's, or the front end's change) to append. */
  enqueue(batch: number, bytes: Uint8Array): void {
    this.queue.push({ batch, entry: encodeEntry(batch, bytes) });
    this.pump();
  }

  /** Resolves once nothing is in flight. */
  settled(): Promise<void> {
    return this.inFlight ?? Promise.resolve();
  }

  detach(): void {
    this.feed?.close();
    this.feed = undefined;
    this.queue.length = 0;
  }

  private pump(): void {
    if (this.inFlight !== undefined || this.queue.length === 0 || this.fenced) return;
    // REPLICATION=async: no answer waits for the stream, so the next message waits a moment for
    // more batches to go with it (each message costs a write and an acknowledgement on this
    // thread, whatever its size), unless it is half full already. With sync it goes at once.
    const gather = data.mode === 'async' && this.queuedBytes() < this.bytesMax / 2 ? delay(ASYNC_GATHER_MS) : undefined;
    this.inFlight = (gather === undefined ? this.appendNext() : gather.then(() => this.appendNext())).finally(() => {
      this.inFlight = undefined;
      this.pump();
    });
  }

  private queuedBytes(): number {
    let bytes = 0;
    for (const { entry } of this.queue) bytes += entry.length;
    return bytes;
  }

  /** Appends the queue's oldest entries (or the parts of one too long for a message). */
  private async appendNext(): Promise<void> {
    const first = this.queue[0]!;
    if (first.entry.length > this.bytesMax) {
      this.queue.shift();
      const count = Math.ceil(first.entry.length / this.bytesMax);
      for (let part = 1; part <= count; part++) {
        const payload = first.entry.subarray((part - 1) * this.bytesMax, part * this.bytesMax);
        if (!await this.append(payload, first.batch, part === count ? first.batch : undefined, `${part}/${count}`)) return;
      }
      this.acked(first.batch);
      return;
    }
    let bytes = 0;
    let taken = 0;
    while (taken < this.queue.length && bytes + this.queue[taken]!.entry.length <= this.bytesMax) bytes += this.queue[taken++]!.entry.length;
    const entries = this.queue.splice(0, taken);
    const payload = new Uint8Array(bytes);
    let at = 0;
    for (const { entry } of entries) {
      payload.set(entry, at);
      at += entry.length;
    }
    const lastBatch = entries[entries.length - 1]!.batch;
    if (await this.append(payload, first.batch, lastBatch, undefined)) this.acked(lastBatch);
  }

  /** One message, tried until the stream takes it; false once the subject is fenced. */
  private async append(payload: Uint8Array, firstBatch: number, lastBatch: number | undefined, part: string | undefined): Promise<boolean> {
    const header = headers();
    header.set(JOURNAL_HEADERS.TERM, String(term));
    header.set(JOURNAL_HEADERS.BATCH, String(firstBatch));
    if (lastBatch !== undefined) header.set(JOURNAL_HEADERS.LAST, String(lastBatch));
    if (part !== undefined) header.set(JOURNAL_HEADERS.PART, part);
    // The term is part of the id: JetStream answers an id it has seen as taken, whatever the
    // message expects, and two primaries number their batches alike.
    const msgID = `${term}.${this.shard}.${firstBatch}${lastBatch === undefined || lastBatch === firstBatch ? '' : `-${lastBatch}`}${part === undefined ? '' : `.${part}`}`;
    const at = this.shard * PUBLISH_STATS_PER_SHARD;
    let pauseMs = RETRY_FIRST_MS;
    for (;;) {
      try {
        const ack = await this.js.publish(this.subject, payload, {
          msgID, headers: header, timeout: APPEND_TIMEOUT_MS, expect: { lastSubjectSequence: this.lastSeq },
        });
        this.lastSeq = ack.seq;
        stats[at + PUBLISH_STATS.MESSAGES]!++;
        stats[at + PUBLISH_STATS.BYTES]! += payload.length;
        if (pauseMs > RETRY_FIRST_MS) log('info', 'replicated journal appends again', { shard: this.shard });
        return true;
      } catch (error) {
        if (apiErrorCode(error) === JS_ERRORS.WRONG_LAST_SEQUENCE) {
          this.fence(error);
          return false;
        }
        stats[at + PUBLISH_STATS.RETRIES]!++;
        if (pauseMs === RETRY_FIRST_MS) log('warn', 'replicated journal append failed; retrying', { shard: this.shard, error: messageOf(error) });
        await delay(pauseMs);
        pauseMs = Math.min(RETRY_LAST_MS, pauseMs * 2);
      }
    }
  }

  private acked(batch: number): void {
    Atomics.store(this.words, FEED_WORDS.ACKED, BigInt(batch));
    Atomics.notify(this.words, FEED_WORDS.ACKED);
    this.wake?.wakeConsumer();
    // The front end's changes: told as a message, for their stores' outboxes (outbox.ts) to forget
    // them; no thread waits on this word but a sync request's answer.
    if (this.shard === data.shards) reply({ type: 'changes-appended', batch });
  }

  private fence(error: unknown): void {
    this.fenced = true;
    // Another term claimed this subject: this server is no primary, now or later.
    lease?.abandon();
    this.queue.length = 0;
    Atomics.store(this.words, FEED_WORDS.STATE, FEED_STATE.FENCED);
    Atomics.notify(this.words, FEED_WORDS.ACKED);
    this.wake?.wakeConsumer();
    log('error', 'another server appended to this shard\'s replicated journal: this server is no longer its primary', { shard: this.shard, error: messageOf(error) });
  }
}

/**
 * Makes `subject` this server's to append to (it holds the lease, term `term`): reads where the
 * subject stands and, unless its last message is of this term already, appends an empty message
 * of this term there, expecting to be last; from then on an append of an older term is refused
 * (the previous primary's, if it still runs). A subject whose last message is of a later term
 * belongs to a later primary: this server has lost, and may not append.
 */
async function claimSubject(js: JetStreamClient, jsm: JetStreamManager, subject: string): Promise<{ lastBatch: number; lastSeq: number }> {
  for (;;) {
    const last = await retried(`read the last message of ${subject}`, () => lastMessage(jsm, data.stream, subject));
    const lastBatch = last === undefined ? 0 : streamedBatch(last.header, subject);
    const lastTerm = last === undefined ? 0 : Number(last.header.get(JOURNAL_HEADERS.TERM) || 0);
    if (lastTerm > term) {
      lease?.abandon();
      throw new Error(`${subject} was appended to by a later primary (term ${lastTerm}; this server's is ${term})`);
    }
    if (lastTerm === term) return { lastBatch, lastSeq: last?.seq ?? 0 };
    const header = headers();
    header.set(JOURNAL_HEADERS.TERM, String(term));
    header.set(JOURNAL_HEADERS.BATCH, String(lastBatch + 1));
    header.set(JOURNAL_HEADERS.LAST, String(lastBatch));
    try {
      const ack = await js.publish(subject, new Uint8Array(0), {
        msgID: `${subject}.term.${term}`, headers: header, timeout: APPEND_TIMEOUT_MS, expect: { lastSubjectSequence: last?.seq ?? 0 },
      });
      log('info', 'replicated journal subject claimed for this term', { subject, term, batch: lastBatch });
      return { lastBatch, lastSeq: ack.seq };
    } catch (error) {
      // Appended to meanwhile (the previous primary, still running): read it again.
      if (apiErrorCode(error) !== JS_ERRORS.WRONG_LAST_SEQUENCE) await delay(RETRY_FIRST_MS);
    }
  }
}

/** Batches a replica's thread posts a worker ahead of what it applied. */
const FOLLOW_AHEAD_BATCHES = 64;
/** Messages one pull of a replica's consumer asks for. */
const FOLLOW_PULL_MESSAGES = 256;

/**
 * A replica's shard: reads the shard's subject in order through an ordered consumer and posts
 * its worker every batch after the one the worker holds, at most FOLLOW_AHEAD_BATCHES ahead of
 * what it applied (its ACKED word). A worker that starts again gets a new follower.
 */
class ShardFollower {
  private stopped = false;
  private readonly words: BigInt64Array;

  constructor(
    readonly shard: number, private readonly feed: MessagePort, shared: SharedArrayBuffer, private readonly js: JetStreamClient, private readonly jsm: JetStreamManager,
  ) {
    this.words = new BigInt64Array(shared);
    feed.once('message', (from: FollowFrom) => {
      this.run(from.batch).catch((error: unknown) => {
        if (!this.stopped) log('error', 'replica stopped following the replicated journal', { shard, error: messageOf(error) });
      });
    });
    feed.once('close', () => this.stop());
  }

  stop(): void {
    this.stopped = true;
  }

  private async run(from: number): Promise<void> {
    const subject = subjectFor(this.shard);
    let posted = from;
    // Where to start again after a consumer fails: the message after the last whole entry read.
    let nextSeq = 0;
    let reader = new JournalReader();
    while (!this.stopped) {
      try {
        if (nextSeq === 0) {
          nextSeq = await seekAfter(this.jsm, data.stream, subject, from);
          log('info', 'replica follows the replicated journal', { subject, afterBatch: from, fromSequence: nextSeq });
        }
        const consumer = await this.js.consumers.get(data.stream, { filter_subjects: subject, opt_start_seq: nextSeq });
        const messages = await consumer.consume({ max_messages: FOLLOW_PULL_MESSAGES });
        for await (const message of messages) {
          if (this.stopped) break;
          stats[this.shard * PUBLISH_STATS_PER_SHARD + PUBLISH_STATS.MESSAGES]!++;
          stats[this.shard * PUBLISH_STATS_PER_SHARD + PUBLISH_STATS.BYTES]! += message.data.length;
          for (const entry of reader.read(message.data, message.headers?.get(JOURNAL_HEADERS.PART))) {
            if (entry.batch <= posted) continue;
            if (entry.batch > posted + 1) {
              // The worker stops on it too (a replica must not skip a batch); this says what to do.
              log('error', 'the replicated journal no longer holds the batches after this replica\'s (a snapshot purged them): start the replica again on an empty DATA_DIR, from the latest snapshot', {
                subject, holds: posted, streamGoesOnAt: entry.batch,
              });
            }
            await this.roomFor(entry.batch);
            if (this.stopped) break;
            const bytes = new Uint8Array(entry.bytes);
            this.feed.postMessage({ batch: entry.batch, bytes } satisfies JournalEntry, [bytes.buffer]);
            posted = entry.batch;
          }
          // Resumed only between entries: a part is read again from its entry's first part.
          const part = message.headers?.get(JOURNAL_HEADERS.PART) ?? '';
          if (part === '' || /^(\d+)\/\1$/.test(part)) nextSeq = message.seq + 1;
        }
        messages.stop();
      } catch (error) {
        if (this.stopped) return;
        log('warn', 'replica\'s journal consumer failed; reading again', { shard: this.shard, error: messageOf(error) });
        reader = new JournalReader();
        await delay(RETRY_LAST_MS);
      }
    }
  }

  /** Waits until the worker applied all but FOLLOW_AHEAD_BATCHES before `batch`. */
  private async roomFor(batch: number): Promise<void> {
    for (;;) {
      const applied = Atomics.load(this.words, FEED_WORDS.ACKED);
      if (this.stopped || batch - Number(applied) <= FOLLOW_AHEAD_BATCHES) return;
      const waited = Atomics.waitAsync(this.words, FEED_WORDS.ACKED, applied, 100);
      if (waited.async) await waited.value;
    }
  }
}

/** A shard's subject, or (index `data.shards`) the front end's changes'. */
function subjectFor(index: number): string {
  return index === data.shards ? stateSubject(data.stream) : journalSubject(data.stream, index);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs `attempt` until it succeeds, pausing longer after each failure (logged once). */
async function retried<T>(what: string, attempt: () => Promise<T>): Promise<T> {
  let pauseMs = RETRY_FIRST_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (pauseMs === RETRY_FIRST_MS) log('warn', `could not ${what}; retrying`, { error: messageOf(error) });
      await delay(pauseMs);
      pauseMs = Math.min(RETRY_LAST_MS, pauseMs * 2);
    }
  }
}

/** Creates the stream, or checks that the one there takes the journal's subjects. */
async function ensureStream(nc: NatsConnection, jsm: JetStreamManager): Promise<number> {
  const replicas = data.replicas ?? (nc.info?.cluster === undefined ? 1 : 3);
  const subjects = [journalSubjects(data.stream), stateSubject(data.stream)];
  try {
    const info = await jsm.streams.info(data.stream);
    if (!subjects.every((subject) => info.config.subjects.includes(subject))) {
      throw new Error(`the NATS stream ${data.stream} exists without the subjects ${subjects.join(' and ')}: it is not clobd's (NATS_STREAM names another)`);
    }
    return info.config.num_replicas;
  } catch (error) {
    if (apiErrorCode(error) !== JS_ERRORS.STREAM_NOT_FOUND) throw error;
  }
  await jsm.streams.add({
    name: data.stream, subjects, num_replicas: replicas, storage: StorageType.File,
    discard: DiscardPolicy.Old, duplicate_window: DUPLICATE_WINDOW_NS,
  });
  return replicas;
}

async function main(): Promise<void> {
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let replicas: number;
  try {
    nc = await connect({ ...natsOptions(data, 'clobd', data.connectTimeoutMs), maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    // A cluster that is starting (or electing its JetStream leader) answers JetStream requests
    // only once it has one: asked again until then, for JETSTREAM_READY_MS at most.
    const deadline = Date.now() + JETSTREAM_READY_MS;
    for (;;) {
      try {
        jsm = await jetstreamManager(nc, { timeout: APPEND_TIMEOUT_MS });
        replicas = await ensureStream(nc, jsm);
        break;
      } catch (error) {
        if (Date.now() >= deadline || apiErrorCode(error) !== undefined) throw error;
        await delay(RETRY_LAST_MS);
      }
    }
  } catch (error) {
    reply({ type: 'failed', message: `cannot use NATS JetStream at ${data.servers.join(', ')}: ${messageOf(error)}` });
    port.close();
    return;
  }
  const js = jetstream(nc, { timeout: APPEND_TIMEOUT_MS });
  const bytesMax = Math.min(MESSAGE_BYTES_CAP, Math.max(1024, (nc.info?.max_payload ?? 1 << 20) - 16 * 1024));
  const subjects = new Map<number, ShardSubject>();
  const followers = new Map<number, ShardFollower>();
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') log(status.type === 'disconnect' ? 'warn' : 'info', `NATS ${status.type}`, { server: status.server });
    }
  })();
  port.on('message', (message: PublisherMessage) => {
    switch (message.type) {
      case 'attach': {
        // A standby promoted: its worker stops following and appends from here on.
        followers.get(message.shard)?.stop();
        followers.delete(message.shard);
        let subject = subjects.get(message.shard);
        if (subject === undefined) subjects.set(message.shard, subject = new ShardSubject(message.shard, message.shared, js, bytesMax));
        subject.attach(message.feed, message.wake, message.layout, jsm).then(
          (batch) => reply({ type: 'attached', shard: message.shard, batch }),
          (error: unknown) => reply({ type: 'attach-failed', shard: message.shard, message: messageOf(error) }),
        );
        break;
      }
      case 'state':
        subjects.get(data.shards)?.enqueue(message.batch, message.bytes);
        break;
      case 'lease':
        void (async () => {
          // Losing the lease fences nothing here: an append in flight may be taken, and is then
          // answered; once a new primary claims a subject, every later append is refused.
          lease ??= await Lease.open(nc, data.stream, replicas, message.holder, {
            lost: (holder) => reply({ type: 'lease-lost', holder }),
            regained: (regainedTerm) => {
              term = regainedTerm;
              reply({ type: 'lease-regained', term: regainedTerm });
            },
          });
          if (message.watch) {
            lease.watch(() => reply({ type: 'lease-vacant' }));
            return;
          }
          const acquired = await lease.acquire();
          if ('term' in acquired) {
            term = acquired.term;
            reply({ type: 'lease-acquired', term });
          } else {
            reply({ type: 'lease-held', holder: acquired.holder });
          }
        })().catch((error: unknown) => reply({ type: 'lease-held', holder: undefined, error: messageOf(error) }));
        break;
      case 'lease-holder':
        lease?.name(message.holder);
        break;
      case 'claim':
        // A standby that took the lease: every subject is claimed for its term before it stops following.
        void Promise.all(Array.from({ length: data.shards + 1 }, (_, index) => claimSubject(js, jsm, subjectFor(index)))).then(
          (claimed) => reply({ type: 'claimed', batches: claimed.map(({ lastBatch }) => lastBatch) }),
          (error: unknown) => reply({ type: 'claim-failed', message: messageOf(error) }),
        );
        break;
      case 'follow':
        followers.get(message.shard)?.stop();
        followers.set(message.shard, new ShardFollower(message.shard, message.feed, message.shared, js, jsm));
        break;
      case 'stop':
        for (const follower of followers.values()) follower.stop();
        void Promise.race([Promise.all([...subjects.values()].map((subject) => subject.settled())), delay(APPEND_TIMEOUT_MS)]).then(async () => {
          for (const subject of subjects.values()) subject.detach();
          // Last: a standby may take over only once everything this server committed is appended.
          await lease?.release();
          await nc.drain().catch(() => undefined);
          reply({ type: 'stopped' });
          port.close();
        });
        break;
      default:
        break;
    }
  });
  reply({ type: 'ready', replicas, messageBytesMax: bytesMax });
}

await main();

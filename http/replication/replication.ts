// The front end's handle on the replicated journal (NATS set): it starts the replication thread
// (publisher.ts), attaches each shard worker to it as the worker starts, and reads what the
// thread counts. The shards feed the thread directly (engine/shard/journal_feed.ts); nothing of
// the order path passes through the front end's thread.
import { MessageChannel, Worker } from 'node:worker_threads';
import type { RingLayout } from '../../engine/ring.js';
import { FEED_STATE, FEED_WORD_COUNT, FEED_WORDS, type JournalFeedSetup, type JournalFollowSetup } from '../../engine/shard/journal_feed.js';
import { pack } from 'msgpackr';
import type { ReplicationConfig, ReplicationMode } from '../config.js';
import type { ChangeLog } from './state_changes.js';
import type { LeaseHolder } from './lease.js';
import type { Logger } from '../log.js';
import { PUBLISH_STATS, PUBLISH_STATS_PER_SHARD, type PublisherData, type PublisherMessage, type PublisherReply } from './wire.js';

/** How long the start waits for NATS before it fails. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Most bytes of committed entries a shard lets wait for the stream before it waits itself. */
export const FEED_BYTES_MAX = 64 * 1024 * 1024;

/** The start could not use NATS: the server does not start (its message says why). */
export class ReplicationUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplicationUnavailable';
  }
}

interface Waiting {
  readonly resolve: (batch: number) => void;
  readonly reject: (error: Error) => void;
}

export class Replication {
  /** Each shard's JournalFeed words, kept across its workers. */
  private readonly words: BigInt64Array[];
  private readonly stats: Float64Array;
  private readonly attaching = new Map<number, Waiting>();
  private stopped: Promise<void> | undefined;
  /** The primary's changes recorded so far (state_changes.ts): the number of the last. */
  private changesRecorded = 0;
  /** What runs once the stream holds a recorded change, by its number, oldest first (ChangeLog.record). */
  private readonly changesAwaited: [number, () => Promise<void> | undefined][] = [];
  private leaseLost: (holder: LeaseHolder | undefined) => void = () => undefined;
  private leaseRegained: () => void = () => undefined;

  private constructor(
    readonly mode: ReplicationMode, readonly replicas: number, readonly stream: string, private readonly thread: Worker,
    private readonly shared: SharedArrayBuffer[], stats: SharedArrayBuffer, private readonly log: Logger,
  ) {
    this.words = shared.map((buffer) => new BigInt64Array(buffer));
    this.stats = new Float64Array(stats);
    thread.on('message', (message: PublisherReply) => this.onMessage(message));
  }

  /** Starts the replication thread and waits until the stream is there; throws ReplicationUnavailable. */
  static async start(config: ReplicationConfig, shards: number, log: Logger): Promise<Replication> {
    // One more than the shards: the front end's changes (state_changes.ts) count as index SHARDS.
    const stats = new SharedArrayBuffer((shards + 1) * PUBLISH_STATS_PER_SHARD * 8);
    const data: PublisherData = {
      servers: config.servers, auth: config.auth, shards, stream: config.stream, replicas: config.replicas, connectTimeoutMs: CONNECT_TIMEOUT_MS, stats, mode: config.mode,
    };
    const thread = new Worker(new URL('./publisher.js', import.meta.url), { workerData: data });
    const ready = await new Promise<Extract<PublisherReply, { type: 'ready' }>>((resolve, reject) => {
      const onMessage = (message: PublisherReply): void => {
        if (message.type === 'ready') resolve(message);
        else if (message.type === 'failed') reject(new ReplicationUnavailable(message.message));
        else return;
        thread.off('message', onMessage);
      };
      thread.on('message', onMessage);
      thread.once('error', (error) => reject(new ReplicationUnavailable(`the replication thread failed: ${error.message}`)));
      thread.once('exit', (code) => reject(new ReplicationUnavailable(`the replication thread exited (${code}) before NATS was ready`)));
    }).catch(async (error: unknown) => {
      await thread.terminate();
      throw error;
    });
    const shared = Array.from({ length: shards + 1 }, () => new SharedArrayBuffer(FEED_WORD_COUNT * 8));
    log.info('replicated journal ready', { servers: config.servers.join(','), stream: config.stream, replicas: ready.replicas, mode: config.mode });
    return new Replication(config.mode, ready.replicas, config.stream, thread, shared, stats, log);
  }

  /**
   * A worker of `shard` is about to start on `commandRing`: the thread finishes with the previous
   * worker's entries, reads the stream's last batch of the shard, and the worker gets its feed.
   */
  async attach(shard: number, commandRing: SharedArrayBuffer, layout: RingLayout): Promise<JournalFeedSetup> {
    const channel = new MessageChannel();
    const shared = this.shared[shard]!;
    const attached = new Promise<number>((resolve, reject) => this.attaching.set(shard, { resolve, reject }));
    // Only a worker holding answers (sync) waits for acknowledgements in its ring's sleep: woken
    // for each one in async mode, it would wake for nothing (a context switch per message).
    const wake = this.mode === 'sync' ? commandRing : undefined;
    this.thread.postMessage({ type: 'attach', shard, feed: channel.port2, shared, wake, layout } satisfies PublisherMessage, [channel.port2]);
    await attached;
    return { port: channel.port1, shared, sync: this.mode === 'sync', bytesMax: FEED_BYTES_MAX };
  }

  /**
   * The primary's own changes (state_changes.ts) go to the stream from now on, numbered on from
   * the last the stream holds: every store's `changes` is this.
   */
  async recordChanges(): Promise<ChangeLog> {
    const index = this.shared.length - 1;
    const attached = new Promise<number>((resolve, reject) => this.attaching.set(index, { resolve, reject }));
    this.thread.postMessage({ type: 'attach', shard: index, feed: undefined, shared: this.shared[index]!, wake: undefined, layout: undefined } satisfies PublisherMessage);
    this.changesRecorded = await attached;
    return {
      record: (change, appended) => {
        this.changesRecorded++;
        const bytes = pack(change);
        this.thread.postMessage({ type: 'state', batch: this.changesRecorded, bytes } satisfies PublisherMessage);
        if (appended !== undefined) this.changesAwaited.push([this.changesRecorded, appended]);
      },
    };
  }

  /**
   * Resolves once the stream holds every change recorded so far (undefined when it does
   * already): with REPLICATION=sync a request that changed the catalog, a key, a balance or a
   * profile is answered only then.
   */
  changesAppended(): Promise<void> | undefined {
    const words = this.words[this.words.length - 1]!;
    const wanted = this.changesRecorded;
    if (this.mode === 'async' || Number(Atomics.load(words, FEED_WORDS.ACKED)) >= wanted) return undefined;
    return (async () => {
      for (;;) {
        const acked = Atomics.load(words, FEED_WORDS.ACKED);
        if (Number(acked) >= wanted || Atomics.load(words, FEED_WORDS.STATE) === FEED_STATE.FENCED) return;
        const waited = Atomics.waitAsync(words, FEED_WORDS.ACKED, acked, 1_000);
        if (waited.async) await waited.value;
      }
    })();
  }

  /** A replica: the thread posts the primary's changes after the last one applied (which the port's holder names first). */
  followChanges(): JournalFollowSetup {
    return this.follow(this.shared.length - 1);
  }

  /**
   * A replica's worker of `shard` is about to start: the thread will post it the primary's
   * batches after the last one it holds (it says which, first), no more than a few ahead of what
   * it applied.
   */
  follow(shard: number): JournalFollowSetup {
    const channel = new MessageChannel();
    const shared = this.shared[shard]!;
    this.thread.postMessage({ type: 'follow', shard, feed: channel.port2, shared } satisfies PublisherMessage, [channel.port2]);
    return { port: channel.port1, shared };
  }

  /** The number of the primary's last change recorded (state_changes.ts); 0 before the first. */
  get changes(): number {
    return this.changesRecorded;
  }

  /** The last batch of `shard` the stream holds, as the thread last wrote it. */
  acked(shard: number): number {
    return Number(Atomics.load(this.words[shard]!, FEED_WORDS.ACKED));
  }

  /** Whether another server appended to the shard's subject since this one attached it. */
  fenced(shard: number): boolean {
    return Atomics.load(this.words[shard]!, FEED_WORDS.STATE) === FEED_STATE.FENCED;
  }

  /** The thread's counters for `shard`: messages appended, their bytes, appends tried again. */
  counts(shard: number): { messages: number; bytes: number; retries: number } {
    const at = shard * PUBLISH_STATS_PER_SHARD;
    return { messages: this.stats[at + PUBLISH_STATS.MESSAGES]!, bytes: this.stats[at + PUBLISH_STATS.BYTES]!, retries: this.stats[at + PUBLISH_STATS.RETRIES]! };
  }

  /** After the shards stopped: appends what is in flight, then ends the thread. */
  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      this.thread.once('exit', () => resolve());
      this.thread.postMessage({ type: 'stop' } satisfies PublisherMessage);
    });
    return this.stopped;
  }

  /**
   * Takes the primary's lease (lease.ts) for this server, at `url`: its term. One another server
   * holds is waited for while it may still lapse (a primary that just died), `waitMs` at most;
   * then this throws, naming the holder.
   */
  async acquireLease(holder: LeaseHolder, waitMs: number): Promise<number> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const answer = await this.ask<Extract<PublisherReply, { type: 'lease-acquired' | 'lease-held' }>>({ type: 'lease', holder, watch: false }, ['lease-acquired', 'lease-held']);
      if (answer.type === 'lease-acquired') {
        this.log.info('primary lease acquired', { term: answer.term, url: holder.url });
        return answer.term;
      }
      if (Date.now() >= deadline) {
        throw new ReplicationUnavailable(`another server is the primary on NATS stream ${this.stream}${answer.holder === undefined ? '' : ` (${answer.holder.url})`}${answer.error === undefined ? '' : ` (${answer.error})`}: start this one with \`follow\` to make it a standby`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** The lease's holder names where it listens now (its next renewal writes it). */
  advertise(holder: LeaseHolder): void {
    this.thread.postMessage({ type: 'lease-holder', holder } satisfies PublisherMessage);
  }

  /** A standby: `vacant` is called once when no one holds the primary's lease. */
  watchLease(holder: LeaseHolder, vacant: () => void): void {
    void this.ask({ type: 'lease', holder, watch: true }, ['lease-vacant']).then(vacant);
  }

  /**
   * `lost` is called when this server, the primary, lost its lease (with who holds it now, when
   * known), and `regained` when it took it again (no one else had).
   */
  onLease(lost: (holder: LeaseHolder | undefined) => void, regained: () => void): void {
    this.leaseLost = lost;
    this.leaseRegained = regained;
  }

  /** A standby that took the lease: every subject claimed for its term; their last batches (the front end's changes last). */
  async claim(): Promise<number[]> {
    const answer = await this.ask<Extract<PublisherReply, { type: 'claimed' | 'claim-failed' }>>({ type: 'claim' }, ['claimed', 'claim-failed']);
    if (answer.type === 'claim-failed') throw new ReplicationUnavailable(answer.message);
    return answer.batches;
  }

  /** A standby: resolves once its followers applied every subject through `batches` (as claim gives them). */
  async appliedThrough(batches: readonly number[]): Promise<void> {
    await Promise.all(batches.map(async (batch, index) => {
      const words = this.words[index]!;
      for (;;) {
        const applied = Atomics.load(words, FEED_WORDS.ACKED);
        if (Number(applied) >= batch) return;
        const waited = Atomics.waitAsync(words, FEED_WORDS.ACKED, applied, 100);
        if (waited.async) await waited.value;
      }
    }));
  }

  /** The stream holds the recorded changes through `batch`: what waited for them runs. */
  private changesAppendedThrough(batch: number): void {
    let count = 0;
    while (count < this.changesAwaited.length && this.changesAwaited[count]![0] <= batch) count++;
    for (const [number, appended] of this.changesAwaited.splice(0, count)) {
      appended()?.catch((error: unknown) => {
        // The outbox keeps the change until a later removal takes it, or the next start sends it again:
        // harmless, but the operator should know why.
        this.log.warn('a store could not remove from its outbox a change the replicated journal holds', { change: number, error: error instanceof Error ? error.message : String(error) });
      });
    }
  }

  /** Sends the thread `message` and resolves with its first reply of one of `types`. */
  private ask<T extends PublisherReply>(message: PublisherMessage, types: readonly PublisherReply['type'][]): Promise<T> {
    return new Promise<T>((resolve) => {
      const onMessage = (reply: PublisherReply): void => {
        if (!types.includes(reply.type)) return;
        this.thread.off('message', onMessage);
        resolve(reply as T);
      };
      this.thread.on('message', onMessage);
      this.thread.postMessage(message);
    });
  }

  private onMessage(message: PublisherReply): void {
    switch (message.type) {
      case 'lease-lost':
        this.log.error('primary lease lost: this server takes no changes until it holds it again', { holder: message.holder?.url ?? '' });
        this.leaseLost(message.holder);
        break;
      case 'lease-regained':
        this.log.info('primary lease taken again', { term: message.term });
        this.leaseRegained();
        break;
      case 'attached':
      case 'attach-failed': {
        const waiting = this.attaching.get(message.shard);
        this.attaching.delete(message.shard);
        if (message.type === 'attached') waiting?.resolve(message.batch);
        else waiting?.reject(new ReplicationUnavailable(`shard ${message.shard} could not attach to the replicated journal: ${message.message}`));
        break;
      }
      case 'changes-appended':
        this.changesAppendedThrough(message.batch);
        break;
      case 'log':
        this.log[message.level](message.message, message.fields);
        break;
      default:
        break;
    }
  }
}

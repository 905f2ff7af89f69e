// What the front end and a shard worker share: the worker's start data, the control messages
// (postMessage carries control only) and the ring layouts. Answers on the result ring are
// encoded by answer_codec.ts.
import type { AccountsView, BookView, MarketView } from '../state/reads.js';
import type { JournalFeedSetup, JournalFollowSetup } from './journal_feed.js';
import type { RingLayout } from '../ring.js';
import type { EngineOptions } from '../state/state.js';

export interface ShardWorkerData {
  readonly shard: number;
  readonly dataDir: string;
  readonly commandRing: SharedArrayBuffer;
  readonly resultRing: SharedArrayBuffer;
  readonly commandLayout: RingLayout;
  readonly resultLayout: RingLayout;
  readonly engine: EngineOptions;
  /** Start a snapshot once this many frames were journaled since the last one. */
  readonly snapshotEveryFrames: number;
  /** Most frames applied in one batch (one LMDB transaction). */
  readonly batchFramesMax: number;
  /** The shard's operator counters (ShardCounters), kept by the front end across restarts. */
  readonly counters: SharedArrayBuffer;
  /**
   * One Int32 the front end's test hook (ShardPool.killWorker) sets: the worker then ends at its
   * next point outside a write transaction, with KILLED_EXIT.
   */
  readonly killSwitch: SharedArrayBuffer;
  /**
   * Commands a worker that died had taken and not answered: recovery answers those it finds in
   * the journal after `afterBatch` (the batch that worker started from, so every frame there is
   * its own), since they were committed; the others were not, and the front end refuses them.
   */
  readonly unanswered: UnansweredCommands | undefined;
  /**
   * With a replicated journal (REPLICATION): where each committed batch goes, and what the
   * stream holds. Its ACKED word starts at the last batch the stream holds of this shard.
   */
  readonly journalFeed: JournalFeedSetup | undefined;
  /**
   * A replica (`follow`): the worker takes no commands; it applies the primary's batches from
   * the replicated journal, commits each under the primary's batch number, and answers them to
   * the front end's read models as if they were its own.
   */
  readonly following: JournalFollowSetup | undefined;
}

export interface UnansweredCommands {
  readonly afterBatch: number;
  readonly requestIds: readonly number[];
}

/** A worker's exit code when its storage failed (a commit, or the write it tries before it serves). */
export const STORAGE_FAILED_EXIT = 3;
/**
 * The exit code of a worker ended by the test hook's kill switch. A thread ended from outside
 * (Worker.terminate) while it is inside an LMDB write transaction never finishes its teardown:
 * lmdb-js's cleanup waits on the environment's write lock, which the ended transaction holds, so
 * its exit is never reported (seen under load: the shard then took commands no one ran).
 */
export const KILLED_EXIT = 70;

export interface ShardStatus {
  readonly stateHash: string;
  readonly seq: number;
  readonly batch: number;
  readonly invariantsHold: boolean;
  readonly invariantError: string;
  /** The engine's supply and fee totals and counts (EngineStats). */
  readonly stats: Record<string, number>;
  readonly netFunding: [string, number][];
  /** Durable commits since the front end started the shard, the frames they carried, and their total time. */
  readonly commits: number;
  readonly framesCommitted: number;
  readonly commitMs: number;
}

/**
 * What the start's check of the data directory needs of a shard (http/data_dir/agreement.ts):
 * its invariants and collateral, without the state hash a full status computes.
 */
export interface ShardBalances {
  /** Why the engine's invariants do not hold ('' when they do). */
  readonly invariantError: string;
  /** Collateral in the engine: deposits − withdrawals inside it. */
  readonly supplyMicros: number;
  readonly netFunding: readonly (readonly [string, number])[];
}

export interface RecoveryFigures {
  /** The last committed batch: where this worker's own batches start. */
  readonly lastBatch: number;
  readonly snapshotBatch: number;
  readonly replayedFrames: number;
  readonly loadMs: number;
  readonly replayMs: number;
}

/** Worker → front end. */
export type ShardMessage =
  // The state is rebuilt; the answers of the dead worker's committed commands follow on the
  // result ring. It carries only what the front end needs: a full status (state hash, invariant
  // check) costs seconds on a large book, so it is asked for separately.
  | {
    readonly type: 'recovered'; readonly marketKeys: string[]; readonly netFunding: [string, number][]; readonly recovery: RecoveryFigures;
    /** The worker's thread id in the kernel (thread_times.ts), for the operator metrics; undefined off Linux. */
    readonly threadId: number | undefined;
    /** Of the dead worker's unanswered commands, those found committed: their answers follow on the result ring. */
    readonly answered: number[];
  }
  // The storage took a write: the shard takes commands.
  | { readonly type: 'ready' }
  // Storage failed (a commit, or the write before serving); the worker exits with
  // STORAGE_FAILED_EXIT. `notExecuted`: the request ids of the batch whose commit failed.
  | { readonly type: 'storage-failed'; readonly message: string; readonly notExecuted: number[] }
  | { readonly type: 'status'; readonly token: number; readonly status: ShardStatus }
  | { readonly type: 'balances'; readonly token: number; readonly balances: ShardBalances }
  // A read that failed (a stored record that does not decode) answers its error; the worker goes on.
  | { readonly type: 'read'; readonly token: number; readonly value: unknown; readonly error?: string }
  // A backup's hold has begun (see HOLD): every batch up to `batch` is committed and nothing after
  // it is applied. `atMs`: when the hold began (epoch ms, fractional).
  | { readonly type: 'paused'; readonly token: number; readonly batch: number; readonly seq: number; readonly atMs: number }
  // A replica's worker took its promotion: it takes commands from now on, after `batch`.
  | { readonly type: 'promoted'; readonly batch: number };

/** Every market of a shard with its state, book and last trades, as of engine sequence number `seq`. */
export interface MarketData {
  readonly seq: number;
  readonly markets: {
    readonly key: string; readonly view: MarketView; readonly book: BookView;
    /** Per outcome: [price units, side, timeMs] of its last trade, or null. */
    readonly lastTrades: readonly ([number, number, number] | null)[];
    /** What its fills traded: [micros in all, then (unix hour, micros) of its last hours] (feed_tables.ts MarketVolumeValue), or null before its first fill. */
    readonly volume: readonly number[] | null;
  }[];
}

/** Every account's live orders and balances as of engine sequence number `seq` (the account read model's start). */
export interface AccountData {
  readonly seq: number;
  readonly accounts: AccountsView;
}

/**
 * Reads the front end may ask a shard for: the read models' starts, an order by id that the
 * account read model does not hold, tools and tests.
 */
export type ShardRead =
  | { readonly kind: 'order'; readonly orderId: string }
  | { readonly kind: 'openOrders'; readonly account: string }
  | { readonly kind: 'balance'; readonly account: string }
  | { readonly kind: 'book'; readonly market: number }
  | { readonly kind: 'market'; readonly market: number }
  | { readonly kind: 'storedOrders' }
  | { readonly kind: 'storedFills' }
  | { readonly kind: 'marketData' }
  | { readonly kind: 'accountData' };

/** Front end → worker. */
export type ShardControl =
  | { readonly type: 'status'; readonly token: number }
  | { readonly type: 'balances'; readonly token: number }
  | { readonly type: 'read'; readonly token: number; readonly read: ShardRead }
  // A backup's cut (http/backup/cut.ts): hold between two batches, on `hold` (see HOLD), for at
  // most `holdMaxMs`.
  | { readonly type: 'pause'; readonly token: number; readonly hold: SharedArrayBuffer; readonly holdMaxMs: number }
  | { readonly type: 'stop' }
  // A replica's worker may start applying the primary's batches (the front end checked what it recovered).
  | { readonly type: 'follow' }
  // A replica's worker becomes the primary's (a standby promoted): it stops following and appends to `journalFeed`.
  | { readonly type: 'promote'; readonly journalFeed: JournalFeedSetup };

/**
 * The word a backup's hold of a shard turns on (one Int32 shared by the front end and the worker).
 * The front end sets HELD and sends 'pause'; the worker, between two batches, answers 'paused'
 * and waits while the word is HELD or CUT. The front end takes the cut only after turning every
 * shard's HELD into CUT, and then sets RELEASED. A worker held longer than `holdMaxMs` turns HELD
 * into EXPIRED itself and goes on, and the front end's cut, finding EXPIRED, fails: a front end
 * that stalls cannot stop trading for longer than that.
 */
export const HOLD = { RELEASED: 0, HELD: 1, CUT: 2, EXPIRED: 3 } as const;

/**
 * Microseconds a shard polls its empty command ring before sleeping: about what a sleeping
 * thread takes to wake on this VM (~30 µs), so a command that follows within it costs no
 * wake-up, and an idle shard spends at most as much polling as one wake-up would cost.
 */
export const SPIN_US = 30;

export const COMMAND_LAYOUT: RingLayout = { slotCount: 1 << 14, slotBytes: 128 };
export const RESULT_LAYOUT: RingLayout = { slotCount: 1 << 15, slotBytes: 256 };

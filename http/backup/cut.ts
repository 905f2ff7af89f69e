// The running server's part of a backup (`node dist/http/main.js backup DIR`, commands.ts): a
// cut of every store at one point, taken between two batches of every shard, and a copy of each
// store as it stood there, written while trading goes on.
//
// Why the server must take part: the stores are separate LMDB environments, written by
// different threads (each shard's worker, the front end's thread, lmdb-js's write thread for the
// API keys). A copy of each made by another process, one after the other, puts each at its own
// moment: a treasury copied before a deposit and a shard copied after the order it funded
// disagree, and the start's agreement check (data_dir/agreement.ts) refuses them.
//
// The cut:
//   1. The key store holds new writes and waits for those in flight to commit (its writes are
//      lmdb-js asynchronous transactions, committed on another thread at any moment).
//   2. Every shard is asked to hold (HOLD in engine/shard/protocol.ts). A worker reads control
//      messages only between two batches, so when it answers, every batch it answered is
//      committed and nothing after it is applied; it then waits on a shared word. Orders keep
//      arriving and wait in its command ring.
//   3. When the last shard holds, in one synchronous step of the front end's thread (which
//      writes the catalog, the profiles and the treasury, always synchronously, so none of
//      their commits is half done): every shard's hold is turned from HELD into CUT (one that
//      gave up, having held too long, fails the backup), and a read transaction is begun on each
//      store and its meta pages read (page_copy.ts). Nothing commits anywhere during this step.
//   4. The shards and the key store are released. Trading paused from each shard's hold to here.
//   5. Each store's pages are copied as its read transaction sees them, while it is written.
// The cut is the durable state of every store at the instant of step 3. Whatever the front end
// holds in memory and has not committed (funds taken for an order still in a ring) is no part of
// it, exactly as after kill -9 at that instant: the treasury is rebuilt from the stores at start.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { HOLD } from '../../engine/shard/protocol.js';
import { ORDER_HISTORY_DEFAULT } from '../../engine/constants.js';
import type { EngineOptions } from '../../engine/state/state.js';
import type { ApiKeyStore } from '../auth/keys.js';
import { readRecord, writeRecord, type DirectoryRecord } from '../data_dir/record.js';
import { storeNames } from '../data_dir/stores.js';
import type { Logger } from '../log.js';
import type { ShardPool } from '../trading/shards.js';
import { DATA_FILE, Pace, StoreHandle, type PinnedStore } from './page_copy.js';
import type { BackupEngine } from './section.js';
import { partialName, targetProblem } from './target.js';
import { syncDirectory } from '../data_dir/durable_file.js';

/** How long the cut waits for the key store's writes to commit, and then for every shard to hold. */
export const PAUSE_WAIT_MS = 2_000;
/** The longest a shard holds before it goes on by itself (and the backup fails). */
export const HOLD_MAX_MS = 4_000;

/** A backup the server refuses (or gives up on) for a reason the operator can act on. */
export class BackupRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupRefused';
  }
}

export interface BackupDeps {
  readonly dataDir: string;
  readonly pool: ShardPool;
  readonly keys: ApiKeyStore;
  readonly engine: EngineOptions;
  readonly log: Logger;
  /**
   * The number of the last of the front end's changes on the replicated journal (a primary's,
   * with NATS; replication/state_changes.ts), read at the cut: a snapshot on NATS says where a
   * replica starting from it takes the changes up. Undefined without NATS and on a replica.
   */
  readonly changesAt?: () => number | undefined;
}

/** Where the cut found a shard, and how long it held. */
export interface CutShard {
  readonly batch: number;
  readonly seq: number;
  readonly pauseMs: number;
}

/** The copy the server made (under its temporary name), as commands.ts finishes it. */
export interface ServerCopy {
  /** The directory filled, `<target>.partial-<hex>`, holding the partial record. */
  readonly partial: string;
  /** The live directory's record (the copy's, without its backup section). */
  readonly record: DirectoryRecord;
  readonly startedAt: string;
  readonly cutAt: string;
  /** The longest a shard held (ms): how long trading paused on it. */
  readonly pauseMs: number;
  /** How long the key store's writes were held (ms). */
  readonly keysHeldMs: number;
  readonly shards: readonly CutShard[];
  readonly stores: readonly { readonly name: string; readonly bytes: number }[];
  readonly copyMs: number;
  readonly engine: BackupEngine;
  /** BackupDeps.changesAt at the cut: every change through it is in the copy (and later ones may be). */
  readonly changes: number | undefined;
}

/** What a backup reports as it goes, before its end. */
export type Progress = { readonly event: 'cut'; readonly pauseMs: number; readonly shards: readonly CutShard[] } | { readonly event: 'copied'; readonly store: string; readonly bytes: number };

function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

function timeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new BackupRefused(message)), ms)));
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

interface Cut {
  readonly pins: PinnedStore[];
  readonly shards: CutShard[];
  readonly cutAt: number;
  readonly keysHeldMs: number;
  readonly changes: number | undefined;
}

/** One backup at a time, of one running server's data directory. */
export class Backups {
  private running: { readonly target: string; readonly since: string } | undefined = undefined;

  constructor(private readonly deps: BackupDeps) {}

  /**
   * Copies the data directory into `<target>.partial-<hex>` (see the file comment) and resolves
   * with what it took; the caller checks the copy and renames it to `target`. `aborted` says
   * why to stop, once the one who asked is gone. Throws BackupRefused for a target that is not
   * empty, a backup already running, a shard not serving, or a cut that could not be taken in
   * time; the partial directory is removed on every failure. `mbPerS`: the copy's pace (0: none).
   */
  async take(target: string, mbPerS: number, aborted: () => string | undefined, progress: (report: Progress) => void): Promise<ServerCopy> {
    const { dataDir, pool, log } = this.deps;
    if (this.running !== undefined) throw new BackupRefused(`a backup is already running (into ${this.running.target}, since ${this.running.since})`);
    const problem = targetProblem(target, dataDir);
    if (problem !== undefined) throw new BackupRefused(problem);
    const down = Array.from({ length: pool.count }, (_, shard) => shard).filter((shard) => !pool.isReady(shard));
    if (down.length > 0) throw new BackupRefused(`shard-${down[0]} is not serving (it is restarting); try again once /ready answers 200`);
    const record = readRecord(dataDir);
    if (record === undefined) throw new BackupRefused(`${dataDir} has no record yet`);
    const live: DirectoryRecord = { format: record.format, shards: record.shards, stores: record.stores };
    const startedAt = new Date().toISOString();
    this.running = { target, since: startedAt };
    const partial = partialName(target);
    const handles: StoreHandle[] = [];
    try {
      mkdirSync(partial);
      writeRecord(partial, { ...live, backup: { state: 'partial', startedAt, source: dataDir } });
      // Every store is opened before the cut, so that the cut itself opens nothing.
      for (const name of storeNames(live.shards)) handles.push(new StoreHandle(name, join(dataDir, name, DATA_FILE)));
      const cut = await this.cut(handles);
      const pauseMs = Math.max(0, ...cut.shards.map((shard) => shard.pauseMs));
      log.info('backup_cut', {
        target, pauseMs, keysHeldMs: cut.keysHeldMs, batches: cut.shards.map((shard) => shard.batch).join(','),
        shardPausesMs: cut.shards.map((shard) => shard.pauseMs.toFixed(2)).join(','),
      });
      progress({ event: 'cut', pauseMs, shards: cut.shards });
      const copyStarted = performance.now();
      const stores: { name: string; bytes: number }[] = [];
      const pace = new Pace(mbPerS);
      try {
        for (const pinned of cut.pins) {
          mkdirSync(join(partial, pinned.name));
          const bytes = await pinned.copyTo(join(partial, pinned.name, DATA_FILE), pace, aborted);
          syncDirectory(join(partial, pinned.name));
          stores.push({ name: pinned.name, bytes });
          progress({ event: 'copied', store: pinned.name, bytes });
        }
      } finally {
        for (const pinned of cut.pins) pinned.release();
      }
      syncDirectory(partial);
      const copyMs = performance.now() - copyStarted;
      log.info('backup_copied', { target, partial, copyMs, bytes: stores.reduce((sum, store) => sum + store.bytes, 0) });
      return {
        partial, record: live, startedAt, cutAt: new Date(cut.cutAt).toISOString(), pauseMs, keysHeldMs: cut.keysHeldMs,
        shards: cut.shards, stores, copyMs, changes: cut.changes, engine: { operatorAddress: this.deps.engine.operatorAddress, orderHistory: this.deps.engine.orderHistory ?? ORDER_HISTORY_DEFAULT },
      };
    } catch (error) {
      log.warn('backup_failed', { target, error: error instanceof Error ? error.message : String(error) });
      rmSync(partial, { recursive: true, force: true });
      throw error;
    } finally {
      for (const handle of handles) await handle.close();
      this.running = undefined;
    }
  }

  /** Steps 1–4 of the file comment. */
  private async cut(handles: readonly StoreHandle[]): Promise<Cut> {
    const { pool, keys } = this.deps;
    const holds = Array.from({ length: pool.count }, () => new Int32Array(new SharedArrayBuffer(4)));
    const keysHeld = keys.holdWrites();
    const keysHeldAt = performance.now();
    let releasedAt = 0;
    try {
      await timeout(keysHeld.drained, PAUSE_WAIT_MS, `API key writes did not commit within ${PAUSE_WAIT_MS} ms`);
      for (const hold of holds) Atomics.store(hold, 0, HOLD.HELD);
      const paused = await timeout(
        Promise.all(holds.map((hold, shard) => pool.pause(shard, hold.buffer as SharedArrayBuffer, HOLD_MAX_MS))),
        PAUSE_WAIT_MS, `the shards did not all pause within ${PAUSE_WAIT_MS} ms`,
      );
      // From here to the release nothing awaits: the cut is one step of this thread.
      holds.forEach((hold, shard) => {
        if (Atomics.compareExchange(hold, 0, HOLD.HELD, HOLD.CUT) !== HOLD.HELD) throw new BackupRefused(`shard-${shard} held longer than ${HOLD_MAX_MS} ms and went on`);
      });
      const pins: PinnedStore[] = [];
      try {
        for (const handle of handles) pins.push(handle.pin());
      } catch (error) {
        for (const pinned of pins) pinned.release();
        throw error;
      }
      // A change is recorded after its store committed it: every one counted here is in the pins.
      const changes = this.deps.changesAt?.();
      releasedAt = epochMs();
      return {
        pins, cutAt: releasedAt, changes, keysHeldMs: performance.now() - keysHeldAt,
        shards: paused.map(({ batch, seq, atMs }) => ({ batch, seq, pauseMs: releasedAt - atMs })),
      };
    } finally {
      for (const hold of holds) {
        Atomics.store(hold, 0, HOLD.RELEASED);
        Atomics.notify(hold, 0);
      }
      keysHeld.release();
    }
  }
}

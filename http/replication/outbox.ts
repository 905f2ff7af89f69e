// A store's outbox (NATS set, on the primary): every change the store commits for the replicated
// journal (state_changes.ts) is also written, in the same LMDB write transaction, to the table
// `outbox` of the store's own environment, and removed once the stream holds it. So a change
// is never on the primary's disk without being on its way to the stream: one committed by a
// primary that died before the stream took it (kill -9, or NATS unreachable with
// REPLICATION=async and then a crash) is still in the outbox when that data directory starts
// again as the primary, and is sent then (attach), before the store takes any new change. The shards need none of this: their journal is their outbox
// (engine/shard/journal_feed.ts).
//
// Sending a change again is harmless: a change carries its result, not the request that made it,
// so a replica that applies it twice ends where it ended after the first time. An entry may well
// be on the stream already (the stream acknowledged it and the process died before the outbox
// forgot it); sent again after the others of its store, in their order, it leaves every replica
// where the primary's store is. The catalog, the keys, the treasury and the profiles each keep
// their own outbox: a change of one never depends on one of another.
//
// Without NATS, and on a replica (whose stores apply the primary's changes), nothing is written,
// and a replica's start empties them (discard).
import type { Database, RootDatabase } from 'lmdb';
import { HttpError } from '../errors.js';
import type { ChangeLog, StateChange } from './state_changes.js';

/**
 * Most changes one store's outbox holds: past it, the store refuses new changes (503) until the
 * stream takes some. Only a stream that has been out of reach for long fills it (a change is
 * forgotten a moment after the stream holds it); without a bound, the disk, and the changes a
 * start sends again, would grow for as long as the outage lasts. 100 000 changes are a few tens
 * of MB and a few seconds of sending at a start.
 */
export const OUTBOX_ENTRIES_MAX = 100_000;
/** The table, in each store's environment (one more table for its maxDbs). */
export const OUTBOX_TABLE = 'outbox';
/** What a client refused by a full outbox is told to wait: the replicated journal's outage is the operator's to end. */
const OUTBOX_FULL_RETRY_AFTER_S = 5;

/** A change written in an outbox by a write transaction, to send once that committed. */
export interface StagedChange {
  readonly key: number;
  readonly change: StateChange;
}

/** A write transaction of the store's, which runs `body` and resolves with what it returns once committed. */
export type StoreWrite = <T>(body: () => T) => Promise<T>;

export class Outbox {
  private changes: ChangeLog | undefined = undefined;
  private readonly entries: Database<StateChange, number>;
  /** The key of the next change: one more than the last written, so the outbox reads in commit order. */
  private nextKey: number;
  /** Entries committed and not yet removed. */
  private held: number;
  /** The last key the stream holds, and the last one removed. */
  private appendedThrough = 0;
  private forgottenThrough = 0;
  /** The removal under way, which takes every key the stream holds by the time it writes. */
  private forgetting: Promise<void> | undefined = undefined;
  private closed = false;

  /**
   * The outbox of the store `store` (its name in messages) in `root`. `write` is how the store
   * writes outside its changes, which the removals go through: the key store's writes are held
   * while a backup takes its cut (auth/keys.ts); the others' commit synchronously on the front
   * end's thread, so none lands inside a cut, which must see no commit (backup/cut.ts).
   */
  constructor(private readonly root: RootDatabase, private readonly store: string, private readonly write: StoreWrite = async (body) => root.transactionSync(body)) {
    this.entries = root.openDB({ name: OUTBOX_TABLE, encoding: 'msgpack' });
    this.held = this.entries.getKeysCount();
    let last = 0;
    for (const key of this.entries.getKeys({ reverse: true, limit: 1 })) last = key;
    this.nextKey = last + 1;
  }

  /**
   * From now on the store's changes go to `changes` (undefined: nowhere, nothing is written).
   * First every change the outbox holds is sent again, oldest first, before any new one: some
   * never reached the stream, and the rest change nothing again (see the file comment).
   */
  attach(changes: ChangeLog | undefined): void {
    if (changes !== undefined) {
      for (const { key, value } of this.entries.getRange()) changes.record(value, () => this.appended(key));
    }
    this.changes = changes;
  }

  /**
   * Inside the store's write transaction: writes `change` to the outbox (nothing without a
   * change log); pass what it returns to send() once the transaction committed. A full outbox
   * throws a 503 before anything is written: an lmdb-js asynchronous transaction (the key
   * store's) commits what its callback wrote even when the callback throws.
   */
  stage(change: StateChange): StagedChange | undefined {
    if (this.changes === undefined) return undefined;
    if (this.held >= OUTBOX_ENTRIES_MAX) {
      throw new HttpError(
        503, `the ${this.store} holds ${this.held} changes the replicated journal (NATS) has not taken: it takes no more until the journal takes those`,
        undefined, [['retry-after', String(OUTBOX_FULL_RETRY_AFTER_S)]],
      );
    }
    const key = this.nextKey++;
    this.entries.putSync(key, change);
    return { key, change };
  }

  /** After the commit: sends the staged change to the stream; once the stream holds it, it leaves the outbox. */
  send(staged: StagedChange | undefined): void {
    if (staged === undefined || this.changes === undefined) return;
    this.held++;
    this.changes.record(staged.change, () => this.appended(staged.key));
  }

  /**
   * A synchronous write transaction of the store: runs `write`, and stages the change
   * `changeOf` makes of its result in the same transaction (a full outbox aborts it); once
   * committed, the change is sent. Without a change log the change is not even made.
   */
  commitSync<T>(write: () => T, changeOf: (result: T) => StateChange): T {
    let staged: StagedChange | undefined;
    const result = this.root.transactionSync(() => {
      const written = write();
      if (this.changes !== undefined) staged = this.stage(changeOf(written));
      return written;
    });
    this.send(staged);
    return result;
  }

  /**
   * A replica's start: every entry goes. Its stores take the primary's changes from the stream;
   * entries here came with a copy of a primary's directory (a snapshot, a backup), and sent at
   * this server's promotion they would undo on every replica the later changes it applied.
   */
  async discard(): Promise<void> {
    await this.remove(undefined);
  }

  /** The store closes: nothing more is removed (what the stream holds and is still here is sent again at the next start). */
  async close(): Promise<void> {
    this.closed = true;
    this.changes = undefined;
    // A removal that failed was logged where it was reported (Replication): the store closes anyway.
    await this.forgetting?.catch(() => undefined);
  }

  /**
   * The stream holds the entry `key`, and so every one before it. Removed by one removal for
   * all the entries the stream acknowledged at once: it starts after the acknowledgement's other
   * entries were told. Returns the removal it started (undefined when one is under way already,
   * which removes this entry too).
   */
  private appended(key: number): Promise<void> | undefined {
    this.appendedThrough = Math.max(this.appendedThrough, key);
    if (this.forgetting !== undefined || this.closed) return undefined;
    this.forgetting = this.forget().finally(() => {
      this.forgetting = undefined;
    });
    return this.forgetting;
  }

  private async forget(): Promise<void> {
    // Let the acknowledgement tell its other entries first: one transaction removes them all.
    await Promise.resolve();
    while (!this.closed && this.forgottenThrough < this.appendedThrough) {
      const through = this.appendedThrough;
      await this.remove(through);
      this.forgottenThrough = through;
    }
  }

  /** Removes every entry through the key `through` (undefined: every entry), in one of the store's writes. */
  private async remove(through: number | undefined): Promise<void> {
    const removed = await this.write(() => {
      let count = 0;
      for (const key of this.entries.getKeys(through === undefined ? {} : { end: through + 1 })) {
        this.entries.removeSync(key);
        count++;
      }
      return count;
    });
    this.held -= removed;
  }
}

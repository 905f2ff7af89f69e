// A copy of one LMDB store as it stood at one transaction, made while its writers go on: what
// LMDB's own mdb_env_copy does, split in two so that the moment of the snapshot is the caller's.
//
//   pin     (synchronous, at the cut) begins a read transaction on the store and reads its two
//           meta pages with plain reads. With no commit between the two, the newer meta page is
//           the one of the snapshot the reader holds; pin checks that against the environment's
//           last transaction id.
//   copy    (asynchronous, after the cut, writers running) copies every page the snapshot may
//           use, 2 … its last page, with plain reads, then the two meta pages as read at the cut,
//           and syncs the file.
//   release ends the read transaction.
//
// Why the pages read later are those of the snapshot: LMDB never writes a page that a reader's
// snapshot reaches. A page freed by transaction t is reused only once every reader began after
// t; the pinned reader began at the snapshot's transaction n, so neither the pages of n nor
// those of the older meta page (n − 1, whose pages that n freed) are written again while it
// lives: later commits write new pages past them or reuse pages freed before n, which neither
// meta page reaches. Pages beyond the snapshot's last page, and free ones, are whatever they are
// at the copy: nothing reaches them. This is how mdb_env_copy itself copies a live environment
// (it holds the write lock only while it reads the meta pages), and why the copy opens as the
// store did at the snapshot. LMDB writes through the file (clobd never maps it writable), so
// plain reads see every committed page.
//
// A pinned reader keeps LMDB from reusing pages freed after it began: a store written during a
// long copy grows by what those commits free, until the reader ends.
import { closeSync, openSync, readSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RootDatabase } from 'lmdb';
import { openDurable } from '../../engine/durable_env.js';
import { LAST_PAGE_AT, MAGIC, MAGIC_AT, P_META, PAGE_BYTES_AT, PAGE_FLAGS_AT, TXNID_AT } from '../data_dir/lmdb_layout.js';

export const DATA_FILE = 'data.mdb';
/** Bytes read and written at a time (fewer under a pace: a tenth of a second's worth, at least MIN). */
const CHUNK_BYTES = 4 << 20;
const PACED_CHUNK_BYTES_MIN = 64 << 10;
const BYTES_PER_MB = 1_000_000;

/**
 * The pace of a backup's copies: at most `mbPerS` MB/s over all its stores (0: no cap), so a
 * copy does not take the disk from the shards' commits. Shared by every store of one backup.
 */
export class Pace {
  private readonly started = performance.now();
  private bytes = 0;

  constructor(readonly mbPerS: number) {}

  get chunkBytes(): number {
    return this.mbPerS === 0 ? CHUNK_BYTES : Math.max(PACED_CHUNK_BYTES_MIN, Math.min(CHUNK_BYTES, Math.floor(this.mbPerS * BYTES_PER_MB / 10)));
  }

  /** Counts `bytes` copied; waits until they are within the pace. */
  async copied(bytes: number): Promise<void> {
    this.bytes += bytes;
    if (this.mbPerS === 0) return;
    const dueMs = this.bytes / (this.mbPerS * BYTES_PER_MB) * 1000 - (performance.now() - this.started);
    if (dueMs > 0) await new Promise((resolve) => setTimeout(resolve, dueMs));
  }
}
/**
 * Tables the backup's own handle on a store may open: none. Opening a path this process already
 * has open shares that environment (and its table limit); this only sizes a store opened first here.
 */
const MAX_DBS = 1;

/** A read transaction of lmdb-js, as useReadTransaction gives it. */
interface ReadTransaction {
  done(): void;
}

/** The environment's own figures (lmdb-js `env.info()`). */
interface EnvInfo {
  readonly lastTxnId: number;
}

/** A store opened for a backup before the cut, so that the cut itself opens nothing. */
export class StoreHandle {
  private readonly root: RootDatabase;

  constructor(readonly name: string, readonly dataFile: string) {
    this.root = openDurable(join(dataFile, '..'), MAX_DBS);
  }

  /** See the file comment. Throws when the meta pages are not those of the snapshot pinned. */
  pin(): PinnedStore {
    const transaction = this.root.useReadTransaction() as unknown as ReadTransaction;
    try {
      const fd = openSync(this.dataFile, 'r');
      let metas: [Buffer, Buffer];
      let pageBytes: number;
      try {
        const head = Buffer.alloc(PAGE_BYTES_AT + 4);
        readSync(fd, head, 0, head.length, 0);
        pageBytes = head.readUInt32LE(PAGE_BYTES_AT);
        metas = [Buffer.alloc(pageBytes), Buffer.alloc(pageBytes)];
        readSync(fd, metas[0], 0, pageBytes, 0);
        readSync(fd, metas[1], 0, pageBytes, pageBytes);
      } finally {
        closeSync(fd);
      }
      for (const [index, meta] of metas.entries()) {
        if ((meta.readUInt16LE(PAGE_FLAGS_AT) & P_META) === 0 || meta.readUInt32LE(MAGIC_AT) !== MAGIC) {
          throw new Error(`${this.name}: meta page ${index} is not one`);
        }
      }
      const [txnid0, txnid1] = [metas[0].readBigUInt64LE(TXNID_AT), metas[1].readBigUInt64LE(TXNID_AT)];
      const newest = txnid1 > txnid0 ? metas[1] : metas[0];
      const txnid = txnid1 > txnid0 ? txnid1 : txnid0;
      const last = (this.root as unknown as { env: { info(): EnvInfo } }).env.info().lastTxnId;
      if (BigInt(last) !== txnid) throw new Error(`${this.name} committed during the cut (meta page ${txnid}, environment ${last})`);
      return new PinnedStore(this.name, this.dataFile, pageBytes, txnid, newest.readBigUInt64LE(LAST_PAGE_AT) + 1n, metas, transaction);
    } catch (error) {
      transaction.done();
      throw error;
    }
  }

  close(): Promise<void> {
    return this.root.close();
  }
}

export class PinnedStore {
  private released = false;

  constructor(
    readonly name: string, readonly dataFile: string, readonly pageBytes: number, readonly txnid: bigint,
    /** Pages the snapshot counts (its last page number + 1). */
    readonly pages: bigint,
    private readonly metas: readonly [Buffer, Buffer], private readonly transaction: ReadTransaction,
  ) {}

  /**
   * Writes the snapshot to `target` (a new file) and syncs it; resolves with the bytes written.
   * `aborted` is asked between chunks: the copy stops (and throws) once it says so.
   */
  async copyTo(target: string, pace: Pace, aborted: () => string | undefined = () => undefined): Promise<number> {
    const source = await openFile(this.dataFile, 'r');
    const copy = await openFile(target, 'wx');
    try {
      // LMDB may leave the file shorter than the snapshot's last page: pages it allocated and
      // freed in one transaction and never wrote (nothing reaches them). Later commits may
      // have made the file longer since; what lies past the snapshot's pages is not copied.
      const end = Math.min(Number(this.pages) * this.pageBytes, (await source.stat()).size);
      const buffer = Buffer.alloc(pace.chunkBytes);
      for (let at = 2 * this.pageBytes; at < end;) {
        const why = aborted();
        if (why !== undefined) throw new Error(why);
        const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, end - at), at);
        if (bytesRead === 0) throw new Error(`${this.name}: ${DATA_FILE} ended at byte ${at} while being copied`);
        await writeAll(copy, buffer.subarray(0, bytesRead), at);
        at += bytesRead;
        await pace.copied(bytesRead);
      }
      // The meta pages last: until they are in, the copy is no environment at all.
      await writeAll(copy, this.metas[0], 0);
      await writeAll(copy, this.metas[1], this.pageBytes);
      await copy.sync();
      return Math.max(end, 2 * this.pageBytes);
    } finally {
      await copy.close();
      await source.close();
    }
  }

  /** Ends the read transaction (once). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.transaction.done();
  }
}

async function writeAll(file: Awaited<ReturnType<typeof openFile>>, bytes: Buffer, position: number): Promise<void> {
  for (let written = 0; written < bytes.length;) {
    const { bytesWritten } = await file.write(bytes, written, bytes.length - written, position + written);
    written += bytesWritten;
  }
}

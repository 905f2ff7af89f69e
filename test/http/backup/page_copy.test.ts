// The page copy a backup makes of each store (http/backup/page_copy.ts), against a thread that
// commits without pause and reuses freed pages: pinned at a point between two commits, the copy
// made afterwards, while the commits go on, opens as the store stood at that point (passing the
// checks a start makes of each store), and without the pin it does not.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { openDurable } from '../../../engine/durable_env.js';
import { DATA_FILE, Pace, StoreHandle, type PinnedStore } from '../../../http/backup/page_copy.js';
import { walkStores } from '../../../http/data_dir/page_walk.js';
import { storeFileProblems } from '../../../http/data_dir/stores.js';
import { withTemporaryDir } from '../../support/temporary_dir.js';

const ROUNDS = 6;
/** Keys the writer keeps (it deletes the one KEPT commits older than each it adds). */
const KEPT = 200;
/** How long the writer goes on between the pin and the copy, reusing the pages it frees. */
const WRITES_BEFORE_COPY_MS = 60;

interface Copied {
  readonly n: number;
  readonly txnid: bigint;
  /** Keys that are not those commit n leaves (k(n − KEPT + 1) … k(n), each with its own value). */
  readonly wrong: number;
  readonly problems: string[];
}

/**
 * Checks the copy `dir/<name>` as a start does (plain reads, then every page through LMDB in a
 * child process, which a damaged page may crash) and, when it is sound, opens it and says
 * whether it is the store as commit `n` left it.
 */
async function readCopy(dir: string, name: string, txnid: bigint): Promise<Copied> {
  const problems = storeFileProblems(dir, name, 1).map((found) => found.text);
  if (problems.length === 0) {
    try {
      await walkStores(dir, [name]);
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (problems.length > 0) return { n: -1, txnid, wrong: 0, problems };
  const root = openDurable(join(dir, name), 4);
  try {
    const table = root.openDB<unknown, string>({ name: 't', encoding: 'msgpack' });
    const n = table.get('n') as number;
    let wrong = 0;
    let keys = 0;
    for (const { key, value } of table.getRange()) {
      if (key === 'n') continue;
      keys++;
      const index = Number(key.slice(1));
      if (index > n || index <= n - KEPT || typeof value !== 'string' || !value.endsWith(String(index))) wrong++;
    }
    return { n, txnid, wrong: wrong + Math.abs(Math.min(n, KEPT) - keys), problems };
  } finally {
    await root.close();
  }
}

/** Runs the writer, pins the store at held points, and copies each pin as `copy` says. */
async function rounds(dir: string, copy: (pinned: PinnedStore, target: string) => Promise<void>): Promise<Copied[]> {
  const store = join(dir, 'store');
  mkdirSync(store);
  // This thread's own handle first, as the server's modules hold theirs.
  const own = openDurable(store, 4);
  const hold = new Int32Array(new SharedArrayBuffer(4));
  const writer = new Worker(new URL('./page_copy_writer.js', import.meta.url), { workerData: { path: store, hold: hold.buffer, kept: KEPT } });
  const copies: Copied[] = [];
  try {
    // Until the writer frees pages with every commit.
    const table = own.openDB<unknown, string>({ name: 't', encoding: 'msgpack' });
    while (!((table.get('n') as number | undefined ?? 0) > KEPT)) await new Promise((resolve) => setTimeout(resolve, 10));
    for (let round = 0; round < ROUNDS; round++) {
      const handle = new StoreHandle('store', join(store, DATA_FILE));
      Atomics.store(hold, 0, 1);
      while (Atomics.load(hold, 0) !== 2) await new Promise((resolve) => setTimeout(resolve, 1));
      let pinned: PinnedStore;
      try {
        pinned = handle.pin();
      } finally {
        Atomics.store(hold, 0, 0);
        Atomics.notify(hold, 0);
      }
      const name = `copy-${round}`;
      mkdirSync(join(dir, name));
      try {
        await copy(pinned, join(dir, name, DATA_FILE));
      } finally {
        pinned.release();
        await handle.close();
      }
      copies.push(await readCopy(dir, name, pinned.txnid));
    }
  } finally {
    Atomics.store(hold, 0, 9);
    Atomics.notify(hold, 0);
    await new Promise((resolve) => writer.once('exit', resolve));
    await own.close();
  }
  return copies;
}

test('a pinned store copied while a thread commits and reuses pages opens as it stood at the pin', async () => {
  await withTemporaryDir(async (dir) => {
    const copies = await rounds(dir, async (pinned, target) => {
      await new Promise((resolve) => setTimeout(resolve, WRITES_BEFORE_COPY_MS));
      await pinned.copyTo(target, new Pace(0));
    });
    for (const [round, copied] of copies.entries()) {
      assert.deepEqual(copied.problems, [], `round ${round}`);
      assert.equal(copied.wrong, 0, `round ${round}: the keys of commit ${copied.n}`);
      // Commit n is LMDB transaction n + 1 (the store's first transaction made the table).
      assert.equal(BigInt(copied.n) + 1n, copied.txnid, `round ${round}: the copy is the pinned transaction`);
    }
    for (let round = 1; round < copies.length; round++) assert.ok(copies[round]!.n > copies[round - 1]!.n, 'the writer went on between rounds');
  });
});

test('without the pin, the same copy is not the store (the pin is what keeps its pages)', async () => {
  await withTemporaryDir(async (dir) => {
    const copies = await rounds(dir, async (pinned, target) => {
      pinned.release();
      await new Promise((resolve) => setTimeout(resolve, WRITES_BEFORE_COPY_MS));
      await pinned.copyTo(target, new Pace(0));
    });
    const broken = copies.filter((copied) => copied.wrong > 0 || copied.problems.length > 0).length;
    assert.ok(broken > 0, 'some copy made without the pin is damaged');
  });
});

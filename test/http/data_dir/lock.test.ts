// The data directory's lock in one process, by each way it can be held (data_dir/lock.ts): a
// second taker is refused naming the holder, a release frees it, and the lock file says who
// holds it. Two processes, and kill -9, are test/http/exclusive.test.ts's.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LOCK_FILE, lockDataDir, type LockOptions } from '../../../http/data_dir/lock.js';
import { InUse } from '../../../http/exclusive.js';
import { ownHolder } from '../../../http/holders.js';
import { withTemporaryDir } from '../../support/temporary_dir.js';

const noFlock = '/nonexistent/flock';

async function assertHeldOnce(dataDir: string, options: LockOptions, mechanism: string): Promise<void> {
  const first = await lockDataDir(dataDir, 'serve', options);
  assert.equal(first.mechanism, mechanism);
  first.describe({ ports: { clob: 8080 } });
  const written = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as Record<string, unknown>;
  assert.equal(written['pid'], process.pid);
  assert.deepEqual(written['ports'], { clob: 8080 });
  await assert.rejects(lockDataDir(dataDir, 'verify', options), (error: unknown) => {
    assert.ok(error instanceof InUse);
    assert.match(error.message, new RegExp(`^data directory ${dataDir} is in use by clobd pid ${process.pid} \\(serve since [^)]*, ports clob 8080\\): verify checks the directory of a stopped exchange: stop it first$`));
    return true;
  });
  await first.release();
  const again = await lockDataDir(dataDir, 'import', options);
  assert.equal(again.mechanism, mechanism);
  await again.release();
}

test('flock: one holder at a time, freed by its release', async () => {
  if (process.platform !== 'linux') return;
  await withTemporaryDir((dataDir) => assertHeldOnce(dataDir, {}, 'flock'));
});

test('without the flock command, an abstract unix socket keyed by the directory holds it (Linux)', async () => {
  if (process.platform !== 'linux') return;
  await withTemporaryDir((dataDir) => assertHeldOnce(dataDir, { flockCommand: noFlock }, 'socket'));
});

test('a directory that does not exist yet is made and held', async () => {
  await withTemporaryDir(async (parent) => {
    const lock = await lockDataDir(join(parent, 'new', 'data'), 'serve');
    await lock.release();
  });
});

test('the pid fallback (no kernel lock): a live pid in the lock file holds the directory, a dead one does not', async () => {
  if (process.platform !== 'linux') return;
  await withTemporaryDir(async (dataDir) => {
    const options = { flockCommand: noFlock, socketLocks: false };
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const pid = sleeper.pid ?? 0;
    try {
      writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ ...ownHolder('serve', dataDir), pid }));
      await assert.rejects(lockDataDir(dataDir, 'serve', options), new RegExp(`is in use by clobd pid ${pid} `));
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((resolve) => sleeper.once('exit', resolve));
    }
    const lock = await lockDataDir(dataDir, 'serve', options);
    assert.equal(lock.mechanism, 'pid');
    await lock.release();
  });
});

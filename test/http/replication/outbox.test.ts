// A store's outbox on real LMDB (http/replication/outbox.ts), through the profile store (its
// writes synchronous) and the key store (lmdb-js asynchronous transactions): a change committed
// with a change log stays in the outbox until the stream holds it, a start sends what is still
// there again in commit order, nothing is written without a change log, and a full outbox
// refuses the next change with a 503 and writes none of it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDurable } from '../../../engine/durable_env.js';
import { ApiKeyStore, KEYS_STORE } from '../../../http/auth/keys.js';
import { HttpError } from '../../../http/errors.js';
import { PROFILES_STORE, ProfileStore } from '../../../http/profiles.js';
import { OUTBOX_ENTRIES_MAX, OUTBOX_TABLE } from '../../../http/replication/outbox.js';
import type { ChangeLog, StateChange } from '../../../http/replication/state_changes.js';
import { withTemporaryDir } from '../../support/temporary_dir.js';

const address = '0x5ca1ab1e00000000000000000000000000000b0b';
const other = '0x5ca1ab1e00000000000000000000000000000c0c';

/** A change log that keeps what it is told; `append` plays the stream taking the oldest changes. */
class RecordedChanges implements ChangeLog {
  readonly changes: StateChange[] = [];
  private readonly waiting: (() => Promise<void> | undefined)[] = [];

  record(change: StateChange, appended?: () => Promise<void> | undefined): void {
    this.changes.push(change);
    if (appended !== undefined) this.waiting.push(appended);
  }

  /** The stream holds the next `count` changes: as Replication does, each is told, then the removals are waited for. */
  async append(count: number): Promise<void> {
    await Promise.all(this.waiting.splice(0, count).map((appended) => appended()));
  }
}

/** Opens the profiles at `dir` and attaches a new change log: what it got is what the outbox held. */
function openProfiles(dir: string): { profiles: ProfileStore; log: RecordedChanges } {
  const profiles = new ProfileStore(dir);
  const log = new RecordedChanges();
  profiles.outbox.attach(log);
  return { profiles, log };
}

/** Writes a full outbox straight into a store's environment (one transaction, not one per change). */
async function fillOutbox(dir: string, store: string): Promise<void> {
  const root = openDurable(join(dir, store), 4);
  const outbox = root.openDB<StateChange, number>({ name: OUTBOX_TABLE, encoding: 'msgpack' });
  root.transactionSync(() => {
    for (let key = 1; key <= OUTBOX_ENTRIES_MAX; key++) outbox.putSync(key, { kind: 'revoke', apiKey: `filler-${key}` });
  });
  await root.close();
}

function isOutboxFull(error: unknown): boolean {
  return error instanceof HttpError && error.status === 503 && /has not taken/.test(error.message) && error.headers?.some(([name]) => name === 'retry-after') === true;
}

test('a change stays in the outbox until the stream holds it; a start sends what is left again, in commit order', () => withTemporaryDir(async (dir) => {
  let { profiles, log } = openProfiles(dir);
  assert.equal(log.changes.length, 0, 'a new store has nothing to send');
  profiles.set(address, { name: 'one' });
  profiles.set(other, { name: 'two' });
  profiles.set(address, { name: 'three' });
  assert.deepEqual(log.changes.map((change) => change.kind === 'profile' && change.profile['name']), ['one', 'two', 'three']);
  await log.append(1);
  const left = log.changes.slice(1);
  await profiles.close();

  ({ profiles, log } = openProfiles(dir));
  assert.deepEqual(log.changes, left, 'what the stream did not hold is sent again, oldest first');
  profiles.set(other, { name: 'four' });
  await log.append(3);
  await profiles.close();

  ({ profiles, log } = openProfiles(dir));
  assert.deepEqual(log.changes, [], 'nothing the stream holds is left');
  await profiles.close();
}));

test('without a change log (no NATS, or a replica) nothing goes to the outbox', () => withTemporaryDir(async (dir) => {
  const profiles = new ProfileStore(dir);
  profiles.set(address, { name: 'unreplicated' });
  await profiles.close();
  const reopened = openProfiles(dir);
  assert.deepEqual(reopened.log.changes, []);
  assert.equal(reopened.profiles.get(address).name, 'unreplicated');
  await reopened.profiles.close();
}));

test('a full outbox refuses the next change with a 503 and writes none of it, until the stream takes some', () => withTemporaryDir(async (dir) => {
  await fillOutbox(dir, PROFILES_STORE);
  const { profiles, log } = openProfiles(dir);
  assert.equal(log.changes.length, OUTBOX_ENTRIES_MAX, 'a start sends every change the outbox holds');
  assert.throws(() => profiles.set(address, { name: 'refused' }), isOutboxFull);
  assert.equal(profiles.get(address).name, '', 'the refused change is not written');
  await log.append(1);
  assert.equal(profiles.set(address, { name: 'taken' }).name, 'taken');
  await profiles.close();
}));

test('the key store: its asynchronous writes stage their change before any write, so a full outbox leaves no key behind', () => withTemporaryDir(async (dir) => {
  await fillOutbox(dir, KEYS_STORE);
  let keys = new ApiKeyStore(dir);
  let log = new RecordedChanges();
  keys.outbox.attach(log);
  await assert.rejects(keys.create(address, '0', 1000), isOutboxFull);
  assert.equal(keys.derive(address, '0'), undefined, 'the refused key is not written');
  await log.append(OUTBOX_ENTRIES_MAX);
  const made = await keys.create(address, '0', 2000);
  assert.ok(made !== undefined);
  assert.ok(await keys.revoke(made.apiKey));
  assert.deepEqual(log.changes.slice(OUTBOX_ENTRIES_MAX).map((change) => change.kind), ['key', 'revoke']);
  await log.append(1);
  await keys.close();

  keys = new ApiKeyStore(dir);
  log = new RecordedChanges();
  keys.outbox.attach(log);
  assert.deepEqual(log.changes, [{ kind: 'revoke', apiKey: made.apiKey }], 'only the change the stream did not hold is sent again');
  await keys.close();
}));

test('a replica\'s start empties the outboxes its directory came with, so its promotion resends nothing stale', () => withTemporaryDir(async (dir) => {
  let { profiles, log } = openProfiles(dir);
  profiles.set(address, { name: 'at the cut' });
  profiles.set(other, { name: 'also at the cut' });
  assert.equal(log.changes.length, 2);
  await profiles.close();

  // The directory as a snapshot or a backup brings it to a replica, which starts with no change log.
  profiles = new ProfileStore(dir);
  profiles.outbox.attach(undefined);
  await profiles.outbox.discard();
  await profiles.close();

  ({ profiles, log } = openProfiles(dir));
  assert.deepEqual(log.changes, [], 'promoted later, it sends none of the copy\'s entries');
  assert.equal(profiles.get(address).name, 'at the cut', 'the changes themselves stay');
  await profiles.close();
}));

// The credential store: one key per (address, nonce), derivation returns the same credentials,
// revocation frees the pair, and everything survives reopening the environment. Writes are
// asynchronous transactions: creations at once for one address stop at its limit and lose
// nothing, and the index agrees with the keys afterwards. The cache of decoded keys is bounded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyCache } from '../../../http/auth/key_cache.js';
import { ApiKeyStore, KEYS_PER_ADDRESS_MAX } from '../../../http/auth/keys.js';
import type { ApiKeyRecord } from '../../../http/auth/l2.js';
import { withTemporaryDir } from '../../support/temporary_dir.js';

const address = '0x5CA1AB1E00000000000000000000000000000B0B';

test('create, derive, list, revoke, and reopen', () => withTemporaryDir(async (dir) => {
  let store = new ApiKeyStore(dir);
  const made = await store.create(address, '0', 1000);
  assert.ok(made !== undefined);
  assert.match(made.apiKey, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(Buffer.from(made.secret, 'base64url').length, 32);
  assert.match(made.passphrase, /^[0-9a-f]{64}$/);
  assert.equal(await store.create(address.toLowerCase(), '0', 2000), undefined, 'one key per (address, nonce)');
  assert.deepEqual(store.derive(address.toLowerCase(), '0'), made);
  assert.equal(store.derive(address, '1'), undefined);
  const second = await store.create(address, '1', 3000);
  assert.ok(second !== undefined);
  assert.deepEqual(store.list(address), [made.apiKey, second.apiKey]);
  assert.equal(store.lookup(made.apiKey)?.address, address.toLowerCase());
  assert.deepEqual(store.lookup(made.apiKey)?.secretBytes, Buffer.from(made.secret, 'base64url'));
  await store.close();

  store = new ApiKeyStore(dir);
  assert.deepEqual(store.derive(address, '0'), made, 'credentials survive a restart');
  assert.ok(store.lookup(made.apiKey) !== undefined, 'cached before the revocation');
  assert.ok(await store.revoke(made.apiKey));
  assert.equal(await store.revoke(made.apiKey), false);
  assert.equal(store.lookup(made.apiKey), undefined, 'neither the cache nor the store has it');
  assert.equal(store.derive(address, '0'), undefined);
  assert.deepEqual(store.list(address), [second.apiKey]);
  const again = await store.create(address, '0', 4000);
  assert.ok(again !== undefined && again.apiKey !== made.apiKey, 'a revoked pair can be used again');
  assert.deepEqual(store.problems(), []);
  await store.close();
}));

test('creations at once for one address stop at its limit, lose none, and leave the index agreeing', () => withTemporaryDir(async (dir) => {
  const store = new ApiKeyStore(dir);
  const extra = 20;
  const made = await Promise.all(Array.from({ length: KEYS_PER_ADDRESS_MAX + extra }, (_, nonce) => store.create(address, String(nonce), nonce)));
  const kept = made.filter((credentials) => credentials !== undefined);
  assert.equal(kept.length, KEYS_PER_ADDRESS_MAX);
  assert.deepEqual(new Set(store.list(address)), new Set(kept.map((credentials) => credentials.apiKey)));
  for (const credentials of kept) assert.ok(store.lookup(credentials.apiKey) !== undefined);
  // The same pair twice at once: one key.
  const other = '0x00000000000000000000000000000000000000aa';
  const twice = await Promise.all([store.create(other, '5', 1), store.create(other, '5', 2)]);
  assert.equal(twice.filter((credentials) => credentials !== undefined).length, 1);
  // Revocations at once free their places for as many new keys.
  const freed = kept.slice(0, 10);
  assert.deepEqual(await Promise.all(freed.map((credentials) => store.revoke(credentials.apiKey))), freed.map(() => true));
  const refilled = await Promise.all(Array.from({ length: 12 }, (_, index) => store.create(address, `new-${index}`, 0)));
  assert.equal(refilled.filter((credentials) => credentials !== undefined).length, 10);
  assert.deepEqual(store.problems(), []);
  await store.close();
}));

test('creating a key does not write on the calling thread: it returns before the commit', () => withTemporaryDir(async (dir) => {
  const store = new ApiKeyStore(dir);
  const pending = store.create(address, '0', 0);
  // The asynchronous transaction has not run yet: nothing is readable until it commits.
  assert.equal(store.derive(address, '0'), undefined);
  const made = await pending;
  assert.deepEqual(store.derive(address, '0'), made, 'readable once the promise resolved');
  await store.close();
}));

test('the key cache is bounded: the least recently used key goes first', () => withTemporaryDir(async (dir) => {
  const record = (apiKey: string): ApiKeyRecord => ({ apiKey, address, secretBytes: Buffer.alloc(32), passphrase: '' });
  const cache = new KeyCache(2);
  cache.set(record('a'));
  cache.set(record('b'));
  assert.ok(cache.get('a') !== undefined, 'a is now the most recently used');
  cache.set(record('c'));
  assert.equal(cache.size, 2);
  assert.equal(cache.get('b'), undefined, 'b was used longest ago');
  assert.ok(cache.get('a') !== undefined && cache.get('c') !== undefined);
  assert.deepEqual([cache.hits, cache.misses, cache.evictions], [3, 1, 1]);
  assert.throws(() => new KeyCache(0), /from 1 to/);

  // The store's cache holds at most its bound however many keys are used; evicted keys still work.
  const store = new ApiKeyStore(dir, { cacheEntries: 3 });
  const made = await Promise.all(Array.from({ length: 8 }, (_, nonce) => store.create(address, String(nonce), nonce)));
  for (const credentials of made) assert.equal(store.lookup(credentials!.apiKey)?.apiKey, credentials!.apiKey);
  assert.equal(store.cache.size, 3);
  assert.equal(store.lookup(made[0]!.apiKey)?.apiKey, made[0]!.apiKey, 'read again from the store');
  assert.equal(store.lookup('00000000-0000-4000-8000-000000000000'), undefined);
  assert.equal(store.cache.size, 3, 'unknown keys are not cached');
  await store.close();
}));

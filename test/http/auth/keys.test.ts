// The credential store: one key per (address, nonce), derivation returns the same credentials,
// revocation frees the pair, and everything survives reopening the environment.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ApiKeyStore } from '../../../http/auth/keys.js';

const address = '0x5CA1AB1E00000000000000000000000000000B0B';

test('create, derive, list, revoke, and reopen', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'clobd-keys-'));
  try {
    let store = new ApiKeyStore(dir);
    const made = store.create(address, '0', 1000);
    assert.ok(made !== undefined);
    assert.match(made.apiKey, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(Buffer.from(made.secret, 'base64url').length, 32);
    assert.match(made.passphrase, /^[0-9a-f]{64}$/);
    assert.equal(store.create(address.toLowerCase(), '0', 2000), undefined, 'one key per (address, nonce)');
    assert.deepEqual(store.derive(address.toLowerCase(), '0'), made);
    assert.equal(store.derive(address, '1'), undefined);
    const second = store.create(address, '1', 3000);
    assert.ok(second !== undefined);
    assert.deepEqual(store.list(address), [made.apiKey, second.apiKey]);
    assert.equal(store.lookup(made.apiKey)?.address, address.toLowerCase());
    assert.deepEqual(store.lookup(made.apiKey)?.secretBytes, Buffer.from(made.secret, 'base64url'));
    await store.close();

    store = new ApiKeyStore(dir);
    assert.deepEqual(store.derive(address, '0'), made, 'credentials survive a restart');
    assert.ok(store.revoke(made.apiKey));
    assert.equal(store.revoke(made.apiKey), false);
    assert.equal(store.lookup(made.apiKey), undefined);
    assert.equal(store.derive(address, '0'), undefined);
    assert.deepEqual(store.list(address), [second.apiKey]);
    const again = store.create(address, '0', 4000);
    assert.ok(again !== undefined && again.apiKey !== made.apiKey, 'a revoked pair can be used again');
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// API credentials (contract §3), in their own LMDB environment (DATA_DIR/auth), synced on every
// write. A key is made once per (address, nonce) and derived again from the same pair; deleting
// a key frees its pair for a new one. The secret is kept because every L2 request needs it as
// the HMAC key; it never leaves this module except to the L2 check and to its owner at creation
// or derivation, and nothing here logs it.
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type Database, type RootDatabase } from 'lmdb';
import { openDurable } from '../../engine/durable_env.js';
import type { ApiKeyRecord } from './l2.js';

/** What the client receives (contract §3). */
export interface ApiCredentials {
  readonly apiKey: string;
  readonly secret: string;
  readonly passphrase: string;
}

interface StoredKey {
  readonly address: string;
  readonly nonce: string;
  readonly secret: string;
  readonly passphrase: string;
  readonly createdAtMs: number;
}

/** Keys per address: a wallet looping on POST /auth/api-key with new nonces stops here. */
export const KEYS_PER_ADDRESS_MAX = 100;

export class ApiKeyStore {
  private readonly root: RootDatabase;
  private readonly keys: Database<StoredKey, string>;
  private readonly byOwner: Database<string, string>;
  /** Decoded secrets of keys in use, so an L2 check does not decode base64 every time. */
  private readonly records = new Map<string, ApiKeyRecord>();

  constructor(dataDir: string) {
    const path = join(dataDir, 'auth');
    this.root = openDurable(path, 4);
    this.keys = this.root.openDB({ name: 'keys', encoding: 'msgpack' });
    this.byOwner = this.root.openDB({ name: 'by-owner', encoding: 'msgpack' });
  }

  /** New credentials for (address, nonce); undefined when that pair already has a key or the address has too many. */
  create(address: string, nonce: string, nowMs: number): ApiCredentials | undefined {
    const owner = ownerKey(address, nonce);
    if (this.byOwner.get(owner) !== undefined) return undefined;
    if (this.list(address).length >= KEYS_PER_ADDRESS_MAX) return undefined;
    const apiKey = randomUUID();
    const stored: StoredKey = {
      address: address.toLowerCase(), nonce, secret: randomBytes(32).toString('base64url'),
      passphrase: randomBytes(32).toString('hex'), createdAtMs: nowMs,
    };
    this.root.transactionSync(() => {
      this.keys.putSync(apiKey, stored);
      this.byOwner.putSync(owner, apiKey);
    });
    return { apiKey, secret: stored.secret, passphrase: stored.passphrase };
  }

  /** The credentials made earlier for (address, nonce). */
  derive(address: string, nonce: string): ApiCredentials | undefined {
    const apiKey = this.byOwner.get(ownerKey(address, nonce));
    const stored = apiKey === undefined ? undefined : this.keys.get(apiKey);
    if (apiKey === undefined || stored === undefined) return undefined;
    return { apiKey, secret: stored.secret, passphrase: stored.passphrase };
  }

  /** The key as the L2 check needs it; undefined when unknown or revoked. */
  lookup(apiKey: string): ApiKeyRecord | undefined {
    const cached = this.records.get(apiKey);
    if (cached !== undefined) return cached;
    const stored = this.keys.get(apiKey);
    if (stored === undefined) return undefined;
    const record: ApiKeyRecord = {
      apiKey, address: stored.address, secretBytes: Buffer.from(stored.secret, 'base64url'), passphrase: stored.passphrase,
    };
    this.records.set(apiKey, record);
    return record;
  }

  /** Every API key id of `address`, oldest first. */
  list(address: string): string[] {
    const prefix = `${address.toLowerCase()}\n`;
    const found: { apiKey: string; createdAtMs: number }[] = [];
    for (const { key, value } of this.byOwner.getRange({ start: prefix })) {
      if (!key.startsWith(prefix)) break;
      found.push({ apiKey: value, createdAtMs: this.keys.get(value)?.createdAtMs ?? 0 });
    }
    return found.sort((a, b) => a.createdAtMs - b.createdAtMs).map(({ apiKey }) => apiKey);
  }

  /** Revokes a key; false when it did not exist. */
  revoke(apiKey: string): boolean {
    const stored = this.keys.get(apiKey);
    if (stored === undefined) return false;
    this.root.transactionSync(() => {
      this.keys.removeSync(apiKey);
      this.byOwner.removeSync(ownerKey(stored.address, stored.nonce));
    });
    this.records.delete(apiKey);
    return true;
  }

  close(): Promise<void> {
    return this.root.close();
  }
}

function ownerKey(address: string, nonce: string): string {
  return `${address.toLowerCase()}\n${nonce}`;
}

// API credentials (contract §3), in their own LMDB environment (DATA_DIR/auth), each record with a
// checksum that every read checks (data_dir/checksum.ts). A key is made once per (address, nonce)
// and derived again from the same pair; deleting a key frees its pair for a new one. The secret
// is kept because every L2 request needs it as the HMAC key; it never leaves this module except
// to the L2 check and to its owner at creation or derivation, and nothing here logs it.
//
// Writes (creating and revoking a key) are LMDB asynchronous transactions: the check and the
// writes run in a callback on this thread, inside the write transaction, so two creations for
// one address at once are checked one after the other against everything written before them
// (the per-address limit holds and no key is lost); the commit and its sync run on lmdb-js's
// write thread, so the front end never waits for the disk. The promise resolves once the commit
// is synced (openDurable: no overlapping sync), which is when a route may answer: a key answered
// survives kill -9. Concurrent writes share one commit.
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type Database, type RootDatabase } from 'lmdb';
import { openDurable } from '../../engine/durable_env.js';
import { checksumOf } from '../data_dir/checksum.js';
import { KEY_CACHE_ENTRIES_DEFAULT, KeyCache } from './key_cache.js';
import type { ApiKeyRecord } from './l2.js';
import { Outbox } from '../replication/outbox.js';

/** What the client receives (contract §3). */
export interface ApiCredentials {
  readonly apiKey: string;
  readonly secret: string;
  readonly passphrase: string;
}

export interface StoredKey {
  readonly address: string;
  readonly nonce: string;
  readonly secret: string;
  readonly passphrase: string;
  readonly createdAtMs: number;
  /** checksumOf the key's id and the fields above: a flipped byte in a secret still decodes. */
  readonly check: number;
}

/** The key store's directory under DATA_DIR. */
export const KEYS_STORE = 'auth';

/** Writes held for a backup's cut (ApiKeyStore.holdWrites). */
export interface HeldWrites {
  /** Resolves once no write that began before the hold is still to commit. */
  readonly drained: Promise<void>;
  /** Lets the held writes (and new ones) go. */
  release(): void;
}

/** Keys per address: a wallet looping on POST /auth/api-key with new nonces stops here. */
export const KEYS_PER_ADDRESS_MAX = 100;

export interface ApiKeyStoreOptions {
  /**
   * The directory is being adopted (data_dir/directory.ts), so a key an older version stored
   * without a checksum is taken as it is until stampChecksums.
   */
  readonly adopting?: boolean;
  /** Decoded keys kept in memory (KEY_CACHE_ENTRIES). */
  readonly cacheEntries?: number;
}

/**
 * A secret as the client is given it: base64url with its `=` padding, 44 characters, as
 * Polymarket issues them (Python's base64.urlsafe_b64decode, which py-clob-client signs with,
 * refuses the unpadded form). Stored unpadded; every decoder here takes either.
 */
export function padded(secret: string): string {
  return secret.length % 4 === 0 ? secret : secret + '='.repeat(4 - (secret.length % 4));
}

export class ApiKeyStore {
  /** The keys made and revoked on their way to the primary's replicated journal (nothing without one). */
  readonly outbox: Outbox;
  private readonly root: RootDatabase;
  private readonly keys: Database<StoredKey, string>;
  private readonly byOwner: Database<string, string>;
  private adopting: boolean;
  /** Decoded keys in use, bounded, so an L2 check does not read and decode the record every time. */
  readonly cache: KeyCache;
  /** Set while a backup takes its cut: writes wait for it (holdWrites). */
  private writesHeld: Promise<void> | undefined = undefined;
  /** Writes begun and not committed yet, and who waits for there to be none. */
  private writing = 0;
  private readonly idle: (() => void)[] = [];

  constructor(dataDir: string, options: ApiKeyStoreOptions = {}) {
    this.adopting = options.adopting ?? false;
    this.cache = new KeyCache(options.cacheEntries ?? KEY_CACHE_ENTRIES_DEFAULT);
    const path = join(dataDir, KEYS_STORE);
    this.root = openDurable(path, 4);
    this.keys = this.root.openDB({ name: 'keys', encoding: 'msgpack' });
    this.byOwner = this.root.openDB({ name: 'by-owner', encoding: 'msgpack' });
    this.outbox = new Outbox(this.root, 'key store', (body) => this.write(body));
  }

  /**
   * New credentials for (address, nonce), once they are stored durably; undefined when that pair
   * already has a key or the address has KEYS_PER_ADDRESS_MAX.
   */
  async create(address: string, nonce: string, nowMs: number): Promise<ApiCredentials | undefined> {
    const owner = ownerKey(address, nonce);
    // Refused at once when the committed keys already refuse it; the transaction checks again.
    if (this.byOwner.get(owner) !== undefined || this.countOf(address) >= KEYS_PER_ADDRESS_MAX) return undefined;
    const apiKey = randomUUID();
    const stored = withCheck(apiKey, {
      address: address.toLowerCase(), nonce, secret: randomBytes(32).toString('base64url'),
      passphrase: randomBytes(32).toString('hex'), createdAtMs: nowMs,
    });
    const made = await this.write(() => {
      if (this.byOwner.get(owner) !== undefined || this.countOf(address) >= KEYS_PER_ADDRESS_MAX) return false;
      // Before the key's writes: a full outbox refuses the change with nothing written (Outbox.stage).
      const staged = this.outbox.stage({ kind: 'key', apiKey, stored });
      this.keys.putSync(apiKey, stored);
      this.byOwner.putSync(owner, apiKey);
      return { staged };
    });
    if (made === false) return undefined;
    this.outbox.send(made.staged);
    return { apiKey, secret: padded(stored.secret), passphrase: stored.passphrase };
  }

  /** The credentials made earlier for (address, nonce). */
  derive(address: string, nonce: string): ApiCredentials | undefined {
    const apiKey = this.byOwner.get(ownerKey(address, nonce));
    const stored = apiKey === undefined ? undefined : this.read(apiKey);
    if (apiKey === undefined || stored === undefined) return undefined;
    return { apiKey, secret: padded(stored.secret), passphrase: stored.passphrase };
  }

  /** The key as the L2 check needs it; undefined when unknown or revoked. */
  lookup(apiKey: string): ApiKeyRecord | undefined {
    const cached = this.cache.get(apiKey);
    if (cached !== undefined) return cached;
    const stored = this.read(apiKey);
    if (stored === undefined) return undefined;
    const record: ApiKeyRecord = {
      apiKey, address: stored.address, secretBytes: Buffer.from(stored.secret, 'base64url'), passphrase: stored.passphrase,
    };
    this.cache.set(record);
    return record;
  }

  /** Every API key id of `address`, oldest first. */
  list(address: string): string[] {
    const prefix = ownerPrefix(address);
    const found: { apiKey: string; createdAtMs: number }[] = [];
    for (const { key, value } of this.byOwner.getRange({ start: prefix })) {
      if (!key.startsWith(prefix)) break;
      found.push({ apiKey: value, createdAtMs: this.read(value)?.createdAtMs ?? 0 });
    }
    return found.sort((a, b) => a.createdAtMs - b.createdAtMs).map(({ apiKey }) => apiKey);
  }

  /**
   * Revokes a key, once that is stored durably, and drops it from the cache; false when it did
   * not exist. Until the promise resolves the key still works (the revocation is not answered yet).
   */
  async revoke(apiKey: string): Promise<boolean> {
    const revoked = await this.write(() => {
      const stored = this.read(apiKey);
      if (stored === undefined) return false;
      const staged = this.outbox.stage({ kind: 'revoke', apiKey });
      this.keys.removeSync(apiKey);
      this.byOwner.removeSync(ownerKey(stored.address, stored.nonce));
      return { staged };
    });
    // After the commit: a lookup between the callback and the commit read the key as committed
    // then, and may have cached it again. lmdb-js renews its read transaction before it resolves
    // the commit, so from here on a lookup reads the key as gone.
    this.cache.delete(apiKey);
    if (revoked === false) return false;
    this.outbox.send(revoked.staged);
    return true;
  }

  /** A replica: stores a key as the primary stored it (again: the same key, unchanged). */
  async adopt(apiKey: string, stored: StoredKey): Promise<void> {
    await this.write(() => {
      this.keys.putSync(apiKey, stored);
      this.byOwner.putSync(ownerKey(stored.address, stored.nonce), apiKey);
    });
    this.cache.delete(apiKey);
  }

  /**
   * What is wrong with the stored keys: a record that fails its checksum, an owner entry that
   * names no key or a key that does not name it back, a key no owner entry names. O(keys).
   */
  problems(): string[] {
    const found: string[] = [];
    let owned = 0;
    for (const { key, value } of this.byOwner.getRange()) {
      const stored = this.keys.get(value);
      if (stored === undefined) found.push(`holds an owner entry for API key ${value}, which it does not hold`);
      // A damaged record is reported once, below.
      if (stored === undefined || !this.isSound(value, stored)) continue;
      if (ownerKey(stored.address, stored.nonce) === key) owned++;
      else found.push(`holds API key ${value} under an owner entry that is not its own`);
    }
    let keys = 0;
    for (const { key, value } of this.keys.getRange()) {
      keys++;
      if (!this.isSound(key, value)) found.push(`holds a damaged record of API key ${key} (it fails its checksum)`);
    }
    if (found.length === 0 && owned !== keys) found.push(`holds ${keys} API keys but ${owned} owner entries that name them`);
    return found;
  }

  /**
   * Adopting a directory, once it is checked: gives every key an older version stored without a
   * checksum its checksum, in one transaction; from then on every key needs one.
   */
  stampChecksums(): void {
    this.root.transactionSync(() => {
      for (const { key, value } of this.keys.getRange()) {
        if ((value as Partial<StoredKey>).check === undefined) this.keys.putSync(key, withCheck(key, value));
      }
    });
    this.adopting = false;
  }

  async close(): Promise<void> {
    await this.outbox.close();
    await this.root.close();
  }

  /**
   * For a backup's cut (http/backup/cut.ts): the store's writes commit on lmdb-js's write thread,
   * at any time, so the cut holds new ones back (they wait, and then run as always) and waits
   * for those in flight to commit. Release it in every case.
   */
  holdWrites(): HeldWrites {
    let open!: () => void;
    const held = new Promise<void>((resolve) => (open = resolve));
    this.writesHeld = held;
    const drained = this.writing === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.idle.push(resolve));
    return {
      drained,
      release: () => {
        if (this.writesHeld === held) this.writesHeld = undefined;
        open();
      },
    };
  }

  /** An asynchronous write transaction (see the file comment), after any hold of writes. */
  private async write<T>(body: () => T): Promise<T> {
    while (this.writesHeld !== undefined) await this.writesHeld;
    this.writing++;
    try {
      return await this.root.transaction(body);
    } finally {
      if (--this.writing === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /** Keys of `address`, up to KEYS_PER_ADDRESS_MAX (inside a write transaction: what it wrote too). */
  private countOf(address: string): number {
    const prefix = ownerPrefix(address);
    let count = 0;
    for (const key of this.byOwner.getKeys({ start: prefix })) {
      if (typeof key !== 'string' || !key.startsWith(prefix) || ++count >= KEYS_PER_ADDRESS_MAX) break;
    }
    return count;
  }

  /** The stored key, checked; throws when its record fails its checksum. */
  private read(apiKey: string): StoredKey | undefined {
    const stored: unknown = this.keys.get(apiKey);
    if (stored === undefined) return undefined;
    if (!this.isSound(apiKey, stored)) throw new Error(`${KEYS_STORE} holds a damaged record of API key ${apiKey} (it fails its checksum)`);
    return stored;
  }

  /** Whether `value` is a sound record of `apiKey`: its checksum holds (or, adopting, it has none). */
  private isSound(apiKey: string, value: unknown): value is StoredKey {
    if (isStoredKey(apiKey, value)) return true;
    const unstamped = this.adopting && typeof value === 'object' && value !== null && !('check' in value);
    return unstamped && isStoredKey(apiKey, withCheck(apiKey, value as StoredKey));
  }
}

function checkOf(apiKey: string, key: Omit<StoredKey, 'check'>): number {
  return checksumOf([apiKey, key.address, key.nonce, key.secret, key.passphrase, key.createdAtMs]);
}

function withCheck(apiKey: string, key: Omit<StoredKey, 'check'>): StoredKey {
  const { address, nonce, secret, passphrase, createdAtMs } = key;
  const fields = { address, nonce, secret, passphrase, createdAtMs };
  return { ...fields, check: checkOf(apiKey, fields) };
}

/** Whether `value` is a stored key whose checksum holds for `apiKey`. */
function isStoredKey(apiKey: string, value: unknown): value is StoredKey {
  if (typeof value !== 'object' || value === null) return false;
  const key = value as Partial<Record<keyof StoredKey, unknown>>;
  const strings = [key.address, key.nonce, key.secret, key.passphrase].every((field) => typeof field === 'string');
  if (!strings || typeof key.createdAtMs !== 'number' || typeof key.check !== 'number') return false;
  return key.check === checkOf(apiKey, value as StoredKey);
}

/** Owner entries are `address\nnonce`: one address's are adjacent, after this prefix. */
function ownerPrefix(address: string): string {
  return `${address.toLowerCase()}\n`;
}

function ownerKey(address: string, nonce: string): string {
  return `${ownerPrefix(address)}${nonce}`;
}

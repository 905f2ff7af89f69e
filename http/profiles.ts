// Public profiles of addresses (contract §8: PUT /admin/profiles/{address}), shown on the public
// fill and activity feeds. An address without one gets a stable pseudonym derived from it, so
// feeds never show an empty name.
import type { ChangeLog } from './replication/state_changes.js';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type Database, type RootDatabase } from 'lmdb';
import { openDurable } from '../engine/durable_env.js';

export interface Profile {
  readonly name: string;
  readonly pseudonym: string;
  readonly bio: string;
  readonly profileImage: string;
}

/** The profiles' directory under DATA_DIR. */
export const PROFILES_STORE = 'profiles';

/** Longest text of any profile field. */
export const PROFILE_TEXT_MAX = 512;

const ADJECTIVES = ['Amber', 'Brisk', 'Calm', 'Daring', 'Eager', 'Frosty', 'Gentle', 'Hidden', 'Idle', 'Jolly', 'Keen', 'Lucky', 'Mellow', 'Nimble', 'Odd', 'Proud'];
const NOUNS = ['Badger', 'Comet', 'Delta', 'Falcon', 'Glacier', 'Harbor', 'Island', 'Jaguar', 'Kite', 'Lantern', 'Meadow', 'Nebula', 'Otter', 'Pine', 'Quartz', 'River'];

/** A pseudonym that is the same for an address on every install. */
export function pseudonymOf(address: string): string {
  const digest = createHash('sha256').update(address.toLowerCase()).digest();
  return `${ADJECTIVES[digest[0]! % ADJECTIVES.length]}-${NOUNS[digest[1]! % NOUNS.length]}`;
}

export class ProfileStore {
  private readonly root: RootDatabase;
  private readonly profiles: Database<Profile, string>;
  /** Where committed changes go (the primary's replicated journal); undefined without one. */
  changes: ChangeLog | undefined = undefined;

  constructor(dataDir: string) {
    const path = join(dataDir, PROFILES_STORE);
    this.root = openDurable(path, 2);
    this.profiles = this.root.openDB({ name: 'profiles', encoding: 'msgpack' });
  }

  /** The address's profile, or the default one (pseudonym only). */
  get(address: string): Profile {
    const key = address.toLowerCase();
    return this.profiles.get(key) ?? { name: '', pseudonym: pseudonymOf(key), bio: '', profileImage: '' };
  }

  /** Replaces the given fields of the address's profile, durably; returns the result. */
  set(address: string, fields: Partial<Profile>): Profile {
    const key = address.toLowerCase();
    const next: Profile = { ...this.get(key), ...fields };
    this.root.transactionSync(() => this.profiles.putSync(key, next));
    this.changes?.record({ kind: 'profile', address: key, profile: { ...next } });
    return next;
  }

  close(): Promise<void> {
    return this.root.close();
  }
}

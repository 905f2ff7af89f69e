// Public profiles of addresses (contract §8: PUT /admin/profiles/{address}), shown on the public
// fill and activity feeds. An address without one gets a stable pseudonym derived from it, so
// feeds never show an empty name.
import { Outbox } from './replication/outbox.js';
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
  /** The profiles' changes on their way to the primary's replicated journal (nothing without one). */
  readonly outbox: Outbox;

  constructor(dataDir: string) {
    const path = join(dataDir, PROFILES_STORE);
    // The profiles and the outbox (replication/outbox.ts), with room for two more.
    this.root = openDurable(path, 4);
    this.profiles = this.root.openDB({ name: 'profiles', encoding: 'msgpack' });
    this.outbox = new Outbox(this.root, 'profile store');
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
    this.outbox.commitSync(() => this.profiles.putSync(key, next), () => ({ kind: 'profile', address: key, profile: { ...next } }));
    return next;
  }

  async close(): Promise<void> {
    await this.outbox.close();
    await this.root.close();
  }
}

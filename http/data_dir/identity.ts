// A store's identity: a random id made when the directory is first recorded, written into the
// store itself (under IDENTITY_KEY in its root database, beside its tables) and into the
// directory's record (record.ts). A store whose identity is not the recorded one was emptied
// (an empty environment holds none), replaced, or moved here from another place.
import { randomBytes } from 'node:crypto';
import type { RootDatabase } from 'lmdb';
import { openDurable } from '../../engine/durable_env.js';
import { messageOf, problem, type Problem } from './damage.js';
import { storePath } from './stores.js';

/** The root key of the identity. Table names in the root end in a NUL byte, so it is never one. */
export const IDENTITY_KEY = 'clobd-store';
const IDENTITY_BYTES = 16;

interface StoreIdentity {
  /** The store's name where it was made (shard-0, treasury …). */
  readonly store: string;
  readonly identity: string;
}

export function newIdentity(): string {
  return randomBytes(IDENTITY_BYTES).toString('hex');
}

function isIdentity(value: unknown): value is StoreIdentity {
  return typeof value === 'object' && value !== null && typeof (value as StoreIdentity).store === 'string' && typeof (value as StoreIdentity).identity === 'string';
}

/** Opens the store (creating it when absent), runs `body` on its root, closes it. */
async function withRoot<T>(dataDir: string, name: string, body: (root: RootDatabase) => T): Promise<T> {
  // No tables are opened here: the store's own module opens them, with its own table count.
  const root = openDurable(storePath(dataDir, name), 1);
  try {
    return body(root);
  } finally {
    await root.close();
  }
}

/**
 * The identity store `name` holds, made and written first when it holds none (a new store, or
 * one an older version wrote); a problem when it does not open or its identity is damaged.
 */
export async function stampIdentity(dataDir: string, name: string): Promise<string | Problem> {
  try {
    return await withRoot(dataDir, name, (root) => {
      const held: unknown = root.get(IDENTITY_KEY);
      if (isIdentity(held)) return held.identity;
      if (held !== undefined) return problem(name, 'holds a damaged identity');
      const made: StoreIdentity = { store: name, identity: newIdentity() };
      root.putSync(IDENTITY_KEY, made);
      return made.identity;
    });
  } catch (error) {
    return problem(name, `does not open: ${messageOf(error)}`);
  }
}

/** What is wrong with store `name`'s identity, checked against the record's `identities`. */
export async function identityProblems(dataDir: string, name: string, identities: Readonly<Record<string, string>>): Promise<Problem[]> {
  let held: unknown;
  try {
    held = await withRoot(dataDir, name, (root) => root.get(IDENTITY_KEY));
  } catch (error) {
    return [problem(name, `does not open: ${messageOf(error)}`)];
  }
  if (held === undefined) return [problem(name, 'holds no identity: it is not the store this directory recorded (emptied, or replaced by another)')];
  if (!isIdentity(held)) return [problem(name, 'holds a damaged identity')];
  if (held.identity === identities[name]) return [];
  const other = Object.keys(identities).find((recorded) => identities[recorded] === held.identity);
  if (other !== undefined) return [problem(name, `holds the identity of this directory's ${other}: the stores were swapped or copied`)];
  return [problem(name, `holds the identity of ${held.store} of another data directory`)];
}

// The data directory as a start finds it, checked before any store's module opens it:
//
//   recorded  it has a record (record.ts): every store the record lists must be there, with
//             sound meta pages (meta_pages.ts) and the identity the record holds for it.
//   fresh     no record and no treasury: a new directory, perhaps with a catalog (an import
//             before the first start), or one whose first start stopped early. Every store is
//             made (if it is not there) and stamped with a new identity.
//   adopting  no record, but a treasury: a version before the record served it. Every store it
//             should hold must be there and sound; each gets an identity (and the records that
//             carry checksums get theirs, see checksum.ts) before the start goes on.
//
// The record of a fresh or adopted directory is written only once the start has also checked
// that the stores agree (agreement.ts), so a start that stops on the way leaves a directory the
// next start adopts again. Nothing here reads a store's pages beyond its root: the walk of every
// page (page_walk.ts) runs in a child process before this, from main.ts.
import { Treasury, TREASURY_STORE } from '../trading/treasury.js';
import { refuseIfAny, type Problem } from './damage.js';
import { identityProblems, stampIdentity } from './identity.js';
import { makeRecord, readRecord, shardsMismatch, writeRecord, type DirectoryRecord } from './record.js';
import { shardOfStore, storeExists, storeFileProblems, storeNames } from './stores.js';

export type DirectoryState = 'recorded' | 'fresh' | 'adopting';

export interface Inspection {
  readonly dataDir: string;
  readonly state: DirectoryState;
  readonly record: DirectoryRecord | undefined;
  /** The stores to walk: every one of a recorded or adopted directory (shards: those there), those a new one has. */
  readonly present: readonly string[];
}

/**
 * What can be known of the directory without opening a store in this process: its record, and
 * the presence and meta pages of every store it holds. Throws DataDirDamaged (every problem
 * found) or ConfigError (SHARDS is not the recorded number).
 */
export function inspectDataDir(dataDir: string, shards: number): Inspection {
  const record = readRecord(dataDir);
  if (record !== undefined) {
    if (record.shards !== shards) throw shardsMismatch(record.shards);
    const present = Object.keys(record.stores);
    refuseIfAny(dataDir, present.flatMap((name) => storeFileProblems(dataDir, name, shards)));
    return { dataDir, state: 'recorded', record, present };
  }
  // With no record, the treasury tells a directory that was served from one that was not: every
  // start of an older version made it, after the catalog, the keys and the profiles, and a new
  // directory's stores are stamped with the treasury last (openDataDir). The shards are checked
  // once the treasury says how many there are (checkStores).
  const adopting = storeExists(dataDir, TREASURY_STORE);
  const present = storeNames(shards).filter((name) => (adopting && shardOfStore(name) === undefined) || storeExists(dataDir, name));
  refuseIfAny(dataDir, present.flatMap((name) => storeFileProblems(dataDir, name, shards)));
  return { dataDir, state: adopting ? 'adopting' : 'fresh', record, present };
}

export interface OpenedDataDir {
  readonly state: DirectoryState;
  /** Writes the record of a fresh or adopted directory; call it once the stores are known to agree. */
  writeRecord(): void;
}

/**
 * Checks what needs each store opened in this process (after inspectDataDir): the identity of
 * every store of a recorded directory; in one being adopted, that the treasury records SHARDS
 * and every shard it needs is there. Stamps nothing. Throws DataDirDamaged or ConfigError.
 */
export async function checkStores(inspection: Inspection, shards: number): Promise<void> {
  const { dataDir, record } = inspection;
  if (record !== undefined) {
    const problems: Problem[] = [];
    for (const name of inspection.present) problems.push(...await identityProblems(dataDir, name, record.stores));
    refuseIfAny(dataDir, problems);
  } else if (inspection.state === 'adopting') {
    const recorded = await Treasury.recordedShards(dataDir);
    if (recorded !== undefined && recorded !== shards) throw shardsMismatch(recorded);
    refuseIfAny(dataDir, storeNames(shards).filter((name) => !inspection.present.includes(name)).flatMap((name) => storeFileProblems(dataDir, name, shards)));
  }
}

/**
 * Inspects the directory (unless `inspection` is one just made) and checks its stores, then
 * stamps the identity of each store of a fresh or adopted directory (making those that do not
 * exist yet). Throws DataDirDamaged or ConfigError.
 */
export async function openDataDir(dataDir: string, shards: number, inspection = inspectDataDir(dataDir, shards)): Promise<OpenedDataDir> {
  await checkStores(inspection, shards);
  if (inspection.state === 'recorded') return { state: 'recorded', writeRecord: () => undefined };
  const identities = new Map<string, string>();
  const problems: Problem[] = [];
  // The treasury last: a start that stops before it leaves a directory the next start takes as new.
  for (const name of [...storeNames(shards).filter((name) => name !== TREASURY_STORE), TREASURY_STORE]) {
    const stamped = await stampIdentity(dataDir, name);
    if (typeof stamped === 'string') identities.set(name, stamped);
    else problems.push(stamped);
  }
  refuseIfAny(dataDir, problems);
  return { state: inspection.state, writeRecord: () => writeRecord(dataDir, makeRecord(shards, identities)) };
}

// The walk of every page of a store: every table its root lists is opened as it was made
// (integer keys, sorted duplicates) with binary encodings, so nothing is decoded, and every key
// and value is read (lmdb-js copies a binary value out of the map, so every page of a long value
// is read too); each table must then hold
// as many entries as its record in the root counts. LMDB follows every branch, leaf and overflow
// page on the way, and fails on a page that is not what its parent says (MDB_CORRUPTED,
// MDB_PAGE_NOTFOUND), or crashes reading outside the map: so this runs in a child process
// (walker.ts), never in the server's.
import { open } from 'lmdb';
import { DB_ENTRIES_AT, DB_FLAGS_AT, DB_RECORD_BYTES, DUPSORT, INTEGERKEY } from './lmdb_layout.js';

/** Tables a store may list: more than any clobd store has (a shard's 16). */
const TABLES_MAX = 64;

export interface PageWalk {
  readonly tables: number;
  readonly entries: number;
  /** Bytes of keys and values read. */
  readonly bytes: number;
}

/**
 * Walks the store at `path`. `reading` is told what is read next (its root, each table) before it
 * is read: a crash then names it. `identityKey`: the one root entry that is no table. Throws on the first damage found.
 */
export async function walkPages(path: string, identityKey: string, reading: (table: string) => void): Promise<PageWalk> {
  const root = open({ path, readOnly: true, encoding: 'binary', keyEncoding: 'binary', maxDbs: TABLES_MAX });
  try {
    // The root's entries are copied out before any table is opened: opening one in a read-only
    // environment renews the read transaction, which a cursor still open on the root would use
    // after it ended (lmdb-js then crashes).
    reading('its root');
    let listed: (readonly [string, Buffer])[];
    try {
      listed = [...root.getRange()].map(({ key, value }) => [Buffer.from(key as Buffer).toString('utf8'), Buffer.from(value)] as const);
    } catch (error) {
      throw new Error(`reading its root: ${(error as Error).message}`);
    }
    let entries = 0;
    let bytes = 0;
    let tables = 0;
    for (const [listedName, record] of listed) {
      if (listedName === identityKey) continue;
      if (!listedName.endsWith('\0') || record.length !== DB_RECORD_BYTES) throw new Error(`its root holds an entry that is no table (${JSON.stringify(listedName)})`);
      if (++tables > TABLES_MAX) throw new Error(`its root lists more than ${TABLES_MAX} tables`);
      const name = listedName.slice(0, -1);
      const flags = record.readUInt16LE(DB_FLAGS_AT);
      const counted = record.readBigUInt64LE(DB_ENTRIES_AT);
      reading(`its table ${name}`);
      const table = root.openDB({
        name, encoding: 'binary', keyEncoding: (flags & INTEGERKEY) === 0 ? 'binary' : 'uint32', dupSort: (flags & DUPSORT) !== 0,
      });
      let found = 0n;
      try {
        for (const { key, value } of table.getRange()) {
          found++;
          bytes += (typeof key === 'number' ? 4 : (key as Buffer).length) + (value as Buffer).length;
        }
      } catch (error) {
        throw new Error(`reading its table ${name}: ${(error as Error).message}`);
      }
      if (found !== counted) throw new Error(`its table ${name} holds ${found} entries where its record counts ${counted}`);
      entries += Number(found);
    }
    return { tables, entries, bytes };
  } finally {
    await root.close();
  }
}

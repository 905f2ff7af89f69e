// The record of a data directory, DATA_DIR/clobd.json: the format it was written in, SHARDS, and
// every store the directory holds with that store's identity (identity.ts). It is what tells a
// store that is missing, emptied or swapped from one that was never made: an emptied data.mdb
// opens in LMDB as a new, empty environment, and a deleted store directory would be made again
// by the first module that opens it. Written at the end of the first start that finds it absent
// (identity.ts stamps the stores first) and never changed afterwards, but for a backup's: a
// backup's record also holds a `backup` section (http/backup/section.ts), which the first start
// on it drops once it has checked the state the section recorded.
//
// The file is written atomically: a temporary file, synced, renamed over the record, and the
// directory synced, so a crash leaves the old record or the new one, never a part of one.
import { existsSync, readFileSync } from 'node:fs';
import { writeFileDurably } from './durable_file.js';
import { join } from 'node:path';
import { backupFault, type BackupSection } from '../backup/section.js';
import { ConfigError } from '../config.js';
import { DataDirDamaged, messageOf, problem } from './damage.js';
import { storeNames } from './stores.js';

export const RECORD_FILE = 'clobd.json';
/** The record's format; a later version that changes the record writes a larger number. */
const RECORD_FORMAT = 1;
const IDENTITY_PATTERN = /^[0-9a-f]{32}$/;

export interface DirectoryRecord {
  readonly format: number;
  readonly shards: number;
  /** Store name → its identity, for every store the directory holds. */
  readonly stores: Readonly<Record<string, string>>;
  /** Only in a backup's record (see the file comment). */
  readonly backup?: BackupSection;
}

export function makeRecord(shards: number, identities: ReadonlyMap<string, string>): DirectoryRecord {
  return { format: RECORD_FORMAT, shards, stores: Object.fromEntries(storeNames(shards).map((name) => [name, identities.get(name)!])) };
}

/** What is wrong with a parsed record, or undefined when it is well formed. */
function recordFault(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'is not a JSON object';
  const { format, shards, stores } = value as Partial<Record<keyof DirectoryRecord, unknown>>;
  if (typeof format !== 'number' || format < 1) return 'has no format';
  if (format > RECORD_FORMAT) return `was written by a later version of clobd (format ${format}; this one reads ${RECORD_FORMAT})`;
  if (typeof shards !== 'number' || !Number.isSafeInteger(shards) || shards < 1) return 'has no number of shards';
  if (typeof stores !== 'object' || stores === null) return 'lists no stores';
  const names = Object.keys(stores);
  const expected = storeNames(shards);
  if (names.length !== expected.length || expected.some((name) => !names.includes(name))) return `does not list the stores of ${shards} shards`;
  const identities = stores as Record<string, unknown>;
  const bad = names.find((name) => typeof identities[name] !== 'string' || !IDENTITY_PATTERN.test(identities[name]));
  if (bad !== undefined) return `holds no valid identity for ${bad}`;
  const backup = (value as { backup?: unknown }).backup;
  return backup === undefined ? undefined : backupFault(backup, shards);
}

/**
 * The directory's record, or undefined when it has none (a new directory, or one a version
 * before the record wrote). A record that does not parse, or is not one, is damage.
 */
export function readRecord(dataDir: string): DirectoryRecord | undefined {
  const file = join(dataDir, RECORD_FILE);
  if (!existsSync(file)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new DataDirDamaged(dataDir, [problem(RECORD_FILE, `does not parse: ${messageOf(error)}`)]);
  }
  const fault = recordFault(value);
  if (fault !== undefined) throw new DataDirDamaged(dataDir, [problem(RECORD_FILE, fault)]);
  return value as DirectoryRecord;
}

/** Writes the record atomically (see the file comment). */
export function writeRecord(dataDir: string, record: DirectoryRecord): void {
  writeFileDurably(join(dataDir, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
}

/** The refusal of a start whose SHARDS is not the one the directory was written with. */
export function shardsMismatch(recorded: number): ConfigError {
  return new ConfigError(`DATA_DIR was written with SHARDS=${recorded}; markets are mapped to shards by that number, so start with SHARDS=${recorded}`);
}

// The backup and restore commands of main.ts:
//
//   node dist/http/main.js backup DIR
//     asks the server running on DATA_DIR (control.ts) for a copy of every store at one cut
//     (cut.ts), which it writes into DIR.partial-<hex>; then checks that copy here as a start
//     would (check.ts), and that each shard recovers exactly to the cut's batch and sequence
//     number, records each shard's state hash in the copy's clobd.json (section.ts), and only
//     then renames it to DIR. A backup stopped on the way (the server or this command killed)
//     leaves DIR.partial-<hex>, whose record says it never finished: nothing starts on it.
//
//   node dist/http/main.js restore BACKUP [DATA_DIR]
//     copies the backup into DATA_DIR.partial-<hex> (DATA_DIR: the setting when not given, and
//     it must not exist or be empty: never a directory a server holds), checks it as a start
//     would, refuses it (exit 2, naming the shard) when a shard recovers to another state hash
//     than the one recorded, writes the ordinary record and renames it to DATA_DIR. The backup
//     is left as it was. Starting a server on the backup itself checks it the same way (accept.ts)
//     and makes it the live directory.
import { chmodSync, copyFileSync, existsSync, mkdirSync, openSync, closeSync, fsyncSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ConfigError, type Config } from '../config.js';
import { DataDirDamaged, problem } from '../data_dir/damage.js';
import { readRecord, writeRecord, type DirectoryRecord } from '../data_dir/record.js';
import { storeNames } from '../data_dir/stores.js';
import { shardStoreName } from '../../engine/shard/store.js';
import { checkCopy, type CheckedCopy } from './check.js';
import { requestBackup } from './control.js';
import { BackupRefused, type ServerCopy } from './cut.js';
import { DEMO_FILE } from '../trading/demo_state.js';
import { DATA_FILE } from './page_copy.js';
import type { CompleteBackup } from './section.js';
import { partialName, targetProblem } from './target.js';
import { syncDirectory } from '../data_dir/durable_file.js';

const BYTES_PER_MB = 1_000_000;

function megabytes(bytes: number): string {
  return `${(bytes / BYTES_PER_MB).toFixed(1)} MB`;
}

function hashes(shards: CompleteBackup['shards']): string {
  return shards.map((shard, index) => `${shardStoreName(index)} ${shard.stateHash.slice(0, 16)}… (batch ${shard.batch}, seq ${shard.seq})`).join(', ');
}

/** Renames the finished `partial` to `target` and syncs their directory. */
function putInPlace(partial: string, target: string): void {
  renameSync(partial, target);
  syncDirectory(dirname(target));
}

/** A backup made and checked (takeBackup). */
export interface TakenBackup {
  readonly target: string;
  readonly copy: ServerCopy;
  readonly checked: CheckedCopy;
  readonly section: CompleteBackup;
  readonly ms: number;
}

/**
 * The backup command's work (see the file comment): a copy of every store of the server running
 * on DATA_DIR, at one cut, checked and put in place at `target` (absolute). ConfigError for what
 * the operator can act on (a target in the way, the server's refusal).
 */
export async function takeBackup(config: Config, target: string, onCut: (pauseMs: number) => void): Promise<TakenBackup> {
  const refused = targetProblem(target, config.dataDir);
  if (refused !== undefined) throw new ConfigError(`backup refused: ${refused}`);
  const started = performance.now();
  let copy: ServerCopy;
  try {
    copy = await requestBackup(config.dataDir, target, config.backupMbPerS, (report) => {
      if (report.event === 'cut') onCut(report.pauseMs);
    });
  } catch (error) {
    if (error instanceof BackupRefused) throw new ConfigError(`backup refused: ${error.message}`);
    throw error;
  }
  try {
    const checked = await checkCopy(copy.partial, copy.record, copy.engine);
    checked.shards.forEach((shard, index) => {
      const cut = copy.shards[index]!;
      if (shard.batch !== cut.batch || shard.seq !== cut.seq) {
        throw new Error(`the copy of ${shardStoreName(index)} recovers to batch ${shard.batch} (seq ${shard.seq}), not to the cut's batch ${cut.batch} (seq ${cut.seq})`);
      }
    });
    const section: CompleteBackup = {
      state: 'complete', startedAt: copy.startedAt, source: config.dataDir, cutAt: copy.cutAt, pauseMs: copy.pauseMs, engine: copy.engine,
      shards: checked.shards,
    };
    copyLooseFiles(config.dataDir, copy.partial);
    writeRecord(copy.partial, { ...copy.record, backup: section });
    putInPlace(copy.partial, target);
    return { target, copy, checked, section, ms: performance.now() - started };
  } catch (error) {
    rmSync(copy.partial, { recursive: true, force: true });
    throw error;
  }
}

/** The backup command (see the file comment); resolves with its report. */
export async function runBackup(config: Config, directory: string | undefined): Promise<string> {
  if (directory === undefined) throw new ConfigError('usage: backup <directory>');
  const { target, copy, checked, section, ms } = await takeBackup(config, resolve(directory), (pauseMs) => {
    process.stdout.write(`cut taken: trading paused ${pauseMs.toFixed(1)} ms; copying\n`);
  });
  const bytes = copy.stores.reduce((sum, store) => sum + store.bytes, 0);
  return [
    `backup ${target} is complete (${(ms / 1000).toFixed(1)} s)`,
    `  cut: ${copy.cutAt}; trading paused ${copy.pauseMs.toFixed(1)} ms (the longest a shard held), API key writes ${copy.keysHeldMs.toFixed(1)} ms`,
    `  copied: ${copy.stores.length} stores, ${megabytes(bytes)} in ${(copy.copyMs / 1000).toFixed(1)} s while trading went on`,
    `  checked: ${checked.walk.entries} entries walked, identities, ${section.shards.length} shard(s) recovered to the cut, invariants and agreement hold, ${checked.ordersLive} live orders`,
    `  state hashes: ${hashes(section.shards)}`,
  ].join('\n');
}

/**
 * The files of a data directory that are not stores but belong in a backup: demo.json, the demo
 * accounts' private keys (without it a restored demo would mint new accounts and strand the old
 * ones' funds). Its keys are written when the demo is seeded and never change after (a start
 * only counts itself there), so a copy made after the cut holds the keys the cut's state uses.
 * Nothing else loose is copied: a lock file naming the live server would block a start on the copy.
 */
const LOOSE_FILES = [DEMO_FILE] as const;
const PRIVATE_FILE_MODE = 0o600;

function copyLooseFiles(from: string, to: string): void {
  for (const name of LOOSE_FILES) {
    if (!existsSync(join(from, name))) continue;
    copySynced(join(from, name), join(to, name));
    chmodSync(join(to, name), PRIVATE_FILE_MODE);
  }
}

/** Copies `from` to the new file `to` and syncs it. */
function copySynced(from: string, to: string): void {
  copyFileSync(from, to);
  const fd = openSync(to, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The restore command (see the file comment); resolves with its report. */
export async function runRestore(config: Config, backupArgument: string | undefined, dataDirArgument: string | undefined): Promise<string> {
  if (backupArgument === undefined) throw new ConfigError('usage: restore <backup> [<data directory>]');
  const started = performance.now();
  const backupDir = resolve(backupArgument);
  const dataDir = resolve(dataDirArgument ?? config.dataDir);
  const record = readRecord(backupDir);
  if (record === undefined) throw new ConfigError(`restore refused: ${backupDir} holds no clobd.json: it is not a backup`);
  const backup = record.backup;
  if (backup?.state !== 'complete') throw new ConfigError(`restore refused: ${backupDir} is a data directory, not a backup (its clobd.json records no backup): start on it, or back it up first`);
  const refused = targetProblem(dataDir, backupDir);
  if (refused !== undefined) throw new ConfigError(`restore refused: ${refused}`);
  const plain: DirectoryRecord = { format: record.format, shards: record.shards, stores: record.stores };
  const partial = partialName(dataDir);
  try {
    mkdirSync(partial);
    // First: a restore stopped on the way leaves a directory nothing starts on.
    writeRecord(partial, { ...plain, backup: { state: 'partial', startedAt: new Date().toISOString(), source: backupDir } });
    for (const name of storeNames(record.shards)) {
      mkdirSync(join(partial, name));
      copySynced(join(backupDir, name, DATA_FILE), join(partial, name, DATA_FILE));
      syncDirectory(join(partial, name));
    }
    let checked: CheckedCopy;
    try {
      checked = await checkCopy(partial, plain, backup.engine);
    } catch (error) {
      // The copy is the backup's bytes: its problems are the backup's.
      if (error instanceof DataDirDamaged) throw new DataDirDamaged(backupDir, error.problems);
      throw error;
    }
    const differ = checked.shards.flatMap((shard, index) => {
      const recorded = backup.shards[index]!;
      if (shard.stateHash === recorded.stateHash) return [];
      return [problem(shardStoreName(index), `recovers to state hash ${shard.stateHash} (batch ${shard.batch}), not the ${recorded.stateHash} its backup recorded at batch ${recorded.batch}`)];
    });
    if (differ.length > 0) throw new DataDirDamaged(backupDir, differ);
    copyLooseFiles(backupDir, partial);
    writeRecord(partial, plain);
    putInPlace(partial, dataDir);
    return [
      `restored ${backupDir} into ${dataDir} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
      `  backup: cut ${backup.cutAt} from ${backup.source}`,
      `  checked: ${checked.walk.entries} entries walked, identities, ${checked.shards.length} shard(s) recovered to their recorded state hashes, invariants and agreement hold, ${checked.ordersLive} live orders`,
      `  state hashes: ${hashes(checked.shards)}`,
      `  start the server with DATA_DIR=${dataDir} SHARDS=${record.shards}${backup.engine.operatorAddress === config.feeAccount.toLowerCase() ? '' : ` and EXCHANGE_ADDRESS=${backup.engine.operatorAddress} (the fee account the backup was taken with)`}`,
    ].join('\n');
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

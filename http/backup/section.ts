// What the record of a backup (its clobd.json, data_dir/record.ts) says beyond an ordinary
// record, under `backup`:
//
//   partial   written first, into the directory being filled under a temporary name: a start,
//             `verify` or `restore` on it stops on the record (exit 2), so an unfinished backup is
//             never taken for one, even if it is renamed by hand.
//   complete  written last, once the copy passed every check, just before the directory is
//             renamed to the name asked for: the cut (each shard's batch, engine sequence number
//             and the state hash its copy recovers to) and the engine settings that state was
//             made with. `restore`, and a start on the backup itself, recover each shard and
//             refuse one whose state hash is not the recorded one; the first start drops the
//             section (the state moves on from there).

/** A shard of a backup: where the cut found it, and what its copy recovers to. */
export interface BackupShard {
  /** The last batch committed before the cut, and the engine's sequence number after it. */
  readonly batch: number;
  readonly seq: number;
  /** The state hash of the shard's engine at the cut (engine/state/state_hash.ts). */
  readonly stateHash: string;
}

/** The engine settings a shard's state depends on (the fee account collects the fees). */
export interface BackupEngine {
  readonly operatorAddress: string;
  readonly orderHistory: number;
}

export type BackupSection =
  | { readonly state: 'partial'; readonly startedAt: string; readonly source: string }
  | {
    readonly state: 'complete'; readonly startedAt: string; readonly source: string;
    /** When the cut was taken, and the longest a shard held for it (ms). */
    readonly cutAt: string; readonly pauseMs: number;
    readonly engine: BackupEngine;
    readonly shards: readonly BackupShard[];
  };

export type CompleteBackup = Extract<BackupSection, { state: 'complete' }>;

const STATE_HASH = /^[0-9a-f]{64}$/;

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isShard(value: unknown): value is BackupShard {
  if (typeof value !== 'object' || value === null) return false;
  const { batch, seq, stateHash } = value as Partial<Record<keyof BackupShard, unknown>>;
  return isCount(batch) && isCount(seq) && typeof stateHash === 'string' && STATE_HASH.test(stateHash);
}

/**
 * What keeps a record's `backup` section from being a complete backup of `shards` shards (the
 * phrase follows "clobd.json"), or undefined when it is one.
 */
export function backupFault(value: unknown, shards: number): string | undefined {
  if (typeof value !== 'object' || value === null) return 'holds a damaged backup section';
  const section = value as Partial<Record<string, unknown>>;
  const { state, startedAt, source } = section;
  if (typeof startedAt !== 'string' || typeof source !== 'string') return 'holds a damaged backup section';
  if (state === 'partial') {
    return `is the record of a backup that never finished (begun ${startedAt} from ${source}): it is not a data directory; delete it and take the backup again`;
  }
  if (state !== 'complete') return 'holds a damaged backup section';
  const engine = section['engine'] as Partial<Record<keyof BackupEngine, unknown>> | undefined;
  const list = section['shards'];
  const sound = typeof section['cutAt'] === 'string' && typeof section['pauseMs'] === 'number'
    && typeof engine === 'object' && engine !== null && typeof engine.operatorAddress === 'string' && isCount(engine.orderHistory)
    && Array.isArray(list) && list.length === shards && list.every(isShard);
  return sound ? undefined : 'holds a damaged backup section';
}

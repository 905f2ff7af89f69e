// A start on a backup itself (DATA_DIR = the backup's directory): the directory's checks pass as
// on any other (the record, pages, identities), and then, once the shards have recovered and
// before anything changes them (the catalog's markets are opened after this), each shard's state
// hash must be the one the backup recorded, or the start stops naming the shard (exit 2). Once
// the whole start's check has passed, the record's backup section is dropped: from then on the
// directory is live and its state moves on.
import { shardStoreName } from '../../engine/shard/store.js';
import type { EngineOptions } from '../../engine/state/state.js';
import { problem, refuseIfAny } from '../data_dir/damage.js';
import { readRecord, writeRecord } from '../data_dir/record.js';
import type { Logger } from '../log.js';
import type { ShardPool } from '../trading/shards.js';

/** Checks the recovered shards against the backup's record, when the directory is a backup; throws DataDirDamaged. */
export async function checkBackupState(dataDir: string, pool: ShardPool, engine: EngineOptions): Promise<void> {
  const backup = readRecord(dataDir)?.backup;
  if (backup?.state !== 'complete') return;
  const statuses = await Promise.all(Array.from({ length: pool.count }, (_, shard) => pool.status(shard)));
  const feeHint = backup.engine.operatorAddress === engine.operatorAddress
    ? '' : ` (the backup was taken with the fee account ${backup.engine.operatorAddress}, this start has ${engine.operatorAddress})`;
  refuseIfAny(dataDir, statuses.flatMap((status, shard) => {
    const recorded = backup.shards[shard]!;
    if (status.stateHash === recorded.stateHash) return [];
    return [problem(shardStoreName(shard), `recovers to state hash ${status.stateHash} (batch ${status.batch}), not the ${recorded.stateHash} its backup recorded at batch ${recorded.batch}${feeHint}`)];
  }));
}

/** Once the start's checks passed: a backup's record becomes an ordinary one. */
export function acceptBackup(dataDir: string, log: Logger): void {
  const record = readRecord(dataDir);
  const backup = record?.backup;
  if (record === undefined || backup?.state !== 'complete') return;
  writeRecord(dataDir, { format: record.format, shards: record.shards, stores: record.stores });
  log.info('backup_accepted', { cutAt: backup.cutAt, source: backup.source, stateHashes: backup.shards.map((shard) => shard.stateHash).join(',') });
}

// The checks a backup's copy passes before it gets its name, and a restored directory before it
// gets its own: those a start makes (data_dir/: every store there with sound meta pages, every
// page walked in a child process, each store's identity the record's, each shard recovered, the
// stores' agreement), on a directory whose record is given rather than read (a copy's own says
// it is unfinished), and the state each shard recovers to: its batch, sequence number and hash.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { recoverCore } from '../../engine/shard/recovery.js';
import { ShardStore, shardStoreName } from '../../engine/shard/store.js';
import type { ShardBalances } from '../../engine/shard/protocol.js';
import type { EngineOptions } from '../../engine/state/state.js';
import { ApiKeyStore } from '../auth/keys.js';
import { agreementProblems } from '../data_dir/agreement.js';
import { DataDirDamaged, messageOf, problem, refuseIfAny, type Problem } from '../data_dir/damage.js';
import { identityProblems } from '../data_dir/identity.js';
import { walkStores, type WalkReport } from '../data_dir/page_walk.js';
import type { DirectoryRecord } from '../data_dir/record.js';
import { storeFileProblems, storeNames } from '../data_dir/stores.js';
import { Treasury } from '../trading/treasury.js';
import type { BackupShard } from './section.js';

export interface CheckedCopy {
  readonly shards: readonly BackupShard[];
  readonly walk: WalkReport;
  readonly ordersLive: number;
}

/** LMDB's lock file: made by every open, of no use in a copy at rest. */
const LOCK_FILE = 'lock.mdb';

/**
 * Checks the directory `dir` against `record` (see the file comment), recovering the shards with
 * `engine`. Throws DataDirDamaged naming the store at the first stage that finds a problem.
 */
export async function checkCopy(dir: string, record: DirectoryRecord, engine: EngineOptions): Promise<CheckedCopy> {
  const names = storeNames(record.shards);
  refuseIfAny(dir, names.flatMap((name) => storeFileProblems(dir, name, record.shards)));
  const walk = await walkStores(dir, names);
  const identities: Problem[] = [];
  for (const name of names) identities.push(...await identityProblems(dir, name, record.stores));
  refuseIfAny(dir, identities);
  const keys = new ApiKeyStore(dir);
  const treasury = new Treasury(dir, record.shards);
  try {
    const shards: BackupShard[] = [];
    const balances: ShardBalances[] = [];
    let ordersLive = 0;
    for (let shard = 0; shard < record.shards; shard++) {
      const store = new ShardStore(dir, shard);
      try {
        let recovered: ReturnType<typeof recoverCore>;
        try {
          recovered = recoverCore(store, engine);
        } catch (error) {
          throw new DataDirDamaged(dir, [problem(shardStoreName(shard), `does not recover: ${messageOf(error)}`)]);
        }
        const { core, figures } = recovered;
        shards.push({ batch: figures.lastBatch, seq: core.seq, stateHash: core.engine.stateHash() });
        balances.push(core.balances());
        treasury.adopt(shard, [...core.netFunding]);
        ordersLive += core.engine.stats().ordersLive;
      } finally {
        await store.close();
      }
    }
    refuseIfAny(dir, agreementProblems(treasury, balances, keys));
    return { shards, walk, ordersLive };
  } finally {
    await keys.close();
    await treasury.close();
    for (const name of names) rmSync(join(dir, name, LOCK_FILE), { force: true });
  }
}

// The verify command (`node dist/http/main.js verify`): the checks a start makes, offline, with
// the server stopped. The directory's record and every store's meta pages (directory.ts), the
// walk of every page and the decoding of every shard record in a child process (page_walk.ts),
// each store's identity, then each shard recovered here as its worker would recover it
// (engine/shard/recovery.ts, no worker, nothing written) and the stores' agreement
// (agreement.ts). It writes nothing: a directory with no record yet is checked as a start would
// check it before adopting it, and left for that start to adopt. A backup's directory is also
// checked as a start on it checks it: each shard's state hash against the one its record holds.
import { performance } from 'node:perf_hooks';
import { recoverCore } from '../../engine/shard/recovery.js';
import { ShardStore, shardStoreName } from '../../engine/shard/store.js';
import { ApiKeyStore } from '../auth/keys.js';
import { CatalogStore } from '../catalog/store.js';
import type { Config } from '../config.js';
import { engineOptionsOf } from '../trading/runtime.js';
import { Treasury } from '../trading/treasury.js';
import type { ShardBalances } from '../../engine/shard/protocol.js';
import { agreementProblems, collateralText } from './agreement.js';
import type { CompleteBackup } from '../backup/section.js';
import { DataDirDamaged, messageOf, problem, refuseIfAny, type Problem } from './damage.js';
import { checkStores, inspectDataDir } from './directory.js';
import { walkStores } from './page_walk.js';
import { RECORD_FILE } from './record.js';

const BYTES_PER_MB = 1_000_000;

interface Recovered {
  readonly balances: ShardBalances[];
  readonly ordersLive: number;
  readonly replayedFrames: number;
  /** Shards whose state hash is not the one their backup recorded (only when `recorded` was given). */
  readonly hashProblems: Problem[];
}

/**
 * Recovers every shard in turn, as its worker would, and keeps what the agreement check needs;
 * a shard that does not recover (a snapshot or journal entry that does not decode) stops the
 * check, named as a start names it.
 */
async function recoverShards(config: Config, treasury: Treasury, recorded?: CompleteBackup): Promise<Recovered> {
  const balances: ShardBalances[] = [];
  const hashProblems: Problem[] = [];
  let ordersLive = 0;
  let replayedFrames = 0;
  for (let shard = 0; shard < config.shards; shard++) {
    const store = new ShardStore(config.dataDir, shard);
    try {
      let recovered: ReturnType<typeof recoverCore>;
      try {
        recovered = recoverCore(store, engineOptionsOf(config));
      } catch (error) {
        throw new DataDirDamaged(config.dataDir, [problem(shardStoreName(shard), `does not recover: ${messageOf(error)}`)]);
      }
      const { core, figures } = recovered;
      balances.push(core.balances());
      treasury.adopt(shard, [...core.netFunding]);
      ordersLive += core.engine.stats().ordersLive;
      replayedFrames += figures.replayedFrames;
      const expected = recorded?.shards[shard];
      const stateHash = expected === undefined ? '' : core.engine.stateHash();
      if (expected !== undefined && stateHash !== expected.stateHash) {
        hashProblems.push(problem(shardStoreName(shard), `recovers to state hash ${stateHash} (batch ${figures.lastBatch}), not the ${expected.stateHash} its backup recorded at batch ${expected.batch}`));
      }
    } finally {
      await store.close();
    }
  }
  return { balances, ordersLive, replayedFrames, hashProblems };
}

/**
 * Checks the data directory of `config`; resolves with a short report when it is sound, throws
 * DataDirDamaged (every problem found at the first stage that found any) or ConfigError.
 */
export async function verifyDataDir(config: Config): Promise<string> {
  const started = performance.now();
  const dataDir = config.dataDir;
  const inspection = inspectDataDir(dataDir, config.shards);
  if (inspection.present.length === 0) return `data directory ${dataDir} holds no data yet: the first start makes its stores`;
  const walk = await walkStores(dataDir, inspection.present);
  // No treasury yet: the stores a first start makes are not all there, and opening them would make them.
  if (inspection.state === 'fresh') {
    return `data directory ${dataDir} has not been served yet (${inspection.present.join(', ')}: ${walk.entries} entries walked): the first start makes its other stores`;
  }
  await checkStores(inspection, config.shards);
  const adopting = inspection.state === 'adopting';
  const catalog = CatalogStore.open(dataDir);
  const keys = new ApiKeyStore(dataDir, { adopting });
  const treasury = new Treasury(dataDir, config.shards, adopting);
  try {
    const markets = catalog.allMarkets().length;
    const backup = inspection.record?.backup?.state === 'complete' ? inspection.record.backup : undefined;
    const recovered = await recoverShards(config, treasury, backup);
    refuseIfAny(dataDir, recovered.hashProblems);
    refuseIfAny(dataDir, agreementProblems(treasury, recovered.balances, keys));
    const inShards = recovered.balances.reduce((sum, shard) => sum + shard.supplyMicros, 0);
    return [
      `data directory ${dataDir} is sound (${((performance.now() - started) / 1000).toFixed(1)} s)`,
      inspection.record === undefined
        ? `  record: none yet (a version before ${RECORD_FILE} wrote it): the next start adopts it`
        : `  record: ${RECORD_FILE}, ${inspection.record.shards} shard(s); every store holds its recorded identity`,
      `  pages: ${walk.stores} stores, ${walk.tables} tables, ${walk.entries} entries (${(walk.bytes / BYTES_PER_MB).toFixed(1)} MB) walked, ${walk.records} shard records decoded`,
      `  shards: ${config.shards} recovered (${recovered.replayedFrames} journal frames replayed), invariants hold, ${recovered.ordersLive} live orders, ${markets} catalog markets`,
      `  collateral: deposits − withdrawals ${collateralText(treasury.totalExternal())} = free ${collateralText(treasury.totalFree())} + in the shards ${collateralText(inShards)}`,
      '  keys: every API key passes its checksum and its owner index agrees',
      ...(backup === undefined ? [] : [`  backup: cut ${backup.cutAt} from ${backup.source}; every shard recovers to the state hash it recorded`]),
    ].join('\n');
  } finally {
    await keys.close();
    await treasury.close();
    await catalog.close();
  }
}

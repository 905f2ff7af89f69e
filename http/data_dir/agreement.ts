// Whether the stores agree with one another, checked once the shards have recovered and before
// anything is served (and by the verify command). Each store can be sound on its own and still
// be wrong for the others: a treasury restored from an older copy, or deleted in a directory
// with no record, leaves the shards holding collateral the treasury never had. What must hold
// (docs/runtime.md, "Collateral across shards"):
//   - each shard's engine keeps its invariants (collateral conserved inside it among them), and
//     its funding table accounts for every micro of collateral in it (Σ netFunding = supply);
//   - every address's free balance, external − Σ shards netFunding, is not negative; together
//     with the above, treasury free + Σ shards collateral = external deposits − withdrawals;
//   - the key store's records pass their checksums, and its owner index and keys agree.
import { KEYS_STORE, type ApiKeyStore } from '../auth/keys.js';
import { formatUnits } from '../decimal.js';
import type { ShardBalances } from '../../engine/shard/protocol.js';
import { shardStoreName } from '../../engine/shard/store.js';
import { TREASURY_STORE, type Treasury } from '../trading/treasury.js';
import type { TradingRuntime } from '../trading/runtime.js';
import { problem, refuseIfAny, type Problem } from './damage.js';

/** Collateral has 6 decimals. */
const COLLATERAL_DECIMALS = 6;

/** Micros of collateral as decimal text, for messages and reports. */
export function collateralText(micros: number): string {
  return formatUnits(micros, COLLATERAL_DECIMALS);
}

function shardProblems(shards: readonly ShardBalances[]): Problem[] {
  return shards.flatMap((shard, index): Problem[] => {
    const name = shardStoreName(index);
    if (shard.invariantError !== '') return [problem(name, `recovers to a state that breaks the engine's invariants (${shard.invariantError})`)];
    const funded = shard.netFunding.reduce((sum, [, micros]) => sum + micros, 0);
    if (funded === shard.supplyMicros) return [];
    return [problem(name, `funded its engine with ${collateralText(funded)} but holds ${collateralText(shard.supplyMicros)} of collateral`)];
  });
}

/** Addresses whose free balance is negative once `treasury` adopted every shard's funding. */
function treasuryProblems(treasury: Treasury, shards: readonly ShardBalances[]): Problem[] {
  const short = new Map<string, number>();
  for (const shard of shards) {
    for (const [address] of shard.netFunding) {
      const free = treasury.freeOf(address);
      if (free < 0) short.set(address, free);
    }
  }
  if (short.size === 0) return [];
  const total = [...short.values()].reduce((sum, micros) => sum + micros, 0);
  const [first, firstMicros] = [...short][0]!;
  return [problem(TREASURY_STORE, `holds less collateral than the shards for ${short.size} address(es): free balances sum to ${collateralText(total)} (${first}: ${collateralText(firstMicros)})`)];
}

/**
 * What is wrong between the shards, the treasury and the key store. `treasury` must have adopted
 * every shard's funding table, with nothing in flight (at start, before anything is served).
 */
export function agreementProblems(treasury: Treasury, shards: readonly ShardBalances[], keys: ApiKeyStore): Problem[] {
  return [...shardProblems(shards), ...treasuryProblems(treasury, shards), ...keys.problems().map((text) => problem(KEYS_STORE, text))];
}

/** The start's check: every shard's balances from its worker, then agreementProblems; throws DataDirDamaged. */
export async function checkAgreement(dataDir: string, trading: TradingRuntime, keys: ApiKeyStore): Promise<void> {
  const shards = await Promise.all(Array.from({ length: trading.pool.count }, (_, shard) => trading.pool.balances(shard)));
  refuseIfAny(dataDir, agreementProblems(trading.treasury, shards, keys));
}

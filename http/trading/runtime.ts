// The trading runtime as the server holds it: treasury, matching workers, the client, the
// market-data and account read models and the feeds' reader, started together (every shard
// recovered, every catalog market with an order book registered) and stopped together (every
// shard answers what it holds, snapshots and closes).
import type { EngineOptions } from '../../engine/state/state.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { MarketRecord } from '../catalog/model.js';
import { FeedReader } from '../market/feed_reader.js';
import { MarketData } from '../market/market_data.js';
import { AccountData } from './account_data.js';
import { TradingClient, type MarketSpec } from './client.js';
import type { TokenPlace } from './order_request.js';
import { STORAGE_FAILED_EXIT } from '../../engine/shard/protocol.js';
import { shardStoreName } from '../../engine/shard/store.js';
import { DataDirDamaged, messageOf, problem } from '../data_dir/damage.js';
import type { Replication } from '../replication/replication.js';
import type { ChangeLog } from '../replication/state_changes.js';
import { ShardPool, ShardStartFailed } from './shards.js';
import { Treasury } from './treasury.js';

/** How often due GTD orders are expired. */
const EXPIRY_TICK_MS = 1000;

export interface TradingRuntime {
  readonly client: TradingClient;
  readonly pool: ShardPool;
  readonly treasury: Treasury;
  readonly marketData: MarketData;
  /** The accounts' live orders, balances and newest finished orders (account reads). */
  readonly accountData: AccountData;
  /** The public feeds, read from the shards' stores. */
  readonly feeds: FeedReader;
  /** The replicated journal, when NATS is set. */
  readonly replication: Replication | undefined;
  /** Registers every market with an order book that its shard does not know yet. */
  openMarkets(markets: readonly MarketRecord[]): Promise<void>;
  /** The market and outcome of a tradable token id. */
  token(tokenId: string): TokenPlace | undefined;
  /** A standby promoted (replication): its shards take commands, and it expires due orders itself. */
  promote(): Promise<void>;
  stop(): Promise<void>;
}

/** The replicated journal as the runtime uses it (NATS set): a primary's, or a replica's (`following`). */
export interface Replicated {
  readonly replication: Replication | undefined;
  /** The primary's: where the treasury tells its committed changes. */
  readonly changes: ChangeLog | undefined;
  readonly following: boolean;
}

/** The options every shard's engine runs with. */
export function engineOptionsOf(config: Config): EngineOptions {
  return { operatorAddress: config.feeAccount.toLowerCase(), orderHistory: config.orderHistory };
}

export function marketSpecOf(market: MarketRecord): MarketSpec {
  return { key: market.conditionId, tickUnits: market.tickUnits, minSizeMicros: market.minSizeMicros, feeBps: market.takerBaseFeeBps };
}

/**
 * A shard's worker that failed its first start read something in its store it could not recover
 * from (a snapshot or journal entry that does not decode, say): the start stops on it, naming the
 * store, as on any other damage. A storage failure (a full disk) is not damage and stays as it is.
 */
function startFailure(dataDir: string, error: unknown): unknown {
  if (!(error instanceof ShardStartFailed) || error.exitCode === STORAGE_FAILED_EXIT) return error;
  return new DataDirDamaged(dataDir, [problem(shardStoreName(error.shard), `does not recover: ${error.reason === '' ? `its worker exited with ${error.exitCode}` : messageOf(error.reason)}`)]);
}

/**
 * Starts the runtime; `adopting`: the directory is being adopted (data_dir/directory.ts).
 * `recovered` runs once every shard has recovered, before anything is sent to them (a start on
 * a backup checks their state hashes there, http/backup/accept.ts); what it throws stops the start.
 */
export async function startTrading(
  config: Config, log: Logger, markets: readonly MarketRecord[], now: () => number, adopting = false, recovered?: (pool: ShardPool) => Promise<void>,
  replicated: Replicated = { replication: undefined, changes: undefined, following: false },
): Promise<TradingRuntime> {
  const { replication } = replicated;
  let following = replicated.following;
  const treasury = new Treasury(config.dataDir, config.shards, adopting);
  treasury.outbox.attach(replicated.changes);
  const pool = new ShardPool({ dataDir: config.dataDir, shards: config.shards, engine: engineOptionsOf(config), replication, following }, treasury, log);
  const marketData = new MarketData(pool, log, now, config.frontEnds > 1);
  pool.observe(marketData);
  const accountData = new AccountData(pool, log, config.accountOrderHistory);
  pool.observe(accountData);
  try {
    await pool.start();
    await recovered?.(pool);
    pool.startFollowing();
  } catch (error) {
    await pool.abort();
    await treasury.close();
    throw startFailure(config.dataDir, error);
  }
  const client = new TradingClient(pool, treasury, now);
  const tokens = new Map<string, TokenPlace>();
  const feeds = new FeedReader(config.dataDir, {
    shards: config.shards, keyOf: (shard, market) => pool.marketKeyAt(shard, market), placeOf: (key) => client.placeOf(key),
    tokenOf: (tokenId) => {
      const place = tokens.get(tokenId);
      return place === undefined ? undefined : { conditionId: place.market.conditionId, outcome: place.outcome };
    },
  });
  const openMarkets = async (list: readonly MarketRecord[]): Promise<void> => {
    for (const market of list) {
      if (!market.enableOrderBook) continue;
      // A replica's shards add the markets the primary added (its journal): it only learns their tokens.
      if (!following && !client.hasMarket(market.conditionId)) {
        await client.addMarket(marketSpecOf(market));
        if (!market.acceptingOrders) await client.setAccepting(market.conditionId, false);
      }
      market.tokenIds.forEach((tokenId, outcome) => tokens.set(tokenId, { market, outcome }));
    }
  };
  await openMarkets(markets);
  await marketData.whenLoaded();
  await accountData.whenLoaded();
  // A replica expires nothing itself: the primary's expiry ticks are in its journal.
  let timer: NodeJS.Timeout | undefined;
  const tickExpiry = (): void => {
    timer = setInterval(() => {
      client.expire().catch((error: Error) => log.warn('expiry tick skipped', { error: error.message }));
    }, EXPIRY_TICK_MS);
    timer.unref();
  };
  if (!following) tickExpiry();
  return {
    client, pool, treasury, marketData, accountData, feeds, replication, openMarkets,
    token: (tokenId) => tokens.get(tokenId),
    async promote() {
      if (!following) return;
      following = false;
      await pool.promote();
      tickExpiry();
    },
    async stop() {
      clearInterval(timer);
      await pool.stop();
      await treasury.close();
      await feeds.close();
    },
  };
}

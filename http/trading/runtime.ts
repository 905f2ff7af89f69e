// The trading runtime as the server holds it: treasury, matching workers, the client, the
// market-data read model and the feeds' reader, started together (every shard recovered, every
// catalog market with an order book registered) and stopped together (every shard answers what
// it holds, snapshots and closes).
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { MarketRecord } from '../catalog/model.js';
import { FeedReader } from '../market/feed_reader.js';
import { MarketData } from '../market/market_data.js';
import { TradingClient, type MarketSpec } from './client.js';
import type { TokenPlace } from './order_request.js';
import { ShardPool } from './shards.js';
import { Treasury } from './treasury.js';

/** How often due GTD orders are expired. */
const EXPIRY_TICK_MS = 1000;

export interface TradingRuntime {
  readonly client: TradingClient;
  readonly pool: ShardPool;
  readonly treasury: Treasury;
  readonly marketData: MarketData;
  /** The public feeds, read from the shards' stores. */
  readonly feeds: FeedReader;
  /** Registers every market with an order book that its shard does not know yet. */
  openMarkets(markets: readonly MarketRecord[]): Promise<void>;
  /** The market and outcome of a tradable token id. */
  token(tokenId: string): TokenPlace | undefined;
  stop(): Promise<void>;
}

export function marketSpecOf(market: MarketRecord): MarketSpec {
  return { key: market.conditionId, tickUnits: market.tickUnits, minSizeMicros: market.minSizeMicros, feeBps: market.takerBaseFeeBps };
}

export async function startTrading(config: Config, log: Logger, markets: readonly MarketRecord[], now: () => number): Promise<TradingRuntime> {
  const treasury = new Treasury(config.dataDir, config.shards);
  const pool = new ShardPool({
    dataDir: config.dataDir, shards: config.shards, engine: { operatorAddress: config.exchangeAddress.toLowerCase(), orderHistory: config.orderHistory },
  }, treasury, log);
  const marketData = new MarketData(pool, log, now);
  pool.observe(marketData);
  try {
    await pool.start();
  } catch (error) {
    await treasury.close();
    throw error;
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
      if (!client.hasMarket(market.conditionId)) {
        await client.addMarket(marketSpecOf(market));
        if (!market.acceptingOrders) await client.setAccepting(market.conditionId, false);
      }
      market.tokenIds.forEach((tokenId, outcome) => tokens.set(tokenId, { market, outcome }));
    }
  };
  await openMarkets(markets);
  await marketData.whenLoaded();
  const timer = setInterval(() => {
    client.expire().catch((error: Error) => log.warn('expiry tick skipped', { error: error.message }));
  }, EXPIRY_TICK_MS);
  timer.unref();
  return {
    client, pool, treasury, marketData, feeds, openMarkets,
    token: (tokenId) => tokens.get(tokenId),
    async stop() {
      clearInterval(timer);
      await pool.stop();
      await treasury.close();
      await feeds.close();
    },
  };
}

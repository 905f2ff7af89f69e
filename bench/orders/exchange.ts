// The real server as the orders benchmark drives it: spawned with admin enabled and an auth
// window wide enough for requests signed before a phase, its own plain markets made through the
// admin API, and one wallet per account with API credentials and a deposit. Orders are signed
// once (ECDSA with the native libsecp256k1, so tens of thousands take seconds) and replayed on
// every server: a fresh DATA_DIR with the demo seed off gives the same market and token ids.
// Only the body's owner (the API key) and the L2 headers differ per server.
import { createRequire } from 'node:module';
import type { RequestSpec } from '../load/client.js';
import { spawnBenchServer, type BenchServer } from '../support/spawn.js';
import { ShardPool } from '../../http/trading/shards.js';
import { ADMIN_TOKEN, Trader } from '../../test/http/orders/trader.js';
import type { OrderPlan, PlannedOrder } from './plan.js';

interface NativeSigner {
  ecdsaSign(message: Uint8Array, secret: Uint8Array): { signature: Uint8Array; recid: number };
}

/** The addon itself, never the package's JavaScript fallback (see http/auth/recover.ts). */
const native = createRequire(import.meta.url)('secp256k1/bindings') as NativeSigner;

/** A test wallet that signs with libsecp256k1: ~25× the pure-JS signer the tests use. */
export class BenchTrader extends Trader {
  override signDigest(digest: Uint8Array): string {
    const { signature, recid } = native.ecdsaSign(digest, this.secret);
    return `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}`;
  }
}

/** Seconds an L2 signature made before a phase stays valid (the whole run fits in it). */
const AUTH_WINDOW_S = 3600;
/** Markets created per market used, so that each shard gets its share (see spreadOverShards). */
const CANDIDATES_PER_MARKET = 4;
/** Requests in flight while enrolling accounts. */
const ENROL_CONCURRENCY = 32;

export interface Exchange {
  readonly server: BenchServer;
  /** Token ids per market: [YES, NO]. */
  readonly tokens: readonly (readonly [string, string])[];
}

/** An admin API call to the CLOB listener at `clobUrl`; its JSON answer, which must have `status`. */
export async function admin(clobUrl: string, path: string, body: unknown, status: number): Promise<unknown> {
  const response = await fetch(`${clobUrl}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== status) throw new Error(`${path}: ${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}

export interface CreatedMarket {
  readonly conditionId: string;
  readonly clobTokenIds: string;
}

/** Creates one event of `count` plain markets (tick 0.01, min size 5, no fee) through the admin API. */
export async function createMarkets(clobUrl: string, title: string, count: number): Promise<CreatedMarket[]> {
  const created = (await admin(clobUrl, '/admin/events', {
    title, endDate: '2031-01-01T00:00:00Z',
    markets: Array.from({ length: count }, (_, index) => ({ question: `${title} market ${index}?` })),
  }, 201)) as { markets: CreatedMarket[] };
  return created.markets;
}

/** A created market's token ids: [YES, NO]. */
export function tokensOf(market: CreatedMarket): [string, string] {
  return JSON.parse(market.clobTokenIds) as [string, string];
}

/**
 * `count` of the created markets, the same number on every shard. Markets go to shards by a
 * hash of their condition id, and a handful of markets can all land on one shard (the first
 * four this benchmark creates do), which would measure one matching worker instead of all.
 */
function spreadOverShards(created: readonly CreatedMarket[], count: number, shards: number): CreatedMarket[] {
  // The server's own placement function, so the benchmark cannot drift from it.
  const shardOf = (key: string): number => ShardPool.prototype.shardOf.call({ count: shards } as ShardPool, key);
  const perShard = Array.from({ length: shards }, (_, shard) => created.filter((market) => shardOf(market.conditionId) === shard));
  const chosen: CreatedMarket[] = [];
  for (let index = 0; chosen.length < count; index++) {
    const market = perShard[index % shards]![Math.floor(index / shards)];
    if (market === undefined) throw new Error(`not enough markets on shard ${index % shards} for ${count} over ${shards} shards`);
    chosen.push(market);
  }
  return chosen;
}

/**
 * Spawns a server with `env` on a fresh DATA_DIR and creates plain markets (tick 0.01, min 5),
 * of which `markets` are used: spread evenly over `spreadOver` shards (by default the server's
 * own `shards`), so servers with other shard counts can trade the very same markets.
 */
export async function startExchange(
  markets: number, shards: number, env: Readonly<Record<string, string>>, nodeArgs: readonly string[] = [], spreadOver = shards, script?: string,
): Promise<Exchange> {
  const server = await spawnBenchServer({
    ADMIN_TOKEN, AUTH_WINDOW_S: String(AUTH_WINDOW_S), RATE_LIMITS: 'off', SEED_DEMO: '0', SHARDS: String(shards), ...env,
  }, nodeArgs, script);
  try {
    const created = await createMarkets(server.urls.clob, 'Order benchmark', markets * CANDIDATES_PER_MARKET);
    const tokens = spreadOverShards(created, markets, spreadOver).map(tokensOf);
    return { server, tokens };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Gives every trader API credentials on this server and its deposit. */
export async function enrol(exchange: Exchange, traders: readonly BenchTrader[], depositMicros: readonly number[]): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < traders.length) {
      const index = next++;
      const trader = traders[index]!;
      trader.clobUrl = exchange.server.urls.clob;
      await trader.createKey();
      await admin(exchange.server.urls.clob, '/admin/deposits', { address: trader.address, amount: String(Math.ceil(depositMicros[index]!)) }, 200);
    }
  };
  await Promise.all(Array.from({ length: ENROL_CONCURRENCY }, lane));
}

/** A planned order signed by its account: the JSON `order` object of POST /order. */
export type SignedOrder = Record<string, unknown>;

export function signOrders(traders: readonly BenchTrader[], tokens: Exchange['tokens'], orders: readonly PlannedOrder[]): SignedOrder[] {
  return orders.map((order) => traders[order.account]!.signOrder({
    tokenId: tokens[order.market]![order.outcome]!, side: order.side, priceUnits: order.priceUnits, sizeMicros: order.sizeMicros,
  }).order);
}

/** POST /order requests for orders [from, to): body with this server's API key, L2 headers signed now. */
export function orderRequests(
  traders: readonly BenchTrader[], plan: readonly PlannedOrder[], signed: readonly SignedOrder[], from: number, to: number,
): RequestSpec[] {
  const requests: RequestSpec[] = [];
  for (let index = from; index < Math.min(to, signed.length); index++) {
    const trader = traders[plan[index]!.account]!;
    const body = JSON.stringify({ order: signed[index], owner: trader.credentials?.apiKey ?? '', orderType: 'GTC' });
    requests.push({ method: 'POST', path: '/order', headers: { ...trader.l2Headers('POST', '/order', body), 'Content-Type': 'application/json' }, body });
  }
  return requests;
}

/** Wallets for the plan's accounts (deterministic keys). */
export function makeTraders(plan: OrderPlan): BenchTrader[] {
  return Array.from({ length: plan.accounts }, (_, index) => new BenchTrader('', 1_000_000 + index));
}

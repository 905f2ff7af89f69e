// How the routes behave with a replicated journal (router.ts ReplicatedRouting).
// - A replica (`follow`) serves every read and refuses every request that would change state,
//   with 503, Retry-After and the primary's URL (in the message and in X-Clobd-Primary): a bot
//   pointed at a replica learns at once where to trade.
// - A primary with REPLICATION=sync answers a request that changed the catalog, a key, a balance
//   or a profile only once the stream holds the change (orders and cancels wait for their batch
//   in the shards already: engine/shard/journal_feed.ts).
import type { Method, ReplicatedRouting } from '../router.js';
import type { Replication } from './replication.js';

/** Requests by POST that only read (Polymarket's batch reads). */
const READS_BY_POST = new Set(['/books', '/prices', '/midpoints', '/spreads', '/last-trades-prices', '/batch-prices-history', '/orders-scoring']);
/** Routes whose changes the shards' journal carries (and heartbeats, kept in memory). */
const ORDER_FLOW = new Set(['/order', '/orders', '/cancel-all', '/cancel-market-orders', '/heartbeats', '/v1/heartbeats']);
/** How long a client is told to wait on a replica: a failover takes about this long. */
const REPLICA_RETRY_AFTER_S = 5;
/** The header naming the primary's URL on a replica's refusal. */
export const PRIMARY_HEADER = 'x-clobd-primary';

function changesState(method: Method, path: string): boolean {
  return method !== 'GET' && !READS_BY_POST.has(path);
}

/** A replica's routes: `primary` is the primary's URL as it last named it ('' before it did). */
export function replicaRouting(primary: () => string): ReplicatedRouting {
  return {
    refusal: (method, path) => (changesState(method, path) ? () => {
      const url = primary();
      const where = url === '' ? 'the primary' : `the primary at ${url}`;
      return {
        status: 503,
        body: JSON.stringify({ error: `this server is a read-only replica: send ${method} ${path} to ${where}` }),
        headers: [['retry-after', String(REPLICA_RETRY_AFTER_S)], ...(url === '' ? [] : [[PRIMARY_HEADER, url] as const])],
      };
    } : undefined),
    settle: () => undefined,
  };
}

/** A primary's routes: with REPLICATION=sync, a change of its own state is answered once replicated. */
export function primaryRouting(replication: Replication): ReplicatedRouting {
  return {
    refusal: () => undefined,
    settle: (method, path) => (replication.mode === 'sync' && changesState(method, path) && !ORDER_FLOW.has(path) ? () => replication.changesAppended() : undefined),
  };
}

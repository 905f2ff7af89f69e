// How the routes behave with a replicated journal (router.ts ReplicatedRouting), by this
// server's role, which changes at run time (a standby promoted, a primary that lost its lease):
// - a replica (`follow`) or a deposed primary serves every read and refuses every request that
//   would change state, with 503, Retry-After and the primary's URL (in the message and in
//   X-Clobd-Primary): a bot pointed at it learns at once where to trade;
// - a primary with REPLICATION=sync answers a request that changed the catalog, a key, a balance
//   or a profile only once the stream holds the change (orders and cancels wait for their batch
//   in the shards already: engine/shard/journal_feed.ts).
import type { Method, ReplicatedRouting } from '../router.js';
import type { Reply } from '../respond.js';
import type { Replication } from './replication.js';

/** Requests by POST that only read (Polymarket's batch reads). */
const READS_BY_POST = new Set(['/books', '/prices', '/midpoints', '/spreads', '/last-trades-prices', '/batch-prices-history', '/orders-scoring']);
/** Routes whose changes the shards' journal carries (and heartbeats, kept in memory). */
const ORDER_FLOW = new Set(['/order', '/orders', '/cancel-all', '/cancel-market-orders', '/heartbeats', '/v1/heartbeats']);
/** How long a client is told to wait on a replica: about what a failover takes. */
const REPLICA_RETRY_AFTER_S = 5;
/** The header naming the primary's URL on a replica's refusal. */
export const PRIMARY_HEADER = 'x-clobd-primary';

export type Role = 'primary' | 'replica' | 'deposed';

function changesState(method: Method, path: string): boolean {
  return method !== 'GET' && !READS_BY_POST.has(path);
}

export class ReplicatedRoutes implements ReplicatedRouting {
  /** The primary's URL as last named ('' before it was). */
  primaryUrl = '';

  constructor(public role: Role, private readonly replication: Replication) {}

  refusal(method: Method, path: string): (() => Reply | undefined) | undefined {
    if (!changesState(method, path)) return undefined;
    return () => {
      if (this.role === 'primary') return undefined;
      const url = this.primaryUrl;
      const who = this.role === 'deposed' ? 'this server is no longer the primary' : 'this server is a read-only replica';
      return {
        status: 503,
        body: JSON.stringify({ error: `${who}: send ${method} ${path} to ${url === '' ? 'the primary' : `the primary at ${url}`}` }),
        headers: [['retry-after', String(REPLICA_RETRY_AFTER_S)], ...(url === '' ? [] : [[PRIMARY_HEADER, url] as const])],
      };
    };
  }

  settle(method: Method, path: string): (() => Promise<void> | undefined) | undefined {
    if (this.replication.mode !== 'sync' || !changesState(method, path) || ORDER_FLOW.has(path)) return undefined;
    return () => (this.role === 'primary' ? this.replication.changesAppended() : undefined);
  }
}

// The attacks of issue 39, each as the plan of an attacker: what it sends, to which listener, on
// how many connections, from which addresses. Every pattern runs twice, from one client address
// and from many (a connection refused with 429, or closed, comes back from the next address).
import type { RequestSpec } from '../load/client.js';
import type { AttackPlan } from './attacker.js';
import type { Arena } from './arena.js';
import { keyCreations } from './wallets.js';

/** HTTP connections of every HTTP attacker (issue 39's measurements used 8). */
const HTTP_CONNECTIONS = 8;
/** WebSocket sockets of the WebSocket attackers (issue 39: 20). */
const WS_SOCKETS = 20;
/**
 * Key creations signed per second of a phase: more than the server makes (~900/s on main in
 * issue 39, 1 300/s in a run here on a quieter machine); refused ones are sent again.
 */
const KEY_CREATIONS_PER_SECOND = 3_000;

export interface Pattern {
  /** The row's name, as the table prints it. */
  readonly name: string;
  /** The victim goes through the compatibility listener too (and is compared with its baseline there). */
  readonly relay: boolean;
  /**
   * The attacker's plan for one phase. `walletSeed` numbers the fresh wallets a plan may need,
   * apart from every other phase's.
   */
  plan(arena: Arena, addresses: readonly string[], hop: boolean, durationMs: number, walletSeed: number): AttackPlan;
}

function http(url: string, requests: readonly RequestSpec[], addresses: readonly string[], hop: boolean, once = false): AttackPlan {
  return { kind: 'http', url, connections: HTTP_CONNECTIONS, requests, once, addresses, hop };
}

function ws(arena: Arena, mode: 'toggle' | 'ping', addresses: readonly string[], hop: boolean): AttackPlan {
  return { kind: 'ws', url: `${arena.server.urls.clob.replace('http', 'ws')}/ws/market`, sockets: WS_SOCKETS, mode, tokens: arena.tokens, addresses, hop };
}

/** GET /data/trades, L2-signed with each of the reader's keys (one key from one address; all of them from many). */
function ownTrades(arena: Arena, many: boolean): RequestSpec[] {
  const { trader, keys } = arena.reader;
  return (many ? keys : keys.slice(0, 1)).map((credentials) => {
    trader.credentials = credentials;
    return { method: 'GET', path: '/data/trades', headers: trader.l2Headers('GET', '/data/trades', '') };
  });
}

export const PATTERNS: readonly Pattern[] = [
  {
    name: 'GET /activity, offset 10 000, limit 500 (data)',
    relay: false,
    plan: (arena, addresses, hop) => http(arena.server.urls.data, [{ method: 'GET', path: `/activity?user=${arena.busiest}&offset=10000&limit=500` }], addresses, hop),
  },
  {
    name: 'GET /data/trades, an account of 9 000 fills (L2)',
    relay: false,
    plan: (arena, addresses, hop) => http(arena.server.urls.clob, ownTrades(arena, addresses.length > 1), addresses, hop),
  },
  {
    name: 'GET /trades?limit=10000 (data)',
    relay: false,
    plan: (arena, addresses, hop) => http(arena.server.urls.data, [{ method: 'GET', path: '/trades?limit=10000' }], addresses, hop),
  },
  {
    name: 'WS: 20 sockets toggling every token',
    relay: false,
    plan: (arena, addresses, hop) => ws(arena, 'toggle', addresses, hop),
  },
  {
    name: 'WS: PING flood, 20 sockets',
    relay: false,
    plan: (arena, addresses, hop) => ws(arena, 'ping', addresses, hop),
  },
  {
    name: 'POST /auth/api-key, fresh wallets (L1)',
    relay: false,
    plan: (arena, addresses, hop, durationMs, walletSeed) => http(
      arena.server.urls.clob, keyCreations(walletSeed, Math.ceil((KEY_CREATIONS_PER_SECOND * durationMs) / 1000)), addresses, hop, true,
    ),
  },
  {
    // Every client of the relay reaches the CLOB listener from the relay's own address: one
    // client that spends the CLOB listener's per-address cap (GET /time is charged to it and to
    // nothing else) spends everyone's.
    name: 'relay: GET /time through COMPAT_PORT, victim too',
    relay: true,
    plan: (arena, addresses, hop) => http(arena.compatUrl, [{ method: 'GET', path: '/time' }], addresses, hop),
  },
];

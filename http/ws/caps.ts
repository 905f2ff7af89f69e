// The WebSocket channels' caps (issue 39): every operation a client makes on /ws/market and
// /ws/user is charged to token buckets of the shared RateLimiter (http/rate_limit.ts), per socket,
// per client address and, once a user socket has authenticated, per account (the wallet address:
// an account's API keys share its buckets). What an operation costs is charged, not only the
// message: a subscription pays for each id it names and for the KiB of the books it makes the
// server send.
//
// The caps are entries of DEFAULT_CAPS (their `WS …` block), overridden by name through
// RATE_LIMITS and all off with RATE_LIMITS=off, like every other cap. A charge refused by any of
// them refuses the operation whole; the channels then send the socket an error message and close
// it with CLOSE_TOO_MANY_REQUESTS (an upgrade is answered 429 instead).
//
// Each scope has its own key prefix, so the buckets of a socket, of the address's sockets and of
// an account never share a key with each other or with the address's HTTP buckets: each key's
// buckets fill one region of the table (rate_limit.ts), and that region stays well under its 32
// slots.
import type { RateLimiter } from '../rate_limit.js';

/**
 * The close code of a socket refused by a cap: 4429, "429 Too Many Requests" in the range RFC 6455
 * leaves to applications, so a client can tell "back off and reconnect" from 1008 (wrong
 * credentials: do not retry as is).
 */
export const CLOSE_TOO_MANY_REQUESTS = 4429;

/** The caps each operation is charged to, by scope: every cap of one scope is charged at once (all or none). */
const CHARGES = {
  upgrade: { ip: ['WS upgrades'] },
  message: { socket: ['WS socket messages'], ip: ['WS messages'], account: ['WS account messages'] },
  ping: { socket: ['WS socket messages', 'WS socket PINGs'], ip: ['WS messages'], account: ['WS account messages'] },
  subscription: {
    socket: ['WS socket subscription ids'], ip: ['WS subscription ids burst', 'WS subscription ids sustained'],
    account: ['WS account subscription ids'],
  },
  snapshot: { socket: ['WS socket snapshot KiB'], ip: ['WS snapshot KiB burst', 'WS snapshot KiB sustained'], account: [] },
} as const;

type Operation = keyof typeof CHARGES;
type Scope = 'socket' | 'ip' | 'account';

/** A refused charge: the cap that refused it and the whole seconds until it could be admitted. */
export interface Refusal {
  readonly cap: string;
  readonly retryAfterS: number;
}

/** The bucket keys of one socket: its own, its client address's and, once authenticated, its account's. */
export interface SocketKeys {
  readonly socket: string;
  readonly ip: string;
  account: string | undefined;
}

/** Cap ids by operation and scope, those not configured left out (all of them with RATE_LIMITS=off). */
type Resolved = Record<Operation, Record<Scope, readonly number[]>>;

export class ChannelCaps {
  private readonly ids: Resolved;
  private sockets = 0;
  /** Scratch of one charge: its caps' refusal counters before it. */
  private readonly before = new Float64Array(4);

  constructor(private readonly limiter: RateLimiter) {
    const resolve = (names: readonly string[] | undefined): number[] =>
      (names ?? []).map((name) => limiter.capId(name)).filter((id): id is number => id !== undefined);
    const ids = {} as Record<Operation, Record<Scope, number[]>>;
    for (const operation of Object.keys(CHARGES) as Operation[]) {
      const names: Partial<Record<Scope, readonly string[]>> = CHARGES[operation];
      ids[operation] = { socket: resolve(names.socket), ip: resolve(names.ip), account: resolve(names.account) };
    }
    this.ids = ids;
  }

  /** The keys of a new socket from client address `ip` (the address's text, as uWS gives it). */
  keysOf(ip: string): SocketKeys {
    return { socket: `ws socket ${++this.sockets}`, ip: `ws ip ${ip}`, account: undefined };
  }

  /** An upgrade from `ip`, before the socket exists. */
  upgrade(ip: string): Refusal | undefined {
    return this.charge(this.ids.upgrade.ip, `ws ip ${ip}`, 1);
  }

  /** A message received (a text PING or any other), or a ws-level ping (`ping`). */
  message(keys: SocketKeys, ping: boolean): Refusal | undefined {
    return this.chargeScopes(ping ? this.ids.ping : this.ids.message, keys, 1);
  }

  /** A subscription or unsubscription naming `ids` token or condition ids (at least 1 is charged). */
  subscription(keys: SocketKeys, ids: number): Refusal | undefined {
    return this.chargeScopes(this.ids.subscription, keys, Math.max(1, ids));
  }

  /** The `book` messages a subscription is about to send, `bytes` long together. */
  snapshot(keys: SocketKeys, bytes: number): Refusal | undefined {
    return bytes === 0 ? undefined : this.chargeScopes(this.ids.snapshot, keys, Math.ceil(bytes / 1024));
  }

  /**
   * The socket's scope first, then its address's, then its account's: a socket refused on its own
   * caps spends none of what its address's other sockets share. A scope that admits is charged
   * even when a later one refuses; the refused socket is closed anyway.
   */
  private chargeScopes(ids: Record<Scope, readonly number[]>, keys: SocketKeys, cost: number): Refusal | undefined {
    return this.charge(ids.socket, keys.socket, cost) ?? this.charge(ids.ip, keys.ip, cost)
      ?? (keys.account === undefined ? undefined : this.charge(ids.account, `ws account ${keys.account}`, cost));
  }

  private charge(ids: readonly number[], key: string, cost: number): Refusal | undefined {
    if (ids.length === 0) return undefined;
    const { refusals } = this.limiter;
    // Which of the caps refused: the limiter counts a refusal under each cap whose bucket lacked
    // the tokens, on this thread, so the counters moved by this charge name them.
    const { before } = this;
    ids.forEach((id, position) => (before[position] = refusals[id]!));
    const retryAfterS = this.limiter.charge(ids, key, cost);
    if (retryAfterS === 0) return undefined;
    const index = ids.findIndex((id, position) => refusals[id]! > before[position]!);
    return { cap: this.limiter.caps[ids[Math.max(0, index)]!]!.name, retryAfterS };
  }
}

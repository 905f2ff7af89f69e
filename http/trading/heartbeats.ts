// Heartbeats (contract §6): a dead-man switch per API key. Once a key has sent a heartbeat, if
// HEARTBEAT_TIMEOUT_MS pass without another, every open order of the key's address is cancelled.
// A sweep runs every 250 ms, so the cancel starts at most that long after the deadline; a sweep
// that meets a busy shard tries again on the next one.
import { randomUUID } from 'node:crypto';
import type { ApiKeyRecord, L2Deps } from '../auth/l2.js';
import { authenticateRequest, L2_HEADER_NAMES } from '../auth/l2.js';
import { HttpError, badRequest } from '../errors.js';
import type { Logger } from '../log.js';
import { json, type Reply } from '../respond.js';
import { ok, ref } from '../response_schemas.js';
import { route, type Route } from '../router.js';

const SWEEP_EVERY_MS = 250;
/** Keys tracked at once: a heartbeat from a new key beyond this is refused with 503. */
export const HEARTBEAT_KEYS_MAX = 100_000;

interface Session {
  readonly address: string;
  expectedId: string;
  lastBeatMs: number;
}

export class Heartbeats {
  private readonly sessions = new Map<string, Session>();
  private readonly timer: NodeJS.Timeout;
  private readonly cancelling = new Set<string>();

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number,
    private readonly cancelAll: (address: string) => Promise<unknown>,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.timer.unref();
  }

  /** A session heartbeat: `id` must be the id answered last ("" the first time). */
  beat(key: ApiKeyRecord, id: string): string {
    // A refused heartbeat starts nothing: only an accepted one arms the dead-man timer.
    const expectedId = this.sessions.get(key.apiKey)?.expectedId ?? '';
    if (id !== expectedId) throw new HttpError(400, 'Invalid Heartbeat ID', { heartbeat_id: expectedId });
    const session = this.session(key);
    session.expectedId = randomUUID();
    session.lastBeatMs = this.now();
    return session.expectedId;
  }

  /** A plain heartbeat: counts as one and resets the expected id to "". */
  ping(key: ApiKeyRecord): void {
    const session = this.session(key);
    session.expectedId = '';
    session.lastBeatMs = this.now();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private session(key: ApiKeyRecord): Session {
    let session = this.sessions.get(key.apiKey);
    if (session === undefined) {
      if (this.sessions.size >= HEARTBEAT_KEYS_MAX) throw new HttpError(503, 'too many heartbeat sessions', undefined, [['retry-after', '1']]);
      session = { address: key.address, expectedId: '', lastBeatMs: this.now() };
      this.sessions.set(key.apiKey, session);
    }
    return session;
  }

  /** Cancels the orders of every key whose heartbeat is overdue, then forgets the session. */
  private sweep(): void {
    const now = this.now();
    for (const [apiKey, session] of this.sessions) {
      if (now - session.lastBeatMs <= this.timeoutMs || this.cancelling.has(apiKey)) continue;
      this.cancelling.add(apiKey);
      this.cancelAll(session.address).then(
        () => {
          // A heartbeat that arrived while cancelling keeps the session.
          if (this.sessions.get(apiKey) === session && this.now() - session.lastBeatMs > this.timeoutMs) this.sessions.delete(apiKey);
          this.log.info('heartbeat_expired', { address: session.address });
        },
        (error: Error) => this.log.warn('heartbeat_cancel_retry', { address: session.address, error: error.message }),
      ).finally(() => this.cancelling.delete(apiKey));
    }
  }
}

export function heartbeatRoutes(deps: L2Deps & { readonly heartbeats: Heartbeats }): Route[] {
  return [
    route({
      method: 'POST', path: '/v1/heartbeats', limits: ['account'], accountLimits: ['account reads'], summary: 'Session heartbeat: send the id answered last ("" the first time).',
      headers: L2_HEADER_NAMES, body: 'optional-json',
      // null, like no body, is the first beat.
      request: {
        type: ['object', 'null'],
        properties: { heartbeat_id: { type: ['string', 'null'], description: 'The id answered last; "", null or absent the first time.' } },
      },
      response: {
        ...ok(ref('HeartbeatId')),
        400: { description: 'A bad body, or the id is not the one answered last (the body names the expected id).', schema: { anyOf: [ref('Error'), ref('HeartbeatIdError')] } },
      },
      handler: (context): Reply => {
        const key = authenticateRequest(deps, context);
        const body = context.body ?? {};
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('body must be {"heartbeat_id": "..."}');
        const id = (body as Record<string, unknown>)['heartbeat_id'] ?? '';
        if (typeof id !== 'string') throw badRequest('heartbeat_id must be a string');
        return json({ heartbeat_id: deps.heartbeats.beat(key, id) });
      },
    }),
    route({
      method: 'POST', path: '/heartbeats', limits: ['account'], accountLimits: ['account reads'], summary: 'Plain heartbeat; resets the session id to "".', headers: L2_HEADER_NAMES,
      response: ok(ref('StatusOk')),
      handler: (context): Reply => {
        deps.heartbeats.ping(authenticateRequest(deps, context));
        return json({ status: 'ok' });
      },
    }),
  ];
}

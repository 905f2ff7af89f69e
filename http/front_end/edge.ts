// A front-end thread (FRONT_ENDS > 1): its own uWS apps on the same ports as the main thread's,
// bound with SO_REUSEPORT, so the kernel spreads new connections over the threads. It does the
// socket work of its connections (reading requests and bodies, writing answers, WebSocket frames
// and the fan-out of published messages to its own subscribers) and hands every request to the
// main thread over its link, where the same route table answers it as it answers the main
// thread's own connections: one treasury, one read model, one set of caps, keys and heartbeats,
// so whatever a client sees does not depend on which thread took its connection.
//
// Bounds: a body over bodyBytesMax is 413 and one that trickles past BODY_TIMEOUT_MS is 408, here,
// before anything crosses; at most REQUESTS_IN_FLIGHT_MAX requests wait for the main thread, and
// one that finds the link full is answered 503 with Retry-After at once (never queued here). A
// WebSocket message that finds the link full closes its socket (1013).
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { bodyBytesMax, Lifecycle, Pending, readBody, sendBody, write, type Reply } from '../respond.js';
import { listenShared, uws, type HttpRequest, type HttpResponse, type TemplatedApp, type us_listen_socket } from '../uws.js';
import type { WebSocket } from '@trufflesuite/uws-js-unofficial';
import { performance } from 'node:perf_hooks';
import { clientKey, RELAYED_FOR_HEADER, RelayTrust } from '../client_address.js';
import { ALL_CLIENTS, CANCEL_CAPS, capIdsIn, PLACE_CAPS, RateLimiter, type Cap } from '../rate_limit.js';
import { CHARGED, requestIdOf, SHUTTING_DOWN } from '../router.js';
import { ChannelCaps, CLOSE_TOO_MANY_REQUESTS, type SocketKeys } from '../ws/caps.js';
import { refusalMessage, SOCKET_SETTINGS, WS_PATHS } from '../ws/channels.js';
import { currentThreadId } from '../../engine/shard/thread_times.js';
import { isSignaturesBusy, makeVerifier, type SignatureVerifier } from '../auth/verifier.js';
import { authenticateL2, readL2HeadersOf, type ApiKeyRecord } from '../auth/l2.js';
import {
  BATCH_ORDERS_MAX, isObject, isOrderId, prepareOrder, readSignedOrder, SIGNATURES_BUSY, type OrderDomains, type OrderToken, type SignedOrder,
} from '../trading/order_request.js';
import { firstHeader } from './stand_in.js';
import type { Value } from './codec.js';
import { Link, type LinkMemory, type Message } from './link.js';
import { Down, FORGET_KEY, LISTENERS, preparedEntry, Up, type CheckedRoute, type CheckingSetup } from './wire.js';

const CLOB = LISTENERS.indexOf('clob');
const NOTHING = (): void => undefined;

/** The order id of a DELETE /order body ({"orderID": "..."}), or undefined where the route would refuse it. */
function cancelledOrderId(body: Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    const orderId = isObject(parsed) ? parsed['orderID'] : undefined;
    return isOrderId(orderId) ? orderId : undefined;
  } catch {
    return undefined;
  }
}

/** Sets `key` as the newest entry of `map`, forgetting the oldest past `max`. */
function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}

export interface EdgeSetup {
  readonly index: number;
  readonly host: string;
  readonly ports: readonly number[];
  readonly link: LinkMemory;
  readonly bodyTimeoutMs: number;
  /** The request caps' shared buckets and caps (rate_limit.ts): ws-level pings and kept reads are charged here. */
  readonly buckets: SharedArrayBuffer;
  readonly caps: readonly Cap[];
  /** The books' shared versions (market/book_versions.ts): a kept read is answered here while its book's holds. */
  readonly bookVersions: SharedArrayBuffer;
  /** The compatibility relay's secret, when COMPAT_PORT fronts the CLOB listener (client_address.ts). */
  readonly relaySecret?: Uint8Array;
  /** The domains orders are signed in: this thread works out each order's id and signer before handing it over. */
  readonly orderDomains: OrderDomains;
  /** Its own signature pool's threads (auth/verifier.ts; 0: it recovers on its own thread). */
  readonly verifyThreads: number;
  /** When set, it checks a POST /order and a DELETE /order in full itself (hub.ts Checking): the L2 window and each route's caps. */
  readonly checking?: CheckingSetup;
}

/** A read the main thread said this thread may answer again (wire.ts ANSWER), and how. */
interface Kept {
  readonly headers: readonly string[];
  readonly body: Buffer;
  readonly bytes: number;
  /** The books it was built from: cell, version, cell, version … (book_versions.ts). */
  readonly versions: readonly number[];
  readonly perClientCaps: readonly number[];
  readonly sharedCaps: readonly number[];
  readonly metricsId: number;
}

/** Reads kept per thread, and their bytes: the oldest kept is dropped first past either. */
const KEPT_MAX = 4_096;
const KEPT_BYTES_MAX = 32 * 1024 * 1024;
/**
 * A POST's answer (a batch read) is kept for its body, which is part of what it is kept as: only
 * for a body this long at most (500 tokens of a batch are ~45 KB).
 */
const KEPT_BODY_BYTES_MAX = 64 * 1024;
/** How often the reads answered here are counted on the main thread's metrics. */
const SERVED_FLUSH_MS = 100;
/** Reads one SERVED message carries at most. */
const SERVED_PER_MESSAGE = 4_096;

/** Tokens a thread knows the market of (wire.ts TOKEN), and keys it knows (API_KEY): the oldest is forgotten first past either. */
const TOKENS_KNOWN_MAX = 65_536;
const KEYS_KNOWN_MAX = 16_384;
/** The CLOB listener's routes whose orders a thread prepares, and whether the body is a list of them. */
const ORDER_ROUTES = new Map<string, boolean>([['/order', false], ['/orders', true]]);

/** What an edge tells the main thread over postMessage (control only; requests use the link). */
export type FromEdge = { readonly listening: true; readonly threadId: number | undefined } | { readonly error: string } | 'closed';

/** Requests waiting for the main thread's answer, per front end. */
export const REQUESTS_IN_FLIGHT_MAX = 16_384;
/**
 * Bytes of requests that may wait for room on the link (the main thread is behind): past it a
 * request is answered 503 at once. WebSocket messages and pings get a smaller share.
 */
const WAITING_REQUEST_BYTES_MAX = 32 * 1024 * 1024;
const WAITING_SOCKET_BYTES_MAX = 4 * 1024 * 1024;

const busy: Reply = { status: 503, body: '{"error":"front end busy: retry"}', headers: [['retry-after', '1']] };
/** How long a stopping front end waits for its requests' answers. */
const DRAIN_MS = 5_000;
/** WebSocket close code: try again later. */
const CLOSE_TRY_AGAIN = 1013;

interface Upgrading {
  readonly res: HttpResponse;
  readonly key: string;
  readonly protocol: string;
  readonly extensions: string;
  readonly context: unknown;
  aborted: boolean;
}

interface SocketData {
  readonly id: number;
}

/** What a request carries to the main thread besides its line and body: its headers (name, value, …) and its peer. */
function captured(res: HttpResponse, req: HttpRequest): { headers: string[]; peer: Uint8Array; peerText: string } {
  const headers: string[] = [];
  req.forEach((name, value) => void headers.push(name, value));
  return { headers, peer: new Uint8Array(res.getRemoteAddress().slice(0)), peerText: Buffer.from(res.getRemoteAddressAsText()).toString('latin1') };
}

class Edge {
  private readonly link: Link;
  private readonly lifecycle: Lifecycle;
  /** Requests the main thread answers; `fallBack` hands over whole an order this thread checked (wire.ts FALLBACK). */
  private readonly waiting = new Map<number, { readonly pending: Pending; readonly keepAs: string | undefined; readonly fallBack?: () => void }>();
  private readonly kept = new Map<string, Kept>();
  private keptBytes = 0;
  private readonly versions: Int32Array;
  private readonly limiter: RateLimiter;
  private readonly relay: RelayTrust | undefined;
  /** Seconds each read answered here took, by route metrics id, until the next SERVED. */
  private readonly served = new Map<number, number[]>();
  private servedTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  private readonly upgrading = new Map<number, Upgrading>();
  private readonly sockets = new Map<number, WebSocket<SocketData>>();
  /** Each socket's bucket keys, as the main thread's channels made them. */
  private readonly keys = new Map<number, SocketKeys>();
  private readonly caps: ChannelCaps;
  private readonly apps: TemplatedApp[] = [];
  private readonly listening: us_listen_socket[] = [];
  /** Tokens' markets and API keys, as the main thread told this thread. */
  private readonly tokens = new Map<string, OrderToken>();
  private readonly apiKeys = new Map<string, ApiKeyRecord>();
  /** The per-key caps of POST /order (PLACE_CAPS) and of DELETE /order (CANCEL_CAPS). */
  private readonly keyCaps: { readonly place: readonly number[]; readonly cancel: readonly number[] };
  private readonly verifier: SignatureVerifier;
  /** Requests whose orders are being prepared: they count among those in flight. */
  private preparing = 0;
  private nextId = 1;

  constructor(private readonly setup: EdgeSetup) {
    this.link = new Link(setup.link, 'front end');
    this.lifecycle = new Lifecycle(setup.bodyTimeoutMs);
    this.limiter = new RateLimiter(setup.buckets, setup.caps, Date.now);
    this.caps = new ChannelCaps(this.limiter);
    this.versions = new Int32Array(setup.bookVersions);
    this.relay = setup.relaySecret === undefined ? undefined : new RelayTrust(Buffer.from(setup.relaySecret));
    this.verifier = makeVerifier(setup.verifyThreads);
    this.keyCaps = { place: capIdsIn(this.limiter, PLACE_CAPS), cancel: capIdsIn(this.limiter, CANCEL_CAPS) };
  }

  async listen(): Promise<void> {
    for (const [listener, name] of LISTENERS.entries()) {
      const app = uws.App();
      if (name === 'clob') this.mountSockets(app);
      app.any('/*', (res, req) => this.request(listener, res, req));
      this.apps.push(app);
      const port = this.setup.ports[listener]!;
      // SO_REUSEPORT, to share the port the main thread holds (exclusive.ts).
      const socket = await new Promise<us_listen_socket | false>((resolve) => listenShared(app, this.setup.host, port, resolve));
      if (socket === false) throw new Error(`front end ${this.setup.index} could not listen on ${this.setup.host}:${port}`);
      this.listening.push(socket);
    }
    void this.link.read((message) => this.fromMain(message));
  }

  private request(listener: number, res: HttpResponse, req: HttpRequest): void {
    if (this.lifecycle.draining) return write(res, SHUTTING_DOWN);
    const method = req.getMethod().toUpperCase();
    const url = req.getUrl();
    const query = req.getQuery() ?? '';
    let keepAs: string | undefined;
    if (method === 'GET') {
      keepAs = `${listener} ${url}?${query}`;
      const kept = this.keptAnswer(keepAs, res, () => this.relayedFor(listener, req));
      if (kept !== undefined) return this.writeKept(res, kept, requestIdOf(req), performance.now());
    }
    if (this.waiting.size + this.preparing >= REQUESTS_IN_FLIGHT_MAX) return write(res, busy);
    const id = this.nextId++;
    const { headers, peer, peerText } = captured(res, req);
    const pending = new Pending(res, this.lifecycle, undefined, 0, '', () => {
      if (this.waiting.delete(id)) this.link.send([Up.Aborted, id]);
      // Nothing answers it now: it is no longer in flight, and a stop does not wait for it.
      pending.replyWith(NOTHING, 0);
    });
    pending.work();
    const forward = (body: Buffer | undefined, prepared?: string[], charged: number = CHARGED.none): void => {
      if (pending.closed) return;
      if (!this.link.send([Up.Request, id, listener, method, url, query, headers, peer, peerText, body, prepared, charged], WAITING_REQUEST_BYTES_MAX)) return pending.reply(busy);
      this.waiting.set(id, { pending, keepAs });
    };
    const orders = listener === CLOB && method === 'POST' ? ORDER_ROUTES.get(url) : undefined;
    // A single order, or a cancel of one, is checked here in full when this thread knows its key
    // (and the order's market).
    const checking = this.setup.checking;
    const route: CheckedRoute | undefined = checking === undefined || listener !== CLOB || url !== '/order' ? undefined
      : method === 'POST' ? 'place' : method === 'DELETE' ? 'cancel' : undefined;
    const check = route === undefined ? undefined : {
      route, requestId: requestIdOf(req),
      client: checking!.routes[route].perClientCaps.length > 0 ? clientKey(res, this.relayedFor(listener, req), this.relay) : undefined,
    };
    // Any other POST may be a batch read this thread kept (the main thread says which answers it may keep).
    const relayed = method === 'POST' && check === undefined && orders === undefined ? this.relayedFor(listener, req) : undefined;
    const requestId = relayed === undefined ? '' : requestIdOf(req);
    const afterBody = relayed !== undefined ? (body: Buffer | undefined): void => {
      if (body === undefined || body.length > KEPT_BODY_BYTES_MAX) return forward(body);
      const startedMs = performance.now();
      keepAs = `${listener} ${url}?${query} ${body.toString('latin1')}`;
      const kept = this.keptAnswer(keepAs, res, () => relayed);
      if (kept === undefined) return forward(body);
      pending.replyWith((answered) => this.writeKept(answered, kept, requestId, startedMs), 200);
    } : check === undefined && orders === undefined ? forward : (body: Buffer | undefined): void => {
      // A cancel goes over with no orders prepared: the main thread may then tell this thread its key.
      if (body === undefined) return forward(body, check?.route === 'cancel' ? [] : undefined);
      this.preparing++;
      const done = (): void => void this.preparing--;
      if (check === undefined) return void this.prepare(body, url, headers, orders!).then((prepared) => (done(), forward(body, prepared)));
      void this.check(check.route, id, body, headers, check.client, check.requestId, pending, forward).finally(done);
    };
    const length = req.getHeader('content-length');
    // A request announces a body by its length or by chunks; one without either has none.
    if ((length === '' || length === '0') && req.getHeader('transfer-encoding') === '') return forward(undefined);
    readBody(res, pending, length, bodyBytesMax, afterBody);
  }

  /**
   * Works out the id and the signer of each order of a placement's body, the costliest steps of
   * a placement that need no state (trading/order_request.ts prepareOrder), so that the main
   * thread does not: per order, its id, its exchange ('1' neg-risk, '0' not, '' none prepared) and
   * its signer (wire.ts REQUEST). The signatures are recovered on this thread's own pool. An order
   * of a token this thread has not been told about, one it cannot read, or one its pool refused
   * (full), is left to the main thread, which refuses or places it as usual.
   */
  private async prepare(body: Buffer, url: string, headers: readonly string[], list: boolean): Promise<string[]> {
    // Only for a request its credentials authenticate: no one else costs this thread a recovery.
    if (this.authenticated(headers, 'POST', url, body, Date.now()) === undefined) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return [];
    }
    const orders = list ? (Array.isArray(parsed) ? parsed.slice(0, BATCH_ORDERS_MAX) : []) : [parsed];
    const negRiskOf = (tokenId: string): boolean | undefined => this.tokens.get(tokenId)?.market.negRisk;
    const recover = (digest: Uint8Array, signature: string): Promise<string | undefined> => this.verifier.recover(digest, signature);
    return (await Promise.all(orders.map((order) => prepareOrder(order, this.setup.orderDomains, negRiskOf, recover)))).flatMap(preparedEntry);
  }

  /**
   * Checks a POST /order or a DELETE /order in full, as its route would (L2 authentication with a
   * key the main thread told this thread; for an order, the order read and its signature
   * recovered against the token's market as told; for a cancel, its order id; then the route's
   * caps charged in the router's order), and hands the main thread only what to place or cancel
   * (wire.ts PLACE, CANCEL). Anything it cannot check, or that fails a check, goes over as the
   * whole request (with what was charged already), and the route answers it as it answers its
   * own: the same refusals, texts and counts.
   */
  private async check(
    route: CheckedRoute, id: number, body: Buffer, headers: readonly string[], client: Int32Array | undefined, requestId: string, pending: Pending,
    forward: (body: Buffer, prepared?: string[], charged?: number) => void,
  ): Promise<void> {
    // How far the caps are charged, for whatever hands the request over (a defect's too).
    let charged: number = CHARGED.none;
    try {
      const checking = this.setup.checking!;
      const nowMs = Date.now();
      // In the route's order: authentication, the caps, then the body (a request that fails
      // authentication costs this thread no recovery, and one over its caps none either).
      const key = this.authenticated(headers, route === 'place' ? 'POST' : 'DELETE', '/order', body, nowMs);
      if (key === undefined) return forward(body, [], charged);
      const caps = checking.routes[route];
      if (client !== undefined && this.limiter.charge(caps.perClientCaps, client) > 0) return forward(body, [], charged);
      charged = CHARGED.client;
      if (caps.sharedCaps.length > 0 && this.limiter.charge(caps.sharedCaps, ALL_CLIENTS) > 0) return forward(body, [], charged);
      charged = CHARGED.shared;
      const keyCaps = this.keyCaps[route];
      if (keyCaps.length > 0 && this.limiter.charge(keyCaps, key.address) > 0) return forward(body, [], charged);
      charged = CHARGED.all;
      const credentials = [key.apiKey, key.secretBytes, key.passphrase] as const;
      let message: Value[];
      let prepared: string[] = [];
      if (route === 'place') {
        let order: SignedOrder;
        try {
          order = await readSignedOrder(JSON.parse(body.toString('utf8')), {
            key, ...this.setup.orderDomains, token: (tokenId) => this.tokens.get(tokenId),
            recover: (digest, signature) => this.verifier.recover(digest, signature),
          }, nowMs);
        } catch (error) {
          // The route refuses it with its own text (or places an order of a token this thread
          // was not told about); or, this thread's pool being full, as the pool refuses.
          return forward(body, isSignaturesBusy(error) ? preparedEntry(SIGNATURES_BUSY) : [], charged);
        }
        const { place, token } = order;
        const { market } = token;
        prepared = preparedEntry({ orderId: place.orderId, negRisk: market.negRisk, signer: place.account });
        message = [
          Up.Place, id, requestId, ...credentials, order.tokenId, market.negRisk, market.conditionId, token.outcome, market.tickUnits, market.minSizeMicros,
          place.account, place.orderId, place.side, place.orderType, place.priceUnits, place.sizeMicros, place.expirationMs, place.postOnly,
        ];
      } else {
        const orderId = cancelledOrderId(body);
        if (orderId === undefined) return forward(body, [], charged);
        message = [Up.Cancel, id, requestId, ...credentials, orderId];
      }
      if (pending.closed) return;
      if (!this.link.send(message, WAITING_REQUEST_BYTES_MAX)) return pending.reply(busy);
      this.waiting.set(id, { pending, keepAs: undefined, fallBack: () => forward(body, prepared, CHARGED.all) });
    } catch {
      // Nothing above throws but a defect; then the route sees the request, with what was charged.
      forward(body, [], charged);
    }
  }

  /** The key a request's L2 credentials authenticate among those this thread was told, as the route checks them; undefined otherwise. */
  private authenticated(headers: readonly string[], method: string, path: string, body: Buffer, nowMs: number): ApiKeyRecord | undefined {
    try {
      return authenticateL2(readL2HeadersOf((name) => firstHeader(headers, name)), method, path, body, Math.floor(nowMs / 1000), this.setup.checking?.authWindowS ?? 0, (apiKey) => this.apiKeys.get(apiKey));
    } catch {
      return undefined;
    }
  }

  /** The relay's header where it counts (client_address.ts): on the CLOB listener, when the relay fronts it. */
  private relayedFor(listener: number, req: HttpRequest): string {
    return this.relay !== undefined && LISTENERS[listener] === 'clob' ? req.getHeader(RELAYED_FOR_HEADER) : '';
  }

  /**
   * What the main thread said this thread may answer again as `keepAs`, while every book it was
   * built from is unchanged, with the caps the route charges charged (a refused one goes to the
   * main thread, which refuses it as it refuses its own); undefined when it must go there.
   */
  private keptAnswer(keepAs: string, res: HttpResponse, relayed: () => string): Kept | undefined {
    const kept = this.kept.get(keepAs);
    if (kept === undefined) return undefined;
    const { versions } = kept;
    for (let at = 0; at < versions.length; at += 2) {
      if (Atomics.load(this.versions, versions[at]!) !== versions[at + 1]) {
        this.forget(keepAs, kept);
        return undefined;
      }
    }
    if (kept.perClientCaps.length > 0 && this.limiter.charge(kept.perClientCaps, clientKey(res, relayed(), this.relay)) > 0) return undefined;
    if (kept.sharedCaps.length > 0 && this.limiter.charge(kept.sharedCaps, ALL_CLIENTS) > 0) return undefined;
    return kept;
  }

  /** Writes a kept answer with the request's own id, and counts it under its route. */
  private writeKept(res: HttpResponse, kept: Kept, requestId: string, startedMs: number): void {
    for (let at = 0; at < kept.headers.length; at += 2) res.writeHeader(kept.headers[at]!, kept.headers[at + 1]!);
    res.writeHeader('x-request-id', requestId);
    sendBody(res, kept.body, false);
    if (kept.metricsId !== -1) this.count(kept.metricsId, (performance.now() - startedMs) / 1000);
  }

  private keep(keepAs: string, message: Message, headers: readonly string[], answered: string | Buffer): void {
    // Encoded once here, not at every answer (a trading-market list is tens of KB).
    const body = typeof answered === 'string' ? Buffer.from(answered, 'utf8') : answered;
    const bytes = body.byteLength + keepAs.length * 2;
    const numbers = (text: string): number[] => (text === '' ? [] : text.split(',').map(Number));
    const previous = this.kept.get(keepAs);
    if (previous !== undefined) this.forget(keepAs, previous);
    // The request id is the request's own, written per answer.
    const own: string[] = [];
    for (let at = 0; at < headers.length; at += 2) if (headers[at] !== 'x-request-id') own.push(headers[at]!, headers[at + 1]!);
    this.kept.set(keepAs, {
      headers: own, body, bytes, versions: numbers(message[6] as string),
      perClientCaps: numbers(message[7] as string), sharedCaps: numbers(message[8] as string), metricsId: message[9] as number,
    });
    this.keptBytes += bytes;
    for (const [oldest, entry] of this.kept) {
      if (this.kept.size <= KEPT_MAX && this.keptBytes <= KEPT_BYTES_MAX) break;
      this.forget(oldest, entry);
    }
  }

  private forget(keepAs: string, kept: Kept): void {
    this.kept.delete(keepAs);
    this.keptBytes -= kept.bytes;
  }

  /** A read answered here, counted on the main thread's metrics with the next SERVED. */
  private count(metricsId: number, seconds: number): void {
    const list = this.served.get(metricsId);
    if (list === undefined) this.served.set(metricsId, [seconds]);
    else list.push(seconds);
    this.servedTimer ??= setTimeout(() => this.flushServed(), SERVED_FLUSH_MS);
  }

  /** Sends what SERVED holds now (its timer, if one is due, is no longer needed). */
  private flushServed(): void {
    if (this.servedTimer !== undefined) clearTimeout(this.servedTimer);
    this.servedTimer = undefined;
    for (const [metricsId, seconds] of this.served) {
      for (let at = 0; at < seconds.length; at += SERVED_PER_MESSAGE) this.link.send([Up.Served, metricsId, ...seconds.slice(at, at + SERVED_PER_MESSAGE)]);
    }
    this.served.clear();
  }

  private mountSockets(app: TemplatedApp): void {
    for (const path of WS_PATHS) {
      app.ws<SocketData>(path, {
        ...SOCKET_SETTINGS,
        upgrade: (res, req, context) => {
          if (this.lifecycle.draining) return write(res, SHUTTING_DOWN);
          const id = this.nextId++;
          const { headers, peer, peerText } = captured(res, req);
          const upgrading: Upgrading = {
            res, key: req.getHeader('sec-websocket-key'), protocol: req.getHeader('sec-websocket-protocol'),
            extensions: req.getHeader('sec-websocket-extensions'), context, aborted: false,
          };
          res.onAborted(() => {
            upgrading.aborted = true;
          });
          if (!this.link.send([Up.Upgrade, id, req.getUrl(), req.getQuery() ?? '', headers, peer, peerText], WAITING_REQUEST_BYTES_MAX)) return write(res, busy);
          this.upgrading.set(id, upgrading);
        },
        open: (ws) => {
          this.sockets.set(ws.getUserData().id, ws);
        },
        message: (ws, data, isBinary) => {
          const { id } = ws.getUserData();
          if (!this.link.send([Up.WsMessage, id, new Uint8Array(data.slice(0)), isBinary], WAITING_SOCKET_BYTES_MAX)) ws.end(CLOSE_TRY_AGAIN, 'server busy: reconnect');
        },
        // uWS has answered the ping already; it is charged here, at once, as the main thread
        // charges its own sockets' (a refused socket reads no more of what it sent).
        ping: (ws) => {
          const keys = this.keys.get(ws.getUserData().id);
          const refusal = keys === undefined ? undefined : this.caps.message(keys, true);
          if (refusal === undefined) return;
          ws.send(refusalMessage(refusal));
          ws.end(CLOSE_TOO_MANY_REQUESTS, `Too Many Requests: ${refusal.cap}`);
        },
        close: (ws, code) => {
          const { id } = ws.getUserData();
          this.sockets.delete(id);
          this.keys.delete(id);
          this.link.send([Up.WsClosed, id, code]);
        },
      });
    }
  }

  private fromMain(message: Message): void {
    switch (message[0] as number) {
      case Down.Answer: return this.answer(message);
      case Down.Upgraded: {
        const id = message[1] as number;
        this.keys.set(id, { socket: message[2] as string, ip: message[3] as string, account: undefined });
        return this.upgraded(id);
      }
      case Down.Flush: {
        this.flushServed();
        this.link.send([Up.Flushed, message[1] as number]);
        return;
      }
      case Down.Token: {
        const [, tokenId, negRisk, conditionId, outcome, tickUnits, minSizeMicros] = message as [number, string, boolean, string, number, number, number];
        remember(this.tokens, tokenId, { outcome, market: { negRisk, conditionId, tickUnits, minSizeMicros } }, TOKENS_KNOWN_MAX);
        return;
      }
      case Down.ApiKey: {
        const [, apiKey, address, secret, passphrase] = message as [number, string, string, Uint8Array, string];
        remember(this.apiKeys, apiKey, { apiKey, address, secretBytes: Buffer.from(secret), passphrase }, KEYS_KNOWN_MAX);
        return;
      }
      case Down.Forget: {
        if (message[1] === FORGET_KEY) this.apiKeys.delete(message[2] as string);
        else this.tokens.delete(message[2] as string);
        return;
      }
      case Down.Fallback: {
        const id = message[1] as number;
        const waiting = this.waiting.get(id);
        this.waiting.delete(id);
        waiting?.fallBack?.();
        return;
      }
      case Down.Keys: {
        const keys = this.keys.get(message[1] as number);
        if (keys !== undefined) keys.account = message[2] as string;
        return;
      }
      case Down.Send: {
        const id = message[1] as number;
        // 2: dropped for backpressure (uWS closes the socket), which the channels count.
        if (this.sockets.get(id)?.send(message[2] as string | Uint8Array, message[3] as boolean) === 2) this.link.send([Up.Dropped, id]);
        return;
      }
      case Down.Subscribe: {
        this.sockets.get(message[1] as number)?.subscribe(message[2] as string);
        return;
      }
      case Down.Unsubscribe: {
        this.sockets.get(message[1] as number)?.unsubscribe(message[2] as string);
        return;
      }
      case Down.End: {
        this.sockets.get(message[1] as number)?.end(message[2] as number, message[3] as string);
        return;
      }
      case Down.Close: {
        this.sockets.get(message[1] as number)?.close();
        return;
      }
      case Down.Publish: {
        const app = this.apps[0];
        app?.publish(message[1] as string, message[2] as string | Uint8Array, message[3] as boolean);
        return;
      }
      default: throw new Error(`front end ${this.setup.index}: unknown message kind ${String(message[0])}`);
    }
  }

  /** The main thread's answer to a request or a refused upgrade: its status line, headers and body as written there. */
  private answer(message: Message): void {
    const id = message[1] as number;
    const statusLine = message[2] as string;
    const headers = message[3] as string[];
    const body = message[4] as string | Uint8Array as string | Buffer;
    const close = message[5] as boolean;
    const status = statusLine === '' ? 200 : Number.parseInt(statusLine, 10);
    const writer = (res: HttpResponse): void => {
      if (statusLine !== '') res.writeStatus(statusLine);
      for (let at = 0; at < headers.length; at += 2) res.writeHeader(headers[at]!, headers[at + 1]!);
      sendBody(res, body, close);
    };
    const waiting = this.waiting.get(id);
    if (waiting !== undefined) {
      this.waiting.delete(id);
      if (message.length > 6 && waiting.keepAs !== undefined && status === 200) this.keep(waiting.keepAs, message, headers, body);
      return waiting.pending.replyWith(writer, status);
    }
    const upgrading = this.upgrading.get(id);
    if (upgrading === undefined) return;
    this.upgrading.delete(id);
    if (!upgrading.aborted) upgrading.res.cork(() => writer(upgrading.res));
  }

  private upgraded(id: number): void {
    const upgrading = this.upgrading.get(id);
    if (upgrading === undefined) return;
    this.upgrading.delete(id);
    if (upgrading.aborted) {
      this.keys.delete(id);
      this.link.send([Up.WsClosed, id, 1006]);
      return;
    }
    const { res } = upgrading;
    res.cork(() => res.upgrade<SocketData>({ id }, upgrading.key, upgrading.protocol, upgrading.extensions, upgrading.context as never));
  }

  /** Stops accepting, waits (bounded) for the answers of what it took, closes its sockets. */
  async stop(): Promise<void> {
    this.lifecycle.draining = true;
    for (const socket of this.listening.splice(0)) uws.us_listen_socket_close(socket);
    const deadline = Date.now() + DRAIN_MS;
    while (this.lifecycle.inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const ws of [...this.sockets.values()]) ws.end(1001, 'server stopping');
    // Every connection closed too (idle keep-alive ones included): a uWS socket still open when
    // the thread exits aborts the process.
    for (const app of this.apps) (app as unknown as { close(): void }).close();
    // Its pool last: the process must not exit with a socket open, and the hub ends this thread
    // a second after its drain.
    await this.verifier.close();
    this.flushServed();
    this.link.stop();
  }
}

if (!isMainThread && parentPort !== null && (workerData as Partial<EdgeSetup> | undefined)?.link !== undefined) {
  const port = parentPort;
  const edge = new Edge(workerData as EdgeSetup);
  edge.listen().then(() => {
    port.postMessage({ listening: true, threadId: currentThreadId() } satisfies FromEdge);
    port.on('message', () => {
      void edge.stop().then(() => {
        port.postMessage('closed' satisfies FromEdge);
        port.close();
      });
    });
  }, (error: unknown) => {
    void edge.stop().then(() => port.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies FromEdge));
  });
}

// The main thread's side of the front-end threads (FRONT_ENDS > 1; edge.ts is theirs). The main
// thread mounts each listener's routes and the WebSocket channels twice: on its own uWS app, and
// on a stand-in app (stand_in.ts) that takes the same registrations. A request a front-end thread hands
// over is matched against the stand-in's routes as uWS matches them, and run by the very handler
// the main thread's own connections reach, on stand-in request and response objects: the same
// caps, authentication, treasury, read models and metrics, so an order acknowledged on one
// connection is visible to a cancel, a read or a WebSocket on any other at once, per market in
// one sequence, and its collateral is reserved and released once, wherever it came in.
//
// WebSockets: a socket on a front-end thread is a stand-in socket here, with the user data the
// channel's upgrade gave it; what the channel sends, subscribes and ends goes to the thread in
// order. Published messages go to every thread that has a subscriber of the topic, and each
// thread fans them out to its own sockets: publishing costs the main thread one message per
// thread, not one per socket.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log.js';
import type { Metrics, RouteMetrics } from '../metrics.js';
import type { Cap } from '../rate_limit.js';
import type { Publisher } from '../ws/channels.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from '../uws.js';
import type { WebSocket, WebSocketBehavior } from '@trufflesuite/uws-js-unofficial';
import type { EdgeSetup, FromEdge } from './edge.js';
import type { Value } from './codec.js';
import { allocateLink, Link, type Message } from './link.js';
import { keysOf, StandInApp, StandInRequest, StandInResponse, StandInSocket, type ThreadSide } from './stand_in.js';
import { Down, FORGET_KEY, FORGET_TOKEN, LISTENERS, preparedEntries, Up, type CheckedRoute, type CheckingSetup, type ListenerName } from './wire.js';
import type { ApiKeyRecord } from '../auth/l2.js';
import type { SIGNATURES_BUSY } from '../trading/order_request.js';
import type { CheckedCancel, CheckedOrder, OrderDomains, OrderToken, PreparedOrder, PreparedOrders } from '../trading/order_request.js';
import type { Unconfirmed } from '../trading/order_routes.js';
import { write, type Lifecycle, type Reply } from '../respond.js';
import { SHUTTING_DOWN } from '../router.js';
import type { OrderType, Side } from '../../engine/command.js';

const NO_PEER = new Uint8Array(0);

/** How long a stop waits for a thread to answer what it took and exit (it waits 5 s for the answers itself). */
const STOP_WAIT_MS = 6_000;
/**
 * Bytes of messages that may wait for a thread's link (its ring is full because the thread is
 * behind). Past it, publishes and sends to that thread's sockets are dropped and its sockets
 * closed (1013) once the link drains, so their clients come back for whole books; answers to
 * requests are never dropped (a thread holds at most REQUESTS_IN_FLIGHT_MAX of them).
 */
const OUTBOX_BYTES_MAX = 64 * 1024 * 1024;
/** How long a scrape of /metrics waits for the threads' counts. */
const FLUSH_WAIT_MS = 200;

/** The orders a thread prepared for a request (wire.ts REQUEST), as the order routes read them. */
class Preparations implements PreparedOrders {
  readonly orders: (PreparedOrder | typeof SIGNATURES_BUSY | undefined)[];

  constructor(private readonly thread: EdgeThread, flat: readonly string[]) {
    this.orders = preparedEntries(flat);
  }

  used(): void {
    this.thread.recovered++;
  }

  learn(tokenId: string, token: OrderToken): void {
    this.thread.teachToken(tokenId, token);
  }

  authenticated(key: ApiKeyRecord): void {
    this.thread.link.send([Down.ApiKey, key.apiKey, key.address, key.secretBytes, key.passphrase]);
  }
}

/** One front-end thread, its link, and the requests and sockets of it the main thread holds. */
class EdgeThread implements ThreadSide {
  readonly link: Link;
  private readonly requests = new Map<number, StandInResponse>();
  private readonly sockets = new Map<number, StandInSocket>();
  private readonly behaviors = new Map<number, WebSocketBehavior<unknown>>();
  /** Subscribers per topic on this thread. */
  private readonly followers = new Map<string, number>();
  /** Messages to sockets dropped for a full link: its sockets are ended once it drains. */
  private overloaded = false;
  /** Requests this thread took: handed over, or answered from a kept read (for /metrics). */
  requestsServed = 0;
  /** Of those, the reads it answered itself from what it kept (for /metrics). */
  keptAnswers = 0;
  /** Order signatures it recovered that placements used (for /metrics). */
  recovered = 0;
  /** Requests it checked in full, per route: placed or cancelled here, or told to hand over whole (for /metrics). */
  readonly checks: Record<CheckedRoute, { done: number; handedOver: number }> = { place: { done: 0, handedOver: 0 }, cancel: { done: 0, handedOver: 0 } };
  /** Its kernel thread id (Linux), for the per-thread CPU metrics. */
  threadId: number | undefined = undefined;
  worker: Worker | undefined = undefined;

  readonly memory = allocateLink();

  constructor(readonly index: number, private readonly hub: FrontEnds) {
    this.link = new Link(this.memory, 'main');
  }

  answer(id: number, message: Value[]): void {
    this.requests.delete(id);
    this.link.send(message);
  }

  follow(topic: string, delta: number): void {
    const count = (this.followers.get(topic) ?? 0) + delta;
    if (count > 0) this.followers.set(topic, count);
    else this.followers.delete(topic);
  }

  subscribers(topic: string): number {
    return this.followers.get(topic) ?? 0;
  }

  /** A message to this thread's sockets: dropped (and the sockets ended later) when the link is too far behind. */
  toSocket(message: Message): void {
    if (this.link.outboxBytes > OUTBOX_BYTES_MAX) {
      if (!this.overloaded) {
        this.overloaded = true;
        this.hub.log.warn('front_end_overloaded', { frontEnd: this.index, outboxBytes: this.link.outboxBytes });
        setTimeout(() => this.endOverloaded(), 10);
      }
      return;
    }
    this.link.send(message);
  }

  private endOverloaded(): void {
    if (this.link.outboxBytes > OUTBOX_BYTES_MAX / 2) {
      setTimeout(() => this.endOverloaded(), 10);
      return;
    }
    this.overloaded = false;
    for (const socket of this.sockets.values()) socket.end(1013, 'server overloaded: subscribe again');
  }

  opened(id: number, userData: unknown): void {
    const behavior = this.behaviors.get(id);
    if (behavior === undefined) return;
    const socket = new StandInSocket(this, id, userData);
    this.sockets.set(id, socket);
    const keys = keysOf(userData);
    this.link.send([Down.Upgraded, id, keys?.socket ?? '', keys?.ip ?? '']);
    behavior.open?.(socket as unknown as WebSocket<unknown>);
  }

  /** A socket closed, by its client or by the channel: its subscriptions end, and the channel hears once. */
  closed(id: number, code: number): void {
    const socket = this.sockets.get(id);
    const behavior = this.behaviors.get(id);
    this.sockets.delete(id);
    this.behaviors.delete(id);
    if (socket === undefined) return;
    socket.forget();
    behavior?.close?.(socket as unknown as WebSocket<unknown>, code, new ArrayBuffer(0));
  }

  receive(message: Message): void {
    switch (message[0] as number) {
      case Up.Request: {
        this.requestsServed++;
        const [, id, listener, method, url, query, headers, peer, peerText, body, prepared, charged] =
          message as [number, number, number, string, string, string, string[], Uint8Array, string, Uint8Array | undefined, string[] | undefined, number | undefined];
        const res = new StandInResponse(this, id, peer, peerText, body ?? undefined);
        if (prepared !== undefined) res.prepared = new Preparations(this, prepared);
        res.charged = charged ?? 0;
        this.requests.set(id, res);
        const name = LISTENERS[listener]!;
        const found = this.hub.app(name).find(method, url);
        if (found === undefined) {
          res.writeStatus('404 Not Found').end('{"error":"not found"}');
          return;
        }
        const req = new StandInRequest(method, url, query, headers);
        req.params = found.params;
        this.hub.guard(() => found.handler(res as unknown as HttpResponse, req as unknown as HttpRequest), res);
        return;
      }
      case Up.Place: return this.checked('place', message);
      case Up.Cancel: return this.checked('cancel', message);
      case Up.Aborted: {
        const res = this.requests.get(message[1] as number);
        this.requests.delete(message[1] as number);
        res?.abort();
        return;
      }
      case Up.Upgrade: {
        this.requestsServed++;
        const [, id, url, query, headers, peer, peerText] = message as [number, number, string, string, string[], Uint8Array, string];
        const res = new StandInResponse(this, id, peer, peerText, undefined);
        const behavior = this.hub.app('clob').sockets.get(url);
        if (behavior === undefined) {
          res.writeStatus('404 Not Found').end('{"error":"not found"}');
          return;
        }
        this.behaviors.set(id, behavior);
        const req = new StandInRequest('GET', url, query, headers);
        const upgrade = behavior.upgrade ?? ((r: HttpResponse) => (r as unknown as StandInResponse).upgrade({}));
        this.hub.guard(() => upgrade(res as unknown as HttpResponse, req as unknown as HttpRequest, undefined as never), res);
        if (!this.sockets.has(id)) this.behaviors.delete(id);
        return;
      }
      case Up.WsMessage: {
        const socket = this.sockets.get(message[1] as number);
        const data = message[2] as Uint8Array;
        if (socket === undefined || socket.closed) return;
        const behavior = this.behaviors.get(socket.id);
        behavior?.message?.(socket as unknown as WebSocket<unknown>, data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer, message[3] as boolean);
        return;
      }
      case Up.WsClosed: return this.closed(message[1] as number, message[2] as number);
      case Up.Served: {
        this.requestsServed += message.length - 2;
        this.keptAnswers += message.length - 2;
        const route = this.hub.metrics?.routeById(message[1] as number);
        if (route === undefined) return;
        const now = performance.now();
        for (let at = 2; at < message.length; at++) route.record(200, now - (message[at] as number) * 1000);
        return;
      }
      case Up.Flushed: {
        this.hub.flushed(this.index, message[1] as number);
        return;
      }
      case Up.Dropped: {
        const socket = this.sockets.get(message[1] as number);
        if (socket !== undefined) this.hub.options.dropped?.(socket as unknown as WebSocket<unknown>);
        return;
      }
      default: throw new Error(`front end ${this.index}: unknown message kind ${String(message[0])}`);
    }
  }

  /** Tells the thread a token's market (wire.ts TOKEN). */
  teachToken(tokenId: string, token: OrderToken): void {
    const { market } = token;
    this.link.send([Down.Token, tokenId, market.negRisk, market.conditionId, token.outcome, market.tickUnits, market.minSizeMicros]);
  }

  /**
   * A POST /order or DELETE /order the thread checked in full (wire.ts PLACE, CANCEL): placed or
   * cancelled here once its key (and an order's market) are confirmed, and answered as the route
   * answers; otherwise the thread hands the whole request over (FALLBACK), told an order's token's
   * market as it is now.
   */
  private checked(route: CheckedRoute, message: Message): void {
    const checking = this.hub.checking;
    const id = message[1] as number;
    const requestId = message[2] as string;
    const key = { apiKey: message[3] as string, secret: message[4] as Uint8Array, passphrase: message[5] as string };
    const counts = this.checks[route];
    const fallBack = (): void => {
      this.requests.delete(id);
      counts.handedOver++;
      this.link.send([Down.Fallback, id]);
    };
    if (checking === undefined) return fallBack();
    const startedMs = performance.now();
    const res = new StandInResponse(this, id, NO_PEER, '', undefined);
    this.requests.set(id, res);
    // Counted as a request this thread took when answered here (one handed over counts as its REQUEST).
    const answer = (reply: Reply): void => {
      this.requestsServed++;
      if (!res.done) checking.metrics[route]?.record(reply.status, startedMs);
      write(res as unknown as HttpResponse, reply, false, requestId);
    };
    // As the router: a stopping server takes nothing more, and waits (bounded) for what it took.
    const { lifecycle } = checking;
    if (lifecycle.draining) return answer(SHUTTING_DOWN);
    lifecycle.inFlight++;
    let run: Promise<Reply | Unconfirmed>;
    let tokenId = '';
    if (route === 'place') {
      const [,,,,,, token, negRisk, conditionId, outcome, tickUnits, minSizeMicros, account, orderId, side, orderType, priceUnits, sizeMicros, expirationMs, postOnly] = message as [
        number, number, string, string, Uint8Array, string, string, boolean, string, number, number, number,
        string, string, number, number, number, number, number, boolean];
      tokenId = token;
      run = checking.place({
        ...key, tokenId, outcome, market: { negRisk, conditionId, tickUnits, minSizeMicros },
        place: { account, orderId, marketKey: conditionId, outcome, side: side as Side, orderType: orderType as OrderType, priceUnits, sizeMicros, expirationMs, postOnly },
      });
    } else {
      run = checking.cancel({ ...key, orderId: message[6] as string });
    }
    run.then((reply) => {
      if (typeof reply === 'string') {
        // The thread forgets what changed (or learns the market as it is now), so that it hands
        // over one request for it, not every one.
        if (reply === 'key') this.link.send([Down.Forget, FORGET_KEY, key.apiKey]);
        else {
          const token = checking.token(tokenId);
          if (token === undefined) this.link.send([Down.Forget, FORGET_TOKEN, tokenId]);
          else this.teachToken(tokenId, token);
        }
        return fallBack();
      }
      counts.done++;
      // An order's signature the thread recovered (as a prepared one the route uses: Preparations.used).
      if (route === 'place') this.recovered++;
      answer(reply);
    }, (error: unknown) => {
      counts.done++;
      answer(checking.fail(error, requestId));
    }).finally(() => lifecycle.inFlight--);
  }

  /** The thread is gone: its requests' clients are gone with it, and so are its sockets. */
  lost(): void {
    this.worker = undefined;
    for (const res of this.requests.values()) res.abort();
    this.requests.clear();
    for (const id of [...this.sockets.keys()]) this.closed(id, 1006);
    // Upgrades it had not finished.
    this.behaviors.clear();
  }
}

export interface FrontEndsOptions {
  readonly count: number;
  readonly host: string;
  readonly bodyTimeoutMs: number;
  readonly log: Logger;
  /** The request caps' shared buckets and the caps in force: each thread charges its sockets' ws-level pings. */
  readonly buckets: SharedArrayBuffer;
  readonly caps: readonly Cap[];
  /** A send found a thread's socket over its backpressure cap (the channels count slow readers). */
  readonly dropped?: (socket: WebSocket<unknown>) => void;
  /** The books' shared versions: a thread answers a kept read again while its book's holds (market/book_versions.ts). */
  readonly bookVersions: SharedArrayBuffer;
  /** The compatibility relay's secret, when COMPAT_PORT fronts the CLOB listener (client_address.ts). */
  readonly relaySecret?: Uint8Array;
  /** The domains orders are signed in (each thread prepares its placements' orders). */
  readonly orderDomains: OrderDomains;
  /** Signature pool threads each thread recovers its orders' signatures on (0: on the thread itself). */
  readonly verifyThreads: number;
}

/** What a thread needs to check POST /order and DELETE /order itself, and what the main thread does with what it checked. */
export interface Checking extends CheckingSetup {
  /** Places a checked order (order_routes.ts placeChecked): its answer, or what no longer holds (the request is handed over). */
  place(checked: CheckedOrder): Promise<Reply | Unconfirmed>;
  /** Cancels a checked cancel (order_routes.ts cancelChecked): its answer, or what no longer holds. */
  cancel(checked: CheckedCancel): Promise<Reply | Unconfirmed>;
  /** The answer to what placing or cancelling threw, as the CLOB listener answers errors. */
  fail(error: unknown, requestId: string): Reply;
  /** A token's market as it is now. */
  token(tokenId: string): OrderToken | undefined;
  /** Each route's metrics. */
  readonly metrics: Readonly<Record<CheckedRoute, RouteMetrics | undefined>>;
  /** The main thread's listeners' lifecycle: what it takes while it stops. */
  readonly lifecycle: Lifecycle;
}

/** The front-end threads beside the main thread, and the stand-in apps their requests run on. */
export class FrontEnds {
  private readonly apps = new Map<ListenerName, StandInApp>(LISTENERS.map((name) => [name, new StandInApp()]));
  private readonly threads: EdgeThread[] = [];
  private stopped = false;
  readonly log: Logger;
  /** Where the reads a thread answered itself are counted (set once the metrics exist; undefined with METRICS=off). */
  metrics: Metrics | undefined = undefined;
  /** What threads check in full themselves, and how it is placed or cancelled here: set before start(); undefined: nothing. */
  checking: Checking | undefined = undefined;

  constructor(readonly options: FrontEndsOptions) {
    this.log = options.log;
  }

  /** The stand-in app of a listener: mount its routes (and the CLOB listener's channels) on it before start(). */
  app(name: ListenerName): StandInApp {
    return this.apps.get(name)!;
  }

  /** As TemplatedApp, for mount() and the channels (they use only what StandInApp has). */
  appFor(name: ListenerName): TemplatedApp {
    return this.app(name) as unknown as TemplatedApp;
  }

  /** Runs a handler; one that throws is answered 500 (the routes catch their own errors; this is the last guard). */
  guard(run: () => void, res: StandInResponse): void {
    try {
      run();
    } catch (error) {
      this.log.error('front_end_dispatch_failed', { message: error instanceof Error ? error.message : String(error) });
      if (!res.done) res.writeStatus('500 Internal Server Error').end('{"error":"internal error"}');
    }
  }

  /**
   * Starts `count` threads on the ports the main thread bound; resolves once every one listens
   * (the main thread then lets its own listeners go: server.ts).
   */
  async start(ports: Readonly<Record<ListenerName, number>>): Promise<void> {
    const started: Promise<void>[] = [];
    for (let index = 1; index <= this.options.count; index++) {
      const thread = new EdgeThread(index, this);
      this.threads.push(thread);
      started.push(this.spawn(thread, ports));
    }
    await Promise.all(started);
  }

  private spawn(thread: EdgeThread, ports: Readonly<Record<ListenerName, number>>): Promise<void> {
    const setup: EdgeSetup = {
      index: thread.index, host: this.options.host, ports: LISTENERS.map((name) => ports[name]), link: thread.memory, bodyTimeoutMs: this.options.bodyTimeoutMs,
      buckets: this.options.buckets, caps: this.options.caps, bookVersions: this.options.bookVersions, orderDomains: this.options.orderDomains,
      verifyThreads: this.options.verifyThreads,
      ...(this.checking === undefined ? {} : { checking: { authWindowS: this.checking.authWindowS, routes: this.checking.routes } }),
      ...(this.options.relaySecret === undefined ? {} : { relaySecret: this.options.relaySecret }),
    };
    const worker = new Worker(new URL('./edge.js', import.meta.url), { workerData: setup });
    thread.worker = worker;
    void thread.link.read((message) => thread.receive(message));
    return new Promise((resolve, reject) => {
      const failed = (error: Error): void => reject(error);
      worker.once('error', failed);
      worker.once('message', (message: FromEdge) => {
        worker.off('error', failed);
        if (typeof message === 'object' && 'error' in message) {
          void worker.terminate();
          reject(new Error(message.error));
          return;
        }
        if (typeof message === 'object') thread.threadId = message.threadId;
        worker.on('error', (error) => this.log.error('front_end_failed', { frontEnd: thread.index, message: error.message }));
        worker.once('exit', () => {
          thread.lost();
          if (!this.stopped) this.log.error('front_end_exited', { frontEnd: thread.index });
        });
        resolve();
      });
    });
  }

  /** Flushes waiting for their FLUSHED, by token: the threads still to answer, and what to call then. */
  private readonly flushes = new Map<number, { readonly waiting: Set<number>; readonly done: () => void }>();
  private nextFlush = 1;

  /**
   * Has every thread send the counts of the reads it answered itself (before a scrape of
   * /metrics, so a scrape counts every answer given before it); resolves when all have, or after
   * FLUSH_WAIT_MS.
   */
  flushServed(): Promise<void> {
    const live = this.threads.filter((thread) => thread.worker !== undefined && !this.stopped);
    if (live.length === 0) return Promise.resolve();
    const token = this.nextFlush++;
    return new Promise((resolve) => {
      const timer = setTimeout(finish, FLUSH_WAIT_MS);
      const flushes = this.flushes;
      function finish(): void {
        clearTimeout(timer);
        flushes.delete(token);
        resolve();
      }
      this.flushes.set(token, { waiting: new Set(live.map((thread) => thread.index)), done: finish });
      for (const thread of live) thread.link.send([Down.Flush, token]);
    });
  }

  flushed(thread: number, token: number): void {
    const flush = this.flushes.get(token);
    if (flush === undefined) return;
    flush.waiting.delete(thread);
    if (flush.waiting.size === 0) flush.done();
  }

  /** Subscribers of a topic on every thread but the main one. */
  subscribers(topic: string): number {
    let count = 0;
    for (const thread of this.threads) count += thread.subscribers(topic);
    return count;
  }

  /** Publishes on the main thread's app and to every thread that has a subscriber of the topic. */
  publisher(main: TemplatedApp): Publisher {
    return {
      numSubscribers: (topic) => main.numSubscribers(topic) + this.subscribers(topic),
      publish: (topic, message) => {
        if (main.numSubscribers(topic) > 0) main.publish(topic, message);
        for (const thread of this.threads) if (thread.subscribers(topic) > 0) thread.toSocket([Down.Publish, topic, message, false]);
      },
    };
  }

  /** Requests each front end handed over so far (the main thread's own are not counted here), and its thread. */
  served(): { frontEnd: number; requests: number; kept: number; threadId: number | undefined; checks: EdgeThread['checks'] }[] {
    return this.threads.map((thread) => ({ frontEnd: thread.index, requests: thread.requestsServed, kept: thread.keptAnswers, threadId: thread.threadId, checks: thread.checks }));
  }

  /** Order signatures the threads recovered that placements used. */
  signaturesRecovered(): number {
    let count = 0;
    for (const thread of this.threads) count += thread.recovered;
    return count;
  }

  /** Stops accepting on every thread; each answers what it took (bounded), closes its sockets and exits. */
  stop(): Promise<void> {
    this.stopping ??= this.stopThreads();
    return this.stopping;
  }

  private stopping: Promise<void> | undefined = undefined;

  private async stopThreads(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.threads.map((thread) => new Promise<void>((resolve) => {
      const worker = thread.worker;
      if (worker === undefined) return resolve();
      const timer = setTimeout(() => void worker.terminate(), STOP_WAIT_MS);
      worker.once('exit', () => {
        clearTimeout(timer);
        thread.link.stop();
        resolve();
      });
      worker.once('message', (message: FromEdge) => {
        if (message === 'closed') void worker.terminate();
      });
      worker.postMessage('stop');
    })));
  }
}

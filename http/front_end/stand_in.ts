// The stand-ins a front-end thread's requests run on, on the main thread (hub.ts): an app that
// takes a listener's route and WebSocket registrations and matches a request as uWS does, a
// request and a response that route handlers use as they use uWS's, and a socket the channels
// use as they use uWS's. What they write goes to the thread they stand for (ThreadSide).
import type { WebSocketBehavior } from '@trufflesuite/uws-js-unofficial';
import type { Validity } from '../market/book_versions.js';
import type { HttpRequest, HttpResponse } from '../uws.js';
import type { SocketKeys } from '../ws/caps.js';
import type { Value } from './codec.js';
import type { Message } from './link.js';
import { Down } from './wire.js';

/** What the stand-ins need of the thread they stand for (hub.ts's EdgeThread). */
export interface ThreadSide {
  /** Sends a request's answer and forgets the request. */
  answer(id: number, message: Value[]): void;
  /** A channel accepted an upgrade: the socket opens here and on the thread. */
  opened(id: number, userData: unknown): void;
  /** A message to one of the thread's sockets (or all that follow a topic). */
  toSocket(message: Message): void;
  /** A socket of the thread follows a topic (+1) or stops (-1). */
  follow(topic: string, delta: number): void;
  /** A socket closed, by its client or by the channel. */
  closed(id: number, code: number): void;
}

export type Handler = (res: HttpResponse, req: HttpRequest) => void;
type Segment = { readonly kind: 0; readonly text: string } | { readonly kind: 1 } | { readonly kind: 2 };

interface RouteEntry {
  readonly method: string;
  readonly segments: readonly Segment[];
  readonly handler: Handler;
}

function segmentsOf(path: string): Segment[] {
  return path.split('/').slice(1).map((part): Segment => (part === '*' ? { kind: 2 } : part.startsWith(':') ? { kind: 1 } : { kind: 0, text: part }));
}

/**
 * Matches a URL against routes as uWS's router does: at each segment a literal beats a parameter,
 * which beats a wildcard (which takes the rest); a route of the request's method beats `any`.
 * Returns the handler and the parameters' raw (still encoded) values.
 */
function match(routes: readonly RouteEntry[], method: string, url: string): { handler: Handler; params: string[]; literal: boolean } | undefined {
  const parts = url.split('/').slice(1);
  let best: { entry: RouteEntry; rank: number[]; params: string[] } | undefined;
  for (const entry of routes) {
    if (entry.method !== method && entry.method !== 'any') continue;
    const rank: number[] = [entry.method === 'any' ? 1 : 0];
    const params: string[] = [];
    let matched = true;
    let at = 0;
    for (; at < entry.segments.length; at++) {
      const segment = entry.segments[at]!;
      if (segment.kind === 2) {
        rank.push(2);
        at = parts.length;
        break;
      }
      const part = parts[at];
      if (part === undefined || (segment.kind === 0 && part !== segment.text) || (segment.kind === 1 && part === '')) {
        matched = false;
        break;
      }
      rank.push(segment.kind);
      if (segment.kind === 1) params.push(part);
    }
    if (!matched || at !== parts.length) continue;
    if (best === undefined || compareRanks(rank, best.rank) < 0) best = { entry, rank, params };
  }
  return best === undefined ? undefined : { handler: best.entry.handler, params: best.params, literal: best.entry.segments.every((segment) => segment.kind === 0) };
}

const NO_PARAMS: string[] = [];

function compareRanks(a: readonly number[], b: readonly number[]): number {
  // The method first, then segment by segment.
  for (let at = 0; at < Math.min(a.length, b.length); at++) if (a[at] !== b[at]) return a[at]! - b[at]!;
  return a.length - b.length;
}

/** Matches remembered per method and path (only those whose route has no parameter or wildcard, so there are few). */
const LITERAL_MATCHES_MAX = 4_096;

/** A listener's routes as the main thread registers them (route() handlers and the WebSocket behaviours). */
export class StandInApp {
  readonly routes: RouteEntry[] = [];
  readonly sockets = new Map<string, WebSocketBehavior<unknown>>();
  /** Requests whose route is all literal segments (`GET /book`), by method and path. */
  private readonly literal = new Map<string, Handler>();

  /** The handler of a request and its parameters' raw values (see match). */
  find(method: string, url: string): { handler: Handler; params: string[] } | undefined {
    const known = this.literal.get(method + url);
    if (known !== undefined) return { handler: known, params: NO_PARAMS };
    const found = match(this.routes, method, url);
    if (found?.literal === true && this.literal.size < LITERAL_MATCHES_MAX) this.literal.set(method + url, found.handler);
    return found;
  }

  private add(method: string, path: string, handler: Handler): this {
    this.routes.push({ method, segments: segmentsOf(path), handler });
    return this;
  }

  get(path: string, handler: Handler): this { return this.add('GET', path, handler); }
  post(path: string, handler: Handler): this { return this.add('POST', path, handler); }
  put(path: string, handler: Handler): this { return this.add('PUT', path, handler); }
  del(path: string, handler: Handler): this { return this.add('DELETE', path, handler); }
  any(path: string, handler: Handler): this { return this.add('any', path, handler); }

  ws<T>(path: string, behavior: WebSocketBehavior<T>): this {
    this.sockets.set(path, behavior as WebSocketBehavior<unknown>);
    return this;
  }
}

/**
 * The value of the first header of `name` in a captured list (name, value, …), or '': as uWS's
 * getHeader answers (client_address.ts relies on the first).
 */
export function firstHeader(headers: readonly string[], name: string): string {
  for (let at = 0; at < headers.length; at += 2) if (headers[at] === name) return headers[at + 1]!;
  return '';
}

/** A request a thread handed over, as route handlers read one. */
export class StandInRequest {
  params: string[] = [];

  constructor(
    private readonly method: string,
    private readonly url: string,
    private readonly query: string,
    private readonly headers: readonly string[],
  ) {}

  getHeader(name: string): string {
    return firstHeader(this.headers, name);
  }

  getUrl(): string { return this.url; }
  /** The query string, or one parameter of it as uWS's getQuery(key) answers (undefined when absent). */
  getQuery(key?: string): string | undefined {
    return key === undefined ? this.query : new URLSearchParams(this.query).get(key) ?? undefined;
  }
  getMethod(): string { return this.method.toLowerCase(); }
  getParameter(index: number): string { return this.params[index] ?? ''; }

  forEach(visit: (name: string, value: string) => void): void {
    for (let at = 0; at < this.headers.length; at += 2) visit(this.headers[at]!, this.headers[at + 1]!);
  }
}

/** The answer being written to a thread's request: what route handlers write is sent as one message. */
export class StandInResponse {
  private statusLine = '';
  private readonly headers: string[] = [];
  private aborted: (() => void) | undefined = undefined;
  /** What the thread needs to answer this read again itself (ThreadResponse.keep), when it may. */
  private kept: Value[] | undefined = undefined;
  /** What the thread worked out for the request before handing it over (router.ts ThreadResponse.prepared). */
  prepared: unknown = undefined;
  /** The caps the thread charged before it handed the request over (router.ts CHARGED). */
  charged = 0;
  done = false;

  constructor(
    private readonly thread: ThreadSide,
    private readonly id: number,
    private readonly peer: Uint8Array,
    private readonly peerText: string,
    private readonly body: Uint8Array | undefined,
  ) {}

  writeStatus(line: string): this {
    this.statusLine = line;
    return this;
  }

  writeHeader(name: string | Uint8Array, value: string | Uint8Array): this {
    this.headers.push(typeof name === 'string' ? name : Buffer.from(name).toString('latin1'), typeof value === 'string' ? value : Buffer.from(value).toString('latin1'));
    return this;
  }

  end(body: string | Uint8Array = '', closeConnection = false): this {
    this.finish(body, closeConnection);
    return this;
  }

  tryEnd(body: string | Uint8Array): [boolean, boolean] {
    this.finish(body, false);
    return [true, true];
  }

  private finish(body: string | Uint8Array, closeConnection: boolean): void {
    if (this.done) return;
    this.done = true;
    const answer: Value[] = [Down.Answer, this.id, this.statusLine, this.headers, body, closeConnection];
    if (this.kept !== undefined) answer.push(...this.kept);
    this.thread.answer(this.id, answer);
  }

  /** The route says the thread may keep this read (router.ts ThreadResponse). */
  keep(validity: Validity, perClientCaps: readonly number[], sharedCaps: readonly number[], metricsId: number): void {
    this.kept = [validity.flatMap(({ cell, version }) => [cell, version]).join(','), perClientCaps.join(','), sharedCaps.join(','), metricsId];
  }

  cork(write: () => void): this {
    write();
    return this;
  }

  onAborted(handler: () => void): this {
    this.aborted = handler;
    return this;
  }

  /** The client went away (the thread said so). */
  abort(): void {
    if (this.done) return;
    this.done = true;
    this.aborted?.();
  }

  /** The body came whole with the request (the thread read it, within its caps). */
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): this {
    const body = this.body;
    handler(body === undefined ? new ArrayBuffer(0) : body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer, true);
    return this;
  }

  onWritable(): this {
    return this;
  }

  getRemoteAddress(): ArrayBuffer {
    return this.peer.buffer.slice(this.peer.byteOffset, this.peer.byteOffset + this.peer.byteLength) as ArrayBuffer;
  }

  getRemoteAddressAsText(): ArrayBuffer {
    const text = Buffer.from(this.peerText, 'latin1');
    return text.buffer.slice(text.byteOffset, text.byteOffset + text.byteLength) as ArrayBuffer;
  }

  /** The channel accepted the upgrade: the stand-in socket opens, and the thread upgrades its connection. */
  upgrade(userData: unknown): void {
    if (this.done) return;
    this.done = true;
    this.thread.opened(this.id, userData);
  }
}

/** The bucket keys in a channel socket's user data (ws/caps.ts), which the thread charges pings to. */
export function keysOf(userData: unknown): SocketKeys | undefined {
  const keys = (userData as { keys?: SocketKeys } | undefined)?.keys;
  return typeof keys?.socket === 'string' ? keys : undefined;
}

/** A WebSocket on a thread, as the channels see it. */
export class StandInSocket {
  readonly topics = new Set<string>();
  closed = false;

  constructor(private readonly thread: ThreadSide, readonly id: number, private readonly userData: unknown) {}

  getUserData(): unknown { return this.userData; }

  send(message: string | Uint8Array, isBinary = false): number {
    if (this.closed) return 0;
    this.thread.toSocket([Down.Send, this.id, message, isBinary]);
    return 1;
  }

  subscribe(topic: string): boolean {
    if (this.closed || this.topics.has(topic)) return false;
    this.topics.add(topic);
    this.thread.follow(topic, 1);
    this.thread.toSocket([Down.Subscribe, this.id, topic]);
    return true;
  }

  unsubscribe(topic: string): boolean {
    if (!this.topics.delete(topic)) return false;
    this.thread.follow(topic, -1);
    this.thread.toSocket([Down.Unsubscribe, this.id, topic]);
    return true;
  }

  isSubscribed(topic: string): boolean { return this.topics.has(topic); }

  /** As uWS's: the close handler runs at once, and nothing the client sent after is delivered. */
  end(code = 1000, reason = ''): void {
    if (this.closed) return;
    this.thread.toSocket([Down.End, this.id, code, reason]);
    this.thread.closed(this.id, code);
  }

  close(): void {
    if (this.closed) return;
    this.thread.toSocket([Down.Close, this.id]);
    this.thread.closed(this.id, 1006);
  }

  cork(write: () => void): this {
    write();
    return this;
  }

  getBufferedAmount(): number { return 0; }

  /** The channel set the socket's account (KeyedSocket): the thread charges its pings to it too. */
  keysChanged(): void {
    const account = keysOf(this.userData)?.account;
    if (!this.closed && account !== undefined) this.thread.toSocket([Down.Keys, this.id, account]);
  }

  /** The thread's socket closed: its subscriptions end here too. */
  forget(): void {
    this.closed = true;
    for (const topic of this.topics) this.thread.follow(topic, -1);
    this.topics.clear();
  }
}

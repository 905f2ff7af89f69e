// Live WebSocket channels on the CLOB listener, as Polymarket's: /ws/market (books per token and
// their changes per market, public) and /ws/user (the caller's orders and trades, authenticated
// with API credentials). Fed by the read model (MarketDataListener): every message is published
// in the order the shards committed, after the read model applied it, so a reader that applies a
// `book` and then every `price_change` entry of its token holds the book GET /book serves.
//
// Topics: each token has one (`m:<token id>`: its last trades, tick size and resolution, and its
// book again after a worker restart), and each market one (`c:<condition id>`: its price changes,
// one message per committed answer holding both tokens' entries, as Polymarket sends them). A
// socket follows a market's topic while it follows either of its tokens, so it gets each price
// change once however many of the market's tokens it follows.
//
// Bounds: sockets per client address, tokens per socket, message size, and backpressure (a
// socket that falls more than MAX_BACKPRESSURE behind is closed, never buffered without limit);
// every upgrade, message, ping and subscription is charged to the caps of caps.ts, and a socket
// one of them refuses is sent an error and closed.
import { timingSafeEqual } from 'node:crypto';
import type { ApiKeyStore } from '../auth/keys.js';
import { clientText, relayedFor, type RelayTrust } from '../client_address.js';
import type { MarketRecord } from '../catalog/model.js';
import type { TokenBook } from '../market/book_routes.js';
import type { MarketBook } from '../market/book.js';
import type { AppliedAnswer, MarketDataListener } from '../market/market_data.js';
import type { TemplatedApp } from '../uws.js';
import type { WebSocket } from '@trufflesuite/uws-js-unofficial';
import { CLOSE_TOO_MANY_REQUESTS, type ChannelCaps, type Refusal, type SocketKeys } from './caps.js';
import {
  bookMessage, lastTradeMessage, orderMessage, priceChangeMessage, resolvedMessage, tickSizeMessage, tradeMessage,
} from './messages.js';
import type { LevelEvent } from '../../engine/events/event_objects.js';

/** Tokens one market-channel socket may follow. */
export const ASSETS_PER_SOCKET = 500;
/** Condition ids one user-channel socket may filter on. */
export const MARKETS_PER_SOCKET = 500;
/** Bytes a socket may have waiting to be sent before it is closed as too slow. */
export const MAX_BACKPRESSURE = 4 * 1024 * 1024;
/**
 * Events whose messages go out in one turn of the event loop. A fill comes with its maker's
 * ORDER_UPDATED, and a socket that follows both tokens and the taker's user channel gets ~1.1 KB
 * of messages for the pair: ~1.1 MB a turn, a quarter of MAX_BACKPRESSURE, which a reader that
 * keeps up drains between turns.
 */
const EVENTS_PER_TURN = 2_048;
/**
 * Events waiting to be published at most (the largest answer the engine can make, a taker that
 * fills every one of ORDER_SLOTS_DEFAULT orders, has about three events a fill).
 */
const QUEUED_EVENTS_MAX = 1 << 23;
/** Largest message a client may send. */
const MAX_PAYLOAD = 64 * 1024;
const IDLE_TIMEOUT_S = 120;
/** uWS's settings of both channels' sockets, on every front end (http/front_end/edge.ts). */
export const SOCKET_SETTINGS = {
  maxPayloadLength: MAX_PAYLOAD, idleTimeout: IDLE_TIMEOUT_S, maxBackpressure: MAX_BACKPRESSURE,
  closeOnBackpressureLimit: 1, sendPingsAutomatically: true,
} as const;
export const WS_PATHS = ['/ws/market', '/ws/user'] as const;

/** What a socket a cap refused is sent before it is closed with CLOSE_TOO_MANY_REQUESTS. */
export function refusalMessage(refusal: Refusal): string {
  return JSON.stringify({ error: 'Too Many Requests', cap: refusal.cap, retry_after: refusal.retryAfterS });
}

/**
 * A socket on another front-end thread (http/front_end/hub.ts): told when its keys change (its
 * account authenticated), so that thread charges the socket's ws-level pings under them itself.
 */
export interface KeyedSocket {
  keysChanged(): void;
}

/**
 * Where published messages go: the CLOB listener's app, or with several front ends every thread's
 * subscribers of the topic (http/front_end/hub.ts).
 */
export interface Publisher {
  publish(topic: string, message: string): unknown;
  numSubscribers(topic: string): number;
}

type Channel = 'market' | 'user';

interface SocketData {
  readonly channel: Channel;
  readonly ip: string;
  /** The keys its operations are charged under (its account's is set when it authenticates). */
  readonly keys: SocketKeys;
  /** The tokens it follows, each with its market's condition id. */
  readonly assets: Map<string, string>;
  /** The markets it follows (their `c:` topics), with how many of each one's tokens it follows. */
  readonly markets: Map<string, number>;
  user: { readonly address: string; readonly apiKey: string; readonly markets: ReadonlySet<string> } | undefined;
  /** A send found the socket over MAX_BACKPRESSURE: uWS drops the message and closes it. */
  slow: boolean;
}

/** uWS's send result for a message dropped because the socket is over its backpressure cap. */
const DROPPED = 2;

export interface ChannelDeps {
  readonly tokenBook: (tokenId: string) => TokenBook | undefined;
  /** The catalog market of a condition id. */
  readonly market: (conditionId: string) => MarketRecord | undefined;
  /** The read model's book of engine market `index` on `shard`. */
  readonly bookAt: (shard: number, index: number) => MarketBook | undefined;
  readonly keys: ApiKeyStore;
  /** Open sockets one client address may hold (WS_SOCKETS_PER_IP). */
  readonly socketsPerIp: number;
  /** Set when the compatibility relay fronts the CLOB listener: a relayed upgrade's address is the relay's client. */
  readonly relay?: RelayTrust;
  /** The caps every upgrade, message, ping and subscription is charged to. */
  readonly caps: ChannelCaps;
}

const topicOf = (tokenId: string): string => `m:${tokenId}`;
const marketTopicOf = (conditionId: string): string => `c:${conditionId}`;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameText(given: unknown, expected: string | Buffer): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = typeof expected === 'string' ? Buffer.from(expected) : expected;
  return a.length === b.length && timingSafeEqual(a, b);
}

export class LiveChannels implements MarketDataListener {
  private app: Publisher | undefined = undefined;
  private readonly sockets = new Set<WebSocket<SocketData>>();
  private readonly perIp = new Map<string, number>();
  /** Authenticated user-channel sockets by address. */
  private readonly users = new Map<string, Set<WebSocket<SocketData>>>();
  /** Tick and resolution each book last announced, to tell what changed. */
  private readonly announced = new Map<MarketBook, { tickUnits: number; resolved: boolean }>();
  /** Answers whose messages are still going out (see applied), oldest first; `from`: the next event. */
  private readonly queue: { readonly answer: AppliedAnswer; from: number }[] = [];
  private queuedEvents = 0;
  /** Times the queue passed QUEUED_EVENTS_MAX and every socket was closed. */
  overflows = 0;

  /** Sockets closed with 1006 (no close frame: dropped connections, readers cut off for backpressure). */
  closedAbnormally = 0;
  /**
   * Sockets a send of ours found over their backpressure cap, which uWS then closes (1006). A
   * reader cut off by a published message is seen only as closedAbnormally: uWS v20.30 tells
   * nothing per socket about a publish.
   */
  slowReaders = 0;

  constructor(private readonly deps: ChannelDeps) {}

  connections(): number {
    return this.sockets.size;
  }

  /**
   * Serves both channels on `app` (the main thread's, and with several front ends the one that
   * stands for the others' sockets: http/front_end/hub.ts), publishing through `publisher`.
   */
  mount(app: Pick<TemplatedApp, 'ws'>, publisher: Publisher): void {
    this.app = publisher;
    for (const channel of ['market', 'user'] as const) {
      app.ws<SocketData>(`/ws/${channel}`, {
        ...SOCKET_SETTINGS,
        upgrade: (res, req, context) => {
          const { relay } = this.deps;
          const ip = clientText(res, relayedFor(req, relay), relay);
          const refusal = this.deps.caps.upgrade(ip);
          if (refusal !== undefined) {
            res.writeStatus('429 Too Many Requests').writeHeader('retry-after', String(refusal.retryAfterS)).end('{"error":"Too Many Requests"}');
            return;
          }
          if ((this.perIp.get(ip) ?? 0) >= this.deps.socketsPerIp) {
            res.writeStatus('429 Too Many Requests').end(`{"error":"at most ${this.deps.socketsPerIp} sockets per address"}`);
            return;
          }
          res.upgrade<SocketData>(
            { channel, ip, keys: this.deps.caps.keysOf(ip), assets: new Map(), markets: new Map(), user: undefined, slow: false },
            req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context,
          );
        },
        open: (ws) => {
          this.sockets.add(ws);
          const { ip } = ws.getUserData();
          this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
        },
        message: (ws, message) => this.receive(ws, Buffer.from(message).toString('utf8')),
        // uWS has answered a ws-level ping by itself already; it is charged as a text PING is.
        ping: (ws) => {
          const refusal = this.deps.caps.message(ws.getUserData().keys, true);
          if (refusal !== undefined) this.refuse(ws, refusal);
        },
        close: (ws, code) => {
          if (code === 1006) this.closedAbnormally++;
          this.forget(ws);
        },
      });
    }
  }

  /** Closes every socket (server stop). */
  close(): void {
    for (const ws of [...this.sockets]) ws.end(1001, 'server stopping');
  }

  /**
   * Publishes an answer's messages. One of at most EVENTS_PER_TURN events, with nothing queued
   * before it, goes out at once. A longer one (a taker that filled 100 000 orders: four messages
   * a fill) goes out EVENTS_PER_TURN events a turn of the event loop, so each socket drains
   * between turns instead of passing its backpressure cap in one synchronous burst and being
   * closed; the answers after it wait their turn, so every socket sees the same order.
   */
  applied(answer: AppliedAnswer): void {
    if (this.app === undefined) return;
    if (this.queue.length === 0 && answer.events.length <= EVENTS_PER_TURN) {
      this.publish(answer, 0, answer.events.length);
      return;
    }
    if (this.queuedEvents + answer.events.length > QUEUED_EVENTS_MAX) {
      this.overflow();
      return;
    }
    this.queue.push({ answer, from: 0 });
    this.queuedEvents += answer.events.length;
    if (this.queue.length === 1) setImmediate(() => this.drain());
  }

  /** Publishes up to EVENTS_PER_TURN queued events, in order, and comes back next turn for the rest. */
  private drain(): void {
    let budget = EVENTS_PER_TURN;
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      const to = Math.min(head.answer.events.length, head.from + budget);
      this.publish(head.answer, head.from, to);
      budget -= to - head.from;
      this.queuedEvents -= to - head.from;
      head.from = to;
      if (to < head.answer.events.length) break;
      this.queue.shift();
      if (budget === 0) break;
    }
    if (this.queue.length > 0) setImmediate(() => this.drain());
  }

  /**
   * More events wait than QUEUED_EVENTS_MAX: rather than hold more, every socket is closed (1013,
   * try again later) and what waited is dropped; a client that reconnects gets each book whole.
   */
  private overflow(): void {
    this.overflows++;
    this.queue.length = 0;
    this.queuedEvents = 0;
    for (const ws of [...this.sockets]) ws.end(1013, 'server overloaded: subscribe again');
  }

  /** The messages of events [from, to) of an answer (its market states with the first part). */
  private publish(answer: AppliedAnswer, from: number, to: number): void {
    const app = this.app!;
    // With no socket open there is no subscriber: the per-token topic checks of levels and trades
    // are skipped, but each book's announced state is kept current for whoever subscribes later
    // (and `users` is empty then too: a user channel lives as long as its socket).
    if (this.sockets.size > 0) {
      this.publishLevels(app, answer, from, to);
      this.publishFills(app, answer, from, to);
    }
    if (from === 0) for (const book of answer.states) this.publishState(app, book, answer.appliedMs);
    if (this.users.size > 0) {
      for (let index = from; index < to; index++) {
        const event = answer.events[index]!;
        if (event.kind !== 'ORDER_ACCEPTED' && event.kind !== 'ORDER_UPDATED' && event.kind !== 'ORDER_CANCELLED') continue;
        const book = this.deps.bookAt(answer.shard, event.market);
        const market = book === undefined ? undefined : this.deps.market(book.conditionId);
        if (market !== undefined) this.toUser(event.account, market, (apiKey) => orderMessage(event, market, apiKey, answer.timeMs));
      }
    }
  }

  /** Each fill to its tokens' market channels, and to the taker's and the maker's user channels. */
  private publishFills(app: Publisher, answer: AppliedAnswer, from: number, to: number): void {
    for (let index = from; index < to; index++) {
      const event = answer.events[index]!;
      if (event.kind !== 'FILL') continue;
      const book = this.deps.bookAt(answer.shard, event.market);
      if (book === undefined) continue;
      const market = this.deps.market(book.conditionId);
      if (market === undefined) continue;
      this.publishTrade(app, book, market, event.takerOutcome, event.takerPriceUnits, event.takerSide, event.sizeMicros, answer.appliedMs);
      if (event.makerOutcome !== event.takerOutcome) {
        this.publishTrade(app, book, market, event.makerOutcome, event.makerPriceUnits, 1 - event.takerSide, event.sizeMicros, answer.appliedMs);
      }
      this.toUser(event.takerAccount, market, (apiKey) => tradeMessage(answer.shard, event, market, apiKey, answer.timeMs));
      if (event.makerAccount !== event.takerAccount) {
        this.toUser(event.makerAccount, market, (apiKey) => tradeMessage(answer.shard, event, market, apiKey, answer.timeMs));
      }
    }
  }

  /** Books reloaded after a shard restart: their followers get each token's whole book again. */
  reloaded(books: readonly MarketBook[]): void {
    const app = this.app;
    if (app === undefined) return;
    for (const book of books) {
      for (const tokenId of this.deps.market(book.conditionId)?.tokenIds ?? []) {
        const topic = topicOf(tokenId);
        const token = this.deps.tokenBook(tokenId);
        if (token !== undefined && app.numSubscribers(topic) > 0) app.publish(topic, bookMessage(token, tokenId));
      }
    }
  }

  private publishLevels(app: Publisher, answer: AppliedAnswer, from: number, to: number): void {
    let byBook: Map<MarketBook, LevelEvent[]> | undefined;
    for (let index = from; index < to; index++) {
      const event = answer.events[index]!;
      if (event.kind !== 'LEVEL') continue;
      const book = this.deps.bookAt(answer.shard, event.market);
      if (book === undefined) continue;
      byBook ??= new Map();
      const levels = byBook.get(book);
      if (levels === undefined) byBook.set(book, [event]);
      else levels.push(event);
    }
    if (byBook === undefined) return;
    for (const [book, levels] of byBook) {
      const topic = marketTopicOf(book.conditionId);
      if (app.numSubscribers(topic) === 0) continue;
      const market = this.deps.market(book.conditionId);
      if (market === undefined) continue;
      const tokens: { token: TokenBook; tokenId: string }[] = [];
      for (const tokenId of market.tokenIds) {
        const token = this.deps.tokenBook(tokenId);
        if (token !== undefined) tokens.push({ token, tokenId });
      }
      app.publish(topic, priceChangeMessage(book.conditionId, tokens, levels, answer.appliedMs));
    }
  }

  private publishTrade(
    app: Publisher, book: MarketBook, market: MarketRecord, outcome: number, priceUnits: number, side: number, sizeMicros: number, timeMs: number,
  ): void {
    const tokenId = market.tokenIds[outcome];
    if (tokenId === undefined) return;
    const topic = topicOf(tokenId);
    if (app.numSubscribers(topic) > 0) app.publish(topic, lastTradeMessage(book, tokenId, priceUnits, side, sizeMicros, timeMs));
  }

  private publishState(app: Publisher, book: MarketBook, timeMs: number): void {
    const before = this.announced.get(book);
    this.announced.set(book, { tickUnits: book.tickUnits, resolved: book.resolved });
    if (before === undefined) return;
    const market = this.deps.market(book.conditionId);
    if (market === undefined) return;
    for (const tokenId of market.tokenIds) {
      const topic = topicOf(tokenId);
      if (app.numSubscribers(topic) === 0) continue;
      if (before.tickUnits !== book.tickUnits) app.publish(topic, tickSizeMessage(book, tokenId, before.tickUnits, timeMs));
      if (!before.resolved && book.resolved) app.publish(topic, resolvedMessage(book, market, tokenId, timeMs));
    }
  }

  /** Sends one message; a socket found over its backpressure cap is counted once as a slow reader. */
  private send(ws: WebSocket<SocketData>, message: string): void {
    if (ws.send(message) === DROPPED) this.dropped(ws);
  }

  /**
   * A send found the socket over its backpressure cap (uWS drops the message and closes it): on
   * this thread, or on the front-end thread that holds the socket (http/front_end/hub.ts).
   */
  dropped(ws: WebSocket<unknown>): void {
    const data = (ws as WebSocket<SocketData>).getUserData();
    if (data.slow) return;
    data.slow = true;
    this.slowReaders++;
  }

  /** Sends to every user-channel socket of `address` that follows `market` (or every market). */
  private toUser(address: string, market: MarketRecord, message: (apiKey: string) => string | undefined): void {
    const sockets = this.users.get(address);
    if (sockets === undefined) return;
    for (const ws of sockets) {
      const user = ws.getUserData().user!;
      if (user.markets.size > 0 && !user.markets.has(market.conditionId)) continue;
      const text = message(user.apiKey);
      if (text !== undefined) this.send(ws, text);
    }
  }

  /**
   * A cap refused one of the socket's operations: nothing of it was done; the socket is told which
   * cap and when its tokens are back, and closed (uWS calls the close handler at once, so nothing
   * more is read from it).
   */
  private refuse(ws: WebSocket<SocketData>, refusal: Refusal): void {
    this.send(ws, refusalMessage(refusal));
    ws.end(CLOSE_TOO_MANY_REQUESTS, `Too Many Requests: ${refusal.cap}`);
  }

  private receive(ws: WebSocket<SocketData>, text: string): void {
    const refusal = this.deps.caps.message(ws.getUserData().keys, text === 'PING');
    if (refusal !== undefined) {
      this.refuse(ws, refusal);
      return;
    }
    if (text === 'PING') {
      this.send(ws, 'PONG');
      return;
    }
    let request: unknown;
    try {
      request = JSON.parse(text);
    } catch {
      this.send(ws, '{"error":"messages must be JSON or PING"}');
      return;
    }
    if (!isObject(request)) {
      this.send(ws, '{"error":"messages must be JSON objects"}');
      return;
    }
    if (ws.getUserData().channel === 'market') this.receiveMarket(ws, request);
    else this.receiveUser(ws, request);
  }

  /** `{"assets_ids": [...], "type": "market"}`, then `{"operation": "subscribe"|"unsubscribe", "assets_ids": [...]}`. */
  private receiveMarket(ws: WebSocket<SocketData>, request: Record<string, unknown>): void {
    const ids = request['assets_ids'] ?? request['asset_ids'];
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
      this.send(ws, '{"error":"assets_ids must be an array of token ids"}');
      return;
    }
    const operation = request['operation'] ?? 'subscribe';
    const data = ws.getUserData();
    const refusal = this.deps.caps.subscription(data.keys, ids.length);
    if (refusal !== undefined) {
      this.refuse(ws, refusal);
      return;
    }
    if (operation === 'unsubscribe') {
      for (const id of ids as string[]) {
        const conditionId = data.assets.get(id);
        if (conditionId === undefined) continue;
        data.assets.delete(id);
        ws.unsubscribe(topicOf(id));
        const following = (data.markets.get(conditionId) ?? 1) - 1;
        if (following > 0) {
          data.markets.set(conditionId, following);
        } else {
          data.markets.delete(conditionId);
          ws.unsubscribe(marketTopicOf(conditionId));
        }
      }
      return;
    }
    if (operation !== 'subscribe') {
      this.send(ws, '{"error":"operation must be subscribe or unsubscribe"}');
      return;
    }
    this.subscribe(ws, data, ids as string[]);
  }

  /**
   * Follows the new known tokens of `ids`, up to ASSETS_PER_SOCKET, and sends each one's `book`.
   * A quarter KiB a book is charged before any is made (so a client over its caps, or all clients
   * over theirs, costs no book-making), then the rest of their KiB once they are: a refused
   * subscription follows nothing. Making, charging, following and sending happen in one turn, so
   * no change falls between a token's book and its topic.
   */
  private subscribe(ws: WebSocket<SocketData>, data: SocketData, ids: readonly string[]): void {
    const unknown: string[] = [];
    const tokens: { id: string; token: TokenBook }[] = [];
    const adding = new Set<string>();
    let full = false;
    for (const id of ids) {
      if (data.assets.has(id) || adding.has(id)) continue;
      const token = this.deps.tokenBook(id);
      if (token === undefined) {
        unknown.push(id);
        continue;
      }
      if (data.assets.size + tokens.length >= ASSETS_PER_SOCKET) {
        full = true;
        break;
      }
      tokens.push({ id, token });
      adding.add(id);
    }
    const upFrontKiB = Math.ceil(tokens.length / 4);
    const refused = this.deps.caps.snapshot(data.keys, upFrontKiB * 1024);
    if (refused !== undefined) {
      this.refuse(ws, refused);
      return;
    }
    let bytes = 0;
    const books = tokens.map(({ id, token }) => {
      const message = bookMessage(token, id);
      bytes += Buffer.byteLength(message);
      return { id, token, message };
    });
    const refusal = this.deps.caps.snapshot(data.keys, Math.max(0, Math.ceil(bytes / 1024) - upFrontKiB) * 1024);
    if (refusal !== undefined) {
      this.refuse(ws, refusal);
      return;
    }
    ws.cork(() => {
      for (const { id, token, message } of books) {
        if (!this.announced.has(token.book)) this.announced.set(token.book, { tickUnits: token.book.tickUnits, resolved: token.book.resolved });
        const conditionId = token.book.conditionId;
        data.assets.set(id, conditionId);
        ws.subscribe(topicOf(id));
        const following = data.markets.get(conditionId) ?? 0;
        data.markets.set(conditionId, following + 1);
        if (following === 0) ws.subscribe(marketTopicOf(conditionId));
        this.send(ws, message);
      }
      if (full) this.send(ws, `{"error":"at most ${ASSETS_PER_SOCKET} assets per socket"}`);
      if (unknown.length > 0) this.send(ws, JSON.stringify({ error: 'unknown assets_ids', assets_ids: unknown.slice(0, 10) }));
    });
  }

  /** `{"auth": {"apiKey", "secret", "passphrase"}, "markets": [...], "type": "user"}`; wrong credentials close the socket. */
  private receiveUser(ws: WebSocket<SocketData>, request: Record<string, unknown>): void {
    const data = ws.getUserData();
    if (data.user !== undefined) {
      this.send(ws, '{"error":"already authenticated"}');
      return;
    }
    const auth = request['auth'];
    const record = isObject(auth) && typeof auth['apiKey'] === 'string' ? this.deps.keys.lookup(auth['apiKey']) : undefined;
    const secret = isObject(auth) && typeof auth['secret'] === 'string' ? Buffer.from(auth['secret'], 'base64url') : undefined;
    if (record === undefined || secret === undefined || !isObject(auth) || !sameText(auth['passphrase'], record.passphrase)
      || secret.length !== record.secretBytes.length || !timingSafeEqual(secret, record.secretBytes)) {
      this.send(ws, '{"error":"Unauthorized/Invalid api key"}');
      ws.end(1008, 'Unauthorized/Invalid api key');
      return;
    }
    const markets = request['markets'] ?? [];
    if (!Array.isArray(markets) || !markets.every((id) => typeof id === 'string') || markets.length > MARKETS_PER_SOCKET) {
      this.send(ws, `{"error":"markets must be an array of at most ${MARKETS_PER_SOCKET} condition ids"}`);
      return;
    }
    // Charged once the credentials prove the account: to the socket, its address and the account.
    data.keys.account = record.address;
    (ws as Partial<KeyedSocket>).keysChanged?.();
    const refusal = this.deps.caps.subscription(data.keys, markets.length);
    if (refusal !== undefined) {
      this.refuse(ws, refusal);
      return;
    }
    data.user = { address: record.address, apiKey: record.apiKey, markets: new Set((markets as string[]).map((id) => id.toLowerCase())) };
    const sockets = this.users.get(record.address) ?? new Set();
    sockets.add(ws);
    this.users.set(record.address, sockets);
  }

  private forget(ws: WebSocket<SocketData>): void {
    this.sockets.delete(ws);
    const { ip, user } = ws.getUserData();
    const count = (this.perIp.get(ip) ?? 1) - 1;
    if (count === 0) this.perIp.delete(ip);
    else this.perIp.set(ip, count);
    if (user !== undefined) {
      const sockets = this.users.get(user.address);
      sockets?.delete(ws);
      if (sockets?.size === 0) this.users.delete(user.address);
    }
  }
}

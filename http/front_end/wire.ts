// The messages between a front-end thread and the main thread (link.ts carries them): arrays in
// codec.ts's encoding, the kind first. Ids are the front end's own: a request's, or a WebSocket's (its
// upgrade request's id, kept for the socket's life).
//
// Front end → main thread:
//   REQUEST  id, listener, method, url, query, headers (name, value, name, value …), peer address bytes, peer address text, body,
//            prepared orders (POST /order and /orders only: order id, exchange ('1', '0'; '' none; BUSY: the
//            thread's pool refused it), signer, … per order; edge.ts prepare),
//            the caps the thread charged already (router.ts CHARGED)
//   PLACE    id, request id, api key, secret, passphrase, token id, neg risk, condition id, outcome, tick, min size,
//            account, order id, side, order type, price, size, expiration, post only
//                                    a POST /order the thread checked in full (authenticated, read, signature
//                                    recovered, caps charged): placed if its key and market are still those
//   CANCEL   id, request id, api key, secret, passphrase, order id
//                                    a DELETE /order the thread checked in full: cancelled if its key is still that
//   ABORTED  id                      the client went away before its answer
//   UPGRADE  id, url, query, headers, peer address bytes, peer address text     (the CLOB listener's /ws/…)
//   WS_MESSAGE id, data, isBinary
//   WS_CLOSED id, code
//   DROPPED  id                      a SEND found the socket over its backpressure cap (uWS closes it)
//   SERVED   route metrics id, seconds, seconds …   kept reads the thread answered itself (200s, and how long each took)
//   FLUSHED  token                   every SERVED before it is sent (an answer to FLUSH)
// Main thread → front end:
//   ANSWER   id, status line ('' for 200 OK), headers, body, close connection
//            [, book versions (cell,version,cell,version…), per-client cap ids, shared cap ids, route metrics id]
//            a read the thread may keep and answer again itself (a POST: for the same body) while every
//            cell holds its version
//   UPGRADED id, socket key, address key   the channel took the socket: the front end upgrades its
//                                    connection, and charges its ws-level pings to those buckets
//   KEYS     id, account             the socket's account authenticated: its pings are charged to it too
//   TOKEN    token id, neg risk, condition id, outcome, tick, min size
//                                    a token's market: the thread prepares, and checks, its orders from now on
//   API_KEY  api key, address, secret, passphrase   a key that authenticated a placement: the thread authenticates
//                                    its next ones itself (the main thread confirms the key with each)
//   FALLBACK id                      a PLACE or CANCEL whose key or market changed: hand the whole request over
//   FORGET   what (FORGET_KEY, FORGET_TOKEN), api key or token id   no longer the main thread's: forget it
//   SEND     id, data, isBinary
//   SUBSCRIBE id, topic / UNSUBSCRIBE id, topic
//   END      id, code, reason / CLOSE id
//   PUBLISH  topic, data, isBinary   to every socket of the front end that follows the topic
//   FLUSH    token                   send what SERVED holds now, then FLUSHED (a scrape of /metrics)
import { SIGNATURES_BUSY, type PreparedOrder } from '../trading/order_request.js';

export const Up = { Request: 1, Aborted: 2, Upgrade: 3, WsMessage: 4, Place: 5, WsClosed: 6, Dropped: 7, Served: 8, Flushed: 9, Cancel: 23 } as const;

export const Down = { Answer: 10, Upgraded: 11, Send: 12, Subscribe: 13, Unsubscribe: 14, End: 15, Close: 16, Publish: 17, Keys: 18, Flush: 19, Token: 20, ApiKey: 21, Fallback: 22, Forget: 24 } as const;

/** A prepared order's exchange when the thread's signature pool refused it (full). */
const BUSY = 'b';

/** One order's preparation as REQUEST carries it: its id, its exchange ('1', '0'; '' none; BUSY) and its signer. */
export function preparedEntry(prepared: PreparedOrder | typeof SIGNATURES_BUSY | undefined): string[] {
  if (prepared === undefined) return ['', '', ''];
  if (prepared === SIGNATURES_BUSY) return ['', BUSY, ''];
  return [prepared.orderId, prepared.negRisk ? '1' : '0', prepared.signer];
}

/** A REQUEST's preparations, per order of its body (preparedEntry's inverse). */
export function preparedEntries(flat: readonly string[]): (PreparedOrder | typeof SIGNATURES_BUSY | undefined)[] {
  const orders: (PreparedOrder | typeof SIGNATURES_BUSY | undefined)[] = [];
  for (let at = 0; at + 2 < flat.length; at += 3) {
    const exchange = flat[at + 1]!;
    orders.push(exchange === '' ? undefined : exchange === BUSY ? SIGNATURES_BUSY : { orderId: flat[at]!, negRisk: exchange === '1', signer: flat[at + 2]! });
  }
  return orders;
}

/** What a FORGET names. */
export const FORGET_KEY = 0;
export const FORGET_TOKEN = 1;

/** The listeners in the order a REQUEST names them. */
export const LISTENERS = ['clob', 'catalog', 'data'] as const;
export type ListenerName = (typeof LISTENERS)[number];

/** The routes a thread checks in full itself: POST /order ('place') and DELETE /order ('cancel'). */
export type CheckedRoute = 'place' | 'cancel';

/** What a thread needs to check them: the L2 window (AUTH_WINDOW_S) and each route's caps (router.ts capIdsOf). */
export interface CheckingSetup {
  readonly authWindowS: number;
  readonly routes: Readonly<Record<CheckedRoute, { readonly perClientCaps: readonly number[]; readonly sharedCaps: readonly number[] }>>;
}

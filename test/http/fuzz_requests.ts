// Hostile requests for the fuzz test (fuzz.test.ts), drawn from a seeded PRNG: every route of
// the three listeners, with malformed and truncated JSON, wrong types, huge and odd numbers,
// prices off the tick, unknown fields, oversize bodies and headers, invalid UTF-8, duplicated
// parameters, path traversal, injection-looking strings, bad L1/L2 credentials, replayed and
// foreign signed orders, cross-account cancels, garbage cursors, bad admin tokens, unknown routes
// and wrong methods. Each request carries what the contract allows as its answer.
//
// Safety rule: nothing here may change the exchange's state. Every request that reaches a
// state-changing handler with valid credentials has a defect the server must refuse (a signed
// field that cannot be fixed, a body that does not parse, another account's order id, ...); if
// the server wrongly accepted one, the test's state comparison would show it.
import { createHmac } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { clobAuthDigest, orderDigest, type OrderStruct } from '../../http/auth/eip712.js';
import { Prng } from '../engine/prng.js';
import { CHAIN_ID, orderDomain, ZERO_ADDRESS, type PlainMarket, type Trader } from './orders/trader.js';

export type ListenerName = 'clob' | 'catalog' | 'data';
export type Header = readonly [string, string];

/** What the contract allows as the answer to one request. */
export interface Expect {
  /** Statuses the request may be answered with. */
  readonly statuses: readonly number[];
  /** When set, a 4xx answer's `error` must equal it (string) or match it (RegExp). */
  readonly error?: string | RegExp;
  /** Checks a 200 answer's parsed body; returns what is wrong, or undefined. */
  readonly ok?: (body: unknown) => string | undefined;
  /**
   * The connection may be reset instead: the server answers a body over the cap at once and
   * closes while the client is still sending, and the reset can destroy the answer in flight.
   */
  readonly mayReset?: boolean;
}

export interface HostileRequest {
  /** The request class, for failure reports. */
  readonly kind: string;
  readonly listener: ListenerName;
  readonly method: string;
  /** The request target as bytes (one char per byte, latin1): raw high bytes and bad escapes stay as they are. */
  readonly target: string;
  /** Header values are latin1 too (UTF-8 text is converted with `utf8Header`). */
  readonly headers: readonly Header[];
  readonly body?: Buffer;
  /** Send the body with chunked transfer encoding (no declared length). */
  readonly chunked?: boolean;
  /** A Content-Length to declare instead of the body's (the body is then not sent). */
  readonly declaredLength?: string;
  readonly expect: Expect;
}

/** A placement of the legitimate session, kept to be replayed. */
export interface LegitPlacement {
  readonly trader: number;
  /** The exact body sent. */
  readonly body: string;
  /** The exact L2 headers sent. */
  readonly headers: Readonly<Record<string, string>>;
  readonly orderId: string;
}

/** A signed order that must never be accepted from the sender it is given to. */
export interface ArmedOrder {
  readonly label: string;
  readonly signer: number;
  readonly order: Readonly<Record<string, unknown>>;
  readonly orderType: string;
  readonly postOnly?: unknown;
  /** A fully valid order of `signer`: it must only ever be sent with another trader's credentials. */
  readonly foreign: boolean;
}

export interface Catalog {
  readonly eventIds: readonly string[];
  readonly eventSlugs: readonly string[];
  readonly marketIds: readonly string[];
  readonly marketSlugs: readonly string[];
  readonly conditionIds: readonly string[];
  readonly tokens: readonly string[];
  readonly tagSlugs: readonly string[];
  readonly seriesSlugs: readonly string[];
}

export interface Route {
  readonly listener: ListenerName;
  readonly method: string;
  /** With `:name` segments. */
  readonly path: string;
}

export interface World {
  readonly traders: readonly Trader[];
  readonly markets: readonly PlainMarket[];
  readonly catalog: Catalog;
  readonly legit: readonly LegitPlacement[];
  readonly arsenal: readonly ArmedOrder[];
  readonly adminToken: string;
  /** Routes the served OpenAPI documents list that this module has no specific generator for. */
  readonly extraRoutes: readonly Route[];
  readonly nowS: () => number;
}

// ---------------------------------------------------------------------------------------------
// The routes this module knows, by listener (a path's methods give the 405 answers).

export const KNOWN_ROUTES: readonly Route[] = [
  ...['/', '/health', '/ready', '/time', '/metrics', '/openapi.json', '/book', '/price', '/midpoint', '/spread', '/last-trade-price',
    '/tick-size', '/neg-risk', '/prices-history', '/markets', '/markets/:condition_id', '/clob-markets/:condition_id', '/sampling-markets',
    '/sampling-simplified-markets', '/trades', '/auth/derive-api-key', '/auth/api-keys', '/balance-allowance', '/data/order/:id',
    '/data/orders', '/data/trades', '/admin/status'].map((path) => ({ listener: 'clob' as const, method: 'GET', path })),
  ...['/books', '/prices', '/batch-prices-history', '/order', '/orders', '/v1/heartbeats', '/heartbeats', '/auth/api-key', '/admin/events',
    '/admin/deposits', '/admin/markets/:condition_id/pause', '/admin/markets/:condition_id/resume', '/admin/markets/:condition_id/resolve',
  ].map((path) => ({ listener: 'clob' as const, method: 'POST', path })),
  ...['/order', '/orders', '/cancel-all', '/cancel-market-orders', '/auth/api-key'].map((path) => ({ listener: 'clob' as const, method: 'DELETE', path })),
  { listener: 'clob', method: 'PUT', path: '/admin/profiles/:address' },
  ...['/ws/market', '/ws/user'].map((path) => ({ listener: 'clob' as const, method: 'GET', path })),
  ...['/events', '/events/:id', '/events/slug/:slug', '/markets', '/markets/:id', '/markets/slug/:slug', '/series', '/tags', '/public-search',
    '/openapi.json'].map((path) => ({ listener: 'catalog' as const, method: 'GET', path })),
  ...['/trades', '/activity', '/openapi.json'].map((path) => ({ listener: 'data' as const, method: 'GET', path })),
];

/** Methods of a concrete path on a listener, matched as uWS matches patterns (a `:name` is one non-empty segment). */
export function methodsOf(routes: readonly Route[], listener: ListenerName, path: string): string[] {
  const segments = path.split('/');
  const methods = new Set<string>();
  for (const entry of routes) {
    if (entry.listener !== listener) continue;
    const pattern = entry.path.split('/');
    if (pattern.length !== segments.length) continue;
    if (pattern.every((part, index) => (part.startsWith(':') ? segments[index] !== '' : part === segments[index]))) methods.add(entry.method);
  }
  return [...methods];
}

// ---------------------------------------------------------------------------------------------
// Vocabulary.

const NASTY: readonly string[] = [
  '', ' ', '0', '-0', '-1', '+1', '00', '01', '1.0', '1.5', '0.5', '-0.5', '1e3', '1e308', '-1e308', '1e309', '1e-308', '5e-324', '2e-7',
  '18446744073709551616', '18446744073709551615', '9007199254740993', '9007199254740991', '-9223372036854775808',
  '115792089237316195423570985008687907853269984665640564039457584007913129639936', '0x10', '0x', '0b1', '0o7', '1_000', '１２３', '٣',
  'NaN', 'nan', 'Infinity', '-Infinity', 'inf', 'null', 'undefined', 'true', 'false', 'TRUE', 'yes', 'on', '[]', '{}', '""',
  "' OR 1=1 --", '" OR ""="', "1; DROP TABLE markets;--", "admin'--", '1 UNION SELECT password FROM users', '{"$gt":""}', '{"$ne":null}',
  '[$ne]=1', '$where', 'this.constructor.constructor("return process")()', '__proto__', 'constructor', 'prototype', 'hasOwnProperty',
  '../../etc/passwd', '..\\..\\windows\\win.ini', '/etc/passwd', '....//....//etc/passwd', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '..%252f..%252f',
  '<script>alert(1)</script>', '${7*7}', '{{7*7}}', '#{7*7}', '%s%s%s%n', '%x%x', '\u0000', 'a\u0000b', '\r\nX-Injected: 1', '\t', '\u202e',
  'é', 'ÿ', '😀', '\u{10ffff}', '\ufffd', '\ufeff', 'MA==', 'LTE=', 'LTU=', 'YWJj', '%%%', 'MA', 'MA=', '!!!!', '====', 'LTE', 'MTAwMDAwMDAwMDA=',
  'BUY', 'SELL', 'buy', 'GTC', 'FOK', 'COLLATERAL', 'CONDITIONAL', '1h', 'max', '0x0000000000000000000000000000000000000000',
  '0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF', 'a'.repeat(101), 'b'.repeat(257), '9'.repeat(100), '9'.repeat(1000), 'x'.repeat(5000),
];

/** Values that JSON bodies may carry where a string or a number is expected. */
const NASTY_JSON: readonly string[] = [
  'null', 'true', 'false', '0', '-0', '-1', '1.5', '1e308', '-1e308', '1e309', '18446744073709551616', '9007199254740993',
  '123456789012345678901234567890', '0.1e-400', '[]', '{}', '[null]', '[[]]', '{"$gt":""}', '{"$ne":null}', '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"polluted":1}}}', '""', '"-0"', '"NaN"', '"Infinity"', '"1e308"', '"-5"', '"0.5"', '"1.5"', '" 1"', '"0x10"',
  '"\' OR 1=1 --"', '"../../etc/passwd"', '"%2e%2e%2f"', '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"', '"😀"', `"${'z'.repeat(3000)}"`,
];

const MALFORMED_JSON: readonly string[] = [
  '{', '[', '}', ']', '{"', '{"a"', '{"a":', '{"a":}', '{"a":1,}', '[1,]', '[1 2]', "{'a':1}", '{a:1}', 'NaN', 'undefined', 'Infinity',
  '-', '+1', '01', '.5', '1.', '0x1F', '"unterminated', '"bad escape \\x41"', '"\\u12"', 'tru', 'nul', '{"a":1}}', '[]]', '{"a":1} x',
  '\ufeff[]', '[1]\u0000', '/* c */ []', '// c\n[]', ' ', '\n', '\t\r\n', '{"a":"\u0001"}', '{"a":\n1', '{"order":{"salt":1', '[{"token_id":"1"',
];

const UNKNOWN_PARAM_NAMES: readonly string[] = [
  'foo', '__proto__', 'constructor', 'token_id[]', 'token_id[$gt]', 'limit[]', 'q[$ne]', 'a.b', '', '%', '%zz', '%ff', 'Limit', 'LIMIT',
  'next_cursor ', ' limit', 'callback', 'jsonp', 'format', '$where', "' OR 1=1 --", 'x'.repeat(300),
];

const ADMIN_BAD_AUTH: readonly (string | null)[] = [
  null, '', 'Bearer', 'Bearer ', 'Bearer wrong-token', 'Bearer test-admin-toke', 'Bearer test-admin-tokenX', 'test-admin-token',
  'Basic dGVzdDp0ZXN0', 'Bearer test-admin-tok\u00e9n', 'Bearer test-admin-tok\u00ffen', 'Bearer Bearer test-admin-token', 'Token test-admin-token', 'Bearer ' + 'a'.repeat(4000),
  "Bearer ' OR 1=1 --", 'Bearer {"$gt":""}', 'Bearer null', 'Bearer undefined', 'Bearer *', 'Bearer%20test-admin-token',
];

const UNKNOWN_PATHS: readonly string[] = [
  '/admin', '/admin/', '/admin/status/', '/etc/passwd', '/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/.env', '/.git/config',
  '/book/', '//book', '/BOOK', '/book;x', '/book%3Fx', '/time/x', '/order/1', '/data', '/data/order/', '/data/order//', '/v2/heartbeats',
  '/markets/', '/markets//x', '/api/v1/markets', '/wp-login.php', '/server-status', '/%00', '/%ff%fe', '/\u00ff\u00fe', '/a/b/c/d/e/f/g/h',
  '/admin/markets//pause', '/admin/markets/x/destroy', '/events/1/2', '/x'.repeat(200), '/index.html', '/favicon.ico', '/cgi-bin/test.cgi',
  '/ws', '/ws/', '/ws/market/x', '/ws/admin', '/*', '/%2a', '/metrics/x', '/openapi.yaml',
];

const EXTRA_HEADER_NAMES: readonly string[] = [
  'X-Forwarded-For', 'X-Real-IP', 'Forwarded', 'X-Original-URL', 'X-Rewrite-URL', 'X-HTTP-Method-Override', 'Origin', 'Referer',
  'Cookie', 'Accept', 'Accept-Encoding', 'Accept-Language', 'User-Agent', 'Content-Type', 'X-Custom', 'If-None-Match', 'Range', 'Expect',
  'Authorization', 'Poly-Address', 'Service-Api-Key', 'X-Admin', 'Upgrade', 'TE', 'Via', 'Max-Forwards',
];

// ---------------------------------------------------------------------------------------------
// Encoding helpers.

/** UTF-8 text as one char per byte, for a target or a header value. */
export function utf8Header(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** encodeURIComponent that also takes lone surrogates (as their UTF-8 replacement). */
function encode(text: string): string {
  return encodeURIComponent(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
}

/** Raw bytes allowed in a request line as they are: visible ASCII and high bytes; the rest percent-encoded. */
function rawTarget(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out += byte <= 0x20 || byte === 0x7f || byte === 0x23 ? `%${byte.toString(16).padStart(2, '0').toUpperCase()}` : String.fromCharCode(byte);
  }
  return out;
}

function jsonBody(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

function hex(prng: Prng, digits: number): string {
  let out = '';
  for (let index = 0; index < digits; index++) out += '0123456789abcdef'[prng.below(16)];
  return out;
}

function fakeOrderId(prng: Prng): string {
  return `0x${hex(prng, 64)}`;
}

function sigHmac(secret: string, timestamp: string, method: string, path: string, body: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'base64url')).update(timestamp).update(method).update(path).update(body).digest('hex');
}

// ---------------------------------------------------------------------------------------------
// Expectations.

const READ: Expect = { statuses: [200, 400, 404] };
const UNAUTHORIZED: Expect = { statuses: [401], error: 'Unauthorized/Invalid api key' };
const INVALID_L1: Expect = { statuses: [401], error: 'Invalid L1 Request headers' };
const INVALID_JSON: Expect = { statuses: [400], error: 'invalid JSON body' };
const NOT_FOUND: Expect = { statuses: [404], error: 'not found' };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A cancel answer that cancelled nothing. */
function cancelledNothing(ids: readonly string[] = []): (body: unknown) => string | undefined {
  return (body) => {
    if (!isObject(body) || !Array.isArray(body['canceled']) || !isObject(body['not_canceled'])) return 'not a cancel answer';
    if (body['canceled'].length > 0) return `cancelled ${JSON.stringify(body['canceled'])}`;
    for (const id of ids) if (typeof body['not_canceled'][id] !== 'string') return `no reason for ${id}`;
    return undefined;
  };
}

/** Every placement of a batch failed. */
function allFailed(count: number): (body: unknown) => string | undefined {
  return (body) => {
    if (!Array.isArray(body) || body.length !== count) return `expected ${count} placements`;
    for (const item of body) {
      if (!isObject(item) || item['success'] !== false || typeof item['errorMsg'] !== 'string' || item['errorMsg'] === '') return `a placement succeeded: ${JSON.stringify(item)}`;
    }
    return undefined;
  };
}

/** Every row's field equals `value`: an account read shows only the caller's data. */
function rowsOf(field: string, value: string): (body: unknown) => string | undefined {
  return (body) => {
    if (!isObject(body) || !Array.isArray(body['data'])) return 'not a paged envelope';
    for (const row of body['data']) if (!isObject(row) || String(row[field]).toLowerCase() !== value.toLowerCase()) return `a row of someone else: ${JSON.stringify(row).slice(0, 200)}`;
    return undefined;
  };
}

// ---------------------------------------------------------------------------------------------
// Signed orders.

const ZERO_BYTES32 = `0x${'00'.repeat(32)}`;

interface StructInput {
  readonly tokenId: string;
  readonly side: 0 | 1;
  readonly makerAmount: string;
  readonly takerAmount: string;
  readonly salt: string;
  readonly signatureType?: number;
  readonly maker?: string;
  readonly signer?: string;
}

function struct(owner: Trader, input: StructInput, timestampMs: number): OrderStruct {
  return {
    salt: input.salt, maker: input.maker ?? owner.address, signer: input.signer ?? owner.address, tokenId: input.tokenId,
    makerAmount: input.makerAmount, takerAmount: input.takerAmount, side: input.side, signatureType: input.signatureType ?? 0,
    timestamp: String(timestampMs), metadata: ZERO_BYTES32, builder: ZERO_BYTES32,
  };
}

/** The order object as POST /order carries it, signed by `key` (who may differ from the struct's signer). */
function signed(orderStruct: OrderStruct, key: Trader): Record<string, unknown> {
  const digest = orderDigest(orderDomain(), orderStruct);
  return { ...orderStruct, side: orderStruct.side === 0 ? 'BUY' : 'SELL', signature: key.signDigest(digest) };
}

/** A signature with s replaced by n − s and v flipped: the same signer, refused as high-s. */
export function highS(signature: string): string {
  const bytes = Buffer.from(signature.slice(2), 'hex');
  const s = BigInt(`0x${bytes.subarray(32, 64).toString('hex')}`);
  const flipped = secp256k1.Point.CURVE().n - s;
  bytes.write(flipped.toString(16).padStart(64, '0'), 32, 'hex');
  bytes[64] = bytes[64] === 27 ? 28 : 27;
  return `0x${bytes.toString('hex')}`;
}

/**
 * Signed orders with defects in their signed content (no unsigned field can repair them), plus
 * valid orders that are only ever sent by someone other than their signer.
 */
export function armOrders(traders: readonly Trader[], markets: readonly PlainMarket[], nowMs: number): ArmedOrder[] {
  const out: ArmedOrder[] = [];
  const shares = (n: number) => String(Math.round(n * 1_000_000));
  traders.forEach((trader, index) => {
    const other = traders[(index + 1) % traders.length]!;
    markets.forEach((market, marketIndex) => {
      const salt = (n: number) => String(900_000 + index * 10_000 + marketIndex * 100 + n);
      const token = marketIndex % 2 === 0 ? market.yes : market.no;
      const add = (label: string, input: StructInput, options: { key?: Trader; orderType?: string; postOnly?: unknown; foreign?: boolean; extra?: Record<string, unknown> } = {}) => {
        const order = { ...signed(struct(trader, input, nowMs), options.key ?? trader), ...options.extra };
        out.push({ label, signer: index, order, orderType: options.orderType ?? 'GTC', foreign: options.foreign ?? false, ...(options.postOnly === undefined ? {} : { postOnly: options.postOnly }) });
      };
      const buy = (price: number, size: number, n: number, extra: Partial<StructInput> = {}): StructInput => ({
        tokenId: token, side: 0, makerAmount: String(Math.round(price * size * 1_000_000)), takerAmount: shares(size), salt: salt(n), ...extra,
      });
      add('price off the tick', { ...buy(0.5, 10, 1), makerAmount: '5050000' });
      add('price off the 0.0001 grid', { ...buy(0.5, 10, 2), makerAmount: '5050500' });
      add('price 1.00', { ...buy(1, 10, 3), makerAmount: shares(10) });
      add('price above 1', { ...buy(1, 10, 4), makerAmount: shares(25) });
      add('price 0.0001', { ...buy(1, 100, 5), makerAmount: '10000' });
      add('price 0.9999', { ...buy(1, 100, 6), makerAmount: '99990000' });
      add('size below the minimum', buy(0.5, 1, 7));
      add('size not whole hundredths', { ...buy(0.4, 10, 8), takerAmount: '5005000', makerAmount: '2002000' });
      add('more collateral than deposited', buy(0.5, 100_000, 9));
      add('selling shares never held', { tokenId: token, side: 1, makerAmount: shares(100_000), takerAmount: shares(50_000), salt: salt(10) });
      add('size above the engine maximum', { ...buy(0.5, 1, 11), takerAmount: '20000000000000', makerAmount: '10000000000000' });
      add('maker amount 2^64', { ...buy(0.5, 1, 12), makerAmount: '18446744073709551616' });
      add('maker amount 2^256-1', { ...buy(0.5, 1, 13), makerAmount: (2n ** 256n - 1n).toString() });
      add('zero maker amount', { ...buy(0.5, 10, 14), makerAmount: '0' });
      add('zero taker amount', { ...buy(0.5, 10, 15), takerAmount: '0' });
      add('unknown token', { ...buy(0.5, 10, 16), tokenId: '123456789' });
      add('signature type 1', { ...buy(0.5, 100_000, 17), signatureType: 1 });
      add('signature type 255', { ...buy(0.5, 100_000, 18), signatureType: 255 });
      add('signed with another wallet\'s key', buy(0.3, 10, 19), { key: other });
      add('maker is not the signer', { ...buy(0.3, 10, 20), maker: other.address });
      add('GTD already expired', buy(0.5, 100_000, 21), { orderType: 'GTD', extra: { expiration: String(Math.floor(nowMs / 1000) - 3600) } });
      add('GTD expiration 2^64', buy(0.5, 100_000, 22), { orderType: 'GTD', extra: { expiration: '18446744073709551616' } });
      add('post-only FOK', buy(0.5, 100_000, 23), { orderType: 'FOK', postOnly: true });
      add('post-only as a string', buy(0.5, 100_000, 24), { postOnly: 'true' });
      add('conditionId of another market', buy(0.5, 100_000, 25), { extra: { conditionId: markets[(marketIndex + 1) % markets.length]!.conditionId } });
      add('unknown order type', buy(0.5, 100_000, 26), { orderType: 'LIMIT' });
      // Amounts no signature can cover (the digest refuses them), with the signature of a valid struct.
      for (const [n, size] of (['-5000000', '5000000.5', '-0', 'NaN', '1e308', ' 5000000', '0x4c4b40', 5e6, -5, 1.5, 1e308, null, true] as const).entries()) {
        const order = { ...signed(struct(trader, buy(0.5, 100_000, 40 + n), nowMs), trader), [n % 2 === 0 ? 'takerAmount' : 'makerAmount']: size };
        out.push({ label: `${n % 2 === 0 ? 'size' : 'collateral'} ${JSON.stringify(size)}`, signer: index, order, orderType: 'GTC', foreign: false });
      }
      // A valid order of this trader, at a price nobody trades at: only ever sent by someone else.
      add('a valid order of another wallet', buy(0.02, 5, 27), { foreign: true });
      add('a valid GTD order of another wallet', buy(0.02, 5, 28), { foreign: true, orderType: 'GTD', extra: { expiration: String(Math.floor(nowMs / 1000) + 86_400) } });
    });
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// The generator.

interface Draw {
  readonly weight: number;
  readonly make: () => HostileRequest;
}

export class HostileGenerator {
  private readonly prng: Prng;
  private readonly draws: Draw[];
  private readonly total: number;

  constructor(private readonly world: World, seed: number) {
    this.prng = new Prng(seed);
    this.draws = [
      { weight: 12, make: () => this.clobRead() },
      { weight: 4, make: () => this.clobConditionPath() },
      { weight: 6, make: () => this.batchBody() },
      { weight: 12, make: () => this.catalogRead() },
      { weight: 4, make: () => this.catalogStrict() },
      { weight: 8, make: () => this.feed() },
      { weight: 3, make: () => this.cursor() },
      { weight: 3, make: () => this.duplicateParameter() },
      { weight: 4, make: () => this.unknownRoute() },
      { weight: 4, make: () => this.wrongMethod() },
      { weight: 0.6, make: () => this.oversize() },
      { weight: 2, make: () => this.headerAbuse() },
      { weight: 8, make: () => this.l2Defect() },
      { weight: 2, make: () => this.l1Defect() },
      { weight: 8, make: () => this.badOrder() },
      { weight: 2, make: () => this.badBatch() },
      { weight: 3, make: () => this.replay() },
      { weight: 3, make: () => this.crossCancel() },
      { weight: 4, make: () => this.accountRead() },
      { weight: 4, make: () => this.admin() },
      { weight: 3, make: () => this.adminWithToken() },
      { weight: 4, make: () => this.malformedBody() },
      { weight: 1, make: () => this.heartbeat() },
      { weight: 2, make: () => this.invalidUtf8() },
      { weight: world.extraRoutes.length > 0 ? 1 : 0, make: () => this.extraRoute() },
    ];
    this.total = this.draws.reduce((sum, draw) => sum + draw.weight, 0);
  }

  next(): HostileRequest {
    let at = (this.prng.nextUint32() / 2 ** 32) * this.total;
    for (const draw of this.draws) {
      at -= draw.weight;
      if (at < 0) return draw.make();
    }
    return this.draws[0]!.make();
  }

  // --- small draws ---------------------------------------------------------------------------

  private pick<T>(items: readonly T[]): T {
    return this.prng.pick(items);
  }

  private chance(probability: number): boolean {
    return this.prng.chance(probability);
  }

  private trader(): number {
    return this.prng.below(this.world.traders.length);
  }

  private otherTrader(than: number): number {
    return (than + 1 + this.prng.below(this.world.traders.length - 1)) % this.world.traders.length;
  }

  private anyToken(): string {
    const market = this.pick(this.world.markets);
    return this.pick([market.yes, market.no, ...this.world.catalog.tokens.slice(0, 4)]);
  }

  private anyConditionId(): string {
    return this.pick([...this.world.markets.map((market) => market.conditionId), ...this.world.catalog.conditionIds.slice(0, 4)]);
  }

  private nasty(): string {
    return this.pick(NASTY);
  }

  /** A value for a parameter: usually hostile, sometimes plausible. */
  private value(plausible: readonly string[]): string {
    if (plausible.length > 0 && this.chance(0.3)) return this.pick(plausible);
    if (this.chance(0.1)) return this.pick(plausible.length > 0 ? plausible : ['1']) + this.nasty();
    return this.nasty();
  }

  /** One `name=value` pair, encoded well or badly. */
  private pair(name: string, value: string): string {
    const style = this.prng.below(10);
    if (style < 6) return `${encode(name)}=${encode(value)}`;
    if (style < 8) return `${rawTarget(name)}=${rawTarget(value)}`;
    if (style === 8) return `${encode(name)}=${encode(value)}${this.pick(['%', '%z', '%zz', '%e0%a4', '%ff', '%c0%af', '%00', '+', '%2', '%%'])}`;
    return encode(name);
  }

  private query(params: Readonly<Record<string, readonly string[]>>, options: { unknown?: boolean } = {}): { text: string; unknown: boolean } {
    const names = Object.keys(params);
    const pairs: string[] = [];
    let unknown = false;
    const count = this.prng.below(Math.min(names.length, 4) + 1);
    for (let index = 0; index < count; index++) {
      const name = this.pick(names);
      pairs.push(this.pair(name, this.value(params[name]!)));
    }
    if ((options.unknown ?? true) && this.chance(0.15)) {
      unknown = true;
      pairs.push(`${encode(this.pick(UNKNOWN_PARAM_NAMES.filter((name) => /^[a-zA-Z_$]/.test(name))))}=${encode(this.nasty())}`);
    }
    if (this.chance(0.05)) pairs.push('', '&', '=', '==');
    return { text: pairs.length === 0 ? '' : `?${pairs.join('&')}`, unknown };
  }

  private request(kind: string, listener: ListenerName, method: string, target: string, expect: Expect, extra: Partial<HostileRequest> = {}): HostileRequest {
    return { kind, listener, method, target, headers: [], expect, ...extra };
  }

  private l2(trader: number, method: string, path: string, body: string | Buffer, prefix = 'SERVICE-'): Header[] {
    const t = this.world.traders[trader]!;
    const credentials = t.credentials!;
    const timestamp = String(this.world.nowS());
    return [
      [`${prefix}ADDRESS`, t.checksumLikeAddress], [`${prefix}API-KEY`, credentials.apiKey], [`${prefix}PASSPHRASE`, credentials.passphrase],
      [`${prefix}TIMESTAMP`, timestamp], [`${prefix}SIGNATURE`, sigHmac(credentials.secret, timestamp, method, path, body)],
    ];
  }

  private json(method: string, path: string, trader: number, value: unknown, kind: string, expect: Expect, raw?: Buffer): HostileRequest {
    const body = raw ?? jsonBody(value);
    return this.request(kind, 'clob', method, path, expect, { body, headers: [...this.l2(trader, method, path, body), ['Content-Type', 'application/json']] });
  }

  // --- market data (CLOB) --------------------------------------------------------------------

  private clobRead(): HostileRequest {
    const tokens = [this.anyToken(), this.anyToken(), '0', '1'];
    const routes: Record<string, Record<string, readonly string[]>> = {
      '/book': { token_id: tokens }, '/price': { token_id: tokens, side: ['BUY', 'SELL'] }, '/midpoint': { token_id: tokens },
      '/spread': { token_id: tokens }, '/last-trade-price': { token_id: tokens }, '/tick-size': { token_id: tokens }, '/neg-risk': { token_id: tokens },
      '/prices-history': {
        market: tokens, startTs: ['0', String(this.world.nowS() - 3600)], endTs: [String(this.world.nowS())], interval: ['1h', '6h', '1d', '1w', '1m', 'max'],
        fidelity: ['1', '60', '525600'],
      },
      '/markets': { next_cursor: ['MA==', 'LTE='] }, '/sampling-markets': { next_cursor: ['MA=='] }, '/sampling-simplified-markets': { next_cursor: ['MA=='] },
      '/ws/market': { assets_ids: tokens }, '/ws/user': { x: [] },
      '/': { x: [] }, '/time': { x: [] }, '/health': { x: [] }, '/ready': { x: [] }, '/metrics': { x: [] }, '/openapi.json': { x: [] },
    };
    const path = this.pick(Object.keys(routes));
    const { text } = this.query(routes[path]!);
    const always200 = ['/', '/time', '/health', '/ready', '/metrics', '/openapi.json'].includes(path);
    if (path.startsWith('/ws/')) {
      // A WebSocket path read as plain HTTP, sometimes with a half-made upgrade.
      const headers: Header[] = this.chance(0.5) ? [] : [['Upgrade', this.pick(['websocket', 'h2c', 'x'])], ['Connection', 'Upgrade'], ['Sec-WebSocket-Version', this.pick(['13', '8', 'x'])]];
      return this.request('WebSocket path without an upgrade', 'clob', 'GET', path + text, { statuses: [400, 404, 426] }, { headers });
    }
    return this.request('market data read', 'clob', 'GET', path + text, always200 ? { statuses: [200] } : READ);
  }

  private clobConditionPath(): HostileRequest {
    const path = this.pick(['/markets/', '/clob-markets/']);
    const segment = this.pick([
      ...this.world.markets.map((market) => market.conditionId), this.anyConditionId().toUpperCase().replace('0X', '0x'), `0x${'0'.repeat(64)}`,
      `0x${'g'.repeat(64)}`, `0x${'a'.repeat(65)}`, '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '..%2F..%2Fetc%2Fpasswd', "'%20OR%201=1%20--", '%7B%22$gt%22:%22%22%7D',
      '%ff%fe', '\u00ff\u00fe', '%', '%zz', '%c0%ae%c0%ae', 'MA==', '-1', '1e308', 'NaN', encode(this.nasty()) || 'x',
    ]);
    return this.request('condition id in the path', 'clob', 'GET', path + rawTarget(segment).replace(/%25/g, '%'), READ);
  }

  private batchBody(): HostileRequest {
    const path = this.pick(['/books', '/prices', '/batch-prices-history']);
    const item = (): unknown => {
      const roll = this.prng.below(8);
      if (roll === 0) return { token_id: this.anyToken() };
      if (roll === 1) return { token_id: this.anyToken(), side: this.pick(['BUY', 'SELL', 'buy', 'HOLD', '', 0, null, ['BUY']]) };
      if (roll === 2) return { token_id: JSON.parse(this.pick(NASTY_JSON)) };
      if (roll === 3) return { token_id: this.nasty(), extra: true, __proto__: { admin: true } };
      if (roll === 4) return JSON.parse(this.pick(NASTY_JSON));
      if (roll === 5) return { tokenId: this.anyToken() };
      if (roll === 6) return this.anyToken();
      return { token_id: this.anyToken(), unknown_field: this.nasty(), side: 'SELL' };
    };
    let value: unknown;
    if (path === '/batch-prices-history') {
      const fields: Record<string, unknown> = {};
      const roll = () => JSON.parse(this.pick(NASTY_JSON)) as unknown;
      if (this.chance(0.8)) fields['markets'] = this.chance(0.5) ? Array.from({ length: this.prng.below(25) }, () => this.anyToken()) : roll();
      for (const name of ['start_ts', 'end_ts', 'interval', 'fidelity', 'startTs', 'unknown']) {
        if (this.chance(0.3)) fields[name] = this.chance(0.5) ? roll() : this.pick([0, 1, this.world.nowS(), '1h', 'max', 60, -1, 1.5]);
      }
      value = this.chance(0.9) ? fields : roll();
    } else {
      const count = this.pick([0, 1, 2, 3, 10, 499, 500, 501, 1000]);
      value = this.chance(0.9) ? Array.from({ length: count }, item) : JSON.parse(this.pick(NASTY_JSON));
      if (this.chance(0.03)) {
        // Valid JSON nested deeper than any parser's recursion would go.
        const depth = this.pick([1000, 50_000]);
        const body = this.chance(0.5) ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
        return this.request('deeply nested JSON', 'clob', 'POST', path, { statuses: [400] }, { body: Buffer.from(body), headers: [['Content-Type', 'application/json']] });
      }
    }
    return this.request('market data body', 'clob', 'POST', path, READ, { body: jsonBody(value), headers: [['Content-Type', this.pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded', ''])]] });
  }

  // --- catalog -------------------------------------------------------------------------------

  private catalogRead(): HostileRequest {
    const c = this.world.catalog;
    const common = { creator: ['0x' + hex(this.prng, 40), 'site', ''], limit: ['1', '500', '100'], offset: ['0', '1', '10000000'] };
    const filters = {
      active: ['true', 'FALSE', '1', '0'], closed: ['false'], archived: ['false'], ascending: ['true', 'false'],
      // Gamma's date and amount filters: good and bad values.
      end_date_min: ['2030-01-01', '2030-01-01T12:00:00+02:00', '2030-13-01', 'yesterday', ''],
      start_date_max: ['2031-06-30T23:59:59.999Z', '9999-99-99', '0'],
      related_tags: ['true', 'x'], cyom: ['false', 'true'],
    };
    const routes: Record<string, Record<string, readonly string[]>> = {
      '/events': {
        ...common, ...filters, id: c.eventIds, slug: c.eventSlugs, tag: c.tagSlugs, tag_id: ['1', '2'], tag_slug: c.tagSlugs, series_slug: c.seriesSlugs,
        order: ['id', 'title', 'volume,liquidity', 'startDate,id', 'id,id,id,id', 'volume24hr'],
        volume_min: ['0', '0.000001', '1e3', '-1', '99999999999999999999'], liquidity_max: ['10.5', '1.0000001', ''], exclude_tag_id: ['1', 'x'],
        featured: ['true'], series_id: ['1,2'], title_search: ['a', '%', ''], live: ['true'],
      },
      '/markets': {
        ...common, ...filters, id: c.marketIds, slug: c.marketSlugs, condition_ids: c.conditionIds, clob_token_ids: c.tokens,
        order: ['id', 'question', 'volume', 'liquidity,slug', 'volume24hr,volumeNum'],
        volume_num_min: ['0', '12.5', 'NaN', '-0'], liquidity_num_max: ['0', '1e-3', '7'], tag_id: ['1', '0'], question_ids: c.conditionIds,
        rfq_enabled: ['false'], game_id: ['1'],
      },
      '/series': { ...common, slug: c.seriesSlugs },
      '/tags': common,
      '/public-search': { q: ['a', 'test', 'will', ' ', '', '(', '[', '*', '+?', '\\', '.*', '(?<x', '$^', '|', 'a{99999}', '\\u0000', '%', '_'], limit_per_type: ['1', '500', '501'], page: ['1', '2', '0'], search_tags: ['true', 'no'], search_profiles: ['1'], creator: common.creator },
      [`/events/${this.pick(['', ...c.eventIds])}`]: { creator: common.creator },
      [`/events/slug/${this.pick(c.eventSlugs)}`]: { creator: common.creator },
      [`/markets/${this.pick([...c.marketIds, ...c.conditionIds])}`]: { creator: common.creator },
      [`/markets/slug/${this.pick(c.marketSlugs)}`]: { creator: common.creator },
      '/openapi.json': { x: [] },
    };
    let path = this.pick(Object.keys(routes));
    const params = routes[path]!;
    if (path.startsWith('/events/') || path.startsWith('/markets/')) {
      // Swap the id or slug for something hostile now and then.
      if (this.chance(0.5)) path = path.replace(/[^/]+$/, this.pick([rawTarget(this.nasty()), encode(this.nasty()), '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '..%2F..%2F', '%ff', '%', '-1', '1.5', '99999999', '0']) || 'x');
    }
    const { text } = this.query(params);
    return this.request('catalog read', 'catalog', 'GET', path + text, path === '/openapi.json' ? { statuses: [200] } : READ);
  }

  private catalogStrict(): HostileRequest {
    const roll = this.prng.below(7);
    const list = this.pick(['/events', '/markets', '/series', '/tags']);
    const badBody = (error: string | RegExp): Expect => ({ statuses: [400], error });
    if (roll === 0) {
      const value = this.pick(['0', '501', '-1', '1.5', 'abc', '1e308', '18446744073709551616', '', ' 1', '１']);
      return this.request('catalog limit out of range', 'catalog', 'GET', `${list}?limit=${encode(value)}`, badBody('limit must be an integer from 1 to 500'));
    }
    if (roll === 1) {
      const value = this.pick(['-1', 'x', '1.5', '99999999999999999', 'NaN']);
      return this.request('catalog offset out of range', 'catalog', 'GET', `${list}?offset=${encode(value)}`, badBody('offset must be an integer >= 0'));
    }
    if (roll === 2) {
      return this.request('catalog search without q', 'catalog', 'GET', this.pick(['/public-search', '/public-search?q=', '/public-search?q=%20%20', '/public-search?page=2']), badBody('q is required'));
    }
    if (roll === 3) {
      const slug = this.pick(['..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f', "'%20OR%201=1%20--", '%7B%22%24gt%22%3A%22%22%7D', 'no-such-slug', '%00', '%C3%BF', '%F0%9F%98%80']);
      const path = this.pick(['/events/slug/', '/markets/slug/']);
      return this.request('catalog unknown slug', 'catalog', 'GET', path + slug, { statuses: [404], error: 'slug not found' });
    }
    if (roll === 4) {
      return this.request('catalog unknown id', 'catalog', 'GET', this.pick(['/events/99999999', '/markets/99999999', `/markets/0x${'0'.repeat(64)}`]), { statuses: [404], error: 'id not found' });
    }
    if (roll === 5) {
      return this.request('catalog bad id', 'catalog', 'GET', this.pick(['/events/-1', '/events/1.5', '/events/abc', '/events/1e3', '/events/%2e%2e', '/markets/abc', '/markets/0x12', '/markets/-1']), { statuses: [400] });
    }
    if (this.chance(0.25)) {
      // A list parameter with more than 100 values.
      const name = this.pick(['id', 'slug', 'condition_ids', 'clob_token_ids']);
      const path = name === 'condition_ids' || name === 'clob_token_ids' ? '/markets' : this.pick(['/events', '/markets']);
      const values = Array.from({ length: 101 }, (_, index) => String(index + 1));
      const query = this.chance(0.5) ? `${name}=${values.join(',')}` : values.map((value) => `${name}=${value}`).join('&');
      return this.request('catalog list over 100 values', 'catalog', 'GET', `${path}?${query}`, { statuses: [400], error: `${name} accepts at most 100 values` });
    }
    const name = this.pick(['order', 'ascending', 'active']);
    const value = name === 'order' ? this.pick(['password', 'id;drop', 'title,x', "' OR 1=1 --", 'a,b,c,d']) : this.pick(['yes', '2', 'maybe', '']);
    return this.request('catalog bad enum', 'catalog', 'GET', `${this.pick(['/events', '/markets'])}?${name}=${encode(value)}`, { statuses: [400] });
  }

  // --- feeds ---------------------------------------------------------------------------------

  private feed(): HostileRequest {
    if (this.chance(0.03)) return this.request('data listener document', 'data', 'GET', `/openapi.json${this.query({ x: [] }).text}`, { statuses: [200] });
    const someone = this.world.traders[this.trader()]!.address;
    const activity = this.chance(0.4);
    const listener: ListenerName = activity || this.chance(0.5) ? 'data' : 'clob';
    const params: Record<string, readonly string[]> = activity
      ? { user: [someone, someone.toUpperCase().replace('0X', '0x')], limit: ['0', '500', '501'], offset: ['0', '10000', '10001'] }
      : {
        limit: ['0', '10000', '10001'], offset: ['0', '10000'], takerOnly: ['true', 'false', 'TRUE', '0'], filterType: ['CASH', 'TOKENS', 'cash'],
        filterAmount: ['0', '1.5', '0.0000001', '-1'], market: this.world.markets.map((market) => market.conditionId), user: [someone], side: ['BUY', 'SELL', 'buy'],
      };
    const { text, unknown } = this.query(params);
    const path = activity ? '/activity' : '/trades';
    return this.request(unknown ? 'feed unknown field' : 'feed read', listener, 'GET', path + text, unknown ? { statuses: [400] } : { statuses: [200, 400] });
  }

  // --- strict parameter cases ----------------------------------------------------------------

  private cursor(): HostileRequest {
    const value = this.pick(['%%%', 'LTU=', 'YWJj', 'LTU', 'MA', 'MA=', '-5', 'abc', '====', 'MTAwMDAwMDAwMDA=', '%ff', 'MDA=', 'IDE=', 'MSA=', 'KzE=', 'MWUz', 'TmFO']);
    if (this.chance(0.5)) {
      const path = this.pick(['/markets', '/sampling-markets', '/sampling-simplified-markets']);
      return this.request('garbage cursor', 'clob', 'GET', `${path}?next_cursor=${value}`, { statuses: [400], error: 'invalid next_cursor' });
    }
    const trader = this.trader();
    const path = this.pick(['/data/orders', '/data/trades']);
    return this.request('garbage cursor', 'clob', 'GET', `${path}?next_cursor=${value}`, { statuses: [400], error: 'invalid next_cursor' }, { headers: this.l2(trader, 'GET', path, '') });
  }

  private duplicateParameter(): HostileRequest {
    const token = this.world.markets[0]!.yes;
    const cases: [ListenerName, string, string][] = [
      ['clob', '/book', `token_id=${token}&token_id=${token}`], ['clob', '/price', `token_id=${token}&side=BUY&side=SELL`],
      ['clob', '/markets', 'next_cursor=MA==&next_cursor=MA=='], ['clob', '/prices-history', `market=${token}&fidelity=1&fidelity=2`],
      ['clob', '/trades', 'limit=1&limit=2'], ['data', '/trades', 'side=BUY&side=BUY'], ['data', '/activity', `user=${this.world.traders[0]!.address}&limit=1&limit=1`],
      ['catalog', '/events', 'limit=1&limit=1'], ['catalog', '/markets', 'ascending=true&ascending=false'], ['catalog', '/tags', 'offset=0&offset=0'],
      ['catalog', '/public-search', 'q=a&q=b'], ['catalog', '/series', 'limit=5&limit=500'],
    ];
    const [listener, path, query] = this.pick(cases);
    const name = decodeURIComponent(query.split('&').at(-1)!.split('=')[0]!);
    return this.request('duplicated parameter', listener, 'GET', `${path}?${query}`, { statuses: [400], error: `duplicate parameter: ${name}` });
  }

  // --- routes and methods --------------------------------------------------------------------

  private unknownRoute(): HostileRequest {
    const listener = this.pick<ListenerName>(['clob', 'catalog', 'data']);
    let path = rawTarget(this.pick(UNKNOWN_PATHS)).replace(/%25/g, '%');
    if (methodsOf(KNOWN_ROUTES, listener, path.split('?')[0]!).length > 0) path = '/no-such-route';
    const method = this.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
    const body = method === 'GET' && this.chance(0.8) ? undefined : Buffer.from(this.pick(['{}', '[]', 'x', '']));
    return this.request('unknown route', listener, method, path, NOT_FOUND, body === undefined ? {} : { body });
  }

  private wrongMethod(): HostileRequest {
    const entry = this.pick(KNOWN_ROUTES);
    const path = entry.path.replace(/:[a-z_]+/g, (name) => (name === ':id' ? '1' : name === ':address' ? ZERO_ADDRESS : name === ':slug' ? 'x' : this.world.markets[0]!.conditionId));
    const allowed = methodsOf(KNOWN_ROUTES, entry.listener, path);
    const method = this.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT'].filter((name) => !allowed.includes(name)));
    const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) && this.chance(0.6) ? jsonBody({ orderID: fakeOrderId(this.prng) }) : undefined;
    const target = path + (this.chance(0.3) ? `?x=${encode(this.nasty())}` : '');
    // The WebSocket paths are not in the route table's 405 answers: another method there is a 404 (reported).
    if (path.startsWith('/ws/')) return this.request('wrong method on a WebSocket path', entry.listener, method, target, { statuses: [404, 405] }, body === undefined ? {} : { body });
    return this.request('wrong method', entry.listener, method, target, { statuses: [405], error: 'method not allowed' }, body === undefined ? {} : { body });
  }

  // --- sizes ---------------------------------------------------------------------------------

  private oversize(): HostileRequest {
    const path = this.pick(['/books', '/prices', '/batch-prices-history', '/order', '/orders', '/admin/events', '/admin/deposits', '/auth/api-key', '/v1/heartbeats']);
    const method = path === '/orders' && this.chance(0.5) ? 'DELETE' : 'POST';
    const roll = this.prng.below(3);
    const size = 1024 * 1024 + 1 + this.prng.below(512 * 1024);
    const expect: Expect = { statuses: [413], error: 'payload too large' };
    if (roll === 0) return this.request('oversize body (declared)', 'clob', method, path, expect, { declaredLength: String(size) });
    const body = Buffer.alloc(size, this.pick(['[', ' ', 'a', '{"token_id":"1"},']));
    return this.request(roll === 1 ? 'oversize body' : 'oversize body (chunked)', 'clob', method, path, { ...expect, mayReset: true }, roll === 1 ? { body } : { body, chunked: true });
  }

  /** A read with many, big, duplicated or odd headers (under the parser's limit). */
  private headerAbuse(): HostileRequest {
    const base = this.chance(0.5) ? this.clobRead() : this.catalogRead();
    const headers: Header[] = [];
    const count = this.pick([1, 5, 20, 40, 46]);
    let bytes = 0;
    for (let index = 0; index < count; index++) {
      const name = this.chance(0.5) ? this.pick(EXTRA_HEADER_NAMES) : `X-Fuzz-${index}`;
      const value = this.pick([
        'a'.repeat(this.pick([1, 100, 4096, 16_384])), utf8Header(this.nasty().replace(/[\u0000-\u001f\u007f]/g, '')), utf8Header('😀é'), '\u00ff\u00fe\u00fd', '127.0.0.1, 10.0.0.1', '',
        "' OR 1=1 --", '() { :; }; echo vulnerable', '${jndi:ldap://x/a}', 'application/json; charset=utf-16', 'gzip, deflate, br', 'bytes=0-1',
      ]);
      // A request head that reaches uWS in several reads is refused past about 64 KiB (see the probes): stay at 32.
      if (bytes + value.length > 32 * 1024) continue;
      headers.push([name, value]);
      bytes += value.length;
    }
    // Headers that change the meaning of a request in some servers must not here.
    headers.unshift(['X-HTTP-Method-Override', 'DELETE']);
    // uWS v20.30 takes at most 47 header lines besides Host (see the transport probes); keep under it with Content-Length.
    return { ...base, kind: `${base.kind} with hostile headers`, headers: [...base.headers, ...headers].slice(0, 45) };
  }

  // --- credentials ---------------------------------------------------------------------------

  /** An L2 route with a clean request whose credentials are wrong in one way: always 401. */
  private l2Defect(): HostileRequest {
    const trader = this.trader();
    const other = this.otherTrader(trader);
    const t = this.world.traders[trader]!;
    const o = this.world.traders[other]!;
    const target = this.pick([
      ['GET', '/balance-allowance?asset_type=COLLATERAL', ''], ['GET', '/data/orders', ''], ['GET', '/data/trades', ''],
      ['GET', `/data/order/${this.pick(this.world.legit).orderId}`, ''], ['GET', '/auth/api-keys', ''], ['DELETE', '/auth/api-key', ''],
      ['POST', '/order', JSON.stringify({ order: this.pick(this.world.arsenal).order, owner: t.credentials!.apiKey, orderType: 'GTC' })],
      ['POST', '/orders', JSON.stringify([{ order: this.pick(this.world.arsenal).order, owner: t.credentials!.apiKey, orderType: 'GTC' }])],
      ['DELETE', '/order', JSON.stringify({ orderID: this.pick(this.world.legit).orderId })], ['DELETE', '/orders', JSON.stringify(this.world.legit.map((p) => p.orderId))],
      ['DELETE', '/cancel-all', ''], ['DELETE', '/cancel-market-orders', JSON.stringify({ market: this.world.markets[0]!.conditionId })],
      ['POST', '/v1/heartbeats', JSON.stringify({ heartbeat_id: '' })], ['POST', '/heartbeats', ''],
    ] as const);
    const [method, pathQuery, body] = target;
    const path = pathQuery.split('?')[0]!;
    const now = this.world.nowS();
    const headers = new Map<string, string>(this.l2(trader, method, path, body).map(([name, value]) => [name, value]));
    const resign = (timestamp: string, over: { method?: string; path?: string; body?: string; secret?: string } = {}) => {
      headers.set('SERVICE-TIMESTAMP', timestamp);
      headers.set('SERVICE-SIGNATURE', sigHmac(over.secret ?? t.credentials!.secret, timestamp, over.method ?? method, over.path ?? path, over.body ?? body));
    };
    const defect = this.prng.below(22);
    const label = [
      'stale timestamp', 'future timestamp', 'timestamp not a number', 'flipped HMAC digit', 'upper-case HMAC', 'HMAC of another path',
      'HMAC of another method', 'HMAC of another body', 'HMAC with another secret', 'wrong passphrase', 'another trader\'s passphrase',
      'another trader\'s address', 'malformed address', 'unknown API key', 'another trader\'s API key', 'missing header', 'empty header',
      'truncated HMAC', 'standard base64 HMAC', 'HMAC of the query too', 'header injection in the key', 'everything of another trader but the secret',
    ][defect]!;
    switch (defect) {
      case 0: resign(String(now - this.pick([40, 31 + 60, 3600, 86_400 * 365, now]))); break;
      case 1: resign(String(now + this.pick([40, 3600, 86_400 * 365 * 100, 999_999_999_999 - now]))); break;
      case 2: resign(this.pick(['abc', '1e9', `${now}.0`, `-${now}`, ` ${now}`, `${now}x`, '١٧٠٠٠٠٠٠٠٠', '9'.repeat(13), '0x65', '', 'NaN']).toString()); break;
      case 3: {
        const signature = headers.get('SERVICE-SIGNATURE')!;
        const at = this.prng.below(signature.length);
        headers.set('SERVICE-SIGNATURE', signature.slice(0, at) + (signature[at] === 'a' ? 'b' : 'a') + signature.slice(at + 1));
        break;
      }
      case 4: {
        const signature = headers.get('SERVICE-SIGNATURE')!;
        headers.set('SERVICE-SIGNATURE', /[a-f]/.test(signature) ? signature.toUpperCase() : `${signature.slice(1)}A`);
        break;
      }
      case 5: resign(String(now), { path: path === '/order' ? '/orders' : '/order' }); break;
      case 6: resign(String(now), { method: method === 'GET' ? 'POST' : 'GET' }); break;
      case 7: resign(String(now), { body: `${body} ` }); break;
      case 8: resign(String(now), { secret: o.credentials!.secret }); break;
      case 9: headers.set('SERVICE-PASSPHRASE', this.pick(['0'.repeat(64), t.credentials!.passphrase.slice(0, 63), `${t.credentials!.passphrase}0`, t.credentials!.passphrase.toUpperCase().replace(/[0-9]/g, 'F')])); break;
      case 10: headers.set('SERVICE-PASSPHRASE', o.credentials!.passphrase); break;
      case 11: headers.set('SERVICE-ADDRESS', o.address); break;
      case 12: headers.set('SERVICE-ADDRESS', this.pick(['0x', 'not-an-address', `${t.address}00`, t.address.slice(2), "' OR 1=1 --"])); break;
      case 13: headers.set('SERVICE-API-KEY', this.pick([randomUUIDFrom(this.prng), '00000000-0000-0000-0000-000000000000', '*', "' OR 1=1 --", '{"$gt":""}', '../../etc/passwd'])); break;
      case 14: headers.set('SERVICE-API-KEY', o.credentials!.apiKey); break;
      case 15: headers.delete(this.pick(['SERVICE-ADDRESS', 'SERVICE-API-KEY', 'SERVICE-PASSPHRASE', 'SERVICE-TIMESTAMP', 'SERVICE-SIGNATURE'])); break;
      case 16: headers.set(this.pick(['SERVICE-ADDRESS', 'SERVICE-API-KEY', 'SERVICE-PASSPHRASE', 'SERVICE-TIMESTAMP', 'SERVICE-SIGNATURE']), ''); break;
      case 17: headers.set('SERVICE-SIGNATURE', headers.get('SERVICE-SIGNATURE')!.slice(0, 63)); break;
      case 18: {
        // Standard base64 (with + and /) of a digest is refused; only the URL-safe alphabet is accepted.
        let timestamp = now;
        let encoded = '';
        for (let attempt = 0; attempt < 64; attempt++, timestamp--) {
          encoded = Buffer.from(sigHmac(t.credentials!.secret, String(timestamp), method, path, body), 'hex').toString('base64');
          if (/[+/]/.test(encoded)) break;
        }
        headers.set('SERVICE-TIMESTAMP', String(timestamp));
        headers.set('SERVICE-SIGNATURE', /[+/]/.test(encoded) ? encoded : `${encoded.slice(1)}+`);
        break;
      }
      case 19: resign(String(now), { path: `${path}?asset_type=COLLATERAL` }); break;
      case 20: headers.set('SERVICE-API-KEY', `${t.credentials!.apiKey}, ${o.credentials!.apiKey}`); break;
      default: {
        headers.set('SERVICE-ADDRESS', o.checksumLikeAddress);
        headers.set('SERVICE-API-KEY', o.credentials!.apiKey);
        headers.set('SERVICE-PASSPHRASE', o.credentials!.passphrase);
        break;
      }
    }
    const sent: Header[] = [...headers.entries()];
    if (body !== '') sent.push(['Content-Type', 'application/json']);
    return this.request(`L2: ${label}`, 'clob', method, pathQuery, UNAUTHORIZED, { headers: sent, ...(body === '' ? {} : { body: Buffer.from(body) }) });
  }

  private l1Defect(): HostileRequest {
    const trader = this.world.traders[this.trader()]!;
    const other = this.world.traders[this.otherTrader(this.world.traders.indexOf(trader))]!;
    const [method, path] = this.pick([['POST', '/auth/api-key'], ['GET', '/auth/derive-api-key']] as const);
    const now = this.world.nowS();
    const defect = this.prng.below(11);
    const headers = new Map<string, string>();
    let expect = INVALID_L1;
    const sign = (timestamp: number, nonce: number, key: Trader = trader): string => key.signDigest(clobAuthDigest(CHAIN_ID, trader.address, String(timestamp), BigInt(nonce)));
    const set = (address: string, signature: string, timestamp: string, nonce?: string) => {
      headers.set('SERVICE-ADDRESS', address);
      headers.set('SERVICE-SIGNATURE', signature);
      headers.set('SERVICE-TIMESTAMP', timestamp);
      if (nonce !== undefined) headers.set('SERVICE-NONCE', nonce);
    };
    let label: string;
    switch (defect) {
      case 0: label = 'no headers'; break;
      case 1: label = 'stale timestamp'; set(trader.address, sign(now - 3600, 0), String(now - 3600), '0'); break;
      case 2: label = 'future timestamp'; set(trader.address, sign(now + 3600, 0), String(now + 3600), '0'); break;
      case 3: label = 'signed by another wallet'; set(trader.address, sign(now, 0, other), String(now), '0'); break;
      case 4: label = 'nonce not the signed one'; set(trader.address, sign(now, 0), String(now), this.pick(['1', '-1', '18446744073709551616', 'abc', '0x0', '00'])); break;
      case 5: label = 'high-s signature'; set(trader.address, highS(sign(now, 0)), String(now), '0'); break;
      case 6: label = 'garbage signature'; set(trader.address, this.pick(['0x', '0x00', `0x${'0'.repeat(130)}`, `0x${'f'.repeat(130)}`, 'zz', "' OR 1=1 --", `0x${'1'.repeat(128)}1d`]), String(now), '0'); break;
      case 7: label = 'malformed address'; set(this.pick(['0x', '0xZZ', `${trader.address}ff`, trader.address.slice(2), '{"$gt":""}']), sign(now, 0), String(now)); break;
      case 8: label = 'timestamp not a number'; set(trader.address, sign(now, 0), this.pick(['abc', `${now}.5`, '-1', '', '9'.repeat(13)]), '0'); break;
      case 9:
        // Valid L1 for a pair that exists (create) or was never made (derive): 400, and no secret in the answer.
        label = method === 'POST' ? 'create an existing key' : 'derive a key never made';
        {
          const nonce = method === 'POST' ? 0 : 1000 + this.prng.below(1000);
          set(trader.address, sign(now, nonce), String(now), String(nonce));
          expect = { statuses: [400], error: method === 'POST' ? 'Could not create api key' : 'Could not derive api key!' };
        }
        break;
      default: label = 'address of another wallet'; set(other.address, sign(now, 0), String(now), '0'); break;
    }
    return this.request(`L1: ${label}`, 'clob', method, path, expect, { headers: [...headers.entries()] });
  }

  // --- orders --------------------------------------------------------------------------------

  private orderBody(armed: ArmedOrder, sender: number): Record<string, unknown> {
    const owner = this.chance(0.85) ? this.world.traders[sender]!.credentials!.apiKey : this.world.traders[armed.signer]!.credentials!.apiKey;
    const body: Record<string, unknown> = { order: armed.order, owner, orderType: armed.orderType };
    if (armed.postOnly !== undefined) body['postOnly'] = armed.postOnly;
    if (this.chance(0.15)) body[this.pick(['unknown', '__proto__', 'constructor', 'admin', 'feeRateBps', 'nonce'])] = JSON.parse(this.pick(NASTY_JSON));
    return body;
  }

  /** Sender of an armed order: never the signer of a valid (foreign) one. */
  private senderOf(armed: ArmedOrder): number {
    return armed.foreign || this.chance(0.3) ? this.otherTrader(armed.signer) : armed.signer;
  }

  private badOrder(): HostileRequest {
    const roll = this.prng.below(10);
    if (roll < 7) {
      const armed = this.pick(this.world.arsenal);
      const sender = this.senderOf(armed);
      return this.json('POST', '/order', sender, this.orderBody(armed, sender), `order: ${armed.label}${sender === armed.signer ? '' : ' (sent by another trader)'}`, { statuses: [400] });
    }
    // Field-level damage to a signed order: wrong types, odd numbers, missing fields.
    const armed = this.pick(this.world.arsenal);
    const sender = this.senderOf(armed);
    const order: Record<string, unknown> = { ...armed.order };
    const field = this.pick(['salt', 'maker', 'signer', 'tokenId', 'makerAmount', 'takerAmount', 'side', 'signatureType', 'timestamp', 'metadata', 'builder', 'signature', 'expiration', 'conditionId']);
    if (this.chance(0.2)) delete order[field];
    else order[field] = this.chance(0.5) ? JSON.parse(this.pick(NASTY_JSON)) : this.nasty();
    const body: unknown = this.pick([
      { order, owner: this.world.traders[sender]!.credentials!.apiKey, orderType: armed.orderType },
      { order: JSON.stringify(order), owner: this.world.traders[sender]!.credentials!.apiKey },
      { order, owner: JSON.parse(this.pick(NASTY_JSON)), orderType: 'GTC' },
      { order, owner: this.world.traders[sender]!.credentials!.apiKey, orderType: this.pick(['gtc', 'IOC', '', 'FOK ', 5, null]) },
      [order], order, null,
    ]);
    return this.json('POST', '/order', sender, body, `order: damaged ${armed.label}`, { statuses: [400] });
  }

  private badBatch(): HostileRequest {
    const sender = this.trader();
    const count = this.pick([0, 1, 3, 15, 16, 100]);
    const items: unknown[] = [];
    for (let index = 0; index < count; index++) {
      const candidates = this.world.arsenal.filter((armed) => !(armed.foreign && armed.signer === sender));
      const armed = this.pick(candidates);
      items.push(this.chance(0.9) ? this.orderBody(armed, sender) : JSON.parse(this.pick(NASTY_JSON)));
    }
    // Legitimate orders again (duplicates) and the sender's own foreign-valid orders are excluded above.
    if (count > 0 && count <= 15 && this.chance(0.3)) items[0] = JSON.parse(this.pick(this.world.legit.filter((p) => p.trader === sender).map((p) => p.body).concat(['{}'])));
    const expect: Expect = count >= 1 && count <= 15 ? { statuses: [200], ok: allFailed(count) } : { statuses: [400] };
    return this.json('POST', '/orders', sender, items, 'batch of bad orders', expect);
  }

  /** The legitimate session's signed orders sent again: rejected as duplicates, never executed twice. */
  private replay(): HostileRequest {
    const placement = this.pick(this.world.legit);
    const roll = this.prng.below(4);
    if (roll === 0) {
      // The very bytes sent the first time, credentials and all.
      return this.request('replay of the exact request', 'clob', 'POST', '/order', { statuses: [400, 401], error: /Duplicated\.$|^Unauthorized\/Invalid api key$/ }, {
        body: Buffer.from(placement.body), headers: [...Object.entries(placement.headers), ['Content-Type', 'application/json']],
      });
    }
    if (roll === 1) {
      const sender = this.otherTrader(placement.trader);
      return this.json('POST', '/order', sender, JSON.parse(placement.body), 'replay by another trader', { statuses: [400], error: /owner|signer/ });
    }
    const body = JSON.parse(placement.body) as Record<string, unknown>;
    if (roll === 3) {
      // Malleated signature (high s) or another order type: still the same order id, or a refused signature.
      const order = { ...(body['order'] as Record<string, unknown>) };
      if (this.chance(0.5)) order['signature'] = highS(order['signature'] as string);
      else body['orderType'] = this.pick(['FOK', 'FAK', 'GTC']);
      body['order'] = order;
      return this.json('POST', '/order', placement.trader, body, 'replay, malleated', { statuses: [400], error: /Duplicated\.$|^invalid signature$|^invalid expiration$|FOK|FAK/ });
    }
    return this.json('POST', '/order', placement.trader, body, 'replay with fresh credentials', { statuses: [400], error: /Duplicated\.$/ }, Buffer.from(placement.body));
  }

  /** Cancels of another account's orders: answered, and nothing is cancelled. */
  private crossCancel(): HostileRequest {
    const victim = this.pick(this.world.legit);
    const sender = this.otherTrader(victim.trader);
    const others = this.world.legit.filter((p) => p.trader !== sender).map((p) => p.orderId);
    const roll = this.prng.below(4);
    if (roll === 0) return this.json('DELETE', '/order', sender, { orderID: victim.orderId }, 'cancel another account\'s order', { statuses: [200], ok: cancelledNothing([victim.orderId]) });
    if (roll === 1) {
      const ids = [...others, fakeOrderId(this.prng), victim.orderId.toUpperCase().replace('0X', '0x')];
      return this.json('DELETE', '/orders', sender, ids, 'cancel other accounts\' orders', { statuses: [200], ok: cancelledNothing(others) });
    }
    if (roll === 2) {
      return this.json('GET', `/data/order/${victim.orderId}`, sender, undefined, 'read another account\'s order', { statuses: [404], error: 'order not found' }, Buffer.alloc(0));
    }
    const body = this.pick<unknown>([
      { market: `0x${hex(this.prng, 64)}` }, { asset_id: '123456789' }, { market: "' OR 1=1 --" }, { market: '{"$gt":""}' }, { market: 5 }, { asset_id: {} },
      { market: ['a'] }, {}, { market: '', asset_id: '' }, [], 'x', null, { market: this.world.markets[0]!.conditionId, asset_id: this.world.markets[1]!.yes },
    ]);
    return this.json('DELETE', '/cancel-market-orders', sender, body, 'cancel a market that is not one', { statuses: [200, 400], ok: cancelledNothing() });
  }

  private accountRead(): HostileRequest {
    const trader = this.trader();
    const t = this.world.traders[trader]!;
    const roll = this.prng.below(5);
    let path: string;
    let query: string;
    let expect: Expect = READ;
    if (roll === 0) {
      path = '/data/orders';
      query = this.query({ id: this.world.legit.map((p) => p.orderId), market: this.world.markets.map((m) => m.conditionId), asset_id: [this.anyToken()], next_cursor: ['MA==', '', 'LTE='] }).text;
      expect = { statuses: [200, 400], ok: rowsOf('maker_address', t.address) };
    } else if (roll === 1) {
      path = '/data/trades';
      query = this.query({ id: ['0-1-0'], taker: [t.address], maker: [t.address], market: [this.world.markets[0]!.conditionId], before: ['0', '99999999999'], after: ['0'], next_cursor: ['MA==', 'LTE='] }).text;
      expect = { statuses: [200, 400], ok: rowsOf('owner', t.credentials!.apiKey) };
    } else if (roll === 2) {
      path = '/balance-allowance';
      query = this.query({ asset_type: ['COLLATERAL', 'CONDITIONAL'], token_id: [this.anyToken()], signature_type: ['0', '1'] }).text;
      expect = { statuses: [200, 400] };
    } else if (roll === 3) {
      path = `/data/order/${rawTarget(this.pick([fakeOrderId(this.prng), this.nasty(), '..%2F..%2Fetc%2Fpasswd', '%00', "' OR 1=1 --"])).replace(/%25/g, '%') || 'x'}`;
      query = '';
      // A path with bytes outside ASCII may be signed differently than the server reads it: 401 then.
      expect = { statuses: [400, 401, 404] };
    } else {
      path = '/auth/api-keys';
      query = '';
      expect = { statuses: [200], ok: (body) => (isObject(body) && Array.isArray(body['apiKeys']) ? undefined : 'not a key list') };
    }
    const prefix = this.chance(0.2) ? 'POLY-' : 'SERVICE-';
    return this.request('account read', 'clob', 'GET', path + query, expect, { headers: this.l2(trader, 'GET', path, '', prefix) });
  }

  /** The admin API with the right token and a body or target it must refuse (so nothing changes). */
  private adminWithToken(): HostileRequest {
    const headers: Header[] = [['Authorization', `Bearer ${this.world.adminToken}`], ['Content-Type', 'application/json']];
    const market = this.pick(this.world.markets);
    const unknownCondition = `0x${hex(this.prng, 64)}`;
    const roll = this.prng.below(5);
    const send = (method: string, path: string, value: unknown, expect: Expect, label: string): HostileRequest =>
      this.request(`admin with the token: ${label}`, 'clob', method, path, expect, { headers, ...(value === undefined ? {} : { body: jsonBody(value) }) });
    if (roll === 0) {
      const base = { title: 'Hostile event', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'Hostile?' }] };
      const market0 = base.markets[0]!;
      const bad = this.pick<[string, unknown]>([
        ['no title', { ...base, title: undefined }], ['blank title', { ...base, title: '   ' }], ['title a number', { ...base, title: 5 }],
        ['title too long', { ...base, title: 'x'.repeat(513) }], ['no end date', { ...base, endDate: undefined }], ['end date not a date', { ...base, endDate: 'tomorrow' }],
        ['end date month 13', { ...base, endDate: '2031-13-45T00:00:00Z' }], ['end date a number', { ...base, endDate: 5 }], ['no markets', { ...base, markets: [] }],
        ['markets not an array', { ...base, markets: 'x' }], ['market null', { ...base, markets: [null] }], ['market without question', { ...base, markets: [{}] }],
        ['question a number', { ...base, markets: [{ question: 5 }] }], ['501 markets', { ...base, markets: Array.from({ length: 501 }, (_, i) => ({ question: `q${i}` })) }],
        ['same outcomes', { ...base, markets: [{ ...market0, outcomes: '["A","A"]' }] }], ['three outcomes', { ...base, markets: [{ ...market0, outcomes: '["A","B","C"]' }] }],
        ['outcomes not JSON', { ...base, markets: [{ ...market0, outcomes: '[A, B' }] }], ['tick 0.3', { ...base, markets: [{ ...market0, orderPriceMinTickSize: 0.3 }] }],
        ['tick 0', { ...base, markets: [{ ...market0, orderPriceMinTickSize: 0 }] }], ['tick -0.01', { ...base, markets: [{ ...market0, orderPriceMinTickSize: -0.01 }] }],
        ['min size -1', { ...base, markets: [{ ...market0, orderMinSize: -1 }] }], ['min size 0', { ...base, markets: [{ ...market0, orderMinSize: 0 }] }],
        ['min size 1.001', { ...base, markets: [{ ...market0, orderMinSize: 1.001 }] }], ['min size 1e308', { ...base, markets: [{ ...market0, orderMinSize: 1e308 }] }],
        ['taker fee 1001', { ...base, markets: [{ ...market0, takerBaseFee: 1001 }] }], ['maker fee -1', { ...base, markets: [{ ...market0, makerBaseFee: -1 }] }],
        ['fee 1.5', { ...base, markets: [{ ...market0, takerBaseFee: 1.5 }] }], ['negRisk a string', { ...base, markets: [{ ...market0, negRisk: 'yes' }] }],
        ['tags not an array', { ...base, tags: 'x' }], ['tag without label', { ...base, tags: [{}] }], ['33 tags', { ...base, tags: Array.from({ length: 33 }, (_, i) => ({ label: `t${i}`, slug: `hostile-t${i}` })) }],
        ['series without slug or title', { ...base, series: [{}] }], ['eventMetadata a string', { ...base, eventMetadata: 'x' }],
        ['eventMetadata over 16 KiB', { ...base, eventMetadata: { blob: 'x'.repeat(17_000) } }], ['slug taken', { ...base, slug: this.pick(this.world.catalog.eventSlugs) }],
        ['body an array', [base]], ['body a string', 'x'], ['body null', null], ['start date not a date', { ...base, startDate: 'x' }],
      ]);
      return send('POST', '/admin/events', bad[1], { statuses: [400] }, `event: ${bad[0]}`);
    }
    if (roll === 1) {
      const address = `0x${hex(this.prng, 40)}`;
      const bad = this.pick<[string, unknown]>([
        ['address 0x', { address: '0x', amount: '1000000' }], ['address short', { address: address.slice(0, 41), amount: '1000000' }],
        ['address long', { address: `${address}0`, amount: '1000000' }], ['address a number', { address: 5, amount: '1000000' }], ['no address', { amount: '1000000' }],
        ['address injection', { address: "' OR 1=1 --", amount: '1000000' }], ['amount 0', { address, amount: '0' }], ['amount -1', { address, amount: '-1' }],
        ['amount 1.5', { address, amount: '1.5' }], ['amount 01', { address, amount: '01' }], ['amount 1e6', { address, amount: '1e6' }], ['amount -5', { address, amount: -5 }],
        ['amount 1.5 number', { address, amount: 1.5 }], ['amount 2^60', { address, amount: 2 ** 60 }], ['amount past the cap', { address, amount: '9007199254740991' }],
        ['amount NaN', { address, amount: 'NaN' }], ['amount null', { address, amount: null }], ['amount an object', { address, amount: { $gt: 0 } }], ['no amount', { address }],
        ['body an array', [{ address, amount: '1' }]],
      ]);
      return send('POST', '/admin/deposits', bad[1], { statuses: [400] }, `deposit: ${bad[0]}`);
    }
    if (roll === 2) {
      const winner = this.pick<unknown>(['Maybe', '', ' Yes', 'Yes ', 'YES!', 'Ye', 5, null, {}, ['Yes'], true]);
      if (this.chance(0.2)) return send('POST', `/admin/markets/${unknownCondition}/resolve`, { winner: market.outcomes[0] }, { statuses: [404], error: 'market not found' }, 'resolve an unknown market');
      return send('POST', `/admin/markets/${market.conditionId}/resolve`, this.chance(0.1) ? [] : { winner }, { statuses: [400] }, 'resolve with a winner that is not an outcome');
    }
    if (roll === 3) {
      const action = this.pick(['pause', 'resume']);
      const target = this.pick([unknownCondition, `0x${'0'.repeat(64)}`, '0x', 'x', "'%20OR%201=1%20--", `${market.conditionId}00`, '..%2F..%2F']);
      const expect: Expect = target.length > 66 ? { statuses: [400] } : { statuses: [404], error: 'market not found' };
      return send('POST', `/admin/markets/${target}/${action}`, undefined, expect, `${action} a market that is not one`);
    }
    const address = this.world.traders[this.trader()]!.address;
    const bad = this.pick<[string, string, unknown]>([
      ['address 0x123', '0x123', { name: 'x' }], ['address not hex', `0x${'g'.repeat(40)}`, { name: 'x' }], ['address injection', "'%20OR%201=1", { name: 'x' }],
      ['unknown field', address, { admin: true }], ['name a number', address, { name: 5 }], ['name too long', address, { name: 'x'.repeat(513) }],
      ['bio null', address, { bio: null }], ['body an array', address, [{ name: 'x' }]], ['body a string', address, 'x'], ['proto field', address, JSON.parse('{"__proto__":{"name":"x"},"constructor":"y"}')],
    ]);
    return send('PUT', `/admin/profiles/${bad[1]}`, bad[2], { statuses: [400] }, `profile: ${bad[0]}`);
  }

  private admin(): HostileRequest {
    const market = this.pick(this.world.markets);
    const auth = this.pick(ADMIN_BAD_AUTH);
    const headers: Header[] = auth === null ? [] : [['Authorization', utf8Header(auth)]];
    const target = this.pick([
      ['GET', '/admin/status', undefined], ['POST', '/admin/deposits', { address: this.world.traders[0]!.address, amount: '1000000' }],
      ['POST', `/admin/markets/${market.conditionId}/pause`, undefined], ['POST', `/admin/markets/${market.conditionId}/resume`, undefined],
      ['POST', `/admin/markets/${market.conditionId}/resolve`, { winner: market.outcomes[0] }],
      ['POST', '/admin/events', { title: 'Hostile', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'Hostile?' }] }],
      ['PUT', `/admin/profiles/${this.world.traders[0]!.address}`, { name: '<script>alert(1)</script>' }],
    ] as const);
    const [method, path, value] = target;
    return this.request('admin without the token', 'clob', method, path, UNAUTHORIZED, {
      headers: value === undefined ? headers : [...headers, ['Content-Type', 'application/json']], ...(value === undefined ? {} : { body: jsonBody(value) }),
    });
  }

  /** Bodies that do not parse, on every JSON route, with valid or no credentials: 400 before any handler runs. */
  private malformedBody(): HostileRequest {
    const [method, path] = this.pick([
      ['POST', '/books'], ['POST', '/prices'], ['POST', '/batch-prices-history'], ['POST', '/order'], ['POST', '/orders'], ['DELETE', '/order'],
      ['DELETE', '/orders'], ['DELETE', '/cancel-all'], ['DELETE', '/cancel-market-orders'], ['POST', '/v1/heartbeats'], ['POST', '/auth/api-key'],
      ['POST', '/admin/events'], ['POST', '/admin/deposits'], ['POST', `/admin/markets/${this.world.markets[0]!.conditionId}/resolve`],
      ['POST', `/admin/markets/${this.world.markets[0]!.conditionId}/pause`], ['PUT', `/admin/profiles/${ZERO_ADDRESS}`],
    ] as const);
    let text = this.pick(MALFORMED_JSON);
    if (this.chance(0.05)) text = '['.repeat(this.pick([1000, 100_000])); // deep and unterminated
    if (this.chance(0.3)) {
      // A valid body cut short.
      const whole = JSON.stringify({ order: this.pick(this.world.arsenal).order, owner: 'x', orderType: 'GTC' });
      text = whole.slice(0, 1 + this.prng.below(whole.length - 2));
    }
    const body = Buffer.from(text, 'utf8');
    const credentialed = !path.startsWith('/admin') && path !== '/auth/api-key' && !['/books', '/prices', '/batch-prices-history'].includes(path);
    // Never empty (an empty body is "none" where a body is optional, and would act with valid credentials).
    if (body.length === 0) throw new Error('a malformed body must not be empty');
    const headers: Header[] = credentialed && this.chance(0.7) ? this.l2(this.trader(), method, path, body) : path.startsWith('/admin') && this.chance(0.5) ? [['Authorization', 'Bearer wrong']] : [];
    return this.request('malformed JSON body', 'clob', method, path, INVALID_JSON, { body, headers: [...headers, ['Content-Type', 'application/json']] });
  }

  private heartbeat(): HostileRequest {
    const trader = this.trader();
    const path = '/v1/heartbeats';
    // Valid credentials with a body of the wrong shape. Not: a wrong id string (a refused heartbeat
    // still arms the dead-man switch: see the test's report), nor null bodies or ids (read as "").
    const value = this.pick<unknown>([[], 'x', 5, { heartbeat_id: 5 }, { heartbeat_id: {} }, { heartbeat_id: ['a'] }, { heartbeat_id: true }, true, [{ heartbeat_id: '' }]]);
    return this.json('POST', path, trader, value, 'heartbeat with a bad body', { statuses: [400] });
  }

  private invalidUtf8(): HostileRequest {
    const bad = this.pick(['\u00ff', '\u00fe\u00ff', '\u00c0\u00af', '\u00e0\u0080\u00af', '\u00ed\u00a0\u0080', '\u00f8\u0088\u0080\u0080\u0080', '\u00c3', '\u0080']);
    if (this.chance(0.5)) {
      const body = Buffer.concat([Buffer.from('[{"token_id":"'), Buffer.from(bad, 'latin1'), Buffer.from('"}]')]);
      return this.request('invalid UTF-8 body', 'clob', 'POST', this.pick(['/books', '/prices']), { statuses: [400] }, { body });
    }
    const [listener, path, name] = this.pick<[ListenerName, string, string]>([
      ['clob', '/book', 'token_id'], ['clob', '/markets', 'next_cursor'], ['catalog', '/public-search', 'q'], ['catalog', '/events', 'slug'],
      ['catalog', '/markets', 'slug'], ['data', '/activity', 'user'], ['data', '/trades', 'market'], ['catalog', '/tags', 'creator'],
    ]);
    const value = this.chance(0.5) ? bad : [...Buffer.from(bad, 'latin1')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
    return this.request('invalid UTF-8 in the query', listener, 'GET', `${path}?${name}=a${value}b`, READ);
  }

  private extraRoute(): HostileRequest {
    const entry = this.pick(this.world.extraRoutes);
    const path = entry.path.replace(/:[a-z_]+|\{[a-z_]+\}/gi, () => rawTarget(this.nasty()).replace(/%25/g, '%') || 'x');
    const body = entry.method === 'GET' ? undefined : Buffer.from(this.pick(MALFORMED_JSON.concat(NASTY_JSON)));
    return this.request(`route unknown to the fuzz: ${entry.method} ${entry.path}`, entry.listener, entry.method, path + this.query({ x: [] }).text, { statuses: [200, 400, 401, 403, 404, 405] }, body === undefined ? {} : { body });
  }
}

function randomUUIDFrom(prng: Prng): string {
  const digits = hex(prng, 32);
  return `${digits.slice(0, 8)}-${digits.slice(8, 12)}-4${digits.slice(13, 16)}-a${digits.slice(17, 20)}-${digits.slice(20)}`;
}

// ---------------------------------------------------------------------------------------------
// Requests the uWS parser itself refuses (see the test's report): each on its own connection.

export interface TransportProbe {
  readonly name: string;
  readonly listener: ListenerName;
  readonly bytes: readonly Buffer[];
  /** `must`: an HTTP answer is required; `may`: closing the connection without one is allowed. */
  readonly answer: 'must' | 'may';
  /** Statuses allowed when it answers. */
  readonly statuses: readonly number[];
}

export function transportProbes(world: World): TransportProbe[] {
  const head = (text: string) => Buffer.from(text, 'latin1');
  const headers = (count: number) => Array.from({ length: count }, (_, index) => `X-H${index}: v\r\n`).join('');
  const t = world.traders[0]!;
  const credentials = t.credentials!;
  const timestamp = String(world.nowS());
  const underscoreL2 = `POLY_ADDRESS: ${t.address}\r\nPOLY_API_KEY: ${credentials.apiKey}\r\nPOLY_PASSPHRASE: wrong\r\nPOLY_TIMESTAMP: ${timestamp}\r\nPOLY_SIGNATURE: ${'0'.repeat(64)}\r\n`;
  const big = Buffer.alloc(1024 * 1024 + 100, 'a');
  return [
    { name: '47 extra headers', listener: 'clob', bytes: [head(`GET /time HTTP/1.1\r\nHost: x\r\n${headers(47)}\r\n`)], answer: 'must', statuses: [200] },
    { name: '100 KiB of headers', listener: 'clob', bytes: [head(`GET /time HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 10 }, (_, i) => `X-${i}: ${'a'.repeat(10_240)}\r\n`).join('')}\r\n`)], answer: 'may', statuses: [200, 431] },
    { name: '16 KiB header value', listener: 'catalog', bytes: [head(`GET /tags HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(16_384)}\r\n\r\n`)], answer: 'must', statuses: [200] },
    { name: '3000-byte query', listener: 'clob', bytes: [head(`GET /book?token_id=${'1'.repeat(3000)} HTTP/1.1\r\nHost: x\r\n\r\n`)], answer: 'must', statuses: [400] },
    { name: 'declared body over 1 MiB', listener: 'clob', bytes: [head(`POST /books HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n`)], answer: 'must', statuses: [413] },
    // The server answers 413 and closes while the body is still coming: the reset may destroy the answer.
    { name: 'body over 1 MiB', listener: 'clob', bytes: [head(`POST /order HTTP/1.1\r\nHost: x\r\nContent-Length: ${big.length}\r\n\r\n`), big], answer: 'may', statuses: [413] },
    { name: 'chunked body over 1 MiB', listener: 'clob', bytes: [head(`POST /books HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${big.length.toString(16)}\r\n`), big, head('\r\n0\r\n\r\n')], answer: 'may', statuses: [413] },
    { name: 'GET with a body', listener: 'clob', bytes: [head('GET /time HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello')], answer: 'must', statuses: [200] },
    { name: 'two Content-Length headers', listener: 'clob', bytes: [head('POST /books HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n[]')], answer: 'may', statuses: [200, 400] },
    { name: 'Content-Length and chunked', listener: 'clob', bytes: [head('POST /books HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')], answer: 'may', statuses: [400] },
    { name: 'Content-Length of 11 digits', listener: 'clob', bytes: [head('POST /books HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n')], answer: 'may', statuses: [400, 413] },
    { name: 'negative Content-Length', listener: 'clob', bytes: [head('POST /books HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n[]')], answer: 'may', statuses: [400] },
    { name: 'HEAD', listener: 'clob', bytes: [head('HEAD /time HTTP/1.1\r\nHost: x\r\n\r\n')], answer: 'may', statuses: [200, 405] },
    { name: 'unknown method FOO', listener: 'clob', bytes: [head('FOO /time HTTP/1.1\r\nHost: x\r\n\r\n')], answer: 'may', statuses: [400, 405, 501] },
    { name: 'lower-case method', listener: 'catalog', bytes: [head('get /tags HTTP/1.1\r\nHost: x\r\n\r\n')], answer: 'may', statuses: [400, 405, 501] },
    { name: 'credential headers with underscores', listener: 'clob', bytes: [head(`GET /data/orders HTTP/1.1\r\nHost: x\r\n${underscoreL2}\r\n`)], answer: 'may', statuses: [401] },
    { name: 'header name with an underscore', listener: 'catalog', bytes: [head('GET /tags HTTP/1.1\r\nHost: x\r\nX_Custom: 1\r\n\r\n')], answer: 'may', statuses: [200, 400] },
    { name: '48 extra headers', listener: 'clob', bytes: [head(`GET /time HTTP/1.1\r\nHost: x\r\n${headers(48)}\r\n`)], answer: 'may', statuses: [200, 431] },
    { name: '200 extra headers', listener: 'data', bytes: [head(`GET /trades HTTP/1.1\r\nHost: x\r\n${headers(200)}\r\n`)], answer: 'may', statuses: [200, 431] },
    { name: 'space before the colon', listener: 'clob', bytes: [head('GET /time HTTP/1.1\r\nHost: x\r\nX-A : 1\r\n\r\n')], answer: 'may', statuses: [400] },
    { name: 'header line without a colon', listener: 'clob', bytes: [head('GET /time HTTP/1.1\r\nHost: x\r\nX-A 1\r\n\r\n')], answer: 'may', statuses: [400] },
    { name: 'control character in a header value', listener: 'clob', bytes: [head('GET /time HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n')], answer: 'may', statuses: [200, 400] },
    { name: 'NUL in the query', listener: 'clob', bytes: [head('GET /book?token_id=\u0000 HTTP/1.1\r\nHost: x\r\n\r\n')], answer: 'may', statuses: [400] },
    { name: 'no Host header', listener: 'clob', bytes: [head('GET /time HTTP/1.1\r\n\r\n')], answer: 'may', statuses: [200, 400] },
    { name: 'HTTP/1.0', listener: 'clob', bytes: [head('GET /time HTTP/1.0\r\n\r\n')], answer: 'may', statuses: [200, 400, 505] },
    { name: 'absolute-form target', listener: 'clob', bytes: [head('GET http://x/time HTTP/1.1\r\nHost: x\r\n\r\n')], answer: 'may', statuses: [200, 400, 404] },
    { name: 'asterisk target', listener: 'clob', bytes: [head('OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n')], answer: 'may', statuses: [400, 404, 405] },
    { name: 'bare LF line endings', listener: 'clob', bytes: [head('GET /time HTTP/1.1\nHost: x\n\n')], answer: 'may', statuses: [200, 400] },
    { name: '100 KB request target', listener: 'clob', bytes: [head(`GET /book?token_id=${'1'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)], answer: 'may', statuses: [400, 414, 431] },
    { name: 'garbage request line', listener: 'data', bytes: [head('\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003\r\n\r\n')], answer: 'may', statuses: [400] },
    { name: 'WebSocket upgrade without a key', listener: 'clob', bytes: [head('GET /ws/market HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n')], answer: 'may', statuses: [400, 404, 426] },
  ];
}

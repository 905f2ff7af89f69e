// One signed order as POST /order and POST /orders receive it (contract §4), turned into what
// the engine takes: the signed struct is validated field by field, its EIP-712 digest becomes
// the order id, the signature must recover the signer, the signer must be the API key's address
// and the owner the API key. Amounts become an integer price (units of 0.0001) and size (micros)
// without floating point, by Polymarket's rules for each side and type (order_amounts.ts). Every
// refusal is an HttpError(400) with the contract's text.
//
// With several front ends (FRONT_ENDS), the thread that took the request has already worked out
// each order's digest and signer (prepareOrder, on that thread); the main thread uses them when
// they were made for the exchange the token's market trades on, and does both itself otherwise.
import { OrderType, Side } from '../../engine/command.js';
import { rejectText } from '../../engine/events/reject_text.js';
import { EncodingError, orderDigest, parseUint256, toHex, ZERO_BYTES32, type OrderStruct } from '../auth/eip712.js';
import type { ApiKeyRecord } from '../auth/l2.js';
import { isSignaturesBusy, signaturesBusy } from '../auth/verifier.js';
import { formatUnits } from '../decimal.js';
import { HttpError, badRequest } from '../errors.js';
import type { MarketRecord } from '../catalog/model.js';
import type { PlaceOrder } from './client.js';
import { readOrderAmounts } from './order_amounts.js';

/** A token as the order routes see it: its market and which outcome it is. */
export interface TokenPlace {
  readonly market: MarketRecord;
  readonly outcome: number;
}

/** What placing an order reads of its token's market: all a front-end thread is told of one (edge.ts). */
export type OrderMarket = Pick<MarketRecord, 'conditionId' | 'negRisk' | 'tickUnits' | 'minSizeMicros'>;

/** A token as an order's checks see it. */
export interface OrderToken {
  readonly market: OrderMarket;
  readonly outcome: number;
}

/** Whether a token's market is still what a thread checked an order against. */
export function sameMarket(token: OrderToken, seen: OrderToken): boolean {
  const { market } = token;
  return token.outcome === seen.outcome && market.conditionId === seen.market.conditionId && market.negRisk === seen.market.negRisk
    && market.tickUnits === seen.market.tickUnits && market.minSizeMicros === seen.market.minSizeMicros;
}

/**
 * An order a front-end thread checked in full (front_end/edge.ts), as it hands it to the main
 * thread instead of its request: the key it authenticated it with, and the market it checked it
 * against, for the main thread to confirm (trading/order_routes.ts placeChecked).
 */
export interface CheckedOrder extends CheckedKey, OrderToken {
  readonly tokenId: string;
  readonly place: PlaceOrder;
}

/** The key a front-end thread authenticated a request with, for the main thread to confirm. */
export interface CheckedKey {
  readonly apiKey: string;
  readonly secret: Uint8Array;
  readonly passphrase: string;
}

/** A cancel of one order a front-end thread checked in full (DELETE /order). */
export interface CheckedCancel extends CheckedKey {
  readonly orderId: string;
}

export interface OrderContext extends OrderDomains {
  readonly key: ApiKeyRecord;
  readonly token: (tokenId: string) => OrderToken | undefined;
  /** Who signed a digest (see auth/verifier.ts). */
  readonly recover: (digest: Uint8Array, signature: string) => Promise<string | undefined>;
}

/** A validated, signature-checked order ready for the trading client. */
export interface SignedOrder {
  readonly orderId: string;
  readonly tokenId: string;
  readonly place: PlaceOrder;
  readonly token: OrderToken;
}

/** Orders in one POST /orders (contract §4). */
export const BATCH_ORDERS_MAX = 15;

export const ORDER_TYPES: Readonly<Record<string, OrderType>> = { GTC: OrderType.GTC, GTD: OrderType.GTD, FOK: OrderType.FOK, FAK: OrderType.FAK };
/** An order id a cancel names: printable ASCII, 1–128 characters (the ids made here are 0x and 64 hex digits). */
export const ORDER_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;

/** Whether `value` is an order id a cancel may name (ORDER_ID_PATTERN). */
export function isOrderId(value: unknown): value is string {
  return typeof value === 'string' && ORDER_ID_PATTERN.test(value);
}
/** `order.expiration`: unix seconds as at most 15 digits (a JSON number is read through its text). */
export const EXPIRATION_PATTERN = /^[0-9]{1,15}$/;
const MICROS_DECIMALS = 6;
const PRICE_DECIMALS = 4;

/** A JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(order: Record<string, unknown>, name: string, fallback?: string): string {
  const value = order[name];
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value === 'string') return value;
  // The official clients send salt as a JSON number; accept any safe non-negative integer.
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  throw badRequest(`order.${name} must be a string`);
}

/** An amount in micros from a decimal string: a positive safe integer, or a 400. */
function amount(order: Record<string, unknown>, name: string): number {
  const value = text(order, name);
  let parsed: bigint;
  try {
    parsed = parseUint256(value, `order.${name}`);
  } catch (error) {
    throw badRequest((error as Error).message);
  }
  if (parsed <= 0n || parsed > BigInt(Number.MAX_SAFE_INTEGER)) throw badRequest(`order.${name} must be a positive integer of micros`);
  return Number(parsed);
}

function tickText(market: OrderMarket): string {
  return formatUnits(market.tickUnits, PRICE_DECIMALS);
}

/** An order body's fields as far as they need no catalog: what placing it and preparing it (prepareOrder) both read first. */
interface OrderBody {
  readonly order: Record<string, unknown>;
  readonly owner: string;
  readonly orderType: OrderType;
  readonly postOnly: boolean;
  readonly side: Side;
  readonly struct: OrderStruct;
}

/** The fields of one `{order, owner, orderType, postOnly?}`, checked in the order their 400s are answered. */
function readOrderBody(body: unknown): OrderBody {
  if (!isObject(body) || !isObject(body['order'])) throw badRequest('order must be an object');
  const order = body['order'];
  const owner = body['owner'];
  if (typeof owner !== 'string') throw badRequest('owner must be a string');
  const typeName = body['orderType'] ?? 'GTC';
  if (typeof typeName !== 'string' || ORDER_TYPES[typeName] === undefined) throw badRequest('orderType must be one of GTC, GTD, FOK, FAK');
  const orderType = ORDER_TYPES[typeName]!;
  const postOnly = body['postOnly'] ?? false;
  if (typeof postOnly !== 'boolean') throw badRequest('postOnly must be a boolean');
  const sideName = order['side'];
  if (sideName !== 'BUY' && sideName !== 'SELL') throw badRequest('order.side must be BUY or SELL');
  const side = sideName === 'BUY' ? Side.Buy : Side.Sell;
  const signatureType = order['signatureType'] ?? 0;
  if (typeof signatureType !== 'number' || !Number.isInteger(signatureType)) throw badRequest('order.signatureType must be an integer');
  if (signatureType !== 0) throw badRequest('unsupported signature type');
  const struct: OrderStruct = {
    salt: text(order, 'salt'), maker: text(order, 'maker'), signer: text(order, 'signer'), tokenId: text(order, 'tokenId'),
    makerAmount: text(order, 'makerAmount'), takerAmount: text(order, 'takerAmount'), side, signatureType,
    timestamp: text(order, 'timestamp', '0'), metadata: text(order, 'metadata', ZERO_BYTES32),
    builder: text(order, 'builder', ZERO_BYTES32),
  };
  return { order, owner, orderType, postOnly, side, struct };
}

/** The domain an order is signed in, but for its verifying contract (which its market's neg-risk flag picks). */
export interface OrderDomains {
  readonly chainId: number;
  readonly domainName: string;
  readonly exchangeAddress: string;
  readonly negRiskExchangeAddress: string;
}

/** The order's id: its EIP-712 digest under the exchange its market trades on (a 400 for a field it cannot encode). */
function orderDigestOf(domains: OrderDomains, struct: OrderStruct, negRisk: boolean): Uint8Array {
  const verifyingContract = negRisk ? domains.negRiskExchangeAddress : domains.exchangeAddress;
  try {
    return orderDigest({ name: domains.domainName, chainId: domains.chainId, verifyingContract }, struct);
  } catch (error) {
    if (error instanceof EncodingError) throw badRequest(error.message);
    throw error;
  }
}

/**
 * What a front-end thread worked out for one order before handing its request to the main thread
 * (front_end/edge.ts): the order's id (its digest under the exchange of `negRisk`) and the address
 * its signature recovers ('' for none). The two costliest steps of a placement that need no state.
 */
export interface PreparedOrder {
  readonly orderId: string;
  readonly negRisk: boolean;
  readonly signer: string;
}

/**
 * A preparation the thread's signature pool refused, its queue full: the order is refused there
 * as the pool refuses (503, signature checks are busy), not recovered on the main thread instead.
 */
export const SIGNATURES_BUSY = 'busy';

/** The prepared orders of one request, one per order of its body, and how to tell its thread about a token. */
export interface PreparedOrders {
  /** Per order of the body, in order (one for POST /order); undefined where the thread prepared none. */
  readonly orders: readonly (PreparedOrder | typeof SIGNATURES_BUSY | undefined)[];
  /** Counts a signature the thread recovered that the placement used. */
  used(): void;
  /** Tells the thread a token's market, so that it prepares (and checks) that token's next orders itself. */
  learn(tokenId: string, token: OrderToken): void;
  /** Tells the thread a key that authenticated a placement, so that it authenticates the key's next ones itself. */
  authenticated(key: ApiKeyRecord): void;
}

/**
 * Prepares one order of a body as readSignedOrder would check it, on a thread that has no catalog:
 * `negRiskOf` says what it learned of each token (undefined: nothing yet), `recover` is its own
 * verifier's. Undefined when the order cannot be prepared (or the verifier refused the work); placing
 * it then does, or refuses, everything itself.
 */
export async function prepareOrder(
  body: unknown, domains: OrderDomains, negRiskOf: (tokenId: string) => boolean | undefined,
  recover: (digest: Uint8Array, signature: string) => Promise<string | undefined>,
): Promise<PreparedOrder | typeof SIGNATURES_BUSY | undefined> {
  try {
    const { order, struct } = readOrderBody(body);
    const negRisk = negRiskOf(struct.tokenId);
    const signature = order['signature'];
    if (negRisk === undefined || typeof signature !== 'string') return undefined;
    const digest = orderDigestOf(domains, struct, negRisk);
    return { orderId: toHex(digest), negRisk, signer: (await recover(digest, signature)) ?? '' };
  } catch (error) {
    return isSignaturesBusy(error) ? SIGNATURES_BUSY : undefined;
  }
}

/**
 * Parses, checks and signature-verifies one `{order, owner, orderType, postOnly?}`. `prepared`:
 * what a front-end thread worked out for it (prepareOrder), used when it assumed the exchange the
 * token's market trades on; `preparing`: that thread, told of the token when it did not.
 */
export async function readSignedOrder(
  body: unknown, context: OrderContext, nowMs: number, prepared?: PreparedOrder | typeof SIGNATURES_BUSY, preparing?: PreparedOrders,
): Promise<SignedOrder> {
  const { order, owner, orderType, postOnly, side, struct } = readOrderBody(body);
  const token = context.token(struct.tokenId);
  if (token === undefined) throw badRequest('market not found');
  const conditionId = order['conditionId'];
  if (conditionId !== undefined && (typeof conditionId !== 'string' || conditionId.toLowerCase() !== token.market.conditionId.toLowerCase())) {
    throw badRequest('order.conditionId does not match the token');
  }
  const negRisk = token.market.negRisk;
  const busy = prepared === SIGNATURES_BUSY;
  const usable = prepared !== undefined && prepared !== SIGNATURES_BUSY && prepared.negRisk === negRisk;
  const digest = usable ? undefined : orderDigestOf(context, struct, negRisk);
  const orderId = usable ? (prepared as PreparedOrder).orderId : toHex(digest!);
  const signature = order['signature'];
  if (typeof signature !== 'string') throw badRequest('order.signature must be a string');
  let signer: string | undefined;
  if (usable) {
    signer = prepared.signer === '' ? undefined : prepared.signer;
    preparing?.used();
  } else if (busy) {
    throw signaturesBusy();
  } else {
    signer = await context.recover(digest!, signature);
    preparing?.learn(struct.tokenId, token);
  }
  if (signer === undefined || signer !== struct.signer.toLowerCase()) throw badRequest('invalid signature');
  if (struct.maker.toLowerCase() !== struct.signer.toLowerCase()) throw badRequest('invalid signature');
  if (owner !== context.key.apiKey) throw badRequest('the order owner has to be the owner of the API KEY');
  if (signer !== context.key.address) throw badRequest('the order signer address has to be the address of the API KEY');

  const expiration = expirationMs(order, orderType, nowMs);
  const makerAmount = amount(order, 'makerAmount');
  const takerAmount = amount(order, 'takerAmount');
  const amounts = readOrderAmounts(side, orderType, makerAmount, takerAmount, token.market.tickUnits);
  if (amounts.kind === 'invalid') throw badRequest(amounts.text);
  if (amounts.kind === 'rejected') {
    const shares = side === Side.Buy ? takerAmount : makerAmount;
    throw new HttpError(400, rejectText(amounts.code, {
      orderId, price: formatUnits(amounts.priceMicros, MICROS_DECIMALS), tick: tickText(token.market),
      size: formatUnits(shares, MICROS_DECIMALS), minSize: formatUnits(token.market.minSizeMicros, MICROS_DECIMALS),
    }));
  }
  return {
    orderId, tokenId: struct.tokenId, token,
    place: {
      account: signer, orderId, marketKey: token.market.conditionId, outcome: token.outcome, side, orderType,
      priceUnits: amounts.priceUnits, sizeMicros: amounts.sizeMicros, expirationMs: expiration, postOnly,
    },
  };
}

/** GTD needs `order.expiration` (unix seconds); other types take none or "0". */
function expirationMs(order: Record<string, unknown>, orderType: OrderType, nowMs: number): number {
  const raw = order['expiration'] ?? '0';
  const value = typeof raw === 'number' ? String(raw) : raw;
  if (typeof value !== 'string' || !EXPIRATION_PATTERN.test(value)) throw badRequest('invalid expiration');
  const seconds = Number(value);
  if (orderType !== OrderType.GTD) {
    if (seconds !== 0) throw badRequest('invalid expiration');
    return 0;
  }
  // The engine checks the 60 s lead against the command's time; a past or missing one fails there too.
  if (seconds === 0 || seconds * 1000 < nowMs) throw badRequest('invalid expiration');
  return seconds * 1000;
}

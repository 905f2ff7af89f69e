// Order placement and cancels on the CLOB listener (contract §4), every one behind L2
// authentication. An answer is written only after the shard committed the command durably.
import { OUTCOME_ANY } from '../../engine/command.js';
import type { EngineEvent } from '../../engine/events/event_objects.js';
import { filledTakerMicros } from '../../engine/ledger/fill_collateral.js';
import { rejectText } from '../../engine/events/reject_text.js';
import type { Reject } from '../../engine/events/reject.js';
import { authenticateRequest, L2_HEADER_NAMES, type ApiKeyRecord } from '../auth/l2.js';
import type { ApiKeyStore } from '../auth/keys.js';
import type { SignatureVerifier } from '../auth/verifier.js';
import { formatUnits } from '../decimal.js';
import { badRequest, HttpError } from '../errors.js';
import { json, type Reply } from '../respond.js';
import { requestRef } from '../request_schemas.js';
import { arrayOf, ok, ref } from '../response_schemas.js';
import { CANCEL_CAPS, PLACE_CAPS, type AccountCharge } from '../rate_limit.js';
import { CHARGED, route, type Route } from '../router.js';
import type { TradingClient, TradeResult } from './client.js';
import { ShardUnavailable } from './shards.js';
import {
  BATCH_ORDERS_MAX, isObject, isOrderId, readSignedOrder, sameMarket,
  type CheckedCancel, type CheckedKey, type CheckedOrder, type OrderContext, type OrderDomains, type PreparedOrders, type SignedOrder, type TokenPlace,
} from './order_request.js';

/** Ids in one DELETE /orders (contract §4). */
export const CANCEL_IDS_MAX = 1000;

export interface OrderRouteDeps {
  readonly client: TradingClient;
  readonly keys: ApiKeyStore;
  readonly authWindowS: number;
  readonly domains: OrderDomains;
  readonly token: (tokenId: string) => TokenPlace | undefined;
  readonly verifier: SignatureVerifier;
  readonly now: () => number;
  /** The per-account caps of placing (POST /order windows) and of cancelling (DELETE /order windows). */
  readonly chargePlace: AccountCharge;
  readonly chargeCancel: AccountCharge;
}

const authenticate = authenticateRequest;

interface Placement {
  readonly success: boolean;
  readonly errorMsg: string;
  readonly orderID: string;
  readonly status: string;
  readonly makingAmount: string;
  readonly takingAmount: string;
}

const MICROS = 6;
const PRICE_DECIMALS = 4;

/** The engine's answer as contract §4's placement object, or the rejection's text. */
function placementOf(order: SignedOrder, result: TradeResult): Placement | string {
  const { orderId, place, token } = order;
  let shares = 0;
  let collateral = 0;
  const events = result.events;
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!;
    if (event.kind === 'ORDER_REJECTED' && event.orderId === orderId) {
      return rejectText(event.reason as Reject, {
        orderId, price: formatUnits(place.priceUnits, PRICE_DECIMALS), tick: formatUnits(token.market.tickUnits, PRICE_DECIMALS),
        size: formatUnits(place.sizeMicros, MICROS), minSize: formatUnits(token.market.minSizeMicros, MICROS),
      });
    }
    if (event.kind === 'FILL' && event.takerOrderId === orderId) {
      // The engine writes the maker's ORDER_UPDATED right after its FILL: its remainder gives the
      // fill's collateral as the engine rounded it (engine/ledger/fill_collateral.ts).
      const maker = events[index + 1];
      if (maker?.kind !== 'ORDER_UPDATED' || maker.orderId !== event.makerOrderId) throw new Error('a FILL without its maker\'s update');
      shares += event.sizeMicros;
      collateral += filledTakerMicros(event.fillKind, event.makerSide, event.makerPriceUnits, maker.remainingMicros, event.sizeMicros);
    }
  }
  const buy = place.side === 0;
  return {
    success: true, errorMsg: '', orderID: orderId, status: shares > 0 ? 'matched' : 'live',
    makingAmount: formatUnits(buy ? collateral : shares, MICROS), takingAmount: formatUnits(buy ? shares : collateral, MICROS),
  };
}

function orderContext(deps: OrderRouteDeps, key: ApiKeyRecord): OrderContext {
  return { key, ...deps.domains, token: deps.token, recover: (digest, signature) => deps.verifier.recover(digest, signature) };
}

/** What of a thread's check no longer holds: the thread then hands the whole request over, and the route checks it again. */
export type Unconfirmed = 'key' | 'market';

/**
 * The answer to one order a front-end thread checked in full (front_end/edge.ts), once its key
 * and its market as the thread saw them are confirmed to be still the main thread's.
 */
export async function placeChecked(deps: OrderRouteDeps, checked: CheckedOrder): Promise<Reply | Unconfirmed> {
  const key = confirmedKey(deps, checked);
  const token = deps.token(checked.tokenId);
  const { place } = checked;
  if (key === undefined || key.address !== place.account) return 'key';
  if (token === undefined || !sameMarket(token, checked)) return 'market';
  return placementReply(placementOf({ orderId: place.orderId, tokenId: checked.tokenId, place, token }, await deps.client.placeOrder(place)));
}

/** POST /order's answer: the placement, or the 400 of its refusal's text. */
function placementReply(placement: Placement | string): Reply {
  if (typeof placement === 'string') throw badRequest(placement);
  return json(placement);
}

/** DELETE /order's answer: the caller's cancel of one order. */
async function cancelOne(deps: OrderRouteDeps, address: string, orderId: string): Promise<Reply> {
  return json(cancelAnswer((await deps.client.cancelOrder(address, orderId)).events));
}

/** A DELETE /order a front-end thread checked in full: as placeChecked, for a cancel. */
export async function cancelChecked(deps: OrderRouteDeps, checked: CheckedCancel): Promise<Reply | Unconfirmed> {
  const key = confirmedKey(deps, checked);
  if (key === undefined) return 'key';
  return cancelOne(deps, key.address, checked.orderId);
}

/** The key a thread authenticated with, when it is still the main thread's (not revoked, the same secret and passphrase). */
function confirmedKey(deps: OrderRouteDeps, checked: CheckedKey): ApiKeyRecord | undefined {
  const key = deps.keys.lookup(checked.apiKey);
  return key !== undefined && key.secretBytes.equals(checked.secret) && key.passphrase === checked.passphrase ? key : undefined;
}

/** One order of a body: `index` is its place there, which a front-end thread's preparations follow. */
async function placeOne(deps: OrderRouteDeps, key: ApiKeyRecord, body: unknown, preparing: PreparedOrders | undefined, index: number): Promise<Placement | string> {
  let order: SignedOrder;
  try {
    order = await readSignedOrder(body, orderContext(deps, key), deps.now(), preparing?.orders[index], preparing);
  } catch (error) {
    if (error instanceof HttpError && error.status === 400) return error.message;
    throw error;
  }
  return placementOf(order, await deps.client.placeOrder(order.place));
}

interface CancelAnswer {
  canceled: string[];
  not_canceled: Record<string, string>;
}

const noContext = { orderId: '', price: '', tick: '', size: '', minSize: '' };

function cancelAnswer(events: readonly EngineEvent[], answer: CancelAnswer = { canceled: [], not_canceled: {} }): CancelAnswer {
  for (const event of events) {
    if (event.kind === 'ORDER_CANCELLED') answer.canceled.push(event.orderId);
    else if (event.kind === 'CANCEL_REJECTED') answer.not_canceled[event.orderId] = rejectText(event.reason, noContext);
  }
  return answer;
}

function orderIdOf(value: unknown): string {
  if (!isOrderId(value)) throw badRequest('invalid order id');
  return value;
}

const nonEmpty = { type: 'string', minLength: 1 } as const;

export function orderRoutes(deps: OrderRouteDeps): Route[] {
  const headers = L2_HEADER_NAMES;
  const cancelled = ok(ref('CancelResult'));
  return [
    route({
      method: 'POST', path: '/order', limits: ['order writes'], summary: 'Place one signed order.', keyLimits: PLACE_CAPS, headers, body: 'json',
      request: requestRef('OrderRequest'), response: ok(ref('OrderPlacement')),
      handler: async (context): Promise<Reply> => {
        const key = authenticate(deps, context);
        const preparing = context.prepared as PreparedOrders | undefined;
        // A thread that checked the order in full has charged the key's caps already.
        if (context.charged !== CHARGED.all) deps.chargePlace(key, 1);
        preparing?.authenticated(key);
        return placementReply(await placeOne(deps, key, context.body, preparing, 0));
      },
    }),
    route({
      method: 'POST', path: '/orders', limits: ['order writes'], summary: `Place up to ${BATCH_ORDERS_MAX} signed orders; each answers on its own.`, keyLimits: PLACE_CAPS, headers, body: 'json',
      // An entry the order parser refuses is answered in its place ({success: false}), not with a 400: the route takes any entries.
      request: {
        type: 'array', items: { anyOf: [requestRef('OrderRequest'), { description: 'Anything else: answered {success: false, errorMsg} in its place.' }] },
        minItems: 1, maxItems: BATCH_ORDERS_MAX,
      },
      response: ok(arrayOf(ref('OrderPlacement'))),
      handler: async (context): Promise<Reply> => {
        const key = authenticate(deps, context);
        const body = context.body;
        if (!Array.isArray(body) || body.length === 0) throw badRequest('body must be a non-empty array of orders');
        if (body.length > BATCH_ORDERS_MAX) throw badRequest(`at most ${BATCH_ORDERS_MAX} orders per request`);
        deps.chargePlace(key, body.length);
        const preparing = context.prepared as PreparedOrders | undefined;
        preparing?.authenticated(key);
        const answers = await Promise.all(body.map(async (entry, index) => {
          try {
            return await placeOne(deps, key, entry, preparing, index);
          } catch (error) {
            if (error instanceof HttpError) return error.message;
            throw error;
          }
        }));
        return json(answers.map((answer) => (typeof answer === 'string'
          ? { success: false, errorMsg: answer, orderID: '', status: '', makingAmount: '', takingAmount: '' }
          : answer)));
      },
    }),
    route({
      method: 'DELETE', path: '/order', limits: ['order writes'], summary: 'Cancel one order of the caller: {orderID}.', keyLimits: CANCEL_CAPS, headers, body: 'json',
      request: { type: 'object', properties: { orderID: requestRef('OrderId') }, required: ['orderID'] }, response: cancelled,
      handler: async (context): Promise<Reply> => {
        const key = authenticate(deps, context);
        // A thread that checked the cancel in full has charged the key's caps already.
        if (context.charged !== CHARGED.all) deps.chargeCancel(key, 1);
        (context.prepared as PreparedOrders | undefined)?.authenticated(key);
        if (!isObject(context.body)) throw badRequest('body must be {"orderID": "..."}');
        return cancelOne(deps, key.address, orderIdOf(context.body['orderID']));
      },
    }),
    route({
      method: 'DELETE', path: '/orders', limits: ['order writes'], summary: `Cancel up to ${CANCEL_IDS_MAX} orders of the caller: [ids].`, keyLimits: CANCEL_CAPS, headers, body: 'json',
      request: { type: 'array', items: requestRef('OrderId'), maxItems: CANCEL_IDS_MAX }, response: cancelled,
      handler: async (context): Promise<Reply> => {
        const key = authenticate(deps, context);
        const body = context.body;
        if (!Array.isArray(body)) throw badRequest('body must be an array of order ids');
        if (body.length > CANCEL_IDS_MAX) throw badRequest(`at most ${CANCEL_IDS_MAX} order ids per request`);
        const ids = [...new Set(body.map(orderIdOf))];
        deps.chargeCancel(key, Math.max(1, ids.length));
        const answer: CancelAnswer = { canceled: [], not_canceled: {} };
        // Each id on its own: one whose shard is down is not_canceled with the 503's reason (retry
        // it), and the others' cancels, committed, are answered as done. All down: the 503 itself.
        const settled = await Promise.allSettled(ids.map((id) => deps.client.cancelOrder(key.address, id)));
        if (settled.length > 0 && settled.every((outcome) => outcome.status === 'rejected')) throw settled[0]!.reason;
        settled.forEach((outcome, index) => {
          if (outcome.status === 'fulfilled') cancelAnswer(outcome.value.events, answer);
          else if (outcome.reason instanceof ShardUnavailable) answer.not_canceled[ids[index]!] = outcome.reason.message;
          else throw outcome.reason;
        });
        return json(answer);
      },
    }),
    route({
      method: 'DELETE', path: '/cancel-all', limits: ['order writes'], summary: 'Cancel every open order of the caller.', keyLimits: CANCEL_CAPS, headers, body: 'optional-json',
      request: requestRef('IgnoredBody'), response: cancelled,
      handler: async (context): Promise<Reply> => {
        const key = authenticate(deps, context);
        deps.chargeCancel(key, 1);
        return json(cancelAnswer((await deps.client.cancelAll(key.address)).events));
      },
    }),
    route({
      method: 'DELETE', path: '/cancel-market-orders', limits: ['order writes'], summary: 'Cancel the caller\'s orders in one market or token: {market?, asset_id?}.',
      keyLimits: CANCEL_CAPS, headers, body: 'optional-json', response: cancelled,
      request: {
        type: 'object',
        description: 'A market (condition id, any letter case) or a token that is not "", or both (then they must agree, else nothing is cancelled).',
        properties: { market: { type: 'string' }, asset_id: { type: 'string' } },
        anyOf: [{ properties: { market: nonEmpty }, required: ['market'] }, { properties: { asset_id: nonEmpty }, required: ['asset_id'] }],
      },
      handler: async (context): Promise<Reply> => {
        const key = authenticate(deps, context);
        deps.chargeCancel(key, 1);
        const body = context.body ?? {};
        if (!isObject(body)) throw badRequest('body must be {"market"?: "...", "asset_id"?: "..."}');
        const market = body['market'];
        const assetId = body['asset_id'];
        if (market !== undefined && typeof market !== 'string') throw badRequest('market must be a string');
        if (assetId !== undefined && typeof assetId !== 'string') throw badRequest('asset_id must be a string');
        const token = assetId === undefined || assetId === '' ? undefined : deps.token(assetId);
        if (assetId !== undefined && assetId !== '' && token === undefined) return json({ canceled: [], not_canceled: {} });
        // Condition ids are hex: any letter case names the same market.
        const conditionId = token?.market.conditionId ?? market?.toLowerCase();
        if (conditionId === undefined || conditionId === '') throw badRequest('market or asset_id is required');
        if (token !== undefined && market !== undefined && market !== '' && market.toLowerCase() !== token.market.conditionId.toLowerCase()) {
          return json({ canceled: [], not_canceled: {} });
        }
        const result = await deps.client.cancelMarket(key.address, conditionId, token?.outcome ?? OUTCOME_ANY);
        return json(cancelAnswer(result.events));
      },
    }),
  ];
}


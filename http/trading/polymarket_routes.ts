// Account routes of Polymarket's CLOB that its official clients call and clobd has nothing behind:
// no account is ever restricted to closing its positions, nothing sends notifications, and no
// order earns liquidity rewards. Each answers what Polymarket answers an account in that state,
// in the shape the clients' types declare, so a bot that calls them (some before every order) runs
// unchanged. They authenticate like every account read (L2, 401 otherwise) and are charged like
// one: the `account` cap per client address and `account reads` per account.
import { authenticateRequest, L2_HEADER_NAMES, type L2Deps } from '../auth/l2.js';
import { badRequest } from '../errors.js';
import { string, stringList } from '../params.js';
import { json, type Reply } from '../respond.js';
import { requestRef } from '../request_schemas.js';
import { arrayOf, ok, ref, type Responses } from '../response_schemas.js';
import { route, type Route } from '../router.js';
import { isOrderId, ORDER_ID_PATTERN } from './order_request.js';

/** Most order ids one POST /orders-scoring names, and notification ids one DELETE /notifications names. */
export const SCORING_IDS_MAX = 500;
export const NOTIFICATION_IDS_MAX = 500;

const EMPTY_TYPE = 'text/plain';

/** Polymarket's answer to a request that only triggers work: 200 and no body at all (its clients read it as ""). */
export const EMPTY_ANSWER: Reply = { status: 200, body: '', contentType: EMPTY_TYPE };

/** The document of EMPTY_ANSWER. */
export function emptyAnswer(description: string): Responses {
  return { 200: { description, schema: { const: '' }, contentType: EMPTY_TYPE } };
}

const signatureType = string({ description: 'accepted and ignored (EOA only)', maxLength: 4 });
const CLOSED_ONLY = json({ closed_only: false });
const NO_NOTIFICATIONS = json([]);
const NOT_SCORING = json({ scoring: false });

export function polymarketRoutes(deps: L2Deps): Route[] {
  const account = { limits: ['account'], accountLimits: ['account reads'], headers: L2_HEADER_NAMES } as const;
  return [
    route({
      ...account, method: 'GET', path: '/auth/ban-status/closed-only',
      summary: 'Whether the caller may only close positions (Polymarket\'s getClosedOnlyMode): never here, {"closed_only": false}.',
      response: ok(ref('BanStatus')),
      handler: (context): Reply => {
        authenticateRequest(deps, context);
        return CLOSED_ONLY;
      },
    }),
    route({
      ...account, method: 'GET', path: '/notifications', query: { signature_type: signatureType },
      summary: "The caller's notifications (Polymarket's getNotifications): nothing sends any here, so always [].",
      response: ok(arrayOf(ref('Notification'))),
      handler: (context): Reply => {
        authenticateRequest(deps, context);
        return NO_NOTIFICATIONS;
      },
    }),
    route({
      ...account, method: 'DELETE', path: '/notifications',
      query: { ids: stringList({ maxItems: NOTIFICATION_IDS_MAX, maxLength: 128, description: 'comma-separated notification ids' }) },
      // Polymarket's Rust client sends the ids as a JSON body too (and signs it).
      body: 'optional-json', request: requestRef('IgnoredBody'),
      summary: "Dismisses the caller's notifications by id (Polymarket's dropNotifications): there are none; 200 and no body, as Polymarket answers.",
      response: emptyAnswer('Done: no body.'),
      handler: (context): Reply => {
        authenticateRequest(deps, context);
        return EMPTY_ANSWER;
      },
    }),
    route({
      ...account, method: 'GET', path: '/order-scoring',
      query: { order_id: string({ required: true, description: 'order id', maxLength: 128 }) },
      summary: 'Whether an order earns liquidity rewards (Polymarket\'s isOrderScoring): none does here, {"scoring": false}.',
      response: ok(ref('OrderScoring')),
      handler: (context): Reply => {
        authenticateRequest(deps, context);
        if (!ORDER_ID_PATTERN.test(context.query.order_id)) throw badRequest('invalid order id');
        return NOT_SCORING;
      },
    }),
    route({
      ...account, method: 'POST', path: '/orders-scoring', body: 'json',
      request: { type: 'array', items: requestRef('OrderId'), maxItems: SCORING_IDS_MAX },
      summary: `Whether each of up to ${SCORING_IDS_MAX} orders earns liquidity rewards (Polymarket's areOrdersScoring): {"<id>": false, ...}.`,
      response: ok(ref('OrdersScoring')),
      handler: (context): Reply => {
        authenticateRequest(deps, context);
        const body = context.body;
        if (!Array.isArray(body)) throw badRequest('body must be an array of order ids');
        if (body.length > SCORING_IDS_MAX) throw badRequest(`at most ${SCORING_IDS_MAX} order ids per request`);
        for (const id of body) if (!isOrderId(id)) throw badRequest('invalid order id');
        return json(Object.fromEntries((body as string[]).map((id) => [id, false])));
      },
    }),
  ];
}

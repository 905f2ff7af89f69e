// Admin routes on the CLOB listener, behind `Authorization: Bearer ADMIN_TOKEN`. When no token is
// configured the admin API is disabled and every admin route answers 403.
import { timingSafeEqual } from 'node:crypto';
import { ADDRESS, isAddress } from '../auth/eip712.js';
import type { EngineEvent } from '../../engine/events/event_objects.js';
import { rejectText } from '../../engine/events/reject_text.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { string } from '../params.js';
import { PROFILE_TEXT_MAX, type ProfileStore } from '../profiles.js';
import { readEvent } from '../catalog/ingest.js';
import type { MarketRecord } from '../catalog/model.js';
import type { CatalogStore } from '../catalog/store.js';
import type { CatalogViews } from '../catalog/views.js';
import { json } from '../respond.js';
import { matching, requestRef } from '../request_schemas.js';
import { ok, ref } from '../response_schemas.js';
import { route, type Route } from '../router.js';
import type { ShardStatus } from '../../engine/shard/protocol.js';

export interface AdminDeps {
  readonly adminToken: string | undefined;
  readonly store: CatalogStore;
  /** Renders the created event as the catalog does. */
  readonly views: CatalogViews;
  readonly now: () => number;
  /** Opens trading on new markets (registers them with their shards) before the answer. */
  readonly openMarkets: (markets: readonly MarketRecord[]) => Promise<void>;
  /** Credits external collateral durably; false past the exchange's collateral cap. */
  readonly deposit: (address: string, micros: number) => boolean;
  readonly profiles: ProfileStore;
  readonly trading: {
    setAccepting(conditionId: string, accepting: boolean): Promise<{ events: readonly EngineEvent[] }>;
    resolveMarket(conditionId: string, winner: number): Promise<{ events: readonly EngineEvent[] }>;
    statuses(): Promise<readonly ShardStatus[]>;
    /** The market's state in the engine, as the read model holds it (current once a command's answer is in). */
    marketState(conditionId: string): EngineMarketState | undefined;
  };
}

/** What the engine says of a market: the truth the catalog's flags follow. */
export interface EngineMarketState {
  readonly accepting: boolean;
  readonly resolved: boolean;
  readonly winner: number;
}

/** The engine's refusal of an admin command as a 400, or nothing. */
function refusalOf(events: readonly EngineEvent[]): HttpError | undefined {
  const rejected = events.find((event) => event.kind === 'COMMAND_REJECTED');
  return rejected === undefined ? undefined : badRequest(rejectText(rejected.reason, { orderId: '', price: '', tick: '', size: '', minSize: '' }));
}

const unauthorized = new HttpError(401, 'Unauthorized/Invalid api key');
const disabled = new HttpError(403, 'admin API is disabled: set ADMIN_TOKEN to enable it');

/** Throws unless the Authorization header carries the admin token (compared in constant time). */
export function requireAdmin(adminToken: string | undefined, authorization: string): void {
  if (adminToken === undefined) throw disabled;
  const expected = Buffer.from(`Bearer ${adminToken}`);
  const given = Buffer.from(authorization);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unauthorized;
}

const PROFILE_FIELDS = ['name', 'pseudonym', 'bio', 'profileImage'];
/** A deposit's amount as text: a positive integer of millionths that stays a safe integer. */
const DEPOSIT_AMOUNT = /^[1-9][0-9]{0,15}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function adminRoutes({ adminToken, store, views, now, openMarkets, deposit, profiles, trading }: AdminDeps): Route[] {
  const marketOf = (conditionId: string): MarketRecord => {
    const id = store.find('condition', conditionId.toLowerCase());
    const market = id === undefined ? undefined : store.market(id);
    if (market === undefined || !market.enableOrderBook) throw notFound('market not found');
    return market;
  };
  const conditionParam = { condition_id: string({ description: 'the market\'s condition id', maxLength: 66, required: true }) };
  const toggle = (action: 'pause' | 'resume') => route({
    method: 'POST',
    path: `/admin/markets/:condition_id/${action}`,
    summary: action === 'pause' ? 'Stop accepting orders in a market (resting orders stay).' : 'Accept orders in a market again.',
    headers: ['authorization'], limits: ['admin'],
    params: conditionParam,
    body: 'optional-json',
    request: requestRef('IgnoredBody'),
    response: ok(ref('MarketAcceptance')),
    handler: async ({ headers, params }) => {
      requireAdmin(adminToken, headers['authorization'] ?? '');
      const market = marketOf(params.condition_id);
      const accepting = action === 'resume';
      const refusal = refusalOf((await trading.setAccepting(market.conditionId, accepting)).events);
      if (refusal !== undefined) throw refusal;
      store.setMarketFlags(market.id, { acceptingOrders: accepting }, now());
      return json({ condition_id: market.conditionId, accepting_orders: accepting });
    },
  });
  return [
    toggle('pause'),
    toggle('resume'),
    route({
      method: 'POST',
      path: '/admin/markets/:condition_id/resolve',
      response: ok(ref('MarketResolution')),
      summary: 'Resolve a market: {"winner": "<outcome>"}; cancels its orders and pays 1.00 per winning share. Repeating it with the same winner answers the same (idempotent); another winner is a 400.',
      headers: ['authorization'], limits: ['admin'],
      params: conditionParam,
      body: 'json',
      request: {
        type: 'object', properties: { winner: { type: 'string', description: 'One of the market\'s outcomes, in any letter case.' } }, required: ['winner'],
      },
      handler: async ({ headers, params, body }) => {
        requireAdmin(adminToken, headers['authorization'] ?? '');
        const market = marketOf(params.condition_id);
        const winnerName = isObject(body) ? body['winner'] : undefined;
        const winner = typeof winnerName === 'string' ? market.outcomes.findIndex((outcome) => outcome.toLowerCase() === winnerName.toLowerCase()) : -1;
        if (winner === -1) throw badRequest(`winner must be one of ${market.outcomes.join(', ')}`);
        // The engine first, then the catalog. A repeat of a resolution the engine has made (a
        // retry after a lost answer, or after a crash between the two writes, which the start
        // also repairs) finishes it: the catalog is closed and the answer is the same.
        const resolved = (state: EngineMarketState | undefined): boolean => {
          if (state === undefined || !state.resolved) return false;
          if (state.winner !== winner) throw badRequest(`the market is already resolved; its winner is ${market.outcomes[state.winner] ?? state.winner}`);
          return true;
        };
        if (!resolved(trading.marketState(market.conditionId))) {
          const refusal = refusalOf((await trading.resolveMarket(market.conditionId, winner)).events);
          if (refusal !== undefined && !resolved(trading.marketState(market.conditionId))) throw refusal;
        }
        store.setMarketFlags(market.id, { acceptingOrders: false, closed: true }, now());
        return json({ condition_id: market.conditionId, winner: market.outcomes[winner], winner_token_id: market.tokenIds[winner] });
      },
    }),
    route({
      method: 'POST',
      path: '/admin/events',
      response: { 201: { description: 'The created event, as GET /events/{id} shows it.', schema: ref('Event') } },
      summary: 'Create an event with its markets from a Gamma-shaped body; the server assigns ids.',
      headers: ['authorization'], limits: ['admin'],
      body: 'json',
      request: requestRef('GammaEvent'),
      handler: async ({ headers, body }) => {
        requireAdmin(adminToken, headers['authorization'] ?? '');
        const event = store.createEvent(readEvent(body, '', 'create', now()));
        const markets = event.marketIds.map((id) => store.market(id)).filter((market) => market !== undefined);
        await openMarkets(markets);
        return json(views.eventFull(event, undefined), 201);
      },
    }),
    route({
      method: 'PUT',
      path: '/admin/profiles/:address',
      response: ok(ref('Profile')),
      summary: 'Set the public profile of an address: any of name, pseudonym, bio, profileImage.',
      headers: ['authorization'], limits: ['admin'],
      params: { address: string({ description: '0x address', maxLength: 42, required: true }) },
      body: 'json',
      request: {
        type: 'object', description: 'Any other field is refused.', properties: Object.fromEntries(PROFILE_FIELDS.map((name) => [name, { type: 'string', maxLength: PROFILE_TEXT_MAX }])), additionalProperties: false,
      },
      handler: ({ headers, params, body }) => {
        requireAdmin(adminToken, headers['authorization'] ?? '');
        if (!isAddress(params.address)) throw badRequest('address must be 0x and 40 hex digits');
        if (!isObject(body)) throw badRequest('body must be an object of profile fields');
        const fields: Record<string, string> = {};
        for (const [name, value] of Object.entries(body)) {
          if (!PROFILE_FIELDS.includes(name)) throw badRequest(`unknown profile field: ${name}`);
          if (typeof value !== 'string' || value.length > PROFILE_TEXT_MAX) throw badRequest(`${name} must be a string of at most ${PROFILE_TEXT_MAX} characters`);
          fields[name] = value;
        }
        return json({ address: params.address.toLowerCase(), ...profiles.set(params.address, fields) });
      },
    }),
    route({
      method: 'GET',
      path: '/admin/status',
      response: ok(ref('AdminStatus')),
      summary: "Every shard's state hash, sequence number, engine totals and whether the ledger invariants hold (checked now).",
      headers: ['authorization'], limits: ['admin'],
      handler: async ({ headers }) => {
        requireAdmin(adminToken, headers['authorization'] ?? '');
        const shards = await trading.statuses();
        return json({
          invariantsHold: shards.every((shard) => shard.invariantsHold),
          shards: shards.map(({ stateHash, seq, batch, invariantsHold, invariantError, stats }) => ({ stateHash, seq, batch, invariantsHold, invariantError, stats })),
        });
      },
    }),
    route({
      method: 'POST',
      path: '/admin/deposits',
      response: ok(ref('Deposit')),
      summary: 'Credit collateral to an address: {"address", "amount"} with amount in integer millionths.',
      headers: ['authorization'], limits: ['admin'],
      body: 'json',
      request: {
        type: 'object',
        properties: {
          address: matching(ADDRESS),
          amount: { anyOf: [matching(DEPOSIT_AMOUNT), { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }], description: 'millionths of collateral' },
        },
        required: ['address', 'amount'],
      },
      handler: ({ headers, body }) => {
        requireAdmin(adminToken, headers['authorization'] ?? '');
        if (!isObject(body)) throw badRequest('body must be {"address", "amount"}');
        const address = body['address'];
        const amount = body['amount'];
        if (typeof address !== 'string' || !isAddress(address)) throw badRequest('address must be 0x and 40 hex digits');
        const micros = typeof amount === 'string' && DEPOSIT_AMOUNT.test(amount) ? Number(amount) : amount;
        if (typeof micros !== 'number' || !Number.isSafeInteger(micros) || micros <= 0) throw badRequest('amount must be a positive integer of millionths');
        if (!deposit(address.toLowerCase(), micros)) throw badRequest('deposit exceeds the exchange collateral limit');
        return json({ address: address.toLowerCase(), amount: String(micros) });
      },
    }),
  ];
}

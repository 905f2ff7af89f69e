// Admin routes on the CLOB listener, behind `Authorization: Bearer ADMIN_TOKEN`. When no token is
// configured the admin API is disabled and every admin route answers 403.
import { timingSafeEqual } from 'node:crypto';
import { isAddress } from '../auth/eip712.js';
import { badRequest, HttpError } from '../errors.js';
import { readEvent } from '../catalog/ingest.js';
import type { MarketRecord } from '../catalog/model.js';
import type { CatalogStore } from '../catalog/store.js';
import { eventFull } from '../catalog/views.js';
import { json } from '../respond.js';
import { route, type Route } from '../router.js';

export interface AdminDeps {
  readonly adminToken: string | undefined;
  readonly store: CatalogStore;
  readonly now: () => number;
  /** Opens trading on new markets (registers them with their shards) before the answer. */
  readonly openMarkets: (markets: readonly MarketRecord[]) => Promise<void>;
  /** Credits external collateral durably; false past the exchange's collateral cap. */
  readonly deposit: (address: string, micros: number) => boolean;
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function adminRoutes({ adminToken, store, now, openMarkets, deposit }: AdminDeps): Route[] {
  return [
    route({
      method: 'POST',
      path: '/admin/events',
      summary: 'Create an event with its markets from a Gamma-shaped body; the server assigns ids.',
      headers: ['authorization'],
      body: 'json',
      handler: async ({ headers, body }) => {
        requireAdmin(adminToken, headers['authorization'] ?? '');
        const event = store.createEvent(readEvent(body, '', 'create', now()));
        const markets = event.marketIds.map((id) => store.market(id)).filter((market) => market !== undefined);
        await openMarkets(markets);
        return json(eventFull(store, event, undefined), 201);
      },
    }),
    route({
      method: 'POST',
      path: '/admin/deposits',
      summary: 'Credit collateral to an address: {"address", "amount"} with amount in integer millionths.',
      headers: ['authorization'],
      body: 'json',
      handler: ({ headers, body }) => {
        requireAdmin(adminToken, headers['authorization'] ?? '');
        if (!isObject(body)) throw badRequest('body must be {"address", "amount"}');
        const address = body['address'];
        const amount = body['amount'];
        if (typeof address !== 'string' || !isAddress(address)) throw badRequest('address must be 0x and 40 hex digits');
        const micros = typeof amount === 'string' && /^[1-9][0-9]{0,15}$/.test(amount) ? Number(amount) : amount;
        if (typeof micros !== 'number' || !Number.isSafeInteger(micros) || micros <= 0) throw badRequest('amount must be a positive integer of millionths');
        if (!deposit(address.toLowerCase(), micros)) throw badRequest('deposit exceeds the exchange collateral limit');
        return json({ address: address.toLowerCase(), amount: String(micros) });
      },
    }),
  ];
}

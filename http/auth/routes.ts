// Credential endpoints (contract §3). L1 (wallet signature over ClobAuth) creates and derives
// API keys; L2 lists and revokes them. A bad L1 request is one 401 whatever was wrong. Every one
// is capped per client address ('API keys'), creation also by the hour ('POST /auth/api-key'):
// the caps are charged before the signature is recovered. Creating and revoking answer once the
// write is synced, which happens off the front end's thread (keys.ts).
import { HttpError } from '../errors.js';
import { json, type Reply } from '../respond.js';
import { requestRef } from '../request_schemas.js';
import { ok, ref } from '../response_schemas.js';
import { route, type Route } from '../router.js';
import { clobAuthDigest, EncodingError, isAddress, parseUint256 } from './eip712.js';
import type { ApiKeyStore } from './keys.js';
import { authenticateRequest, credentialHeaderNames, L2_HEADER_NAMES, readCredentialHeader, type SignedRequest } from './l2.js';
import { recoverAddress } from './recover.js';

const INVALID_L1 = new HttpError(401, 'Invalid L1 Request headers');

export interface AuthRouteDeps {
  readonly keys: ApiKeyStore;
  readonly chainId: number;
  readonly authWindowS: number;
  readonly now: () => number;
}

const L1_HEADER_NAMES = credentialHeaderNames(['address', 'signature', 'timestamp', 'nonce']);

/** Per-client-address caps of every credential route (rate_limit.ts), and of creating a key. */
export const KEY_CAPS = ['account', 'API keys'] as const;
export const CREATE_KEY_CAPS = [...KEY_CAPS, 'POST /auth/api-key'] as const;

/** The lower-case address and the nonce of a valid L1 request; the 401 otherwise. */
function authenticateL1(deps: AuthRouteDeps, headers: Readonly<Record<string, string | undefined>>): { address: string; nonce: string } {
  const read = (name: string): string => readCredentialHeader(headers, name);
  const address = read('address');
  const signature = read('signature');
  const timestamp = read('timestamp');
  const nonce = read('nonce') || '0';
  if (!isAddress(address) || !/^[0-9]{1,12}$/.test(timestamp)) throw INVALID_L1;
  // The window also bounds how long a captured L1 header could be replayed to derive credentials.
  if (Math.abs(Math.floor(deps.now() / 1000) - Number(timestamp)) > deps.authWindowS) throw INVALID_L1;
  let digest: Uint8Array;
  try {
    digest = clobAuthDigest(deps.chainId, address, timestamp, parseUint256(nonce, 'nonce'));
  } catch (error) {
    if (error instanceof EncodingError) throw INVALID_L1;
    throw error;
  }
  if (recoverAddress(digest, signature) !== address.toLowerCase()) throw INVALID_L1;
  return { address: address.toLowerCase(), nonce };
}

export function authRoutes(deps: AuthRouteDeps): Route[] {
  const l2 = (context: SignedRequest) => authenticateRequest(deps, context);
  return [
    route({
      method: 'POST', path: '/auth/api-key', summary: 'Create API credentials for the wallet and nonce (L1).',
      limits: CREATE_KEY_CAPS, accountLimits: ['account reads'], headers: L1_HEADER_NAMES, body: 'optional-json', request: requestRef('IgnoredBody'),
      response: ok(ref('ApiCredentials')),
      handler: async ({ headers, chargeAccount }): Promise<Reply> => {
        const { address, nonce } = authenticateL1(deps, headers);
        chargeAccount(address);
        const made = await deps.keys.create(address, nonce, deps.now());
        if (made === undefined) throw new HttpError(400, 'Could not create api key');
        return json(made);
      },
    }),
    route({
      method: 'GET', path: '/auth/derive-api-key', summary: 'The API credentials made earlier for the wallet and nonce (L1).',
      limits: KEY_CAPS, accountLimits: ['account reads'], headers: L1_HEADER_NAMES, response: ok(ref('ApiCredentials')),
      handler: ({ headers, chargeAccount }): Reply => {
        const { address, nonce } = authenticateL1(deps, headers);
        chargeAccount(address);
        const found = deps.keys.derive(address, nonce);
        if (found === undefined) throw new HttpError(400, 'Could not derive api key!');
        return json(found);
      },
    }),
    route({
      method: 'GET', path: '/auth/api-keys', summary: "The caller's API keys (L2).", limits: KEY_CAPS, accountLimits: ['account reads'], headers: L2_HEADER_NAMES,
      response: ok(ref('ApiKeys')),
      handler: (context): Reply => json({ apiKeys: deps.keys.list(l2(context).address) }),
    }),
    route({
      method: 'DELETE', path: '/auth/api-key', summary: 'Revoke the API key the request is made with (L2); answered once that is durable.',
      limits: KEY_CAPS, accountLimits: ['account reads'], headers: L2_HEADER_NAMES,
      response: ok({ const: 'OK' }, 'The key is revoked, durably: every request signed with it is refused from now on.'),
      handler: async (context): Promise<Reply> => {
        await deps.keys.revoke(l2(context).apiKey);
        return json('OK');
      },
    }),
  ];
}

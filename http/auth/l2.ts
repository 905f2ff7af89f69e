// L2 request authentication (contract §3): five headers, SERVICE_* or POLY_* (the official
// Polymarket clients send POLY_*). The signature is HMAC-SHA256, keyed with the base64url-decoded
// secret, over timestamp + METHOD + path (no query) + the exact body bytes; it may be lowercase
// hex or URL-safe base64 with padding, and is compared in constant time. Every failure is the
// same 401: which check failed is never revealed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../errors.js';
import { uwsHeaderName } from '../uws.js';

export const UNAUTHORIZED = new HttpError(401, 'Unauthorized/Invalid api key');

/** What a key store gives back for an API key. */
export interface ApiKeyRecord {
  readonly apiKey: string;
  /** Lower-case 0x address. */
  readonly address: string;
  /** The raw HMAC key (the base64url-decoded secret). */
  readonly secretBytes: Buffer;
  readonly passphrase: string;
}

export interface L2Headers {
  readonly address: string;
  readonly apiKey: string;
  readonly passphrase: string;
  readonly timestamp: string;
  readonly signature: string;
}

/**
 * Prefixes of the credential headers, in the order they are looked up. Polymarket's clients send
 * the names with an underscore (POLY_ADDRESS; SERVICE_ADDRESS is clobd's own prefix), which the
 * uWS parser reads once tools/patch_uws.mjs has patched it; the same names with a hyphen are
 * accepted as well, and the router reads the underscore spellings only when no hyphen one came.
 */
export const CREDENTIAL_HEADER_PREFIXES = ['service_', 'poly_', 'service-', 'poly-'] as const;

/** Every spelling of each credential header name, made once (a request looks them up, it does not build them). */
const spellingsByName = new Map<string, readonly string[]>();

function spellingsOf(name: string): readonly string[] {
  let spellings = spellingsByName.get(name);
  if (spellings === undefined) {
    // One separator throughout a name (POLY_API_KEY, POLY-API-KEY): no client mixes them.
    spellings = CREDENTIAL_HEADER_PREFIXES.map((prefix) => `${prefix}${name.replaceAll(/[-_]/g, prefix.at(-1)!)}`);
    spellingsByName.set(name, spellings);
  }
  return spellings;
}

/** Every spelling of credential header `name` (lower-case, as uWS gives header names). */
export function credentialHeaderNames(names: readonly string[]): string[] {
  return names.flatMap((name) => spellingsOf(name));
}

/** The value of the first of `spellings` that is present and not empty, or ''. */
function firstPresent(headers: Readonly<Record<string, string | undefined>>, spellings: readonly string[]): string {
  for (const spelled of spellings) {
    const value = headers[spelled];
    if (value !== undefined && value !== '') return value;
  }
  return '';
}

/** The first non-empty spelling of credential header `name`, or ''. */
export function readCredentialHeader(headers: Readonly<Record<string, string | undefined>>, name: string): string {
  return firstPresent(headers, spellingsOf(name));
}

/** Header names the L2 check reads. */
export const L2_HEADER_NAMES = credentialHeaderNames(['address', 'api_key', 'passphrase', 'timestamp', 'signature']);

/** The API key's spellings: POLY_API_KEY, POLY-API-KEY and their SERVICE forms. */
const API_KEY_SPELLINGS = spellingsOf('api_key');
const ADDRESS_SPELLINGS = spellingsOf('address');
const PASSPHRASE_SPELLINGS = spellingsOf('passphrase');
const TIMESTAMP_SPELLINGS = spellingsOf('timestamp');
const SIGNATURE_SPELLINGS = spellingsOf('signature');

/** The five values; undefined when any is missing. */
export function readL2Headers(headers: Readonly<Record<string, string | undefined>>): L2Headers | undefined {
  const address = firstPresent(headers, ADDRESS_SPELLINGS);
  const apiKey = firstPresent(headers, API_KEY_SPELLINGS);
  const passphrase = firstPresent(headers, PASSPHRASE_SPELLINGS);
  const timestamp = firstPresent(headers, TIMESTAMP_SPELLINGS);
  const signature = firstPresent(headers, SIGNATURE_SPELLINGS);
  if (address === '' || apiKey === '' || passphrase === '' || timestamp === '' || signature === '') return undefined;
  return { address, apiKey, passphrase, timestamp, signature };
}

/**
 * The five values as the router reads a request's credential headers (router.ts headerReads): the
 * spellings with a hyphen, and those with '_' (as uWS names them: uwsHeaderName) only when no
 * hyphen one is present. `header` answers a name as uWS's getHeader does ('' when absent).
 */
export function readL2HeadersOf(header: (name: string) => string): L2Headers | undefined {
  const read: Record<string, string> = {};
  let found = false;
  for (const name of L2_HEADER_NAMES) {
    if (name.includes('_')) continue;
    const value = header(name);
    read[name] = value;
    if (value !== '') found = true;
  }
  if (!found) for (const name of L2_HEADER_NAMES) if (name.includes('_')) read[name] = header(uwsHeaderName(name));
  return readL2Headers(read);
}

const TIMESTAMP = /^[0-9]{1,12}$/;
const HEX_SIGNATURE = /^[0-9a-f]{64}$/;
const BASE64URL_SIGNATURE = /^[A-Za-z0-9_-]{43}=?$/;

/** The 32 signature bytes from lowercase hex or URL-safe base64; undefined when neither. */
function signatureBytes(signature: string): Buffer | undefined {
  if (HEX_SIGNATURE.test(signature)) return Buffer.from(signature, 'hex');
  if (BASE64URL_SIGNATURE.test(signature)) return Buffer.from(signature, 'base64url');
  return undefined;
}

function constantTimeEqualText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Checks an L2 request and returns the key it was made with; throws the 401 otherwise.
 * `lookup` finds a key by its id (undefined when unknown or revoked).
 */
export function authenticateL2(
  headers: L2Headers | undefined, method: string, path: string, body: Uint8Array,
  nowS: number, windowS: number, lookup: (apiKey: string) => ApiKeyRecord | undefined,
): ApiKeyRecord {
  if (headers === undefined || !TIMESTAMP.test(headers.timestamp)) throw UNAUTHORIZED;
  if (Math.abs(nowS - Number(headers.timestamp)) > windowS) throw UNAUTHORIZED;
  const key = lookup(headers.apiKey);
  const given = signatureBytes(headers.signature);
  if (key === undefined || given === undefined) throw UNAUTHORIZED;
  const mac = createHmac('sha256', key.secretBytes);
  mac.update(headers.timestamp);
  mac.update(method.toUpperCase());
  mac.update(path);
  mac.update(body);
  const expected = mac.digest();
  const signatureOk = timingSafeEqual(expected, given);
  const passphraseOk = constantTimeEqualText(headers.passphrase, key.passphrase);
  const addressOk = headers.address.toLowerCase() === key.address;
  if (!(signatureOk && passphraseOk && addressOk)) throw UNAUTHORIZED;
  return key;
}

/** What authenticating a request needs: the key lookup, the window and the clock. */
export interface L2Deps {
  readonly keys: { lookup(apiKey: string): ApiKeyRecord | undefined };
  readonly authWindowS: number;
  readonly now: () => number;
}

/** The parts of a request the L2 check reads (a route's context has them all). */
export interface SignedRequest {
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly method: string;
  readonly path: string;
  readonly rawBody: Uint8Array;
  /** Charges the route's per-account caps (router.ts); a refusal throws the 429. */
  readonly chargeAccount?: (address: string) => void;
}

/**
 * The caller's key for a routed request, or the 401; then the request is charged to the key's
 * account (its caps are the account's, shared by all its keys), or the 429.
 */
export function authenticateRequest(deps: L2Deps, request: SignedRequest): ApiKeyRecord {
  const key = authenticateL2(
    readL2Headers(request.headers), request.method, request.path, request.rawBody, Math.floor(deps.now() / 1000),
    deps.authWindowS, (apiKey) => deps.keys.lookup(apiKey),
  );
  request.chargeAccount?.(key.address);
  return key;
}

// The L2 check on its own: a correctly signed request passes with a hex or URL-safe base64
// signature and with either header prefix; each single wrong part fails with the same 401.
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { authenticateL2, readL2Headers, UNAUTHORIZED, type ApiKeyRecord } from '../../../http/auth/l2.js';

const secret = randomBytes(32);
const key: ApiKeyRecord = {
  apiKey: '7f2c7a8e-1b2c-4d5e-8f90-123456789abc', address: '0x5ca1ab1e00000000000000000000000000000b0b', secretBytes: secret,
  passphrase: 'ab'.repeat(32),
};
const lookup = (apiKey: string): ApiKeyRecord | undefined => (apiKey === key.apiKey ? key : undefined);
const now = 1_700_000_000;
const body = Buffer.from('{"orderID":"0xabc"}');

function hmac(timestamp: string, method: string, path: string, payload: Uint8Array, encoding: 'hex' | 'base64url'): string {
  const digest = createHmac('sha256', secret).update(`${timestamp}${method}${path}`).update(payload).digest();
  return encoding === 'hex' ? digest.toString('hex') : `${digest.toString('base64url')}=`;
}

function headers(overrides: Record<string, string> = {}, prefix = 'service'): Record<string, string> {
  const timestamp = overrides['timestamp'] ?? String(now);
  const values: Record<string, string> = {
    address: '0x5CA1AB1E00000000000000000000000000000B0B', api_key: key.apiKey, passphrase: key.passphrase, timestamp,
    signature: hmac(timestamp, 'DELETE', '/order', body, 'hex'), ...overrides,
  };
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [`${prefix}_${name}`, value]));
}

function check(raw: Record<string, string>, method = 'DELETE', path = '/order', payload: Uint8Array = body): ApiKeyRecord {
  return authenticateL2(readL2Headers(raw), method, path, payload, now, 30, lookup);
}

test('a signed request passes: hex or URL-safe base64, SERVICE_ or POLY_ headers, checksummed address', () => {
  assert.equal(check(headers()).apiKey, key.apiKey);
  assert.equal(check(headers({}, 'poly')).apiKey, key.apiKey);
  assert.equal(check(headers({ signature: hmac(String(now), 'DELETE', '/order', body, 'base64url') })).apiKey, key.apiKey);
  const edge = String(now - 30);
  assert.equal(check(headers({ timestamp: edge, signature: hmac(edge, 'DELETE', '/order', body, 'hex') })).apiKey, key.apiKey);
});

test('every single wrong part is the same 401', () => {
  const stale = String(now - 31);
  const future = String(now + 31);
  const cases: [string, () => unknown][] = [
    ['missing header', () => check(Object.fromEntries(Object.entries(headers()).filter(([name]) => name !== 'service_passphrase')))],
    ['bad hmac', () => check(headers({ signature: '0'.repeat(64) }))],
    ['uppercase hex', () => check(headers({ signature: hmac(String(now), 'DELETE', '/order', body, 'hex').toUpperCase() }))],
    ['stale timestamp', () => check(headers({ timestamp: stale, signature: hmac(stale, 'DELETE', '/order', body, 'hex') }))],
    ['future timestamp', () => check(headers({ timestamp: future, signature: hmac(future, 'DELETE', '/order', body, 'hex') }))],
    ['non-numeric timestamp', () => check(headers({ timestamp: '17e8' }))],
    ['wrong passphrase', () => check(headers({ passphrase: 'cd'.repeat(32) }))],
    ['wrong address', () => check(headers({ address: '0x0000000000000000000000000000000000000001' }))],
    ['unknown key', () => check(headers({ api_key: '00000000-0000-4000-8000-000000000000' }))],
    ['body altered after signing', () => check(headers(), 'DELETE', '/order', Buffer.from('{"orderID":"0xabd"}'))],
    ['other method', () => check(headers(), 'POST')],
    ['other path', () => check(headers(), 'DELETE', '/orders')],
  ];
  for (const [name, run] of cases) assert.throws(run, (error) => error === UNAUTHORIZED, name);
});

// API keys over HTTP against the real server (issue 39, "Keys"): an account's keys share its order
// caps, key creation and derivation are capped per client address, DELETE /auth/api-key revokes
// the key that signed it at once (a key the server had cached included), and a key acknowledged
// (made or deleted) survives kill -9.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { removeDataDir, request, startServer, temporaryDataDir, type RunningServer } from '../../support/server.js';
import { ADMIN_TOKEN, startTrading, Trader, type Credentials } from '../orders/trader.js';

const UNAUTHORIZED = { error: 'Unauthorized/Invalid api key' };

/** A RATE_LIMITS file of `overrides` in a directory of its own; removed by the caller. */
function capsFile(overrides: Record<string, { requests: number; windowSeconds?: number }>): { dir: string; path: string } {
  const dir = temporaryDataDir();
  const path = join(dir, 'caps.json');
  writeFileSync(path, JSON.stringify(overrides));
  return { dir, path };
}

async function stopAndRemove(server: RunningServer, ...dirs: string[]): Promise<void> {
  await server.stop();
  removeDataDir(server.dataDir);
  for (const dir of dirs) removeDataDir(dir);
}

/** A second key of the trader's wallet (nonce 1); the trader keeps signing with its first. */
async function secondKey(trader: Trader): Promise<{ first: Credentials; second: Credentials }> {
  const first = trader.credentials!;
  const second = await trader.createKey(1);
  trader.credentials = first;
  return { first, second };
}

test("an account's API keys share its order caps: a second key does not double them", async () => {
  const caps = capsFile({ 'POST /order burst': { requests: 3, windowSeconds: 60 }, 'DELETE /order burst': { requests: 2, windowSeconds: 60 } });
  const { server, markets, traders } = await startTrading([81, 82], { RATE_LIMITS: caps.path, SEED_DEMO: '0' });
  const [trader, other] = traders as [Trader, Trader];
  try {
    const { first, second } = await secondKey(trader);
    const token = markets[0]!.yes;
    const placed: string[] = [];
    for (let index = 0; index < 3; index++) {
      const answer = await trader.place({ tokenId: token, side: 'BUY', priceUnits: 1000 + 100 * index, sizeMicros: 5_000_000 });
      assert.equal(answer.status, 200, answer.text);
      placed.push(answer.orderId);
    }
    assert.equal((await trader.place({ tokenId: token, side: 'BUY', priceUnits: 1400, sizeMicros: 5_000_000 })).status, 429);
    trader.credentials = second;
    const withSecond = await trader.place({ tokenId: token, side: 'BUY', priceUnits: 1500, sizeMicros: 5_000_000 });
    assert.equal(withSecond.status, 429, 'the second key spends the same account\'s tokens');
    assert.ok(Number(withSecond.headers.get('retry-after')) >= 1);
    assert.equal((await trader.send('GET', `/data/order/${withSecond.orderId}`)).status, 404, 'the refused order was never placed');

    // Cancels: the same, with their own caps.
    trader.credentials = first;
    for (const orderId of placed.slice(0, 2)) assert.equal((await trader.send('DELETE', '/order', { orderID: orderId })).status, 200);
    trader.credentials = second;
    assert.equal((await trader.send('DELETE', '/order', { orderID: placed[2] })).status, 429);

    const answer = await other.place({ tokenId: token, side: 'BUY', priceUnits: 1600, sizeMicros: 5_000_000 });
    assert.equal(answer.status, 200, 'another account is not throttled');
  } finally {
    await stopAndRemove(server, caps.dir);
  }
});

test('key creation and derivation are capped per client address, across wallets', async () => {
  const caps = capsFile({ 'API keys': { requests: 4, windowSeconds: 60 } });
  const server = await startServer({ env: { RATE_LIMITS: caps.path, SEED_DEMO: '0' } });
  try {
    // Fresh wallets, one key each: the client's address is what is capped, not the wallet.
    const wallets = Array.from({ length: 4 }, (_, index) => new Trader(server.urls.clob, 9100 + index));
    for (const wallet of wallets.slice(0, 3)) await wallet.createKey();
    const derived = await request(`${server.urls.clob}/auth/derive-api-key`, { headers: wallets[0]!.l1Headers() });
    assert.equal(derived.status, 200, 'derivation spends the same cap');
    const refused = await request(`${server.urls.clob}/auth/api-key`, { method: 'POST', headers: wallets[3]!.l1Headers() });
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.body, { error: 'Too Many Requests' });
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const notDerived = await request(`${server.urls.clob}/auth/derive-api-key`, { headers: wallets[1]!.l1Headers() });
    assert.equal(notDerived.status, 429);
    assert.equal((await request(`${server.urls.clob}/`)).status, 200, 'other routes are not in the cap');
  } finally {
    await stopAndRemove(server, caps.dir);
  }
});

test('the key-creation cap refuses a burst from one client address with 429 and Retry-After', async () => {
  const caps = capsFile({ 'POST /auth/api-key': { requests: 2, windowSeconds: 3600 } });
  const server = await startServer({ env: { RATE_LIMITS: caps.path, SEED_DEMO: '0' } });
  try {
    const wallets = Array.from({ length: 3 }, (_, index) => new Trader(server.urls.clob, 9200 + index));
    await wallets[0]!.createKey();
    await wallets[1]!.createKey();
    const refused = await request(`${server.urls.clob}/auth/api-key`, { method: 'POST', headers: wallets[2]!.l1Headers() });
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1000, 'one creation comes back every 30 minutes');
    const derived = await request(`${server.urls.clob}/auth/derive-api-key`, { headers: wallets[0]!.l1Headers() });
    assert.equal(derived.status, 200, 'deriving makes nothing, so the creation cap does not refuse it');
  } finally {
    await stopAndRemove(server, caps.dir);
  }
});

test('DELETE /auth/api-key revokes the key that signed it, at once, and leaves the others', async () => {
  const server = await startServer({ env: { SEED_DEMO: '0' } });
  try {
    const trader = new Trader(server.urls.clob, 9300);
    await trader.createKey(0);
    const { first, second } = await secondKey(trader);
    // Used before the delete, so the server has the key in its cache.
    const listed = await trader.send<{ apiKeys: string[] }>('GET', '/auth/api-keys');
    assert.deepEqual(listed.body, { apiKeys: [first.apiKey, second.apiKey] });
    const deleted = await trader.send('DELETE', '/auth/api-key');
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body, 'OK');
    for (const [method, path] of [['GET', '/auth/api-keys'], ['DELETE', '/auth/api-key'], ['GET', '/data/orders']] as const) {
      const refused = await trader.send(method, path);
      assert.equal(refused.status, 401, `${method} ${path} with the deleted key`);
      assert.deepEqual(refused.body, UNAUTHORIZED);
    }
    trader.credentials = second;
    assert.deepEqual((await trader.send('GET', '/auth/api-keys')).body, { apiKeys: [second.apiKey] }, 'the deleted key is not listed');
    const derived = await request(`${server.urls.clob}/auth/derive-api-key`, { headers: trader.l1Headers(0) });
    assert.equal(derived.status, 400, 'its nonce derives nothing');
    const again = await trader.createKey(0);
    assert.notEqual(again.apiKey, first.apiKey, 'its nonce makes a new key');
  } finally {
    await stopAndRemove(server);
  }
});

test('a key acknowledged survives kill -9, and so does its deletion', async () => {
  const server = await startServer({ env: { ADMIN_TOKEN, SEED_DEMO: '0' } });
  const dataDir = server.dataDir;
  const kept = new Trader(server.urls.clob, 9400);
  const deleted = new Trader(server.urls.clob, 9401);
  let restarted: RunningServer | undefined;
  try {
    await deleted.createKey();
    const revoked = deleted.credentials!;
    // Many at once, then killed right after the last answer: every key answered 200 is stored.
    const made = await Promise.all(Array.from({ length: 20 }, (_, nonce) => kept.createKey(nonce)));
    const gone = await deleted.send('DELETE', '/auth/api-key');
    assert.equal(gone.status, 200, gone.text);
    assert.equal(await server.stop('SIGKILL'), null, 'killed by the signal');

    restarted = await startServer({ dataDir, env: { ADMIN_TOKEN, SEED_DEMO: '0' } });
    kept.clobUrl = restarted.urls.clob;
    deleted.clobUrl = restarted.urls.clob;
    for (const credentials of made) {
      kept.credentials = credentials;
      const listed = await kept.send<{ apiKeys: string[] }>('GET', '/auth/api-keys');
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(new Set(listed.body.apiKeys), new Set(made.map((key) => key.apiKey)));
    }
    deleted.credentials = revoked;
    assert.equal((await deleted.send('GET', '/auth/api-keys')).status, 401, 'the deleted key stays deleted');
  } finally {
    await restarted?.stop();
    if (server.process.exitCode === null && server.process.signalCode === null) await server.stop();
    removeDataDir(dataDir);
  }
});

test('concurrent creations for one wallet stop at its key limit and lose none', async () => {
  const server = await startServer({ env: { SEED_DEMO: '0' } });
  try {
    const wallet = new Trader(server.urls.clob, 9500);
    const answers = await Promise.all(Array.from({ length: 110 }, (_, nonce) => request<Credentials>(
      `${server.urls.clob}/auth/api-key`, { method: 'POST', headers: wallet.l1Headers(nonce) },
    )));
    const made = answers.filter((answer) => answer.status === 200).map((answer) => answer.body);
    assert.equal(made.length, 100, 'the limit is 100 keys per address');
    assert.ok(answers.every((answer) => answer.status === 200 || answer.text === '{"error":"Could not create api key"}'));
    wallet.credentials = made[0];
    const listed = await wallet.send<{ apiKeys: string[] }>('GET', '/auth/api-keys');
    assert.deepEqual(new Set(listed.body.apiKeys), new Set(made.map((key) => key.apiKey)));
    // The same (address, nonce) from two requests at once makes one key.
    const other = new Trader(server.urls.clob, 9501);
    const twice = await Promise.all([0, 1].map(() => request(`${server.urls.clob}/auth/api-key`, { method: 'POST', headers: other.l1Headers(7) })));
    assert.deepEqual(twice.map((answer) => answer.status).sort(), [200, 400]);
  } finally {
    await stopAndRemove(server);
  }
});

// Issue 40: py-clob-client decodes the secret with base64.urlsafe_b64decode, which refuses it
// without its padding ("Incorrect padding"): clobd issued 43 characters, Polymarket issues 44.
test('a secret is issued as Polymarket issues them: 44 characters of base64url with its padding, the same when derived', async () => {
  const server = await startServer();
  try {
    const trader = new Trader(server.urls.clob, 4040);
    const made = await trader.createKey(0);
    assert.match(made.secret, /^[A-Za-z0-9_-]{43}=$/);
    // What a strict decoder needs: a length that is a multiple of 4, and 32 bytes back.
    assert.equal(made.secret.length % 4, 0);
    assert.equal(Buffer.from(made.secret, 'base64url').length, 32);
    const derived = await request<Credentials>(`${server.urls.clob}/auth/derive-api-key`, { headers: trader.l1Headers(0) });
    assert.equal(derived.status, 200);
    assert.equal(derived.body.secret, made.secret);
    // The padded secret signs L2 requests.
    assert.equal((await trader.send('GET', '/auth/api-keys')).status, 200);
  } finally {
    await stopAndRemove(server);
  }
});


// The process as a user runs it: ready line, native uWS, the generic error answers, graceful
// shutdown, and data that survives a restart.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { isNativeUws } from '../../http/uws.js';
import { mainPath, removeDataDir, request, startServer, temporaryDataDir, type RunningServer } from '../support/server.js';

test('the native uWebSockets.js binary is loaded, not the JS fallback', () => {
  assert.equal(isNativeUws(), true);
});

test('startup fails loudly when uWS falls back to its JS imitation', () => {
  const dataDir = temporaryDataDir();
  try {
    const run = spawnSync(process.execPath, [mainPath], {
      env: { ...process.env, UWS_USE_FALLBACK: '1', PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 15_000,
    });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /native binary did not load/);
    assert.doesNotMatch(run.stdout, /listening/);
  } finally {
    removeDataDir(dataDir);
  }
});

test('an invalid setting is refused with the setting named and exit code 2', () => {
  const run = spawnSync(process.execPath, [mainPath, '--port', 'eighty'], { encoding: 'utf8', timeout: 15_000 });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /PORT must be an integer from 0 to 65535/);
});

describe('a running server', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ env: { ADMIN_TOKEN: 'admin-secret' } });
  });
  after(async () => {
    await server.stop();
    removeDataDir(server.dataDir);
  });

  test('prints exactly one ready line naming the three listeners', () => {
    const lines = server.output().stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', /^listening clob=http:\/\/127\.0\.0\.1:\d+ catalog=http:\/\/127\.0\.0\.1:\d+ data=http:\/\/127\.0\.0\.1:\d+$/);
    const ports = [server.urls.clob, server.urls.catalog, server.urls.data].map((url) => new URL(url).port);
    assert.equal(new Set(ports).size, 3);
  });

  test('GET / on the CLOB listener is the 4-byte JSON string "OK", and so is GET /ok (Polymarket\'s V2 clients ask it)', async () => {
    for (const path of ['/', '/ok']) {
      const response = await request(server.urls.clob + path);
      assert.equal(response.status, 200, path);
      assert.equal(response.text, '"OK"');
      assert.equal(response.headers.get('content-type'), 'application/json');
    }
  });

  test('every answer carries an X-Request-Id: the client\'s own when valid, else a new one per request', async () => {
    const first = await request(`${server.urls.catalog}/tags`);
    const second = await request(`${server.urls.clob}/nope`);
    const ids = [first.headers.get('x-request-id'), second.headers.get('x-request-id')];
    assert.ok(ids.every((id) => id !== null && /^[0-9a-f]{8}-[0-9a-z]+$/.test(id)), ids.join(' '));
    assert.notEqual(ids[0], ids[1]);
    const echoed = await request(`${server.urls.clob}/`, { headers: { 'x-request-id': 'bot-42.a_b' } });
    assert.equal(echoed.headers.get('x-request-id'), 'bot-42.a_b');
    const invalid = await request(`${server.urls.clob}/`, { headers: { 'x-request-id': 'has spaces' } });
    assert.notEqual(invalid.headers.get('x-request-id'), 'has spaces');
  });

  test('GET /health is live and GET /ready is ready once the ready line is printed', async () => {
    const health = await request(`${server.urls.clob}/health`);
    assert.deepEqual([health.status, health.body], [200, { status: 'ok' }]);
    const ready = await request<{ status: string; shards: number }>(`${server.urls.clob}/ready`);
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
    assert.ok(ready.body.shards >= 1);
  });

  test('unknown routes are 404 {"error":"not found"} on every listener', async () => {
    for (const base of [server.urls.clob, server.urls.catalog, server.urls.data]) {
      const response = await request(base + '/no/such/route');
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, { error: 'not found' });
    }
  });

  test('a known path with the wrong method is 405 with an Allow header', async () => {
    const response = await request(server.urls.catalog + '/events', { method: 'DELETE' });
    assert.equal(response.status, 405);
    assert.deepEqual(response.body, { error: 'method not allowed' });
    assert.equal(response.headers.get('allow'), 'GET');
  });

  test('a body over 1 MiB is refused with 413 before it is buffered', async () => {
    const body = JSON.stringify({ title: 'x'.repeat(1024 * 1024) });
    const response = await request(server.urls.clob + '/admin/events', {
      method: 'POST',
      headers: { authorization: 'Bearer admin-secret', 'content-type': 'application/json' },
      body,
    });
    assert.equal(response.status, 413);
    assert.deepEqual(response.body, { error: 'payload too large' });
  });

  test('a body of exactly 1 MiB is read and judged on its content', async () => {
    const filler = 'x'.repeat(1024 * 1024 - '{"title":""}'.length);
    const body = `{"title":"${filler}"}`;
    assert.equal(Buffer.byteLength(body), 1024 * 1024);
    const response = await request(server.urls.clob + '/admin/events', {
      method: 'POST',
      headers: { authorization: 'Bearer admin-secret' },
      body,
    });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 'title must be at most 512 characters' });
  });

  test('malformed JSON is a 400, never a 500', async () => {
    const response = await request(server.urls.clob + '/admin/events', { method: 'POST', headers: { authorization: 'Bearer admin-secret' }, body: '{"title":' });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 'invalid JSON body' });
  });
});

test('SIGTERM stops the server with exit code 0, and a restart keeps the catalog', async () => {
  const dataDir = temporaryDataDir();
  try {
    const first = await startServer({ dataDir, env: { ADMIN_TOKEN: 't' } });
    const created = await request<{ id: string; slug: string }>(first.urls.clob + '/admin/events', {
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      body: JSON.stringify({ title: 'Survives restart?', endDate: '2030-01-01T00:00:00Z', markets: [{ question: 'Does it survive?' }] }),
    });
    assert.equal(created.status, 201);
    const before = await request<unknown[]>(first.urls.catalog + '/events?limit=500');
    assert.equal(await first.stop('SIGTERM'), 0);

    const second = await startServer({ dataDir });
    try {
      const after = await request<unknown[]>(second.urls.catalog + '/events?limit=500');
      assert.deepEqual(after.body, before.body);
      const read = await request<{ slug: string }>(second.urls.catalog + '/events/' + created.body.id);
      assert.equal(read.body.slug, created.body.slug);
    } finally {
      assert.equal(await second.stop('SIGINT'), 0);
    }
  } finally {
    removeDataDir(dataDir);
  }
});

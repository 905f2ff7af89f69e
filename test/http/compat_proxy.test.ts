// The compatibility relay: header names lose their underscores and nothing else changes, for
// pipelined requests, Content-Length and chunked bodies (whose underscores stay), input split at
// every byte, and upgraded connections; end to end, the official clients' POLY_ header names
// reach the CLOB listener through it while the main listener drops them (the uWS bug it exists for).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { RequestRewriter } from '../../http/compat_proxy.js';
import { removeDataDir, request, startServer, temporaryDataDir, type RunningServer } from '../support/server.js';
import { compatUrlOf } from './orders/official_setup.js';
import { Trader } from './orders/trader.js';

function rewrite(input: string, splitEvery = 0): { output: string; failed: string } {
  let output = '';
  let failed = '';
  const rewriter = new RequestRewriter((bytes) => (output += bytes.toString('latin1')), (reason) => (failed = reason));
  const bytes = Buffer.from(input, 'latin1');
  if (splitEvery === 0) rewriter.push(bytes);
  else for (let at = 0; at < bytes.length; at += splitEvery) rewriter.push(bytes.subarray(at, at + splitEvery));
  return { output, failed };
}

const pipelined =
  'POST /order_x?a_b=1 HTTP/1.1\r\nPOLY_ADDRESS: 0xab_cd\r\nContent-Length: 11\r\nContent-Type: application/json\r\n\r\n{"a_b":"c"}' +
  'DELETE /orders HTTP/1.1\r\nPOLY_API_KEY: k_1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n[a_b]\r\n0\r\n\r\n' +
  'GET / HTTP/1.1\r\nX_Y: z\r\n\r\n';
const expected =
  'POST /order_x?a_b=1 HTTP/1.1\r\nPOLY-ADDRESS: 0xab_cd\r\nContent-Length: 11\r\nContent-Type: application/json\r\n\r\n{"a_b":"c"}' +
  'DELETE /orders HTTP/1.1\r\nPOLY-API-KEY: k_1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n[a_b]\r\n0\r\n\r\n' +
  'GET / HTTP/1.1\r\nX-Y: z\r\n\r\n';

test('only header names change, for pipelined requests split anywhere', () => {
  for (const split of [0, 1, 2, 3, 7, 64]) {
    const { output, failed } = rewrite(pipelined, split);
    assert.equal(failed, '');
    assert.equal(output, expected, `split every ${split} bytes`);
  }
});

test('an upgraded connection is relayed raw; oversized heads and bad lengths are refused', () => {
  const upgraded = rewrite('GET /ws/market HTTP/1.1\r\nUpgrade: websocket\r\nSEC_X: 1\r\n\r\n\x81\x05a_b_c');
  assert.equal(upgraded.output, 'GET /ws/market HTTP/1.1\r\nUpgrade: websocket\r\nSEC-X: 1\r\n\r\n\x81\x05a_b_c');
  assert.match(rewrite(`GET / HTTP/1.1\r\nX: ${'a'.repeat(70_000)}`).failed, /too large/);
  assert.match(rewrite('POST / HTTP/1.1\r\nContent-Length: -4\r\n\r\n').failed, /content-length/);
  assert.match(rewrite('POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n').failed, /chunk size/);
});

test('POLY_ headers reach the CLOB listener through COMPAT_PORT and nowhere else', async () => {
  const server = await startServer({ env: { COMPAT_PORT: '0', LOG_LEVEL: 'info', SEED_DEMO: '0' } });
  try {
    const compatUrl = compatUrlOf(server);
    const trader = new Trader(server.urls.clob, 77);
    const headers = Object.fromEntries(Object.entries(trader.l1Headers()).map(([name, value]) => [name.replace('SERVICE-', 'POLY_'), value]));
    const created = await request<{ apiKey: string }>(`${compatUrl}/auth/api-key`, { method: 'POST', headers });
    assert.equal(created.status, 200, created.text);
    assert.match(created.body.apiKey, /^[0-9a-f-]{36}$/);
    // The router reads no underscore header names because of this (PASSES_UNDERSCORE_HEADER_NAMES
    // in http/uws.ts): a uWS build that answers here needs that flag set.
    await assert.rejects(request(`${server.urls.clob}/auth/derive-api-key`, { headers }), 'the main listener drops underscore header names');
    const derived = await request<{ apiKey: string }>(`${compatUrl}/auth/derive-api-key`, { headers });
    assert.equal(derived.body.apiKey, created.body.apiKey);
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});

// ---- The client's address through the relay ----

/** The relay's header, spelled out: the tests hold the wire, not the constant. */
const RELAYED_FOR = 'x-clobd-relayed-for';
/** FEED_IP_ALLOWLIST of the relay server: the harness's own address and 127.0.0.3, not 127.0.0.2. */
const ALLOWLIST = '127.0.0.1,127.0.0.3';
/** GET / per client address: small, so a client spends it in a few requests. */
const ROOT_CAP = 3;
const SOCKETS_PER_IP = 2;

let relayServer: RunningServer;
let relayUrl: string;
let capsDir: string;

before(async () => {
  capsDir = temporaryDataDir();
  const capsFile = join(capsDir, 'caps.json');
  writeFileSync(capsFile, JSON.stringify({ 'GET /': { requests: ROOT_CAP, windowSeconds: 600 } }));
  relayServer = await startServer({
    env: {
      COMPAT_PORT: '0', LOG_LEVEL: 'info', SEED_DEMO: '0', FEED_IP_ALLOWLIST: ALLOWLIST, RATE_LIMITS: capsFile,
      WS_SOCKETS_PER_IP: String(SOCKETS_PER_IP),
    },
  });
  relayUrl = compatUrlOf(relayServer);
});

after(async () => {
  await relayServer.stop();
  removeDataDir(relayServer.dataDir);
  removeDataDir(capsDir);
});

/** A GET from `from` (Linux routes all of 127/8 to lo, so any of it is a client of its own). */
function getFrom(from: string, url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const sent = httpRequest({ host: target.hostname, port: target.port, path: target.pathname + target.search, localAddress: from, agent: false, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    sent.on('error', reject).end();
  });
}

/** Writes raw bytes from `from` and collects what comes back until the server closes or `waitMs` passes. */
function rawFrom(from: string, url: string, bytes: string, waitMs = 500): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const socket = connect({ host: target.hostname, port: Number(target.port), localAddress: from });
    let text = '';
    let closed = false;
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      done();
    });
    socket.write(bytes, 'latin1');
  });
}

/** The status of a WebSocket upgrade from `from`: 101 (the socket is kept open in `open`) or the refusal's. */
function upgradeFrom(from: string, url: string, open: WebSocket[]): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/ws/market`, { localAddress: from });
    ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    ws.on('open', () => {
      open.push(ws);
      resolve(101);
    });
    ws.on('error', () => resolve(0));
  });
}

test('FEED_IP_ALLOWLIST sees the real client through the relay', async () => {
  assert.equal((await getFrom('127.0.0.2', `${relayServer.urls.clob}/trades`)).status, 401, 'directly');
  const relayed = await getFrom('127.0.0.2', `${relayUrl}/trades`);
  assert.equal(relayed.status, 401, 'through the relay');
  assert.equal(relayed.text, '{"error":"unauthorized: ip_not_allowlisted"}');
  assert.equal((await getFrom('127.0.0.3', `${relayUrl}/trades`)).status, 200, 'a listed client through the relay');
  assert.equal((await getFrom('127.0.0.3', `${relayServer.urls.clob}/trades`)).status, 200, 'and directly');
});

test('caps are per real client through the relay, and one client shares them across both listeners', async () => {
  for (let count = 0; count < ROOT_CAP; count++) assert.equal((await getFrom('127.0.0.4', `${relayUrl}/`)).status, 200);
  assert.equal((await getFrom('127.0.0.4', `${relayUrl}/`)).status, 429, 'the client spent its cap through the relay');
  assert.equal((await getFrom('127.0.0.4', `${relayServer.urls.clob}/`)).status, 429, 'the same client directly is the same bucket');
  assert.equal((await getFrom('127.0.0.5', `${relayUrl}/`)).status, 200, 'another client through the relay keeps its own');
});

test('sockets per address count the real client through the relay', async () => {
  const open: WebSocket[] = [];
  try {
    for (let count = 0; count < SOCKETS_PER_IP; count++) assert.equal(await upgradeFrom('127.0.0.6', relayUrl, open), 101);
    assert.equal(await upgradeFrom('127.0.0.6', relayUrl, open), 429, 'one more from the same client');
    assert.equal(await upgradeFrom('127.0.0.6', relayServer.urls.clob, open), 429, 'the same client directly');
    assert.equal(await upgradeFrom('127.0.0.7', relayUrl, open), 101, 'another client through the relay');
  } finally {
    for (const ws of open) ws.close();
  }
});

test('a client cannot name its own address: the header is ignored directly and replaced by the relay', async () => {
  // A well-formed value with a guessed secret, naming an allow-listed address (127.0.0.1 = 7f000001).
  const forged = `${'0'.repeat(32)}:7f000001`;
  for (const name of [RELAYED_FOR, RELAYED_FOR.toUpperCase(), RELAYED_FOR.replaceAll('-', '_')]) {
    if (!name.includes('_')) assert.equal((await getFrom('127.0.0.2', `${relayServer.urls.clob}/trades`, { [name]: forged })).status, 401, `${name} directly`);
    assert.equal((await getFrom('127.0.0.2', `${relayUrl}/trades`, { [name]: forged })).status, 401, `${name} through the relay`);
  }
  const pipelined = `GET /trades HTTP/1.1\r\nHost: h\r\n${RELAYED_FOR}: ${forged}\r\n\r\n`.repeat(2);
  const answered = await rawFrom('127.0.0.2', relayUrl, pipelined);
  assert.equal(answered.text.match(/HTTP\/1\.1 401/g)?.length, 2, answered.text);
});

test('no request reaches the CLOB listener past the relay without the real address', async () => {
  const trades = 'GET /trades HTTP/1.1\r\nHost: h\r\n\r\n';
  const attempts: Record<string, string> = {
    // uWS answers an Upgrade request on a plain route (or refuses a WebSocket upgrade) and parses
    // what follows as more requests: the relay must not pass it on as raw bytes.
    'upgrade on a plain route': `GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n${trades}`,
    // uWS reads the first Content-Length, the old relay the last.
    'two content lengths': `POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nContent-Length: ${trades.length}\r\n\r\n${trades}`,
    // A bare LF ends a line for some parsers and not for others.
    'a bare line feed': `GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\nContent-Length: ${trades.length}\r\n\r\n${trades}`,
    // uWS takes chunked for any Transfer-Encoding; chunk data must end in CRLF.
    'chunk data without its CRLF': `POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n${trades}`,
  };
  for (const [what, bytes] of Object.entries(attempts)) {
    const answered = await rawFrom('127.0.0.2', relayUrl, bytes);
    // The feed page is a JSON array; every other answer here is an object or a string.
    assert.doesNotMatch(answered.text, /\r\n\r\n\[/, `${what}: /trades answered as if from the relay's address`);
  }
});

// The compatibility relay: header names lose their underscores and nothing else changes, for
// pipelined requests, Content-Length and chunked bodies (whose underscores stay), input split at
// every byte, and upgraded connections; every request carries the relay's header naming its
// client, and whatever uWS could frame otherwise than the relay is refused. End to end, the
// official clients' POLY_ header names reach the CLOB listener through it (the main listener
// answers them too, once tools/patch_uws.mjs has patched the uWS parser it exists for), and the allow-list, the caps and the WebSocket sockets
// per address see each real client through it, which no client can name itself.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { addressBytes, addressText, RelayTrust } from '../../http/client_address.js';
import { RequestRewriter } from '../../http/compat_proxy.js';
import { removeDataDir, request, startServer, temporaryDataDir, type RunningServer } from '../support/server.js';
import { compatUrlOf } from './orders/official_setup.js';
import { Trader } from './orders/trader.js';

/** The relay's header for client 127.0.0.2 under a fixed secret, as the rewriter puts it in. */
const MARK = new RelayTrust(Buffer.alloc(16, 7)).headerLine('127.0.0.2')!.toString('latin1');

interface Rewritten {
  output: string;
  failed: string;
  stopped: boolean;
  rewriter: RequestRewriter;
}

function rewrite(input: string, splitEvery = 0): Rewritten {
  const result = { output: '', failed: '', stopped: false } as Rewritten;
  result.rewriter = new RequestRewriter({
    write: (bytes) => (result.output += bytes.toString('latin1')),
    fail: (reason) => (result.failed = reason),
    stop: () => (result.stopped = true),
  }, Buffer.from(MARK, 'latin1'));
  const bytes = Buffer.from(input, 'latin1');
  if (splitEvery === 0) result.rewriter.push(bytes);
  else for (let at = 0; at < bytes.length; at += splitEvery) result.rewriter.push(bytes.subarray(at, at + splitEvery));
  return result;
}

const pipelined =
  'POST /order_x?a_b=1 HTTP/1.1\r\nPOLY_ADDRESS: 0xab_cd\r\nContent-Length: 11\r\nContent-Type: application/json\r\n\r\n{"a_b":"c"}' +
  'DELETE /orders HTTP/1.1\r\nPOLY_API_KEY: k_1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n[a_b]\r\n0\r\n\r\n' +
  'GET / HTTP/1.1\r\nX_Y: z\r\nx-clobd-relayed-for: forged\r\nX_CLOBD_Relayed_For: forged\r\n\r\n';
const expected =
  `POST /order_x?a_b=1 HTTP/1.1\r\n${MARK}POLY-ADDRESS: 0xab_cd\r\nContent-Length: 11\r\nContent-Type: application/json\r\n\r\n{"a_b":"c"}` +
  `DELETE /orders HTTP/1.1\r\n${MARK}POLY-API-KEY: k_1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n[a_b]\r\n0\r\n\r\n` +
  `GET / HTTP/1.1\r\n${MARK}X-Y: z\r\n\r\n`;

test('only header names change, each request gets the relay header and loses the client\'s copies, split anywhere', () => {
  assert.match(MARK, /^x-clobd-relayed-for: (07){16}:7f000002\r\n$/);
  for (const split of [0, 1, 2, 3, 7, 64]) {
    const { output, failed } = rewrite(pipelined, split);
    assert.equal(failed, '');
    assert.equal(output, expected, `split every ${split} bytes`);
  }
});

test('an upgrade turns raw only once the CLOB listener answered 101; anything else stops the connection', () => {
  const head = 'GET /ws/market HTTP/1.1\r\nUpgrade: websocket\r\nSEC_X: 1\r\n\r\n';
  const forwarded = `GET /ws/market HTTP/1.1\r\n${MARK}Upgrade: websocket\r\nSEC-X: 1\r\n\r\n`;
  const upgraded = rewrite(`${head}\x81\x05a_b_c`);
  assert.equal(upgraded.output, forwarded, 'the frame waits for the answer');
  upgraded.rewriter.answered(Buffer.from('HTTP/1.1 1'));
  upgraded.rewriter.answered(Buffer.from('01 Switching Protocols\r\n\r\n'));
  upgraded.rewriter.push(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
  assert.equal(upgraded.output, `${forwarded}\x81\x05a_b_cGET / HTTP/1.1\r\n\r\n`, 'raw after 101');
  assert.equal(upgraded.stopped, false);

  const refused = rewrite(`${head}GET /trades HTTP/1.1\r\n\r\n`);
  refused.rewriter.answered(Buffer.from('HTTP/1.1 429 Too Many Requests\r\n\r\n'));
  refused.rewriter.push(Buffer.from('GET /trades HTTP/1.1\r\n\r\n'));
  assert.equal(refused.output, forwarded, 'nothing after an upgrade the listener did not take');
  assert.equal(refused.stopped, true);
});

test('whatever uWS could frame otherwise than the relay is refused', () => {
  const refusals: Record<string, [string, RegExp]> = {
    'an oversized head': [`GET / HTTP/1.1\r\nX: ${'a'.repeat(70_000)}`, /too large/],
    'a negative length': ['POST / HTTP/1.1\r\nContent-Length: -4\r\n\r\n', /content-length/],
    'a length uWS would not read': ['POST / HTTP/1.1\r\nContent-Length: 1000000000\r\n\r\n', /content-length/],
    'a length in hex': ['POST / HTTP/1.1\r\nContent-Length: 0x3\r\n\r\nabc', /content-length/],
    'an empty length': ['POST / HTTP/1.1\r\nContent-Length:\r\n\r\n', /content-length/],
    'two lengths': ['POST / HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n', /content-length/],
    'a length and chunks': ['POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n', /both/],
    'another coding': ['POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n', /transfer-encoding/],
    'a bad chunk size': ['POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /chunk size/],
    'a chunk size uWS would not read': ['POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n10000000\r\n', /chunk size/],
    'a chunk extension': ['POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n', /chunk size/],
    'chunk data without its CRLF': ['POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n', /CRLF/],
    'trailers': ['POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n\r\n', /trailer/],
    'a bare LF': ['GET / HTTP/1.1\r\nX: 1\nContent-Length: 3\r\n\r\n', /header line/],
    'a bare CR': ['GET / HTTP/1.1\r\nX: 1\rY: 2\r\n\r\n', /header line/],
    'a space before the colon': ['GET / HTTP/1.1\r\nContent-Length : 3\r\n\r\n', /header line/],
    'a folded line': ['GET / HTTP/1.1\r\nX: 1\r\n Content-Length: 3\r\n\r\n', /header line/],
    'a field without a colon': ['GET / HTTP/1.1\r\nX\r\n\r\n', /header line/],
    'a NUL in a value': ['GET / HTTP/1.1\r\nX: a\0b\r\n\r\n', /header line/],
    'a bad request line': ['GET  / HTTP/1.1\r\n\r\n', /request line/],
    'a leading empty line': ['\r\nGET / HTTP/1.1\r\n\r\n', /request line/],
    'an upgrade after a request': ['GET / HTTP/1.1\r\n\r\nGET /ws/market HTTP/1.1\r\nUpgrade: websocket\r\n\r\n', /upgrade/],
    'an upgrade with a body': ['GET /ws/market HTTP/1.1\r\nUpgrade: websocket\r\nContent-Length: 3\r\n\r\nabc', /upgrade/],
  };
  for (const [what, [input, reason]] of Object.entries(refusals)) {
    const refused = rewrite(input);
    assert.match(refused.failed, reason, what);
    const output = refused.output;
    refused.rewriter.push(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    assert.equal(refused.output, output, `${what}: nothing more is forwarded`);
  }
  // The forms uWS reads as the same number pass.
  assert.equal(rewrite('POST / HTTP/1.1\r\nContent-Length:  03 \r\n\r\nabc').failed, '');
  assert.equal(rewrite('POST / HTTP/1.1\r\nTransfer-Encoding: CHUNKED\r\n\r\n0003\r\nabc\r\n0\r\n\r\n').failed, '');
});

test('addresses round-trip between Node\'s text, bytes and uWS\'s text', () => {
  assert.equal(addressText(addressBytes('127.0.0.2')!), '127.0.0.2');
  assert.equal(addressText(addressBytes('::ffff:127.0.0.2')!), '0000:0000:0000:0000:0000:ffff:7f00:0002');
  assert.equal(addressText(addressBytes('::1')!), '0000:0000:0000:0000:0000:0000:0000:0001');
  assert.equal(addressText(addressBytes('2001:db8::8a2e:370:7334')!), '2001:0db8:0000:0000:0000:8a2e:0370:7334');
  assert.equal(addressText(addressBytes('fe80::1%lo')!), 'fe80:0000:0000:0000:0000:0000:0000:0001');
  assert.equal(addressBytes('localhost'), undefined);
  assert.equal(addressBytes(undefined), undefined);
  const trust = new RelayTrust();
  const value = trust.headerLine('10.1.2.3')!.toString('latin1').split(': ')[1]!.trim();
  assert.deepEqual([...trust.addressOf(value)!], [10, 1, 2, 3]);
  assert.equal(new RelayTrust().addressOf(value), undefined, 'another process\'s secret');
  assert.equal(trust.addressOf(`${value}0`), undefined, 'a malformed address');
  assert.equal(trust.addressOf(value.slice(0, 32)), undefined);
});

// End to end: one server with the relay on, an allow-list, a small cap and few sockets per address.

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

/** Writes raw bytes from `from` and collects what comes back until the server closes, `enough` holds or `waitMs` passes. */
function rawFrom(from: string, url: string, bytes: string, enough = (_text: string) => false, waitMs = 2_000): Promise<{ text: string; closed: boolean }> {
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
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (enough(text)) done();
    });
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

test('POLY_ headers reach the CLOB listener through COMPAT_PORT as they do directly', async () => {
  const trader = new Trader(relayServer.urls.clob, 77);
  const headers = Object.fromEntries(Object.entries(trader.l1Headers()).map(([name, value]) => [name.replace('SERVICE-', 'POLY_'), value]));
  const created = await request<{ apiKey: string }>(`${relayUrl}/auth/api-key`, { method: 'POST', headers });
  assert.equal(created.status, 200, created.text);
  assert.match(created.body.apiKey, /^[0-9a-f-]{36}$/);
  // The main listener answers them too (tools/patch_uws.mjs); the relay stays for uWS binaries
  // the patch does not know.
  const direct = await request<{ apiKey: string }>(`${relayServer.urls.clob}/auth/derive-api-key`, { headers });
  assert.equal(direct.body.apiKey, created.body.apiKey);
  const derived = await request<{ apiKey: string }>(`${relayUrl}/auth/derive-api-key`, { headers });
  assert.equal(derived.body.apiKey, created.body.apiKey);
});

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
  const answered = await rawFrom('127.0.0.2', relayUrl, pipelined, (text) => text.split('ip_not_allowlisted').length === 3);
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
    assert.ok(answered.closed, `${what}: the relay closes the connection`);
  }
  const upgradeAnswer = await rawFrom('127.0.0.2', relayUrl, attempts['upgrade on a plain route']!);
  assert.match(upgradeAnswer.text, /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\n"OK"$/, 'the upgrade\'s own answer still arrives');
});

// Polymarket's official clients name their credential headers with an underscore (POLY_ADDRESS,
// POLY_API_KEY, ...). The uWS build that npm offers here never answered such a request (its
// parser waited for more input; the Python client timed out after 5 s), so only an opt-in relay
// could serve those clients. npm's postinstall patches the parser (tools/patch_uws.mjs): the
// default CLOB listener now answers both spellings, L1 and L2, on plain requests and pipelined
// ones, while a name that merely looks like a framing header (Content_Length) frames nothing.
//
// Pipelining is tested on a server of one front end: with FRONT_ENDS > 1 a connection another
// thread took is answered from the main thread, later than its request's turn of the event loop,
// and uWS v20.30 closes a connection whose next request arrives before such an answer (as it
// does on the main thread for every route that answers later, an order's; docs/api.md, HTTP
// pipelining).
//
// Also here, the signing domain's safe default: chain 80002 (Polygon Amoy), and the warning a
// server prints when CHAIN_ID=137 makes the signatures it accepts valid on Polymarket's exchange.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { probeUnderscoreHeaderNames } from '../../http/uws.js';
import { removeDataDir, request, startServer, type RunningServer } from '../support/server.js';
import { startTrading, type PlainMarket, type Trader } from './orders/trader.js';

let server: RunningServer;
/** One front end, for the pipelined requests. */
let single: RunningServer;
let trader: Trader;
let market: PlainMarket;

before(async () => {
  const setup = await startTrading([41]);
  server = setup.server;
  trader = setup.traders[0]!;
  market = setup.markets[0]!;
  single = await startServer({ env: { FRONT_ENDS: '1' } });
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
  await single.stop();
  removeDataDir(single.dataDir);
});

/** The headers as Polymarket's clients spell them: POLY_ and underscores throughout. */
function polySpelled(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.replace(/^SERVICE-/, 'POLY_').replaceAll('-', '_'), value]));
}

/** Raw bytes to the CLOB port; resolves with what came back once `done` holds (or the socket closes). */
function exchange(payload: string, done: (answer: string) => boolean, timeoutMs = 3_000, base = server.urls.clob): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms; got ${JSON.stringify(answer)}`));
    }, timeoutMs);
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (done(answer)) finish();
    });
    socket.on('close', finish);
    socket.on('error', reject);
    socket.write(payload);
  });
}

test('this process loaded a uWS binary that answers header names with an underscore', async () => {
  assert.equal(await probeUnderscoreHeaderNames(), true, 'run node tools/patch_uws.mjs (npm ci runs it)');
});

test('L1 with POLY_ headers on the default CLOB port: create, then derive the same key', async () => {
  const headers = polySpelled(trader.l1Headers(7));
  assert.ok(Object.keys(headers).includes('POLY_ADDRESS'));
  const created = await request<{ apiKey: string; secret: string }>(`${server.urls.clob}/auth/api-key`, { method: 'POST', headers });
  assert.equal(created.status, 200, created.text);
  const derived = await request<{ apiKey: string }>(`${server.urls.clob}/auth/derive-api-key`, { headers });
  assert.equal(derived.status, 200, derived.text);
  assert.equal(derived.body.apiKey, created.body.apiKey);
});

test('L2 with POLY_ headers on the default CLOB port: reads, an order and its cancel', async () => {
  const path = '/data/orders';
  const read = await request<{ data: unknown[] }>(`${server.urls.clob}${path}`, { headers: polySpelled(trader.l2Headers('GET', path, '')) });
  assert.equal(read.status, 200, read.text);
  assert.deepEqual(read.body.data, []);

  const { order, orderId } = trader.signOrder({ tokenId: market.yes, side: 'BUY', priceUnits: 4_000, sizeMicros: 10_000_000 });
  const body = JSON.stringify({ order, owner: trader.credentials!.apiKey, orderType: 'GTC' });
  const posted = await request<{ success: boolean; orderID: string }>(`${server.urls.clob}/order`, {
    method: 'POST', headers: { ...polySpelled(trader.l2Headers('POST', '/order', body)), 'content-type': 'application/json' }, body,
  });
  assert.equal(posted.status, 200, posted.text);
  assert.equal(posted.body.orderID, orderId);

  const cancelBody = JSON.stringify({ orderID: orderId });
  const cancelled = await request<{ canceled: string[] }>(`${server.urls.clob}/order`, {
    method: 'DELETE', headers: { ...polySpelled(trader.l2Headers('DELETE', '/order', cancelBody)), 'content-type': 'application/json' }, body: cancelBody,
  });
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.deepEqual(cancelled.body.canceled, [orderId]);
});

test('a wrong POLY_ signature is refused as a wrong hyphen one is, and the hyphen spelling wins when both are sent', async () => {
  const path = '/data/orders';
  const good = trader.l2Headers('GET', path, '');
  const forged = polySpelled(trader.l2Headers('GET', path, '', { signature: 'ab'.repeat(32) }));
  const refused = await request(`${server.urls.clob}${path}`, { headers: forged });
  assert.equal(refused.status, 401);
  assert.equal(refused.text, '{"error":"Unauthorized/Invalid api key"}');
  const both = await request(`${server.urls.clob}${path}`, { headers: { ...forged, ...good } });
  assert.equal(both.status, 200, 'the hyphen spellings are read first; the underscore ones only when none is present');
});

test('pipelined requests with underscore header names are each answered, in order', async () => {
  const request = (id: string): string => `GET /ok HTTP/1.1\r\nHost: x\r\nPOLY_ADDRESS: ${trader.address}\r\nX_Request_Tag: ${id}\r\n\r\n`;
  const answer = await exchange(request('a') + request('b') + request('c'), (text) => text.split('HTTP/1.1 200').length === 4, 3_000, single.urls.clob);
  assert.equal(answer.split('HTTP/1.1 200').length, 4, answer);
});

test('Content_Length and Transfer_Encoding are names like any other: they frame nothing', async () => {
  // A body framed by Content_Length would make "GET /ok" below part of the first request's body;
  // it is a second request, answered. (A relay or proxy that rewrote '_' to '-' would do the former.)
  const payload = 'GET /ok HTTP/1.1\r\nHost: x\r\nContent_Length: 25\r\n\r\n' + 'GET /ok HTTP/1.1\r\nHost: x\r\nTransfer_Encoding: chunked\r\n\r\n';
  const answer = await exchange(payload, (text) => text.split('HTTP/1.1 200').length === 3, 3_000, single.urls.clob);
  assert.equal(answer.split('HTTP/1.1 200').length, 3, answer);
});

test('a header name byte that is not a token character still gets no answer', async () => {
  // '.' stays outside the parser's name bytes (the patch widened them only by '_' and its
  // neighbours): such a request is left unanswered, as before, and the server stays up.
  await assert.rejects(exchange('GET /ok HTTP/1.1\r\nHost: x\r\nA.B: 1\r\n\r\n', (text) => text.includes('\r\n\r\n'), 500));
  assert.equal((await request(`${server.urls.clob}/ok`)).status, 200);
});

test('CHAIN_ID=137 starts with a warning that accepted signatures are valid on mainnet; the default does not', async () => {
  const defaults = server.output().stderr;
  assert.doesNotMatch(defaults, /mainnet_signing_domain/);
  assert.doesNotMatch(defaults, /underscore_header_names_unanswered/);
  const mainnet = await startServer({ env: { CHAIN_ID: '137', SEED_DEMO: '0' } });
  try {
    assert.match(mainnet.output().stderr, /mainnet_signing_domain.*Polygon mainnet/);
  } finally {
    await mainnet.stop();
    removeDataDir(mainnet.dataDir);
  }
});

// The compatibility relay: header names lose their underscores and nothing else changes, for
// pipelined requests, Content-Length and chunked bodies (whose underscores stay), input split at
// every byte, and upgraded connections; end to end, the official clients' POLY_ header names
// reach the CLOB listener through it while the main listener drops them (the uWS bug it exists for).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestRewriter } from '../../http/compat_proxy.js';
import { removeDataDir, request, startServer } from '../support/server.js';
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

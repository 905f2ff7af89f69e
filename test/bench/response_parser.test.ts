// The load generator frames responses from their bytes (bench/load/client.ts): statuses and
// Content-Length whatever the header's case, responses split across chunks or several in one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResponseParser } from '../../bench/load/client.js';

function response(status: number, body: string, lengthHeader = 'Content-Length'): string {
  return `HTTP/1.1 ${status} X\r\nDate: now\r\n${lengthHeader}: ${Buffer.byteLength(body)}\r\nx-request-id: 7\r\n\r\n${body}`;
}

function statuses(chunks: readonly string[]): number[] {
  const parser = new ResponseParser();
  const seen: number[] = [];
  for (const chunk of chunks) parser.push(Buffer.from(chunk, 'latin1'), (status) => seen.push(status));
  return seen;
}

test('responses are framed by Content-Length, split anywhere or several in one chunk', () => {
  const stream = response(200, '{"success":true}') + response(404, '') + response(503, 'x'.repeat(5000), 'content-length');
  assert.deepEqual(statuses([stream]), [200, 404, 503]);
  for (let cut = 1; cut < stream.length; cut += 7) {
    assert.deepEqual(statuses([stream.slice(0, cut), stream.slice(cut)]), [200, 404, 503], `cut at ${cut}`);
  }
  assert.deepEqual(statuses([...stream]), [200, 404, 503]);
});

test('the header name is matched in any case, and a response without it is refused', () => {
  assert.deepEqual(statuses([response(201, 'ab', 'CONTENT-LENGTH')]), [201]);
  assert.deepEqual(statuses([response(400, 'abc', 'Content-length')]), [400]);
  assert.throws(() => statuses(['HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello']), /without Content-Length/);
  assert.deepEqual(statuses([response(200, 'ab').slice(0, -1)]), [], 'a body one byte short is not a response yet');
});

test('an answer that is not 2xx comes with its bytes (the load CLI keeps a body of each status), a 2xx without', () => {
  const parser = new ResponseParser();
  const seen: [number, string | undefined][] = [];
  const stream = response(200, 'ok') + response(429, '{"error":"Too Many Requests"}') + response(204, '');
  for (const chunk of [stream.slice(0, 50), stream.slice(50)]) parser.push(Buffer.from(chunk, 'latin1'), (status, bytes) => seen.push([status, bytes?.toString('latin1')]));
  assert.deepEqual(seen, [[200, undefined], [429, response(429, '{"error":"Too Many Requests"}')], [204, undefined]]);
});

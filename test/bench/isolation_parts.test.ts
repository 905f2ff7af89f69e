// The isolation benchmark's parts that decide what it reports (bench/isolation/): its attackers
// frame the server's answers and WebSocket frames from raw bytes split anywhere, tell a 429 with
// Retry-After from one without, a PONG from an error message, and a close frame's code; a row is
// judged PASS only when the victim's p99 is within 2× its baseline's and every one of its
// requests was answered 200.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnswerSkimmer } from '../../bench/isolation/http_flood.js';
import { maskedTextFrame, FrameReader } from '../../bench/isolation/ws_flood.js';
import { emptyCounts, AddressRing } from '../../bench/isolation/counts.js';
import { tableOf, verdictOf, type Row } from '../../bench/isolation/table.js';
import type { VictimFigures } from '../../bench/isolation/victim.js';

function answer(status: number, body: string, extra = ''): string {
  return `HTTP/1.1 ${status} X\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

function skim(chunks: readonly Buffer[]): [number, boolean][] {
  const seen: [number, boolean][] = [];
  const skimmer = new AnswerSkimmer((status, retryAfter) => seen.push([status, retryAfter]));
  for (const chunk of chunks) skimmer.push(chunk);
  return seen;
}

test('answers are skimmed from bytes split anywhere: status, Retry-After, bodies skipped', () => {
  const stream = Buffer.from(answer(200, 'x'.repeat(70_000)) + answer(429, '{"error":"Too Many Requests"}', 'retry-after: 3\r\n')
    + answer(429, '', '') + answer(400, '{}'), 'latin1');
  const expected: [number, boolean][] = [[200, false], [429, true], [429, false], [400, false]];
  assert.deepEqual(skim([stream]), expected);
  for (let cut = 1; cut < stream.length; cut += 997) assert.deepEqual(skim([stream.subarray(0, cut), stream.subarray(cut)]), expected, `cut at ${cut}`);
  const bytes = [...stream.subarray(0, 400)].map((byte) => Buffer.from([byte]));
  assert.deepEqual(skim([...bytes, stream.subarray(400)]), expected);
  assert.throws(() => skim([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello')]), /without Content-Length/);
});

/** An unmasked server frame. */
function serverFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header = length < 126 ? Buffer.from([0x80 | opcode, length])
    : length < 65_536 ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
      : Buffer.concat([Buffer.from([0x80 | opcode, 127]), (() => {
        const long = Buffer.alloc(8);
        long.writeBigUInt64BE(BigInt(length));
        return long;
      })()]);
  return Buffer.concat([header, payload]);
}

test('server frames are read from bytes split anywhere: opcode, length and the start of each', () => {
  const close = Buffer.alloc(2);
  close.writeUInt16BE(1008);
  const frames = [
    serverFrame(1, Buffer.from('PONG')), serverFrame(1, Buffer.from(`{"error":"slow down"}`)), serverFrame(1, Buffer.from('x'.repeat(300))),
    serverFrame(1, Buffer.from('y'.repeat(70_000))), serverFrame(9, Buffer.alloc(0)), serverFrame(8, close),
  ];
  const stream = Buffer.concat(frames);
  const read = (chunks: readonly Buffer[]): string[] => {
    const seen: string[] = [];
    const reader = new FrameReader((opcode, length, start) => seen.push(`${opcode}:${length}:${start.toString('latin1', 0, 8)}`));
    for (const chunk of chunks) reader.push(chunk);
    return seen;
  };
  const expected = ['1:4:PONG', '1:21:{"error"', '1:300:xxxxxxxx', '1:70000:yyyyyyyy', '9:0:', `8:2:${close.toString('latin1')}`];
  assert.deepEqual(read([stream]), expected);
  for (let cut = 1; cut < stream.length; cut += 331) assert.deepEqual(read([stream.subarray(0, cut), stream.subarray(cut)]), expected, `cut at ${cut}`);
  assert.deepEqual(read([...stream.subarray(0, 340)].map((byte) => Buffer.from([byte])).concat(stream.subarray(340))), expected);
});

test('a client frame is masked, and unmasks to its text', () => {
  const text = 'z'.repeat(200);
  const frame = maskedTextFrame(text);
  assert.equal(frame[0], 0x81);
  assert.equal(frame[1], 0x80 | 126);
  assert.equal(frame.readUInt16BE(2), 200);
  const mask = frame.subarray(4, 8);
  const payload = Buffer.from(frame.subarray(8).map((byte, index) => byte ^ mask[index & 3]!));
  assert.equal(payload.toString(), text);
});

test('an attacker that hops moves to the next address; one that does not stays', () => {
  const hopping = new AddressRing(['a', 'b', 'c'], true);
  assert.deepEqual([hopping.first(0), hopping.first(1)], ['a', 'b']);
  assert.deepEqual([hopping.after('a'), hopping.after('b'), hopping.after('c')], ['c', 'a', 'b']);
  const staying = new AddressRing(['a'], false);
  assert.deepEqual([staying.first(0), staying.first(1), staying.after('a')], ['a', 'a', 'a']);
});

function victim(p99Ms: number, statusCounts: Record<string, number>, sent = 100, answered = 100): VictimFigures {
  const latency = { p50Ms: p99Ms / 2, p90Ms: p99Ms, p99Ms, p999Ms: p99Ms, maxMs: p99Ms, meanMs: p99Ms / 2 };
  return { sent, answered, statusCounts, skipped: 0, errors: 0, latency, sendLag: latency };
}

function row(figures: VictimFigures, baselineP99Ms: number | undefined): Row {
  return {
    pattern: 'p', addresses: baselineP99Ms === undefined ? '' : 'one', victim: figures, baselineP99Ms,
    attack: baselineP99Ms === undefined ? undefined : { counts: { ...emptyCounts(), sent: 10, ok: 4, refused: 6, retryAfter: 6 }, durationMs: 2000 },
    serverCpuSeconds: 1,
  };
}

test('PASS within 2× of the baseline with every victim request answered 200; MISS otherwise', () => {
  assert.equal(verdictOf(row(victim(10, { 200: 100 }), undefined)), undefined, 'a baseline is not judged');
  assert.equal(verdictOf(row(victim(20, { 200: 100 }), 10)), 'PASS');
  assert.equal(verdictOf(row(victim(20.1, { 200: 100 }), 10)), 'MISS', 'too slow');
  assert.equal(verdictOf(row(victim(5, { 200: 90, 429: 10 }), 10)), 'MISS', 'refused, however fast');
  assert.equal(verdictOf(row(victim(5, { 200: 90 }, 100, 90), 10)), 'MISS', 'left unanswered');
  assert.equal(verdictOf(row(victim(0, {}, 0, 0), 10)), undefined, 'a phase that did not run is not judged');
  const failed = row(victim(5, { 200: 100 }), 10);
  assert.equal(verdictOf({ ...failed, attack: { counts: emptyCounts(), durationMs: 0, failure: 'attacker failed: x' } }), undefined, 'nor one without its attacker');
  const table = tableOf([row(victim(10, { 200: 100 }), undefined), row(victim(30, { 200: 100 }), 10)]).split('\n');
  assert.equal(table.length, 4);
  assert.match(table[3]!, /\| 3\.00× \|.*\| 4 of 10 \(2\/s\) \| 6 \| all \|.*\| MISS \|$/);
});

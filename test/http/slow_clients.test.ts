// Slow and stalled clients against the real server, on raw sockets (issue 7): a body dribbled past
// BODY_TIMEOUT_MS is answered 408 and the connection closed; headers dribbled, or a connection
// left idle, are cut by uWS's idle timeout (10 s, checked every 4 s: closed 8–12 s after the last
// complete request) without an answer, since uWS has nothing to answer before a request line is
// whole; a client that pipelines requests and never reads its answers is disconnected instead of
// being buffered for; a client that reads a large answer slowly still receives all of it, and one
// that stops reading it is closed by the same idle timeout. While
// any of them holds a connection, everyone else is served.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createEvent, eventBody, adminToken } from './catalog/support.js';
import { removeDataDir, request, startServer, type RunningServer } from '../support/server.js';

const bodyTimeoutMs = 1_000;
/** uWS closes an idle or incomplete connection 8–12 s after its last complete request. */
const idleCutMs = 12_000;
/** Headroom over idleCutMs for a loaded machine. */
const slackMs = 6_000;

let server: RunningServer;
let port: number;
let catalogUrl: string;

before(async () => {
  server = await startServer({ env: { BODY_TIMEOUT_MS: String(bodyTimeoutMs), ADMIN_TOKEN: adminToken, SEED_DEMO: '0' } });
  port = Number(new URL(server.urls.clob).port);
  catalogUrl = server.urls.catalog;
  // The first request() to a listener fetches and compiles its OpenAPI document: done here, so
  // stillServes times the server alone.
  assert.equal((await request(`${server.urls.clob}/time`)).status, 200);
});

after(async () => {
  const code = await server.stop();
  removeDataDir(server.dataDir);
  assert.equal(code, 0, server.output().stderr);
});

/** A raw connection that records what arrives and when the server closes it. */
class RawClient {
  readonly socket: net.Socket;
  received = Buffer.alloc(0);
  readonly closed: Promise<number>;
  private readonly openedMs = Date.now();

  constructor(targetPort: number, paused = false) {
    this.socket = net.connect(targetPort, '127.0.0.1');
    if (paused) this.socket.pause();
    else this.socket.on('data', (chunk: Buffer) => (this.received = Buffer.concat([this.received, chunk])));
    // A reset is how a server closes on a client that left unread bytes; it is still a close.
    this.socket.on('error', () => {});
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve(Date.now() - this.openedMs)));
  }

  connected(): Promise<void> {
    return new Promise((resolve) => (this.socket.connecting ? this.socket.once('connect', () => resolve()) : resolve()));
  }

  text(): string {
    return this.received.toString('latin1');
  }
}

/** Resolves with the time the connection took to close, or rejects after `ms`. */
async function closesWithin(client: RawClient, ms: number, what: string): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still open after ${ms} ms`)), ms)));
  try {
    return await Promise.race([client.closed, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function residentBytes(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(line !== null);
  return Number(line[1]) * 1024;
}

/** The server answers an ordinary request promptly while the slow clients hold their connections. */
async function stillServes(): Promise<void> {
  const started = Date.now();
  const response = await request(`${server.urls.clob}/time`);
  assert.equal(response.status, 200);
  // Far below the 8–12 s a stalled connection is held, with room for a loaded machine.
  assert.ok(Date.now() - started < 5_000, `GET /time took ${Date.now() - started} ms`);
}

const booksRequest = (bodyBytes: number): string =>
  `POST /books HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`;

describe('slow clients', { concurrency: true }, () => {
  test('a body dribbled past BODY_TIMEOUT_MS is answered 408 with the error body and the connection closed', async () => {
    const client = new RawClient(port);
    client.socket.write(booksRequest(100) + '[');
    const dribble = setInterval(() => client.socket.write(' '), 100);
    try {
      const closedAfterMs = await closesWithin(client, bodyTimeoutMs + slackMs, 'dribbled body');
      assert.ok(closedAfterMs >= bodyTimeoutMs - 50, `closed after ${closedAfterMs} ms, before the deadline`);
    } finally {
      clearInterval(dribble);
    }
    const [head = '', body] = client.text().split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 408 /);
    assert.match(head, /\r\nconnection: close\r\n/i);
    assert.equal(body, '{"error":"request timeout"}');
  });

  test('a body that stops arriving is answered 408 too, once the deadline passed with nothing more sent', async () => {
    // A dribbling client is answered from its next data after the deadline; one that sends
    // nothing more is answered by the timer a moment later (respond.ts, Pending.arm).
    const client = new RawClient(port);
    client.socket.write(booksRequest(100) + '[');
    const closedAfterMs = await closesWithin(client, bodyTimeoutMs + slackMs, 'stalled body');
    assert.ok(closedAfterMs >= bodyTimeoutMs - 50, `closed after ${closedAfterMs} ms, before the deadline`);
    const [head = '', body] = client.text().split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 408 /);
    assert.equal(body, '{"error":"request timeout"}');
  });

  test('a body that arrives in pieces within the deadline is served, and the deadline ends with it', async () => {
    const body = '[{"token_id":"1"}]';
    const client = new RawClient(port);
    await client.connected();
    client.socket.write(booksRequest(body.length) + body.slice(0, 5));
    await sleep(bodyTimeoutMs / 4);
    client.socket.write(body.slice(5));
    // Past the first request's deadline, the same connection serves a second request.
    await sleep(bodyTimeoutMs * 1.5);
    client.socket.write('GET /time HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(500);
    const answers = client.text().match(/HTTP\/1\.1 \d+/g);
    // The book does not exist: the route read the whole body and answered it.
    assert.deepEqual(answers, ['HTTP/1.1 404', 'HTTP/1.1 200'], client.text());
    assert.match(client.text(), /\{"error":"No orderbook exists for the requested token id"\}/);
    client.socket.destroy();
  });

  test('headers dribbled a byte at a time are cut off by the idle timeout, unanswered', async () => {
    const client = new RawClient(port);
    const text = 'GET /time HTTP/1.1\r\nHost: x\r\n' + 'X-Slow: y\r\n'.repeat(1_000);
    let next = 0;
    const dribble = setInterval(() => client.socket.write(text.charAt(next++)), 200);
    try {
      await sleep(1_000);
      await stillServes();
      await closesWithin(client, idleCutMs + slackMs, 'dribbled headers');
    } finally {
      clearInterval(dribble);
    }
    assert.equal(client.text(), '');
  });

  test('idle connections are closed by the idle timeout, and hundreds of them do not stop the server', async () => {
    const rssBefore = residentBytes(server.process.pid ?? 0);
    const clients = Array.from({ length: 500 }, () => new RawClient(port));
    await Promise.all(clients.map((client) => client.connected()));
    // Half of them ask once and then sit idle on a keep-alive connection.
    for (const client of clients.slice(0, 250)) client.socket.write('GET /time HTTP/1.1\r\nHost: x\r\n\r\n');
    await stillServes();
    const rssGrowth = residentBytes(server.process.pid ?? 0) - rssBefore;
    assert.ok(rssGrowth < 64 * 1024 * 1024, `500 idle connections grew the server by ${rssGrowth} bytes`);
    await Promise.all(clients.map((client) => closesWithin(client, idleCutMs + slackMs, 'idle connection')));
    for (const client of clients.slice(0, 250)) assert.match(client.text(), /^HTTP\/1\.1 200 /);
  });

  test('a client that pipelines requests and reads no answers is disconnected, not buffered for', async () => {
    const pid = server.process.pid ?? 0;
    const rssBefore = residentBytes(pid);
    const client = new RawClient(port, true);
    await client.connected();
    // /openapi.json is one of the larger answers (tens of KB): the socket's buffers fill quickly.
    const pipelined = 'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(20);
    let sent = 0;
    const flood = setInterval(() => {
      if (client.socket.destroyed) return;
      client.socket.write(pipelined);
      sent += 20;
    }, 5);
    let peak = 0;
    const sample = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 100);
    try {
      await closesWithin(client, idleCutMs + slackMs, 'non-reading pipelining client');
    } finally {
      clearInterval(flood);
      clearInterval(sample);
    }
    assert.ok(sent > 0);
    // Buffering every answer grew the process by a gigabyte in 20 s before the fix.
    assert.ok(peak - rssBefore < 128 * 1024 * 1024, `the server grew by ${peak - rssBefore} bytes for one client`);
    await stillServes();
  });

  test('a client that reads a large answer slowly receives all of it, intact', async () => {
    // Markets with long descriptions, listed 500 at a time: an answer of about 6.5 MB, more than
    // loopback's socket buffers hold for a client that is not reading (4 MB send, 128 KB receive),
    // so most of it waits in the server for the client to read.
    const description = 'slow reader '.repeat(1_600);
    const catalogServer = { catalog: catalogUrl, clob: server.urls.clob, dataDir: server.dataDir, running: server };
    for (let e = 0; e < 8; e++) {
      const markets = Array.from({ length: 40 }, (_, m) => ({ question: `Slow reader ${e}.${m}?`, description }));
      await createEvent(catalogServer, eventBody(`Slow reader ${e}`, { markets }));
    }
    const path = '/markets?limit=500';
    const expected = await request(`${catalogUrl}${path}`);
    assert.equal(expected.status, 200);
    assert.ok(Buffer.byteLength(expected.text) > 6_000_000, `answer of ${Buffer.byteLength(expected.text)} bytes`);

    const catalogPort = Number(new URL(catalogUrl).port);
    // One client stops reading. uWS closes its connection 8–12 s later; the client only sees the
    // close once it reads again, behind the part of the answer the kernel's buffers held.
    const stalled = new RawClient(catalogPort, true);
    stalled.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const client = new RawClient(catalogPort, true);
    client.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await sleep(500);
    await stillServes();
    // Read what the socket holds (at most its 16 KB high-water mark) every 5 ms: ~3 MB/s.
    const chunks: Buffer[] = [];
    let length = 0;
    let expectedLength = Infinity;
    while (length < expectedLength) {
      const chunk = client.socket.read() as Buffer | null;
      if (chunk !== null) {
        chunks.push(chunk);
        length += chunk.length;
      }
      if (expectedLength === Infinity) {
        const head = Buffer.concat(chunks);
        const end = head.indexOf('\r\n\r\n');
        if (end >= 0) expectedLength = end + 4 + Number(/content-length: (\d+)/i.exec(head.subarray(0, end).toString('latin1'))?.[1]);
      }
      assert.ok(!client.socket.destroyed, `closed after ${length} bytes`);
      await sleep(5);
    }
    const received = Buffer.concat(chunks);
    assert.equal(received.subarray(received.indexOf('\r\n\r\n') + 4).toString('utf8'), expected.text);
    await sleep(idleCutMs + 1_000);
    let stalledBytes = 0;
    stalled.socket.on('data', (chunk: Buffer) => (stalledBytes += chunk.length));
    stalled.socket.resume();
    await closesWithin(stalled, slackMs, 'a client that stopped reading');
    assert.ok(stalledBytes < received.length, `the stalled client got all ${stalledBytes} bytes`);
    client.socket.destroy();
  });
});

// The compatibility listener (COMPAT_PORT): an HTTP/1.1 relay in front of the CLOB listener for
// clients that send header names with an underscore, as Polymarket's official clients do
// (POLY_ADDRESS, POLY_SIGNATURE, ...), where the uWS binary is one tools/patch_uws.mjs could not
// patch: unpatched, it leaves such requests unanswered (an upstream parser bug, fixed in later uWS
// releases that npm does not offer for this platform), so the relay rewrites
// '_' to '-' in request header names: request lines, header values, bodies and every response
// byte pass through untouched, and the CLOB listener's routes read both spellings. It frames
// requests by Content-Length or chunked encoding so bodies are never rewritten, and after a
// WebSocket upgrade it relays raw bytes both ways.
//
// It also names each request's real client to the CLOB listener: it puts a header of its own
// (client_address.ts: the process's secret and the client's address) in front of every request
// and drops any copy a client sends. That only holds if every request the CLOB listener parses
// on a relayed connection is one the relay framed and marked, so the relay refuses (closes the
// connection on) whatever uWS might frame differently from it: a bare CR or LF, a header line
// that is not `token: value`, two Content-Lengths, Content-Length with Transfer-Encoding, a
// Transfer-Encoding other than `chunked`, chunk extensions and trailers, a length uWS would not
// read as the same number; and it passes bytes raw only after the CLOB listener answered 101.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { RELAYED_FOR_HEADER, type RelayTrust } from './client_address.js';

/** Largest request header block the relay buffers (the CLOB listener's own limit is similar). */
export const COMPAT_HEADER_BYTES_MAX = 64 * 1024;

const CRLF_CRLF = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const CR = 0x0d;
const LF = 0x0a;

// What the relay forwards, as latin1 text (so every byte round-trips). A method and a header name
// are RFC 9110 tokens; a target and a value hold no control characters (a value may hold tabs).
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [\x21-\x7e\x80-\xff]+ HTTP\/1\.[01]$/;
const FIELD_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):([\t\x20-\x7e\x80-\xff]*)$/;
// uWS v20.30 reads a Content-Length up to 999 999 999 and a chunk size up to 0xfffffff and closes
// the connection on larger ones (it also accepts leading zeros and spaces around a length); within
// these forms both read the same number. It takes any Transfer-Encoding as chunked.
const CONTENT_LENGTH = /^ *([0-9]{1,9}) *$/;
const CHUNK_SIZE = /^[0-9A-Fa-f]{1,7}$/;
const CHUNKED = /^ *chunked *$/i;
/** How the CLOB listener's answer to an upgrade starts when it upgraded. */
const SWITCHING = Buffer.from('HTTP/1.1 101 ');

const enum Mode {
  Head,
  Body,
  ChunkSize,
  ChunkData,
  /** The CRLF after a chunk's data. */
  ChunkEnd,
  /** The CRLF after the last (empty) chunk: trailers are refused. */
  LastChunkEnd,
  /** An upgrade was forwarded; the client's next bytes wait for the CLOB listener's answer. */
  Upgrading,
  Raw,
  /** Refused, or an upgrade the CLOB listener did not take: nothing more is forwarded. */
  Closed,
}

/** Where a RequestRewriter sends its output and its verdicts. */
export interface RewriterSink {
  /** Bytes to forward to the CLOB listener. */
  write(bytes: Buffer): void;
  /** The client broke the relay's framing rules: close both sides. */
  fail(reason: string): void;
  /** The CLOB listener answered an upgrade without upgrading: let its answer finish, then close. */
  stop(): void;
}

/** Rewrites one connection's request stream. */
export class RequestRewriter {
  private buffer: Buffer = Buffer.alloc(0);
  private mode = Mode.Head;
  /** Bytes of body (or chunk data) still to pass through unchanged. */
  private remaining = 0;
  /** Request heads forwarded so far. */
  private requests = 0;
  /** The first bytes of the CLOB listener's answer to an upgrade. */
  private answer: Buffer = Buffer.alloc(0);

  /** `relayedFor`: the header line (CRLF included) put in front of every request's fields. */
  constructor(private readonly sink: RewriterSink, private readonly relayedFor: Buffer) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      switch (this.mode) {
        case Mode.Closed:
          this.buffer = Buffer.alloc(0);
          return;
        case Mode.Raw:
          this.forward(this.buffer.length);
          return;
        case Mode.Upgrading:
          return this.checkSize();
        case Mode.Body:
        case Mode.ChunkData: {
          if (this.buffer.length === 0) return;
          const take = Math.min(this.remaining, this.buffer.length);
          this.forward(take);
          this.remaining -= take;
          if (this.remaining > 0) return;
          this.mode = this.mode === Mode.Body ? Mode.Head : Mode.ChunkEnd;
          continue;
        }
        case Mode.ChunkEnd:
        case Mode.LastChunkEnd:
          if (this.buffer.length < 2) return;
          if (this.buffer[0] !== CR || this.buffer[1] !== LF) return this.refuse(this.mode === Mode.ChunkEnd ? 'chunk data not followed by CRLF' : 'trailer fields');
          this.forward(2);
          this.mode = this.mode === Mode.ChunkEnd ? Mode.ChunkSize : Mode.Head;
          continue;
        case Mode.ChunkSize: {
          const end = this.buffer.indexOf(CRLF);
          if (end === -1) return this.checkSize();
          const line = this.buffer.toString('latin1', 0, end);
          if (!CHUNK_SIZE.test(line)) return this.refuse('bad chunk size');
          this.forward(end + 2);
          this.remaining = Number.parseInt(line, 16);
          this.mode = this.remaining === 0 ? Mode.LastChunkEnd : Mode.ChunkData;
          continue;
        }
        case Mode.Head: {
          const end = this.buffer.indexOf(CRLF_CRLF);
          if (end === -1) return this.checkSize();
          if (!this.rewriteHead(end + 4)) return;
          continue;
        }
      }
    }
  }

  /**
   * The CLOB listener's bytes, seen before they go to the client: while an upgrade waits, its
   * answer decides whether the connection turns raw (101) or forwards nothing more.
   */
  answered(chunk: Buffer): void {
    if (this.mode !== Mode.Upgrading) return;
    this.answer = Buffer.concat([this.answer, chunk.subarray(0, SWITCHING.length - this.answer.length)]);
    if (this.answer.length < SWITCHING.length && SWITCHING.subarray(0, this.answer.length).equals(this.answer)) return;
    if (this.answer.equals(SWITCHING)) {
      this.mode = Mode.Raw;
      this.push(Buffer.alloc(0));
      return;
    }
    this.mode = Mode.Closed;
    this.buffer = Buffer.alloc(0);
    this.sink.stop();
  }

  private checkSize(): void {
    if (this.buffer.length > COMPAT_HEADER_BYTES_MAX) this.refuse('request header block too large');
  }

  private refuse(reason: string): void {
    this.mode = Mode.Closed;
    this.buffer = Buffer.alloc(0);
    this.sink.fail(reason);
  }

  private forward(length: number): void {
    if (length === 0) return;
    this.sink.write(this.buffer.subarray(0, length));
    this.buffer = this.buffer.subarray(length);
  }

  /**
   * Forwards the head in buffer[0, length): its request line, the relay's header, then its
   * fields with '_' turned into '-' in their names, less any copy of the relay's header; and
   * picks the next mode. False when it refused the head.
   */
  private rewriteHead(length: number): boolean {
    const head = this.buffer.toString('latin1', 0, length - 4);
    const lines = head.split('\r\n');
    if (!REQUEST_LINE.test(lines[0]!)) {
      this.refuse('bad request line');
      return false;
    }
    const out = [`${lines[0]!}\r\n`];
    let contentLength = -1;
    let chunked = false;
    let upgrade = false;
    for (let index = 1; index < lines.length; index++) {
      const field = FIELD_LINE.exec(lines[index]!);
      if (field === null) {
        this.refuse('bad header line');
        return false;
      }
      const name = field[1]!.replaceAll('_', '-');
      const value = field[2]!;
      const lower = name.toLowerCase();
      if (lower === RELAYED_FOR_HEADER) continue;
      if (lower === 'content-length') {
        const digits = CONTENT_LENGTH.exec(value);
        if (digits === null || contentLength !== -1) {
          this.refuse('bad content-length');
          return false;
        }
        contentLength = Number(digits[1]);
      } else if (lower === 'transfer-encoding') {
        if (!CHUNKED.test(value) || chunked) {
          this.refuse('unsupported transfer-encoding');
          return false;
        }
        chunked = true;
      } else if (lower === 'upgrade') {
        upgrade = true;
      }
      out.push(`${name}:${value}\r\n`);
    }
    if (chunked && contentLength !== -1) {
      this.refuse('both content-length and transfer-encoding');
      return false;
    }
    // The CLOB listener's answer to an upgrade is the connection's first only when the upgrade
    // is its first request (WebSocket clients open a connection for it).
    if (upgrade && (this.requests > 0 || chunked || contentLength > 0)) {
      this.refuse('an upgrade must be the first request of its connection, without a body');
      return false;
    }
    out.push('\r\n');
    this.sink.write(Buffer.concat([Buffer.from(out[0]!, 'latin1'), this.relayedFor, Buffer.from(out.slice(1).join(''), 'latin1')]));
    this.buffer = this.buffer.subarray(length);
    this.requests++;
    if (upgrade) this.mode = Mode.Upgrading;
    else if (chunked) this.mode = Mode.ChunkSize;
    else if (contentLength > 0) {
      this.mode = Mode.Body;
      this.remaining = contentLength;
    }
    return true;
  }
}

export interface CompatProxy {
  readonly port: number;
  /** Stops listening and ends every relayed connection. */
  close(): Promise<void>;
}

/**
 * Listens on `port` and relays each connection to the CLOB listener at host:targetPort, each
 * request marked with its client's address under `trust`'s secret.
 */
export function startCompatProxy(host: string, port: number, targetPort: number, trust: RelayTrust): Promise<CompatProxy> {
  const open = new Set<Socket>();
  const server: Server = createServer((client: Socket) => {
    // Made once a connection: every request on it comes from the same client.
    const relayedFor = trust.headerLine(client.remoteAddress);
    if (relayedFor === undefined) {
      client.destroy();
      return;
    }
    const upstream = connect({ host, port: targetPort });
    open.add(client);
    client.once('close', () => open.delete(client));
    const close = (): void => {
      client.destroy();
      upstream.destroy();
    };
    const rewriter = new RequestRewriter({ write: (bytes) => upstream.write(bytes), fail: close, stop: () => upstream.end() }, relayedFor);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    // Backpressure both ways: a slow reader pauses the other side instead of queueing.
    client.on('data', (chunk: Buffer) => {
      rewriter.push(chunk);
      if (upstream.writableNeedDrain) client.pause();
    });
    upstream.on('drain', () => client.resume());
    upstream.on('data', (chunk: Buffer) => {
      rewriter.answered(chunk);
      if (!client.write(chunk)) upstream.pause();
    });
    client.on('drain', () => upstream.resume());
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address !== null ? address.port : port,
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          for (const socket of open) socket.destroy();
        }),
      });
    });
  });
}

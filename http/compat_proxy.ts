// The compatibility listener (COMPAT_PORT): a byte-level HTTP/1.1 relay in front of the CLOB
// listener for clients that send header names with an underscore, as Polymarket's official
// clients do (POLY_ADDRESS, POLY_SIGNATURE, ...). The native uWS build that loads on this
// platform drops such requests unanswered (an upstream parser bug, fixed in later uWS releases),
// so the relay rewrites '_' to '-' in request header names, and nothing else: request lines,
// header values, bodies and every response byte pass through untouched, and the CLOB listener's
// routes read both spellings. It frames requests by Content-Length or chunked encoding so bodies
// are never rewritten, and after a protocol upgrade (WebSocket) it relays raw bytes both ways.
import { connect, createServer, type Server, type Socket } from 'node:net';

/** Largest request header block the relay buffers (the CLOB listener's own limit is similar). */
export const COMPAT_HEADER_BYTES_MAX = 64 * 1024;

const CRLF_CRLF = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

const enum Mode {
  Headers,
  Body,
  ChunkSize,
  ChunkData,
  Trailer,
  Raw,
}

/** Rewrites one connection's request stream; `write` receives the bytes to forward. */
export class RequestRewriter {
  private buffer: Buffer = Buffer.alloc(0);
  private mode = Mode.Headers;
  /** Bytes of body (or chunk data plus its CRLF) still to pass through unchanged. */
  private remaining = 0;

  constructor(private readonly write: (bytes: Buffer) => void, private readonly fail: (reason: string) => void) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.mode === Mode.Raw) {
        this.forward(this.buffer.length);
        return;
      }
      if (this.mode === Mode.Body || this.mode === Mode.ChunkData) {
        if (this.buffer.length === 0) return;
        const take = Math.min(this.remaining, this.buffer.length);
        this.forward(take);
        this.remaining -= take;
        if (this.remaining > 0) return;
        this.mode = this.mode === Mode.Body ? Mode.Headers : Mode.ChunkSize;
        continue;
      }
      if (this.mode === Mode.ChunkSize || this.mode === Mode.Trailer) {
        const end = this.buffer.indexOf(CRLF);
        if (end === -1) return this.checkSize();
        const line = this.buffer.subarray(0, end).toString('latin1');
        this.forward(end + 2);
        if (this.mode === Mode.Trailer) {
          if (line === '') this.mode = Mode.Headers;
          continue;
        }
        const size = Number.parseInt(line.split(';')[0]!.trim(), 16);
        if (!Number.isFinite(size) || size < 0) return this.fail('bad chunk size');
        if (size === 0) this.mode = Mode.Trailer;
        else {
          this.mode = Mode.ChunkData;
          this.remaining = size + 2;
        }
        continue;
      }
      const end = this.buffer.indexOf(CRLF_CRLF);
      if (end === -1) return this.checkSize();
      this.rewriteHead(end + 4);
    }
  }

  private checkSize(): void {
    if (this.buffer.length > COMPAT_HEADER_BYTES_MAX) this.fail('request header block too large');
  }

  private forward(length: number): void {
    if (length === 0) return;
    this.write(this.buffer.subarray(0, length));
    this.buffer = this.buffer.subarray(length);
  }

  /** Rewrites the header names of the head in buffer[0, length) and picks the next mode. */
  private rewriteHead(length: number): void {
    const head = Buffer.from(this.buffer.subarray(0, length));
    let contentLength = 0;
    let chunked = false;
    let upgrade = false;
    let lineStart = head.indexOf(CRLF) + 2;
    while (lineStart < length - 2) {
      const lineEnd = head.indexOf(CRLF, lineStart);
      const colon = head.indexOf(0x3a, lineStart);
      if (colon !== -1 && colon < lineEnd) {
        for (let at = lineStart; at < colon; at++) if (head[at] === 0x5f) head[at] = 0x2d;
        const name = head.toString('latin1', lineStart, colon).trim().toLowerCase();
        const value = head.toString('latin1', colon + 1, lineEnd).trim().toLowerCase();
        if (name === 'content-length') contentLength = Number(value);
        else if (name === 'transfer-encoding') chunked = value.includes('chunked');
        else if (name === 'upgrade') upgrade = true;
      }
      lineStart = lineEnd + 2;
    }
    this.write(head);
    this.buffer = this.buffer.subarray(length);
    if (upgrade) this.mode = Mode.Raw;
    else if (chunked) this.mode = Mode.ChunkSize;
    else if (Number.isSafeInteger(contentLength) && contentLength > 0) {
      this.mode = Mode.Body;
      this.remaining = contentLength;
    } else if (!Number.isSafeInteger(contentLength) || contentLength < 0) {
      this.fail('bad content-length');
    }
  }
}

export interface CompatProxy {
  readonly port: number;
  /** Stops listening and ends every relayed connection. */
  close(): Promise<void>;
}

/** Listens on `port` and relays each connection to the CLOB listener at host:targetPort. */
export function startCompatProxy(host: string, port: number, targetPort: number): Promise<CompatProxy> {
  const open = new Set<Socket>();
  const server: Server = createServer((client: Socket) => {
    const upstream = connect({ host, port: targetPort });
    open.add(client);
    client.once('close', () => open.delete(client));
    const close = (): void => {
      client.destroy();
      upstream.destroy();
    };
    const rewriter = new RequestRewriter((bytes) => upstream.write(bytes), close);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    // Backpressure both ways: a slow reader pauses the other side instead of queueing.
    client.on('data', (chunk: Buffer) => {
      rewriter.push(chunk);
      if (upstream.writableNeedDrain) client.pause();
    });
    upstream.on('drain', () => client.resume());
    upstream.on('data', (chunk: Buffer) => {
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

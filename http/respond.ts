// The uWS discipline, in one place: replies are values, written with the right status line and
// headers; writes after an await are corked and skipped when the client has gone; bodies are
// read into a capped buffer. Handlers never touch a uWS response object.
import { errorBody, HttpError, statusLines, type ErrorStyle } from './errors.js';
import type { Logger } from './log.js';
import type { RouteMetrics } from './metrics.js';
import type { Validity } from './market/book_versions.js';
import type { HttpResponse } from './uws.js';

export type Header = readonly [string, string];

export interface Reply {
  readonly status: number;
  readonly body: string | Buffer;
  readonly headers?: readonly Header[];
  /** application/json unless given. */
  readonly contentType?: string;
  /**
   * Set by a read whose answer is built from books only (one, or a batch's): it stays right while
   * each book's shared version does (market/book_versions.ts), so a front-end thread may answer
   * the same request (and, for a batch, the same body) again itself (http/front_end/).
   */
  readonly validity?: Validity;
}

/** Request bodies above this are refused with 413 (contract §2). */
export const bodyBytesMax = 1024 * 1024;

export function json(value: unknown, status = 200, headers?: readonly Header[]): Reply {
  return headers === undefined ? { status, body: JSON.stringify(value) } : { status, body: JSON.stringify(value), headers };
}

/** The reply for a thrown value: HttpError is expected; anything else is logged and is a 500. */
export function errorReply(style: ErrorStyle, error: unknown, log: Logger, where: string, requestId = ''): Reply {
  if (error instanceof HttpError) {
    const reply: Reply = { status: error.status, body: errorBody(style, error) };
    return error.headers === undefined ? reply : { ...reply, headers: error.headers };
  }
  log.error('handler_failed', { where, request_id: requestId, message: error instanceof Error ? error.message : String(error) });
  return { status: 500, body: '{"error":"internal error"}' };
}

// Header names and values as bytes once, rather than strings converted on every answer.
const CONTENT_TYPE = Buffer.from('content-type');
const APPLICATION_JSON = Buffer.from('application/json');
const X_REQUEST_ID = Buffer.from('x-request-id');

/**
 * Writes a reply (with the request's id when it has one). Call directly only inside a uWS
 * callback; later replies go through Pending.
 */
export function write(res: HttpResponse, reply: Reply, closeConnection = false, requestId = ''): void {
  // uWS answers 200 OK unless told otherwise.
  if (reply.status !== 200) res.writeStatus(statusLines[reply.status] ?? `${reply.status} Error`);
  res.writeHeader(CONTENT_TYPE, reply.contentType ?? APPLICATION_JSON);
  if (requestId !== '') res.writeHeader(X_REQUEST_ID, requestId);
  if (reply.headers !== undefined) {
    for (const [name, value] of reply.headers) res.writeHeader(name, value);
  }
  sendBody(res, reply.body, closeConnection);
}

/**
 * Ends an answer whose status and headers are written: at once when the socket takes it, else
 * as it drains. Small refusals that close the connection anyway (413, 408) just end.
 */
export function sendBody(res: HttpResponse, body: string | Buffer, closeConnection: boolean): void {
  if (closeConnection) return void res.end(body, true);
  // Not end(): end() copies whatever the socket does not take now into uWS's per-socket buffer,
  // and uWS v20.30 goes on reading requests from a client that reads no answers, so a client that
  // pipelined requests and never read made the process buffer every answer (measured: 1 GB in
  // 20 s on one connection). tryEnd sends what the socket takes; the rest waits here, in `body`,
  // for onWritable. So a connection holds at most one answer beyond the kernel's buffers, and a
  // request that arrives behind an unfinished answer makes uWS close the connection.
  const total = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  if (res.tryEnd(body, total)[1]) return;
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  // uWS requires an abort handler while an answer is unfinished; a Pending is settled already.
  res.onAborted(() => {});
  // A client that stops reading is closed by uWS ~10 s after the last progress (its HTTP timeout).
  res.onWritable((offset) => res.tryEnd(bytes.subarray(offset), total)[0]);
}

/** BODY_TIMEOUT_MS's default: below uWS's own silent cut of a trickling body (8–12 s), so a client gets a 408. */
export const bodyTimeoutMsDefault = 5_000;

/**
 * How long past its deadline an armed reply waits for the client's next data (Pending.expired)
 * before the timer sends it: a client that sends nothing has nothing unread to lose it to.
 */
const QUIET_MS = 200;

/** Counts requests whose reply is still to come, and refuses new ones while draining. */
export class Lifecycle {
  draining = false;
  inFlight = 0;

  /** How long a request body may take to arrive in full, from the end of its headers (see readBody). */
  constructor(readonly bodyTimeoutMs = bodyTimeoutMsDefault) {}
}

/**
 * A request whose reply comes later. Created before any asynchronous step, it registers the
 * abort handler and counts the request in flight until it is answered, or until the client goes
 * away while no handler works on it. A handler that is running when its client leaves is counted
 * until it ends: a stop waits for it (within its drain bound) before closing what it uses (the
 * signature pool, the shards), instead of cutting it off mid-way.
 */
export class Pending {
  /** True once the reply is written or the client has gone: nothing more may be written. */
  closed = false;
  /**
   * The armed reply once its deadline has passed. A client still sending is answered from its
   * next data, not from the timer: uWS closes the socket right after a closing reply, and bytes
   * that arrived unread make the kernel reset the connection instead of ending it, which can
   * take the unread reply with it (a client that writes again gets EPIPE, and Node discards
   * what it had not read yet). Answered inside the data callback, the socket has just been read
   * and closes with a FIN. A scratch stress of 100 concurrent dribblers lost 16 of 2 000 replies
   * answered from the timer and 8 answered this way, all at a byte every 1–2 ms, where bytes can
   * still arrive between uWS's read and its close.
   */
  expired: Reply | undefined = undefined;
  private settled = false;
  /** A handler's promise is running: it ends in reply(), which settles. */
  private working = false;
  private deadline: ReturnType<typeof setTimeout> | undefined = undefined;

  constructor(
    private readonly res: HttpResponse,
    readonly lifecycle: Lifecycle,
    /** Where the answer is counted, with the request's arrival (performance.now()). */
    private readonly metrics?: RouteMetrics,
    private readonly startedMs = 0,
    private readonly requestId = '',
    /** Told when the client goes away before its answer (a front end tells the main thread: http/front_end/). */
    onAbort?: () => void,
  ) {
    lifecycle.inFlight++;
    res.onAborted(() => {
      this.closed = true;
      onAbort?.();
      if (!this.working) this.settle();
    });
  }

  /** The handler's promise runs now; the request stays in flight until it replies. */
  work(): void {
    this.working = true;
  }

  /** Writes the reply unless the client has gone; corked, as every write after an await must be. */
  reply(reply: Reply, closeConnection = false): void {
    this.replyWith((res) => write(res, reply, closeConnection, this.requestId), reply.status);
  }

  /** Writes an answer with `writer` (status line, headers and body) unless the client has gone; corked. */
  replyWith(writer: (res: HttpResponse) => void, status: number): void {
    if (!this.closed) {
      this.res.cork(() => writer(this.res));
      this.metrics?.record(status, this.startedMs);
    }
    this.closed = true;
    this.settle();
  }

  /**
   * Answers `reply` and closes the connection unless answered or disarmed within `ms`: from the
   * client's next data (see expired), or QUIET_MS later if none comes.
   */
  arm(ms: number, reply: Reply): void {
    this.deadline = setTimeout(() => {
      this.expired = reply;
      this.deadline = setTimeout(() => this.reply(reply, true), QUIET_MS);
    }, ms);
  }

  disarm(): void {
    if (this.deadline !== undefined) clearTimeout(this.deadline);
    this.deadline = undefined;
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.disarm();
    this.lifecycle.inFlight--;
  }
}

const tooLarge: Reply = { status: 413, body: '{"error":"payload too large"}' };
const requestTimeout: Reply = { status: 408, body: '{"error":"request timeout"}' };

/**
 * Reads the request body into one buffer of at most `bytesMax` bytes. A body over the cap is
 * answered 413 at once and the connection closed, so the rest is never buffered. A body not in
 * full within the lifecycle's bodyTimeoutMs is answered 408 and the connection closed.
 */
export function readBody(res: HttpResponse, pending: Pending, declaredLength: string, bytesMax: number, done: (body: Buffer) => void): void {
  if (declaredLength !== '' && Number(declaredLength) > bytesMax) return pending.reply(tooLarge, true);
  // uWS alone cuts a body that trickles below 16 KB/s, silently, 8–12 s after the headers, but
  // lets a faster trickle run (1 MB at 16 KB/s holds the request a minute): this deadline bounds
  // the whole body and says why.
  pending.arm(pending.lifecycle.bodyTimeoutMs, requestTimeout);
  const chunks: Buffer[] = [];
  let length = 0;
  res.onData((chunk, isLast) => {
    if (pending.closed) return;
    if (pending.expired !== undefined) return pending.reply(pending.expired, true);
    length += chunk.byteLength;
    if (length > bytesMax) return pending.reply(tooLarge, true);
    chunks.push(Buffer.from(chunk.slice(0)));
    if (!isLast) return;
    pending.disarm();
    done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length));
  });
}

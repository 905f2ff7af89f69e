// The uWS discipline, in one place: replies are values, written with the right status line and
// headers; writes after an await are corked and skipped when the client has gone; bodies are
// read into a capped buffer. Handlers never touch a uWS response object.
import { errorBody, HttpError, statusLines, type ErrorStyle } from './errors.js';
import type { Logger } from './log.js';
import type { RouteMetrics } from './metrics.js';
import type { HttpResponse } from './uws.js';

export type Header = readonly [string, string];

export interface Reply {
  readonly status: number;
  readonly body: string | Buffer;
  readonly headers?: readonly Header[];
  /** application/json unless given. */
  readonly contentType?: string;
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
  res.end(reply.body, closeConnection);
}

/** Counts requests whose reply is still to come, and refuses new ones while draining. */
export class Lifecycle {
  draining = false;
  inFlight = 0;
}

/**
 * A request whose reply comes later. Created before any asynchronous step, it registers the
 * abort handler and counts the request in flight until it is answered or the client goes away.
 */
export class Pending {
  /** True once the reply is written or the client has gone: nothing more may be written. */
  closed = false;
  private settled = false;

  constructor(
    private readonly res: HttpResponse,
    private readonly lifecycle: Lifecycle,
    /** Where the answer is counted, with the request's arrival (performance.now()). */
    private readonly metrics?: RouteMetrics,
    private readonly startedMs = 0,
    private readonly requestId = '',
  ) {
    lifecycle.inFlight++;
    res.onAborted(() => {
      this.closed = true;
      this.settle();
    });
  }

  /** Writes the reply unless the client has gone; corked, as every write after an await must be. */
  reply(reply: Reply, closeConnection = false): void {
    if (!this.closed) {
      this.res.cork(() => write(this.res, reply, closeConnection, this.requestId));
      this.metrics?.record(reply.status, this.startedMs);
    }
    this.closed = true;
    this.settle();
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.lifecycle.inFlight--;
  }
}

const tooLarge: Reply = { status: 413, body: '{"error":"payload too large"}' };

/**
 * Reads the request body into one buffer of at most `bytesMax` bytes. A body over the cap is
 * answered 413 at once and the connection closed, so the rest is never buffered.
 */
export function readBody(res: HttpResponse, pending: Pending, declaredLength: string, bytesMax: number, done: (body: Buffer) => void): void {
  if (declaredLength !== '' && Number(declaredLength) > bytesMax) return pending.reply(tooLarge, true);
  const chunks: Buffer[] = [];
  let length = 0;
  res.onData((chunk, isLast) => {
    if (pending.closed) return;
    length += chunk.byteLength;
    if (length > bytesMax) return pending.reply(tooLarge, true);
    chunks.push(Buffer.from(chunk.slice(0)));
    if (isLast) done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length));
  });
}

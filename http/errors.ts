// The error catalogue of contract §2: one exception type for expected HTTP failures, and the body
// each listener's error style gives it. Handlers throw HttpError; the router turns it into a
// response, so no handler formats an error body by hand.

/** Which error body shape a route answers with. */
export type ErrorStyle = 'catalog' | 'clob';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra fields merged into a CLOB-style body (e.g. the expected heartbeat id). */
    readonly extra?: Readonly<Record<string, unknown>>,
    readonly headers?: readonly (readonly [string, string])[],
  ) {
    // An expected answer, not a fault: capturing a stack trace would cost more than the answer.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

export const badRequest = (message: string): HttpError => new HttpError(400, message);
export const notFound = (message: string): HttpError => new HttpError(404, message);

const catalogTypes: Readonly<Record<number, string>> = { 400: 'bad request', 404: 'not found error' };

/** The JSON body for an error under a listener's style. */
export function errorBody(style: ErrorStyle, error: HttpError): string {
  const type = style === 'catalog' ? catalogTypes[error.status] : undefined;
  if (type !== undefined) return JSON.stringify({ type, error: error.message });
  return JSON.stringify({ error: error.message, ...error.extra });
}

/** Status lines uWS needs verbatim; every status the service answers with is listed here. */
export const statusLines: Readonly<Record<number, string>> = {
  200: '200 OK',
  201: '201 Created',
  204: '204 No Content',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  408: '408 Request Timeout',
  413: '413 Payload Too Large',
  415: '415 Unsupported Media Type',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
};

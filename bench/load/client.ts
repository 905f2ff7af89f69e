// A small HTTP/1.1 load generator over raw keep-alive sockets, in two modes:
//
// - closed loop (the default): each connection keeps `pipeline` requests outstanding (1 = one at
//   a time) for a fixed duration; latency runs from the write to the end of the response.
// - open loop (`ratePerSecond`): requests fall due at a fixed arrival rate whatever the answers
//   do, each sent on a connection with nothing outstanding (or as soon as one is free), and
//   latency runs from each request's scheduled send time, so neither a sender that falls
//   behind nor a wait for a connection can hide the queueing (coordinated omission). After the duration the run
//   waits up to `drainMs` for the answers still out.
//
// A run is prepared (requests encoded, connections opened, the heap collected) before it is
// started, so a caller with several loads to run at once prepares them all before any is timed.
// Requests are pre-encoded into one buffer and sent round-robin; with `unique` each is sent at
// most once across all connections, in order, and the run ends early once every one is answered
// (orders, whose ids are their signatures' digests, cannot be sent twice). Latencies go into a
// perf_hooks histogram. Responses must carry Content-Length (every clobd response does). Node's
// own http client costs more CPU than the server under test, so it is not used here.
//
// The generator shares the machine and its pauses count in the latencies it measures, so a run
// starts from a collected heap and its hot path allocates little: responses are framed from their
// bytes (no header strings, no regular expression), requests come out of one buffer.
import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import { connect, type Socket } from 'node:net';
import { collectGarbage } from '../support/collect.js';

export interface RequestSpec {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

export interface LoadOptions {
  /** Base URL, e.g. http://127.0.0.1:8081 */
  readonly url: string;
  /** Requests sent in turn, round-robin across the run. */
  readonly requests: readonly RequestSpec[];
  readonly connections: number;
  readonly durationMs: number;
  readonly pipeline?: number;
  /** Label for the progress line; no progress line when undefined. */
  readonly label?: string | undefined;
  /** Send each request at most once, in order, across all connections. */
  readonly unique?: boolean;
  /** Open loop: requests per second from the start, latency from each scheduled send time. */
  readonly ratePerSecond?: number | undefined;
  /** Open loop: how long to wait for the answers still out after the duration. */
  readonly drainMs?: number;
  /**
   * The caller's histograms and counters (LIVE_* indexes), recorded into as the run goes: a
   * progress line elsewhere reads them (a histogram and a SharedArrayBuffer can be shared with
   * another thread), and the histograms of several runs merge exactly (`histogram.add`). Fresh
   * for each run: its figures are read from them.
   */
  readonly live?: LiveTally;
}

export interface LiveTally {
  /** Latency of every answer, in nanoseconds. */
  readonly latency: RecordableHistogram;
  /** Open loop: how late each request was written after its scheduled time, in nanoseconds. */
  readonly sendLag: RecordableHistogram;
  /** Counts as the run goes, at the LIVE_* indexes. */
  readonly counters: Int32Array;
}

/** Answers whose status is not 2xx. */
export const LIVE_FAILED = 0;
/** Answers 429 Too Many Requests (also counted in LIVE_FAILED). */
export const LIVE_TOO_MANY = 1;
/** Socket errors (a connection reset or refused). */
export const LIVE_SOCKET_ERRORS = 2;
export const LIVE_COUNTERS = 3;

/** A tally to record into, its counters in shared memory (so another thread can read them). */
export function liveTally(): LiveTally {
  return {
    latency: createHistogram(), sendLag: createHistogram(),
    counters: new Int32Array(new SharedArrayBuffer(LIVE_COUNTERS * Int32Array.BYTES_PER_ELEMENT)),
  };
}

export interface LatencySummary {
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

export interface LoadResult {
  /** Requests answered (and timed). */
  readonly requests: number;
  /** Requests written; with `unique`, the next run continues after the first `sent`. */
  readonly sent: number;
  /** Open loop: requests not sent because `backlogMax` were already waiting for a connection. */
  readonly skipped: number;
  readonly durationMs: number;
  readonly requestsPerSecond: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  /** Socket errors (a connection reset or refused); answers that are not 2xx are in `failed`. */
  readonly errors: number;
  /** Answers whose status is not 2xx (429s among them). */
  readonly failed: number;
  /** The first body (its start) of an answer of each status that is not 2xx, by status. */
  readonly errorSamples: Readonly<Record<string, string>>;
  readonly latency: LatencySummary;
  /**
   * Open loop: how late the generator wrote each request after its scheduled time (its timers
   * are 1 ms grained, and it shares the machine), part of every latency above; zeros in a closed loop.
   */
  readonly sendLag: LatencySummary;
}

const connectionsMax = 1024;
const pipelineMax = 64;
/** Open loop: requests waiting for a free connection before the next one is skipped. */
const backlogMax = 100_000;
const drainMsDefault = 5_000;
/** How often a run checks whether it is done. */
const pollMs = 5;
const headerEnd = Buffer.from('\r\n\r\n');
/** Lower-case, matched against each header line's lower-cased start. */
const contentLength = Buffer.from('\r\ncontent-length:', 'latin1');

/** A request's bytes as its head and its body, which the payload source copies once, side by side. */
function encodeRequest(spec: RequestSpec, host: string): readonly [Buffer, Buffer] {
  const body = spec.body === undefined ? Buffer.alloc(0) : Buffer.from(spec.body);
  let head = `${spec.method} ${spec.path} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const [name, value] of Object.entries(spec.headers ?? {})) head += `${name}: ${value}\r\n`;
  if (body.length > 0 || spec.method !== 'GET') head += `Content-Length: ${body.length}\r\n`;
  return [Buffer.from(head + '\r\n', 'latin1'), body];
}

export function summarize(histogram: RecordableHistogram): LatencySummary {
  const ms = (ns: number): number => Math.round(ns / 1e3) / 1e3;
  if (histogram.count === 0) return { p50Ms: 0, p90Ms: 0, p99Ms: 0, p999Ms: 0, maxMs: 0, meanMs: 0 };
  return {
    p50Ms: ms(histogram.percentile(50)),
    p90Ms: ms(histogram.percentile(90)),
    p99Ms: ms(histogram.percentile(99)),
    p999Ms: ms(histogram.percentile(99.9)),
    maxMs: ms(histogram.max),
    meanMs: ms(histogram.mean),
  };
}

/**
 * Splits a byte stream into HTTP responses framed by Content-Length. Chunks are only joined
 * once a whole response (or a whole header) is present, so large bodies arriving in many
 * chunks cost linear, not quadratic, copying.
 */
export class ResponseParser {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Byte length of the response at the front, once its header has been read; -1 before. */
  private expected = -1;
  private status = 0;

  /** `onResponse` gets a response's status, and its bytes when the status is not 2xx. */
  push(chunk: Buffer, onResponse: (status: number, response: Buffer | undefined) => void): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.expected === -1 && !this.readHeader()) return;
      if (this.buffered < this.expected) return;
      const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.buffered);
      const rest = all.subarray(this.expected);
      this.chunks.length = 0;
      if (rest.length > 0) this.chunks.push(rest);
      this.buffered = rest.length;
      const failed = this.status < 200 || this.status > 299;
      const response = failed ? all.subarray(0, this.expected) : undefined;
      this.expected = -1;
      onResponse(this.status, response);
    }
  }

  private readHeader(): boolean {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    const buffer = this.chunks[0];
    if (buffer === undefined) return false;
    const end = buffer.indexOf(headerEnd);
    if (end === -1) return false;
    const length = contentLengthOf(buffer, end);
    if (length === -1) throw new Error(`response without Content-Length: ${buffer.toString('latin1', 0, Math.min(end, 80))}`);
    // "HTTP/1.1 200 ..."
    this.status = 100 * (buffer[9]! - 48) + 10 * (buffer[10]! - 48) + (buffer[11]! - 48);
    this.expected = end + 4 + length;
    return true;
  }
}

function lowerCase(byte: number): number {
  return byte >= 65 && byte <= 90 ? byte + 32 : byte;
}

/** The Content-Length of the header in buffer[0, end), read from its bytes; -1 when absent. */
function contentLengthOf(buffer: Buffer, end: number): number {
  for (let line = buffer.indexOf(13); line !== -1 && line < end; line = buffer.indexOf(13, line + 2)) {
    if (line + contentLength.length > end) return -1;
    let at = 0;
    while (at < contentLength.length && lowerCase(buffer[line + at]!) === contentLength[at]) at++;
    if (at < contentLength.length) continue;
    let index = line + at;
    while (buffer[index] === 32) index++;
    let value = 0;
    let digits = 0;
    for (let byte = buffer[index]!; byte >= 48 && byte <= 57 && index < end; byte = buffer[++index]!) {
      value = 10 * value + (byte - 48);
      digits++;
    }
    return digits === 0 ? -1 : value;
  }
  return -1;
}

/** Where the next payload comes from: round-robin per connection, or one shared cursor. */
class PayloadSource {
  sent = 0;
  /** Every payload back to back; payload i is bytes[offsets[i], offsets[i + 1]). */
  private readonly bytes: Buffer;
  private readonly offsets: Float64Array;

  constructor(payloads: readonly (readonly [Buffer, Buffer])[], private readonly unique: boolean) {
    this.bytes = Buffer.concat(payloads.flat());
    this.offsets = new Float64Array(payloads.length + 1);
    payloads.forEach(([head, body], index) => { this.offsets[index + 1] = this.offsets[index]! + head.length + body.length; });
  }

  get count(): number {
    return this.offsets.length - 1;
  }

  get exhausted(): boolean {
    return this.unique && this.sent >= this.count;
  }

  /** The payload for a connection whose own counter is at `index`; undefined when used up. */
  take(index: number): Buffer | undefined {
    if (this.exhausted) return undefined;
    const at = (this.unique ? this.sent : index) % this.count;
    this.sent++;
    return this.bytes.subarray(this.offsets[at], this.offsets[at + 1]);
  }
}

class Connection {
  private readonly parser = new ResponseParser();
  /** Send times (closed loop) or scheduled times (open loop) of the requests still out. */
  private readonly timesMs: number[] = [];
  private next = 0;
  private stopped = false;

  constructor(
    private readonly socket: Socket,
    private readonly source: PayloadSource,
    private readonly pipeline: number,
    offset: number,
    private readonly record: (status: number, latencyNs: number, response: Buffer | undefined) => void,
    /** Called after every answer: the closed loop sends the next request, the open loop its backlog. */
    private readonly onAnswer: (connection: Connection) => void,
    /** Open loop: records how late each request is written after its scheduled time. */
    private readonly recordLag?: (lagNs: number) => void,
  ) {
    this.next = offset;
    socket.setNoDelay(true);
    const onResponse = (status: number, response: Buffer | undefined): void => this.onResponse(status, response);
    socket.on('data', (chunk: Buffer) => this.parser.push(chunk, onResponse));
  }

  get outstanding(): number {
    return this.timesMs.length;
  }

  start(): void {
    for (let index = 0; index < this.pipeline; index++) this.send(performance.now());
  }

  stop(): void {
    this.stopped = true;
    this.socket.destroy();
  }

  /** Writes the next payload, timed from `fromMs`; false when the source is used up. */
  send(fromMs: number): boolean {
    const payload = this.source.take(this.next);
    if (payload === undefined) return false;
    this.next++;
    this.timesMs.push(fromMs);
    this.recordLag?.(Math.max(1, Math.round((performance.now() - fromMs) * 1e6)));
    this.socket.write(payload);
    return true;
  }

  private onResponse(status: number, response: Buffer | undefined): void {
    const fromMs = this.timesMs.shift() ?? performance.now();
    this.record(status, Math.max(1, Math.round((performance.now() - fromMs) * 1e6)), response);
    if (!this.stopped) this.onAnswer(this);
  }
}

function open(url: URL): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Answers that are not 2xx, and socket errors: what a progress line calls errors. */
export function errorsText(counters: Int32Array): string {
  const errors = counters[LIVE_FAILED]! + counters[LIVE_SOCKET_ERRORS]!;
  const tooMany = counters[LIVE_TOO_MANY]!;
  return `errors ${errors.toLocaleString('en-US')}${tooMany > 0 ? ` (429×${tooMany.toLocaleString('en-US')}: RATE_LIMITS)` : ''}`;
}

/** Whether a progress line that rewrites itself has no newline yet. */
let progressOpen = false;

/**
 * One progress line: on a terminal it rewrites itself; otherwise (a pipe, a log file) each
 * interval gets a line of its own.
 */
export function writeProgress(line: string): void {
  progressOpen = process.stderr.isTTY === true;
  process.stderr.write(progressOpen ? `\r${line}\x1b[K` : `${line}\n`);
}

/** Ends a progress line that rewrote itself on a terminal (nothing otherwise). */
export function endProgress(): void {
  if (progressOpen) process.stderr.write('\n');
  progressOpen = false;
}

function progress(label: string, startedMs: number, tally: LiveTally): void {
  const seconds = (performance.now() - startedMs) / 1000;
  const rate = Math.round(tally.latency.count / seconds);
  const latency = summarize(tally.latency);
  writeProgress(`${label}  ${seconds.toFixed(1)}s  ${rate.toLocaleString('en-US')} req/s  p50 ${latency.p50Ms} ms  p99 ${latency.p99Ms} ms  ${errorsText(tally.counters)}`);
}

/** An open-loop sender: `finished()` once every request of the run is due and sent (or skipped). */
interface Schedule {
  finished(): boolean;
  cancel(): void;
  /** A connection's answer came: it takes the oldest request waiting for a free connection. */
  onAnswer(connection: Connection): void;
}

/**
 * Open loop: the i-th request is due at start + i / rate; each timer turn sends everything due
 * (a timer, not a spin, so the generator leaves the CPU to the server between sends). A turn
 * that comes late sends what fell due meanwhile at once, still timed from when each was due.
 * Each request goes to a connection with nothing outstanding (the server does not answer
 * pipelined POSTs); when every connection is busy it waits in a backlog, timed from its due
 * time all the same, and leaves on the next connection that gets its answer.
 */
function schedule(connections: readonly Connection[], source: PayloadSource, ratePerSecond: number, durationMs: number, onSkip: () => void): Schedule {
  const startedMs = performance.now();
  const intervalMs = 1000 / ratePerSecond;
  const total = Math.floor((durationMs / 1000) * ratePerSecond);
  const backlog: number[] = [];
  let scheduled = 0;
  let cursor = 0;
  let timer: NodeJS.Timeout | undefined;
  const finished = (): boolean => (scheduled >= total || source.exhausted) && backlog.length === 0;
  const idle = (): Connection | undefined => {
    for (let tried = 0; tried < connections.length; tried++) {
      const connection = connections[cursor++ % connections.length] as Connection;
      if (connection.outstanding === 0) return connection;
    }
    return undefined;
  };
  const tick = (): void => {
    const due = Math.min(total, Math.floor((performance.now() - startedMs) / intervalMs) + 1);
    while (scheduled < due && !source.exhausted) {
      const scheduledMs = startedMs + scheduled * intervalMs;
      scheduled++;
      const connection = backlog.length === 0 ? idle() : undefined;
      if (connection !== undefined) connection.send(scheduledMs);
      else if (backlog.length >= backlogMax) onSkip();
      else backlog.push(scheduledMs);
    }
    if (scheduled < total && !source.exhausted) timer = setTimeout(tick, Math.max(0, startedMs + scheduled * intervalMs - performance.now()));
  };
  const onAnswer = (connection: Connection): void => {
    const waitingMs = backlog.shift();
    if (waitingMs !== undefined) connection.send(waitingMs);
  };
  tick();
  return { finished, cancel: () => clearTimeout(timer), onAnswer };
}

function validate(options: LoadOptions, pipeline: number): void {
  if (!(options.connections >= 1 && options.connections <= connectionsMax)) throw new Error(`connections must be 1..${connectionsMax}`);
  if (!(pipeline >= 1 && pipeline <= pipelineMax)) throw new Error(`pipeline must be 1..${pipelineMax}`);
  if (options.requests.length === 0) throw new Error('at least one request is needed');
  const rate = options.ratePerSecond;
  if (rate !== undefined && !(rate > 0 && Number.isFinite(rate))) throw new Error('ratePerSecond must be a positive number');
}

/** Resolves once `done()` holds (checked every few milliseconds) or `timeoutMs` has passed. */
function waitFor(done: () => boolean, timeoutMs: number): Promise<void> {
  const startedMs = performance.now();
  return new Promise((resolve) => {
    const check = setInterval(() => {
      if (!done() && performance.now() - startedMs < timeoutMs) return;
      clearInterval(check);
      resolve();
    }, pollMs);
  });
}

/** A load ready to run: its requests encoded and its connections open. */
export interface PreparedLoad {
  /** Runs it now; resolves with its figures. */
  run(): Promise<LoadResult>;
  /** Closes its connections without running it. */
  close(): void;
}

/** Bodies kept of answers that are not 2xx: the start of the first one of each status. */
const errorSampleChars = 200;

/**
 * Encodes the requests, opens the connections and collects the heap: everything a run needs
 * before it is timed, so several loads can be prepared first and then run at once.
 */
export async function prepareLoad(options: LoadOptions): Promise<PreparedLoad> {
  const pipeline = options.pipeline ?? 1;
  validate(options, pipeline);
  const url = new URL(options.url);
  const source = new PayloadSource(options.requests.map((spec) => encodeRequest(spec, url.host)), options.unique ?? false);
  const openRate = options.ratePerSecond;
  const tally = options.live ?? liveTally();
  const { latency: histogram, sendLag: lags, counters } = tally;
  const statusCounts: Record<string, number> = {};
  const errorSamples: Record<string, string> = {};
  let answered = 0;
  let errors = 0;
  let failed = 0;
  let skipped = 0;
  const record = (status: number, latencyNs: number, response: Buffer | undefined): void => {
    answered++;
    histogram.record(latencyNs);
    statusCounts[status] = (statusCounts[status] ?? 0) + 1;
    if (response === undefined) return;
    failed++;
    counters[LIVE_FAILED]!++;
    if (status === 429) counters[LIVE_TOO_MANY]!++;
    if (statusCounts[status] === 1) {
      const bodyAt = response.indexOf(headerEnd);
      errorSamples[status] = response.toString('utf8', bodyAt === -1 ? 0 : bodyAt + 4, Math.min(response.length, bodyAt + 4 + errorSampleChars));
    }
  };
  const sockets = await Promise.all(Array.from({ length: options.connections }, () => open(url)));
  let sender: Schedule | undefined;
  const onAnswer = (connection: Connection): void => {
    if (sender === undefined) connection.send(performance.now());
    else sender.onAnswer(connection);
  };
  const recordLag = openRate === undefined ? undefined : (lagNs: number): void => lags.record(lagNs);
  const connections = sockets.map((socket, index) => {
    socket.on('error', () => {
      errors++;
      counters[LIVE_SOCKET_ERRORS]!++;
    });
    return new Connection(socket, source, pipeline, index, record, onAnswer, recordLag);
  });
  // The caller's request objects and the encoding's garbage, collected before anything is timed.
  collectGarbage();
  const close = (): void => {
    for (const connection of connections) connection.stop();
  };
  const run = async (): Promise<LoadResult> => {
    const startedMs = performance.now();
    const drainMs = options.drainMs ?? drainMsDefault;
    if (openRate === undefined) for (const connection of connections) connection.start();
    else sender = schedule(connections, source, openRate, options.durationMs, () => skipped++);
    const label = options.label;
    const ticker = label === undefined ? undefined : setInterval(() => progress(label, startedMs, tally), 1000);
    const allAnswered = (): boolean => answered >= source.sent;
    if (sender === undefined) {
      await waitFor(() => source.exhausted && allAnswered(), options.durationMs);
    } else {
      // A sender held up by a busy machine still sends every request of the run, late (and timed
      // from when each was due); the drain bounds how long a stuck server is waited for.
      await waitFor(sender.finished, options.durationMs + drainMs);
      sender.cancel();
    }
    const durationMs = performance.now() - startedMs;
    // Open loop: the answers still out belong to the run, their latency is what the rate cost.
    if (sender !== undefined) await waitFor(allAnswered, drainMs);
    if (ticker !== undefined) clearInterval(ticker);
    close();
    if (label !== undefined) endProgress();
    return {
      requests: answered,
      sent: source.sent,
      skipped,
      durationMs,
      requestsPerSecond: answered / (durationMs / 1000),
      statusCounts,
      errors,
      failed,
      errorSamples,
      latency: summarize(histogram),
      sendLag: summarize(lags),
    };
  };
  return { run, close };
}

/** Runs one fixed-duration load and returns its throughput, latencies and status counts. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  return (await prepareLoad(options)).run();
}

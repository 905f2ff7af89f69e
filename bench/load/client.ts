// A small HTTP/1.1 load generator over raw keep-alive sockets. Each connection keeps `pipeline`
// requests outstanding (1 = closed loop, one at a time) for a fixed duration; latency from write
// to the end of the response goes into a perf_hooks histogram. Responses must carry
// Content-Length (every clobd response does). Node's own http client costs more CPU than the
// server under test, so it is not used here.
import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import { connect, type Socket } from 'node:net';

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
  readonly requests: number;
  readonly durationMs: number;
  readonly requestsPerSecond: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  readonly errors: number;
  readonly latency: LatencySummary;
}

const connectionsMax = 1024;
const pipelineMax = 64;
const headerEnd = Buffer.from('\r\n\r\n');
const contentLengthPattern = /\r\ncontent-length: *(\d+)/i;

export function encodeRequest(spec: RequestSpec, host: string): Buffer {
  const body = spec.body === undefined ? Buffer.alloc(0) : Buffer.from(spec.body);
  let head = `${spec.method} ${spec.path} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const [name, value] of Object.entries(spec.headers ?? {})) head += `${name}: ${value}\r\n`;
  if (body.length > 0 || spec.method !== 'GET') head += `Content-Length: ${body.length}\r\n`;
  return Buffer.concat([Buffer.from(head + '\r\n', 'latin1'), body]);
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
class ResponseParser {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Byte length of the response at the front, once its header has been read; -1 before. */
  private expected = -1;
  private status = 0;

  push(chunk: Buffer, onResponse: (status: number) => void): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.expected === -1 && !this.readHeader()) return;
      if (this.buffered < this.expected) return;
      const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.buffered);
      const rest = all.subarray(this.expected);
      this.chunks = rest.length === 0 ? [] : [rest];
      this.buffered = rest.length;
      this.expected = -1;
      onResponse(this.status);
    }
  }

  private readHeader(): boolean {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    const buffer = this.chunks[0];
    if (buffer === undefined) return false;
    const end = buffer.indexOf(headerEnd);
    if (end === -1) return false;
    const head = buffer.toString('latin1', 0, end);
    const length = contentLengthPattern.exec(head);
    if (length === null) throw new Error(`response without Content-Length: ${head.slice(0, 80)}`);
    this.status = Number(head.slice(9, 12));
    this.expected = end + 4 + Number(length[1]);
    return true;
  }
}

class Connection {
  private readonly parser = new ResponseParser();
  private readonly sentAt: number[] = [];
  private next = 0;
  private stopped = false;

  constructor(
    private readonly socket: Socket,
    private readonly payloads: readonly Buffer[],
    private readonly pipeline: number,
    offset: number,
    private readonly record: (status: number, latencyNs: number) => void,
  ) {
    this.next = offset;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.parser.push(chunk, (status) => this.onResponse(status)));
  }

  start(): void {
    for (let index = 0; index < this.pipeline; index++) this.send();
  }

  stop(): void {
    this.stopped = true;
    this.socket.destroy();
  }

  private send(): void {
    const payload = this.payloads[this.next % this.payloads.length] as Buffer;
    this.next++;
    this.sentAt.push(performance.now());
    this.socket.write(payload);
  }

  private onResponse(status: number): void {
    const sent = this.sentAt.shift() ?? performance.now();
    this.record(status, Math.max(1, Math.round((performance.now() - sent) * 1e6)));
    if (!this.stopped) this.send();
  }
}

function open(url: URL): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

function progress(label: string, startedMs: number, histogram: RecordableHistogram, errors: number): void {
  const seconds = (performance.now() - startedMs) / 1000;
  const rate = Math.round(histogram.count / seconds);
  const latency = summarize(histogram);
  const line = `${label}  ${seconds.toFixed(1)}s  ${rate.toLocaleString('en-US')} req/s  p50 ${latency.p50Ms} ms  p99 ${latency.p99Ms} ms  errors ${errors}`;
  process.stderr.write(process.stderr.isTTY ? `\r${line}\x1b[K` : `${line}\n`);
}

/** Runs one fixed-duration load and returns its throughput, latencies and status counts. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const pipeline = options.pipeline ?? 1;
  if (!(options.connections >= 1 && options.connections <= connectionsMax)) throw new Error(`connections must be 1..${connectionsMax}`);
  if (!(pipeline >= 1 && pipeline <= pipelineMax)) throw new Error(`pipeline must be 1..${pipelineMax}`);
  if (options.requests.length === 0) throw new Error('at least one request is needed');
  const url = new URL(options.url);
  const payloads = options.requests.map((spec) => encodeRequest(spec, url.host));
  const histogram = createHistogram();
  const statusCounts: Record<string, number> = {};
  let errors = 0;
  const record = (status: number, latencyNs: number): void => {
    histogram.record(latencyNs);
    statusCounts[status] = (statusCounts[status] ?? 0) + 1;
  };
  const sockets = await Promise.all(Array.from({ length: options.connections }, () => open(url)));
  const connections = sockets.map((socket, index) => {
    socket.on('error', () => errors++);
    return new Connection(socket, payloads, pipeline, index, record);
  });
  const startedMs = performance.now();
  for (const connection of connections) connection.start();
  const label = options.label;
  const ticker = label === undefined ? undefined : setInterval(() => progress(label, startedMs, histogram, errors), 1000);
  await new Promise((resolve) => setTimeout(resolve, options.durationMs));
  const durationMs = performance.now() - startedMs;
  if (ticker !== undefined) clearInterval(ticker);
  for (const connection of connections) connection.stop();
  if (label !== undefined && process.stderr.isTTY) process.stderr.write('\n');
  return {
    requests: histogram.count,
    durationMs,
    requestsPerSecond: histogram.count / (durationMs / 1000),
    statusCounts,
    errors,
    latency: summarize(histogram),
  };
}

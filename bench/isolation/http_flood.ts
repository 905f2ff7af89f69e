// The isolation benchmark's HTTP attacker: `connections` keep-alive connections, each with one
// request out at a time, sending the next the moment an answer is in (a closed loop at full
// speed, which is what a hostile client does), over raw sockets bound to the attacker's own
// client addresses (Linux routes all of 127/8 to the loopback interface). It ignores
// Retry-After, as a hostile client would; with `hop`, a connection refused with 429 reconnects
// from the next of its addresses, to spread over per-address caps.
//
// Answers are skimmed, not kept: the head is read for the status and Retry-After, the body's
// bytes are counted and dropped, so a 6 MB answer costs the attacker no copying.
import { connect } from 'node:net';
import type { RequestSpec } from '../load/client.js';
import { AddressRing, countOther, FloodPeer, floodOf, type AttackCounts, type Flood } from './counts.js';

export interface HttpFloodPlan {
  readonly kind: 'http';
  /** Base URL of the listener, e.g. http://127.0.0.1:8082 */
  readonly url: string;
  readonly connections: number;
  readonly requests: readonly RequestSpec[];
  /** Each request is sent once at most (fresh wallets' key creations); otherwise round-robin. */
  readonly once: boolean;
  readonly addresses: readonly string[];
  readonly hop: boolean;
}

/** A closed or broken connection is opened again after this long (a refused connect would spin otherwise). */
const RECONNECT_MS = 10;
/** Longest answer head the attacker reads (clobd's heads are a few hundred bytes). */
const HEAD_BYTES_MAX = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/;
const RETRY_AFTER = '\r\nretry-after:';

/** Frames HTTP/1.1 answers by Content-Length from a byte stream, keeping only each head. */
export class AnswerSkimmer {
  private pending: Buffer = Buffer.alloc(0);
  /** Body bytes of the current answer still to come; -1 while its head is read. */
  private bodyLeft = -1;
  private status = 0;
  private retryAfter = false;

  constructor(private readonly onAnswer: (status: number, retryAfter: boolean) => void) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.bodyLeft > 0) {
        const take = Math.min(this.bodyLeft, chunk.length - at);
        this.bodyLeft -= take;
        at += take;
        if (this.bodyLeft === 0) this.finish();
        continue;
      }
      const piece = chunk.subarray(at);
      const head = this.pending.length === 0 ? piece : Buffer.concat([this.pending, piece]);
      const end = head.indexOf(HEAD_END);
      if (end === -1) {
        if (head.length > HEAD_BYTES_MAX) throw new Error('an answer head longer than 64 KiB');
        this.pending = head;
        return;
      }
      this.readHead(head.toString('latin1', 0, end + 2).toLowerCase());
      at += end + 4 - this.pending.length;
      this.pending = Buffer.alloc(0);
      if (this.bodyLeft === 0) this.finish();
    }
  }

  private readHead(text: string): void {
    const length = CONTENT_LENGTH.exec(text);
    if (length === null) throw new Error(`an answer without Content-Length: ${text.slice(0, 80)}`);
    this.status = Number(text.slice(9, 12));
    this.retryAfter = text.includes(RETRY_AFTER);
    this.bodyLeft = Number(length[1]);
  }

  private finish(): void {
    this.bodyLeft = -1;
    this.onAnswer(this.status, this.retryAfter);
  }
}

function encode(spec: RequestSpec, host: string): Buffer {
  const body = spec.body === undefined ? Buffer.alloc(0) : Buffer.from(spec.body);
  let head = `${spec.method} ${spec.path} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const [name, value] of Object.entries(spec.headers ?? {})) head += `${name}: ${value}\r\n`;
  if (body.length > 0 || spec.method !== 'GET') head += `Content-Length: ${body.length}\r\n`;
  return Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), body]);
}

/**
 * The requests, encoded once; `take` gives the next (round-robin, or each once). A request that
 * must go once and was refused with 429 was not executed: it goes again, before the fresh ones,
 * so a flood that is mostly refused does not use up its signed requests.
 */
class RequestSource {
  private readonly encoded: readonly Buffer[];
  private readonly once: boolean;
  private next = 0;
  private readonly refused: Buffer[] = [];

  constructor(plan: HttpFloodPlan, private readonly counts: AttackCounts) {
    const { host } = new URL(plan.url);
    this.encoded = plan.requests.map((spec) => encode(spec, host));
    if (this.encoded.length === 0) throw new Error('an HTTP attack needs at least one request');
    this.once = plan.once;
  }

  take(): Buffer | undefined {
    const again = this.refused.shift();
    if (again !== undefined) return again;
    if (this.once && this.next >= this.encoded.length) {
      this.counts.exhausted = true;
      return undefined;
    }
    return this.encoded[this.next++ % this.encoded.length];
  }

  /** `request` was refused with 429: a request that must go once goes again. */
  refusedAgain(request: Buffer): void {
    if (this.once) this.refused.push(request);
  }
}

class FloodConnection extends FloodPeer {
  private skimmer: AnswerSkimmer | undefined;
  /** The request out on this connection, if any. */
  private inFlight: Buffer | undefined;

  constructor(
    index: number,
    private readonly target: { readonly host: string; readonly port: number },
    ring: AddressRing,
    private readonly source: RequestSource,
    counts: AttackCounts,
    settled: () => void,
  ) {
    super(index, ring, counts, settled);
    this.open();
  }

  protected resume(): void {
    this.sendNext();
  }

  protected open(): void {
    const socket = connect({ host: this.target.host, port: this.target.port, localAddress: this.address });
    this.socket = socket;
    this.skimmer = new AnswerSkimmer((status, retryAfter) => this.onAnswer(status, retryAfter));
    const skimmer = this.skimmer;
    socket.setNoDelay(true);
    let connected = false;
    socket.once('connect', () => {
      connected = true;
      this.settled();
      this.sendNext();
    });
    socket.on('data', (chunk: Buffer) => {
      this.counts.bytesIn += chunk.length;
      try {
        skimmer.push(chunk);
      } catch {
        this.counts.errors++;
        socket.destroy();
      }
    });
    // A connect that failed was counted as an error, not a close.
    this.watchEnd(socket, () => connected, RECONNECT_MS);
  }

  private sendNext(): void {
    const socket = this.socket;
    if (!this.sending || this.stopped || socket === undefined || socket.connecting || socket.destroyed) return;
    const request = this.source.take();
    if (request === undefined) return;
    this.counts.sent++;
    this.inFlight = request;
    socket.write(request);
  }

  private onAnswer(status: number, retryAfter: boolean): void {
    const answered = this.inFlight;
    this.inFlight = undefined;
    if (status >= 200 && status < 300) this.counts.ok++;
    else if (status === 429) {
      this.counts.refused++;
      if (retryAfter) this.counts.retryAfter++;
      if (answered !== undefined) this.source.refusedAgain(answered);
      if (this.ring.hop && !this.stopped) {
        // Move to a fresh address: the old socket is left behind, its close ignored.
        const old = this.socket;
        this.hop();
        old?.destroy();
        return;
      }
    } else countOther(this.counts, String(status));
    this.sendNext();
  }
}

export function startHttpFlood(plan: HttpFloodPlan, counts: AttackCounts): Flood {
  const url = new URL(plan.url);
  const target = { host: url.hostname, port: Number(url.port) };
  const ring = new AddressRing(plan.addresses, plan.hop);
  const source = new RequestSource(plan, counts);
  return floodOf(plan.connections, (index, settled) => new FloodConnection(index, target, ring, source, counts, settled)).flood;
}

// The isolation benchmark's WebSocket attacker: `sockets` market-channel sockets over raw TCP,
// bound to the attacker's own client addresses, each sending as fast as the server takes it:
//
// - toggle: subscribe to every token, unsubscribe from every token, again and again (each
//   subscribe makes the server send every token's whole book);
// - ping: "PING" text messages, as Polymarket's clients send them.
//
// The server handles a socket's messages in order, so a PING after a batch answers when the
// batch is through: each socket keeps a window of PINGs out and sends the next batch as the
// PONGs come, which keeps the server busy without queueing unboundedly in the kernel. A socket
// whose PONGs stop coming for a while is taken to have been dropped and refilled, so a server
// that swallows messages cannot stall the attacker either. Every frame the server sends is
// read: text frames are counted (a PONG, an error message), their bodies skipped; a socket the
// server closes (a close frame, a 429 upgrade, a broken connection) reconnects after a moment,
// from the next address with `hop`.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { AddressRing, countOther, FloodPeer, floodOf, type AttackCounts, type Flood } from './counts.js';

export interface WsFloodPlan {
  readonly kind: 'ws';
  /** ws://host:port/ws/market */
  readonly url: string;
  readonly sockets: number;
  readonly mode: 'toggle' | 'ping';
  /** Every token the toggles subscribe to. */
  readonly tokens: readonly string[];
  readonly addresses: readonly string[];
  readonly hop: boolean;
}

/** A closed socket, or a refused upgrade, is opened again after this long. */
const RECONNECT_MS = 50;
/** How often each socket's PONGs are checked; one that got none since the last check is refilled. */
const STALL_MS = 250;
const HEAD_END = Buffer.from('\r\n\r\n');
/** Bytes of each text frame's start that are kept to tell a PONG or an error message. */
const PEEK_BYTES = 125;
const PONG = 'PONG';
const ERROR_START = '{"error"';

/** One masked client text frame (the mask drawn once: the same bytes are sent again and again). */
export function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const length = payload.length;
  const header = length < 126 ? Buffer.from([0x81, 0x80 | length])
    : length < 65_536 ? Buffer.from([0x81, 0x80 | 126, length >> 8, length & 0xff])
      : (() => {
        const long = Buffer.alloc(10);
        long[0] = 0x81;
        long[1] = 0x80 | 127;
        long.writeBigUInt64BE(BigInt(length), 2);
        return long;
      })();
  const mask = randomBytes(4);
  const masked = Buffer.alloc(length);
  for (let index = 0; index < length; index++) masked[index] = payload[index]! ^ mask[index & 3]!;
  return Buffer.concat([header, mask, masked]);
}

function maskedFrame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const masked = Buffer.alloc(payload.length);
  for (let index = 0; index < payload.length; index++) masked[index] = payload[index]! ^ mask[index & 3]!;
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length]), mask, masked]);
}

/**
 * Reads the server's (unmasked) frames from a byte stream without keeping them: each frame's
 * opcode, length and first PEEK_BYTES bytes go to `onFrame` once it is whole.
 */
export class FrameReader {
  private readonly header = Buffer.alloc(10);
  private headerHave = 0;
  private payloadLeft = -1;
  private opcode = 0;
  private length = 0;
  private readonly peek = Buffer.alloc(PEEK_BYTES);
  private peekHave = 0;

  constructor(private readonly onFrame: (opcode: number, length: number, start: Buffer) => void) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.payloadLeft === -1) {
        this.header[this.headerHave++] = chunk[at++]!;
        this.readHeader();
        continue;
      }
      const take = Math.min(this.payloadLeft, chunk.length - at);
      const keep = Math.min(take, PEEK_BYTES - this.peekHave);
      if (keep > 0) {
        chunk.copy(this.peek, this.peekHave, at, at + keep);
        this.peekHave += keep;
      }
      this.payloadLeft -= take;
      at += take;
      if (this.payloadLeft === 0) this.finish();
    }
  }

  /** Once the header is whole: the frame's length, and the frame itself when it has no payload. */
  private readHeader(): void {
    if (this.headerHave < 2) return;
    const short = this.header[1]! & 0x7f;
    const size = short === 126 ? 4 : short === 127 ? 10 : 2;
    if (this.headerHave < size) return;
    if ((this.header[1]! & 0x80) !== 0) throw new Error('a masked frame from the server');
    this.opcode = this.header[0]! & 0x0f;
    this.length = short === 126 ? this.header.readUInt16BE(2) : short === 127 ? Number(this.header.readBigUInt64BE(2)) : short;
    this.headerHave = 0;
    this.peekHave = 0;
    this.payloadLeft = this.length;
    if (this.length === 0) this.finish();
  }

  private finish(): void {
    this.payloadLeft = -1;
    this.onFrame(this.opcode, this.length, this.peek.subarray(0, this.peekHave));
  }
}

/** What one socket sends: a batch of messages ending in PINGs, and how many operations and PONGs that is. */
interface Batch {
  readonly bytes: Buffer;
  readonly operations: number;
  readonly pongs: number;
  /** PONGs a socket may wait for at once. */
  readonly window: number;
}

function batchOf(plan: WsFloodPlan): Batch {
  const ping = maskedTextFrame('PING');
  if (plan.mode === 'ping') return { bytes: Buffer.concat(Array.from({ length: 64 }, () => ping)), operations: 64, pongs: 64, window: 256 };
  const subscribe = maskedTextFrame(JSON.stringify({ operation: 'subscribe', assets_ids: plan.tokens }));
  const unsubscribe = maskedTextFrame(JSON.stringify({ operation: 'unsubscribe', assets_ids: plan.tokens }));
  // The PING fences the pair; it is not counted as an operation of its own.
  return { bytes: Buffer.concat([subscribe, unsubscribe, ping]), operations: 2, pongs: 1, window: 4 };
}

class FloodSocket extends FloodPeer {
  /** Upgraded, and not closed since. */
  private live = false;
  private awaiting = 0;
  private pongsSinceCheck = 0;

  constructor(
    index: number,
    private readonly target: { readonly host: string; readonly port: number; readonly path: string },
    ring: AddressRing,
    private readonly batch: Batch,
    counts: AttackCounts,
    settled: () => void,
  ) {
    super(index, ring, counts, settled);
    this.open();
  }

  protected resume(): void {
    this.fill();
  }

  /** Called every STALL_MS: PONGs that stopped coming are written off. */
  check(): void {
    if (this.live && this.pongsSinceCheck === 0 && this.awaiting > 0) {
      this.awaiting = 0;
      this.fill();
    }
    this.pongsSinceCheck = 0;
  }

  protected open(): void {
    const socket = connect({ host: this.target.host, port: this.target.port, localAddress: this.address });
    this.socket = socket;
    this.live = false;
    this.awaiting = 0;
    let upgraded = false;
    let head: Buffer = Buffer.alloc(0);
    const reader = new FrameReader((opcode, length, start) => this.onFrame(opcode, length, start));
    socket.setNoDelay(true);
    socket.once('connect', () => {
      socket.write(`GET ${this.target.path} HTTP/1.1\r\nHost: ${this.target.host}:${this.target.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
        + `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      this.counts.bytesIn += chunk.length;
      try {
        if (upgraded) return reader.push(chunk);
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf(HEAD_END);
        if (end === -1) return;
        const status = Number(head.toString('latin1', 9, 12));
        if (status !== 101) return this.refused(socket, status, head.toString('latin1', 0, end).toLowerCase().includes('\r\nretry-after:'));
        upgraded = true;
        this.live = true;
        this.settled();
        this.fill();
        reader.push(head.subarray(end + 4));
      } catch {
        this.counts.errors++;
        socket.destroy();
      }
    });
    this.watchEnd(socket, () => upgraded, RECONNECT_MS, () => (this.live = false));
  }

  private refused(socket: Socket, status: number, retryAfter: boolean): void {
    if (status === 429) {
      this.counts.refused++;
      if (retryAfter) this.counts.retryAfter++;
    } else countOther(this.counts, `upgrade ${status}`);
    this.settled();
    // Not a close of an open socket: reconnect without counting it as one.
    this.socket = undefined;
    socket.destroy();
    this.hop(RECONNECT_MS);
  }

  /** Sends batches while the window has room. */
  private fill(): void {
    const socket = this.socket;
    if (!this.sending || !this.live || this.stopped || socket === undefined) return;
    while (this.awaiting + this.batch.pongs <= this.batch.window) {
      socket.write(this.batch.bytes);
      this.counts.sent += this.batch.operations;
      this.awaiting += this.batch.pongs;
    }
  }

  private onFrame(opcode: number, length: number, start: Buffer): void {
    if (opcode === 0x1) {
      if (length === PONG.length && start.toString('latin1') === PONG) {
        this.pongsSinceCheck++;
        this.awaiting = Math.max(0, this.awaiting - 1);
        this.counts.ok += this.batch.operations / this.batch.pongs;
        this.fill();
      } else if (start.toString('latin1', 0, ERROR_START.length) === ERROR_START) {
        countOther(this.counts, 'ws error');
      }
    } else if (opcode === 0x8) {
      const code = start.length >= 2 ? start.readUInt16BE(0) : 1005;
      this.counts.closeCodes[code] = (this.counts.closeCodes[code] ?? 0) + 1;
    } else if (opcode === 0x9) {
      this.socket?.write(maskedFrame(0xa, Buffer.from(start)));
    }
  }
}

export function startWsFlood(plan: WsFloodPlan, counts: AttackCounts): Flood {
  const url = new URL(plan.url);
  const target = { host: url.hostname, port: Number(url.port), path: url.pathname };
  const ring = new AddressRing(plan.addresses, plan.hop);
  const batch = batchOf(plan);
  const stall = setInterval(() => {
    for (const socket of peers) socket.check();
  }, STALL_MS);
  const { flood, peers } = floodOf(plan.sockets, (index, settled) => new FloodSocket(index, target, ring, batch, counts, settled), () => clearInterval(stall));
  return flood;
}

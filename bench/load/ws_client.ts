// A minimal WebSocket subscriber for fan-out benchmarks: raw TCP, the RFC 6455 handshake, masked
// client text frames, and a frame reader that counts text frames without decoding them, except
// on sampled sockets, which decode each message and time it from the `timestamp` it carries
// (milliseconds since the epoch, the same clock: server and subscribers share the machine).
// Decoding every message of a thousand sockets in one Node process would make the subscribers,
// not the server, the bottleneck.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import type { RecordableHistogram } from 'node:perf_hooks';

export interface Subscriber {
  /** Text frames received so far. */
  frames: number;
  /** Whether the connection has ended (the server closed it, or it broke). */
  ended: boolean;
  /** The code and reason of the server's close frame, when one came (4429: a cap refused the socket). */
  closeCode: number | undefined;
  closeReason: string;
  readonly socket: Socket;
  send(text: string): void;
  close(): void;
}

/** What a sampled subscriber records of the messages of one `event_type`. */
export interface Sample {
  readonly latency: RecordableHistogram;
  eventType: string;
  messages: number;
  bytes: number;
}

/** The server answered the upgrade with something other than 101: its status line, status and body. */
export class UpgradeRefused extends Error {
  constructor(readonly status: number, readonly statusLine: string, readonly body: string) {
    super(`upgrade refused: ${statusLine}${body === '' ? '' : ` ${body}`}`);
  }
}

/** Opens a WebSocket to `url` (ws://host:port/path). `sample`: decode and time every message. */
export function subscribe(url: string, sample: Sample | undefined): Promise<Subscriber> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.setNoDelay(true);
    let handshaken = false;
    let buffer: Buffer = Buffer.alloc(0);
    const subscriber: Subscriber = {
      frames: 0, ended: false, closeCode: undefined, closeReason: '', socket,
      send(text) {
        const payload = Buffer.from(text);
        const mask = randomBytes(4);
        const header = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length])
          : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
        const masked = Buffer.alloc(payload.length);
        for (let index = 0; index < payload.length; index++) masked[index] = payload[index]! ^ mask[index & 3]!;
        socket.write(Buffer.concat([header, mask, masked]));
      },
      close() {
        socket.destroy();
      },
    };
    // Before the upgrade an error refuses the subscription; after it, the socket just ends.
    socket.on('error', (error) => {
      if (!handshaken) reject(error);
    });
    socket.on('close', () => {
      subscriber.ended = true;
      if (!handshaken) reject(new Error('the connection closed before the upgrade was answered'));
    });
    socket.on('connect', () => {
      socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
        + `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      if (!handshaken) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buffer.subarray(0, end).toString('latin1');
        const status = Number(head.slice(9, 12));
        if (status !== 101) {
          // The refusal's body says why (uWS sends it with the head); wait for all of it.
          const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
          if (length !== null && buffer.length < end + 4 + Number(length[1])) return;
          socket.destroy();
          return reject(new UpgradeRefused(status, head.split('\r\n')[0]!, buffer.subarray(end + 4).toString('utf8').trim()));
        }
        handshaken = true;
        buffer = buffer.subarray(end + 4);
        resolve(subscriber);
      }
      let at = 0;
      for (;;) {
        if (buffer.length - at < 2) break;
        const opcode = buffer[at]! & 0x0f;
        let length = buffer[at + 1]! & 0x7f;
        let headerBytes = 2;
        if (length === 126) {
          if (buffer.length - at < 4) break;
          length = buffer.readUInt16BE(at + 2);
          headerBytes = 4;
        } else if (length === 127) {
          if (buffer.length - at < 10) break;
          length = Number(buffer.readBigUInt64BE(at + 2));
          headerBytes = 10;
        }
        if (buffer.length - at < headerBytes + length) break;
        if (opcode === 0x1) {
          subscriber.frames++;
          if (sample !== undefined) {
            const text = buffer.toString('utf8', at + headerBytes, at + headerBytes + length);
            if (text.includes(`"event_type":"${sample.eventType}"`)) {
              sample.messages++;
              sample.bytes += length;
              const match = /"timestamp":"(\d+)"/.exec(text);
              if (match !== null) sample.latency.record(Math.max(1, (Date.now() - Number(match[1])) * 1_000_000));
            }
          }
        } else if (opcode === 0x8) {
          // The server's close: its code (two bytes) and reason, if any.
          if (length >= 2) subscriber.closeCode = buffer.readUInt16BE(at + headerBytes);
          subscriber.closeReason = buffer.toString('utf8', at + headerBytes + Math.min(2, length), at + headerBytes + length);
        } else if (opcode === 0x9) {
          // A ping: answer with a masked pong of the same payload.
          const payload = buffer.subarray(at + headerBytes, at + headerBytes + length);
          const mask = randomBytes(4);
          const masked = Buffer.alloc(payload.length);
          for (let index = 0; index < payload.length; index++) masked[index] = payload[index]! ^ mask[index & 3]!;
          socket.write(Buffer.concat([Buffer.from([0x8a, 0x80 | payload.length]), mask, masked]));
        }
        at += headerBytes + length;
      }
      buffer = at === buffer.length ? Buffer.alloc(0) : buffer.subarray(at);
    });
  });
}

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

/** Opens a WebSocket to `url` (ws://host:port/path). `sample`: decode and time every message. */
export function subscribe(url: string, sample: Sample | undefined): Promise<Subscriber> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.setNoDelay(true);
    let handshaken = false;
    let buffer: Buffer = Buffer.alloc(0);
    const subscriber: Subscriber = {
      frames: 0, socket,
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
    socket.once('error', reject);
    socket.on('connect', () => {
      socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
        + `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      if (!handshaken) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end === -1) return;
        if (!buffer.subarray(0, 12).toString('latin1').includes('101')) return reject(new Error(`upgrade refused: ${buffer.subarray(0, end).toString('latin1')}`));
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

// The floor of POST /order on this machine, for bench/orders: a raw uWS route on the bench
// server's CLOB listener that does only what no durable, signature-checked order can skip. It
// reads the body, parses the JSON, hashes the EIP-712 order, recovers its signer on the server's
// own signature pool (http/auth/verifier.ts) with a thread per core, writes the body to LMDB with
// a synced commit, and answers as POST /order does. It does no HMAC check, no validation, no
// matching, no ledger and no account reads. The benchmark sends it clobd's peak requests from the
// same generator, so what it reaches bounds what clobd can reach on this machine. It reads its
// body itself rather than through http/respond.ts's readBody, which runs on the router's request
// lifecycle (deadlines, the 408/413 replies) that a raw route does not have.
import { join } from 'node:path';
import type { Database } from 'lmdb';
import { openDurable } from '../../engine/durable_env.js';
import { orderDigest, toHex } from '../../http/auth/eip712.js';
import { PoolVerifier } from '../../http/auth/verifier.js';
import type { HttpResponse, TemplatedApp } from '../../http/uws.js';
import { orderDomain } from '../../test/http/orders/trader.js';
import { structOf } from './auth_cost.js';

export const floorPath = '/__bench/order-floor';
/** Recovery threads: one per core of this 2-core machine. */
export const FLOOR_THREADS = 2;
/** Bodies are bench orders of ~700 bytes; anything larger is refused. */
const BODY_BYTES_MAX = 16 * 1024;
const DOMAIN = orderDomain();

function answer(res: HttpResponse, status: string, body: string): void {
  res.cork(() => res.writeStatus(status).writeHeader('content-type', 'application/json').end(body));
}

/** Serves the floor route on `app`, with its LMDB environment under `dataDir`; returns its close. */
export function addOrderFloor(app: TemplatedApp, dataDir: string): () => Promise<void> {
  const root = openDurable(join(dataDir, 'bench-floor'), 1);
  const orders: Database<Buffer, string> = root.openDB({ name: 'orders', encoding: 'binary' });
  const verifier = new PoolVerifier(FLOOR_THREADS);
  app.post(floorPath, (res) => {
    let closed = false;
    res.onAborted(() => {
      closed = true;
    });
    const reply = (status: string, body: string): void => {
      if (closed) return;
      closed = true;
      answer(res, status, body);
    };
    const chunks: Buffer[] = [];
    let length = 0;
    res.onData((chunk, isLast) => {
      if (closed) return;
      length += chunk.byteLength;
      if (length > BODY_BYTES_MAX) return reply('413 Payload Too Large', '{"error":"body too large"}');
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!isLast) return;
      const body = Buffer.concat(chunks, length);
      let order: Record<string, unknown>;
      let digest: Uint8Array;
      try {
        order = (JSON.parse(body.toString()) as { order: Record<string, unknown> }).order;
        digest = orderDigest(DOMAIN, structOf(order));
      } catch {
        return reply('400 Bad Request', '{"error":"invalid order"}');
      }
      verifier.recover(digest, String(order['signature'])).then(async (signer) => {
        if (signer === undefined || signer !== String(order['signer']).toLowerCase()) return reply('400 Bad Request', '{"error":"invalid signature"}');
        const orderId = toHex(digest);
        await orders.put(orderId, body);
        reply('200 OK', `{"success":true,"errorMsg":"","orderID":"${orderId}","status":"live","makingAmount":"0","takingAmount":"0"}`);
      }).catch(() => reply('503 Service Unavailable', '{"error":"floor overloaded"}'));
    });
  });
  return async () => {
    await verifier.close();
    await root.close();
  };
}

// What authentication and signature checks cost alone, on one core of this process, with the
// server's own functions on the benchmark's own requests: the signature verifier
// (recoverAddress, native libsecp256k1) in a tight loop — the rate the HTTP path is judged
// against — and the per-order cost of each step POST /order pays before the engine: the L2 HMAC
// check, the EIP-712 order digest, and the recovery.
import { performance } from 'node:perf_hooks';
import { orderDigest, type OrderStruct } from '../../http/auth/eip712.js';
import { authenticateL2, readL2Headers, type ApiKeyRecord } from '../../http/auth/l2.js';
import { recoverAddress } from '../../http/auth/recover.js';
import type { RequestSpec } from '../load/client.js';
import { orderDomain, type Trader } from '../../test/http/orders/trader.js';
import type { SignedOrder } from './exchange.js';

export interface AuthCost {
  /** Signatures recovered per second, one core. */
  readonly verifierPerSecond: number;
  readonly hmacUs: number;
  readonly digestUs: number;
  readonly recoverUs: number;
}

/** Rounds per measure; the best is kept, so a burst of other work on the VM does not decide it. */
const ROUNDS = 3;

/** The signed struct of a bench order (its JSON `order` object). */
export function structOf(order: SignedOrder): OrderStruct {
  const text = (name: string): string => String(order[name]);
  return {
    salt: text('salt'), maker: text('maker'), signer: text('signer'), tokenId: text('tokenId'), makerAmount: text('makerAmount'),
    takerAmount: text('takerAmount'), side: order['side'] === 'BUY' ? 0 : 1, signatureType: 0, timestamp: text('timestamp'),
    metadata: text('metadata'), builder: text('builder'),
  };
}

/** Best microseconds per item of `step` over `count` items, after one untimed warm-up pass. */
function microsPerItem(count: number, step: (index: number) => void): number {
  let best = Infinity;
  for (let round = 0; round <= ROUNDS; round++) {
    const started = performance.now();
    for (let index = 0; index < count; index++) step(index);
    const us = ((performance.now() - started) * 1000) / count;
    if (round > 0) best = Math.min(best, us);
  }
  return best;
}

/**
 * Times each step over the first `count` signed orders and their requests (as built for the
 * server, L2 headers included). Every result is checked, so no step can be optimised away.
 */
export function measureAuthCost(
  signed: readonly SignedOrder[], requests: readonly RequestSpec[], traders: readonly Trader[], count: number,
): AuthCost {
  const n = Math.min(count, signed.length, requests.length);
  const keys = new Map<string, ApiKeyRecord>();
  for (const trader of traders) {
    const credentials = trader.credentials;
    if (credentials === undefined) continue;
    keys.set(credentials.apiKey, {
      apiKey: credentials.apiKey, address: trader.address, secretBytes: Buffer.from(credentials.secret, 'base64url'), passphrase: credentials.passphrase,
    });
  }
  const structs = signed.slice(0, n).map(structOf);
  const domain = orderDomain();
  const digests = structs.map((struct) => orderDigest(domain, struct));
  const signatures = signed.slice(0, n).map((order) => String(order['signature']));
  const bodies = requests.slice(0, n).map((request) => Buffer.from(request.body ?? ''));
  const headers = requests.slice(0, n).map((request) => {
    const lower: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers ?? {})) lower[name.toLowerCase()] = value;
    return readL2Headers(lower);
  });
  const nowS = Math.floor(Date.now() / 1000);
  const recoverUs = microsPerItem(n, (index) => {
    if (recoverAddress(digests[index]!, signatures[index]!) !== structs[index]!.signer) throw new Error('recovery disagrees with the signer');
  });
  const digestUs = microsPerItem(n, (index) => {
    if (orderDigest(domain, structs[index]!).length !== 32) throw new Error('digest length');
  });
  const hmacUs = microsPerItem(n, (index) => {
    authenticateL2(headers[index], 'POST', '/order', bodies[index]!, nowS, 3600, (apiKey) => keys.get(apiKey));
  });
  return { verifierPerSecond: 1e6 / recoverUs, hmacUs, digestUs, recoverUs };
}

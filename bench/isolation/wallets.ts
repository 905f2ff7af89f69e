// Fresh wallets for the isolation benchmark's key-creation flood: thousands of L1-signed
// POST /auth/api-key requests, each from a wallet the server has never seen, made in well under
// a second with the native libsecp256k1 (the test wallet's pure-JS key derivation takes ~0.4 ms
// a wallet). The headers are the test trading client's (test/http/orders/trader.ts, l1Headers).
import { createRequire } from 'node:module';
import { clobAuthDigest } from '../../http/auth/eip712.js';
import { addressOfPublicKey } from '../../http/auth/recover.js';
import { CHAIN_ID } from '../../test/http/orders/trader.js';
import type { RequestSpec } from '../load/client.js';

interface NativeSecp256k1 {
  publicKeyCreate(secret: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(message: Uint8Array, secret: Uint8Array): { signature: Uint8Array; recid: number };
}

/** The addon itself, never the package's JavaScript fallback (see http/auth/recover.ts). */
const native = createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;

/** A wallet's secret from a number: distinct from the test traders' (0x42 …) and from each other. */
function secretOf(seed: number): Uint8Array {
  const secret = new Uint8Array(32);
  secret[0] = 0x43;
  new DataView(secret.buffer).setUint32(28, seed);
  return secret;
}

/** `count` POST /auth/api-key requests (nonce 0), each from a fresh wallet, wallets `firstSeed` on. */
export function keyCreations(firstSeed: number, count: number, nowS = Math.floor(Date.now() / 1000)): RequestSpec[] {
  const requests: RequestSpec[] = [];
  for (let index = 0; index < count; index++) {
    const secret = secretOf(firstSeed + index);
    const address = addressOfPublicKey(native.publicKeyCreate(secret, false));
    const digest = clobAuthDigest(CHAIN_ID, address, String(nowS), 0n);
    const { signature, recid } = native.ecdsaSign(digest, secret);
    requests.push({
      method: 'POST', path: '/auth/api-key', headers: {
        'SERVICE-ADDRESS': `0x${address.slice(2).toUpperCase()}`, 'SERVICE-SIGNATURE': `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}`,
        'SERVICE-TIMESTAMP': String(nowS), 'SERVICE-NONCE': '0',
      },
    });
  }
  return requests;
}

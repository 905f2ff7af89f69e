// Who signed a digest: secp256k1 public-key recovery with the native libsecp256k1 binding (npm
// `secp256k1`), ~25× faster here than a pure-JS curve. The package silently falls back to a
// JavaScript implementation when its native addon does not load; we load the addon's entry
// point directly, so a missing binary fails at startup instead of slowing every order.
//
// Signatures are Ethereum's 65 bytes r ‖ s ‖ v (v = 27/28, or 0/1). High-s signatures are
// refused, as OpenZeppelin's ECDSA (what the exchange contracts use) refuses them.
import { createRequire } from 'node:module';
import { keccak256 } from './keccak.js';

interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recoveryId: number, message: Uint8Array, compressed: boolean): Uint8Array;
}

const require = createRequire(import.meta.url);
/** `secp256k1/bindings` is the native addon only; `secp256k1` itself may be the JS fallback. */
const native = require('secp256k1/bindings') as NativeSecp256k1;

export const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;
/** n / 2 of secp256k1, the largest s a canonical signature may carry. */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

function bigintOf(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`);
}

/** Lower-case 0x address of an uncompressed public key (65 bytes, 0x04 ‖ x ‖ y). */
export function addressOfPublicKey(publicKey: Uint8Array): string {
  const hash = keccak256(publicKey.subarray(1));
  return `0x${Buffer.from(hash.buffer, hash.byteOffset + 12, 20).toString('hex')}`;
}

/**
 * The lower-case address that signed `digest` with `signatureHex`, or undefined when the
 * signature is malformed, not canonical, or recovers nothing.
 */
export function recoverAddress(digest: Uint8Array, signatureHex: string): string | undefined {
  if (!SIGNATURE.test(signatureHex)) return undefined;
  const bytes = Buffer.from(signatureHex.slice(2), 'hex');
  const v = bytes[64]!;
  const recoveryId = v >= 27 ? v - 27 : v;
  if (recoveryId !== 0 && recoveryId !== 1) return undefined;
  const rs = bytes.subarray(0, 64);
  if (bigintOf(rs.subarray(32)) > HALF_ORDER) return undefined;
  try {
    return addressOfPublicKey(native.ecdsaRecover(rs, recoveryId, digest, false));
  } catch {
    return undefined;
  }
}

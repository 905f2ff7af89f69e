// Keccak-256 for the hot path (order digests, L1 digests, addresses): the native `keccak`
// package, about three times faster here than @noble/hashes, which stays the cross-check in
// tests. The package quietly falls back to JavaScript when its addon does not load, so the addon
// entry point is loaded directly and a missing binary fails at startup.
import { createRequire } from 'node:module';

interface NativeHash {
  update(data: Buffer): NativeHash;
  digest(): Buffer;
}

const require = createRequire(import.meta.url);
const createHash = require('keccak/bindings') as (algorithm: 'keccak256') => NativeHash;

export function keccak256(data: Uint8Array): Uint8Array {
  return createHash('keccak256').update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest();
}

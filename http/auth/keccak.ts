// Keccak-256 for the hot path (order digests, L1 digests, addresses): the native addon of the
// `keccak` package, about seven times faster here than @noble/hashes, which stays the
// cross-check in tests. The package's own entry points wrap every hash in a readable-stream
// Transform, which costs more than the hashing (3.9 µs against 1.9 µs for an order's 384 bytes),
// and quietly fall back to JavaScript when the addon does not load; so the addon's keccak state is
// loaded directly, the way the package itself finds it, and a missing binary fails at startup.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

interface KeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  /** Pads (Keccak's 0x01 suffix) on the first call, then returns `length` bytes. */
  squeeze(length: number): Buffer;
}

const require = createRequire(import.meta.url);
const bindings = require.resolve('keccak/bindings');
const loadAddon = createRequire(bindings)('node-gyp-build') as (directory: string) => new () => KeccakState;
const KeccakStateClass = loadAddon(dirname(bindings));

/** Keccak-256: rate 1088 bits, capacity 512. */
const RATE_BITS = 1088;
const CAPACITY_BITS = 512;
const DIGEST_BYTES = 32;

/**
 * One state, reset for every hash: hashing is synchronous, so no two hashes ever share it. Made
 * at the first hash, not when the module loads: a pool thread that is terminated while it loads
 * (a server stopped as it starts) must not be inside the addon then; a native object made during
 * that teardown aborted the whole process ("terminate called after throwing Napi::Error").
 */
let state: KeccakState | undefined;

export function keccak256(data: Uint8Array): Uint8Array {
  state ??= new KeccakStateClass();
  state.initialize(RATE_BITS, CAPACITY_BITS);
  state.absorb(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  return state.squeeze(DIGEST_BYTES);
}

// EIP-712 digests and native signature recovery, checked against viem's EIP-712 hashing and
// @noble/curves signing and recovering the same digests: every field of an order is bound by its
// digest, malformed and non-canonical (high-s) signatures recover nothing, and v may be 27/28 or
// 0/1.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { keccak256 } from '../../../http/auth/keccak.js';
import { hashTypedData } from 'viem';
import { clobAuthDigest, EncodingError, orderDigest, toHex, type OrderStruct } from '../../../http/auth/eip712.js';
import { addressOfPublicKey, recoverAddress } from '../../../http/auth/recover.js';

const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function wallet(seed: number): { secret: Uint8Array; address: string } {
  const secret = new Uint8Array(32);
  secret[31] = seed;
  secret[0] = 0x11;
  return { secret, address: addressOfPublicKey(secp256k1.getPublicKey(secret, false)) };
}

/** Ethereum r ‖ s ‖ v hex of a signature made with @noble/curves. */
function sign(digest: Uint8Array, secret: Uint8Array, vBase = 27): string {
  const recovered = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
  return `0x${Buffer.from(recovered.subarray(1)).toString('hex')}${(vBase + recovered[0]!).toString(16).padStart(2, '0')}`;
}

const domain = { name: 'Polymarket CTF Exchange', chainId: 137, verifyingContract: '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E' };

function order(maker: string): OrderStruct {
  return {
    salt: '123456789', maker, signer: maker, tokenId: '71321045679252212594626385532706912750332728571942532289631379312455583992563',
    makerAmount: '5000000', takerAmount: '10000000', side: 0, signatureType: 0, timestamp: '1700000000',
    metadata: `0x${'00'.repeat(32)}`, builder: `0x${'00'.repeat(32)}`,
  };
}

test('the native binding recovers the address @noble/curves signed with, for v = 27/28 and 0/1', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const { secret, address } = wallet(seed);
    const digest = clobAuthDigest(137, address, String(1_700_000_000 + seed), BigInt(seed));
    assert.equal(recoverAddress(digest, sign(digest, secret)), address);
    assert.equal(recoverAddress(digest, sign(digest, secret, 0)), address);
    const recovered = secp256k1.Signature.fromBytes(secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' }), 'recovered');
    assert.equal(addressOfPublicKey(recovered.recoverPublicKey(digest).toBytes(false)), address, 'noble agrees');
  }
});

test('every order field is bound by the digest', () => {
  const { address } = wallet(7);
  const base = order(address);
  const baseHex = toHex(orderDigest(domain, base));
  assert.match(baseHex, /^0x[0-9a-f]{64}$/);
  const other = wallet(8).address;
  const changes: Partial<OrderStruct>[] = [
    { salt: '123456780' }, { maker: other }, { signer: other }, { tokenId: '1' }, { makerAmount: '5000001' },
    { takerAmount: '9999999' }, { side: 1 }, { signatureType: 1 }, { timestamp: '1700000001' },
    { metadata: `0x${'00'.repeat(31)}01` }, { builder: `0x01${'00'.repeat(31)}` },
  ];
  const seen = new Set([baseHex]);
  for (const change of changes) {
    const hex = toHex(orderDigest(domain, { ...base, ...change }));
    assert.ok(!seen.has(hex), `changing ${Object.keys(change)[0]} changes the digest`);
    seen.add(hex);
  }
  for (const changed of [{ ...domain, chainId: 80002 }, { ...domain, name: 'Other' }, { ...domain, verifyingContract: other }]) {
    assert.notEqual(toHex(orderDigest(changed, base)), baseHex);
  }
});

test('malformed values are refused before hashing', () => {
  const base = order(wallet(3).address);
  for (const bad of [
    { salt: '-1' }, { salt: '01' }, { salt: '1.5' }, { tokenId: (1n << 256n).toString() }, { maker: '0x1234' },
    { metadata: '0x00' }, { side: 256 }, { signatureType: -1 },
  ] as Partial<OrderStruct>[]) {
    assert.throws(() => orderDigest(domain, { ...base, ...bad }), EncodingError, JSON.stringify(bad));
  }
  assert.throws(() => clobAuthDigest(137, 'not-an-address', '1', 0n), EncodingError);
});

test('malformed, wrong-length and high-s signatures recover nothing', () => {
  const { secret, address } = wallet(9);
  const digest = clobAuthDigest(137, address, '1700000000', 0n);
  const good = sign(digest, secret);
  assert.equal(recoverAddress(digest, good.slice(0, -2)), undefined);
  assert.equal(recoverAddress(digest, `${good}00`), undefined);
  assert.equal(recoverAddress(digest, `${good.slice(0, -2)}1d`), undefined, 'v = 29');
  assert.equal(recoverAddress(digest, `0x${'zz'.repeat(65)}`), undefined);
  assert.equal(recoverAddress(digest, `0x${'00'.repeat(65)}`), undefined);
  // The same signature with s replaced by n − s is valid for the curve but not canonical.
  const s = BigInt(`0x${good.slice(66, 130)}`);
  const v = Number.parseInt(good.slice(130), 16);
  const highS = `${good.slice(0, 66)}${(CURVE_ORDER - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
  assert.equal(recoverAddress(digest, highS), undefined);
  const otherDigest = clobAuthDigest(137, address, '1700000001', 0n);
  assert.notEqual(recoverAddress(otherDigest, good), address, 'a signature over another digest recovers another key');
});

test('the native keccak-256 agrees with @noble/hashes on every length around the block size', () => {
  for (let length = 0; length <= 300; length++) {
    const data = randomBytes(length);
    assert.deepEqual(Buffer.from(keccak256(data)), Buffer.from(keccak_256(data)), `length ${length}`);
  }
});

test('digests equal viem\'s hashTypedData for ClobAuth and Order (an independent EIP-712 implementation), small and huge integers alike', () => {
  const { address } = wallet(11);
  const clobAuth = hashTypedData({
    domain: { name: 'ClobAuthDomain', version: '1', chainId: 137 },
    types: { ClobAuth: [{ name: 'address', type: 'address' }, { name: 'timestamp', type: 'string' }, { name: 'nonce', type: 'uint256' }, { name: 'message', type: 'string' }] },
    primaryType: 'ClobAuth',
    message: { address: address as `0x${string}`, timestamp: '1700000000', nonce: 3n, message: 'This message attests that I control the given wallet' },
  });
  assert.equal(toHex(clobAuthDigest(137, address, '1700000000', 3n)), clobAuth);
  // Integers take two encodings (numbers below 2^53, bigints above), so values on both sides of
  // that edge, and the smallest and largest uint256, are compared too.
  const variants: Partial<OrderStruct>[] = [
    {}, { salt: '0', timestamp: '0' }, { salt: '999999999999999' }, { salt: '1000000000000000' },
    { salt: String(Number.MAX_SAFE_INTEGER) }, { salt: '9007199254740993' }, { makerAmount: '4294967296', takerAmount: '4294967295' },
    { tokenId: ((1n << 256n) - 1n).toString(), side: 1, signatureType: 255 }, { tokenId: '1', salt: ((1n << 255n) + 7n).toString() },
  ];
  for (const variant of variants) {
    const struct = { ...order(address), ...variant };
    assert.equal(toHex(orderDigest(domain, struct)), viemOrderDigest(struct), JSON.stringify(variant));
  }
});

function viemOrderDigest(struct: OrderStruct): string {
  return hashTypedData({
    domain: { name: domain.name, version: '2', chainId: domain.chainId, verifyingContract: domain.verifyingContract as `0x${string}` },
    types: {
      Order: [
        { name: 'salt', type: 'uint256' }, { name: 'maker', type: 'address' }, { name: 'signer', type: 'address' },
        { name: 'tokenId', type: 'uint256' }, { name: 'makerAmount', type: 'uint256' }, { name: 'takerAmount', type: 'uint256' },
        { name: 'side', type: 'uint8' }, { name: 'signatureType', type: 'uint8' }, { name: 'timestamp', type: 'uint256' },
        { name: 'metadata', type: 'bytes32' }, { name: 'builder', type: 'bytes32' },
      ],
    },
    primaryType: 'Order',
    message: {
      salt: BigInt(struct.salt), maker: struct.maker as `0x${string}`, signer: struct.signer as `0x${string}`, tokenId: BigInt(struct.tokenId),
      makerAmount: BigInt(struct.makerAmount), takerAmount: BigInt(struct.takerAmount), side: struct.side, signatureType: struct.signatureType,
      timestamp: BigInt(struct.timestamp), metadata: struct.metadata as `0x${string}`, builder: struct.builder as `0x${string}`,
    },
  });
}

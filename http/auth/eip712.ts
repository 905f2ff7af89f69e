// EIP-712 digests for the two typed messages clobd checks (contract §3 and §4): ClobAuth (L1
// credentials) and Order (every placed order; its digest is also the order id). Values arrive
// as strings from JSON and headers; each is validated here and encoded as Solidity's abi.encode
// would (32-byte words), so a malformed value never reaches the hash.
import { keccak256 } from './keccak.js';

const encoder = new TextEncoder();
const UINT256_MAX = (1n << 256n) - 1n;

export const CLOB_AUTH_MESSAGE = 'This message attests that I control the given wallet';

function keccakText(text: string): Uint8Array {
  return keccak256(encoder.encode(text));
}

const EIP712_DOMAIN_TYPEHASH = keccakText('EIP712Domain(string name,string version,uint256 chainId)');
const EIP712_DOMAIN_CONTRACT_TYPEHASH = keccakText('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)');
const CLOB_AUTH_TYPEHASH = keccakText('ClobAuth(address address,string timestamp,uint256 nonce,string message)');
const ORDER_TYPEHASH = keccakText(
  'Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,' +
  'uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)',
);
const CLOB_AUTH_MESSAGE_HASH = keccakText(CLOB_AUTH_MESSAGE);

/** A value that cannot be encoded; the caller turns it into its 400 or 401. */
export class EncodingError extends Error {}

export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
/** The zero bytes32: what an order's metadata and builder are when it leaves them out. */
export const ZERO_BYTES32 = `0x${'0'.repeat(64)}`;
/** A uint256 in decimal: no sign, no leading zeros, at most 78 digits. */
export const DECIMAL = /^(0|[1-9][0-9]{0,77})$/;

export function isAddress(value: string): boolean {
  return ADDRESS.test(value);
}

/** A uint256 from a decimal string (no sign, no leading zeros, at most 2^256 − 1). */
export function parseUint256(value: string, name: string): bigint {
  if (!DECIMAL.test(value)) throw new EncodingError(`${name} must be a decimal integer string`);
  const parsed = BigInt(value);
  if (parsed > UINT256_MAX) throw new EncodingError(`${name} is larger than uint256`);
  return parsed;
}

/**
 * A uint256 from a decimal string for a word of a digest: a number when it is safe (amounts,
 * timestamps, most salts), a bigint only when it is not (token ids, large salts).
 */
function parseWord(value: string, name: string): number | bigint {
  if (value.length <= SAFE_DIGITS_MAX && DECIMAL.test(value)) return Number(value);
  return parseUint256(value, name);
}

/** Decimal strings this long or shorter are below 2^53, so Number() reads them exactly. */
const SAFE_DIGITS_MAX = 15;
const WORD_BYTES = 32;
/** The longest struct hashed here: Order's typehash and 11 fields. */
const WORDS_MAX = 12;
const TWO_POW_32 = 2 ** 32;

/**
 * Where the words are encoded before hashing, reused: hashing is synchronous, so the bytes of
 * one hash are never overwritten before it is done, and a fresh Buffer.alloc cost more (~0.9 µs)
 * than encoding all the words.
 */
const wordScratch = Buffer.alloc(WORD_BYTES * WORDS_MAX);

type Word = Uint8Array | bigint | number | string;

/**
 * keccak256(abi.encode(words)) with 32-byte words: integers big-endian (a number is a safe
 * non-negative integer), addresses and bytes32 as right-aligned hex, byte arrays as they are.
 */
function hashWords(words: readonly Word[]): Uint8Array {
  const length = WORD_BYTES * words.length;
  if (words.length > WORDS_MAX) throw new Error(`hashWords takes at most ${WORDS_MAX} words`);
  const out = wordScratch;
  out.fill(0, 0, length);
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const at = WORD_BYTES * index;
    if (typeof word === 'number') {
      out.writeUInt32BE(Math.floor(word / TWO_POW_32), at + WORD_BYTES - 8);
      out.writeUInt32BE(word % TWO_POW_32, at + WORD_BYTES - 4);
    } else if (typeof word === 'bigint') {
      out.write(word.toString(16).padStart(2 * WORD_BYTES, '0'), at, 'hex');
    } else if (typeof word === 'string') {
      out.write(word.slice(2), at + WORD_BYTES - (word.length - 2) / 2, 'hex');
    } else {
      out.set(word, at);
    }
  }
  return keccak256(out.subarray(0, length));
}

/** The 0x1901 prefix, the domain separator and the struct hash: what a typed digest hashes. */
const typedScratch = new Uint8Array(2 + 2 * WORD_BYTES);
typedScratch[0] = 0x19;
typedScratch[1] = 0x01;

function typedDigest(domainSeparator: Uint8Array, structHash: Uint8Array): Uint8Array {
  typedScratch.set(domainSeparator, 2);
  typedScratch.set(structHash, 2 + WORD_BYTES);
  return keccak256(typedScratch);
}

const domains = new Map<string, Uint8Array>();

/** The domain separator, cached: a handful of domains exist per process. */
function domainSeparator(name: string, version: string, chainId: number, verifyingContract?: string): Uint8Array {
  const cacheKey = `${name}\n${version}\n${chainId}\n${verifyingContract ?? ''}`;
  let separator = domains.get(cacheKey);
  if (separator === undefined) {
    const words: Word[] = [
      verifyingContract === undefined ? EIP712_DOMAIN_TYPEHASH : EIP712_DOMAIN_CONTRACT_TYPEHASH,
      keccakText(name), keccakText(version), BigInt(chainId),
    ];
    if (verifyingContract !== undefined) words.push(verifyingContract);
    separator = hashWords(words);
    domains.set(cacheKey, separator);
  }
  return separator;
}

function checkAddress(value: string, name: string): void {
  if (!isAddress(value)) throw new EncodingError(`${name} must be 0x and 40 hex digits`);
}

function checkBytes32(value: string, name: string): void {
  if (!BYTES32.test(value)) throw new EncodingError(`${name} must be 0x and 64 hex digits`);
}

function checkUint8(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 0 || value > 255) throw new EncodingError(`${name} must be a uint8`);
}

/** The digest an L1 header signature signs (domain ClobAuthDomain, version 1). */
export function clobAuthDigest(chainId: number, address: string, timestamp: string, nonce: bigint): Uint8Array {
  checkAddress(address, 'address');
  const structHash = hashWords([CLOB_AUTH_TYPEHASH, address, keccakText(timestamp), nonce, CLOB_AUTH_MESSAGE_HASH]);
  return typedDigest(domainSeparator('ClobAuthDomain', '1', chainId), structHash);
}

/** The signed order as contract §4 defines its struct (strings as they arrive in JSON). */
export interface OrderStruct {
  readonly salt: string;
  readonly maker: string;
  readonly signer: string;
  readonly tokenId: string;
  readonly makerAmount: string;
  readonly takerAmount: string;
  /** 0 = BUY, 1 = SELL. */
  readonly side: number;
  readonly signatureType: number;
  readonly timestamp: string;
  readonly metadata: string;
  readonly builder: string;
}

export interface OrderDomain {
  readonly name: string;
  readonly chainId: number;
  readonly verifyingContract: string;
}

/** The order's EIP-712 digest (domain version 2): what its signature signs, and its id. */
export function orderDigest(domain: OrderDomain, order: OrderStruct): Uint8Array {
  checkAddress(order.maker, 'maker');
  checkAddress(order.signer, 'signer');
  checkBytes32(order.metadata, 'metadata');
  checkBytes32(order.builder, 'builder');
  checkUint8(order.side, 'side');
  checkUint8(order.signatureType, 'signatureType');
  const structHash = hashWords([
    ORDER_TYPEHASH, parseWord(order.salt, 'salt'), order.maker, order.signer, parseWord(order.tokenId, 'tokenId'),
    parseWord(order.makerAmount, 'makerAmount'), parseWord(order.takerAmount, 'takerAmount'), order.side,
    order.signatureType, parseWord(order.timestamp, 'timestamp'), order.metadata, order.builder,
  ]);
  return typedDigest(domainSeparator(domain.name, '2', domain.chainId, domain.verifyingContract), structHash);
}

export function toHex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

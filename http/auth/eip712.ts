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

/** abi.encode of 32-byte words: uint256 as big-endian, addresses and bytes32 right-aligned hex. */
function encodeWords(words: (Uint8Array | bigint | string)[]): Uint8Array {
  const out = Buffer.alloc(32 * words.length);
  words.forEach((word, index) => {
    const at = 32 * index;
    if (typeof word === 'bigint') out.write(word.toString(16).padStart(64, '0'), at, 'hex');
    else if (typeof word === 'string') out.write(word.slice(2), at + 32 - (word.length - 2) / 2, 'hex');
    else out.set(word, at);
  });
  return out;
}

function typedDigest(domainSeparator: Uint8Array, structHash: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(66);
  bytes[0] = 0x19;
  bytes[1] = 0x01;
  bytes.set(domainSeparator, 2);
  bytes.set(structHash, 34);
  return keccak256(bytes);
}

const domains = new Map<string, Uint8Array>();

/** The domain separator, cached: a handful of domains exist per process. */
function domainSeparator(name: string, version: string, chainId: number, verifyingContract?: string): Uint8Array {
  const cacheKey = `${name}\n${version}\n${chainId}\n${verifyingContract ?? ''}`;
  let separator = domains.get(cacheKey);
  if (separator === undefined) {
    const words: (Uint8Array | bigint | string)[] = [
      verifyingContract === undefined ? EIP712_DOMAIN_TYPEHASH : EIP712_DOMAIN_CONTRACT_TYPEHASH,
      keccakText(name), keccakText(version), BigInt(chainId),
    ];
    if (verifyingContract !== undefined) words.push(verifyingContract);
    separator = keccak256(encodeWords(words));
    domains.set(cacheKey, separator);
  }
  return separator;
}

/** The digest an L1 header signature signs (domain ClobAuthDomain, version 1). */
export function clobAuthDigest(chainId: number, address: string, timestamp: string, nonce: bigint): Uint8Array {
  if (!isAddress(address)) throw new EncodingError('address must be 0x and 40 hex digits');
  const structHash = keccak256(encodeWords([CLOB_AUTH_TYPEHASH, address, keccakText(timestamp), nonce, CLOB_AUTH_MESSAGE_HASH]));
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
  for (const [name, value] of [['maker', order.maker], ['signer', order.signer]] as const) {
    if (!isAddress(value)) throw new EncodingError(`${name} must be 0x and 40 hex digits`);
  }
  for (const [name, value] of [['metadata', order.metadata], ['builder', order.builder]] as const) {
    if (!BYTES32.test(value)) throw new EncodingError(`${name} must be 0x and 64 hex digits`);
  }
  for (const [name, value] of [['side', order.side], ['signatureType', order.signatureType]] as const) {
    if (!Number.isInteger(value) || value < 0 || value > 255) throw new EncodingError(`${name} must be a uint8`);
  }
  const structHash = keccak256(encodeWords([
    ORDER_TYPEHASH, parseUint256(order.salt, 'salt'), order.maker, order.signer, parseUint256(order.tokenId, 'tokenId'),
    parseUint256(order.makerAmount, 'makerAmount'), parseUint256(order.takerAmount, 'takerAmount'), BigInt(order.side),
    BigInt(order.signatureType), parseUint256(order.timestamp, 'timestamp'), order.metadata, order.builder,
  ]));
  return typedDigest(domainSeparator(domain.name, '2', domain.chainId, domain.verifyingContract), structHash);
}

export function toHex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

// Identifiers the catalog assigns: slugs, question ids, condition ids and outcome token ids.
// Condition and token ids are derived the way the Conditional Tokens contract derives them
// (keccak over packed fields), so they have the familiar shapes (0x + 64 hex; decimal uint256)
// and are a pure function of the market, which keeps the demo catalog deterministic.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/** What the routes accept as a token id: Polymarket's are decimal uint256 (up to 78 digits); this allows some room. */
export const TOKEN_ID_PATTERN = /^[0-9A-Za-z_-]{1,100}$/;

const oracleAddress = new Uint8Array(20);
const collateralAddress = new Uint8Array(20);

function uint256(value: bigint): Uint8Array {
  return hexToBytes(value.toString(16).padStart(64, '0'));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** A question id unique to the market id within this deployment. */
export function questionIdOf(marketId: number): string {
  return '0x' + bytesToHex(keccak_256(utf8ToBytes(`clobd:question:${marketId}`)));
}

/** keccak256(oracle ‖ questionId ‖ outcomeSlotCount), as the CTF computes a condition id. */
export function conditionIdOf(questionId: string): string {
  return '0x' + bytesToHex(keccak_256(concat(oracleAddress, hexToBytes(questionId.slice(2)), uint256(2n))));
}

/** The two outcome position ids (index sets 1 and 2) as decimal uint256 strings. */
export function tokenIdsOf(conditionId: string): [string, string] {
  const position = (indexSet: bigint): string => {
    const collection = keccak_256(concat(hexToBytes(conditionId.slice(2)), uint256(indexSet)));
    return BigInt('0x' + bytesToHex(keccak_256(concat(collateralAddress, collection)))).toString(10);
  };
  return [position(1n), position(2n)];
}

/** Lower-case words joined by dashes, at most 120 characters; empty when nothing is left. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120)
    .replace(/-+$/, '');
}

// The demo's own record, DATA_DIR/demo.json (file mode 0600): the private keys of its accounts,
// made at random when the demo is seeded, so nothing outside the data directory can derive them;
// the day the demo is dated from; the markets it made (the only ones its flow trades); and how
// many starts it has seen (each start's flow draws from a sequence of its own). Written
// atomically: a temporary file (0600), synced, renamed over the old one, the directory synced.
//
// Versions before this one used a public key for the demo market maker (keccak-256 of the phrase
// in LEGACY_DEMO_MAKER_PHRASE): a data directory they seeded has no demo.json, and demo.ts rotates
// it on its first start here.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { writeFileDurably } from '../data_dir/durable_file.js';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { addressOfPublicKey } from '../auth/recover.js';
import { DataDirDamaged, messageOf, problem } from '../data_dir/damage.js';
import type { Logger } from '../log.js';

export const DEMO_FILE = 'demo.json';
const DEMO_FORMAT = 1;
const FILE_MODE = 0o600;
const SECRET_PATTERN = /^0x[0-9a-f]{64}$/;
const CONDITION_PATTERN = /^0x[0-9a-f]{64}$/;
/** Accounts of the demo flow besides the market maker. */
export const DEMO_TRADERS = 4;

/** The phrase whose keccak-256 was the demo market maker's key before keys were made at random. */
export const LEGACY_DEMO_MAKER_PHRASE = 'clobd demo market maker';

/** One of the demo's wallets: its private key and its address. */
export interface DemoAccount {
  readonly secret: Uint8Array;
  readonly address: string;
}

export interface DemoState {
  /** UTC midnight of the first start's day, the demo catalog's dates are counted from; undefined for a legacy catalog (fixed dates). */
  readonly anchorMs: number | undefined;
  /** Starts of the server that read this state, this one included. */
  readonly starts: number;
  readonly maker: DemoAccount;
  readonly traders: readonly DemoAccount[];
  /** Condition ids of the demo's markets: the only ones the demo flow trades. */
  readonly markets: readonly string[];
}

export function accountOf(secret: Uint8Array): DemoAccount {
  return { secret, address: addressOfPublicKey(secp256k1.getPublicKey(secret, false)) };
}

/** A new wallet from the system's random source (a valid secp256k1 key). */
export function randomAccount(): DemoAccount {
  for (;;) {
    const secret = new Uint8Array(randomBytes(32));
    if (secp256k1.utils.isValidSecretKey(secret)) return accountOf(secret);
  }
}

/** The public, derivable demo market maker of versions before keys were random: never used again. */
export function legacyDemoMaker(): DemoAccount {
  return accountOf(keccak_256(new TextEncoder().encode(LEGACY_DEMO_MAKER_PHRASE)));
}

export function newDemoState(anchorMs: number | undefined, markets: readonly string[]): DemoState {
  return { anchorMs, starts: 0, maker: randomAccount(), traders: Array.from({ length: DEMO_TRADERS }, randomAccount), markets: [...markets] };
}

const hex = (bytes: Uint8Array): string => `0x${Buffer.from(bytes).toString('hex')}`;

function secretOf(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string' || !SECRET_PATTERN.test(value)) throw new Error(`${what} is not a 0x-prefixed 32-byte hex key`);
  const secret = new Uint8Array(Buffer.from(value.slice(2), 'hex'));
  if (!secp256k1.utils.isValidSecretKey(secret)) throw new Error(`${what} is not a valid secp256k1 key`);
  return secret;
}

function parse(text: string): DemoState {
  const value = JSON.parse(text) as Record<string, unknown>;
  if (typeof value !== 'object' || value === null) throw new Error('is not a JSON object');
  if (value['format'] !== DEMO_FORMAT) throw new Error(`has format ${String(value['format'])}; this version reads ${DEMO_FORMAT}`);
  const anchor = value['anchor'];
  if (anchor !== null && (typeof anchor !== 'string' || Number.isNaN(Date.parse(anchor)))) throw new Error('anchor is neither null nor a date');
  const starts = value['starts'];
  if (typeof starts !== 'number' || !Number.isSafeInteger(starts) || starts < 0) throw new Error('starts is not a count');
  const traders = value['traders'];
  if (!Array.isArray(traders) || traders.length === 0) throw new Error('traders is not a list of keys');
  const markets = value['markets'];
  if (!Array.isArray(markets) || !markets.every((market) => typeof market === 'string' && CONDITION_PATTERN.test(market))) throw new Error('markets is not a list of condition ids');
  return {
    anchorMs: anchor === null ? undefined : Date.parse(anchor),
    starts,
    maker: accountOf(secretOf(value['maker'], 'maker')),
    traders: traders.map((trader, index) => accountOf(secretOf(trader, `traders[${index}]`))),
    markets: markets as string[],
  };
}

/**
 * The demo's state, or undefined when the directory has none (no demo, or one a version before
 * this seeded). A file that does not read is damage. One readable by others than its owner is
 * made private again, with a warning.
 */
export function readDemoState(dataDir: string, log?: Logger): DemoState | undefined {
  const file = join(dataDir, DEMO_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const mode = statSync(file).mode & 0o777;
    if (mode !== FILE_MODE) {
      chmodSync(file, FILE_MODE);
      log?.warn('demo_file_mode_fixed', { file, mode: mode.toString(8), detail: `${DEMO_FILE} holds the demo accounts' private keys: it is made readable by its owner only (0600) again` });
    }
    return parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new DataDirDamaged(dataDir, [problem(DEMO_FILE, `does not read: ${messageOf(error)}`)]);
  }
}

/** Writes the state atomically, readable and writable by the owner only. */
export function writeDemoState(dataDir: string, state: DemoState): void {
  const body = {
    format: DEMO_FORMAT,
    about: 'The clobd demo: private keys of its accounts (keep this file secret), the day its catalog is dated from, the markets its flow trades.',
    anchor: state.anchorMs === undefined ? null : new Date(state.anchorMs).toISOString(),
    starts: state.starts,
    maker: hex(state.maker.secret),
    traders: state.traders.map((trader) => hex(trader.secret)),
    markets: state.markets,
  };
  writeFileDurably(join(dataDir, DEMO_FILE), `${JSON.stringify(body, null, 2)}\n`, FILE_MODE);
}

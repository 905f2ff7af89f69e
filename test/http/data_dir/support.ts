// A data directory with something in every store, made by the real server: two shards, two
// traders with API keys and deposits, on each of four markets a resting bid and a fill (a MINT
// that leaves part of the bid resting), on the first market RESTING_BIDS more bids (so that its
// shard's snapshot spans pages), then a clean stop. The tests copy it and damage the copy.
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { runMain, temporaryDataDir, type Finished } from '../../support/server.js';
import { mintAgainstBids, restMany, startTrading, type Trader } from '../orders/trader.js';

export const SHARDS = '2';
const RESTING_BIDS = 120;
/** A failing start or a verify on these small directories takes a second or two; a start that hangs is a failure. */
const RUN_TIMEOUT_MS = 60_000;

export interface TradedDir {
  readonly dataDir: string;
  readonly traders: readonly Trader[];
  /** The collateral balance each trader's GET /balance-allowance answered before the stop. */
  readonly balances: readonly unknown[];
}

export async function makeTradedDir(seeds: readonly [number, number]): Promise<TradedDir> {
  const { server, markets, traders } = await startTrading(seeds, { SEED_DEMO: '0', SHARDS });
  const [maker, taker] = traders as [Trader, Trader];
  await mintAgainstBids(maker, taker, markets);
  await restMany(maker, markets[0]!, RESTING_BIDS, 1);
  const balances = await Promise.all(traders.map(async (trader) => (await trader.send('GET', '/balance-allowance?asset_type=COLLATERAL')).body));
  assert.equal(await server.stop(), 0, 'a clean stop');
  return { dataDir: server.dataDir, traders, balances };
}

/** A copy of `dataDir` in a new temporary directory. */
export function copyOf(dataDir: string): string {
  const copy = temporaryDataDir();
  cpSync(dataDir, copy, { recursive: true });
  return copy;
}

export function dataFile(dataDir: string, store: string): string {
  return join(dataDir, store, 'data.mdb');
}

/** Runs the server (`serve`) or another command on `dataDir` until it exits by itself. */
export function run(dataDir: string, args: readonly string[] = []): Promise<Finished> {
  return runMain({ dataDir, args, env: { SHARDS }, timeoutMs: RUN_TIMEOUT_MS });
}

/**
 * The run exited with code 2, not by a signal, its last line saying the directory is damaged and
 * naming `store`; returns that line.
 */
export function assertRefused(finished: Finished, store: string, detail?: RegExp): string {
  const line = finished.stderr.trim().split('\n').at(-1) ?? '';
  assert.equal(finished.signal, null, `ended by ${finished.signal}: ${finished.stderr}`);
  assert.equal(finished.code, 2, `exit code ${finished.code}: ${finished.stderr}`);
  assert.match(line, /^clobd: data directory \S+ is damaged: /, finished.stderr);
  assert.ok(line.includes(`: ${store} `) || line.includes(`; ${store} `), `names ${store}: ${line}`);
  if (detail !== undefined) assert.match(line, detail);
  return line;
}

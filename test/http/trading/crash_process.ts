// The two processes of the crash test, run with `node crash_process.js drive|check` and
// DATA_DIR, SHARDS and SEED in the environment. Each writes JSON lines to stdout, each with one
// blocking write to the descriptor before it goes on, so a line is in the pipe before anything
// it reports happens. (process.stdout is not that: once the pipe is full, as when the test is
// slow to read, its writes queue in memory and return, and a SIGKILL then loses lines whose
// work went ahead: "stored order ... was never sent", 1 moment in ~100 under load.)
//
// drive: starts the server, deposits for every account, then floods the seeded flow for ever
//   (PROFILE: the flow's profile, mixed or deep; deep sends from more lanes at once, and funds
//   each account for sweeps of thousands of orders).
//   Before each command it prints {k:'sent'}; after the command's promise resolved (the durable
//   acknowledgement) it prints the Ack. With PRESTOP=n it first runs n commands, stops the
//   server cleanly (a snapshot), and starts it again in the same process, so the crash lands on
//   a snapshot plus a journal tail. The test kills it with SIGKILL at a moment of its choosing.
// check: starts the server on the same DATA_DIR (recovery), prints one RuntimeState line plus
//   the recovery figures, and stops cleanly.
import { writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Prng } from '../../engine/prng.js';
import type { Server } from '../../../http/server.js';
import {
  accountAddress, marketsOnEveryShard, OrderFlow, ONE_MICROS, readRuntimeState, runFlow, startInProcess, type Ack, type FlowProfile, type Operation,
  type RuntimeState,
} from './support.js';
import type { RecoveryFigures } from '../../../engine/shard/protocol.js';

export const CRASH_ACCOUNTS = 40;
const DEPOSIT_MICROS: Record<FlowProfile, number> = { mixed: 10_000 * ONE_MICROS, deep: 100_000 * ONE_MICROS };
/** Commands in flight at once, by profile: enough that batches carry many frames. */
const LANES: Record<FlowProfile, number> = { mixed: 48, deep: 256 };
/** Markets per shard the flow trades in, by profile (the deep flow's books grow deepest in one). */
const MARKETS_PER_SHARD: Record<FlowProfile, number> = { mixed: 3, deep: 1 };
/** The flood stops here if no one killed the process (the test always does long before). */
const COMMANDS_MAX = 1_000_000;

export type CrashLine =
  | Ack
  | { readonly k: 'sent'; readonly operation: Operation }
  | { readonly k: 'deposit'; readonly account: string; readonly micros: number }
  | { readonly k: 'restarted' }
  | { readonly k: 'error'; readonly message: string }
  | { readonly k: 'state'; readonly state: RuntimeState; readonly recovery: (RecoveryFigures | undefined)[]; readonly startMs: number };

const STDOUT = 1;
const pause = new Int32Array(new SharedArrayBuffer(4));

function print(line: CrashLine): void {
  const bytes = Buffer.from(JSON.stringify(line) + '\n');
  for (let at = 0; at < bytes.length;) {
    try {
      at += writeSync(STDOUT, bytes, at);
    } catch (error) {
      // A non-blocking descriptor with a full pipe: wait for the reader, then write the rest.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

function environment(): { dataDir: string; shards: number; seed: number; prestop: number; profile: FlowProfile } {
  const dataDir = process.env['DATA_DIR'];
  if (dataDir === undefined || dataDir === '') throw new Error('DATA_DIR is required');
  const profile = process.env['PROFILE'] ?? 'mixed';
  if (profile !== 'mixed' && profile !== 'deep') throw new Error(`PROFILE must be mixed or deep, got ${profile}`);
  return {
    dataDir, shards: Number(process.env['SHARDS'] ?? '2'), seed: Number(process.env['SEED'] ?? '1'), prestop: Number(process.env['PRESTOP'] ?? '0'), profile,
  };
}

export function crashAccounts(): string[] {
  return Array.from({ length: CRASH_ACCOUNTS }, (_, index) => accountAddress(index));
}

async function drive(): Promise<void> {
  const { dataDir, shards, seed, prestop, profile } = environment();
  const prng = new Prng(seed);
  const accounts = crashAccounts();
  let server: Server = await startInProcess(dataDir, shards);
  for (const account of accounts) {
    if (!server.trading.client.deposit(account, DEPOSIT_MICROS[profile])) throw new Error('deposit refused');
    print({ k: 'deposit', account, micros: DEPOSIT_MICROS[profile] });
  }
  const flow = new OrderFlow(prng, accounts, marketsOnEveryShard(server.trading, MARKETS_PER_SHARD[profile]).flat(), `s${seed}-`, profile);
  const hooks = { onSend: (operation: Operation) => print({ k: 'sent', operation }), onAck: (ack: Ack) => print(ack) };
  if (prestop > 0) {
    await runFlow(server.trading.client, flow, prestop, LANES[profile], hooks);
    await server.stop();
    server = await startInProcess(dataDir, shards);
    print({ k: 'restarted' });
  }
  await runFlow(server.trading.client, flow, COMMANDS_MAX, LANES[profile], hooks);
}

async function check(): Promise<void> {
  const { dataDir, shards } = environment();
  const started = performance.now();
  const server = await startInProcess(dataDir, shards);
  const startMs = performance.now() - started;
  const state = await readRuntimeState(server.trading, crashAccounts());
  const recovery = Array.from({ length: shards }, (_, shard) => server.trading.pool.recovery(shard));
  print({ k: 'state', state, recovery, startMs });
  await server.stop();
}

const mode = process.argv[2];
try {
  if (mode === 'drive') await drive();
  else if (mode === 'check') await check();
  else throw new Error(`mode must be drive or check, got ${mode}`);
} catch (error) {
  print({ k: 'error', message: error instanceof Error ? error.stack ?? error.message : String(error) });
  process.exitCode = 1;
}

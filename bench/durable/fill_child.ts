// A child process for the restart benchmark: starts the runtime (SHARDS=1) on the DATA_DIR it
// is given, fills it with resting orders through the internal client, prints one JSON line
// (the shard's state hash and figures), then either stops cleanly (snapshot; `stop`) or waits
// to be killed with SIGKILL (`kill`).
//
//   node fill_child.js <dataDir> <orders> <accounts> <stop|kill>
import { performance } from 'node:perf_hooks';
import { makeAccounts } from '../engine/flows.js';
import { demoMarketSpecs, restingFlow } from './flow.js';
import { closedLoop, fundAccounts, startRuntime } from './runtime.js';

/** Requests in flight while filling: well inside the command ring's 8 192 frames. */
const IN_FLIGHT = 4000;

export interface FillReport {
  readonly stateHash: string;
  readonly ordersLive: number;
  readonly fillSeconds: number;
  readonly failures: number;
  readonly rejected: number;
  readonly stopSeconds: number;
}

const [dataDir, ordersText, accountsText, mode] = process.argv.slice(2);
if (dataDir === undefined || mode === undefined || !['stop', 'kill'].includes(mode)) throw new Error('usage: fill_child.js <dataDir> <orders> <accounts> <stop|kill>');
const flow = restingFlow(Number(ordersText), demoMarketSpecs(), makeAccounts(Number(accountsText)));
const runtime = await startRuntime(1, dataDir);
const client = runtime.server.trading.client;
fundAccounts(client, flow.accounts);
const load = await closedLoop(client, flow, 0, flow.length, IN_FLIGHT);
const [status] = await client.statuses();
let stopSeconds = 0;
if (mode === 'stop') {
  const stopStarted = performance.now();
  await runtime.server.stop();
  stopSeconds = (performance.now() - stopStarted) / 1000;
}
const report: FillReport = {
  stateHash: status!.stateHash, ordersLive: status!.stats['ordersLive'] ?? 0, fillSeconds: load.seconds, failures: load.failures,
  rejected: load.rejectionMismatches, stopSeconds,
};
console.log(JSON.stringify(report));
// Killed from outside in 'kill' mode; the expiry timer is unref'd, so keep the process alive.
if (mode === 'kill') setInterval(() => undefined, 60_000);

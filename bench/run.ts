// `npm run bench -- [suite ...] [--quick] [--json] [--option=value ...]`: runs the named benchmark
// suites (every one in `suites` but `ab` by default). --quick is the small run CI does so no
// benchmark rots. A suite that is a script of its own gets every option, e.g. `ab --ref=978801b`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from '../http/node_flags.js';
import { benchCatalog, printCatalog } from './catalog.js';
import { benchFrontEnds, printFrontEnds } from './front_ends.js';
import { benchHeaders, printHeaders } from './headers.js';
import { benchLimits, printSwitch } from './limits.js';
import { benchMetrics, printMetrics } from './metrics.js';
import { benchMarket, printMarket } from './market.js';
import { benchReplica, printReplica } from './replica.js';
import { benchReplication, printReplication } from './replication.js';
import { benchWs, printWs } from './ws.js';

/**
 * Runs a suite that is its own script in a child process, with this command's options: its JIT
 * and heap start clean. A suite that serves or matches in its own process (`nodeFlags`: the
 * server's) runs with the server's options. SIGINT and SIGTERM are passed on to it, so a script
 * that cleans up when interrupted (ab's worktree) does so however this command is stopped.
 */
async function runScript(relativePath: string, options: readonly string[], nodeFlags: readonly string[] = []): Promise<void> {
  const script = fileURLToPath(new URL(relativePath, import.meta.url));
  const child = spawn(process.execPath, [...nodeFlags, script, ...options], { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  try {
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    if (code !== 0) throw new Error(`${relativePath} exited with ${String(code ?? signal)}`);
  } finally {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
  }
}

type Suite = (quick: boolean, asJson: boolean, options: readonly string[]) => Promise<void>;

const suites: Record<string, Suite> = {
  catalog: async (quick, asJson) => {
    const rows = await benchCatalog(quick);
    if (asJson) console.log(JSON.stringify({ suite: 'catalog', rows }));
    else printCatalog(rows);
  },
  market: async (quick, asJson) => {
    const figures = await benchMarket(quick);
    if (asJson) console.log(JSON.stringify({ suite: 'market', ...figures }));
    else printMarket(figures);
  },
  limits: async (quick, asJson) => {
    const figures = await benchLimits(quick);
    if (asJson) console.log(JSON.stringify({ suite: 'limits', ...figures }));
    else printSwitch(figures);
  },
  metrics: async (quick, asJson) => {
    const figures = await benchMetrics(quick);
    if (asJson) console.log(JSON.stringify({ suite: 'metrics', ...figures }));
    else printMetrics(figures);
  },
  headers: async (quick, asJson) => {
    const figures = await benchHeaders(quick);
    if (asJson) console.log(JSON.stringify({ suite: 'headers', ...figures }));
    else printHeaders(figures);
  },
  'front-ends': async (quick, asJson, options) => {
    const figures = await benchFrontEnds(quick, options);
    if (asJson) console.log(JSON.stringify({ suite: 'front-ends', ...figures }));
    else printFrontEnds(figures);
  },
  ws: async (quick, asJson) => {
    const figures = await benchWs(quick);
    if (asJson) console.log(JSON.stringify({ suite: 'ws', ...figures }));
    else printWs(figures);
  },
  replication: async (quick, asJson) => {
    const figures = await benchReplication(quick);
    if (asJson) console.log(JSON.stringify({ suite: 'replication', ...figures }));
    else printReplication(figures);
  },
  replica: async (quick, asJson, options) => {
    const figures = await benchReplica(quick, options);
    if (asJson) console.log(JSON.stringify({ suite: 'replica', ...figures }));
    else printReplica(figures);
  },
  engine: async (_quick, _asJson, options) => {
    await runScript('./engine/run.js', options, SERVER_NODE_FLAGS);
  },
  durable: async (_quick, _asJson, options) => {
    await runScript('./durable.js', options, SERVER_NODE_FLAGS);
  },
  orders: async (_quick, _asJson, options) => {
    await runScript('./orders.js', options, SERVER_NODE_FLAGS);
  },
  bigfill: async (_quick, _asJson, options) => {
    await runScript('./bigfill.js', options);
  },
  isolation: async (_quick, _asJson, options) => {
    await runScript('./isolation.js', options);
  },
  // Starts its runs itself, each with its side's server options.
  ab: async (_quick, _asJson, options) => {
    await runScript('./ab.js', options);
  },
};

/**
 * Run by name only: it builds a second tree from the git history, which a CI checkout may not
 * hold, and its full run takes 45 minutes; what it runs, CI runs anyway (durable, engine), and its
 * own logic has tests (test/bench/ab_*.test.ts).
 */
const BY_NAME_ONLY = new Set(['ab']);

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const asJson = args.includes('--json');
const named = args.filter((arg) => !arg.startsWith('--'));
const options = args.filter((arg) => arg.startsWith('--'));
for (const name of named) if (suites[name] === undefined) throw new Error(`unknown suite ${name}; known: ${Object.keys(suites).join(', ')}`);
const chosen = named.length > 0 ? named : Object.keys(suites).filter((name) => !BY_NAME_ONLY.has(name));
for (const name of chosen) await suites[name]?.(quick, asJson, options);

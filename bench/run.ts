// `npm run bench -- [suite ...] [--quick] [--json]`: runs the named benchmark suites (all by
// default). --quick is the small run CI does so no benchmark rots.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from '../http/node_flags.js';
import { benchCatalog, printCatalog } from './catalog.js';
import { benchLimits, printSwitch } from './limits.js';
import { benchMetrics, printMetrics } from './metrics.js';
import { benchMarket, printMarket } from './market.js';
import { benchWs, printWs } from './ws.js';

/**
 * Runs a suite that is its own script in a child process: its JIT and heap start clean. A suite
 * that serves or matches in its own process (`nodeFlags`: the server's) runs with the server's
 * options.
 */
function runScript(relativePath: string, quick: boolean, nodeFlags: readonly string[] = []): void {
  const script = fileURLToPath(new URL(relativePath, import.meta.url));
  const result = spawnSync(process.execPath, [...nodeFlags, script, ...(quick ? ['--quick'] : [])], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${relativePath} exited with ${String(result.status ?? result.signal)}`);
}

const suites: Record<string, (quick: boolean, asJson: boolean) => Promise<void>> = {
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
  ws: async (quick, asJson) => {
    const figures = await benchWs(quick);
    if (asJson) console.log(JSON.stringify({ suite: 'ws', ...figures }));
    else printWs(figures);
  },
  engine: async (quick) => {
    runScript('./engine/run.js', quick, SERVER_NODE_FLAGS);
  },
  durable: async (quick) => {
    runScript('./durable.js', quick, SERVER_NODE_FLAGS);
  },
  orders: async (quick) => {
    runScript('./orders.js', quick, SERVER_NODE_FLAGS);
  },
};

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const asJson = args.includes('--json');
const named = args.filter((arg) => !arg.startsWith('--'));
for (const name of named) if (suites[name] === undefined) throw new Error(`unknown suite ${name}; known: ${Object.keys(suites).join(', ')}`);
for (const name of named.length > 0 ? named : Object.keys(suites)) await suites[name]?.(quick, asJson);

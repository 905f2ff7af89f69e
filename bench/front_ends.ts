// Front ends on every core (FRONT_ENDS, issue 42), each figure a ratio in the same run:
// - POST /order with FRONT_ENDS=1 against the code before front-end threads existed (a git
//   worktree of BASELINE_REF, built with this harness: bench/ab/baseline_tree.ts), alternating
//   round by round: FRONT_ENDS=1 must keep ≥ 0.95 of its orders/s and of its main thread's
//   orders per CPU-second. Full runs only (a build of the other tree takes a minute), and not
//   with --no-baseline.
// - POST /order and the reads a thread answers itself (GET /book, POST /books, GET /markets/{id},
//   GET /sampling-markets) with FRONT_ENDS=1 against FRONT_ENDS=N (--front-ends=N, 2 by
//   default), alternating: orders/s and requests/s, and the front-end threads' CPU per order or
//   request (the main thread's and the others', from the server's own per-thread metrics). On a
//   machine whose cores are all taken (the 2-core one) a second front end cannot add throughput,
//   and the figure there is what sharing costs: front-end CPU per order with N ≥ 0.9× of with 1
//   (an efficiency: CPU per order with 1 over CPU per order with N). On a many-core machine the
//   same run is the scaling figure (≥ 3× orders/s and ≥ 3.5× GET /book with 4).
//   Front-end threads also recover the signatures of the orders they take, work the main thread
//   hands to the signature pool: the sharing figure counts both (front ends + pool), as does the
//   front-end figure printed beside it without the pool.
// - --against=REF: this tree with FRONT_ENDS=N against REF's (a worktree, built) with the same
//   FRONT_ENDS=N, alternating: each step that moves work off the main thread shows as its main
//   thread's orders per CPU-second, and what it costs as the server's CPU per order.
// - WebSocket fan-out (bench/ws.ts) with FRONT_ENDS=1 and N: 1 000 subscribers (100 in --quick)
//   of one market under a flow of 1 000 orders/s, delivered messages/s and latency from publication.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { addBaselineTree, runTool } from './ab/baseline_tree.js';
import { runLoad, type RequestSpec } from './load/client.js';
import { allAnswered, alternatingRuns, frontEndCpuSeconds, FULL_ORDERS, QUICK_ORDERS, type OrderRun, type OrderSizes } from './metrics.js';
import { format } from './support/format.js';
import { median } from './support/median.js';
import { spawnBenchServer } from './support/spawn.js';
import { readTokens } from './support/tokens.js';
import { benchWs, type WsFigures } from './ws.js';

/** The last commit before front-end threads (the code FRONT_ENDS=1 must keep up with). */
export const BASELINE_REF = '9fe4274';
const KEEP_GOAL = 0.95;
const SHARING_GOAL = 0.9;
const BOOK_CONNECTIONS = 64;

export interface Side {
  readonly name: string;
  readonly runs: readonly OrderRun[];
}

/**
 * Reads a thread answers itself while what they show is unchanged: one book per request, all eight
 * in one batch (a market-data reader's watch list), one trading market per request, and the
 * sampling list (docs/runtime.md, Front ends).
 */
const READS = ['GET /book', 'POST /books', 'GET /markets/{id}', 'GET /sampling-markets'] as const;
type Read = (typeof READS)[number];

export interface BookSide {
  readonly frontEnds: number;
  readonly requestsPerSecond: number;
  /** Requests per second of the front-end threads' CPU time. */
  readonly capacity: number;
  readonly p99Ms: number;
}

export interface FrontEndFigures {
  readonly frontEnds: number;
  readonly sizes: OrderSizes;
  readonly baseline: { readonly ref: string; readonly before: Side; readonly now: Side } | undefined;
  /** --against=REF: REF and this tree, both with FRONT_ENDS=N. */
  readonly against: { readonly ref: string; readonly before: Side; readonly now: Side } | undefined;
  readonly one: Side;
  readonly many: Side;
  readonly reads: readonly { readonly read: Read; readonly one: BookSide; readonly many: BookSide }[];
  readonly ws: { readonly one: WsFigures; readonly many: WsFigures };
}

/** Runs `sides` alternating round by round on the same pre-signed orders; a run with an answer that is not 200 stops the suite. */
async function alternate(sizes: OrderSizes, sides: readonly { name: string; env: Record<string, string>; script?: string }[]): Promise<Side[]> {
  const runs = await alternatingRuns(sizes, sides.map((side) => ({ ...side, check: allAnswered(side.name) })));
  return sides.map((side, index) => ({ name: side.name, runs: runs[index]! }));
}

/** The baseline tree's bench server, built; undefined where this is no git checkout (no history to build it from). */
function baselineServer(ref: string): { script: string; remove: () => void } | undefined {
  const repo = resolve(process.cwd());
  if (!existsSync(join(repo, '.git'))) return undefined;
  const tree = addBaselineTree(repo, ref);
  process.on('exit', () => tree.remove());
  runTool('ln', ['-s', join(repo, 'node_modules'), join(tree.root, 'node_modules')], tree.root);
  runTool('npm', ['run', 'build', '--silent'], tree.root);
  return { script: join(tree.root, 'dist/bench/support/server.js'), remove: () => tree.remove() };
}

/** What a read sends, over the first markets accepting orders (readTokens). */
async function requestsOf(read: Read, clobUrl: string): Promise<RequestSpec[]> {
  const tokens = await readTokens(clobUrl);
  switch (read) {
    case 'GET /book': return tokens.map((token) => ({ method: 'GET', path: `/book?token_id=${token}` }));
    case 'POST /books': return [{ method: 'POST', path: '/books', headers: { 'content-type': 'application/json' }, body: JSON.stringify(tokens.map((token) => ({ token_id: token }))) }];
    case 'GET /markets/{id}': {
      const markets = await Promise.all(tokens.map(async (token) => ((await (await fetch(`${clobUrl}/markets-by-token/${token}`)).json()) as { condition_id: string }).condition_id));
      return [...new Set(markets)].map((conditionId) => ({ method: 'GET', path: `/markets/${conditionId}` }));
    }
    case 'GET /sampling-markets': return [{ method: 'GET', path: '/sampling-markets' }];
  }
}

async function readSide(frontEnds: number, quick: boolean, read: Read): Promise<BookSide> {
  const server = await spawnBenchServer({ FRONT_ENDS: String(frontEnds), METRICS: 'on' });
  try {
    const requests = await requestsOf(read, server.urls.clob);
    await runLoad({ url: server.urls.clob, requests, connections: BOOK_CONNECTIONS, durationMs: 500 });
    const before = (await frontEndCpuSeconds(server.urls.clob)) ?? 0;
    const result = await runLoad({ url: server.urls.clob, requests, connections: BOOK_CONNECTIONS, durationMs: quick ? 1_000 : 6_000 });
    const seconds = ((await frontEndCpuSeconds(server.urls.clob)) ?? 0) - before;
    return { frontEnds, requestsPerSecond: Math.round(result.requestsPerSecond), capacity: Math.round(result.requests / Math.max(0.01, seconds)), p99Ms: result.latency.p99Ms };
  } finally {
    await server.stop();
  }
}

export async function benchFrontEnds(quick: boolean, options: readonly string[]): Promise<FrontEndFigures> {
  const frontEnds = Number(options.find((option) => option.startsWith('--front-ends='))?.split('=')[1] ?? 2);
  if (!(Number.isInteger(frontEnds) && frontEnds >= 2)) throw new Error('--front-ends=N takes an integer of at least 2');
  const ref = options.find((option) => option.startsWith('--baseline='))?.split('=')[1] ?? BASELINE_REF;
  const sizes = quick ? QUICK_ORDERS : FULL_ORDERS;
  let baseline: FrontEndFigures['baseline'];
  if (!quick && !options.includes('--no-baseline')) {
    const built = baselineServer(ref);
    if (built !== undefined) {
      try {
        const [before, now] = await alternate(sizes, [
          { name: `before (${ref})`, env: {}, script: built.script },
          { name: 'FRONT_ENDS=1', env: { FRONT_ENDS: '1' } },
        ]);
        baseline = { ref, before: before!, now: now! };
      } finally {
        built.remove();
      }
    }
  }
  let against: FrontEndFigures['against'];
  const againstRef = options.find((option) => option.startsWith('--against='))?.split('=')[1];
  if (againstRef !== undefined) {
    const built = baselineServer(againstRef);
    if (built === undefined) throw new Error('--against needs a git checkout to build the other tree from');
    try {
      const env = { FRONT_ENDS: String(frontEnds), METRICS: 'on' };
      const [before, now] = await alternate(sizes, [
        { name: `${againstRef} FRONT_ENDS=${frontEnds}`, env, script: built.script },
        { name: `FRONT_ENDS=${frontEnds}`, env },
      ]);
      against = { ref: againstRef, before: before!, now: now! };
    } finally {
      built.remove();
    }
  }
  const [one, many] = await alternate(sizes, [
    { name: 'FRONT_ENDS=1', env: { FRONT_ENDS: '1', METRICS: 'on' } },
    { name: `FRONT_ENDS=${frontEnds}`, env: { FRONT_ENDS: String(frontEnds), METRICS: 'on' } },
  ]);
  const reads: FrontEndFigures['reads'][number][] = [];
  for (const read of READS) reads.push({ read, one: await readSide(1, quick, read), many: await readSide(frontEnds, quick, read) });
  const ws = { one: await benchWs(quick, { FRONT_ENDS: '1' }), many: await benchWs(quick, { FRONT_ENDS: String(frontEnds) }) };
  return { frontEnds, sizes, baseline, against, one: one!, many: many!, reads, ws };
}

const med = (side: Side, read: (run: OrderRun) => number): number => median(side.runs.map(read));

function printSide(side: Side): void {
  console.log(
    `  ${side.name.padEnd(22)} ${format(med(side, (run) => run.ordersPerSecond)).padStart(7)} orders/s  main thread ${format(med(side, (run) => run.capacity)).padStart(7)} orders/CPU-s` +
    `  front ends ${format(med(side, (run) => run.frontEndCpuUsPerOrder), 1)} (+ pool ${format(med(side, (run) => run.statelessCpuUsPerOrder), 1)}) µs/order  server ${format(med(side, (run) => run.cpuUsPerOrder), 1)} µs/order` +
    `  p99 ${format(med(side, (run) => run.p99Ms), 2)} ms  (${side.runs.length} runs)`,
  );
}

export function printFrontEnds(figures: FrontEndFigures): void {
  const { sizes, baseline, one, many, frontEnds } = figures;
  console.log(`\nFront ends: POST /order, ${format(sizes.measuredOrders)} signed durable orders per server over ${sizes.connections} connections, medians of ${sizes.rounds} alternating round(s)`);
  if (baseline === undefined) {
    console.log('  FRONT_ENDS=1 against the code before front ends: full runs only (npm run bench -- front-ends)');
  } else {
    printSide(baseline.before);
    printSide(baseline.now);
    const throughput = med(baseline.now, (run) => run.ordersPerSecond) / med(baseline.before, (run) => run.ordersPerSecond);
    const capacity = med(baseline.now, (run) => run.capacity) / med(baseline.before, (run) => run.capacity);
    console.log(`  FRONT_ENDS=1 / before: orders/s ${throughput.toFixed(2)}×, main-thread capacity ${capacity.toFixed(2)}× (goal ≥ ${KEEP_GOAL}: ${Math.min(throughput, capacity) >= KEEP_GOAL ? 'met' : 'MISSED'})`);
  }
  const { against } = figures;
  if (against !== undefined) {
    printSide(against.before);
    printSide(against.now);
    const ratio = (read: (run: OrderRun) => number): string => (med(against.now, read) / med(against.before, read)).toFixed(2);
    console.log(
      `  FRONT_ENDS=${frontEnds}, this tree / ${against.ref}: orders/s ${ratio((run) => run.ordersPerSecond)}×, main-thread orders per CPU-second ${ratio((run) => run.capacity)}×, ` +
      `server CPU per order ${ratio((run) => run.cpuUsPerOrder)}×`,
    );
  }
  printSide(one);
  printSide(many);
  const efficiency = med(one, (run) => run.statelessCpuUsPerOrder) / med(many, (run) => run.statelessCpuUsPerOrder);
  const frontEndsOnly = med(one, (run) => run.frontEndCpuUsPerOrder) / med(many, (run) => run.frontEndCpuUsPerOrder);
  const scaling = med(many, (run) => run.ordersPerSecond) / med(one, (run) => run.ordersPerSecond);
  const mainThread = med(many, (run) => run.capacity) / med(one, (run) => run.capacity);
  console.log(
    `  FRONT_ENDS=${frontEnds} / 1: orders/s ${scaling.toFixed(2)}×; main-thread orders per CPU-second ${mainThread.toFixed(2)}×; ` +
    `front-end + pool CPU efficiency (µs/order with 1 over with ${frontEnds}) ${efficiency.toFixed(2)}× ` +
    `(2-core goal ≥ ${SHARING_GOAL}: ${efficiency >= SHARING_GOAL ? 'met' : 'MISSED'}; front ends alone ${frontEndsOnly.toFixed(2)}×; many-core goal with 4: orders/s ≥ 3×)`,
  );
  for (const { read, one: single, many: several } of figures.reads) {
    console.log(`${read}${read === 'POST /books' ? ' (8 tokens a request)' : ''} over ${BOOK_CONNECTIONS} connections`);
    for (const side of [single, several]) {
      console.log(`  FRONT_ENDS=${side.frontEnds}  ${format(side.requestsPerSecond).padStart(7)} req/s  front ends ${format(side.capacity).padStart(7)} req/CPU-s  p99 ${format(side.p99Ms, 2)} ms`);
    }
    const goal = read === 'GET /book' ? ' (many-core goal with 4: req/s ≥ 3.5×)' : '';
    console.log(`  FRONT_ENDS=${frontEnds} / 1: req/s ${(several.requestsPerSecond / single.requestsPerSecond).toFixed(2)}×, front-end CPU efficiency ${(several.capacity / single.capacity).toFixed(2)}×${goal}`);
  }
  const { ws } = figures;
  console.log(`WebSocket fan-out: ${ws.one.subscribers} subscribers of one market, ${ws.one.ordersPerSecond} and ${ws.many.ordersPerSecond} orders/s on it`);
  for (const [name, run] of [['FRONT_ENDS=1', ws.one], [`FRONT_ENDS=${frontEnds}`, ws.many]] as const) {
    console.log(
      `  ${name.padEnd(13)} ${format(run.flow.deliveredPerSecond).padStart(9)} msgs/s  p50 ${format(run.flow.p50Ms, 1)} ms  p99 ${format(run.flow.p99Ms, 1)} ms` +
      `  (uWS's own publish: ${format(run.raw.deliveredPerSecond)} msgs/s, p99 ${format(run.raw.p99Ms, 1)} ms)`,
    );
  }
  console.log(`  FRONT_ENDS=${frontEnds} / 1: delivered ${(ws.many.flow.deliveredPerSecond / Math.max(1, ws.one.flow.deliveredPerSecond)).toFixed(2)}× (many-core goal with 4 receiving processes: p99 ≤ 5 ms at 1,000 orders/s)`);
}

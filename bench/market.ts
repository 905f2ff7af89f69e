// Market-data reads (issue 6): GET /book and GET /price requests per second against the raw uWS
// hello-world route of the same server process, first on still books, then while an order flow
// of BENCH_ORDER_FLOW orders/s changes them (bench/market/order_flow.ts), and against a node:http
// server answering the same cached /book body, in the same run. Goals: >= 0.8 of the ceiling
// without flow, >= 0.6 with 5 000 orders/s, >= 2x node:http.
//
// As in the catalog benchmark, the ratios are judged on capacity (requests per second of server
// CPU time): on two cores the load generator can saturate before the server. Here the CPU time
// is the main thread's (it serves every read, and carries the flow's answers and feed writes),
// so the matching workers' own work under the flow does not count against the reads.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { measureAgainstBaseline, printFigures, type Case, type RouteFigures } from './catalog.js';
import { flowPath, helloPath, processCpuSeconds, spawnBenchServer, threadCpuSeconds, type BenchServer } from './support/spawn.js';
import { readTokens } from './support/tokens.js';

const FLOW_ORDERS_PER_SECOND = 5_000;
const GOAL_STILL = 0.8;
const GOAL_FLOW = 0.6;
const GOAL_NODE_HTTP = 2;
/** The flow's first seconds are a burst (first orders of each market, the demo quotes taken): let it settle. */
const FLOW_SETTLE_MS = 3_000;

interface Phase {
  readonly rows: RouteFigures[];
  readonly flowOrdersPerSecond: number;
}


function cases(tokens: readonly string[]): Case[] {
  return [
    { name: 'raw uWS hello (ceiling)', requests: [{ method: 'GET', path: helloPath }] },
    { name: 'GET /book', requests: tokens.map((token) => ({ method: 'GET', path: `/book?token_id=${token}` })) },
    { name: 'GET /price', requests: tokens.map((token) => ({ method: 'GET', path: `/price?token_id=${token}&side=BUY` })) },
  ];
}

async function flowCount(server: BenchServer): Promise<number> {
  const counts = (await (await fetch(`${server.urls.clob}${flowPath}`)).json()) as { placed: number };
  return counts.placed;
}

async function phase(quick: boolean, flowRate: number): Promise<Phase> {
  const server = await spawnBenchServer(flowRate > 0 ? { BENCH_ORDER_FLOW: String(flowRate) } : {});
  try {
    const tokens = await readTokens(server.urls.clob);
    if (flowRate > 0) await new Promise((resolve) => setTimeout(resolve, FLOW_SETTLE_MS));
    const startedAt = performance.now();
    const placedBefore = await flowCount(server);
    const mainThreadCpu = (): number => threadCpuSeconds(server.pid).get(server.pid) ?? 0;
    const rows = await measureAgainstBaseline(server.urls.clob, mainThreadCpu, cases(tokens), quick);
    const placed = (await flowCount(server)) - placedBefore;
    return { rows, flowOrdersPerSecond: Math.round(placed / ((performance.now() - startedAt) / 1000)) };
  } finally {
    await server.stop();
  }
}

function listeningUrl(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`node:http baseline exited with ${code}`)));
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      const match = /listening (\S+)/.exec(chunk);
      if (match !== null) resolve(match[1]!);
    });
  });
}

/** node:http serving the body clobd gave for the first token's book, measured like the others. */
async function nodeHttpBaseline(quick: boolean): Promise<RouteFigures> {
  const server = await spawnBenchServer();
  let body: string;
  try {
    const [token] = await readTokens(server.urls.clob);
    body = await (await fetch(`${server.urls.clob}/book?token_id=${token}`)).text();
  } finally {
    await server.stop();
  }
  const script = fileURLToPath(new URL('./market/node_http.js', import.meta.url));
  const child = spawn(process.execPath, [script], { env: { ...process.env, BODY: body }, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await listeningUrl(child);
    const rows = await measureAgainstBaseline(url, () => processCpuSeconds(child.pid ?? 0), [
      { name: 'node:http cached /book body', requests: [{ method: 'GET', path: '/book' }] },
    ], quick);
    return rows[0]!;
  } finally {
    child.kill('SIGTERM');
  }
}

/** One wrk run: requests per second and per second of the serving thread's CPU. */
interface WrkFigure {
  readonly name: string;
  readonly requestsPerSecond: number;
  readonly capacity: number;
}

function hasWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/** `wrk -t1 -c32` against one URL; `cpuSeconds` is the serving thread's CPU time. */
function wrkRun(name: string, url: string, seconds: number, cpuSeconds: () => number): WrkFigure {
  const before = cpuSeconds();
  const output = execFileSync('wrk', ['-t1', '-c32', `-d${seconds}s`, url]).toString();
  const used = cpuSeconds() - before;
  const requestsPerSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? '0');
  return { name, requestsPerSecond: Math.round(requestsPerSecond), capacity: Math.round((requestsPerSecond * seconds) / Math.max(0.01, used)) };
}

/**
 * The same comparison with wrk (C, one thread) as the load generator, when it is installed
 * (`apt-get install wrk`): it costs a request far less than the Node generator, so the server,
 * not the generator, saturates, and the node:http ratio is not compressed. Best of two rounds.
 */
async function wrkCrossCheck(quick: boolean): Promise<WrkFigure[]> {
  const seconds = quick ? 1 : 5;
  const best = new Map<string, WrkFigure>();
  const keep = (figure: WrkFigure): void => {
    const previous = best.get(figure.name);
    if (previous === undefined || figure.capacity > previous.capacity) best.set(figure.name, figure);
  };
  const server = await spawnBenchServer();
  let body: string;
  try {
    const [token] = await readTokens(server.urls.clob);
    body = await (await fetch(`${server.urls.clob}/book?token_id=${token}`)).text();
    const mainThread = (): number => threadCpuSeconds(server.pid).get(server.pid) ?? 0;
    for (let round = 0; round < 2; round++) {
      keep(wrkRun('raw uWS hello (ceiling)', `${server.urls.clob}${helloPath}`, seconds, mainThread));
      keep(wrkRun('GET /book', `${server.urls.clob}/book?token_id=${token}`, seconds, mainThread));
      keep(wrkRun('GET /price', `${server.urls.clob}/price?token_id=${token}&side=BUY`, seconds, mainThread));
    }
  } finally {
    await server.stop();
  }
  const child = spawn(process.execPath, [fileURLToPath(new URL('./market/node_http.js', import.meta.url))], {
    env: { ...process.env, BODY: body }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await listeningUrl(child);
    for (let round = 0; round < 2; round++) keep(wrkRun('node:http cached /book body', `${url}/book`, seconds, () => processCpuSeconds(child.pid ?? 0)));
  } finally {
    child.kill('SIGTERM');
  }
  return [...best.values()];
}

export interface MarketFigures {
  readonly still: Phase;
  readonly flow: Phase;
  readonly nodeHttp: RouteFigures;
  /** Empty when wrk is not installed. */
  readonly wrk: WrkFigure[];
}

export async function benchMarket(quick: boolean): Promise<MarketFigures> {
  const still = await phase(quick, 0);
  const flow = await phase(quick, FLOW_ORDERS_PER_SECOND);
  const nodeHttp = await nodeHttpBaseline(quick);
  const wrk = hasWrk() ? await wrkCrossCheck(quick) : [];
  return { still, flow, nodeHttp, wrk };
}

export function printMarket(figures: MarketFigures): void {
  printFigures('market data reads, still books, vs raw uWS hello-world (same process, same run)', figures.still.rows);
  printFigures(`market data reads while ${figures.flow.flowOrdersPerSecond} orders/s change the books`, figures.flow.rows);
  printFigures('node:http serving the cached /book body (baseline)', [figures.nodeHttp]);
  const ratio = (rows: readonly RouteFigures[], name: string): number => rows.find((row) => row.name === name)?.capacityRatio ?? 0;
  const capacity = (rows: readonly RouteFigures[], name: string): number => rows.find((row) => row.name === name)?.capacity ?? 0;
  const verdict = (value: number, goal: number): string => `${value >= goal ? 'met' : 'NOT met'} (${value.toFixed(2)})`;
  for (const name of ['GET /book', 'GET /price']) {
    console.log(`goal: ${name} capacity >= ${GOAL_STILL} of the ceiling, still books: ${verdict(ratio(figures.still.rows, name), GOAL_STILL)}`);
    console.log(`goal: ${name} capacity >= ${GOAL_FLOW} of the ceiling, ${figures.flow.flowOrdersPerSecond} orders/s: ${verdict(ratio(figures.flow.rows, name), GOAL_FLOW)}`);
  }
  const overNode = capacity(figures.still.rows, 'GET /book') / Math.max(1, figures.nodeHttp.capacity);
  console.log(`goal: GET /book capacity >= ${GOAL_NODE_HTTP}x node:http serving the same body: ${verdict(overNode, GOAL_NODE_HTTP)}`);
  if (figures.wrk.length === 0) {
    console.log('wrk cross-check skipped: wrk is not installed (apt-get install wrk)');
    return;
  }
  const ceiling = figures.wrk.find((row) => row.name.startsWith('raw'))!;
  const node = figures.wrk.find((row) => row.name.startsWith('node:http'))!;
  console.log('\nwrk -t1 -c32 cross-check (still books; capacity = requests per second of the serving thread\'s CPU)');
  console.table(figures.wrk.map((row) => ({
    route: row.name, 'req/s': row.requestsPerSecond, 'req per CPU s': row.capacity,
    'capacity vs ceiling': (row.capacity / ceiling.capacity).toFixed(2), 'req/s vs node:http': (row.requestsPerSecond / node.requestsPerSecond).toFixed(2),
  })));
  const book = figures.wrk.find((row) => row.name === 'GET /book')!;
  console.log(`goal (wrk): GET /book >= ${GOAL_NODE_HTTP}x node:http: req/s ${verdict(book.requestsPerSecond / node.requestsPerSecond, GOAL_NODE_HTTP)}, capacity ${verdict(book.capacity / node.capacity, GOAL_NODE_HTTP)}`);
}

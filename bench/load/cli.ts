// `npm run load -- <scenario> [options]`: how a clobd exchange holds up, in one command.
//
//   books   market-data readers: GET /book and GET /price over the first tokens of the markets
//   orders  signed orders from fresh funded wallets: resting, crossing (FOK and FAK among them)
//           and cancels of earlier orders, each request sent once
//   ws      market-channel subscribers of one market, and a signed order flow on that market;
//           delivered messages/s and latency from each message's publication
//   mixed   books and orders at once
//
// Without --url it starts a local server on a fresh DATA_DIR (demo catalog, rate limits off) and
// stops it afterwards; with --url it targets that CLOB listener, and --admin-token funds the
// wallets. A run first prepares everything that is not measured (wallets funded, every order
// signed, connections and sockets open) in every generator, then measures: a progress line per
// second on stderr, then a table (or one line of JSON with --json). --workers N runs N generator
// threads whose figures merge into the same rows. A failure is one line on stderr naming the
// option to give or the server setting that refused the run, and a non-zero exit.
import { randomBytes } from 'node:crypto';
import { createHistogram, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { spawnBenchServer } from '../support/spawn.js';
import { endProgress, liveTally, writeProgress, type LiveTally } from './client.js';
import { httpProgress, mergeHttp, mergeWs, wsProgress, type HttpRow, type Progress, type Row, type WsRow } from './merge.js';
import {
  httpLoadsOf, preparePart, SCENARIOS, WS_COUNTERS, type HttpLoadName, type Market, type PartConfig, type PartOutcome, type PreparedPart, type Scenario,
  type Tallies, type WsTally,
} from './parts.js';
import { brief, getJson, LoadError, oneLine } from './refusals.js';
import type { FromWorker, WorkerInput } from './worker.js';

const SHORT_USAGE = `usage: npm run load -- <${SCENARIOS.join('|')}> [options] (--help lists them)`;

const USAGE = `usage: npm run load -- <${SCENARIOS.join('|')}> [options]

  books    GET /book and GET /price over the first tokens of the markets accepting orders
  orders   signed orders from fresh funded wallets: resting, crossing (FOK, FAK), cancels
  ws       WebSocket subscribers of one market, and a signed order flow on that market
  mixed    books and orders at once

  --url URL          the CLOB listener of a running exchange; without it a local server is
                     started on a fresh DATA_DIR (demo catalog, rate limits off), then stopped
  --admin-token T    the server's ADMIN_TOKEN, to fund the wallets (orders, mixed, ws's flow)
  --duration S       seconds measured (10)
  --connections N    HTTP connections, over all workers (32)
  --rate N           requests/s sent whatever the answers (open loop, latency from each
                     request's scheduled time); without it each connection sends its next
                     request when the previous one is answered (closed loop)
  --accounts N       wallets placing orders, over all workers (20)
  --subscribers N    ws: WebSocket subscribers, over all workers (200)
  --flow N           ws: orders/s of the run's own order flow on the subscribed market
                     (500; 0 for none)
  --workers N        generator threads, each with its share of the connections, rate,
                     wallets and subscribers; their figures merge into one table (1)
  --json             one line of JSON on stdout (the merged rows) instead of the table
  --help             this text`;

interface Options {
  readonly scenario: Scenario;
  readonly url: string | undefined;
  readonly adminToken: string | undefined;
  readonly durationS: number;
  readonly connections: number;
  readonly rate: number | undefined;
  readonly accounts: number;
  readonly subscribers: number;
  readonly flow: number;
  readonly workers: number;
  readonly json: boolean;
}

/** A usage error: one line, exit 2. */
function usageError(message: string): LoadError {
  return new LoadError(message, 2);
}

function integer(text: string | undefined, name: string, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw usageError(`--${name} must be an integer of at least ${min}, not "${text}"`);
  return value;
}

/** The command line as parseArgs reads it; a usage error for an unknown option or a missing value. */
function parsed(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv], allowPositionals: true,
      options: {
        url: { type: 'string' }, 'admin-token': { type: 'string' }, duration: { type: 'string' }, connections: { type: 'string' },
        rate: { type: 'string' }, accounts: { type: 'string' }, subscribers: { type: 'string' }, flow: { type: 'string' },
        workers: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw usageError(`${(error as Error).message.split('. ')[0]}: ${SHORT_USAGE}`);
  }
}

/** The options, or 'help'; a usage error names what is wrong. */
function readOptions(argv: readonly string[]): Options | 'help' {
  const { values, positionals } = parsed(argv);
  if (values.help === true) return 'help';
  const scenario = positionals[0];
  if (scenario === undefined) throw usageError(`which scenario? ${SHORT_USAGE}`);
  if (!(SCENARIOS as readonly string[]).includes(scenario)) throw usageError(`unknown scenario "${scenario}": ${SHORT_USAGE}`);
  if (positionals.length > 1) throw usageError(`one scenario at a time, not "${positionals.slice(1).join(' ')}": ${SHORT_USAGE}`);
  const options: Options = {
    scenario: scenario as Scenario, url: values.url?.replace(/\/+$/, ''), adminToken: values['admin-token'],
    durationS: integer(values.duration, 'duration', 10, 1), connections: integer(values.connections, 'connections', 32, 1),
    rate: values.rate === undefined ? undefined : integer(values.rate, 'rate', 0, 1), accounts: integer(values.accounts, 'accounts', 20, 1),
    subscribers: integer(values.subscribers, 'subscribers', 200, 1), flow: integer(values.flow, 'flow', 500, 0),
    workers: integer(values.workers, 'workers', 1, 1), json: values.json === true,
  };
  check(options);
  return options;
}

/** What one generator opens at most (the load generator's own bound). */
const CONNECTIONS_PER_WORKER_MAX = 1024;

/** What a scenario needs of the options together. */
function check(options: Options): void {
  const { scenario, workers } = options;
  const http = httpLoadsOf(scenario, options.flow);
  if (options.url !== undefined && !/^https?:\/\/[^/]+$/.test(options.url)) throw usageError(`--url takes the CLOB listener's origin, like http://host:8080, not "${options.url}"`);
  if (http.length > 0 && Math.ceil(options.connections / workers) > CONNECTIONS_PER_WORKER_MAX) {
    throw usageError(`--connections: at most ${CONNECTIONS_PER_WORKER_MAX} a generator thread (give more --workers)`);
  }
  if (http.length > 0 && options.connections < workers) throw usageError(`--workers ${workers} needs at least ${workers} --connections (each generator has its own)`);
  if (http.some((name) => name !== 'books') && options.accounts < workers) throw usageError(`--workers ${workers} needs at least ${workers} --accounts (each generator has its own wallets)`);
  if (scenario === 'ws' && options.subscribers < workers) throw usageError(`--workers ${workers} needs at least ${workers} --subscribers`);
  if (options.url !== undefined && options.adminToken === undefined) {
    if (scenario === 'orders' || scenario === 'mixed') throw usageError(`${scenario} against --url needs --admin-token T, the server's ADMIN_TOKEN, to fund its wallets`);
    if (scenario === 'ws' && options.flow > 0) {
      throw usageError('ws against --url needs --admin-token T, the server\'s ADMIN_TOKEN, to fund the wallets of its order flow (or --flow 0 for no flow of its own)');
    }
  }
}

interface Target {
  readonly clob: string;
  readonly adminToken: string | undefined;
  readonly stop: () => Promise<void>;
}

async function target(options: Options): Promise<Target> {
  if (options.url !== undefined) return { clob: options.url, adminToken: options.adminToken, stop: async () => undefined };
  const adminToken = options.adminToken ?? randomBytes(16).toString('hex');
  const env: Record<string, string> = { ADMIN_TOKEN: adminToken, AUTH_WINDOW_S: '3600', WS_SOCKETS_PER_IP: String(options.subscribers + 64) };
  let server: Awaited<ReturnType<typeof spawnBenchServer>>;
  try {
    server = await spawnBenchServer(env);
  } catch (error) {
    throw new LoadError(`the local server did not start: ${oneLine(error)}`);
  }
  process.stderr.write(`started a local server: ${server.urls.clob}\n`);
  return { clob: server.urls.clob, adminToken, stop: () => server.stop() };
}

interface SamplingMarket {
  readonly tokens: readonly { readonly token_id: string }[];
  readonly neg_risk?: boolean;
  readonly accepting_orders?: boolean;
}

/** The markets accepting orders now (the sampling list), at most `count`. */
async function marketsOf(clob: string, count: number): Promise<Market[]> {
  const page = await getJson<{ data?: SamplingMarket[] }>(`${clob}/sampling-markets`, 'GET /sampling-markets');
  const markets = (page.data ?? [])
    .filter((market) => market.accepting_orders !== false && market.tokens.length === 2)
    .map((market) => ({ tokens: [market.tokens[0]!.token_id, market.tokens[1]!.token_id] as const, negRisk: market.neg_risk === true }));
  if (markets.length === 0) throw new LoadError('the server has no market accepting orders (GET /sampling-markets is empty): create one through its admin API, or start it with the demo catalog');
  return markets.slice(0, count);
}

/** Generator `index`'s share of `total`, spread as evenly as whole numbers allow. */
function share(total: number, workers: number, index: number): number {
  return Math.floor(total / workers) + (index < total % workers ? 1 : 0);
}

/** Subscribers (over all generators) that decode and time their messages. */
const SAMPLED_SUBSCRIBERS = 20;

function partConfigs(options: Options, clob: string, adminToken: string | undefined, markets: readonly Market[]): PartConfig[] {
  const { workers, durationS } = options;
  const loads = httpLoadsOf(options.scenario, options.flow);
  return Array.from({ length: workers }, (_, worker): PartConfig => {
    const rate = options.rate === undefined ? undefined : options.rate / workers;
    const tallies: Tallies = {
      http: Object.fromEntries(loads.map((name) => [name, liveTally()])),
      ws: options.scenario === 'ws' ? { latency: createHistogram(), counters: new Int32Array(new SharedArrayBuffer(WS_COUNTERS * 4)) } : undefined,
    };
    const subscribers = share(options.subscribers, workers, worker);
    return {
      scenario: options.scenario, clob, adminToken, worker, workers, durationS, connections: share(options.connections, workers, worker), rate,
      // Open loop: as many as the rate sends; closed loop: more than a connection can take in the time.
      orders: rate === undefined ? Math.ceil(Math.max(1_000, 2_000 * durationS) / workers) : Math.ceil(rate * durationS),
      accounts: share(options.accounts, workers, worker), subscribers, sampled: Math.min(subscribers, Math.ceil(SAMPLED_SUBSCRIBERS / workers)),
      flow: options.scenario === 'ws' ? options.flow / workers : 0, markets, tallies,
    };
  });
}

/** One generator: prepared, then told to measure. */
interface Generator {
  readonly prepared: Promise<void>;
  go(): Promise<PartOutcome>;
  stop(): void;
}

function inThread(input: WorkerInput, note: (line: string) => void): Generator {
  let part: PreparedPart | undefined;
  const prepared = preparePart(input.config, input.totalSubscribers, note).then((made) => {
    part = made;
  });
  return { prepared, go: () => part!.measure(), stop: () => part?.close() };
}

/** A stack to print with LOAD_STACK=1, kept with the one line. */
class GeneratorFailure extends LoadError {
  constructor(line: string, exitCode: number, readonly threadStack: string | undefined) {
    super(line, exitCode);
  }
}

function inWorker(input: WorkerInput, note: (line: string) => void): Generator {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: input });
  // The step the thread is in: what a failure rejects.
  let settle: { resolve: (value: never) => void; reject: (error: Error) => void } | undefined;
  let finished = false;
  const step = <T>(): Promise<T> => new Promise<T>((resolve, reject) => {
    settle = { resolve: resolve as (value: never) => void, reject };
  });
  const fail = (error: Error): void => {
    if (finished) return;
    finished = true;
    settle?.reject(error);
  };
  const prepared = step<void>();
  worker.on('message', (message: FromWorker) => {
    if (message.kind === 'note') note(message.line);
    else if (message.kind === 'prepared') settle?.resolve(undefined as never);
    else if (message.kind === 'done') {
      finished = true;
      settle?.resolve(message.outcome as never);
    } else fail(new GeneratorFailure(message.line, message.exitCode, message.stack));
  });
  worker.on('error', (error) => fail(new GeneratorFailure(oneLine(error), 1, error.stack)));
  worker.on('exit', (code) => fail(new LoadError(`a generator thread ended (exit ${code}) before its figures came`)));
  return {
    prepared,
    go: () => {
      const done = step<PartOutcome>();
      worker.postMessage('go');
      return done;
    },
    stop: () => {
      finished = true;
      void worker.terminate();
    },
  };
}

/** What the run prepares, said once before it does. */
function preparing(options: Options, markets: readonly Market[]): string {
  const parts: string[] = [];
  for (const name of httpLoadsOf(options.scenario, options.flow)) {
    if (name === 'books') parts.push(`${markets.length * 2} tokens to read`);
    else if (name === 'orders') parts.push(`${options.accounts} wallets to fund and their orders to sign`);
    else parts.push(`${options.accounts} wallets to fund and ${options.flow * options.durationS} flow orders to sign`);
  }
  if (options.scenario === 'ws') parts.push(`${options.subscribers} subscribers to open`);
  return `preparing ${options.workers === 1 ? '' : `${options.workers} generator threads, `}${parts.join(', ')}`;
}

/** What is ready when measuring starts, said as it starts. */
function ready(options: Options): string[] {
  const loads = httpLoadsOf(options.scenario, options.flow);
  return [
    ...(loads.some((name) => name !== 'books') ? ['every order signed'] : []),
    ...(loads.length > 0 ? ['every connection open'] : []),
    ...(options.scenario === 'ws' ? ['every subscriber subscribed'] : []),
  ];
}

/** Each HTTP load's tallies, and the subscribers', over every generator. */
function talliesOf(configs: readonly PartConfig[]): { http: [HttpLoadName, LiveTally[]][]; ws: WsTally[] } {
  const names = Object.keys(configs[0]!.tallies.http) as HttpLoadName[];
  return {
    http: names.map((name) => [name, configs.map((config) => config.tallies.http[name]!)]),
    ws: configs.flatMap((config) => (config.tallies.ws === undefined ? [] : [config.tallies.ws])),
  };
}

function rowsOf(configs: readonly PartConfig[], outcomes: readonly PartOutcome[]): Row[] {
  const tallies = talliesOf(configs);
  const rows: Row[] = [];
  if (tallies.ws.length > 0) rows.push(mergeWs(outcomes.map((outcome) => outcome.ws!), tallies.ws));
  for (const [name, loadTallies] of tallies.http) rows.push(mergeHttp(name, outcomes.map((outcome) => outcome.http[name]!), loadTallies));
  return rows;
}

function print(rows: readonly Row[], asJson: boolean): void {
  if (asJson) {
    console.log(JSON.stringify(rows));
    return;
  }
  const ws = rows.filter((row): row is WsRow => row.scenario === 'ws');
  const http = rows.filter((row): row is HttpRow => row.scenario !== 'ws');
  if (ws.length > 0) {
    console.table(ws.map((row) => ({
      scenario: 'ws', subscribers: row.subscribers, 'delivered msgs/s': row.deliveredPerSecond, timed: row.timed,
      'p50 ms': row.latency.p50Ms, 'p99 ms': row.latency.p99Ms, 'max ms': row.latency.maxMs, closed: row.closed,
    })));
  }
  if (http.length > 0) {
    console.table(http.map(({ scenario, result }) => ({
      scenario, 'req/s': Math.round(result.requestsPerSecond), requests: result.requests, 'p50 ms': result.latency.p50Ms,
      'p90 ms': result.latency.p90Ms, 'p99 ms': result.latency.p99Ms, 'p99.9 ms': result.latency.p999Ms, 'max ms': result.latency.maxMs,
      // Open loop (--rate): how late the generator itself sent, already inside the latencies.
      ...(result.sendLag.maxMs === 0 ? {} : { 'send lag p99 ms': result.sendLag.p99Ms }),
      statuses: Object.entries(result.statusCounts).map(([status, count]) => `${status}×${count}`).join(' '), errors: result.errors,
    })));
  }
}

/** What the errors of each row mean, and which server setting to look at: lines for stderr. */
function hints(rows: readonly Row[], options: Options): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    if (row.scenario === 'ws') {
      if (row.closed > 0) {
        const codes = Object.entries(row.closeCodes).map(([code, count]) => `${code}×${count}`).join(' ');
        lines.push(`ws: the server closed ${row.closed} of ${row.subscribers} subscribers while measuring (close codes ${codes}); 4429 is a WebSocket cap of its RATE_LIMITS`);
      }
      continue;
    }
    const { result, scenario } = row;
    for (const [status, count] of Object.entries(result.statusCounts)) {
      if (status.startsWith('2')) continue;
      const sample = result.errorSamples[status] === undefined ? '' : `, e.g. ${brief(result.errorSamples[status]!)}`;
      if (status === '429') {
        lines.push(`${scenario}: ${count} of ${result.requests} answers were 429 Too Many Requests: the server's RATE_LIMITS capped this load `
          + '(start it with RATE_LIMITS=off, or raise those caps in its RATE_LIMITS file, to measure past them)');
      } else if (status === '401') {
        lines.push(`${scenario}: ${count} answers were 401${sample}: the server's AUTH_WINDOW_S is narrower than the gap between its clock and this machine's `
          + `plus how late the requests went (a closed-loop run longer than twice the window, ${options.durationS} s here, or a generator that fell behind)`);
      } else {
        lines.push(`${scenario}: ${count} answers were ${status}${sample}`);
      }
    }
    if (result.socketErrors > 0) lines.push(`${scenario}: ${result.socketErrors} socket errors (connections reset or refused)`);
    if (result.skipped > 0) lines.push(`${scenario}: ${result.skipped} requests not sent: every connection was busy (more --connections, or a lower --rate)`);
  }
  return lines;
}

const note = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

async function run(options: Options): Promise<void> {
  const { clob, adminToken, stop } = await target(options);
  const generators: Generator[] = [];
  let ticker: NodeJS.Timeout | undefined;
  try {
    const markets = await marketsOf(clob, options.scenario === 'ws' ? 1 : 8);
    const configs = partConfigs(options, clob, adminToken, markets);
    note(preparing(options, markets));
    for (const config of configs) {
      const input: WorkerInput = { config, totalSubscribers: options.subscribers };
      generators.push(options.workers === 1 ? inThread(input, note) : inWorker(input, note));
    }
    await Promise.all(generators.map((generator) => generator.prepared));
    note(`measuring for ${options.durationS} s: ${ready(options).join(', ')}`);
    const tallies = talliesOf(configs);
    const last = new Map<string, Progress>();
    const startedMs = performance.now();
    let tickMs = startedMs;
    ticker = setInterval(() => {
      const now = performance.now();
      const intervalS = (now - tickMs) / 1000;
      tickMs = now;
      const progressOf = (name: string): Progress => last.get(name) ?? last.set(name, { answered: 0 }).get(name)!;
      const parts = tallies.http.map(([name, loadTallies]) => httpProgress(name, loadTallies, progressOf(name), intervalS));
      if (tallies.ws.length > 0) parts.unshift(wsProgress(tallies.ws, progressOf('ws'), intervalS));
      writeProgress(`${((now - startedMs) / 1000).toFixed(1).padStart(5)}s  ${parts.join('  |  ')}`);
    }, 1000);
    const outcomes = await Promise.all(generators.map((generator) => generator.go()));
    clearInterval(ticker);
    endProgress();
    const rows = rowsOf(configs, outcomes);
    print(rows, options.json);
    for (const line of hints(rows, options)) note(line);
  } finally {
    if (ticker !== undefined) clearInterval(ticker);
    for (const generator of generators) generator.stop();
    await stop();
  }
}

async function main(): Promise<number> {
  try {
    const options = readOptions(process.argv.slice(2));
    if (options === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    await run(options);
    return 0;
  } catch (error) {
    endProgress();
    process.stderr.write(`load: ${oneLine(error)}\n`);
    if (process.env['LOAD_STACK'] === '1') {
      process.stderr.write(`${error instanceof GeneratorFailure ? error.threadStack : (error as Error).stack}\n`);
    }
    return error instanceof LoadError ? error.exitCode : 1;
  }
}

process.exit(await main());

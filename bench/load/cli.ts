// `npm run load -- <scenario> [options]`: how a clobd exchange holds up, in one command.
//
//   books   market-data readers: GET /book and GET /price over the first tokens of the markets
//   orders  signed orders from many funded accounts: resting, crossing (FOK and FAK among them)
//           and cancels of earlier orders, each request sent once
//   ws      market-channel subscribers of one market; delivered messages/s and latency from
//           each message's publication
//   mixed   books and orders at once
//
// Without --url it starts a local server on a fresh DATA_DIR (demo catalog, rate limits off) and
// stops it afterwards; with --url it targets that CLOB listener (orders then need
// --admin-token to fund the accounts). A live progress line goes to stderr; the result is a table
// (or JSON with --json): throughput, p50/p90/p99/p99.9/max latency and status-code counts.
// --rate N sends at a fixed arrival rate (open loop, latency from each request's scheduled time);
// without it each connection sends its next request when the previous one is answered.
import { createHistogram } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ADMIN_TOKEN } from '../../test/http/orders/trader.js';
import { makeTraders, type BenchTrader } from '../orders/exchange.js';
import { makePlan, type PlannedOrder } from '../orders/plan.js';
import { spawnBenchServer, type BenchServer } from '../support/spawn.js';
import { runLoad, type LoadResult, type RequestSpec } from './client.js';
import { subscribe, type Sample, type Subscriber } from './ws_client.js';

const SCENARIOS = ['books', 'orders', 'ws', 'mixed'] as const;
type Scenario = (typeof SCENARIOS)[number];

const USAGE = `usage: npm run load -- <${SCENARIOS.join('|')}> [--url http://host:port] [--admin-token T]
  [--duration seconds=10] [--connections n=32] [--rate requests/s] [--accounts n=20]
  [--subscribers n=200] [--flow orders/s=500 (ws on a local server)] [--json]`;

interface Options {
  readonly scenario: Scenario;
  readonly url: string | undefined;
  readonly adminToken: string;
  readonly durationS: number;
  readonly connections: number;
  readonly rate: number | undefined;
  readonly accounts: number;
  readonly subscribers: number;
  readonly flow: number;
  readonly json: boolean;
}

function positive(text: string | undefined, name: string, fallback: number | undefined): number | undefined {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer`);
  return value;
}

function readOptions(argv: readonly string[]): Options {
  const { values, positionals } = parseArgs({
    args: [...argv], allowPositionals: true,
    options: {
      url: { type: 'string' }, 'admin-token': { type: 'string' }, duration: { type: 'string' }, connections: { type: 'string' },
      rate: { type: 'string' }, accounts: { type: 'string' }, subscribers: { type: 'string' }, flow: { type: 'string' },
      json: { type: 'boolean' }, help: { type: 'boolean' },
    },
  });
  const scenario = positionals[0] as Scenario | undefined;
  if (values.help === true || scenario === undefined || !SCENARIOS.includes(scenario)) throw new Error(USAGE);
  return {
    scenario, url: values.url, adminToken: values['admin-token'] ?? ADMIN_TOKEN,
    durationS: positive(values.duration, 'duration', 10)!, connections: positive(values.connections, 'connections', 32)!,
    rate: positive(values.rate, 'rate', undefined), accounts: positive(values.accounts, 'accounts', 20)!,
    subscribers: positive(values.subscribers, 'subscribers', 200)!, flow: positive(values.flow, 'flow', 500)!, json: values.json === true,
  };
}

interface Target {
  readonly clob: string;
  readonly stop: () => Promise<void>;
}

async function target(options: Options): Promise<Target> {
  if (options.url !== undefined) return { clob: options.url.replace(/\/$/, ''), stop: async () => undefined };
  const env: Record<string, string> = {
    ADMIN_TOKEN: options.adminToken, AUTH_WINDOW_S: '3600', WS_SOCKETS_PER_IP: String(options.subscribers + 64),
  };
  if (options.scenario === 'ws') Object.assign(env, { BENCH_ORDER_FLOW: String(options.flow), BENCH_FLOW_MARKETS: '1' });
  const server: BenchServer = await spawnBenchServer(env);
  process.stderr.write(`started a local server: ${server.urls.clob}\n`);
  return { clob: server.urls.clob, stop: () => server.stop() };
}

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Token pairs of the markets accepting orders now (the sampling list), at most `count`. */
async function tokenPairs(clob: string, count: number): Promise<[string, string][]> {
  const page = await json<{ data: { tokens: { token_id: string }[] }[] }>(`${clob}/sampling-markets`);
  const pairs = page.data.map((market) => [market.tokens[0]!.token_id, market.tokens[1]!.token_id] as [string, string]);
  if (pairs.length === 0) throw new Error('the target has no market accepting orders');
  return pairs.slice(0, count);
}

interface Row {
  readonly scenario: string;
  readonly result: LoadResult;
}

async function books(options: Options, clob: string): Promise<Row> {
  const tokens = (await tokenPairs(clob, 8)).flat();
  const requests: RequestSpec[] = tokens.flatMap((token) => [
    { method: 'GET', path: `/book?token_id=${token}` }, { method: 'GET', path: `/price?token_id=${token}&side=BUY` },
  ]);
  const result = await runLoad({
    url: clob, requests, connections: options.connections, durationMs: options.durationS * 1000, ratePerSecond: options.rate, label: 'books',
  });
  return { scenario: 'books', result };
}

/** Funds every wallet through the admin API and gives it API credentials. */
async function enrol(clob: string, adminToken: string, traders: readonly BenchTrader[], depositMicros: readonly number[]): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let index = next++; index < traders.length; index = next++) {
      const trader = traders[index]!;
      trader.clobUrl = clob;
      await trader.createKey();
      await json(`${clob}/admin/deposits`, {
        method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ address: trader.address, amount: String(Math.ceil(depositMicros[index]!)) }),
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
}

/**
 * Signed requests for the plan: every order once; a crossing one in three is FOK and one in three
 * FAK; every tenth resting order is cancelled 200 requests later (well after its answer).
 */
function orderFlow(traders: readonly BenchTrader[], pairs: readonly [string, string][], orders: readonly PlannedOrder[]): RequestSpec[] {
  const requests: RequestSpec[] = [];
  const cancels = new Map<number, RequestSpec>();
  orders.forEach((planned, index) => {
    const trader = traders[planned.account]!;
    const crossing = planned.side === 'BUY' ? planned.priceUnits >= 6000 : planned.priceUnits <= 4000;
    const orderType = crossing ? (['FOK', 'FAK', 'GTC'] as const)[index % 3]! : 'GTC';
    const { order, orderId } = trader.signOrder({
      tokenId: pairs[planned.market]![planned.outcome]!, side: planned.side, priceUnits: planned.priceUnits, sizeMicros: planned.sizeMicros,
    });
    const body = JSON.stringify({ order, owner: trader.credentials!.apiKey, orderType });
    requests.push({ method: 'POST', path: '/order', headers: { ...trader.l2Headers('POST', '/order', body), 'content-type': 'application/json' }, body });
    if (!crossing && index % 10 === 0) {
      const cancel = JSON.stringify({ orderID: orderId });
      cancels.set(index + 200, { method: 'DELETE', path: '/order', headers: { ...trader.l2Headers('DELETE', '/order', cancel), 'content-type': 'application/json' }, body: cancel });
    }
    const due = cancels.get(index);
    if (due !== undefined) requests.push(due);
  });
  return requests;
}

async function orders(options: Options, clob: string): Promise<Row> {
  const pairs = await tokenPairs(clob, 8);
  const count = Math.max(1_000, (options.rate ?? 2_000) * options.durationS);
  const plan = makePlan(options.accounts, pairs.length, count, 7);
  const traders = makeTraders(plan);
  process.stderr.write(`funding ${traders.length} accounts and signing ${plan.setup.length + count} orders...\n`);
  await enrol(clob, options.adminToken, traders, plan.depositMicros);
  const setup = orderFlow(traders, pairs, plan.setup);
  await runLoad({ url: clob, requests: setup, connections: options.connections, durationMs: 600_000, unique: true });
  const requests = orderFlow(traders, pairs, plan.orders);
  const result = await runLoad({
    url: clob, requests, connections: options.connections, durationMs: options.durationS * 1000, ratePerSecond: options.rate,
    unique: true, label: 'orders',
  });
  return { scenario: 'orders', result };
}

interface WsRow {
  readonly scenario: 'ws';
  readonly subscribers: number;
  readonly deliveredPerSecond: number;
  readonly latency: { p50Ms: number; p99Ms: number; maxMs: number };
}

async function ws(options: Options, clob: string): Promise<WsRow> {
  const [pair] = await tokenPairs(clob, 1);
  const url = `${clob.replace(/^http/, 'ws')}/ws/market`;
  const samples: Sample[] = [];
  const subscribers: Subscriber[] = [];
  try {
    for (let index = 0; index < options.subscribers; index++) {
      const sample = index < 20 ? { latency: createHistogram(), eventType: 'price_change', messages: 0, bytes: 0 } : undefined;
      if (sample !== undefined) samples.push(sample);
      const subscriber = await subscribe(url, sample);
      subscriber.send(JSON.stringify({ assets_ids: pair, type: 'market' }));
      subscribers.push(subscriber);
    }
    const started = performance.now();
    const ticker = setInterval(() => {
      const delivered = subscribers.reduce((sum, subscriber) => sum + subscriber.frames, 0);
      process.stderr.write(`\rws  ${((performance.now() - started) / 1000).toFixed(1)}s  ${Math.round(delivered / ((performance.now() - started) / 1000))} msgs/s delivered  `);
    }, 1000);
    await new Promise((resolve) => setTimeout(resolve, options.durationS * 1000));
    clearInterval(ticker);
    process.stderr.write('\n');
    const delivered = subscribers.reduce((sum, subscriber) => sum + subscriber.frames, 0);
    const merged = createHistogram();
    for (const sample of samples) merged.add(sample.latency);
    const ms = (ns: number): number => Math.round(ns / 10_000) / 100;
    return {
      scenario: 'ws', subscribers: subscribers.length, deliveredPerSecond: Math.round(delivered / ((performance.now() - started) / 1000)),
      latency: { p50Ms: merged.count > 0 ? ms(merged.percentile(50)) : 0, p99Ms: merged.count > 0 ? ms(merged.percentile(99)) : 0, maxMs: merged.count > 0 ? ms(merged.max) : 0 },
    };
  } finally {
    for (const subscriber of subscribers) subscriber.close();
  }
}

function print(rows: readonly (Row | WsRow)[], asJson: boolean): void {
  if (asJson) {
    console.log(JSON.stringify(rows));
    return;
  }
  for (const row of rows) {
    if (row.scenario === 'ws') {
      const wsRow = row as WsRow;
      console.table([{ scenario: 'ws', subscribers: wsRow.subscribers, 'delivered msgs/s': wsRow.deliveredPerSecond, ...wsRow.latency }]);
      continue;
    }
    const { result } = row as Row;
    const { latency } = result;
    console.table([{
      scenario: row.scenario, 'req/s': Math.round(result.requestsPerSecond), requests: result.requests, 'p50 ms': latency.p50Ms,
      'p90 ms': latency.p90Ms, 'p99 ms': latency.p99Ms, 'p99.9 ms': latency.p999Ms, 'max ms': latency.maxMs,
      // Open loop (--rate): how late the generator itself sent, already inside the latencies.
      ...(result.sendLag.maxMs === 0 ? {} : { 'send lag p99 ms': result.sendLag.p99Ms }),
      statuses: Object.entries(result.statusCounts).map(([status, count]) => `${status}×${count}`).join(' '), errors: result.errors,
    }]);
  }
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = readOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
  const { clob, stop } = await target(options);
  try {
    let rows: (Row | WsRow)[];
    switch (options.scenario) {
      case 'books': rows = [await books(options, clob)]; break;
      case 'orders': rows = [await orders(options, clob)]; break;
      case 'ws': rows = [await ws(options, clob)]; break;
      case 'mixed': rows = await Promise.all([books(options, clob), orders(options, clob)]); break;
    }
    print(rows, options.json);
  } finally {
    await stop();
  }
}

await main();

// One generator's share of a load run, in two steps: `preparePart` does everything that is not
// measured (wallets funded, every order signed, setup orders sent, L2 headers made, requests
// encoded, connections and WebSockets opened), then `measure` runs the loads at once. The CLI
// prepares every generator (thread) before it starts any, so no measurement shares its thread or
// its machine with signing. Each load records into the tallies the CLI made for it (histograms
// and shared counters), which it reads for the progress line and merges for the result.
import { performance, type RecordableHistogram } from 'node:perf_hooks';
import type { BenchTrader } from '../orders/exchange.js';
import { makePlan, type PlannedOrder } from '../orders/plan.js';
import { CHAIN_ID } from '../../test/http/orders/trader.js';
import { prepareLoad, type LiveTally, type LoadResult, type PreparedLoad, type RequestSpec } from './client.js';
import { brief, LoadError } from './refusals.js';
import { freshTraders, enrol } from './wallets.js';
import { subscribe, UpgradeRefused, type Sample, type Subscriber } from './ws_client.js';

export const SCENARIOS = ['books', 'orders', 'ws', 'mixed'] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** The HTTP loads of a run, by name: reads, signed orders, and the order flow under `ws`. */
export type HttpLoadName = 'books' | 'orders' | 'ws flow';

/** The HTTP loads each scenario runs (`ws` also has its subscribers). */
export function httpLoadsOf(scenario: Scenario, flow: number): HttpLoadName[] {
  switch (scenario) {
    case 'books': return ['books'];
    case 'orders': return ['orders'];
    case 'ws': return flow > 0 ? ['ws flow'] : [];
    case 'mixed': return ['books', 'orders'];
  }
}

/** A market the run trades or reads: its two token ids, and whether its orders sign for the neg-risk exchange. */
export interface Market {
  readonly tokens: readonly [string, string];
  readonly negRisk: boolean;
}

/** WebSocket counters, at the WS_* indexes of `WsTally.counters`. */
export const WS_FRAMES = 0;
/** Subscribers whose connection ended (the server closed it, or it broke). */
export const WS_ENDED = 1;
export const WS_COUNTERS = 2;

export interface WsTally {
  /** Latency of the sampled subscribers' messages, from the `timestamp` each carries (ns). */
  readonly latency: RecordableHistogram;
  readonly counters: Int32Array;
}

export interface Tallies {
  readonly http: Partial<Record<HttpLoadName, LiveTally>>;
  readonly ws: WsTally | undefined;
}

/** One generator's share of a run: what the CLI hands a generator thread. */
export interface PartConfig {
  readonly scenario: Scenario;
  readonly clob: string;
  readonly adminToken: string | undefined;
  /** This generator's index, and how many there are. */
  readonly worker: number;
  readonly workers: number;
  readonly durationS: number;
  readonly connections: number;
  /** Requests/s of this generator (open loop); undefined for a closed loop. */
  readonly rate: number | undefined;
  /** Orders this generator signs and sends (the `orders` load). */
  readonly orders: number;
  readonly accounts: number;
  readonly subscribers: number;
  /** Of this generator's subscribers, how many decode and time their messages. */
  readonly sampled: number;
  /** Orders/s of the flow on the subscribed market (`ws`); 0 for none. */
  readonly flow: number;
  readonly markets: readonly Market[];
  readonly tallies: Tallies;
}

/** An HTTP load's figures from one generator. */
export interface HttpOutcome {
  readonly result: LoadResult;
  /** When it started sending (milliseconds since the epoch). */
  readonly startedAtMs: number;
  /** Signed orders: when the last of them was signed (milliseconds since the epoch). */
  readonly signedAtMs: number | undefined;
}

/** The subscribers' figures from one generator. */
export interface WsOutcome {
  readonly subscribers: number;
  /** Messages delivered to all of them while measuring. */
  readonly delivered: number;
  readonly elapsedMs: number;
  /** Messages the sampled subscribers timed. */
  readonly timed: number;
  /** Subscribers the server closed (or whose connection broke) while measuring, by close code ('none': no close frame). */
  readonly closed: Readonly<Record<string, number>>;
  /** The reason of the first close frame, when one came. */
  readonly closeReason: string;
  readonly startedAtMs: number;
}

export interface PartOutcome {
  readonly http: Partial<Record<HttpLoadName, HttpOutcome>>;
  readonly ws: WsOutcome | undefined;
}

export interface PreparedPart {
  /** Measures every load of the part at once. */
  measure(): Promise<PartOutcome>;
  /** Lets go of what was opened, without measuring. */
  close(): void;
}

/** The orders of a plan, signed: the POST /order body's `order`, its id, and the type it is sent with. */
interface SignedOrder {
  readonly trader: BenchTrader;
  readonly order: Record<string, unknown>;
  readonly orderId: string;
  readonly orderType: 'GTC' | 'FOK' | 'FAK';
  /** Cancel it this many requests later (every tenth resting order); 0 for never. */
  readonly cancelAfter: number;
}

/** Requests after a resting order that its cancel comes (well after its answer). */
const CANCEL_AFTER = 200;

/**
 * Signs every order of the plan (ECDSA, the costly part): a crossing one in three is FOK and one
 * in three FAK; every tenth resting one is cancelled later.
 */
function signOrders(traders: readonly BenchTrader[], markets: readonly Market[], orders: readonly PlannedOrder[], cancels: boolean): SignedOrder[] {
  return orders.map((planned, index) => {
    const trader = traders[planned.account]!;
    const market = markets[planned.market]!;
    const crossing = planned.side === 'BUY' ? planned.priceUnits >= 6000 : planned.priceUnits <= 4000;
    const orderType = crossing ? (['FOK', 'FAK', 'GTC'] as const)[index % 3]! : 'GTC';
    const { order, orderId } = trader.signOrder({
      tokenId: market.tokens[planned.outcome]!, side: planned.side, priceUnits: planned.priceUnits, sizeMicros: planned.sizeMicros, negRisk: market.negRisk,
    });
    return { trader, order, orderId, orderType, cancelAfter: cancels && !crossing && index % 10 === 0 ? CANCEL_AFTER : 0 };
  });
}

/**
 * The requests of signed orders, with their cancels, L2-signed now (an HMAC each, cheap), for a
 * run of `durationS` seconds starting about now. The server refuses a header whose timestamp is
 * more than its AUTH_WINDOW_S (30 s by default) from its clock, and these are made before the run:
 * an open loop (`spread`) stamps each request with when it is due, spread over the run as the
 * requests are, and a closed loop, whose requests go when the server lets them, stamps them all
 * with the run's middle, so a run of up to twice the window is never refused for its headers.
 */
function orderRequests(signed: readonly SignedOrder[], durationS: number, spread: boolean): RequestSpec[] {
  const requests: RequestSpec[] = [];
  const cancels = new Map<number, RequestSpec>();
  const nowS = Math.floor(Date.now() / 1000);
  signed.forEach(({ trader, order, orderId, orderType, cancelAfter }, index) => {
    const timestamp = String(nowS + (spread ? Math.floor((durationS * index) / signed.length) : Math.floor(durationS / 2)));
    const body = JSON.stringify({ order, owner: trader.credentials!.apiKey, orderType });
    requests.push({ method: 'POST', path: '/order', headers: { ...trader.l2Headers('POST', '/order', body, { timestamp }), 'content-type': 'application/json' }, body });
    if (cancelAfter > 0) {
      const cancel = JSON.stringify({ orderID: orderId });
      cancels.set(index + cancelAfter, { method: 'DELETE', path: '/order', headers: { ...trader.l2Headers('DELETE', '/order', cancel, { timestamp }), 'content-type': 'application/json' }, body: cancel });
    }
    const due = cancels.get(index);
    if (due !== undefined) requests.push(due);
  });
  return requests;
}

/** Sends the plan's setup orders (complete sets for what the accounts will sell), unmeasured; a refusal of many is a LoadError. */
async function sendSetup(config: PartConfig, signed: readonly SignedOrder[], note: (line: string) => void): Promise<void> {
  if (signed.length === 0) return;
  const result = await (await prepareLoad({
    url: config.clob, requests: orderRequests(signed, 0, false), connections: Math.min(config.connections, 16), durationMs: 600_000, unique: true,
  })).run();
  const refused = result.requests - (result.statusCounts['200'] ?? 0);
  if (refused === 0) return;
  const sample = Object.entries(result.errorSamples).map(([status, body]) => `${status} ${brief(body)}`).join('; ');
  if ((result.statusCounts['429'] ?? 0) > 0) {
    throw new LoadError(`the server's RATE_LIMITS refused ${result.statusCounts['429']} of the ${signed.length} setup orders (429): raise its order caps, or run it with RATE_LIMITS=off`);
  }
  if ((result.statusCounts['401'] ?? 0) > 0) {
    throw new LoadError(`the server refused the setup orders' L2 headers (${sample}): the server's AUTH_WINDOW_S must cover this machine's clock`);
  }
  if (refused > signed.length / 2) {
    throw new LoadError(`the server refused ${refused} of the ${signed.length} setup orders (${sample}): the load CLI signs for chain ${CHAIN_ID} `
      + 'and the exchanges of the server\'s defaults (CHAIN_ID, EXCHANGE_ADDRESS, NEG_RISK_EXCHANGE_ADDRESS)');
  }
  note(`the server refused ${refused} of the ${signed.length} setup orders (${sample}); some orders of the run may be refused for want of shares`);
}

interface PreparedHttp {
  readonly load: PreparedLoad;
  readonly signedAtMs: number | undefined;
}

/** Signed orders on `markets` from fresh funded wallets: everything up to the measured requests' encoding. */
async function prepareOrders(
  config: PartConfig, name: HttpLoadName, markets: readonly Market[], count: number, rate: number | undefined, note: (line: string) => void,
): Promise<PreparedHttp> {
  if (config.adminToken === undefined) throw new LoadError(`${name} needs --admin-token T, the server's ADMIN_TOKEN, to fund its wallets`);
  const plan = makePlan(config.accounts, markets.length, count, 7 + config.worker);
  const traders = freshTraders(plan.accounts);
  await enrol(config.clob, config.adminToken, traders, plan.depositMicros, note);
  const setup = signOrders(traders, markets, plan.setup, false);
  const orders = signOrders(traders, markets, plan.orders, name === 'orders');
  await sendSetup(config, setup, note);
  // Their L2 headers last, so that their timestamps start as close as can be to the run.
  const requests = orderRequests(orders, config.durationS, rate !== undefined);
  const signedAtMs = Date.now();
  const load = await prepareLoad({
    url: config.clob, requests, connections: config.connections, durationMs: config.durationS * 1000, ratePerSecond: rate, unique: true,
    live: config.tallies.http[name]!,
  });
  return { load, signedAtMs };
}

function prepareBooks(config: PartConfig): Promise<PreparedHttp> {
  const tokens = config.markets.flatMap((market) => market.tokens);
  const requests: RequestSpec[] = tokens.flatMap((token) => [
    { method: 'GET', path: `/book?token_id=${token}` }, { method: 'GET', path: `/price?token_id=${token}&side=BUY` },
  ]);
  return prepareLoad({
    url: config.clob, requests, connections: config.connections, durationMs: config.durationS * 1000, ratePerSecond: config.rate, live: config.tallies.http.books!,
  }).then((load) => ({ load, signedAtMs: undefined }));
}

/** A refused upgrade as the one line naming the server setting that refused it. */
function upgradeRefusal(error: UpgradeRefused, subscribers: number): LoadError {
  if (error.status === 429 && /sockets per address/.test(error.body)) {
    return new LoadError(`the server refused a WebSocket (${error.statusLine}: ${brief(error.body)}): its WS_SOCKETS_PER_IP is below --subscribers ${subscribers}; raise it, or open fewer`);
  }
  if (error.status === 429) {
    return new LoadError(`the server refused a WebSocket upgrade (${error.statusLine}): its RATE_LIMITS cap "WS upgrades" admits fewer than --subscribers ${subscribers} `
      + 'in its window; raise it in the RATE_LIMITS file, or open fewer');
  }
  return new LoadError(`the server refused a WebSocket upgrade: ${error.statusLine} ${brief(error.body)}`);
}

/** A subscriber the server closed: the one line naming the cap (a 4429 close says which). */
function closedRefusal(subscriber: Subscriber): LoadError {
  if (subscriber.closeCode === 4429) {
    return new LoadError(`the server closed a subscriber (4429 ${subscriber.closeReason}): a WebSocket cap of its RATE_LIMITS; raise it, or open fewer --subscribers`);
  }
  return new LoadError(`the server closed a subscriber while it subscribed (${subscriber.closeCode ?? 'no close frame'} ${subscriber.closeReason})`);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The ws part's subscribers, opened and subscribed, and how to measure them. */
async function prepareSubscribers(config: PartConfig, totalSubscribers: number): Promise<{ measure: () => Promise<WsOutcome>; close: () => void }> {
  const tally = config.tallies.ws!;
  const market = config.markets[0]!;
  const url = `${config.clob.replace(/^http/, 'ws')}/ws/market`;
  // The sampled subscribers share one record: the tally's histogram.
  const sample: Sample = { latency: tally.latency, eventType: 'price_change', messages: 0, bytes: 0 };
  const subscribers: Subscriber[] = [];
  const close = (): void => {
    for (const subscriber of subscribers) subscriber.close();
  };
  try {
    for (let index = 0; index < config.subscribers; index++) {
      let subscriber: Subscriber;
      try {
        subscriber = await subscribe(url, index < config.sampled ? sample : undefined);
      } catch (error) {
        if (error instanceof UpgradeRefused) throw upgradeRefusal(error, totalSubscribers);
        const code = (error as { code?: string }).code;
        throw new LoadError(`cannot open a WebSocket to ${url}: ${code ?? (error as Error).message}`);
      }
      subscribers.push(subscriber);
      subscriber.send(JSON.stringify({ assets_ids: market.tokens, type: 'market' }));
    }
    // A subscription a cap refuses is closed at once: found here, not in the figures.
    await sleep(200);
    const refused = subscribers.find((subscriber) => subscriber.ended);
    if (refused !== undefined) throw closedRefusal(refused);
  } catch (error) {
    close();
    throw error;
  }
  const measure = async (): Promise<WsOutcome> => {
    tally.latency.reset();
    sample.messages = 0;
    const framesBefore = subscribers.reduce((sum, subscriber) => sum + subscriber.frames, 0);
    const startedAtMs = Date.now();
    const started = performance.now();
    const count = (): void => {
      tally.counters[WS_FRAMES] = subscribers.reduce((sum, subscriber) => sum + subscriber.frames, 0) - framesBefore;
      tally.counters[WS_ENDED] = subscribers.reduce((sum, subscriber) => sum + (subscriber.ended ? 1 : 0), 0);
    };
    const ticker = setInterval(count, 200);
    await sleep(config.durationS * 1000);
    clearInterval(ticker);
    count();
    const elapsedMs = performance.now() - started;
    const closed: Record<string, number> = {};
    let closeReason = '';
    for (const subscriber of subscribers) {
      if (!subscriber.ended) continue;
      const code = String(subscriber.closeCode ?? 'none');
      closed[code] = (closed[code] ?? 0) + 1;
      if (closeReason === '' && subscriber.closeReason !== '') closeReason = subscriber.closeReason;
    }
    return { subscribers: subscribers.length, delivered: tally.counters[WS_FRAMES]!, elapsedMs, timed: sample.messages, closed, closeReason, startedAtMs };
  };
  return { measure, close };
}

/** Prepares this generator's share of the run; `note` reports what the preparation had to wait for. */
export async function preparePart(config: PartConfig, totalSubscribers: number, note: (line: string) => void): Promise<PreparedPart> {
  const prepared: Partial<Record<HttpLoadName, PreparedHttp>> = {};
  let subscribers: Awaited<ReturnType<typeof prepareSubscribers>> | undefined;
  const close = (): void => {
    for (const part of Object.values(prepared)) part.load.close();
    subscribers?.close();
  };
  try {
    for (const name of httpLoadsOf(config.scenario, config.flow)) {
      if (name === 'books') prepared.books = await prepareBooks(config);
      else if (name === 'orders') prepared.orders = await prepareOrders(config, name, config.markets, config.orders, config.rate, note);
      else prepared[name] = await prepareOrders(config, name, config.markets.slice(0, 1), Math.ceil(config.flow * config.durationS), config.flow, note);
    }
    if (config.scenario === 'ws') subscribers = await prepareSubscribers(config, totalSubscribers);
  } catch (error) {
    close();
    throw error;
  }
  const measure = async (): Promise<PartOutcome> => {
    const runs = Object.entries(prepared).map(async ([name, part]) => {
      const startedAtMs = Date.now();
      const result = await part.load.run();
      return [name, { result, startedAtMs, signedAtMs: part.signedAtMs }] as const;
    });
    const [http, ws] = await Promise.all([Promise.all(runs), subscribers?.measure()]);
    subscribers?.close();
    return { http: Object.fromEntries(http), ws };
  };
  return { measure, close };
}

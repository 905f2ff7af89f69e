// WebSocket fan-out (issue 8): subscribers on one market's two tokens receive its price changes
// while an order flow of 1 000 orders/s runs on that market inside the server; then, in the same
// run, uWS's own publish of messages of the same size, at the same rate, to the same subscribers.
// Reports delivered messages/s as a ratio of the raw publish, and latency from each message's
// `timestamp` (when the server published it: after the durable commit, before the order's ack is
// written, so an upper bound of the latency from the ack) on a sample of subscribers, in whole
// milliseconds. Goal: 1 000 subscribers, p99 <= 5 ms.
import { createHistogram } from 'node:perf_hooks';
import { subscribe, type Sample, type Subscriber } from './load/ws_client.js';
import { flowPath, publishPath, spawnBenchServer } from './support/spawn.js';

const FLOW_ORDERS_PER_SECOND = 1_000;
const GOAL_P99_MS = 5;

export interface WsPhase {
  readonly name: string;
  readonly deliveredPerSecond: number;
  readonly messagesPerSubscriberPerSecond: number;
  readonly averageBytes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface WsFigures {
  readonly subscribers: number;
  readonly ordersPerSecond: number;
  readonly flow: WsPhase;
  readonly raw: WsPhase;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function measure(name: string, subscribers: readonly Subscriber[], samples: readonly Sample[], eventType: string, seconds: number): Promise<WsPhase> {
  for (const sample of samples) {
    sample.latency.reset();
    sample.eventType = eventType;
    sample.messages = 0;
    sample.bytes = 0;
  }
  const framesBefore = subscribers.reduce((sum, subscriber) => sum + subscriber.frames, 0);
  const started = performance.now();
  await sleep(seconds * 1000);
  const elapsedS = (performance.now() - started) / 1000;
  const delivered = subscribers.reduce((sum, subscriber) => sum + subscriber.frames, 0) - framesBefore;
  const merged = createHistogram();
  for (const sample of samples) merged.add(sample.latency);
  const sampled = samples.reduce((sum, sample) => sum + sample.messages, 0);
  const ms = (value: number): number => Math.round(value / 10_000) / 100;
  return {
    name, deliveredPerSecond: Math.round(delivered / elapsedS),
    messagesPerSubscriberPerSecond: Math.round((sampled / Math.max(1, samples.length) / elapsedS) * 10) / 10,
    averageBytes: Math.round(samples.reduce((sum, sample) => sum + sample.bytes, 0) / Math.max(1, sampled)),
    p50Ms: merged.count > 0 ? ms(merged.percentile(50)) : 0, p99Ms: merged.count > 0 ? ms(merged.percentile(99)) : 0,
    maxMs: merged.count > 0 ? ms(merged.max) : 0,
  };
}

/** `env`: the server's further settings (the front-ends suite runs this with FRONT_ENDS=1 and N). */
export async function benchWs(quick: boolean, env: Readonly<Record<string, string>> = {}): Promise<WsFigures> {
  const subscriberCount = quick ? 100 : 1_000;
  const sampled = quick ? 10 : 40;
  const seconds = quick ? 3 : 10;
  const server = await spawnBenchServer({
    BENCH_ORDER_FLOW: String(FLOW_ORDERS_PER_SECOND), BENCH_FLOW_MARKETS: '1', WS_SOCKETS_PER_IP: String(subscriberCount + 10), ...env,
  });
  const subscribers: Subscriber[] = [];
  try {
    const flow = (await (await fetch(`${server.urls.clob}${flowPath}`)).json()) as { markets: string[] };
    const market = (await (await fetch(`${server.urls.clob}/markets/${flow.markets[0]}`)).json()) as { tokens: { token_id: string }[] };
    const tokens = market.tokens.map((token) => token.token_id);
    const url = `${server.urls.clob.replace('http', 'ws')}/ws/market`;
    const samples: Sample[] = [];
    for (let index = 0; index < subscriberCount; index += 50) {
      const batch = await Promise.all(Array.from({ length: Math.min(50, subscriberCount - index) }, (_, offset) => {
        const sample = index + offset < sampled ? { latency: createHistogram(), eventType: 'price_change', messages: 0, bytes: 0 } : undefined;
        if (sample !== undefined) samples.push(sample);
        return subscribe(url, sample);
      }));
      for (const subscriber of batch) subscriber.send(JSON.stringify({ assets_ids: tokens, type: 'market' }));
      subscribers.push(...batch);
    }
    await sleep(2_000);
    const placedBefore = ((await (await fetch(`${server.urls.clob}${flowPath}`)).json()) as { placed: number }).placed;
    const flowStarted = performance.now();
    const flowPhase = await measure('price changes under the order flow', subscribers, samples, 'price_change', seconds);
    const placed = ((await (await fetch(`${server.urls.clob}${flowPath}?stop=1`)).json()) as { placed: number }).placed - placedBefore;
    const ordersPerSecond = Math.round(placed / ((performance.now() - flowStarted) / 1000));
    await sleep(1_500);
    // The same subscribers, the same message size and rate (every message kind the flow caused),
    // published by uWS itself to one token's topic.
    const rate = Math.max(1, Math.round(flowPhase.deliveredPerSecond / subscriberCount));
    const query = new URLSearchParams({ topic: `m:${tokens[0]}`, bytes: String(Math.max(64, flowPhase.averageBytes)), count: String(rate * (seconds + 1)), rate: String(rate) });
    await fetch(`${server.urls.clob}${publishPath}?${query}`);
    const raw = await measure('uWS publish, same size and rate', subscribers, samples, 'bench', seconds);
    return { subscribers: subscriberCount, ordersPerSecond, flow: flowPhase, raw };
  } finally {
    for (const subscriber of subscribers) subscriber.close();
    await server.stop();
  }
}

export function printWs(figures: WsFigures): void {
  console.log(`\nWebSocket fan-out: ${figures.subscribers} subscribers of one market's two tokens, ${figures.ordersPerSecond} orders/s on it`);
  console.table([figures.flow, figures.raw].map((phase) => ({
    phase: phase.name, 'delivered msgs/s': phase.deliveredPerSecond, 'msgs/s per subscriber': phase.messagesPerSubscriberPerSecond,
    'avg bytes': phase.averageBytes, 'p50 ms': phase.p50Ms, 'p99 ms': phase.p99Ms, 'max ms': phase.maxMs,
  })));
  const ratio = figures.flow.deliveredPerSecond / Math.max(1, figures.raw.deliveredPerSecond);
  console.log(`delivered msgs/s vs uWS's own publish: ${ratio.toFixed(2)}`);
  const met = figures.flow.p99Ms <= GOAL_P99_MS && figures.subscribers >= 1_000;
  console.log(`goal: ${figures.subscribers} subscribers, p99 <= ${GOAL_P99_MS} ms from publication (before the ack): ${met ? 'met' : 'NOT met'} (p99 ${figures.flow.p99Ms} ms)`);
}

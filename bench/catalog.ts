// Catalog read throughput against the ceiling of a raw uWS hello-world route served by the same
// server process in the same run: GET /events?limit=20, GET /markets/slug/{slug} (every demo
// market in turn) and GET /events/{id}. Goal: single reads >= 0.6 of the ceiling.
//
// Two figures per route: requests/s seen by the load generator, and the server's capacity,
// requests per second of server CPU. On this 2-core machine the Node load generator can
// saturate its core before the server does, which would compress the throughput ratio toward
// 1; the capacity ratio does not depend on who saturates first, so the goal is judged on it.
import { runLoad, type LoadResult, type RequestSpec } from './load/client.js';
import { helloPath, spawnBenchServer } from './support/spawn.js';

export interface RouteFigures {
  readonly name: string;
  readonly requestsPerSecond: number;
  readonly throughputRatio: number;
  /** Requests per second of server CPU time. */
  readonly capacity: number;
  readonly capacityRatio: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non200: number;
}

interface Measured {
  readonly result: LoadResult;
  readonly capacity: number;
}

const goalSingleRead = 0.6;
/** Each case runs this long before measuring, so JIT and caches are warm for all of them. */
const warmupMs = 500;

function non200(result: LoadResult): number {
  return Object.entries(result.statusCounts).reduce((sum, [status, count]) => (status === '200' ? sum : sum + count), 0);
}

export interface Case {
  readonly name: string;
  readonly requests: readonly RequestSpec[];
}

/**
 * Runs each case `rounds` times, alternating, and keeps each case's best round, so a burst of
 * noise from other work on this shared machine does not decide a ratio. The first case is the
 * baseline every ratio is taken against.
 */
export async function measureAgainstBaseline(url: string, cpuSeconds: () => number, cases: readonly Case[], quick: boolean): Promise<RouteFigures[]> {
  const durationMs = quick ? 1_000 : 8_000;
  const rounds = quick ? 1 : 2;
  const best = new Map<string, Measured>();
  for (const entry of cases) await runLoad({ url, requests: entry.requests, connections: 32, durationMs: warmupMs });
  for (let round = 0; round < rounds; round++) {
    for (const entry of cases) {
      const cpuBefore = cpuSeconds();
      const result = await runLoad({ url, requests: entry.requests, connections: 32, durationMs, label: quick ? undefined : entry.name });
      const capacity = result.requests / Math.max(0.01, cpuSeconds() - cpuBefore);
      const previous = best.get(entry.name);
      if (previous === undefined || capacity > previous.capacity) best.set(entry.name, { result, capacity });
    }
  }
  const baseline = best.get(cases[0]?.name ?? '') as Measured;
  return cases.map(({ name }) => {
    const { result, capacity } = best.get(name) as Measured;
    return {
      name,
      requestsPerSecond: Math.round(result.requestsPerSecond),
      throughputRatio: result.requestsPerSecond / baseline.result.requestsPerSecond,
      capacity: Math.round(capacity),
      capacityRatio: capacity / baseline.capacity,
      p50Ms: result.latency.p50Ms,
      p99Ms: result.latency.p99Ms,
      non200: non200(result),
    };
  });
}

export async function benchCatalog(quick: boolean): Promise<RouteFigures[]> {
  const server = await spawnBenchServer();
  try {
    const markets = (await (await fetch(`${server.urls.catalog}/markets?limit=500`)).json()) as { slug: string }[];
    const events = (await (await fetch(`${server.urls.catalog}/events?limit=500`)).json()) as { id: string }[];
    const cases: Case[] = [
      { name: 'raw uWS hello (ceiling)', requests: [{ method: 'GET', path: helloPath }] },
      { name: 'GET /events?limit=20', requests: [{ method: 'GET', path: '/events?limit=20' }] },
      { name: 'GET /markets/slug/{slug}', requests: markets.map((market) => ({ method: 'GET', path: `/markets/slug/${market.slug}` })) },
      { name: 'GET /events/{id}', requests: events.map((event) => ({ method: 'GET', path: `/events/${event.id}` })) },
    ];
    return await measureAgainstBaseline(server.urls.catalog, () => server.cpuSeconds(), cases, quick);
  } finally {
    await server.stop();
  }
}

export function printFigures(title: string, rows: readonly RouteFigures[]): void {
  console.log(`\n${title}`);
  console.table(
    rows.map((row) => ({
      route: row.name,
      'req/s': row.requestsPerSecond,
      'vs ceiling': row.throughputRatio.toFixed(2),
      'req per server CPU s': row.capacity,
      'capacity vs ceiling': row.capacityRatio.toFixed(2),
      'p50 ms': row.p50Ms,
      'p99 ms': row.p99Ms,
      'non-200': row.non200,
    })),
  );
}

export function printCatalog(rows: readonly RouteFigures[]): void {
  printFigures('catalog reads vs raw uWS hello-world (same process, same run)', rows);
  for (const row of rows.filter((entry) => entry.name.includes('{'))) {
    const met = row.capacityRatio >= goalSingleRead ? 'met' : 'NOT met';
    console.log(`goal: ${row.name} capacity >= ${goalSingleRead} of the ceiling: ${met} (${row.capacityRatio.toFixed(2)})`);
  }
}

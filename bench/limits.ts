// The cost of a switchable feature on the hottest read, GET /book, against the same route with
// the feature off, in the same run; the servers run one after the other, alternating, best of
// the rounds; capacity is requests per second of the server's main thread.
// - limits (issue 7): request caps on (the defaults, raised far enough that nothing is refused,
//   so every request pays the full check: its endpoint's bucket and the listener's combined one)
//   against RATE_LIMITS=off. Goal >= 0.9.
// - metrics (issue 9): bench/metrics.ts, which also measures POST /order.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureAgainstBaseline, printFigures, type RouteFigures } from './catalog.js';
import { helloPath, spawnBenchServer, threadCpuSeconds } from './support/spawn.js';
import { readTokens } from './support/tokens.js';

const GOAL = 0.9;
/** Enough that a benchmark never runs out, small enough that the arithmetic is the real one. */
const UNREACHABLE = { requests: 1_000_000_000, windowSeconds: 10 };

async function measure(env: Readonly<Record<string, string>>, quick: boolean): Promise<RouteFigures[]> {
  const server = await spawnBenchServer(env);
  try {
    const tokens = await readTokens(server.urls.clob);
    const mainThread = (): number => threadCpuSeconds(server.pid).get(server.pid) ?? 0;
    return await measureAgainstBaseline(server.urls.clob, mainThread, [
      { name: 'raw uWS hello (ceiling)', requests: [{ method: 'GET', path: helloPath }] },
      { name: 'GET /book', requests: tokens.map((token) => ({ method: 'GET', path: `/book?token_id=${token}` })) },
    ], quick);
  } finally {
    await server.stop();
  }
}

export interface SwitchFigures {
  readonly feature: string;
  readonly goal: number;
  readonly off: RouteFigures[];
  readonly on: RouteFigures[];
}

export async function compareSwitch(
  feature: string, goal: number, offEnv: Readonly<Record<string, string>>, onEnv: Readonly<Record<string, string>>, quick: boolean,
): Promise<SwitchFigures> {
  // Capacity only ever reads low (a preempted core, a slow start), so the best of several
  // alternating rounds per server is the estimate; two proved too few on this VM.
  const rounds = quick ? 1 : 4;
  let off: RouteFigures[] | undefined;
  let on: RouteFigures[] | undefined;
  const better = (a: RouteFigures[] | undefined, b: RouteFigures[]): RouteFigures[] => (a === undefined || b[1]!.capacity > a[1]!.capacity ? b : a);
  for (let round = 0; round < rounds; round++) {
    off = better(off, await measure(offEnv, quick));
    on = better(on, await measure(onEnv, quick));
  }
  return { feature, goal, off: off!, on: on! };
}

export async function benchLimits(quick: boolean): Promise<SwitchFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'clobd-caps-'));
  const capsFile = join(dir, 'caps.json');
  writeFileSync(capsFile, JSON.stringify({ 'GET /book': UNREACHABLE, trading: UNREACHABLE }));
  try {
    return await compareSwitch('request caps', GOAL, { RATE_LIMITS: 'off' }, { RATE_LIMITS: capsFile }, quick);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printSwitch(figures: SwitchFigures): void {
  printFigures(`GET /book with ${figures.feature} off`, figures.off);
  printFigures(`GET /book with ${figures.feature} on`, figures.on);
  const book = (rows: RouteFigures[]): RouteFigures => rows.find((row) => row.name === 'GET /book')!;
  const ratio = book(figures.on).capacity / book(figures.off).capacity;
  const normalized = book(figures.on).capacityRatio / book(figures.off).capacityRatio;
  const verdict = ratio >= figures.goal ? 'met' : 'NOT met';
  console.log(`goal: GET /book capacity with ${figures.feature} >= ${figures.goal} of without: ${verdict} (${ratio.toFixed(2)}; against each run's own hello ceiling ${normalized.toFixed(2)})`);
}

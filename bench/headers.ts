// What answering Polymarket's header names on the default CLOB port costs (issue 40). The official
// clients send POLY_ADDRESS, POLY_SIGNATURE, ...; the uWS parser is patched to take '_' in a name
// (tools/patch_uws.mjs) and the router reads those spellings only when no hyphen one came. So the
// hyphen path (SERVICE-ADDRESS, ...) is the baseline and each figure is a ratio against it, in the
// same run:
// - GET /book carrying five credential headers, spelled either way (the route reads none of them:
//   this is the parser's share, the byte-wise loop a name with '_' takes);
// - POST /order, signed, HMAC-authenticated and durable, the same pre-signed orders replayed on a
//   fresh server per spelling, alternating rounds (the parser's share plus the router's second
//   set of header reads).
// Capacity is requests per second of the server's main thread, the front end where both run.
import { measureAgainstBaseline, printFigures, type RouteFigures } from './catalog.js';
import { allAnswered, alternateOrderRuns, FULL_ORDERS, QUICK_ORDERS, type OrderRun, type Spelling } from './metrics.js';
import { format } from './support/format.js';
import { helloPath, spawnBenchServer, threadCpuSeconds } from './support/spawn.js';
import { readTokens } from './support/tokens.js';

/** Goal: the default URL costs an official client at most 5 % of the hyphen path's capacity. */
const GOAL = 0.95;

/** SERVICE-API-KEY → POLY_API_KEY: the names as Polymarket's official clients send them. */
export const polySpelling: Spelling = (headers) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [/^service-/i.test(name) ? `POLY_${name.slice('service-'.length).replaceAll('-', '_').toUpperCase()}` : name, value]));

const hyphenSpelling: Spelling = (headers) => ({ ...headers });

/** Five credential headers with realistic values, as a bot's HTTP session may attach to every request. */
const CREDENTIALS: Readonly<Record<string, string>> = {
  'SERVICE-ADDRESS': '0x6e0c5b3a4f0e2d9a7b8c1d2e3f4a5b6c7d8e9f00', 'SERVICE-API-KEY': '0b6d2c1e-8f4a-4b3c-9d2e-1f0a9b8c7d6e',
  'SERVICE-PASSPHRASE': 'a3f1c9e7b5d3f1a9c7e5b3d1f9a7c5e3b1d9f7a5c3e1b9d7f5a3c1e9b7d5f3a1', 'SERVICE-TIMESTAMP': '1764300000',
  'SERVICE-SIGNATURE': 'Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmE=',
};

export interface HeaderFigures {
  readonly goal: number;
  readonly book: RouteFigures[];
  readonly orders: { readonly hyphen: OrderRun; readonly poly: OrderRun; readonly measuredOrders: number; readonly rounds: number };
}

async function benchBook(quick: boolean): Promise<RouteFigures[]> {
  const server = await spawnBenchServer();
  try {
    const tokens = await readTokens(server.urls.clob);
    const books = (spell: Spelling) => tokens.map((token) => ({ method: 'GET', path: `/book?token_id=${token}`, headers: spell(CREDENTIALS) }));
    const mainThread = (): number => threadCpuSeconds(server.pid).get(server.pid) ?? 0;
    return await measureAgainstBaseline(server.urls.clob, mainThread, [
      { name: 'raw uWS hello (ceiling)', requests: [{ method: 'GET', path: helloPath }] },
      { name: 'GET /book, SERVICE-ADDRESS ...', requests: books(hyphenSpelling) },
      { name: 'GET /book, POLY_ADDRESS ...', requests: books(polySpelling) },
    ], quick);
  } finally {
    await server.stop();
  }
}

async function benchOrders(quick: boolean): Promise<HeaderFigures['orders']> {
  const sizes = quick ? QUICK_ORDERS : FULL_ORDERS;
  const [hyphen, poly] = await alternateOrderRuns(
    sizes, { env: {}, spell: hyphenSpelling }, { env: {}, spell: polySpelling, check: allAnswered('POST /order with POLY_ header names') },
  );
  return { hyphen, poly, measuredOrders: sizes.measuredOrders, rounds: sizes.rounds };
}

export async function benchHeaders(quick: boolean): Promise<HeaderFigures> {
  return { goal: GOAL, book: await benchBook(quick), orders: await benchOrders(quick) };
}

export function printHeaders(figures: HeaderFigures): void {
  printFigures('GET /book with five credential headers, hyphen and POLY_ spellings', figures.book);
  const [, hyphenBook, polyBook] = figures.book;
  const bookRatio = polyBook!.capacity / hyphenBook!.capacity;
  const { hyphen, poly, measuredOrders, rounds } = figures.orders;
  console.log(`POST /order, ${format(measuredOrders)} signed orders per server, best of ${rounds} alternating round(s)`);
  for (const [name, run] of [['SERVICE-ADDRESS ...', hyphen], ['POLY_ADDRESS ...   ', poly]] as const) {
    console.log(
      `  ${name} ${format(run.ordersPerSecond).padStart(7)} orders/s  main thread ${format(run.capacity).padStart(7)} orders/CPU-s` +
      `  p50 ${format(run.p50Ms, 2)} ms p99 ${format(run.p99Ms, 2)} ms${run.non200 > 0 ? `  non-200 ${run.non200}` : ''}`,
    );
  }
  const orderRatio = poly.capacity / hyphen.capacity;
  const verdict = (ratio: number): string => (ratio >= figures.goal ? 'met' : 'NOT met');
  console.log(`goal: GET /book main-thread capacity with POLY_ names >= ${figures.goal} of the hyphen path: ${verdict(bookRatio)} (${bookRatio.toFixed(2)})`);
  console.log(`goal: POST /order main-thread capacity with POLY_ names >= ${figures.goal} of the hyphen path: ${verdict(orderRatio)} (${orderRatio.toFixed(2)}; orders/s ${(poly.ordersPerSecond / hyphen.ordersPerSecond).toFixed(2)})`);
}

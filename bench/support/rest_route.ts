// The bench server's rest route (BENCH_REST_ROUTE=1): rests `count` minimum-size BUYs of one
// market's outcome at a price through the internal trading client, from accounts it funds itself
// (test/http/trading/support.ts, restOrders: ~50 000 orders a second here, where signed orders
// over HTTP would take minutes). A taker sent afterwards over HTTP then gets `count` fills in one
// answer, which is how a benchmark makes an account with thousands of fills quickly.
//
//   GET /__bench/rest?market=<condition id>&outcome=0&price=<units of 0.0001>&count=N&first=<account index>&prefix=<id prefix>
import type { Server } from '../../http/server.js';
import type { TemplatedApp } from '../../http/uws.js';
import { restOrders } from '../../test/http/trading/support.js';

export const restPath = '/__bench/rest';

/** Orders one call may rest: the largest seed a benchmark here needs, with room to spare. */
const REST_COUNT_MAX = 200_000;

function integerOf(text: string | undefined, name: string, max: number): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0 || value > max) throw new Error(`${name} must be an integer 0..${max}`);
  return value;
}

export function addRestRoute(app: TemplatedApp, server: () => Server | undefined): void {
  app.get(restPath, (res, req) => {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    const answer = (status: string, body: string): void => {
      if (!aborted) res.cork(() => res.writeStatus(status).writeHeader('content-type', 'application/json').end(body));
    };
    try {
      const running = server();
      if (running === undefined) throw new Error('the server is still starting');
      const market = req.getQuery('market') ?? '';
      const outcome = integerOf(req.getQuery('outcome'), 'outcome', 1);
      const priceUnits = integerOf(req.getQuery('price'), 'price', 10_000);
      const count = integerOf(req.getQuery('count'), 'count', REST_COUNT_MAX);
      const firstAccount = integerOf(req.getQuery('first'), 'first', 1_000_000);
      const prefix = integerOf(req.getQuery('prefix'), 'prefix', 0xffff_ffff);
      restOrders(running.trading.client, market, outcome, priceUnits, count, firstAccount, prefix).then(
        (ids) => answer('200 OK', JSON.stringify({ rested: ids.length })),
        (error: unknown) => answer('500 Internal Server Error', JSON.stringify({ error: String(error) })),
      );
    } catch (error) {
      answer('400 Bad Request', JSON.stringify({ error: String(error) }));
    }
  });
}

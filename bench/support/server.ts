// The server a benchmark measures: the real clobd server (same config, same routes), plus a raw
// uWS hello-world route on every listener, served by the same process, as the ceiling that the
// real routes are reported against. Run as a child process; prints the usual ready line.
// BENCH_ORDER_FLOW=<orders per second> also runs an order flow on the demo markets while it
// serves (bench/market/order_flow.ts; BENCH_FLOW_MARKETS=<n> keeps it to the first n); its counts
// and markets are on the flow route, and `?stop=1` stops it. The publish route makes uWS publish
// `count` messages of `bytes` bytes to a topic, `rate` per second, each carrying its send time
// (the WebSocket benchmark's baseline). BENCH_ORDER_FLOOR=1 adds the order benchmark's floor
// route (bench/orders/floor.ts). BENCH_REST_ROUTE=1 adds the rest route to the CLOB listener:
// it rests many minimum-size BUYs through the internal trading client, far faster than signed
// orders over HTTP, so a benchmark can give an account thousands of fills in a second
// (bench/support/rest_route.ts). With COMPAT_PORT set the ready line also names the
// compatibility listener. It stops when the benchmark that started it ends.
import { rmSync } from 'node:fs';
import { basename } from 'node:path';
import { loadConfig, parseArgv } from '../../http/config.js';
import { createLogger } from '../../http/log.js';
import { startServer } from '../../http/server.js';
import { startOrderFlow, type FlowCounts } from '../market/order_flow.js';
import { addOrderFloor } from '../orders/floor.js';
import { BENCH_DATA_DIR_PREFIX, flowPath, helloPath, publishPath } from './spawn.js';
import type { Server } from '../../http/server.js';

const { flags } = parseArgv(process.argv.slice(2));
const config = loadConfig(process.env, flags);
let counts: FlowCounts = { placed: 0, filled: 0, refused: 0 };
let flowMarkets: string[] = [];
let stopFlow = (): void => undefined;
let closeFloor = (): Promise<void> => Promise.resolve();
let floorOpened = false;
// Loaded only when asked for: it brings the trading tests' helpers with it.
const addRestRoute = process.env['BENCH_REST_ROUTE'] === '1' ? (await import('./rest_route.js')).addRestRoute : undefined;
// The rest route needs the server, which is not there yet while its listeners are decorated.
let started: Server | undefined;
const server = await startServer(config, createLogger(config.logLevel), {
  decorate: (name, app) => {
    // Decorated twice with FRONT_ENDS > 1 (the main thread's app, then its stand-in for the
    // other threads): the floor is opened once, on the main thread's.
    if (name === 'clob' && process.env['BENCH_ORDER_FLOOR'] === '1' && !floorOpened) {
      floorOpened = true;
      closeFloor = addOrderFloor(app, config.dataDir);
    }
    if (name === 'clob' && addRestRoute !== undefined) addRestRoute(app, () => started);
    app.get(helloPath, (res) => {
      res.end('Hello World!');
    });
    app.get(flowPath, (res, req) => {
      if (req.getQuery('stop') === '1') stopFlow();
      res.end(JSON.stringify({ ...counts, markets: flowMarkets }));
    });
    app.get(publishPath, (res, req) => {
      const topic = req.getQuery('topic') ?? '';
      const bytes = Number(req.getQuery('bytes'));
      const count = Number(req.getQuery('count'));
      const rate = Number(req.getQuery('rate'));
      let sent = 0;
      const begun = Date.now();
      const timer = setInterval(() => {
        const due = Math.min(count, Math.floor(((Date.now() - begun) * rate) / 1000));
        for (; sent < due; sent++) {
          const head = `{"event_type":"bench","timestamp":"${Date.now()}","pad":"`;
          started?.publish(topic, head + 'x'.repeat(Math.max(0, bytes - head.length - 2)) + '"}');
        }
        if (sent >= count) clearInterval(timer);
      }, 1);
      res.end(JSON.stringify({ topic, bytes, count, rate }));
    });
  },
});
started = server;
const rate = Number(process.env['BENCH_ORDER_FLOW'] ?? '0');
const marketsLimit = Number(process.env['BENCH_FLOW_MARKETS'] ?? '0');
flowMarkets = server.trading.client.marketKeys().slice(0, marketsLimit > 0 ? marketsLimit : undefined);
const flow = rate > 0 ? startOrderFlow(server.trading, flowMarkets, rate) : undefined;
if (flow !== undefined) {
  counts = flow.counts;
  stopFlow = () => flow.stop();
}
const compat = server.compatUrl === undefined ? '' : ` compat=${server.compatUrl}`;
process.stdout.write(`listening clob=${server.urls.clob} catalog=${server.urls.catalog} data=${server.urls.data}${compat}\n`);
let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  flow?.stop();
  Promise.all([closeFloor(), server.stop()]).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The benchmark that spawned this server holds the other end of stdin. When it ends without
// stopping the server (an exception, a kill, a `timeout`), the pipe closes: the server stops too,
// and removes the temporary DATA_DIR its parent made, instead of running on, orphaned, and taking
// CPU from every later measurement on the machine.
process.stdin.on('end', () => {
  stop();
  const dataDir = config.dataDir;
  process.on('exit', () => {
    if (basename(dataDir).startsWith(BENCH_DATA_DIR_PREFIX)) rmSync(dataDir, { recursive: true, force: true });
  });
});
process.stdin.resume();

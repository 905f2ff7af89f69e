// The server a benchmark measures: the real clobd server (same config, same routes), plus a raw
// uWS hello-world route on every listener, served by the same process, as the ceiling that the
// real routes are reported against. Run as a child process; prints the usual ready line.
// BENCH_ORDER_FLOW=<orders per second> also runs an order flow on the demo markets while it
// serves (bench/market/order_flow.ts); its counts are on the flow route.
import { loadConfig, parseArgv } from '../../http/config.js';
import { createLogger } from '../../http/log.js';
import { startServer } from '../../http/server.js';
import { startOrderFlow, type FlowCounts } from '../market/order_flow.js';
import { flowPath, helloPath } from './spawn.js';

const { flags } = parseArgv(process.argv.slice(2));
const config = loadConfig(process.env, flags);
let counts: FlowCounts = { placed: 0, filled: 0, refused: 0 };
const server = await startServer(config, createLogger(config.logLevel), {
  decorate: (_name, app) => {
    app.get(helloPath, (res) => {
      res.end('Hello World!');
    });
    app.get(flowPath, (res) => {
      res.end(JSON.stringify(counts));
    });
  },
});
const rate = Number(process.env['BENCH_ORDER_FLOW'] ?? '0');
const flow = rate > 0 ? startOrderFlow(server.trading, server.trading.client.marketKeys(), rate) : undefined;
if (flow !== undefined) counts = flow.counts;
process.stdout.write(`listening clob=${server.urls.clob} catalog=${server.urls.catalog} data=${server.urls.data}\n`);
const stop = (): void => {
  flow?.stop();
  server.stop().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

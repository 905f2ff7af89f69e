// The server a benchmark measures: the real clobd server (same config, same routes), plus a raw
// uWS hello-world route on every listener, served by the same process, as the ceiling that the
// real routes are reported against. Run as a child process; prints the usual ready line.
import { loadConfig, parseArgv } from '../../http/config.js';
import { createLogger } from '../../http/log.js';
import { startServer } from '../../http/server.js';
import { helloPath } from './spawn.js';

const { flags } = parseArgv(process.argv.slice(2));
const config = loadConfig(process.env, flags);
const server = await startServer(config, createLogger(config.logLevel), {
  decorate: (_name, app) => {
    app.get(helloPath, (res) => {
      res.end('Hello World!');
    });
  },
});
process.stdout.write(`listening clob=${server.urls.clob} catalog=${server.urls.catalog} data=${server.urls.data}\n`);
const stop = (): void => {
  server.stop().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

// Entry point. `node dist/http/main.js [serve]` runs the exchange; `... import <file>` loads a
// Gamma-shaped catalog file into DATA_DIR; `... docs <dir>` writes the Markdown reference of
// each listener (npm run docs). Settings come from the environment and flags.
import { CatalogStore } from './catalog/store.js';
import { importFile } from './catalog/import.js';
import { ConfigError, loadConfig, parseArgv, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { writeReference } from './reference.js';
import { startServer } from './server.js';

async function serve(config: Config, log: Logger): Promise<void> {
  const server = await startServer(config, log);
  process.stdout.write(`listening clob=${server.urls.clob} catalog=${server.urls.catalog} data=${server.urls.data}\n`);
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info('shutdown_started', { signal });
    server.stop().then(
      () => {
        log.info('shutdown_complete', {});
        process.exit(0);
      },
      (error: unknown) => {
        log.error('shutdown_failed', { message: error instanceof Error ? error.message : String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function runImport(config: Config, path: string | undefined): Promise<void> {
  if (path === undefined) throw new ConfigError('usage: import <file>');
  const store = CatalogStore.open(config.dataDir);
  try {
    const summary = await importFile(store, path, Date.now());
    process.stdout.write(JSON.stringify({ imported: summary }) + '\n');
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const { flags, positional } = parseArgv(process.argv.slice(2));
  const config = loadConfig(process.env, flags);
  const log = createLogger(config.logLevel);
  const [command = 'serve', ...rest] = positional;
  if (command === 'serve') return serve(config, log);
  if (command === 'import') return runImport(config, rest[0]);
  if (command === 'docs') {
    if (rest[0] === undefined) throw new ConfigError('usage: docs <directory>');
    for (const path of await writeReference(rest[0])) process.stdout.write(`wrote ${path}\n`);
    return;
  }
  throw new ConfigError(`unknown command "${command}" (expected serve, import <file> or docs <directory>)`);
}

main().catch((error: unknown) => {
  process.stderr.write(`clobd: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});

// Entry point. `node dist/http/main.js [serve]` runs the exchange; `... verify` checks DATA_DIR
// offline (exit 0 with a report when it is sound, 2 with what is wrong); `... import <file>`
// loads a Gamma-shaped catalog file into DATA_DIR; `... docs <dir>` writes the Markdown reference
// of each listener (npm run docs); `... backup <dir>` has the server running on DATA_DIR copy
// every store at one cut, and `... restore <backup> [<data dir>]` brings a backup back
// (http/backup/commands.ts). Settings come from the environment and flags. A damaged data
// directory, like an invalid setting, exits with code 2 and one line on stderr.
import { performance } from 'node:perf_hooks';
import { CATALOG_STORE, CatalogStore } from './catalog/store.js';
import { importFile } from './catalog/import.js';
import { runBackup, runRestore } from './backup/commands.js';
import { ConfigError, loadConfig, parseArgv, type Config } from './config.js';
import { DataDirDamaged, refuseIfAny } from './data_dir/damage.js';
import { inspectDataDir } from './data_dir/directory.js';
import { identityProblems } from './data_dir/identity.js';
import { walkStores } from './data_dir/page_walk.js';
import { verifyDataDir } from './data_dir/verify.js';
import { createLogger, type Logger } from './log.js';
import { writeReference } from './reference.js';
import { startServer } from './server.js';

async function serve(config: Config, log: Logger): Promise<void> {
  // Every page of every store is read in a child process first: damage that would crash LMDB
  // ends that child, not this process, and stops the start with a message (page_walk.ts).
  const started = performance.now();
  const inspection = inspectDataDir(config.dataDir, config.shards);
  const inspectMs = performance.now() - started;
  const walk = await walkStores(config.dataDir, inspection.present);
  log.info('data_dir_walked', { inspectMs, ...walk });
  const server = await startServer(config, log, { inspection });
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
  // The catalog must be the one the directory holds: an import into a missing or replaced one
  // would be lost to the next start's check.
  const inspection = inspectDataDir(config.dataDir, config.shards);
  await walkStores(config.dataDir, inspection.present.filter((name) => name === CATALOG_STORE));
  if (inspection.record !== undefined) refuseIfAny(config.dataDir, await identityProblems(config.dataDir, CATALOG_STORE, inspection.record.stores));
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
  if (command === 'verify') {
    process.stdout.write(`${await verifyDataDir(config)}\n`);
    return;
  }
  if (command === 'backup') {
    process.stdout.write(`${await runBackup(config, rest[0])}\n`);
    return;
  }
  if (command === 'restore') {
    process.stdout.write(`${await runRestore(config, rest[0], rest[1])}\n`);
    return;
  }
  if (command === 'docs') {
    if (rest[0] === undefined) throw new ConfigError('usage: docs <directory>');
    for (const path of await writeReference(rest[0])) process.stdout.write(`wrote ${path}\n`);
    return;
  }
  throw new ConfigError(`unknown command "${command}" (expected serve, verify, import <file>, backup <directory>, restore <backup> [<data directory>] or docs <directory>)`);
}

main().catch((error: unknown) => {
  process.stderr.write(`clobd: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError || error instanceof DataDirDamaged ? 2 : 1);
});

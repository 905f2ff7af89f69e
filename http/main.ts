// Entry point. `node dist/http/main.js [serve]` runs the exchange; `... verify` checks DATA_DIR
// offline (exit 0 with a report when it is sound, 2 with what is wrong); `... import <file>`
// loads a Gamma-shaped catalog file into DATA_DIR; `... docs <dir>` writes the Markdown reference
// of each listener (npm run docs); `... backup <dir>` has the server running on DATA_DIR copy
// every store at one cut, and `... restore <backup> [<data dir>]` brings a backup back
// (http/backup/commands.ts); `... follow` runs a replica of the primary on NATS (a new one starts
// from the primary's latest snapshot there) and `... snapshot` puts one there
// (http/replication/snapshot.ts). Settings come from the environment and flags. A damaged data
// directory, like an invalid setting, exits with code 2 and one line on stderr; so does a port
// or a data directory another process holds (exclusive.ts, data_dir/lock.ts): serve, verify and
// import hold DATA_DIR while they run, and refuse while anything else does. docs starts its own
// server on a temporary directory and free ports, and never opens DATA_DIR.
//
// Signals: SIGTERM, SIGINT and SIGHUP stop the server gracefully, whichever arrives and however
// it was started; one that arrives while it is still starting stops it as soon as it can (before
// any store is open, or once the start is complete), never in the middle. `npm start` execs node
// (package.json), so npm's forwarding of SIGTERM and SIGINT reaches this process.
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { CATALOG_STORE, CatalogStore } from './catalog/store.js';
import { importFile } from './catalog/import.js';
import { runBackup, runRestore } from './backup/commands.js';
import { fetchSnapshot, publishSnapshot } from './replication/snapshot.js';
import { ConfigError, loadConfig, parseArgv, type Config } from './config.js';
import { DataDirDamaged, refuseIfAny } from './data_dir/damage.js';
import { inspectDataDir } from './data_dir/directory.js';
import { identityProblems } from './data_dir/identity.js';
import { LOCK_FILE, lockDataDir, type DataDirLock } from './data_dir/lock.js';
import { walkStores } from './data_dir/page_walk.js';
import { verifyDataDir } from './data_dir/verify.js';
import { holdPorts, InUse, wantedPorts, type PortHolds } from './exclusive.js';
import { ownHolder } from './holders.js';
import { createLogger, type Logger } from './log.js';
import { writeReference } from './reference.js';
import { startServer } from './server.js';

const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Holds the data directory, then every port (both refusals in one message when both are taken),
 * before anything long: a refused start says so at once, not after the directory's walk.
 */
async function holdAll(config: Config): Promise<{ dir: DataDirLock; ports: PortHolds }> {
  let dir: DataDirLock | undefined;
  const problems: string[] = [];
  const me = ownHolder('serve', config.dataDir);
  try {
    dir = await lockDataDir(config.dataDir, 'serve', { holder: me });
  } catch (error) {
    if (!(error instanceof InUse)) throw error;
    problems.push(error.message);
  }
  try {
    const ports = await holdPorts(config.host, wantedPorts(config), () => me);
    if (dir !== undefined) return { dir, ports };
  } catch (error) {
    if (!(error instanceof InUse)) throw error;
    problems.push(error.message);
  }
  await dir?.release();
  throw new InUse(problems.join('; '));
}

async function serve(config: Config, log: Logger, following = false): Promise<void> {
  // A signal that arrives during the start is kept, and acted on as soon as it can be.
  let stopSignal: string | undefined;
  let stopNow: ((signal: string) => void) | undefined;
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (stopNow !== undefined) stopNow(signal);
      else stopSignal ??= signal;
    });
  }
  const held = await holdAll(config);
  // Every page of every store is read in a child process first: damage that would crash LMDB
  // ends that child, not this process, and stops the start with a message (page_walk.ts).
  const started = performance.now();
  const inspection = inspectDataDir(config.dataDir, config.shards);
  const inspectMs = performance.now() - started;
  let walk: Awaited<ReturnType<typeof walkStores>>;
  try {
    walk = await walkStores(config.dataDir, inspection.present);
  } catch (error) {
    // Ctrl-C in a terminal reaches the walk's child too: what it says then is no finding.
    if (stopSignal === undefined) throw error;
    walk = { stores: 0, tables: 0, entries: 0, bytes: 0, records: 0, ms: 0 };
  }
  if (stopSignal !== undefined) {
    log.info('shutdown_complete', { signal: stopSignal, during: 'start' });
    process.exit(0);
  }
  log.info('data_dir_walked', { inspectMs, ...walk });
  const server = await startServer(config, log, { inspection, following });
  const compatPort = server.compatUrl === undefined ? undefined : Number(new URL(server.compatUrl).port);
  const boundPorts: Record<string, number | undefined> = { PORT: server.ports.clob, CATALOG_PORT: server.ports.catalog, DATA_PORT: server.ports.data, COMPAT_PORT: compatPort };
  await held.ports.adopt(wantedPorts(config).flatMap(({ setting, port }) => {
    const bound = boundPorts[setting];
    return port === 0 && bound !== undefined ? [bound] : [];
  }));
  held.dir.describe({ ports: { ...server.ports, ...(compatPort === undefined ? {} : { compat: compatPort }) } });
  if (stopSignal === undefined) process.stdout.write(`listening clob=${server.urls.clob} catalog=${server.urls.catalog} data=${server.urls.data}\n`);
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info('shutdown_started', { signal });
    server.stop().then(
      async () => {
        // The process's end frees both anyway; released here, they are free before it exits.
        await held.ports.release();
        await held.dir.release();
        log.info('shutdown_complete', {});
        process.exit(0);
      },
      (error: unknown) => {
        log.error('shutdown_failed', { message: error instanceof Error ? error.message : String(error) });
        process.exit(1);
      },
    );
  };
  stopNow = shutdown;
  if (stopSignal !== undefined) shutdown(stopSignal);
}

async function runImport(config: Config, path: string | undefined): Promise<void> {
  if (path === undefined) throw new ConfigError('usage: import <file>');
  const lock = await lockDataDir(config.dataDir, 'import');
  try {
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
  } finally {
    await lock.release();
  }
}

/** Whether `dataDir` exists and holds anything but its lock file. */
function holdsAnything(dataDir: string): boolean {
  try {
    return readdirSync(dataDir).some((name) => name !== LOCK_FILE);
  } catch {
    return false;
  }
}

/**
 * The verify command holds the directory while it checks it, so no server starts on it
 * meanwhile, and refuses one a server holds. A directory with no store yet is only inspected:
 * there is nothing to hold, and verify leaves it as it found it.
 */
async function runVerify(config: Config): Promise<string> {
  if (!holdsAnything(config.dataDir)) return verifyDataDir(config);
  const lock = await lockDataDir(config.dataDir, 'verify');
  try {
    return await verifyDataDir(config);
  } finally {
    await lock.release();
  }
}

async function main(): Promise<void> {
  const { flags, positional } = parseArgv(process.argv.slice(2));
  const config = loadConfig(process.env, flags);
  const log = createLogger(config.logLevel);
  const [command = 'serve', ...rest] = positional;
  if (command === 'serve') return serve(config, log);
  if (command === 'follow') {
    if (config.replication === undefined) throw new ConfigError('usage: follow --nats nats://host:port[,...] (a replica follows the primary\'s replicated journal on NATS)');
    // A new replica starts from the primary's latest snapshot on NATS, not from the stream's start.
    if (!holdsAnything(config.dataDir)) {
      const restored = await fetchSnapshot(config);
      log.info('replica_start', { from: restored === undefined ? 'the stream\'s start (NATS holds no snapshot)' : 'a snapshot' });
      if (restored !== undefined) process.stdout.write(`${restored}\n`);
    }
    return serve(config, log, true);
  }
  if (command === 'import') return runImport(config, rest[0]);
  if (command === 'verify') {
    process.stdout.write(`${await runVerify(config)}\n`);
    return;
  }
  if (command === 'backup') {
    process.stdout.write(`${await runBackup(config, rest[0])}\n`);
    return;
  }
  if (command === 'snapshot') {
    process.stdout.write(`${await publishSnapshot(config)}\n`);
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
  throw new ConfigError(`unknown command "${command}" (expected serve, follow, verify, import <file>, backup <directory>, restore <backup> [<data directory>], snapshot or docs <directory>)`);
}

main().catch((error: unknown) => {
  process.stderr.write(`clobd: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError || error instanceof DataDirDamaged ? 2 : 1);
});

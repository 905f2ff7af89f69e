// The child process that walks a data directory's stores, started by page_walk.ts:
//   node walker.js <data dir> <store> …
// For each store it walks every page (store_walk.ts), and for a shard decodes the records a start
// does not read itself (ShardStore.decodeAll: fills, finished orders, balance changes; the
// worker's recovery decodes the snapshot and the journal after it, and stops the start, naming
// the shard, on one that does not decode). It
// reports on stdout, one JSON line (a WalkLine) per step, before the step: when damage crashes
// this process, the last line names the store and table it was reading. A pipe to the parent is
// written synchronously on Linux, so that line is out before the crash.
import { ShardStore } from '../../engine/shard/store.js';
import { messageOf } from './damage.js';
import { IDENTITY_KEY } from './identity.js';
import { walkPages } from './store_walk.js';
import { shardOfStore, storePath } from './stores.js';
import type { WalkLine } from './page_walk.js';

function report(line: WalkLine): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** Decodes every record of shard `shard`; returns how many it decoded. */
async function decodeShard(dataDir: string, shard: number): Promise<number> {
  let store: ShardStore;
  try {
    store = new ShardStore(dataDir, shard);
  } catch (error) {
    throw new Error(`opening it: ${messageOf(error)}`);
  }
  try {
    const counts = store.decodeAll();
    return counts.fills + counts.finishedOrders + counts.balanceChanges;
  } finally {
    await store.close();
  }
}

async function walk(dataDir: string, name: string): Promise<void> {
  try {
    const pages = await walkPages(storePath(dataDir, name), IDENTITY_KEY, (table) => report({ store: name, reading: table }));
    report({ store: name, walked: pages });
  } catch (error) {
    report({ store: name, problem: `has damaged pages: ${messageOf(error)}` });
    return;
  }
  const shard = shardOfStore(name);
  if (shard === undefined) return;
  report({ store: name, reading: 'its records' });
  try {
    report({ store: name, decoded: await decodeShard(dataDir, shard) });
  } catch (error) {
    report({ store: name, problem: `holds a record that does not decode: ${messageOf(error)}` });
  }
}

const [dataDir, ...names] = process.argv.slice(2);
if (dataDir === undefined) throw new Error('usage: walker.js <data dir> <store> …');
for (const name of names) await walk(dataDir, name);

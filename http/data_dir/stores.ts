// The stores a data directory holds, each an LMDB environment in a directory of its own under
// DATA_DIR: the catalog, the API keys (auth), the profiles, the treasury and one store per shard.
// Their names come from the modules that own them. A legacy `feeds/` directory (versions before
// 2026-11-25) is no store: nothing reads it.
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { shardStoreName } from '../../engine/shard/store.js';
import { KEYS_STORE } from '../auth/keys.js';
import { CATALOG_STORE } from '../catalog/store.js';
import { PROFILES_STORE } from '../profiles.js';
import { TREASURY_STORE } from '../trading/treasury.js';
import { messageOf, problem, type Problem } from './damage.js';
import { readMetaPages } from './meta_pages.js';
import { walkTree, type PageKind } from './page_tree.js';

/** LMDB's data file in a store's directory. */
const DATA_FILE = 'data.mdb';
const SHARD_NAME = /^shard-(\d+)$/;

/** Every store a data directory of `shards` shards holds, in the order they are checked. */
export function storeNames(shards: number): string[] {
  return [CATALOG_STORE, KEYS_STORE, PROFILES_STORE, TREASURY_STORE, ...Array.from({ length: shards }, (_, shard) => shardStoreName(shard))];
}

export function storePath(dataDir: string, name: string): string {
  return join(dataDir, name);
}

/** The shard a store name is of, or undefined for the other stores. */
export function shardOfStore(name: string): number | undefined {
  const match = SHARD_NAME.exec(name);
  return match === null ? undefined : Number(match[1]);
}

/** Whether the store's directory exists. */
export function storeExists(dataDir: string, name: string): boolean {
  return existsSync(storePath(dataDir, name));
}

/**
 * Checks what can be checked of a store without LMDB: its directory and data file are there,
 * the file's meta pages are sound (meta_pages.ts), and so is every page of its free-page list
 * and of its tables, read with plain reads (page_tree.ts). `shards`: how many the directory
 * holds, for the message about a missing shard.
 */
export function storeFileProblems(dataDir: string, name: string, shards: number): Problem[] {
  if (!storeExists(dataDir, name)) {
    return [problem(name, shardOfStore(name) === undefined ? 'is missing' : `is missing (the directory holds ${shards} shards)`)];
  }
  const file = join(storePath(dataDir, name), DATA_FILE);
  if (!existsSync(file)) return [problem(name, `has no ${DATA_FILE}`)];
  const damage = withDataFile(file, (fd) => {
    const meta = readMetaPages(fd);
    if (typeof meta === 'string') return meta;
    const pageFile = { fd, pageBytes: meta.pageBytes, filePages: meta.filePages };
    const pages = new Map<number, PageKind>();
    for (const [tree, root] of [['free-page list', meta.freeRoot], ['tables', meta.mainRoot]] as const) {
      try {
        walkTree(pageFile, root, pages);
      } catch (error) {
        return `its ${tree} ${tree === 'tables' ? 'are' : 'is'} damaged: ${messageOf(error)}`;
      }
    }
    return undefined;
  });
  return damage === undefined ? [] : [problem(name, `has a damaged ${DATA_FILE}: ${damage}`)];
}

function withDataFile<T>(file: string, read: (fd: number) => T): T {
  const fd = openSync(file, 'r');
  try {
    return read(fd);
  } finally {
    closeSync(fd);
  }
}

/** The hint for a page walk that crashed: the file is shorter than its meta page says, or nothing. */
export function truncationHint(dataDir: string, name: string): string {
  const file = join(storePath(dataDir, name), DATA_FILE);
  if (!existsSync(file)) return '';
  const meta = withDataFile(file, readMetaPages);
  if (typeof meta === 'string' || meta.filePages >= meta.pages) return '';
  return `; ${DATA_FILE} holds ${meta.filePages} of the ${meta.pages} pages its meta page counts (truncated)`;
}

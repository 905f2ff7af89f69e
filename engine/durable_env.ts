// Every LMDB environment clobd keeps is opened the same way, with durability written out: every
// commit is synced (data and meta pages) before it returns, no asynchronous overlapping sync,
// msgpack values, no compression. Opening the same path again in this process, from any thread,
// shares the environment that is already open.
import { mkdirSync } from 'node:fs';
import { open, type RootDatabase } from 'lmdb';

export function openDurable(path: string, maxDbs: number): RootDatabase {
  mkdirSync(path, { recursive: true });
  return open({ path, encoding: 'msgpack', compression: false, noSync: false, noMetaSync: false, overlappingSync: false, maxDbs });
}

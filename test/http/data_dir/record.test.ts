// The record of the data directory: a fresh directory starts as before and is recorded, a sound
// one passes `verify`, one a version before the record wrote is adopted (identities, checksums,
// record) rather than refused, and stores that are each sound but disagree stop the start.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDurable } from '../../../engine/durable_env.js';
import { loadConfig } from '../../../http/config.js';
import { checksumOf } from '../../../http/data_dir/checksum.js';
import { DataDirDamaged } from '../../../http/data_dir/damage.js';
import { IDENTITY_KEY } from '../../../http/data_dir/identity.js';
import { RECORD_FILE, type DirectoryRecord } from '../../../http/data_dir/record.js';
import { createLogger } from '../../../http/log.js';
import { startServer as startInThisProcess } from '../../../http/server.js';
import { removeDataDir, startServer, temporaryDataDir } from '../../support/server.js';
import { ADMIN_TOKEN } from '../orders/trader.js';
import { assertRefused, copyOf, makeTradedDir, run, SHARDS, type TradedDir } from './support.js';

function readRecordFile(dataDir: string): DirectoryRecord {
  return JSON.parse(readFileSync(join(dataDir, RECORD_FILE), 'utf8')) as DirectoryRecord;
}

/** Runs `body` on the store's root, then closes it. */
async function withStore<T>(dataDir: string, store: string, body: (root: ReturnType<typeof openDurable>) => T): Promise<T> {
  const root = openDurable(join(dataDir, store), 16);
  try {
    return body(root);
  } finally {
    await root.close();
  }
}

describe('the record of a data directory', () => {
  let traded: TradedDir;
  before(async () => {
    traded = await makeTradedDir([71, 72]);
  });
  after(() => removeDataDir(traded.dataDir));

  test('a fresh empty DATA_DIR starts as before, and its first start records its stores', async () => {
    const dataDir = temporaryDataDir();
    try {
      const server = await startServer({ dataDir, env: { SHARDS } });
      const record = readRecordFile(dataDir);
      assert.equal(record.shards, 2);
      assert.deepEqual(Object.keys(record.stores), ['catalog', 'auth', 'profiles', 'treasury', 'shard-0', 'shard-1']);
      for (const [store, identity] of Object.entries(record.stores)) {
        assert.deepEqual(await withStore(dataDir, store, (root) => root.get(IDENTITY_KEY)), { store, identity }, `${store} holds its identity`);
      }
      assert.equal(await server.stop(), 0);
    } finally {
      removeDataDir(dataDir);
    }
  });

  test('verify on an empty DATA_DIR says so, exits 0 and makes nothing', async () => {
    const dataDir = temporaryDataDir();
    try {
      const verified = await run(dataDir, ['verify']);
      assert.equal(verified.code, 0, verified.stderr);
      assert.match(verified.stdout, /holds no data yet/);
      assert.deepEqual(readdirSync(dataDir), []);
    } finally {
      removeDataDir(dataDir);
    }
  });

  test('a sound directory passes verify: exit 0 and a short report', async () => {
    const verified = await run(traded.dataDir, ['verify']);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^data directory \S+ is sound/);
    assert.match(verified.stdout, /record: clobd\.json, 2 shard\(s\)/);
    assert.match(verified.stdout, /invariants hold/);
  });

  test('a directory a version before the record wrote is adopted: identities, checksums and the record, its data intact', async () => {
    const dataDir = copyOf(traded.dataDir);
    try {
      // As the previous version left it: no record, no identities, keys and balances without checksums.
      rmSync(join(dataDir, RECORD_FILE));
      for (const store of Object.keys(readRecordFile(traded.dataDir).stores)) await withStore(dataDir, store, (root) => root.removeSync(IDENTITY_KEY));
      await withStore(dataDir, 'auth', (root) => {
        const keys = root.openDB<Record<string, unknown>, string>({ name: 'keys', encoding: 'msgpack' });
        for (const { key, value } of [...keys.getRange()]) {
          const { check: _check, ...older } = value;
          keys.putSync(key, older);
        }
      });
      await withStore(dataDir, 'treasury', (root) => {
        const external = root.openDB<unknown, string>({ name: 'external', encoding: 'msgpack' });
        for (const { key, value } of [...external.getRange()]) external.putSync(key, (value as [number, number])[0]);
      });

      const verified = await run(dataDir, ['verify']);
      assert.equal(verified.code, 0, verified.stderr);
      assert.match(verified.stdout, /record: none yet/);
      assert.equal(existsSync(join(dataDir, RECORD_FILE)), false, 'verify writes nothing');

      const server = await startServer({ dataDir, env: { SHARDS, ADMIN_TOKEN } });
      try {
        for (const [index, trader] of traded.traders.entries()) {
          trader.clobUrl = server.urls.clob;
          const balance = await trader.send('GET', '/balance-allowance?asset_type=COLLATERAL');
          assert.equal(balance.status, 200, `the key made before still works: ${balance.text}`);
          assert.deepEqual(balance.body, traded.balances[index]);
        }
      } finally {
        assert.equal(await server.stop(), 0);
      }
      const record = readRecordFile(dataDir);
      for (const [store, identity] of Object.entries(record.stores)) {
        assert.deepEqual(await withStore(dataDir, store, (root) => root.get(IDENTITY_KEY)), { store, identity }, `${store} holds its identity`);
      }
      await withStore(dataDir, 'auth', (root) => {
        for (const { value } of root.openDB<Record<string, unknown>, string>({ name: 'keys', encoding: 'msgpack' }).getRange()) assert.equal(typeof value['check'], 'number');
      });
      await withStore(dataDir, 'treasury', (root) => {
        for (const { key, value } of root.openDB<unknown, string>({ name: 'external', encoding: 'msgpack' }).getRange()) {
          const [micros, check] = value as [number, number];
          assert.equal(check, checksumOf([key, micros]));
        }
      });
      const again = await run(dataDir, ['verify']);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /record: clobd\.json/);
    } finally {
      removeDataDir(dataDir);
    }
  });

  test('a treasury that holds less collateral for an address than the shards do stops the start', async () => {
    const dataDir = copyOf(traded.dataDir);
    try {
      // The taker's fills moved collateral into the shards; a treasury that says it never had any
      // (an older copy, say) passes every check of its own.
      const taker = traded.traders[1]!.address;
      await withStore(dataDir, 'treasury', (root) => {
        root.openDB<unknown, string>({ name: 'external', encoding: 'msgpack' }).putSync(taker, [0, checksumOf([taker, 0])]);
      });
      const line = assertRefused(await run(dataDir), 'treasury', /holds less collateral than the shards for 1 address/);
      assert.ok(line.includes(taker), line);
      assertRefused(await run(dataDir, ['verify']), 'treasury', /holds less collateral than the shards/);
    } finally {
      removeDataDir(dataDir);
    }
  });

  test('a start in this process refuses a damaged directory too, with no child process', async () => {
    const dataDir = copyOf(traded.dataDir);
    try {
      rmSync(join(dataDir, 'shard-1'), { recursive: true });
      const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', SHARDS, LOG_LEVEL: 'silent' }, new Map());
      await assert.rejects(startInThisProcess(config, createLogger(config.logLevel)), (error: unknown) => {
        assert.ok(error instanceof DataDirDamaged);
        assert.match(error.message, /shard-1 is missing/);
        return true;
      });
      assert.equal(existsSync(join(dataDir, 'shard-1')), false, 'the missing shard was not made again');
    } finally {
      removeDataDir(dataDir);
    }
  });
});

// A damaged data directory never starts silently, and never ends the server by a signal: each
// damage users met (an emptied, deleted or overwritten store, flipped bytes in a key's record or
// in a shard's pages, a truncated file, zeroed meta pages) stops the real server with exit code 2
// and one line naming the store, and the verify command refuses the directory the same way.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { after, before, describe, test, type TestContext } from 'node:test';
import { PAGE_HEADER_BYTES, PAGE_UPPER_AT } from '../../../http/data_dir/lmdb_layout.js';
import { Prng } from '../../engine/prng.js';
import { pageMap } from '../../support/lmdb_pages.js';
import { removeDataDir } from '../../support/server.js';
import { assertRefused, copyOf, dataFile, makeTradedDir, run, type TradedDir } from './support.js';

/** Where a node keeps the high half of its data size (mdb.c: MDB_node.mn_hi). */
const NODE_SIZE_HIGH_AT = 2;
/** The seed of the random bytes written over a store. */
const SEED = 0x5eed_da7a;

describe('a damaged data directory', () => {
  let traded: TradedDir;
  before(async () => {
    traded = await makeTradedDir([61, 62]);
  });
  after(() => removeDataDir(traded.dataDir));

  /**
   * Damages a copy of the traded directory, then refuses it: the server (serve) and verify both.
   * The server's refusal is the test's diagnostic.
   */
  async function assertDamageRefused(t: TestContext, damage: (dataDir: string) => void, store: string, detail?: RegExp): Promise<void> {
    const dataDir = copyOf(traded.dataDir);
    try {
      damage(dataDir);
      t.diagnostic(assertRefused(await run(dataDir), store, detail));
      assertRefused(await run(dataDir, ['verify']), store, detail);
    } finally {
      removeDataDir(dataDir);
    }
  }

  test('an empty shard-0/data.mdb stops the start', async (t) => {
    await assertDamageRefused(t, (dataDir) => writeFileSync(dataFile(dataDir, 'shard-0'), ''), 'shard-0', /empty/);
  });

  test('a deleted shard-1/ stops the start', async (t) => {
    await assertDamageRefused(t, (dataDir) => rmSync(`${dataDir}/shard-1`, { recursive: true }), 'shard-1', /shard-1 is missing \(the directory holds 2 shards\)/);
  });

  test(`random bytes in place of shard-0's data.mdb stop the start (seed ${SEED})`, async (t) => {
    await assertDamageRefused(t, (dataDir) => {
      const file = dataFile(dataDir, 'shard-0');
      const prng = new Prng(SEED);
      writeFileSync(file, Buffer.from(Array.from({ length: readFileSync(file).length }, () => prng.below(256))));
    }, 'shard-0');
  });

  test('a deleted treasury/ stops the start', async (t) => {
    await assertDamageRefused(t, (dataDir) => rmSync(`${dataDir}/treasury`, { recursive: true }), 'treasury', /treasury is missing/);
  });

  test('a flipped byte in the record of one API key stops the start', async (t) => {
    // Stored as base64url without the padding the client is given.
    const secret = traded.traders[0]!.credentials!.secret.replace(/=+$/, '');
    await assertDamageRefused(t, (dataDir) => {
      const file = dataFile(dataDir, 'auth');
      const bytes = readFileSync(file);
      // The record, and any older copy of its page LMDB left free: another base64url character
      // in each, so the record still decodes, to a wrong secret.
      let flipped = 0;
      for (let at = bytes.indexOf(secret); at !== -1; at = bytes.indexOf(secret, at + 1)) {
        bytes[at + 5] = bytes[at + 5] === 0x41 ? 0x42 : 0x41;
        flipped++;
      }
      assert.ok(flipped > 0, 'the secret is in the file');
      writeFileSync(file, bytes);
    }, 'auth', /damaged record of API key/);
  });

  test("flipped bytes in every page a shard's tables use stop the start", async (t) => {
    await assertDamageRefused(t, (dataDir) => {
      const file = dataFile(dataDir, 'shard-0');
      const bytes = readFileSync(file);
      const { pageBytes, pages } = pageMap(file);
      assert.ok(pages.size > 4, `shard-0 uses ${pages.size} pages`);
      // The first bytes of each page's nodes (or of an overflow page's value): what LMDB follows.
      for (const [page, kind] of pages) {
        const at = page * pageBytes + PAGE_HEADER_BYTES + (kind === 'overflow' ? 0 : bytes.readUInt16LE(page * pageBytes + PAGE_UPPER_AT));
        for (let offset = 0; offset < 8; offset++) bytes[at + offset]! ^= 0xa5;
      }
      writeFileSync(file, bytes);
    }, 'shard-0');
  });

  test("flipped bytes inside a shard's long values (its snapshot, its stored records) stop the start", async (t) => {
    // Pages that continue an overflow value: no header, only the value's bytes, which LMDB hands
    // over as they are; what reads them must find the damage.
    const inside = (file: string): number[] => {
      const { pages } = pageMap(file);
      return [...pages].filter(([page, kind]) => kind === 'overflow' && pages.get(page - 1) === 'overflow').map(([page]) => page);
    };
    const store = ['shard-0', 'shard-1'].find((shard) => inside(dataFile(traded.dataDir, shard)).length > 0);
    assert.ok(store !== undefined, 'a shard holds a value of several pages (the snapshot of the first market\'s bids)');
    await assertDamageRefused(t, (dataDir) => {
      const file = dataFile(dataDir, store);
      const bytes = readFileSync(file);
      const { pageBytes } = pageMap(file);
      for (const page of inside(file)) for (let offset = 0; offset < 16; offset++) bytes[page * pageBytes + pageBytes / 2 + offset]! ^= 0xa5;
      writeFileSync(file, bytes);
    }, store, /does not recover|does not decode/);
  });

  test("a value's size flipped so that reading it runs past its page stops the start", async (t) => {
    await assertDamageRefused(t, (dataDir) => {
      const file = dataFile(dataDir, 'shard-0');
      const bytes = readFileSync(file);
      const { pageBytes, pages, roots } = pageMap(file);
      const page = [...pages].find(([number, kind]) => kind === 'leaf' && !roots.includes(number))![0];
      // The high half of the first node's data size: 16 MiB more to read, far past the page and,
      // here, past the file. LMDB trusts it: reading it crashed the page walk's child (SIGSEGV or
      // SIGBUS) when what follows the map was not mapped, and otherwise handed whatever memory
      // lay there to the reader, and the server started. The walk of the pages with plain reads
      // finds it first.
      const node = page * pageBytes + PAGE_HEADER_BYTES + bytes.readUInt16LE(page * pageBytes + PAGE_HEADER_BYTES);
      bytes.writeUInt16LE(0x00ff, node + NODE_SIZE_HIGH_AT);
      writeFileSync(file, bytes);
    }, 'shard-0', /node 0 runs past its page/);
  });

  test("a flipped byte in a shard's free-page list, which only a commit would read, stops the start", async (t) => {
    await assertDamageRefused(t, (dataDir) => {
      const file = dataFile(dataDir, 'shard-1');
      const bytes = readFileSync(file);
      const { pageBytes, freeRoot } = pageMap(file);
      assert.ok(freeRoot !== undefined, 'shard-1 has freed pages');
      // The page number in the root's header.
      bytes[freeRoot * pageBytes]! ^= 0x01;
      writeFileSync(file, bytes);
    }, 'shard-1', /free-page list is damaged/);
  });

  test('a data.mdb truncated before its last page in use stops the start', async (t) => {
    await assertDamageRefused(t, (dataDir) => {
      const file = dataFile(dataDir, 'shard-1');
      const { pageBytes, pages } = pageMap(file);
      truncateSync(file, Math.max(...pages.keys()) * pageBytes);
    }, 'shard-1', /truncated/);
  });

  test("zeroed meta pages at the head of a shard's data.mdb stop the start", async (t) => {
    await assertDamageRefused(t, (dataDir) => {
      const file = dataFile(dataDir, 'shard-0');
      const bytes = readFileSync(file);
      bytes.fill(0, 0, 2 * pageMap(dataFile(traded.dataDir, 'shard-0')).pageBytes);
      writeFileSync(file, bytes);
    }, 'shard-0', /meta page 0 is missing/);
  });
});

// Backups of a running exchange and their restores, with the real server as a child process, a
// signed order flow going on throughout, and real kill -9s:
//   - a backup taken under the flow is one cut: a server started on it passes every check of the
//     data directory, holds every order acknowledged before the cut and none sent after it, and
//     recovers each shard to the state hash the backup recorded; trading paused briefly;
//   - kill -9 of the server while it copies: the backup's command fails, the target is never
//     made, the directory left under its temporary name refuses to start, and the live DATA_DIR
//     starts with every acknowledged order; a second backup while one copies is refused;
//   - kill -9 after a backup, then restore: refused into a directory that is not empty and for a
//     backup whose recorded state hash differs (naming the shard), and otherwise brought back to
//     the cut, and trading goes on from there; a backup with no server running, or into a
//     directory that is not empty, is refused.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_FILE } from '../../../http/trading/demo_state.js';
import { requestBackup } from '../../../http/backup/control.js';
import { BackupRefused } from '../../../http/backup/cut.js';
import { removeDataDir, startServer, temporaryDataDir } from '../../support/server.js';
import { startTrading, type Trader } from '../orders/trader.js';
import { assertTheCut, command, DEPOSIT_MICROS, readBackupRecord, run, SERVER_ENV, startFlow } from './support.js';

/** Trading may pause for a backup's cut this long at most, on a loaded 2-core test machine (it pauses ~1–5 ms there). */
const PAUSE_BOUND_MS = 500;

test('a backup taken under an order flow is one cut: a server started on it has every order acknowledged before the cut, none sent after, and the recorded state hashes', async (t) => {
  const parent = temporaryDataDir();
  const { server, markets, traders } = await startTrading([71, 72], SERVER_ENV, DEPOSIT_MICROS);
  const [maker, taker] = traders as [Trader, Trader];
  const target = join(parent, 'backup');
  let copy: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const flow = startFlow(maker, taker, markets);
    await flow.more(40);
    const backedUp = await run(server.dataDir, ['backup', target]);
    await flow.more(20);
    await flow.stop();
    assert.equal(backedUp.code, 0, backedUp.stderr);
    assert.match(backedUp.stdout, /^cut taken: trading paused [\d.]+ ms; copying$/m);
    assert.match(backedUp.stdout, new RegExp(`^backup ${target} is complete`, 'm'));
    const record = readBackupRecord(target);
    assert.equal(record.backup?.state, 'complete');
    const pauseMs = record.backup.pauseMs;
    t.diagnostic(`trading paused ${pauseMs.toFixed(2)} ms for the cut; ${flow.placed.length} orders placed`);
    assert.ok(pauseMs >= 0 && pauseMs < PAUSE_BOUND_MS, `paused ${pauseMs} ms`);
    assert.ok(!readdirSync(parent).some((name) => name.includes('.partial-')), 'nothing is left under a temporary name');
    assert.equal(await server.stop(), 0);
    const verified = await run(target, ['verify']);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^ {2}backup: cut \S+ from \S+; every shard recovers to the state hash it recorded$/m);

    // Started on the backup itself: every check of the directory, then the recorded hashes.
    copy = await startServer({ dataDir: target, env: SERVER_ENV });
    const sides = await assertTheCut(copy.urls.clob, flow.placed, record);
    t.diagnostic(`${sides.before} orders acknowledged before the cut, ${sides.after} sent after it`);
    assert.ok(sides.before >= 20 && sides.after >= 10, JSON.stringify(sides));
    assert.equal(readBackupRecord(target).backup, undefined, 'the first start makes the backup a live directory');
  } finally {
    await copy?.stop();
    await server.stop('SIGKILL');
    removeDataDir(server.dataDir);
    removeDataDir(parent);
  }
});

test('kill -9 during a backup: no backup is made, what it left refuses to start, and the live DATA_DIR starts; a second backup meanwhile is refused', async () => {
  const parent = temporaryDataDir();
  const { server, markets, traders } = await startTrading([73, 74], SERVER_ENV, DEPOSIT_MICROS);
  const [maker, taker] = traders as [Trader, Trader];
  const target = join(parent, 'backup');
  let restarted: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const flow = startFlow(maker, taker, markets);
    await flow.more(30);
    // One MB a second: the copy of the few MB of stores takes seconds.
    const backup = command(server.dataDir, ['backup', target, '--backup-mb-per-s', '1']);
    await backup.waitFor(/^cut taken/m);
    await assert.rejects(requestBackup(server.dataDir, join(parent, 'other'), 0, () => undefined), (error: unknown) => {
      assert.ok(error instanceof BackupRefused, String(error));
      assert.match(error.message, /^a backup is already running \(into \S+backup, since /);
      return true;
    });
    await flow.more(10);
    assert.equal(await server.stop('SIGKILL'), null, 'killed by the signal');
    await flow.stop().catch(() => undefined);
    const ended = await backup.finished;
    assert.equal(ended.code, 1, `${ended.stdout}${ended.stderr}`);
    assert.match(ended.stderr, /the server closed the control socket before the backup ended/);
    assert.equal(existsSync(target), false, 'the target is never made');
    const partials = readdirSync(parent).filter((name) => name.startsWith('backup.partial-'));
    assert.equal(partials.length, 1, `left: ${readdirSync(parent).join(', ')}`);

    // What it left is never taken for a data directory, by a start or by verify.
    const left = join(parent, partials[0]!);
    for (const args of [[], ['verify']]) {
      const refused = await run(left, args, { PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0' });
      assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
      assert.match(refused.stderr, /clobd\.json is the record of a backup that never finished \(begun \S+ from \S+\): it is not a data directory; delete it/);
    }

    // The live directory starts, with every order acknowledged before the kill.
    restarted = await startServer({ dataDir: server.dataDir, env: SERVER_ENV });
    for (const { trader, orderId } of flow.placed) {
      trader.clobUrl = restarted.urls.clob;
      const read = await trader.send('GET', `/data/order/${orderId}`);
      assert.equal(read.status, 200, `${orderId}: ${read.text}`);
    }
  } finally {
    await restarted?.stop();
    await server.stop('SIGKILL');
    removeDataDir(server.dataDir);
    removeDataDir(parent);
  }
});

test('kill -9 after a backup, then restore: refused into a directory in use or from a backup whose state hash differs, and otherwise back at the cut', async (t) => {
  const parent = temporaryDataDir();
  const { server, markets, traders } = await startTrading([75, 76], SERVER_ENV, DEPOSIT_MICROS);
  const [maker, taker] = traders as [Trader, Trader];
  const target = join(parent, 'backup');
  const restoredDir = join(parent, 'restored');
  let restored: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const flow = startFlow(maker, taker, markets);
    await flow.more(30);
    const backedUp = await run(server.dataDir, ['backup', target]);
    assert.equal(backedUp.code, 0, backedUp.stderr);
    await flow.more(20);
    assert.equal(await server.stop('SIGKILL'), null, 'killed by the signal');
    await flow.stop().catch(() => undefined);
    const record = readBackupRecord(target);

    // Refused: a target that is not empty, and a DATA_DIR no server runs on.
    const notEmpty = await run(server.dataDir, ['backup', target]);
    assert.equal(notEmpty.code, 2, notEmpty.stderr);
    assert.match(notEmpty.stderr, /^clobd: backup refused: \S+backup exists and is not empty$/m);
    const noServer = await run(server.dataDir, ['backup', join(parent, 'second')]);
    assert.equal(noServer.code, 2, noServer.stderr);
    assert.match(noServer.stderr, /^clobd: backup refused: no server is running on DATA_DIR \S+ \(nothing answers on \S+control\.sock\)/m);

    // Never over a directory that holds anything: the live one, here.
    const intoLive = await run(server.dataDir, ['restore', target, server.dataDir]);
    assert.equal(intoLive.code, 2, intoLive.stderr);
    assert.match(intoLive.stderr, /^clobd: restore refused: \S+ exists and is not empty$/m);

    // A backup whose recorded state is not the one its stores recover to.
    const tampered = join(parent, 'tampered');
    cpSync(target, tampered, { recursive: true });
    const wrong = { ...record, backup: { ...record.backup!, shards: record.backup!.shards.map((shard, index) => (index === 1 ? { ...shard, stateHash: 'ab'.repeat(32) } : shard)) } };
    writeFileSync(join(tampered, 'clobd.json'), JSON.stringify(wrong));
    const refused = await run(server.dataDir, ['restore', tampered, join(parent, 'from-tampered')]);
    const verifiedTampered = await run(tampered, ['verify']);
    for (const finished of [refused, verifiedTampered]) {
      assert.equal(finished.code, 2, finished.stderr);
      assert.match(finished.stderr, new RegExp(`^clobd: data directory ${tampered} is damaged: shard-1 recovers to state hash [0-9a-f]{64} \\(batch \\d+\\), not the ${'ab'.repeat(32)} its backup recorded`, 'm'));
    }
    assert.deepEqual(readdirSync(parent).sort(), ['backup', 'tampered'], 'a refused restore leaves nothing');

    // Into an empty directory: back at the cut.
    mkdirSync(restoredDir);
    const restoredRun = await run(server.dataDir, ['restore', target, restoredDir]);
    assert.equal(restoredRun.code, 0, restoredRun.stderr);
    assert.match(restoredRun.stdout, new RegExp(`^restored ${target} into ${restoredDir}`, 'm'));
    assert.equal(readBackupRecord(restoredDir).backup, undefined, 'the restored directory is an ordinary one');
    assert.equal(readBackupRecord(target).backup?.state, 'complete', 'the backup is left as it was');
    restored = await startServer({ dataDir: restoredDir, env: SERVER_ENV });
    const sides = await assertTheCut(restored.urls.clob, flow.placed, record);
    t.diagnostic(`${sides.before} orders acknowledged before the cut, ${sides.after} sent after it`);
    assert.ok(sides.before >= 20 && sides.after >= 10, JSON.stringify(sides));
    // Trading goes on from the cut.
    maker.clobUrl = restored.urls.clob;
    const bid = await maker.place({ tokenId: markets[0]!.yes, side: 'BUY', priceUnits: 2000, sizeMicros: 10_000_000 });
    assert.equal(bid.status, 200, bid.text);
  } finally {
    await restored?.stop();
    await server.stop('SIGKILL');
    removeDataDir(server.dataDir);
    removeDataDir(parent);
  }
});

test("a demo exchange's backup carries demo.json, the demo accounts' keys, readable by their owner only, and so does its restore", async () => {
  const parent = temporaryDataDir();
  const server = await startServer({ env: { ADMIN_TOKEN: SERVER_ENV.ADMIN_TOKEN, SHARDS: SERVER_ENV.SHARDS } });
  const target = join(parent, 'backup');
  const restoredDir = join(parent, 'restored');
  try {
    const keys = readFileSync(join(server.dataDir, DEMO_FILE), 'utf8');
    const backedUp = await run(server.dataDir, ['backup', target]);
    assert.equal(backedUp.code, 0, backedUp.stderr);
    assert.equal(readFileSync(join(target, DEMO_FILE), 'utf8'), keys);
    assert.equal(statSync(join(target, DEMO_FILE)).mode & 0o777, 0o600);
    const restored = await run(server.dataDir, ['restore', target, restoredDir]);
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(readFileSync(join(restoredDir, DEMO_FILE), 'utf8'), keys);
    assert.equal(statSync(join(restoredDir, DEMO_FILE)).mode & 0o777, 0o600);
    assert.ok(!existsSync(join(target, 'clobd.lock')), 'no lock file travels with a backup');
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
    removeDataDir(parent);
  }
});

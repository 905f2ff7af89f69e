// NATS as production runs it, with authentication and TLS (config.ts NatsAuth): a primary, the
// snapshot command it runs and a replica fetching that snapshot all connect with the settings
// given, and a server without them stops at its start, saying why.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { removeDataDir, startServer, type RunningServer } from '../support/server.js';
import { natsServerInstalled } from '../support/nats.js';
import { ADMIN_TOKEN, startTrading } from '../http/orders/trader.js';
import { run } from '../http/backup/support.js';
import { caughtUp, natsForFile } from './support.js';

const skip = natsServerInstalled() ? false : 'nats-server is not installed (apt-get install nats-server)';

function opensslInstalled(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const startNats = natsForFile();
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A server start that must fail: resolves with what it said. */
async function refusedStart(env: Record<string, string>): Promise<string> {
  let server: RunningServer | undefined;
  try {
    server = await startServer({ env: { ADMIN_TOKEN, SHARDS: '2', ...env } });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  await server.stop();
  removeDataDir(server.dataDir);
  throw new Error('the server started');
}

test('with a NATS user and password, the primary, its snapshot and a replica from it connect; without them the start stops, saying why', { skip }, async () => {
  const nats = await startNats(1, ['--user', 'clobd', '--pass', 'journal-secret']);
  const env = { NATS: nats.urls, NATS_STREAM: 'auth', SNAPSHOT_INTERVAL_S: '0' };
  const said = await refusedStart(env);
  assert.match(said, /cannot use NATS JetStream at .*Authorization Violation/i);

  const withAuth = { ...env, NATS_USER: 'clobd', NATS_PASSWORD: 'journal-secret' };
  const { server: primary, markets, traders } = await startTrading([95], withAuth);
  let replica: RunningServer | undefined;
  try {
    assert.equal((await traders[0]!.place({ tokenId: markets[0]!.yes, side: 'BUY', priceUnits: 1200, sizeMicros: 5_000_000 })).status, 200);
    const published = await run(primary.dataDir, ['snapshot'], withAuth);
    assert.equal(published.code, 0, published.stdout + published.stderr);
    replica = await startServer({ args: ['follow'], env: { ADMIN_TOKEN, SHARDS: '2', ...withAuth } });
    assert.match(replica.output().stdout, /fetched from NATS and restored/);
    await caughtUp(primary, replica);
    const logged = primary.output().stdout + primary.output().stderr + replica.output().stdout + replica.output().stderr;
    assert.doesNotMatch(logged, /journal-secret/, 'the password is in no log');
  } finally {
    await replica?.stop();
    if (replica !== undefined) removeDataDir(replica.dataDir);
    await primary.stop();
    removeDataDir(primary.dataDir);
  }
});

test('with TLS and a token, clobd checks the NATS servers\' certificate against NATS_TLS_CA', { skip: skip || (opensslInstalled() ? false : 'openssl is not installed') }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'clobd-nats-tls-'));
  dirs.push(dir);
  const openssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=clobd test CA');
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'san.ext');
  const nats = await startNats(1, ['--tls', '--tlscert', join(dir, 'server.pem'), '--tlskey', join(dir, 'server.key'), '--auth', 'journal-token']);
  const env = { NATS: nats.urls, NATS_STREAM: 'tls', NATS_TOKEN: 'journal-token' };
  // The servers' certificate is signed by a CA this process does not trust without the setting.
  assert.match(await refusedStart(env), /cannot use NATS JetStream at .*certificate/i);

  const { server: primary, markets, traders } = await startTrading([96], { ...env, NATS_TLS_CA: join(dir, 'ca.pem') });
  try {
    assert.equal((await traders[0]!.place({ tokenId: markets[0]!.yes, side: 'BUY', priceUnits: 1300, sizeMicros: 5_000_000 })).status, 200);
  } finally {
    await primary.stop();
    removeDataDir(primary.dataDir);
  }
});

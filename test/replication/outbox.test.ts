// The front end's changes a primary committed while the stream could not take them, with real
// processes: NATS killed, a deposit, an API key, an event and a profile made on the primary
// (REPLICATION=async answers them at once), the primary killed (kill -9) before NATS is back.
// Started again on its data directory, it sends the stream what its stores' outboxes hold, and
// a replica started afterwards on an empty data directory has every one of those changes.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { removeDataDir, request, startServer, type RunningServer } from '../support/server.js';
import { natsServerInstalled, startNats, type NatsCluster } from '../support/nats.js';
import { ADMIN_TOKEN, deposit, Trader } from '../http/orders/trader.js';
import { caughtUp } from './support.js';

const skip = natsServerInstalled() ? false : 'nats-server is not installed (apt-get install nats-server)';
/** How long the replica may take to apply the primary's changes once its shards caught up. */
const APPLIED_MS = 20_000;

/** What the test started, stopped after it whatever happened (kill -9: the data is thrown away). */
const started: { nats: NatsCluster | undefined; servers: RunningServer[] } = { nats: undefined, servers: [] };
after(async () => {
  for (const server of started.servers) {
    await server.stop('SIGKILL');
    removeDataDir(server.dataDir);
  }
  await started.nats?.close();
});

async function serve(options: Parameters<typeof startServer>[0]): Promise<RunningServer> {
  const server = await startServer(options);
  started.servers.push(server);
  return server;
}

/** What a reader of `server` sees of the changes: `trader`'s balance, its deposits and profile, `other`'s key, the market. */
async function changesSeen(server: RunningServer, trader: Trader, other: Trader, conditionId: string): Promise<unknown> {
  const read = async (who: Trader, path: string): Promise<unknown> => {
    const before = who.clobUrl;
    who.clobUrl = server.urls.clob;
    try {
      const response = await who.send('GET', path);
      return { status: response.status, body: response.body };
    } finally {
      who.clobUrl = before;
    }
  };
  const activity = await request(`${server.urls.data}/activity?user=${trader.address}`);
  const markets = await request(`${server.urls.catalog}/markets?condition_ids=${conditionId}`);
  return {
    balance: await read(trader, '/balance-allowance?asset_type=COLLATERAL'),
    activity: activity.body,
    keys: await read(other, '/auth/api-keys'),
    markets: markets.body,
  };
}

test('changes a primary committed while NATS was down reach the replicas after kill -9 and a restart on its data directory', { skip }, async () => {
  const nats = started.nats = await startNats(1);
  const env = { ADMIN_TOKEN, SHARDS: '2', NATS: nats.urls, NATS_STREAM: 'outbox', REPLICATION: 'async' };
  const primary = await serve({ env });
  const trader = new Trader(primary.urls.clob, 91);
  await trader.createKey();
  await deposit(primary.urls.clob, trader.address, 1_000_000_000);

  // NATS down: the primary commits each change locally and answers it, the stream gets none.
  await nats.nodes[0]!.kill();
  await deposit(primary.urls.clob, trader.address, 250_000_000);
  const other = new Trader(primary.urls.clob, 92);
  await other.createKey();
  const created = await request<{ markets: { conditionId: string }[] }>(`${primary.urls.clob}/admin/events`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'While NATS was down', endDate: '2031-01-01T00:00:00Z', markets: [{ question: 'Sent again?' }] }),
  });
  assert.equal(created.status, 201, created.text);
  const conditionId = created.body.markets[0]!.conditionId;
  const profile = await request(`${primary.urls.clob}/admin/profiles/${trader.address}`, {
    method: 'PUT', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Outboxed' }),
  });
  assert.equal(profile.status, 200, profile.text);
  await primary.stop('SIGKILL');

  await nats.nodes[0]!.restart();
  const restarted = await serve({ dataDir: primary.dataDir, env });
  const expected = await changesSeen(restarted, trader, other, conditionId);
  const replica = await serve({ args: ['follow'], env });
  await caughtUp(restarted, replica);
  let seen = await changesSeen(replica, trader, other, conditionId);
  for (const deadline = Date.now() + APPLIED_MS; !isDeepStrictEqual(seen, expected) && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = await changesSeen(replica, trader, other, conditionId);
  }
  assert.deepEqual(seen, expected, 'the replica has every change the primary committed while NATS was down');
  // What the primary holds is what it answered: the changes themselves, not their absence on both.
  assert.match(JSON.stringify(expected), /"balance":"1250000000".*"name":"Outboxed"/s);
});

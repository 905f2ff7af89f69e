// What the tests that drive Polymarket's official clients share: the real server with its
// defaults (the clients are pointed at its default CLOB URL, POLY_ header names and all, and
// sign for chain 80002, the default signing domain), a viem wallet for a test key (the clients
// sign with it, unchanged), and a market made through the admin API.
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { request, startServer, type RunningServer } from '../../support/server.js';
import { ADMIN_TOKEN, type PlainMarket } from './trader.js';

export interface OfficialServer {
  readonly server: RunningServer;
  /** The default CLOB URL, the one the official clients are pointed at. */
  readonly url: string;
}

/** Starts the real server (admin enabled, two shards, no demo) with `env` on top of its defaults. */
export async function startOfficialServer(env: Readonly<Record<string, string>> = {}): Promise<OfficialServer> {
  const server = await startServer({ env: { ADMIN_TOKEN, SHARDS: '2', LOG_LEVEL: 'info', SEED_DEMO: '0', ...env } });
  return { server, url: server.urls.clob };
}

/** The compatibility listener's URL, from the server's `compat_listening` log line. */
export function compatUrlOf(server: RunningServer): string {
  const line = server.output().stderr.split('\n').find((entry) => entry.includes('compat_listening'));
  if (line === undefined) throw new Error('the compatibility listener is not on (COMPAT_PORT unset?)');
  return (JSON.parse(line) as { url: string }).url;
}

/** A viem wallet client for a raw secp256k1 key, as a bot would hand one to the official clients. */
export function walletOf(secret: Uint8Array) {
  const account = privateKeyToAccount(`0x${Buffer.from(secret).toString('hex')}`);
  // The transport is never used: a local account signs typed data itself.
  return createWalletClient({ account, transport: http('http://127.0.0.1:9') });
}

/** Creates an event of one binary market (`fields` are Gamma-shaped market fields) with the admin API. */
export async function createMarket(clobUrl: string, title: string, fields: Readonly<Record<string, unknown>>): Promise<PlainMarket> {
  const created = await request<{ markets: { conditionId: string; clobTokenIds: string; outcomes: string }[] }>(`${clobUrl}/admin/events`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title, endDate: '2031-01-01T00:00:00Z', markets: [fields] }),
  });
  if (created.status !== 201) throw new Error(`admin create: ${created.status} ${created.text}`);
  const market = created.body.markets[0]!;
  const [yes, no] = JSON.parse(market.clobTokenIds) as [string, string];
  return { conditionId: market.conditionId, yes, no, outcomes: JSON.parse(market.outcomes) as string[] };
}

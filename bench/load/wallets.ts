// The load CLI's wallets: fresh ones every run (random keys), so a run never meets the keys of an
// earlier one on the same DATA_DIR; each gets API credentials (created, or derived when the
// server already has a key for the wallet and nonce) and its deposit through the admin API.
// Every refusal becomes one line naming what to change (refusals.ts).
import { randomBytes } from 'node:crypto';
import { BenchTrader } from '../orders/exchange.js';
import { CHAIN_ID, type Credentials } from '../../test/http/orders/trader.js';
import { brief, LoadError, send, SetupWaits, type Answer } from './refusals.js';

/** Requests in flight while enrolling wallets. */
const ENROL_LANES = 16;

/** `count` wallets with random keys, new to every server. */
export function freshTraders(count: number): BenchTrader[] {
  return Array.from({ length: count }, () => new BenchTrader('', randomBytes(32)));
}

function refusedL1(answer: Answer): LoadError {
  return new LoadError(`the server refused the wallets' signed key requests (${answer.status} ${brief(answer.text)}): the load CLI signs `
    + `for chain ${CHAIN_ID}, the server's default CHAIN_ID, within its AUTH_WINDOW_S of this machine's clock`);
}

/** Creates the wallet's API key (nonce 0), or derives it when the server made one before. */
async function credentialsOf(trader: BenchTrader, waits: SetupWaits): Promise<Credentials> {
  for (;;) {
    const created = await send(`${trader.clobUrl}/auth/api-key`, { method: 'POST', headers: trader.l1Headers() });
    if (created.status === 200) return JSON.parse(created.text) as Credentials;
    if (created.status === 429) {
      await waits.tooMany('API key creation', created);
      continue;
    }
    if (created.status === 401) throw refusedL1(created);
    // A key for this wallet and nonce exists already: the same L1 headers derive it.
    const derived = await send(`${trader.clobUrl}/auth/derive-api-key`, { headers: trader.l1Headers() });
    if (derived.status === 200) return JSON.parse(derived.text) as Credentials;
    if (derived.status === 429) {
      await waits.tooMany('API key derivation', derived);
      continue;
    }
    throw new LoadError(`the server neither created (${created.status} ${brief(created.text)}) nor derived (${derived.status} ${brief(derived.text)}) an API key for a wallet`);
  }
}

async function deposit(clob: string, adminToken: string, address: string, micros: number, waits: SetupWaits): Promise<void> {
  for (;;) {
    const answer = await send(`${clob}/admin/deposits`, {
      method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ address, amount: String(Math.ceil(micros)) }),
    });
    if (answer.status === 200) return;
    if (answer.status === 429) {
      await waits.tooMany('deposits', answer);
      continue;
    }
    if (answer.status === 401) {
      throw new LoadError(`the server refused --admin-token (401 ${brief(answer.text)}): give the server's ADMIN_TOKEN as --admin-token, to fund the wallets`);
    }
    if (answer.status === 403) {
      throw new LoadError(`the server's admin API is off (403 ${brief(answer.text)}): start it with ADMIN_TOKEN set and give that value as --admin-token, to fund the wallets`);
    }
    throw new LoadError(`the server refused a deposit: ${answer.status} ${brief(answer.text)}`);
  }
}

/** Gives every wallet API credentials on the server at `clob` and its deposit. */
export async function enrol(
  clob: string, adminToken: string, traders: readonly BenchTrader[], depositMicros: readonly number[], note: (line: string) => void,
): Promise<void> {
  const waits = new SetupWaits(note);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let index = next++; index < traders.length; index = next++) {
      const trader = traders[index]!;
      trader.clobUrl = clob;
      // The admin token first: a wrong one is then found before any key is made.
      await deposit(clob, adminToken, trader.address, depositMicros[index]!, waits);
      trader.credentials = await credentialsOf(trader, waits);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ENROL_LANES, traders.length) }, lane));
}

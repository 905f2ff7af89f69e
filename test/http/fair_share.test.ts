// Fair share (issue 39): what one client may take of the front end is bounded. Found on 978801b:
// GET /activity had no cap at all (the data listener had no combined cap either), a deep read cost
// what its offset skipped, and GET /trades?limit=10000 counted as one request however much it
// read; an account's API keys each had caps of their own. Now list reads are charged the rows they
// may read (offset + limit), per client address and for every client together; the data listener
// has a combined cap; and an authenticated request is charged to its account, whichever key signs.
// Client addresses are real: requests leave from 127.0.0.2, 127.0.0.3, ... (all of 127/8 is lo).
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { after, describe, test } from 'node:test';
import { OrderType, Side } from '../../engine/command.js';
import { Trader } from './orders/trader.js';
import { accountAddress, canonicalId, MIN_SHARES, ONE_MICROS, restOrders, startWithMarket, suiteServer } from './trading/support.js';

const FILLS = 600;

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: string;
}

/** A GET from client address `from` (a 127/8 address), with `headers`. */
function getFrom(from: string, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { localAddress: from, headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        const retryAfter = response.headers['retry-after'];
        resolve({ status: response.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, body });
      });
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('fair share of the front end', () => {
  let capsFile = '';
  after(() => rmSync(capsFile, { force: true }));
  const suite = suiteServer(async (dataDir) => {
    capsFile = `${dataDir}.caps.json`;
    writeFileSync(capsFile, JSON.stringify({
      'rows read': { requests: 1500, windowSeconds: 600 },
      'rows read (all clients)': { requests: 4000, windowSeconds: 600 },
      'account reads': { requests: 4, windowSeconds: 600 },
      'GET /activity': { requests: 1000, windowSeconds: 10 },
    }));
    const started = await startWithMarket(dataDir, { RATE_LIMITS: capsFile });
    // FILLS fills, all with one taker: its activity is FILLS items deep.
    const { client } = started.server.trading;
    const marketKey = started.market.conditionId;
    await restOrders(client, marketKey, 0, 100, FILLS, 0, 1);
    const taker = accountAddress(5000);
    assert.equal(client.deposit(taker, FILLS * MIN_SHARES * ONE_MICROS), true);
    await client.placeOrder({
      account: taker, orderId: canonicalId(2, 0), marketKey, outcome: 1, side: Side.Buy, orderType: OrderType.FAK,
      priceUnits: 9900, sizeMicros: FILLS * MIN_SHARES * ONE_MICROS,
    });
    return { ...started, taker };
  });

  test('a list read is charged the rows it may read: deep offsets run out a client\'s share, not the next client\'s', async () => {
    const { server, taker } = suite();
    const deep = `${server.urls.data}/activity?user=${taker}&offset=500&limit=100`;
    // 600 rows each: two fit in 1 500, the third does not.
    assert.equal((await getFrom('127.0.0.2', deep)).status, 200);
    assert.equal((await getFrom('127.0.0.2', deep)).status, 200);
    const refused = await getFrom('127.0.0.2', deep);
    assert.equal(refused.status, 429, refused.body);
    assert.ok(Number(refused.retryAfter) >= 1, 'Retry-After says when');
    assert.deepEqual(JSON.parse(refused.body), { error: 'Too Many Requests' });
    // A small read still costs its rows; another client's share is untouched.
    const other = await getFrom('127.0.0.3', `${server.urls.data}/trades?limit=600`);
    assert.equal(other.status, 200);
    assert.equal((JSON.parse(other.body) as unknown[]).length, 600);
    // The same rows through GET /trades on the CLOB listener draw on the same share.
    assert.equal((await getFrom('127.0.0.2', `${server.urls.clob}/trades?limit=600`)).status, 429);
  });

  test('every client together has a share too: many addresses cannot take the whole front end', async () => {
    const { server } = suite();
    // 4 000 rows for everyone: 1 200 went above; 2 800 left, 1 000 a request from fresh addresses.
    const statuses: number[] = [];
    for (const from of ['127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7']) {
      statuses.push((await getFrom(from, `${server.urls.data}/trades?limit=1000`)).status);
    }
    assert.deepEqual(statuses, [200, 200, 429, 429]);
  });

  test("an account's API keys share its caps", async () => {
    const { server } = suite();
    const trader = new Trader(server.urls.clob, 39);
    const first = await trader.createKey(0);
    const second = await trader.createKey(1);
    assert.notEqual(first.apiKey, second.apiKey);
    const read = async (credentials: typeof first): Promise<number> => {
      trader.credentials = credentials;
      return (await trader.send('GET', '/data/orders')).status;
    };
    // 'account reads' is 4 in this suite; creating the two keys took 2 of them (L1 charges the
    // account as well), then one read with each key, then either key is refused.
    assert.deepEqual([await read(first), await read(second), await read(first), await read(second)], [200, 200, 429, 429]);
    // Another account is not.
    const other = new Trader(server.urls.clob, 40);
    await other.createKey(0);
    assert.equal((await other.send('GET', '/data/orders')).status, 200);
  });
});

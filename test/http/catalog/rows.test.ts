// What a catalog list costs: GET /events items carry their markets, so an events page can be
// much heavier than its limit says. Each list is charged the rows it renders to the `catalog rows`
// caps before anything is rendered: GET /markets its markets, GET /events its events plus the
// markets they nest (at most 100 an event; GET /events/{id} has them all). An answer served from
// the response cache renders nothing and costs no row. Client addresses are real: requests leave
// from 127.0.0.2, 127.0.0.3, ... (all of 127/8 is lo).
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { removeDataDir, request, startServer, temporaryDataDir, type RunningServer } from '../../support/server.js';
import { adminToken, type FullEvent } from './support.js';

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** A GET from client address `from` (a 127/8 address). */
function getFrom(from: string, url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { localAddress: from, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('catalog lists are charged the rows they render', () => {
  const dataDir = temporaryDataDir();
  const capsFile = `${dataDir}.caps.json`;
  let server: RunningServer;
  let catalog: string;
  let small: FullEvent;
  let medium: FullEvent;
  let large: FullEvent;

  const create = async (title: string, markets: number): Promise<FullEvent> => {
    const answer = await request<FullEvent>(`${server.urls.clob}/admin/events`, {
      method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title, endDate: '2031-01-01T00:00:00Z', markets: Array.from({ length: markets }, (_, index) => ({ question: `${title} ${index}?` })) }),
    });
    assert.equal(answer.status, 201, answer.text);
    return answer.body;
  };

  before(async () => {
    writeFileSync(capsFile, JSON.stringify({ 'catalog rows': { requests: 20, windowSeconds: 600 }, 'catalog rows (all clients)': { requests: 1000, windowSeconds: 600 } }));
    server = await startServer({ dataDir, env: { ADMIN_TOKEN: adminToken, SEED_DEMO: '0', RATE_LIMITS: capsFile } });
    catalog = server.urls.catalog;
    small = await create('Small', 2);
    medium = await create('Medium', 3);
    large = await create('Large', 120);
  });
  after(async () => {
    await server?.stop();
    removeDataDir(dataDir);
    rmSync(capsFile, { force: true });
  });

  test('an events page costs its events and the markets they nest', async () => {
    const page = `${catalog}/events?id=${small.id},${medium.id}&ascending=true`;
    // 2 events + 5 markets: 7 rows of 20, twice; a third does not fit.
    const first = await getFrom('127.0.0.2', page);
    assert.equal(first.status, 200, first.body);
    assert.deepEqual((JSON.parse(first.body) as FullEvent[]).map((event) => event.markets.length), [2, 3]);
    assert.equal((await getFrom('127.0.0.2', `${page}&again=1`)).status, 200);
    const refused = await getFrom('127.0.0.2', `${page}&again=2`);
    assert.equal(refused.status, 429, refused.body);
    assert.deepEqual(JSON.parse(refused.body), { error: 'Too Many Requests' });
    // The answer already made is served from the cache: no row to render, none charged.
    assert.equal((await getFrom('127.0.0.2', page)).status, 200);
    // Another client's share is its own.
    assert.equal((await getFrom('127.0.0.3', `${page}&again=2`)).status, 200);
  });

  test('a markets page costs its markets', async () => {
    assert.equal((await getFrom('127.0.0.4', `${catalog}/markets?limit=15`)).status, 200);
    assert.equal((await getFrom('127.0.0.4', `${catalog}/markets?limit=6`)).status, 429);
    const fits = await getFrom('127.0.0.4', `${catalog}/markets?limit=5`);
    assert.equal(fits.status, 200, fits.body);
    assert.equal((JSON.parse(fits.body) as unknown[]).length, 5);
  });

  test('an event nests at most 100 markets in a list; its own read has them all', async () => {
    // 1 event + 100 markets: more than the whole share, so it takes the whole share.
    const listed = await getFrom('127.0.0.5', `${catalog}/events?id=${large.id}`);
    assert.equal(listed.status, 200, listed.body);
    const [item] = JSON.parse(listed.body) as FullEvent[];
    assert.deepEqual(item?.markets.map((market) => market.id), large.markets.slice(0, 100).map((market) => market.id));
    assert.equal((await getFrom('127.0.0.5', `${catalog}/markets?limit=1`)).status, 429, 'the share is spent');
    const full = await request<FullEvent>(`${catalog}/events/${large.id}`);
    assert.equal(full.body.markets.length, 120);
  });
});

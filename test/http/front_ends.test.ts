// Front ends on every core (FRONT_ENDS, issue 42): with three uWS threads sharing each port, a
// bot's connections land on different threads, and what one connection did must be what every
// other sees at once, reads a thread answers itself from what it kept among them; caps count every
// request once whichever thread takes it. Each lane below places an order on one keep-alive connection and cancels it
// on another, thousands of times, then the server is killed with SIGKILL in the middle and
// restarted: every acknowledged order and cancel survives, nothing is open that should not be,
// and each account's collateral is exactly its deposit less what its open orders reserve.
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { test } from 'node:test';
import WebSocket from 'ws';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDataDir, request, startServer, temporaryDataDir, type RunningServer } from '../support/server.js';
import { createMarket } from './orders/official_setup.js';
import { ADMIN_TOKEN, startTrading, Trader, type PlainMarket } from './orders/trader.js';

const FRONT_ENDS = '3';
const LANES = 8;
const DEPOSIT_MICROS = 1_000_000_000;
/** Pairs (place, then cancel) each lane runs before the kill, and after the restart. */
const PAIRS_BEFORE_KILL = 200;
const PAIRS_AFTER_RESTART = 40;

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** One request on a given connection (an agent of one socket): L2-signed by `trader`. */
function send(agent: Agent, base: string, trader: Trader, method: string, path: string, body?: unknown): Promise<Answer> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const url = new URL(path, base);
  const headers = { ...trader.l2Headers(method, url.pathname, text), ...(text === '' ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }) };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ agent, host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const answer = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = answer;
        try {
          parsed = JSON.parse(answer);
        } catch {
          // Not JSON: keep the text.
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
}

const oneConnection = (): Agent => new Agent({ keepAlive: true, maxSockets: 1 });

/** A counter's samples by its one label's value, from the server's /metrics. */
async function samples(server: RunningServer, name: string, label: string): Promise<Map<string, number>> {
  const metrics = await request<string>(`${server.urls.clob}/metrics`);
  const counts = new Map<string, number>();
  for (const match of metrics.text.matchAll(new RegExp(`^${name}\\{${label}="(\\w+)"\\} (\\d+)$`, 'gm'))) counts.set(match[1]!, Number(match[2]));
  return counts;
}

const frontEndRequests = (server: RunningServer): Promise<Map<string, number>> => samples(server, 'clobd_front_end_requests_total', 'front_end');

/** A counter's samples added up over its label's values. */
const total = (counts: Map<string, number>): number => [...counts.values()].reduce((sum, count) => sum + count, 0);

test('every front end serves: connections spread over the threads, and each sees what another did at once', async () => {
  const { server, markets, traders } = await startTrading([301, 302], { FRONT_ENDS });
  try {
    const [alice] = traders as [Trader, Trader];
    const market = markets[0]!;
    const agents = Array.from({ length: 24 }, oneConnection);
    for (const agent of agents) assert.equal((await send(agent, server.urls.clob, alice, 'GET', '/data/orders')).status, 200);
    const served = await frontEndRequests(server);
    assert.deepEqual([...served.keys()].sort(), ['1', '2', '3'], 'one counter per thread: every connection is taken by one of them');
    for (const [frontEnd, requests] of served) assert.ok(requests > 0, `front end ${frontEnd} took none of 24 connections`);

    // The user channel on a socket of its own sees an order placed and cancelled on two other connections.
    const ws = new WebSocket(`${server.urls.clob.replace('http', 'ws')}/ws/user`);
    const messages: Record<string, unknown>[] = [];
    ws.on('message', (data) => {
      const text = String(data);
      if (text.startsWith('{') || text.startsWith('[')) messages.push(...[JSON.parse(text)].flat() as Record<string, unknown>[]);
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ type: 'user', auth: { apiKey: alice.credentials!.apiKey, secret: alice.credentials!.secret, passphrase: alice.credentials!.passphrase } }));
    const [placeOn, readOn, cancelOn] = agents as [Agent, Agent, Agent];
    const readers = agents.slice(3);
    for (let round = 0; round < 20; round++) {
      const { body, orderId } = alice.placementBody({ tokenId: market.yes, side: 'BUY', priceUnits: 1000 + round * 100, sizeMicros: 10_000_000 });
      const placed = await send(placeOn, server.urls.clob, alice, 'POST', '/order', body);
      assert.equal(placed.status, 200, JSON.stringify(placed.body));
      const read = await send(readOn, server.urls.clob, alice, 'GET', `/data/order/${orderId}`);
      assert.equal(read.status, 200);
      assert.equal((read.body as { order: { status: string } }).order.status, 'LIVE');
      // Every connection's GET /book shows it at once, whichever thread answers and whatever it
      // kept of the book before (a thread answers a kept read itself while the book is unchanged).
      const price = (1000 + round * 100) / 10_000;
      for (const books of await Promise.all(readers.map((agent) => send(agent, server.urls.clob, alice, 'GET', `/book?token_id=${market.yes}`)))) {
        assert.ok((books.body as { bids: { price: string }[] }).bids.some((level) => Number(level.price) === price), 'every connection\'s book shows it');
      }
      const cancelled = await send(cancelOn, server.urls.clob, alice, 'DELETE', '/order', { orderID: orderId });
      assert.deepEqual((cancelled.body as { canceled: string[] }).canceled, [orderId]);
      for (const books of await Promise.all(readers.map((agent) => send(agent, server.urls.clob, alice, 'GET', `/book?token_id=${market.yes}`)))) {
        assert.ok(!(books.body as { bids: { price: string }[] }).bids.some((level) => Number(level.price) === price), 'and none shows it once cancelled');
      }
    }
    const deadline = Date.now() + 5_000;
    const orderEvents = (): number => messages.filter((message) => message['event_type'] === 'order').length;
    while (orderEvents() < 40 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(orderEvents(), 40, 'a placement and a cancellation message for each order, on the socket of a third connection');
    ws.close();
    for (const agent of agents) agent.destroy();
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});

test('a thread recovers the signatures of the orders it takes, and every connection gets the answers the main thread gives', async () => {
  const { server, markets, traders } = await startTrading([311, 312], { FRONT_ENDS });
  try {
    const [alice, bob] = traders as [Trader, Trader];
    const plain = markets[0]!;
    const negRisk = await createMarket(server.urls.clob, 'Neg-risk event', { question: 'Will a thread sign it?', negRisk: true });
    const agents = Array.from({ length: 12 }, oneConnection);
    let salt = 1_000;
    const rest = { side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000 } as const;
    // Three rounds: a thread that has not been told a token's exchange leaves its orders to the
    // main thread, which tells it; from then on the thread prepares them.
    for (let round = 0; round < 3; round++) {
      for (const agent of agents) {
        const plainOrder = alice.placementBody({ ...rest, tokenId: plain.yes, salt: salt++ });
        const negRiskOrder = alice.placementBody({ ...rest, tokenId: negRisk.yes, negRisk: true, salt: salt++ });
        const otherExchange = alice.placementBody({ ...rest, tokenId: negRisk.no, negRisk: false, salt: salt++ });
        const bobSigned = alice.placementBody({ ...rest, tokenId: plain.no, salt: salt++ }, bob);
        const noSignature = alice.placementBody({ ...rest, tokenId: plain.yes, salt: salt++ });
        (noSignature.body['order'] as Record<string, unknown>)['signature'] = '0x1234';
        const unknownToken = alice.placementBody({ ...rest, tokenId: '12345', salt: salt++ });
        const batch = [plainOrder.body, negRiskOrder.body, otherExchange.body, bobSigned.body, noSignature.body, 42, unknownToken.body];
        const placed = await send(agent, server.urls.clob, alice, 'POST', '/orders', batch);
        assert.equal(placed.status, 200, JSON.stringify(placed.body));
        const answers = placed.body as { success: boolean; errorMsg: string; orderID: string }[];
        assert.deepEqual(answers.map((answer) => [answer.success, answer.errorMsg, answer.orderID]), [
          [true, '', plainOrder.orderId], [true, '', negRiskOrder.orderId],
          [false, 'invalid signature', ''], [false, 'invalid signature', ''], [false, 'invalid signature', ''],
          [false, 'order must be an object', ''], [false, 'market not found', ''],
        ]);
        const one = alice.placementBody({ ...rest, tokenId: negRisk.no, negRisk: true, salt: salt++ });
        const single = await send(agent, server.urls.clob, alice, 'POST', '/order', one.body);
        assert.equal(single.status, 200, JSON.stringify(single.body));
        assert.equal((single.body as { orderID: string }).orderID, one.orderId);
      }
    }
    const recovered = await samples(server, 'clobd_signatures_recovered_total', 'where');
    // Per connection and round: 6 signatures checked (2 + 3 refused in the batch, 1 alone).
    assert.equal(total(recovered), 3 * agents.length * 6, JSON.stringify([...recovered]));
    assert.ok((recovered.get('front_end_threads') ?? 0) > 0, 'the threads recovered signatures themselves');
    const open = await send(agents[0]!, server.urls.clob, alice, 'GET', '/data/orders');
    assert.equal((open.body as { data: unknown[] }).data.length, 3 * agents.length * 3, 'every order placed rests, once');
    for (const agent of agents) agent.destroy();
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});

/** clobd_front_end_checked_total of a route ('POST /order', 'DELETE /order') summed over the threads, by outcome. */
async function checkedOn(server: RunningServer, route: string): Promise<{ done: number; handedOver: number }> {
  const metrics = await request<string>(`${server.urls.clob}/metrics`);
  const counts = { done: 0, handedOver: 0 };
  for (const match of metrics.text.matchAll(/^clobd_front_end_checked_total\{front_end="\d+",route="([^"]+)",outcome="(\w+)"\} (\d+)$/gm)) {
    if (match[1] !== route) continue;
    if (match[2] === 'done') counts.done += Number(match[3]);
    else counts.handedOver += Number(match[3]);
  }
  return counts;
}

test('a thread checks a POST /order and a DELETE /order in full itself: done once with the route\'s answer, caps exact, a revoked key refused at once', async () => {
  const dir = temporaryDataDir();
  const capsFile = join(dir, 'caps.json');
  writeFileSync(capsFile, JSON.stringify({ 'POST /order burst': { requests: 60, windowSeconds: 600 } }));
  const { server, markets, traders } = await startTrading([321, 322], { FRONT_ENDS, RATE_LIMITS: capsFile });
  try {
    const [alice, bob] = traders as [Trader, Trader];
    const market = markets[0]!;
    const agents = Array.from({ length: 12 }, oneConnection);
    let salt = 5_000;
    const rest = { tokenId: market.yes, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000 } as const;
    // Two orders on each connection: the first teaches its thread the key and the market, the
    // second is checked there. Then one the engine refuses (a SELL of shares Alice does not
    // have), whose answer must be the route's.
    for (let round = 0; round < 2; round++) {
      for (const agent of agents) {
        const { body, orderId } = alice.placementBody({ ...rest, salt: salt++ });
        const placed = await send(agent, server.urls.clob, alice, 'POST', '/order', body);
        assert.equal(placed.status, 200, JSON.stringify(placed.body));
        assert.deepEqual(placed.body, { success: true, errorMsg: '', orderID: orderId, status: 'live', makingAmount: '0', takingAmount: '0' });
      }
    }
    for (const agent of agents) {
      const unfunded = alice.placementBody({ ...rest, side: 'SELL', salt: salt++ });
      const refused = await send(agent, server.urls.clob, alice, 'POST', '/order', unfunded.body);
      assert.deepEqual([refused.status, refused.body], [400, { error: 'not enough balance / allowance' }]);
    }
    const placing = await checkedOn(server, 'POST /order');
    assert.ok(placing.done > 0, 'the threads placed orders they checked');
    assert.equal(placing.handedOver, 0);
    const open = await send(agents[0]!, server.urls.clob, alice, 'GET', '/data/orders');
    const ids = (open.body as { data: { id: string }[] }).data.map((order) => order.id);
    assert.equal(ids.length, 2 * agents.length, 'each order placed once');
    // Each order cancelled on a connection other than the one that placed it, twice: once done, then not.
    for (const [index, orderId] of ids.slice(0, agents.length).entries()) {
      const agent = agents[(index + 5) % agents.length]!;
      const cancelled = await send(agent, server.urls.clob, alice, 'DELETE', '/order', { orderID: orderId });
      assert.deepEqual(cancelled.body, { canceled: [orderId], not_canceled: {} });
      const again = await send(agent, server.urls.clob, alice, 'DELETE', '/order', { orderID: orderId });
      assert.deepEqual((again.body as { canceled: string[] }).canceled, []);
      assert.equal(Object.keys((again.body as { not_canceled: Record<string, string> }).not_canceled)[0], orderId);
    }
    const badId = await send(agents[1]!, server.urls.clob, alice, 'DELETE', '/order', { orderID: '' });
    assert.equal(badId.status, 400);
    assert.ok((await checkedOn(server, 'DELETE /order')).done > 0, 'the threads cancelled orders they checked');

    // A key revoked on one connection is refused on every other at once, though the threads knew
    // it: a thread checks the order and hands it over, the route refuses it, and the thread forgets
    // the key.
    const revoked = await send(agents[0]!, server.urls.clob, alice, 'DELETE', '/auth/api-key');
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    for (const agent of agents) {
      const after = await send(agent, server.urls.clob, alice, 'POST', '/order', alice.placementBody({ ...rest, salt: salt++ }).body);
      assert.deepEqual([after.status, after.body], [401, { error: 'Unauthorized/Invalid api key' }]);
      const cancel = await send(agent, server.urls.clob, alice, 'DELETE', '/order', { orderID: ids.at(-1)! });
      assert.deepEqual([cancel.status, cancel.body], [401, { error: 'Unauthorized/Invalid api key' }]);
    }
    // Each thread that knew the key handed one order over and was told to forget the key: the
    // rest went over whole (12 orders and 12 cancels over 3 threads).
    const handedOver = (await checkedOn(server, 'POST /order')).handedOver;
    assert.ok(handedOver >= 1 && handedOver <= 3, `one order handed over per thread, not ${handedOver}`);
    assert.equal((await checkedOn(server, 'DELETE /order')).handedOver, 0);

    // The cap is exact across threads, whichever thread charged it: Bob's 24 warm-up orders (the
    // threads learn his key) leave 36 of 60, and a flood of 50 places exactly those.
    for (let round = 0; round < 2; round++) {
      for (const agent of agents) assert.equal((await send(agent, server.urls.clob, bob, 'POST', '/order', bob.placementBody({ ...rest, salt: salt++ }).body)).status, 200);
    }
    const placedBefore = (await checkedOn(server, 'POST /order')).done;
    const flood = await Promise.all(Array.from({ length: 50 }, (_, index) => send(agents[index % agents.length]!, server.urls.clob, bob, 'POST', '/order', bob.placementBody({ ...rest, salt: salt++ }).body)));
    assert.deepEqual([flood.filter((answer) => answer.status === 200).length, flood.filter((answer) => answer.status === 429).length], [36, 14]);
    assert.ok((await checkedOn(server, 'POST /order')).done > placedBefore, 'the flood went through the threads\' own checks');
    for (const agent of agents) agent.destroy();
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
    removeDataDir(dir);
  }
});

test('batch reads (POST /books, /prices, …) a thread answers itself for the same body, and every connection sees a change at once', async () => {
  const { server, markets, traders } = await startTrading([321], { FRONT_ENDS });
  try {
    const [alice] = traders as [Trader];
    const [first, second] = markets as [PlainMarket, PlainMarket];
    const agents = Array.from({ length: 12 }, oneConnection);
    const both = [{ token_id: first.yes }, { token_id: second.yes }];
    const other = [{ token_id: first.no }];
    type Book = { asset_id: string; bids: { price: string }[] };
    const books = async (agent: Agent, body: unknown): Promise<Book[]> => {
      const answer = await send(agent, server.urls.clob, alice, 'POST', '/books', body);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body as Book[];
    };
    // Each connection reads both bodies a few times: its thread keeps each answer for its own body.
    for (let round = 0; round < 3; round++) {
      for (const agent of agents) {
        assert.deepEqual((await books(agent, both)).map((book) => book.asset_id), [first.yes, second.yes]);
        assert.deepEqual((await books(agent, other)).map((book) => book.asset_id), [first.no], 'another body is never answered with a kept one\'s answer');
        const market = await send(agent, server.urls.clob, alice, 'GET', `/markets-by-token/${second.no}`);
        assert.deepEqual(market.body, { condition_id: second.conditionId, primary_token_id: second.yes, secondary_token_id: second.no });
      }
    }
    const kept = await samples(server, 'clobd_front_end_kept_answers_total', 'front_end');
    assert.ok(total(kept) >= 54, `the threads answered most of them themselves: ${JSON.stringify([...kept])}`);
    const metrics = await request<string>(`${server.urls.clob}/metrics`);
    assert.match(metrics.text, /clobd_http_requests_total\{listener="clob",method="POST",route="\/books",status="200"\} 72\n/, 'every answer counted under its route');

    // An order on the second book, on one connection: every other connection's batch shows it at once.
    const priceUnits = 4_200;
    const { body, orderId } = alice.placementBody({ tokenId: second.yes, side: 'BUY', priceUnits, sizeMicros: 10_000_000 });
    const placed = await send(agents[0]!, server.urls.clob, alice, 'POST', '/order', body);
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const showsBid = (batch: Book[]): boolean => batch[1]!.bids.some((level) => Number(level.price) === priceUnits / 10_000);
    for (const batch of await Promise.all(agents.map((agent) => books(agent, both)))) assert.ok(showsBid(batch), 'every connection\'s POST /books shows the order');
    for (const agent of agents) {
      const prices = await send(agent, server.urls.clob, alice, 'POST', '/prices', [{ token_id: second.yes, side: 'BUY' }]);
      assert.deepEqual(prices.body, { [second.yes]: { BUY: String(priceUnits / 10_000) } });
    }
    const cancelled = await send(agents[1]!, server.urls.clob, alice, 'DELETE', '/order', { orderID: orderId });
    assert.deepEqual((cancelled.body as { canceled: string[] }).canceled, [orderId]);
    for (const batch of await Promise.all(agents.map((agent) => books(agent, both)))) assert.ok(!showsBid(batch), 'and none once it is cancelled');
    for (const agent of agents) {
      const prices = await send(agent, server.urls.clob, alice, 'POST', '/prices', [{ token_id: second.yes, side: 'BUY' }]);
      assert.deepEqual(prices.body, { [second.yes]: {} });
    }
    for (const agent of agents) agent.destroy();
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});

/**
 * GET /markets, /sampling-markets, /markets/{id}, … read many times on 12 connections, then a
 * pause and a new market: every connection sees each at once, whatever a thread kept or the main
 * thread cached (with one front end, the main thread's cache alone).
 */
async function tradingMarketReads(frontEnds: string): Promise<void> {
  const { server, markets, traders } = await startTrading([331], { FRONT_ENDS: frontEnds });
  try {
    const [alice] = traders as [Trader];
    const market = markets[0]!;
    const agents = Array.from({ length: 12 }, oneConnection);
    type Page = { data: { condition_id: string; accepting_orders: boolean }[] };
    const read = async <T>(agent: Agent, path: string): Promise<T> => {
      const answer = await send(agent, server.urls.clob, alice, 'GET', path);
      assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
      return answer.body as T;
    };
    const sampled = async (agent: Agent): Promise<boolean> => (await read<Page>(agent, '/sampling-markets')).data.some((listed) => listed.condition_id === market.conditionId);
    const keptSoFar = async (): Promise<number> => total(await samples(server, 'clobd_front_end_kept_answers_total', 'front_end'));
    // Gamma's /markets (the catalog listener) and the CLOB's are different answers of one path: the
    // main thread's cache keeps them apart (a fuzz run found the CLOB answering Gamma's).
    for (const [listener, url] of [['catalog', `${server.urls.catalog}/markets`], ['clob', `${server.urls.clob}/markets`], ['catalog', `${server.urls.catalog}/markets`]] as const) {
      const answer = await request<unknown>(url);
      assert.equal(answer.status, 200);
      assert.equal(Array.isArray(answer.body), listener === 'catalog', `${listener} /markets: ${answer.text.slice(0, 80)}`);
    }
    const before = frontEnds === '1' ? 0 : await keptSoFar();
    for (let round = 0; round < 3; round++) {
      for (const agent of agents) {
        assert.equal((await read<{ accepting_orders: boolean }>(agent, `/markets/${market.conditionId}`)).accepting_orders, true);
        assert.equal((await read<{ c: string }>(agent, `/clob-markets/${market.conditionId}`)).c, market.conditionId);
        assert.ok(await sampled(agent), 'the market accepts orders: it is among the sampling markets');
        assert.ok((await read<Page>(agent, '/simplified-markets')).data.length > 0);
      }
    }
    if (frontEnds !== '1') assert.ok(await keptSoFar() - before >= 96, 'the threads answered most of the 144 reads themselves');

    // A change of the catalog and the engine (a pause), answered on one connection, is in every
    // connection's reads at once, whatever its thread kept.
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const paused = await request(`${server.urls.clob}/admin/markets/${market.conditionId}/pause`, { method: 'POST', headers: admin });
    assert.equal(paused.status, 200, paused.text);
    for (const agent of agents) {
      assert.equal((await read<{ accepting_orders: boolean }>(agent, `/markets/${market.conditionId}`)).accepting_orders, false, 'paused on every connection');
      assert.ok(!(await sampled(agent)), 'and no longer sampled');
    }
    // An order that moves a demo market's midpoint moves its token's price in every connection's
    // read at once.
    type Listed = { condition_id: string; neg_risk: boolean; tokens: { token_id: string; price: number }[] };
    const demo = (await read<{ data: Listed[] }>(agents[0]!, '/sampling-markets')).data.find((entry) => entry.condition_id !== market.conditionId && !entry.neg_risk)!;
    const yes = demo.tokens[0]!.token_id;
    const book = await read<{ bids: { price: string }[]; asks: { price: string }[]; tick_size: string }>(agents[0]!, `/book?token_id=${yes}`);
    const units = (text: string): number => Math.round(Number(text) * 10_000);
    const [bid, ask, tick] = [units(book.bids.at(-1)!.price), units(book.asks.at(-1)!.price), units(book.tick_size)];
    assert.ok(ask - bid >= 2 * tick, `the demo market's spread leaves room for a better bid (${bid}, ${ask})`);
    const priceOf = async (agent: Agent): Promise<number> => (await read<Listed>(agent, `/markets/${demo.condition_id}`)).tokens[0]!.price;
    for (let round = 0; round < 2; round++) for (const agent of agents) assert.equal(await priceOf(agent), (bid + ask) / 20_000);
    const better = await alice.place({ tokenId: yes, side: 'BUY', priceUnits: bid + tick, sizeMicros: 5_000_000 });
    assert.equal(better.status, 200, better.text);
    for (const agent of agents) assert.equal(await priceOf(agent), (bid + tick + ask) / 20_000, 'the new midpoint on every connection');
    // A market created on one connection is listed on every other at once, though each thread
    // kept the list without it.
    for (let round = 0; round < 2; round++) for (const agent of agents) await read<Page>(agent, '/markets');
    const created = await createMarket(server.urls.clob, 'Kept lists', { question: 'Is it listed at once?' });
    for (const agent of agents) {
      const listed = await read<Page>(agent, '/markets');
      assert.ok(listed.data.some((entry) => entry.condition_id === created.conditionId), 'every connection lists the new market');
    }
    for (const agent of agents) agent.destroy();
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
}

test('trading-market reads a thread answers itself while the catalog and the books are unchanged: every connection sees a change at once', () => tradingMarketReads(FRONT_ENDS));

test('with one front end, the main thread\'s cached trading-market reads show a change at once too', () => tradingMarketReads('1'));

test('caps are exact across front ends, for reads a thread answers itself too', async () => {
  const dir = temporaryDataDir();
  const capsFile = join(dir, 'caps.json');
  writeFileSync(capsFile, JSON.stringify({ 'GET /book': { requests: 50, windowSeconds: 600 }, 'POST /books': { requests: 50, windowSeconds: 600 } }));
  const server = await startServer({ env: { RATE_LIMITS: capsFile, FRONT_ENDS } });
  try {
    const markets = (await request<{ data: { tokens: { token_id: string }[] }[] }>(`${server.urls.clob}/sampling-markets`)).body.data;
    const token = markets[0]!.tokens[0]!.token_id;
    const reads = [
      { method: 'GET', path: `/book?token_id=${token}`, body: '', route: '\\/book' },
      { method: 'POST', path: '/books', body: JSON.stringify([{ token_id: token }]), route: '\\/books' },
    ];
    for (const read of reads) {
      const agents = Array.from({ length: 16 }, oneConnection);
      // Warm every connection's thread with the read first (each keeps it), then read it from all of them.
      const statuses: number[] = [];
      for (let round = 0; round < 5; round++) {
        const answers = await Promise.all(agents.map((agent) => new Promise<number>((resolve, reject) => {
          const url = new URL(read.path, server.urls.clob);
          const headers = read.body === '' ? {} : { 'content-type': 'application/json', 'content-length': String(read.body.length) };
          httpRequest({ agent, host: url.hostname, port: url.port, method: read.method, path: url.pathname + url.search, headers }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          }).on('error', reject).end(read.body);
        })));
        statuses.push(...answers);
      }
      assert.equal(statuses.length, 80);
      assert.equal(statuses.filter((status) => status === 200).length, 50, `${read.method} ${read.path}: exactly the cap, however the threads shared the requests`);
      assert.equal(statuses.filter((status) => status === 429).length, 30);
      const metrics = await request<string>(`${server.urls.clob}/metrics`);
      assert.match(metrics.text, new RegExp(`clobd_http_requests_total\\{listener="clob",method="${read.method}",route="${read.route}",status="200"\\} 50\\n`), 'every answer counted, those a thread gave itself too');
      for (const agent of agents) agent.destroy();
    }
    const served = await frontEndRequests(server);
    assert.ok(total(served) > 0, 'the other threads took some of them');
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
    removeDataDir(dir);
  }
});

interface Lane {
  readonly trader: Trader;
  readonly market: PlainMarket;
  readonly placeOn: Agent;
  readonly cancelOn: Agent;
  /** Every order sent, with what it reserves while it rests (micros). */
  readonly sent: Map<string, number>;
  /** Orders answered 200. */
  readonly placed: Set<string>;
  /** Orders whose cancel was answered 200 with the id among `canceled`. */
  readonly cancelled: Set<string>;
}

/** Runs `pairs` place-then-cancel pairs on a lane, each on its own connection; stops at the first failed request (the kill). */
async function runLane(lane: Lane, base: string, pairs: number, salt: number): Promise<void> {
  for (let pair = 0; pair < pairs; pair++) {
    const priceUnits = 100 + ((salt + pair) % 30) * 100;
    const sizeMicros = 5_000_000 + (pair % 7) * 1_000_000;
    const { body, orderId } = lane.trader.placementBody({ tokenId: lane.market.yes, side: 'BUY', priceUnits, sizeMicros, salt: salt + pair });
    lane.sent.set(orderId, Math.ceil((priceUnits * sizeMicros) / 10_000));
    let placed: Answer;
    try {
      placed = await send(lane.placeOn, base, lane.trader, 'POST', '/order', body);
    } catch {
      return;
    }
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    lane.placed.add(orderId);
    let cancelled: Answer;
    try {
      cancelled = await send(lane.cancelOn, base, lane.trader, 'DELETE', '/order', { orderID: orderId });
    } catch {
      return;
    }
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.deepEqual((cancelled.body as { canceled: string[] }).canceled, [orderId], 'the cancel on another connection finds the order at once');
    lane.cancelled.add(orderId);
  }
}

/**
 * After the restart: every acknowledged order is known, every acknowledged cancel holds, the open
 * orders are exactly those read LIVE, and the account's free collateral is its deposit less what
 * they reserve, to the micro.
 */
async function checkLane(lane: Lane, base: string): Promise<void> {
  const agent = oneConnection();
  try {
    const live = new Set<string>();
    for (const orderId of lane.sent.keys()) {
      const read = await send(agent, base, lane.trader, 'GET', `/data/order/${orderId}`);
      if (read.status !== 200) {
        assert.ok(!lane.placed.has(orderId), `acknowledged order ${orderId} is known after the restart (${read.status})`);
        continue;
      }
      const status = (read.body as { order: { status: string } }).order.status;
      if (lane.cancelled.has(orderId)) assert.equal(status, 'CANCELED', 'an acknowledged cancel survives');
      else if (status === 'LIVE') live.add(orderId);
      else assert.equal(status, 'CANCELED', `order ${orderId}: LIVE, or cancelled by a cancel that was in flight`);
    }
    const open = await send(agent, base, lane.trader, 'GET', `/data/orders?market=${lane.market.conditionId}`);
    assert.equal(open.status, 200);
    const openIds = (open.body as { data: { id: string }[] }).data.map((order) => order.id);
    assert.deepEqual(new Set(openIds), live, 'the open orders are the ones read LIVE');
    const reserved = openIds.reduce((sum, orderId) => sum + lane.sent.get(orderId)!, 0);
    const balance = await send(agent, base, lane.trader, 'GET', '/balance-allowance?asset_type=COLLATERAL');
    assert.equal(balance.status, 200);
    const { balance: total, allowance: free } = balance.body as { balance: string; allowance: string };
    assert.equal(Number(total), DEPOSIT_MICROS, 'collateral is conserved: free + reserved = the deposit');
    assert.equal(Number(free), DEPOSIT_MICROS - reserved, 'exactly the open orders reserve: each order reserved and released once');
  } finally {
    agent.destroy();
  }
}

test('an order on one connection and its cancel on another, thousands of times across front ends, with a kill -9 in the middle', async () => {
  const seeds = Array.from({ length: LANES }, (_, lane) => 400 + lane);
  const first = await startTrading(seeds, { FRONT_ENDS }, DEPOSIT_MICROS);
  const { dataDir } = first.server;
  let second: RunningServer | undefined;
  try {
    const lanes: Lane[] = first.traders.map((trader, index) => ({
      trader, market: first.markets[index % first.markets.length]!, placeOn: oneConnection(), cancelOn: oneConnection(),
      sent: new Map(), placed: new Set(), cancelled: new Set(),
    }));
    const running = lanes.map((lane, index) => runLane(lane, first.server.urls.clob, PAIRS_BEFORE_KILL, index * 1_000_000));
    // Kill once about half the pairs are acknowledged, in the middle of the traffic.
    const target = (LANES * PAIRS_BEFORE_KILL) / 2;
    while (lanes.reduce((sum, lane) => sum + lane.cancelled.size, 0) < target) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(await first.server.stop('SIGKILL'), null, 'killed by the signal');
    await Promise.all(running);
    for (const lane of lanes) {
      lane.placeOn.destroy();
      lane.cancelOn.destroy();
    }
    const acknowledged = lanes.reduce((sum, lane) => sum + lane.placed.size + lane.cancelled.size, 0);
    assert.ok(acknowledged >= LANES * PAIRS_BEFORE_KILL, `${acknowledged} acknowledged places and cancels before the kill`);

    second = await startServer({ dataDir, env: { ADMIN_TOKEN, SHARDS: '2', FRONT_ENDS } });
    const base = second.urls.clob;
    for (const lane of lanes) lane.trader.clobUrl = base;
    for (const lane of lanes) await checkLane(lane, base);
    // And it goes on: the same lanes on the restarted server, then the same checks.
    const again = lanes.map((lane) => ({ ...lane, placeOn: oneConnection(), cancelOn: oneConnection() }));
    await Promise.all(again.map((lane, index) => runLane(lane, base, PAIRS_AFTER_RESTART, 50_000_000 + index * 1_000_000)));
    for (const lane of again) {
      lane.placeOn.destroy();
      lane.cancelOn.destroy();
      await checkLane(lane, base);
    }
  } finally {
    if (second !== undefined) await second.stop();
    removeDataDir(dataDir);
  }
});

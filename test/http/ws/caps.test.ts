// The WebSocket channels' caps against the real server with its default caps in force (issue 39):
// a PING flood and a flood of subscription toggles are refused and their sockets closed, with the
// messages they got out bounded, while another client address keeps being served.
//
// Each test connects from its own loopback address (127.0.0.x: the server sees each as another
// client address), so one test's per-address buckets never decide another's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { startTrading } from '../orders/trader.js';

let server: RunningServer;
/** Every token of the demo catalog (its market maker quotes each, so every `book` has levels). */
let tokens: readonly string[];

before(async () => {
  // RATE_LIMITS empty: the default caps, as a server started without the setting has them.
  ({ server } = await startTrading([], { RATE_LIMITS: '' }));
  const markets = (await request<{ data: { tokens: { token_id: string }[] }[] }>(`${server.urls.clob}/sampling-markets`)).body.data;
  tokens = markets.flatMap((market) => market.tokens.map((token) => token.token_id));
  assert.ok(tokens.length >= 80, `${tokens.length} demo tokens`);
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

type Message = Record<string, unknown>;

/** A socket that counts what it received and keeps its error messages. */
interface Client {
  readonly ws: WebSocket;
  /** Messages received (text frames), and their bytes. */
  received: number;
  bytes: number;
  books: number;
  pongs: number;
  /** Answers to ws-level pings. */
  controlPongs: number;
  readonly errors: Message[];
  closing: { code: number; reason: string } | undefined;
  readonly closed: Promise<{ code: number; reason: string }>;
}

async function connect(channel: 'market' | 'user', localAddress: string): Promise<Client> {
  const ws = new WebSocket(`${server.urls.clob.replace('http', 'ws')}/ws/${channel}`, { localAddress });
  const client: Client = {
    ws, received: 0, bytes: 0, books: 0, pongs: 0, controlPongs: 0, errors: [], closing: undefined,
    closed: new Promise((resolve) => ws.on('close', (code, reason) => {
      client.closing = { code, reason: String(reason) };
      resolve(client.closing);
    })),
  };
  ws.on('message', (data: Buffer) => {
    client.received++;
    client.bytes += data.length;
    const text = String(data);
    if (text === 'PONG') {
      client.pongs++;
      return;
    }
    const message = JSON.parse(text) as Message;
    if (message['event_type'] === 'book') client.books++;
    if ('error' in message) client.errors.push(message);
  });
  ws.on('pong', () => client.controlPongs++);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return client;
}

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A socket from another address, subscribed to two tokens: the flood must not reach it. */
async function bystander(localAddress: string): Promise<Client> {
  const client = await connect('market', localAddress);
  client.ws.send(JSON.stringify({ assets_ids: tokens.slice(0, 2), type: 'market' }));
  await until(() => client.books === 2, "the bystander's books");
  return client;
}

/** The bystander still answers, and GET /time too. */
async function assertServed(client: Client): Promise<void> {
  const pongs = client.pongs;
  client.ws.send('PING');
  await until(() => client.pongs === pongs + 1, "the bystander's PONG");
  assert.equal(client.closing, undefined, 'the bystander is still open');
  assert.deepEqual(client.errors, []);
  assert.equal((await request(`${server.urls.clob}/time`)).status, 200);
}

test('a PING flood is refused and its socket closed after a few PONGs, text PINGs and ws-level pings alike', async () => {
  const watcher = await bystander('127.0.0.2');
  const PINGS = 2_000;
  const text = await connect('market', '127.0.0.3');
  for (let count = 0; count < PINGS; count++) text.ws.send('PING');
  await until(() => text.closing !== undefined || text.pongs === PINGS, 'the text flood to end');
  const control = await connect('market', '127.0.0.3');
  for (let count = 0; count < PINGS; count++) control.ws.ping();
  await until(() => control.closing !== undefined || control.controlPongs === PINGS, 'the ping flood to end');
  for (const client of [text, control]) {
    assert.notEqual(client.closing, undefined, `closed (got ${client.pongs + client.controlPongs} PONGs for ${PINGS} PINGs)`);
    assert.equal(client.closing!.code, 4429);
    assert.ok(client.pongs + client.controlPongs < 100, `${client.pongs + client.controlPongs} PONGs`);
  }
  assert.match(String(text.errors.at(-1)?.['error']), /^Too Many Requests/);
  await assertServed(watcher);
  watcher.ws.close();
});

test('a flood of subscription toggles on 20 sockets is refused and closed, with the messages out bounded', async () => {
  const watcher = await bystander('127.0.0.4');
  const SOCKETS = 20;
  const TOGGLES = 50;
  const flood = await Promise.all(Array.from({ length: SOCKETS }, () => connect('market', '127.0.0.5')));
  const subscribe = JSON.stringify({ operation: 'subscribe', assets_ids: tokens });
  const unsubscribe = JSON.stringify({ operation: 'unsubscribe', assets_ids: tokens });
  for (let toggle = 0; toggle < TOGGLES; toggle++) {
    for (const client of flood) {
      if (client.closing !== undefined) continue;
      client.ws.send(subscribe);
      client.ws.send(unsubscribe);
    }
    // Let the answers in between rounds, as a reader that keeps up would.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const booksUnbounded = SOCKETS * TOGGLES * tokens.length;
  const books = () => flood.reduce((sum, client) => sum + client.books, 0);
  await until(() => flood.every((client) => client.closing !== undefined) || books() === booksUnbounded, 'the flood to end', 60_000);
  const open = flood.filter((client) => client.closing === undefined).length;
  assert.equal(open, 0, `every flooding socket closed (${open} open, ${books()} books sent)`);
  for (const client of flood) assert.equal(client.closing!.code, 4429);
  assert.ok(books() < 20_000, `${books()} books of the ${booksUnbounded} asked for`);
  await assertServed(watcher);
  watcher.ws.close();
});

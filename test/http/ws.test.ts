// The live channels over real WebSockets against the real server: a market-channel reader that
// applies `book` and then every `price_change` of a token while orders flow ends with exactly the
// book GET /book serves; last trades, PING/PONG, unsubscribe, bad input; the user channel sends
// the caller's orders and trades only and closes on wrong credentials; sockets per address are
// bounded.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { removeDataDir, request, type RunningServer } from '../support/server.js';
import { startTrading, type PlainMarket, type Trader } from './orders/trader.js';

type Level = { price: string; size: string };
type Message = Record<string, unknown>;

let server: RunningServer;
let markets: readonly PlainMarket[];
let traders: readonly Trader[];
/** WS_SOCKETS_PER_IP for this server: small, so the bound is quick to reach. */
const SOCKETS_PER_IP = 8;

before(async () => {
  ({ server, markets, traders } = await startTrading([81, 82, 83], { WS_SOCKETS_PER_IP: String(SOCKETS_PER_IP) }));
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

function wsUrl(channel: string): string {
  return `${server.urls.clob.replace('http', 'ws')}/ws/${channel}`;
}

/** A socket that keeps every message it received (parsed when JSON). */
async function connect(channel: string): Promise<{ ws: WebSocket; messages: (Message | string)[]; closed: Promise<{ code: number; reason: string }> }> {
  const ws = new WebSocket(wsUrl(channel));
  const messages: (Message | string)[] = [];
  ws.on('message', (data) => {
    const text = String(data);
    try {
      const parsed = JSON.parse(text) as unknown;
      if (Array.isArray(parsed)) for (const item of parsed) messages.push(item as Message);
      else messages.push(parsed as Message);
    } catch {
      messages.push(text);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, messages, closed };
}

async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A reader's book: the `book` message, then every `price_change` entry of its token applied in order. */
class BookReader {
  bids = new Map<string, string>();
  asks = new Map<string, string>();
  hash = '';
  applied = 0;

  constructor(readonly tokenId: string) {}

  apply(message: Message): void {
    if (message['event_type'] === 'book' && message['asset_id'] === this.tokenId) {
      this.bids = new Map((message['bids'] as Level[]).map((level) => [level.price, level.size]));
      this.asks = new Map((message['asks'] as Level[]).map((level) => [level.price, level.size]));
      this.hash = message['hash'] as string;
    } else if (message['event_type'] === 'price_change') {
      for (const change of message['price_changes'] as Message[]) {
        if (change['asset_id'] !== this.tokenId) continue;
        const side = change['side'] === 'BUY' ? this.bids : this.asks;
        if (change['size'] === '0') side.delete(change['price'] as string);
        else side.set(change['price'] as string, change['size'] as string);
        this.hash = change['hash'] as string;
        this.applied++;
      }
    }
  }

  /** Bids ascending and asks descending, as GET /book sorts them. */
  levels(): { bids: Level[]; asks: Level[] } {
    const sorted = (side: Map<string, string>, direction: number) => [...side].sort((a, b) => direction * (Number(a[0]) - Number(b[0])))
      .map(([price, size]) => ({ price, size }));
    return { bids: sorted(this.bids, 1), asks: sorted(this.asks, -1) };
  }
}

test('a market-channel reader that applies book then every price_change holds exactly the book GET /book serves, while orders flow', async () => {
  const market = markets[0]!;
  const [alice, bob, carol] = traders as [Trader, Trader, Trader];
  // Something on the book before anyone subscribes.
  assert.equal((await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 4000, sizeMicros: 10_000_000 })).status, 200);
  const { ws, messages } = await connect('market');
  ws.send(JSON.stringify({ assets_ids: [market.yes, market.no], type: 'market' }));
  await until(() => messages.filter((m) => typeof m === 'object' && m['event_type'] === 'book').length === 2, 'both book messages');
  const readers = [new BookReader(market.yes), new BookReader(market.no)];
  // A flow on both tokens: resting orders, crossing ones (NORMAL and MINT fills), cancels.
  const placed: { trader: Trader; orderId: string }[] = [];
  for (let step = 0; step < 40; step++) {
    const trader = [alice, bob, carol][step % 3]!;
    const token = step % 2 === 0 ? market.yes : market.no;
    const priceUnits = 3000 + 100 * ((step * 7) % 20);
    const crossing = step % 5 === 4;
    const answer = await trader.place({
      tokenId: token, side: 'BUY', priceUnits: crossing ? 9000 : priceUnits, sizeMicros: 5_000_000 + 1_000_000 * (step % 3),
      orderType: crossing ? 'FAK' : 'GTC',
    });
    if (answer.status === 200) placed.push({ trader, orderId: answer.orderId });
    if (step % 6 === 5 && placed.length > 2) {
      const { trader: owner, orderId } = placed.splice(1, 1)[0]!;
      await owner.send('DELETE', '/order', { orderID: orderId });
    }
  }
  for (const reader of readers) {
    const expected = (await request<{ bids: Level[]; asks: Level[]; hash: string }>(`${server.urls.clob}/book?token_id=${reader.tokenId}`)).body;
    await until(() => {
      for (const message of messages.splice(0)) if (typeof message === 'object') for (const r of readers) r.apply(message);
      return reader.hash === expected.hash;
    }, `the ${reader.tokenId === market.yes ? 'YES' : 'NO'} reader reaching the served book's hash`);
    assert.deepEqual(reader.levels(), { bids: expected.bids, asks: expected.asks });
    assert.ok(reader.applied > 10, `${reader.applied} price changes applied`);
  }
  ws.close();
});

test('price changes carry best prices, fills send last_trade_price, PING answers PONG, unsubscribe stops the flow', async () => {
  const market = markets[1]!;
  const [alice, bob] = traders as [Trader, Trader];
  const { ws, messages } = await connect('market');
  ws.send('PING');
  await until(() => messages.includes('PONG'), 'PONG');
  ws.send(JSON.stringify({ assets_ids: [market.yes], type: 'market' }));
  await until(() => messages.some((m) => typeof m === 'object' && m['event_type'] === 'book'), 'the book');
  assert.equal((await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 4500, sizeMicros: 10_000_000 })).status, 200);
  await until(() => messages.some((m) => typeof m === 'object' && m['event_type'] === 'price_change'), 'a price change');
  const change = (messages.find((m) => typeof m === 'object' && m['event_type'] === 'price_change') as Message)['price_changes'] as Message[];
  assert.deepEqual({ ...change[0], hash: undefined }, {
    asset_id: market.yes, price: '0.45', size: '10', side: 'BUY', hash: undefined, best_bid: '0.45', best_ask: '1',
  });
  // A MINT: BUY NO at 0.55 against the YES bid at 0.45.
  const mint = await bob.place({ tokenId: market.no, side: 'BUY', priceUnits: 5500, sizeMicros: 5_000_000, orderType: 'FOK' });
  assert.equal(mint.status, 200, mint.text);
  await until(() => messages.some((m) => typeof m === 'object' && m['event_type'] === 'last_trade_price'), 'the last trade');
  const trade = messages.find((m) => typeof m === 'object' && m['event_type'] === 'last_trade_price') as Message;
  assert.deepEqual([trade['asset_id'], trade['price'], trade['side'], trade['size'], trade['market']], [market.yes, '0.45', 'SELL', '5', market.conditionId]);
  ws.send(JSON.stringify({ operation: 'unsubscribe', assets_ids: [market.yes] }));
  ws.send('PING');
  await until(() => messages.filter((m) => m === 'PONG').length === 2, 'the second PONG');
  messages.length = 0;
  assert.equal((await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 4400, sizeMicros: 5_000_000 })).status, 200);
  ws.send('PING');
  await until(() => messages.includes('PONG'), 'a PONG after the order');
  assert.deepEqual(messages, ['PONG'], 'nothing about the unsubscribed token');
  ws.send('not json');
  ws.send(JSON.stringify({ assets_ids: 'x' }));
  ws.send(JSON.stringify({ assets_ids: ['123'], type: 'market' }));
  await until(() => messages.filter((m) => typeof m === 'object' && 'error' in m).length === 3, 'three errors');
  ws.close();
});

test('the user channel sends the caller its own orders and trades, and closes on wrong credentials', async () => {
  const market = markets[2]!;
  const [alice, bob, carol] = traders as [Trader, Trader, Trader];
  const bad = await connect('user');
  bad.ws.send(JSON.stringify({ auth: { apiKey: alice.credentials!.apiKey, secret: alice.credentials!.secret, passphrase: 'wrong' }, type: 'user' }));
  const closing = await bad.closed;
  assert.equal(closing.code, 1008);
  assert.match(closing.reason, /Unauthorized/);

  const { ws, messages } = await connect('user');
  const { apiKey, secret, passphrase } = alice.credentials!;
  ws.send(JSON.stringify({ auth: { apiKey, secret, passphrase }, markets: [], type: 'user' }));
  ws.send('PING');
  await until(() => messages.includes('PONG'), 'PONG');
  const resting = await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 3000, sizeMicros: 10_000_000 });
  assert.equal(resting.status, 200);
  assert.equal((await carol.place({ tokenId: market.yes, side: 'BUY', priceUnits: 2000, sizeMicros: 5_000_000 })).status, 200, "someone else's order");
  const hit = await bob.place({ tokenId: market.no, side: 'BUY', priceUnits: 7000, sizeMicros: 5_000_000, orderType: 'FOK' });
  assert.equal(hit.status, 200, hit.text);
  await until(() => messages.some((m) => typeof m === 'object' && m['event_type'] === 'trade'), 'the trade');
  await until(() => messages.some((m) => typeof m === 'object' && m['type'] === 'UPDATE'), 'the update');
  const objects = messages.filter((m): m is Message => typeof m === 'object');
  assert.ok(objects.every((m) => m['event_type'] !== 'order' || m['id'] === resting.orderId), 'only her own orders');
  const placement = objects.find((m) => m['type'] === 'PLACEMENT')!;
  assert.deepEqual([placement['id'], placement['owner'], placement['side'], placement['price'], placement['original_size'], placement['asset_id']],
    [resting.orderId, apiKey, 'BUY', '0.3', '10', market.yes]);
  const update = objects.find((m) => m['type'] === 'UPDATE')!;
  assert.equal(update['size_matched'], '5');
  const trade = objects.find((m) => m['event_type'] === 'trade')!;
  assert.equal(trade['taker_order_id'], hit.orderId);
  assert.equal((trade['maker_orders'] as Message[])[0]!['order_id'], resting.orderId);
  await alice.send('DELETE', '/order', { orderID: resting.orderId });
  await until(() => messages.some((m) => typeof m === 'object' && m['type'] === 'CANCELLATION'), 'the cancellation');
  ws.close();
});

test('sockets per client address are bounded: one more is refused with 429', async () => {
  // The server counts a socket until its close arrives: let the earlier tests' sockets go first.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const open: WebSocket[] = [];
  try {
    for (let count = 0; count < SOCKETS_PER_IP; count++) open.push((await connect('market')).ws);
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(wsUrl('market'));
      ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    assert.equal(refused, 429);
  } finally {
    for (const ws of open) ws.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  const again = await connect('market');
  again.ws.close();
});

// The market channel's `price_change` as Polymarket sends it: ONE message per committed command
// that changed a market's book, its `price_changes` holding the entries of both tokens of the
// market (a YES bid at p is a NO ask at 1 − p), keys in Polymarket's order
// ({market, price_changes: [{asset_id, price, size, side, hash, best_bid, best_ask}], timestamp,
// event_type}). A socket that follows both tokens gets it once, not once per token; a socket that
// follows one token gets the same message (both tokens' entries, as Polymarket sends the market's
// change to whoever follows any of its assets), and stops getting it once it follows neither.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { removeDataDir, request, type RunningServer } from '../../support/server.js';
import { startTrading, type PlainMarket, type Trader } from '../orders/trader.js';

type Message = Record<string, unknown>;

let server: RunningServer;
let markets: readonly PlainMarket[];
let traders: readonly Trader[];

before(async () => {
  ({ server, markets, traders } = await startTrading([91, 92]));
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

interface Socket {
  readonly ws: WebSocket;
  /** Every text frame, as received. */
  readonly frames: string[];
}

async function connect(): Promise<Socket> {
  const ws = new WebSocket(`${server.urls.clob.replace('http', 'ws')}/ws/market`);
  const frames: string[] = [];
  ws.on('message', (data) => frames.push(String(data)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, frames };
}

async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const parsed = (socket: Socket): Message[] => socket.frames.filter((frame) => frame !== 'PONG').map((frame) => JSON.parse(frame) as Message);
const ofType = (socket: Socket, type: string): Message[] => parsed(socket).filter((message) => message['event_type'] === type);

/** Sends a PING and waits for its PONG: whatever the server published before it has arrived. */
async function settled(socket: Socket): Promise<void> {
  const pongs = socket.frames.filter((frame) => frame === 'PONG').length;
  socket.ws.send('PING');
  await until(() => socket.frames.filter((frame) => frame === 'PONG').length > pongs, 'the PONG');
}

async function hashOf(tokenId: string): Promise<string> {
  return (await request<{ hash: string }>(`${server.urls.clob}/book?token_id=${tokenId}`)).body.hash;
}

test('one price_change per command for the whole market, both tokens\' entries, in Polymarket\'s key order', async () => {
  const market = markets[0]!;
  const [alice] = traders as [Trader];
  const both = await connect();
  const yesOnly = await connect();
  const noOnly = await connect();
  both.ws.send(JSON.stringify({ assets_ids: [market.yes, market.no], type: 'market' }));
  yesOnly.ws.send(JSON.stringify({ assets_ids: [market.yes], type: 'market' }));
  noOnly.ws.send(JSON.stringify({ assets_ids: [market.no], type: 'market' }));
  await until(() => ofType(both, 'book').length === 2 && ofType(yesOnly, 'book').length === 1 && ofType(noOnly, 'book').length === 1, 'the books');

  assert.equal((await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 4500, sizeMicros: 10_000_000 })).status, 200);
  for (const socket of [both, yesOnly, noOnly]) await until(() => ofType(socket, 'price_change').length > 0, 'the price change');
  for (const socket of [both, yesOnly, noOnly]) await settled(socket);

  const [yesHash, noHash] = [await hashOf(market.yes), await hashOf(market.no)];
  const frame = both.frames.find((text) => text.includes('"price_change"'))!;
  const message = JSON.parse(frame) as Message;
  assert.deepEqual(Object.keys(message), ['market', 'price_changes', 'timestamp', 'event_type'], frame);
  assert.equal(message['market'], market.conditionId);
  assert.match(message['timestamp'] as string, /^[0-9]{13}$/);
  const changes = message['price_changes'] as Message[];
  for (const change of changes) assert.deepEqual(Object.keys(change), ['asset_id', 'price', 'size', 'side', 'hash', 'best_bid', 'best_ask']);
  // The YES bid at 0.45 is, for NO, an ask at 0.55.
  assert.deepEqual(changes, [
    { asset_id: market.yes, price: '0.45', size: '10', side: 'BUY', hash: yesHash, best_bid: '0.45', best_ask: '1' },
    { asset_id: market.no, price: '0.55', size: '10', side: 'SELL', hash: noHash, best_bid: '0', best_ask: '0.55' },
  ]);
  // One message per socket, whichever tokens it follows, and the same one.
  for (const socket of [both, yesOnly, noOnly]) {
    assert.deepEqual(socket.frames.filter((text) => text.includes('"price_change"')), [frame]);
  }
  for (const socket of [both, yesOnly, noOnly]) socket.ws.close();
});

test('a command that changes several levels is one message; following neither token stops it; following one again brings it back', async () => {
  const market = markets[1]!;
  const [alice, bob] = traders as [Trader, Trader];
  const socket = await connect();
  socket.ws.send(JSON.stringify({ assets_ids: [market.yes, market.no], type: 'market' }));
  await until(() => ofType(socket, 'book').length === 2, 'the books');
  assert.equal((await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 3000, sizeMicros: 5_000_000 })).status, 200);
  assert.equal((await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 3100, sizeMicros: 5_000_000 })).status, 200);
  await until(() => ofType(socket, 'price_change').length === 2, 'two price changes');
  socket.frames.length = 0;
  // A NO buy at 0.70 sweeps both YES bids (0.31 then 0.30): one command, two levels, one message.
  const sweep = await bob.place({ tokenId: market.no, side: 'BUY', priceUnits: 7000, sizeMicros: 10_000_000, orderType: 'FAK' });
  assert.equal(sweep.status, 200, sweep.text);
  await until(() => ofType(socket, 'last_trade_price').length >= 2, 'the trades');
  await settled(socket);
  const changes = ofType(socket, 'price_change');
  assert.equal(changes.length, 1, JSON.stringify(changes));
  assert.deepEqual((changes[0]!['price_changes'] as Message[]).map((change) => [change['asset_id'], change['price'], change['size'], change['side']]), [
    [market.yes, '0.31', '0', 'BUY'], [market.yes, '0.3', '0', 'BUY'], [market.no, '0.69', '0', 'SELL'], [market.no, '0.7', '0', 'SELL'],
  ]);
  // The price change comes before the trades of the same command.
  const types = parsed(socket).map((message) => message['event_type']);
  assert.ok(types.indexOf('price_change') < types.indexOf('last_trade_price'), types.join());

  // Unsubscribed from one token: still following the market through the other.
  socket.ws.send(JSON.stringify({ operation: 'unsubscribe', assets_ids: [market.yes] }));
  await settled(socket);
  socket.frames.length = 0;
  assert.equal((await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 2000, sizeMicros: 5_000_000 })).status, 200);
  await until(() => ofType(socket, 'price_change').length === 1, 'the price change through the NO token');
  // From neither: nothing.
  socket.ws.send(JSON.stringify({ operation: 'unsubscribe', assets_ids: [market.no] }));
  await settled(socket);
  socket.frames.length = 0;
  assert.equal((await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 2100, sizeMicros: 5_000_000 })).status, 200);
  await settled(socket);
  assert.deepEqual(socket.frames, ['PONG'], 'nothing once neither token is followed');
  // Following one again: its book, then the market's changes.
  socket.ws.send(JSON.stringify({ assets_ids: [market.no], type: 'market' }));
  await until(() => ofType(socket, 'book').length === 1, 'the book again');
  assert.equal((await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 2200, sizeMicros: 5_000_000 })).status, 200);
  await until(() => ofType(socket, 'price_change').length === 1, 'the price change after subscribing again');
  await settled(socket);
  assert.equal(ofType(socket, 'price_change').length, 1);
  socket.ws.close();
});

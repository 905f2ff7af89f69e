// Credential headers go with a hyphen (SERVICE-ADDRESS), the spelling the server reads first;
// Polymarket's clients send POLY_ADDRESS, which the server reads too (tools/patch_uws.mjs).
//
// A trading client for tests, written from the contract alone (it shares no code with the
// server's signing or HMAC paths except the EIP-712 digest, which the signature tests check
// against @noble/curves): a wallet with a real secp256k1 key that makes L1 headers, obtains API
// credentials, signs L2 requests and signs orders.
import { createHmac } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { clobAuthDigest, orderDigest, type OrderStruct } from '../../../http/auth/eip712.js';
import { addressOfPublicKey } from '../../../http/auth/recover.js';
import { request, startServer, type Response, type RunningServer } from '../../support/server.js';

/** The signing domain a server verifies by default: Polygon Amoy and the CLOB V2 exchanges. */
export const CHAIN_ID = 80002;
export const DOMAIN_NAME = 'Polymarket CTF Exchange';
export const EXCHANGE_ADDRESS = '0xE111180000d2663C0091e4f400237545B87B996B';
export const NEG_RISK_EXCHANGE_ADDRESS = '0xe2222d279d744050d28e00520010520000310F59';
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** The EIP-712 domain of an order on a market that is neg-risk or not. */
export function orderDomain(negRisk = false): { name: string; chainId: number; verifyingContract: string } {
  return { name: DOMAIN_NAME, chainId: CHAIN_ID, verifyingContract: negRisk ? NEG_RISK_EXCHANGE_ADDRESS : EXCHANGE_ADDRESS };
}
export const ADMIN_TOKEN = 'test-admin-token';
const ZERO_BYTES32 = `0x${'00'.repeat(32)}`;

export interface Credentials {
  readonly apiKey: string;
  readonly secret: string;
  readonly passphrase: string;
}

export interface OrderInput {
  readonly tokenId: string;
  readonly side: 'BUY' | 'SELL';
  /** Price as integer units of 0.0001 and size as micros, so tests never round. */
  readonly priceUnits: number;
  readonly sizeMicros: number;
  readonly orderType?: string;
  readonly postOnly?: boolean;
  readonly expiration?: string;
  readonly salt?: number;
  readonly negRisk?: boolean;
  /** The amounts to sign, in micros, where they are not price × size (a market order's, or bad ones). */
  readonly amounts?: { readonly maker: number; readonly taker: number };
}

let saltCounter = 1;

export class Trader {
  readonly secret: Uint8Array;
  readonly address: string;
  credentials: Credentials | undefined;

  /** A wallet whose key is made from `seed`, or is `seed` itself when it is 32 bytes. */
  constructor(public clobUrl: string, seed: number | Uint8Array, readonly nowS: () => number = () => Math.floor(Date.now() / 1000)) {
    if (typeof seed === 'number') {
      this.secret = new Uint8Array(32);
      this.secret[0] = 0x42;
      new DataView(this.secret.buffer).setUint32(28, seed);
    } else {
      this.secret = seed;
    }
    this.address = addressOfPublicKey(secp256k1.getPublicKey(this.secret, false));
  }

  /** The address with mixed case, as wallets send it (the server must not care). */
  get checksumLikeAddress(): string {
    return `0x${this.address.slice(2).toUpperCase()}`;
  }

  signDigest(digest: Uint8Array): string {
    const recovered = secp256k1.sign(digest, this.secret, { prehash: false, format: 'recovered' });
    return `0x${Buffer.from(recovered.subarray(1)).toString('hex')}${(27 + recovered[0]!).toString(16)}`;
  }

  l1Headers(nonce = 0, timestamp = this.nowS()): Record<string, string> {
    const digest = clobAuthDigest(CHAIN_ID, this.address, String(timestamp), BigInt(nonce));
    return {
      'SERVICE-ADDRESS': this.checksumLikeAddress, 'SERVICE-SIGNATURE': this.signDigest(digest),
      'SERVICE-TIMESTAMP': String(timestamp), 'SERVICE-NONCE': String(nonce),
    };
  }

  async createKey(nonce = 0): Promise<Credentials> {
    const response = await request<Credentials>(`${this.clobUrl}/auth/api-key`, { method: 'POST', headers: this.l1Headers(nonce) });
    if (response.status !== 200) throw new Error(`create key: ${response.status} ${response.text}`);
    this.credentials = response.body;
    return response.body;
  }

  l2Headers(method: string, path: string, body: string, overrides: Partial<Record<string, string>> = {}): Record<string, string> {
    const credentials = this.credentials;
    if (credentials === undefined) throw new Error('no credentials yet');
    const timestamp = overrides['timestamp'] ?? String(this.nowS());
    const signature = createHmac('sha256', Buffer.from(credentials.secret, 'base64url')).update(`${timestamp}${method}${path}${body}`).digest('hex');
    return {
      'SERVICE-ADDRESS': this.checksumLikeAddress, 'SERVICE-API-KEY': credentials.apiKey, 'SERVICE-PASSPHRASE': credentials.passphrase,
      'SERVICE-TIMESTAMP': timestamp, 'SERVICE-SIGNATURE': overrides['signature'] ?? signature,
    };
  }

  /** An L2-signed request with a JSON body (or none). */
  send<T = unknown>(method: string, path: string, body?: unknown): Promise<Response<T>> {
    const text = body === undefined ? '' : JSON.stringify(body);
    return request<T>(`${this.clobUrl}${path}`, {
      // The signing string takes the path without its query (contract §3).
      method, headers: { ...this.l2Headers(method, path.split('?')[0]!, text), ...(text === '' ? {} : { 'content-type': 'application/json' }) },
      ...(text === '' ? {} : { body: text }),
    });
  }

  /** The signed order object and its id (the EIP-712 digest). */
  signOrder(input: OrderInput, signer: Trader = this): { order: Record<string, unknown>; orderId: string } {
    const shares = input.sizeMicros;
    const collateral = (input.priceUnits * shares) / 10_000;
    const side = input.side === 'BUY' ? 0 : 1;
    const struct: OrderStruct = {
      salt: String(input.salt ?? saltCounter++), maker: this.address, signer: this.address, tokenId: input.tokenId,
      makerAmount: String(input.amounts?.maker ?? (side === 0 ? collateral : shares)),
      takerAmount: String(input.amounts?.taker ?? (side === 0 ? shares : collateral)), side,
      signatureType: 0, timestamp: String(this.nowS() * 1000), metadata: ZERO_BYTES32, builder: ZERO_BYTES32,
    };
    const digest = orderDigest(orderDomain(input.negRisk), struct);
    const order = {
      ...struct, salt: Number(struct.salt), side: input.side, signature: signer.signDigest(digest),
      ...(input.expiration === undefined ? {} : { expiration: input.expiration }),
    };
    return { order, orderId: `0x${Buffer.from(digest).toString('hex')}` };
  }

  placementBody(input: OrderInput, signer: Trader = this): { body: Record<string, unknown>; orderId: string } {
    const { order, orderId } = this.signOrder(input, signer);
    return {
      body: { order, owner: this.credentials?.apiKey ?? '', orderType: input.orderType ?? 'GTC', ...(input.postOnly === undefined ? {} : { postOnly: input.postOnly }) },
      orderId,
    };
  }

  async place<T = Record<string, unknown>>(input: OrderInput): Promise<Response<T> & { orderId: string }> {
    const { body, orderId } = this.placementBody(input);
    return { ...(await this.send<T>('POST', '/order', body)), orderId };
  }
}

export async function deposit(clobUrl: string, address: string, micros: number): Promise<void> {
  const response = await request(`${clobUrl}/admin/deposits`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ address, amount: String(micros) }),
  });
  if (response.status !== 200) throw new Error(`deposit: ${response.status} ${response.text}`);
}

/** Rests `count` BUY YES orders at 0.01 of MIN size from `trader`, 15 to a request (POST /orders). */
export async function restMany(trader: Trader, market: PlainMarket, count: number, salt: number): Promise<void> {
  for (let from = 0; from < count; from += 15) {
    const body = Array.from({ length: Math.min(15, count - from) }, (_, index) => trader.placementBody({
      tokenId: market.yes, side: 'BUY', priceUnits: 100, sizeMicros: 5_000_000, salt: salt + from + index,
    }).body);
    const placed = await trader.send<{ success: boolean; errorMsg: string }[]>('POST', '/orders', body);
    if (placed.status !== 200 || !placed.body.every((entry) => entry.success)) throw new Error(`rest: ${placed.status} ${placed.text}`);
  }
}

/**
 * On each market in turn, `maker` bids for 20 YES at 0.30, 0.35, 0.40 … and `taker` buys 10 NO
 * against the bid (FOK at 1 − its price): a MINT at the bid's price, leaving 10 shares resting.
 * Returns each market's bid price (units of 0.0001).
 */
export async function mintAgainstBids(maker: Trader, taker: Trader, markets: readonly PlainMarket[]): Promise<number[]> {
  const prices: number[] = [];
  for (const [index, market] of markets.entries()) {
    const priceUnits = 3000 + 500 * index;
    const bid = await maker.place({ tokenId: market.yes, side: 'BUY', priceUnits, sizeMicros: 20_000_000 });
    if (bid.status !== 200) throw new Error(`bid: ${bid.status} ${bid.text}`);
    const hit = await taker.place({ tokenId: market.no, side: 'BUY', priceUnits: 10_000 - priceUnits, sizeMicros: 10_000_000, orderType: 'FOK' });
    if (hit.status !== 200) throw new Error(`hit: ${hit.status} ${hit.text}`);
    prices.push(priceUnits);
  }
  return prices;
}

/** A plain binary market made for the test (tick 0.01, min size 5, no fee, not neg-risk). */
export interface PlainMarket {
  readonly conditionId: string;
  readonly yes: string;
  readonly no: string;
  readonly outcomes: readonly string[];
}

interface CreatedMarket {
  readonly conditionId: string;
  readonly clobTokenIds: string;
  readonly outcomes: string;
}

export interface TradingSetup {
  readonly server: RunningServer;
  readonly markets: readonly PlainMarket[];
  readonly traders: readonly Trader[];
}

/** Plain markets in this test's own event, so no demo quote rests in their books. */
const MARKETS_PER_SETUP = 4;

/**
 * Starts the real server (admin enabled, two shards), creates an event with fresh plain markets
 * through the admin API, and makes one funded trader with credentials per seed.
 */
export async function startTrading(
  seeds: readonly number[], env: Readonly<Record<string, string>> = {}, depositMicros = 1_000_000_000,
): Promise<TradingSetup> {
  const server = await startServer({ env: { ADMIN_TOKEN, SHARDS: '2', ...env } });
  const created = await request<{ markets: CreatedMarket[] }>(`${server.urls.clob}/admin/events`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      title: 'Test event', endDate: '2031-01-01T00:00:00Z',
      markets: Array.from({ length: MARKETS_PER_SETUP }, (_, index) => ({ question: `Test market ${index}?` })),
    }),
  });
  if (created.status !== 201) throw new Error(`admin create: ${created.status} ${created.text}`);
  const markets = created.body.markets.map((m) => {
    const [yes, no] = JSON.parse(m.clobTokenIds) as [string, string];
    return { conditionId: m.conditionId, yes, no, outcomes: JSON.parse(m.outcomes) as string[] };
  });
  const traders: Trader[] = [];
  for (const seed of seeds) {
    const trader = new Trader(server.urls.clob, seed);
    await trader.createKey();
    await deposit(server.urls.clob, trader.address, depositMicros);
    traders.push(trader);
  }
  return { server, markets, traders };
}

// The demo market maker: on the first start of an empty data directory (with the demo catalog),
// a funded account rests two-sided quotes on every open demo market, so a newcomer sees live
// books at once. It goes through the same path as a bot: its own API key, an admin deposit, and
// orders signed with its wallet key and checked by the same parser and signature verification
// as POST /order. Its key is public (a keccak of a fixed phrase): it is a demo, not a treasury.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { orderDigest, toHex, ZERO_BYTES32, type OrderDomain, type OrderStruct } from '../auth/eip712.js';
import type { ApiKeyStore } from '../auth/keys.js';
import { addressOfPublicKey, recoverAddress } from '../auth/recover.js';
import type { Config } from '../config.js';
import type { MarketRecord } from '../catalog/model.js';
import type { Logger } from '../log.js';
import { readSignedOrder, type TokenPlace } from './order_request.js';
import type { TradingClient } from './client.js';

const SECRET_KEY = keccak_256(new TextEncoder().encode('clobd demo market maker'));
export const DEMO_MAKER_ADDRESS = addressOfPublicKey(secp256k1.getPublicKey(SECRET_KEY, false));
/** 1,000,000.00 of collateral. */
const DEPOSIT_MICROS = 1_000_000 * 1_000_000;
/** Each side: three levels a tick apart, 100 shares each, around a mid of 0.50. */
const LEVELS = 3;
const SHARES_MICROS = 100 * 1_000_000;

interface Quote {
  readonly tokenId: string;
  readonly priceUnits: number;
}

/** Bids on both tokens below 0.50: BUY YES rests as a bid, BUY NO at q as a YES ask at 1 − q. */
function quotesOf(market: MarketRecord): Quote[] {
  const quotes: Quote[] = [];
  const tick = market.tickUnits;
  const best = Math.floor(4900 / tick) * tick;
  for (let level = 0; level < LEVELS; level++) {
    const price = best - level * tick;
    if (price < tick) break;
    for (const tokenId of market.tokenIds) quotes.push({ tokenId, priceUnits: price });
  }
  return quotes;
}

function signedBody(quote: Quote, market: MarketRecord, config: Config, apiKey: string, salt: number): unknown {
  const collateral = (quote.priceUnits * SHARES_MICROS) / 10_000;
  const struct: OrderStruct = {
    salt: String(salt), maker: DEMO_MAKER_ADDRESS, signer: DEMO_MAKER_ADDRESS, tokenId: quote.tokenId,
    makerAmount: String(collateral), takerAmount: String(SHARES_MICROS), side: 0, signatureType: 0, timestamp: '0',
    metadata: ZERO_BYTES32, builder: ZERO_BYTES32,
  };
  const domain: OrderDomain = {
    name: config.orderDomainName, chainId: config.chainId,
    verifyingContract: market.negRisk ? config.negRiskExchangeAddress : config.exchangeAddress,
  };
  const signature = secp256k1.sign(orderDigest(domain, struct), SECRET_KEY, { prehash: false, format: 'recovered' });
  const hex = `${toHex(signature.subarray(1))}${(27 + signature[0]!).toString(16)}`;
  return { order: { ...struct, side: 'BUY', signature: hex }, owner: apiKey, orderType: 'GTC' };
}

/** Funds the demo maker and rests its quotes on every open market with an order book. */
export async function seedDemoQuotes(
  markets: readonly MarketRecord[], config: Config, keys: ApiKeyStore, client: TradingClient,
  token: (tokenId: string) => TokenPlace | undefined, now: () => number, log: Logger,
): Promise<void> {
  const credentials = (await keys.create(DEMO_MAKER_ADDRESS, '0', now())) ?? keys.derive(DEMO_MAKER_ADDRESS, '0');
  const key = credentials === undefined ? undefined : keys.lookup(credentials.apiKey);
  if (key === undefined) throw new Error('demo market maker has no API key');
  client.deposit(DEMO_MAKER_ADDRESS, DEPOSIT_MICROS);
  const context = {
    key, chainId: config.chainId, domainName: config.orderDomainName, exchangeAddress: config.exchangeAddress,
    negRiskExchangeAddress: config.negRiskExchangeAddress, token,
    recover: (digest: Uint8Array, signature: string) => Promise.resolve(recoverAddress(digest, signature)),
  };
  let salt = 1;
  let rested = 0;
  for (const market of markets) {
    if (!market.enableOrderBook || !market.acceptingOrders || market.closed) continue;
    for (const quote of quotesOf(market)) {
      const order = await readSignedOrder(signedBody(quote, market, config, key.apiKey, salt++), context, now());
      const result = await client.placeOrder(order.place);
      if (result.events.some((event) => event.kind === 'ORDER_ACCEPTED')) rested++;
    }
  }
  log.info('demo_quotes_rested', { address: DEMO_MAKER_ADDRESS, orders: rested });
}

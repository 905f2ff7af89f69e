// The demo's orders, signed with a demo wallet's key and checked by the same parser and signature
// verification as POST /order (readSignedOrder), then placed through the trading client as the
// route places them: durable in the shard before the answer. The demo market maker uses it once,
// when it is funded: it rests two-sided quotes on every open demo market, so a newcomer sees live
// books at once; the demo flow (demo_flow.ts) uses it for every order it places. Its keys are
// random per data directory (demo_state.ts).
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Side } from '../../engine/command.js';
import { orderDigest, toHex, ZERO_BYTES32, type OrderDomain, type OrderStruct } from '../auth/eip712.js';
import type { ApiKeyRecord } from '../auth/l2.js';
import { recoverAddress } from '../auth/recover.js';
import type { Config } from '../config.js';
import type { MarketRecord } from '../catalog/model.js';
import type { Logger } from '../log.js';
import { readSignedOrder, type OrderContext, type SignedOrder, type TokenPlace } from './order_request.js';
import type { TradeResult, TradingClient } from './client.js';
import type { DemoAccount } from './demo_state.js';

/** Each side: three levels a tick apart, 100 shares each, around a mid of 0.50. */
const LEVELS = 3;
const SHARES_MICROS = 100 * 1_000_000;

/** One order a demo account means to place, in the engine's units. */
export interface DemoOrder {
  readonly tokenId: string;
  readonly side: Side;
  readonly priceUnits: number;
  readonly sizeMicros: number;
  readonly orderType: 'GTC' | 'FAK';
  /** Unique per account: the order id is the digest of the signed struct. */
  readonly salt: string;
}

/** What signing and checking a demo order needs: the signing domain is the configured one. */
export interface DemoSigner {
  readonly config: Config;
  readonly token: (tokenId: string) => TokenPlace | undefined;
  readonly now: () => number;
}

/** The `{order, owner, orderType}` body POST /order would receive from this account. */
export function signedBody(account: DemoAccount, key: ApiKeyRecord, order: DemoOrder, market: MarketRecord, config: Config): unknown {
  const collateral = (order.priceUnits * order.sizeMicros) / 10_000;
  const buy = order.side === Side.Buy;
  const struct: OrderStruct = {
    salt: order.salt, maker: account.address, signer: account.address, tokenId: order.tokenId,
    makerAmount: String(buy ? collateral : order.sizeMicros), takerAmount: String(buy ? order.sizeMicros : collateral),
    side: order.side, signatureType: 0, timestamp: '0', metadata: ZERO_BYTES32, builder: ZERO_BYTES32,
  };
  const domain: OrderDomain = {
    name: config.orderDomainName, chainId: config.chainId,
    verifyingContract: market.negRisk ? config.negRiskExchangeAddress : config.exchangeAddress,
  };
  const signature = secp256k1.sign(orderDigest(domain, struct), account.secret, { prehash: false, format: 'recovered' });
  const hex = `${toHex(signature.subarray(1))}${(27 + signature[0]!).toString(16)}`;
  return { order: { ...struct, side: buy ? 'BUY' : 'SELL', signature: hex }, owner: key.apiKey, orderType: order.orderType };
}

function contextOf(key: ApiKeyRecord, signer: DemoSigner): OrderContext {
  const { config } = signer;
  return {
    key, chainId: config.chainId, domainName: config.orderDomainName, exchangeAddress: config.exchangeAddress,
    negRiskExchangeAddress: config.negRiskExchangeAddress, token: signer.token,
    recover: (digest: Uint8Array, signature: string) => Promise.resolve(recoverAddress(digest, signature)),
  };
}

/**
 * Signs `order` as `account`, reads it back as POST /order does (a refusal there throws its
 * HttpError) and places it: resolves with the order and the engine's answer, once durable.
 */
export async function placeDemoOrder(
  account: DemoAccount, key: ApiKeyRecord, order: DemoOrder, market: MarketRecord, client: TradingClient, signer: DemoSigner,
): Promise<{ signed: SignedOrder; result: TradeResult }> {
  const signed = await readSignedOrder(signedBody(account, key, order, market, signer.config), contextOf(key, signer), signer.now());
  return { signed, result: await client.placeOrder(signed.place) };
}

/** Bids on both tokens below 0.50: BUY YES rests as a bid, BUY NO at q as a YES ask at 1 − q. */
function quotesOf(market: MarketRecord): { tokenId: string; priceUnits: number }[] {
  const quotes: { tokenId: string; priceUnits: number }[] = [];
  const tick = market.tickUnits;
  const best = Math.floor(4900 / tick) * tick;
  for (let level = 0; level < LEVELS; level++) {
    const price = best - level * tick;
    if (price < tick) break;
    for (const tokenId of market.tokenIds) quotes.push({ tokenId, priceUnits: price });
  }
  return quotes;
}

/** Rests the maker's quotes on every open market with an order book (the maker is funded already). */
export async function seedDemoQuotes(
  maker: DemoAccount, key: ApiKeyRecord, markets: readonly MarketRecord[], client: TradingClient, signer: DemoSigner, log: Logger,
): Promise<void> {
  let salt = 1;
  let rested = 0;
  for (const market of markets) {
    if (!market.enableOrderBook || !market.acceptingOrders || market.closed) continue;
    for (const quote of quotesOf(market)) {
      const order: DemoOrder = { ...quote, side: Side.Buy, sizeMicros: SHARES_MICROS, orderType: 'GTC', salt: String(salt++) };
      const { result } = await placeDemoOrder(maker, key, order, market, client, signer);
      if (result.events.some((event) => event.kind === 'ORDER_ACCEPTED')) rested++;
    }
  }
  log.info('demo_quotes_rested', { address: maker.address, orders: rested });
}

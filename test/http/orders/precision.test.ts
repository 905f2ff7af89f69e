// Amount precision over HTTP, against the real server: Polymarket's three "invalid amounts" texts
// (a limit BUY, a market BUY, a SELL), and market orders signed as the official clients sign them,
// accepted with their finer share amounts (the tick's decimals + 2): the V2 TypeScript client's
// createMarketOrder({side: BUY, amount: 5}) at a best ask of 0.51 (9.8039 shares), the Python
// client's FOK BUY of 5.00 at 0.60 (8.3333 shares), a market BUY at tick 0.001 (5 decimals) and
// a market SELL into a bid left with such a remainder. After each, balances show the buyer paid
// at most its makerAmount and the seller received at least its takerAmount.
import assert from 'node:assert/strict';
import { after, before, suite, test } from 'node:test';
import { Chain, ClobClient, OrderType, Side } from '@polymarket/clob-client-v2';
import { removeDataDir, type RunningServer } from '../../support/server.js';
import { createMarket, startOfficialServer, walletOf } from './official_setup.js';
import { deposit, Trader, type PlainMarket } from './trader.js';

let server: RunningServer;
let clobUrl = '';
/** Tick 0.01 and tick 0.001, both with a minimum size of 1 share. */
let cents: PlainMarket;
let mills: PlainMarket;

/** A trader with credentials, and the official V2 client on the same key. */
interface Account {
  readonly plain: Trader;
  readonly client: ClobClient;
}

async function account(seed: number): Promise<Account> {
  const plain = new Trader(server.urls.clob, seed);
  await deposit(server.urls.clob, plain.address, 1_000_000_000);
  const l1 = new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(plain.secret) });
  const creds = await l1.createApiKey(0);
  plain.credentials = { apiKey: creds.key, secret: creds.secret, passphrase: creds.passphrase };
  return { plain, client: new ClobClient({ host: clobUrl, chain: Chain.AMOY, signer: walletOf(plain.secret), creds }) };
}

/** The account's collateral (free and reserved) or shares of a token, in micros. */
async function held(who: Account, tokenId?: string): Promise<number> {
  const query = tokenId === undefined ? 'asset_type=COLLATERAL' : `asset_type=CONDITIONAL&token_id=${tokenId}`;
  const answer = await who.plain.send<{ balance: string }>('GET', `/balance-allowance?${query}`);
  assert.equal(answer.status, 200, answer.text);
  return Number(answer.body.balance);
}

/** Places a plain signed order; it must be accepted, with `status`. */
async function placed(who: Account, input: Parameters<Trader['place']>[0], status: string): Promise<void> {
  const answer = await who.plain.place(input);
  assert.equal(answer.status, 200, answer.text);
  assert.equal((answer.body as { status: string }).status, status, answer.text);
}

/** `seller` and `other` mint `size` sets at 0.50: the seller holds YES, the other NO. */
async function mint(market: PlainMarket, seller: Account, other: Account, sizeMicros: number): Promise<void> {
  await placed(seller, { tokenId: market.yes, side: 'BUY', priceUnits: 5000, sizeMicros }, 'live');
  await placed(other, { tokenId: market.no, side: 'BUY', priceUnits: 5000, sizeMicros }, 'matched');
}

let alice: Account;
let bob: Account;
let carol: Account;
let dave: Account;

before(async () => {
  ({ server, url: clobUrl } = await startOfficialServer());
  cents = await createMarket(server.urls.clob, 'Cents', { question: 'Priced in cents?', orderMinSize: 1 });
  mills = await createMarket(server.urls.clob, 'Mills', { question: 'Priced in tenths of a cent?', orderPriceMinTickSize: 0.001, orderMinSize: 1 });
  [alice, bob, carol, dave] = [await account(801), await account(802), await account(803), await account(804)];
});

after(async () => {
  await server?.stop();
  if (server !== undefined) removeDataDir(server.dataDir);
});

suite('invalid amounts', () => {
  const refused = async (input: Parameters<Trader['place']>[0], error: string): Promise<void> => {
    const answer = await alice.plain.place(input);
    assert.equal(answer.status, 400, answer.text);
    assert.deepEqual(answer.body, { error });
  };

  test('a limit BUY pays at most D decimals of USDC for shares of at most 2', async () => {
    const text = 'invalid amounts, the buy orders maker amount supports a max accuracy of 4 decimals, taker amount a max of 2 decimals';
    await refused({ tokenId: cents.yes, side: 'BUY', priceUnits: 0, sizeMicros: 0, amounts: { maker: 5_000_010, taker: 10_000_000 } }, text);
    // 9.8039 shares is a market BUY's amount, not a limit BUY's.
    await refused({ tokenId: cents.yes, side: 'BUY', priceUnits: 0, sizeMicros: 0, amounts: { maker: 5_000_000, taker: 9_803_900 } }, text);
    const mill = 'invalid amounts, the buy orders maker amount supports a max accuracy of 5 decimals, taker amount a max of 2 decimals';
    await refused({ tokenId: mills.no, side: 'BUY', priceUnits: 0, sizeMicros: 0, orderType: 'GTD', expiration: String(Math.floor(Date.now() / 1000) + 3600), amounts: { maker: 5_000_001, taker: 10_000_000 } }, mill);
  });

  test('a market BUY pays at most 2 decimals of USDC for shares of at most D: a limit-style FOK BUY is refused', async () => {
    const text = 'invalid amounts, the market buy orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals';
    // 0.45 × 9.01 = 4.0545: fine for a GTC BUY, four decimals of USDC too many for a FOK one.
    await refused({ tokenId: cents.yes, side: 'BUY', priceUnits: 4500, sizeMicros: 9_010_000, orderType: 'FOK' }, text);
    await refused({ tokenId: cents.yes, side: 'BUY', priceUnits: 0, sizeMicros: 0, orderType: 'FAK', amounts: { maker: 5_000_000, taker: 9_803_920 } }, text);
  });

  test('a SELL sells shares of at most 2 decimals for at most D decimals of USDC', async () => {
    const text = 'invalid amounts, the sell orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals';
    await refused({ tokenId: cents.yes, side: 'SELL', priceUnits: 0, sizeMicros: 0, amounts: { maker: 10_005_000, taker: 5_000_000 } }, text);
    await refused({ tokenId: cents.yes, side: 'SELL', priceUnits: 0, sizeMicros: 0, orderType: 'FOK', amounts: { maker: 9_803_900, taker: 5_000_000 } }, text);
    const mill = 'invalid amounts, the sell orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 5 decimals';
    await refused({ tokenId: mills.yes, side: 'SELL', priceUnits: 0, sizeMicros: 0, amounts: { maker: 10_000_000, taker: 5_123_451 } }, mill);
  });

  test('a market BUY whose price, rounded down to the tick, is below it breaks the tick rule', async () => {
    const answer = await alice.plain.place({ tokenId: cents.yes, side: 'BUY', priceUnits: 0, sizeMicros: 0, orderType: 'FOK', amounts: { maker: 10_000, taker: 1_010_000 } });
    assert.equal(answer.status, 400, answer.text);
    assert.deepEqual(answer.body, { error: `order ${answer.orderId} is invalid. Price (0.0099) breaks minimum tick size rule: 0.01` });
  });
});

suite('market orders as the official clients sign them', () => {
  test("the V2 client's market BUY of 5 USDC at a best ask of 0.51: 9.8039 shares, 4.999989 paid", async () => {
    await mint(cents, bob, carol, 20_000_000);
    await placed(bob, { tokenId: cents.yes, side: 'SELL', priceUnits: 5100, sizeMicros: 20_000_000 }, 'live');
    const order = await alice.client.createMarketOrder({ tokenID: cents.yes, side: Side.BUY, amount: 5, orderType: OrderType.FOK });
    assert.deepEqual([order.makerAmount, order.takerAmount], ['5000000', '9803900']);
    const [aliceBefore, bobBefore] = [await held(alice), await held(bob)];
    const answer = await alice.client.postOrder(order, OrderType.FOK);
    assert.deepEqual([answer.success, answer.status, answer.makingAmount, answer.takingAmount], [true, 'matched', '4.999989', '9.8039'], JSON.stringify(answer));
    const paid = aliceBefore - await held(alice);
    assert.equal(paid, 4_999_989, '0.51 × 9.8039, at most the 5 USDC signed');
    assert.equal(await held(bob) - bobBefore, paid);
    assert.equal(await held(alice, cents.yes), 9_803_900);
    // The ask rests with a remainder of the market BUY's precision.
    assert.equal(await held(bob, cents.yes), 10_196_100);
  });

  test("the Python client's FOK BUY of 5.00 at 0.60: 8.3333 shares", async () => {
    await mint(cents, bob, carol, 10_000_000);
    await placed(bob, { tokenId: cents.yes, side: 'SELL', priceUnits: 6000, sizeMicros: 10_000_000 }, 'live');
    // Dave clears the rest of the 0.51 ask first (a FAK BUY of 5.21 USDC, 10.2156 shares), so
    // 0.60 is the best.
    await placed(dave, { tokenId: cents.yes, side: 'BUY', priceUnits: 0, sizeMicros: 0, orderType: 'FAK', amounts: { maker: 5_210_000, taker: 10_215_600 } }, 'matched');
    const before = await held(alice);
    const answer = await alice.plain.place({ tokenId: cents.yes, side: 'BUY', priceUnits: 6000, sizeMicros: 8_333_300, orderType: 'FOK', amounts: { maker: 5_000_000, taker: 8_333_300 } });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { success: true, errorMsg: '', orderID: answer.orderId, status: 'matched', makingAmount: '4.99998', takingAmount: '8.3333' });
    assert.equal(before - await held(alice), 4_999_980, '0.60 × 8.3333, at most 5.00');
  });

  test('a market BUY at tick 0.001 buys 5-decimal shares; a market SELL into the bid it leaves finer gets its takerAmount', async () => {
    // Carol bids for 20 YES at 0.487; Alice's market BUY of NO with 5 USDC takes the other side
    // at 0.513: 9.74658 NO (5 decimals), minted against the bid, which keeps 10.25342.
    const carolBefore = await held(carol);
    await placed(carol, { tokenId: mills.yes, side: 'BUY', priceUnits: 4870, sizeMicros: 20_000_000 }, 'live');
    const buy = await alice.client.createMarketOrder({ tokenID: mills.no, side: Side.BUY, amount: 5, orderType: OrderType.FOK });
    assert.deepEqual([buy.makerAmount, buy.takerAmount], ['5000000', '9746580']);
    const aliceBefore = await held(alice);
    const bought = await alice.client.postOrder(buy, OrderType.FOK);
    assert.deepEqual([bought.success, bought.status, bought.makingAmount, bought.takingAmount], [true, 'matched', '4.999996', '9.74658'], JSON.stringify(bought));
    const paid = aliceBefore - await held(alice);
    // The MINT's taker pays the rest of the sets: 9.74658 − (9.74 − ceil(0.487 × 10.25342)) = 4.999996.
    assert.equal(paid, 4_999_996);
    assert.ok(paid <= 5_000_000, 'at most the 5 USDC signed');
    assert.equal(await held(alice, mills.no), 9_746_580);

    // A second bid of 10 at 0.487; Bob sells 15 YES at market: the client signs 15 × 0.487 = 7.305.
    await placed(dave, { tokenId: mills.yes, side: 'BUY', priceUnits: 4870, sizeMicros: 10_000_000 }, 'live');
    await mint(mills, bob, dave, 15_000_000);
    const sell = await bob.client.createMarketOrder({ tokenID: mills.yes, side: Side.SELL, amount: 15, orderType: OrderType.FOK });
    assert.deepEqual([sell.makerAmount, sell.takerAmount], ['15000000', '7305000']);
    const bobBefore = await held(bob);
    const sold = await bob.client.postOrder(sell, OrderType.FOK);
    assert.deepEqual([sold.success, sold.status, sold.makingAmount, sold.takingAmount], [true, 'matched', '15', '7.305'], JSON.stringify(sold));
    // 10.25342 from Carol's finer remainder (her whole reserve, ceil(4.99341554) = 4.993416) and
    // 4.74658 from Dave's bid (4.87 − ceil(0.487 × 5.25342) = 2.311584): 7.305, what Bob signed.
    const received = await held(bob) - bobBefore;
    assert.equal(received, 7_305_000);
    assert.equal(await held(bob, mills.yes), 0);
    // Carol paid 0.487 × 20 = 9.74 in all, exactly what her limit BUY signed.
    assert.equal(carolBefore - await held(carol), 9_740_000);
  });
});

// The catalog's live fields from one book of the read model, at their edges: the midpoint shows
// while the spread is at most 0.10 (exactly 0.10 included), the last trade past that, the
// midpoint of a wider spread before any trade, 0.5 with one side or none, 1 and 0 once resolved;
// the liquidity the book keeps as levels change equals the sum over its levels; and the version
// the response cache keys on moves on with the books and with the clock hour, not with answers
// that change no book.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BookSide } from '../../../engine/market/book.js';
import { notionalMicros } from '../../../engine/ledger/notional.js';
import { CatalogLive } from '../../../http/catalog/live.js';
import { MarketBook } from '../../../http/market/book.js';
import type { AppliedAnswer } from '../../../http/market/market_data.js';
import { Prng } from '../../engine/prng.js';

const KEY = `0x${'ab'.repeat(32)}`;
const HOUR_MS = 3_600_000;

function freshBook(): MarketBook {
  return new MarketBook(KEY, { market: 0, tickUnits: 100, minSizeMicros: 5_000_000, feeBps: 0, accepting: true, resolved: false, winner: -1, setsMicros: 0 }, 0);
}

test('outcome prices: midpoint within 0.10, else the last trade, else a wider midpoint, else 0.5; 1 and 0 once resolved', () => {
  const book = freshBook();
  const live = new CatalogLive((key) => (key === KEY ? book : undefined), () => 0);
  const prices = () => live.market(KEY).outcomeHalfUnits.map((half) => half / 2);
  assert.deepEqual(prices(), [5000, 5000], 'no book side, no trade');
  book.setLevel(BookSide.Bid, 4000, 10_000_000, 1);
  assert.deepEqual(prices(), [5000, 5000], 'one side, no trade');
  book.setLevel(BookSide.Ask, 5000, 10_000_000, 1);
  assert.deepEqual(prices(), [4500, 5500], 'a spread of exactly 0.10 shows the midpoint');
  book.setLevel(BookSide.Ask, 5000, 0, 1);
  book.setLevel(BookSide.Ask, 5100, 10_000_000, 1);
  assert.deepEqual(prices(), [4550, 5450], 'a wider spread before any trade: its midpoint');
  book.setLastTrade(0, { priceUnits: 4200, side: 0, timeMs: 1 });
  book.setLastTrade(1, { priceUnits: 5800, side: 1, timeMs: 1 });
  assert.deepEqual(prices(), [4200, 5800], 'past 0.10 the last trade shows');
  book.setLevel(BookSide.Bid, 4300, 10_000_000, 1);
  assert.deepEqual(prices(), [4700, 5300], 'within 0.10 again: the midpoint');
  book.setLevel(BookSide.Bid, 4301, 10_000_000, 1);
  assert.equal(live.market(KEY).outcomeHalfUnits[0], 4301 + 5100, 'a midpoint between two price units is kept exactly');
  assert.deepEqual([live.market(KEY).bestBidUnits, live.market(KEY).bestAskUnits, live.market(KEY).lastTradeUnits], [4301, 5100, 4200]);
  book.setState({ tickUnits: 100, minSizeMicros: 5_000_000, feeBps: 0, accepting: false, resolved: true, winner: 1 }, 2);
  assert.deepEqual(prices(), [0, 10_000], 'resolved: the winner 1, the other 0');
  assert.deepEqual(new CatalogLive(() => undefined, () => 0).market(KEY).outcomeHalfUnits, [10_000, 10_000], 'no book: 0.5 each');
});

test('the liquidity the book keeps equals price × size over its levels, whatever the changes', () => {
  const prng = new Prng(77);
  const book = freshBook();
  const live = new CatalogLive(() => book, () => 0);
  for (let step = 0; step < 2_000; step++) {
    const side = prng.chance(0.5) ? BookSide.Bid : BookSide.Ask;
    const price = 100 * prng.between(1, 99);
    const size = prng.chance(0.3) ? 0 : 10_000 * prng.between(1, 5_000);
    book.setLevel(side, price, size, step);
    if (step % 97 === 0) book.load({ market: 0, bids: [...book.bids].map(([priceUnits, sizeMicros]) => ({ priceUnits, sizeMicros })), asks: [] }, step);
    let sum = 0;
    for (const [priceUnits, sizeMicros] of [...book.bids, ...book.asks]) sum += notionalMicros(priceUnits, sizeMicros);
    assert.equal(live.market(KEY).liquidityMicros, sum, `step ${step}`);
  }
});

test('the version moves on with a level, a fill, a market state or the clock hour; not with an answer that changes no book', () => {
  let nowMs = 10 * HOUR_MS + 5;
  const live = new CatalogLive(() => undefined, () => nowMs);
  const answer = (events: AppliedAnswer['events'], states: AppliedAnswer['states'] = []): AppliedAnswer => ({ shard: 0, timeMs: 0, appliedMs: 0, events, states });
  const start = live.version();
  live.applied(answer([{ kind: 'BALANCE', seq: 1, account: '0x1', market: -1, outcome: -1, freeMicros: 1, reservedMicros: 0 }]));
  assert.equal(live.version(), start, 'a deposit shows nowhere in the catalog');
  live.applied(answer([{ kind: 'LEVEL', seq: 2, market: 0, side: BookSide.Bid, priceUnits: 100, sizeMicros: 10_000 }]));
  assert.equal(live.version(), start + 1);
  live.applied(answer([], [freshBook()]));
  assert.equal(live.version(), start + 2);
  live.reloaded();
  assert.equal(live.version(), start + 3);
  nowMs += HOUR_MS - 5;
  assert.equal(live.version(), start + 4, 'a new hour moves volume24hr');
  nowMs -= HOUR_MS;
  assert.equal(live.version(), start + 4, 'a clock set back never takes the version back');
});

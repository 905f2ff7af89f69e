// The order being placed, while it is matched: one record reused for every placement so the
// hot path allocates nothing and the matcher's helpers share it without long parameter lists.
import { BookSide } from './book.js';
import { NO_ID_WORDS } from '../orders/id_words.js';

export class Taker {
  orderId = '';
  idHash = 0;
  /** The id's words, `idWords[idWordsAt ..]` (the command's; idWordsAt -1 for none). */
  idWords: Float64Array<ArrayBufferLike> = NO_ID_WORDS;
  idWordsAt = -1;
  address = '';
  account = 0;
  /** The taker's position in its market (created before matching). */
  position = 0;
  market = 0;
  outcome = 0;
  side = 0;
  orderType = 0;
  /** The limit price in the order's own token units. */
  priceUnits = 0;
  /** The limit price as a level of the YES-orientation book. */
  bookPrice = 0;
  bookSide: BookSide = BookSide.Bid;
  sizeMicros = 0;
  remainingMicros = 0;
  expirationMs = 0;
  postOnly = false;
  feeBps = 0;
  /** BUY: collateral still reserved for the order's taker phase (limit notional + fee). */
  reserveMicros = 0;
  /** Collateral of its fills so far: paid (BUY) or received before fees (SELL). */
  collateralMicros = 0;
}

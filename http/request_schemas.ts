// What the routes accept as a request body, as JSON Schema 2020-12: the shapes their parsers
// check (trading/order_request.ts, catalog/ingest.ts, the cancel and batch readers), with the
// parsers' own patterns and limits imported rather than repeated. Shapes used by more than one
// route are shared by name in components.schemas (beside response_schemas.ts's, in one table);
// a route's own body is declared next to its handler with `request`. The parsers ignore fields
// they do not read, so these objects are open (no additionalProperties: false) unless the parser
// refuses unknown fields. A schema cannot say everything a parser checks (an outcome a market
// has, a signature that recovers its signer); the descriptions say what else is checked.
import { FEE_BPS_MAX, PRICE_UNITS_PER_ONE, TICK_UNITS_ALLOWED } from '../engine/constants.js';
import { ADDRESS, BYTES32, DECIMAL, ZERO_BYTES32 } from './auth/eip712.js';
import { SIGNATURE } from './auth/recover.js';
import { TOKEN_ID_PATTERN } from './catalog/ids.js';
import { ingestLimits, isoDateTime } from './catalog/ingest.js';
import { decimalPattern } from './decimal.js';
import { link, referencedSchemas, schemas, type JsonSchema } from './response_schemas.js';
import { EXPIRATION_PATTERN, ORDER_ID_PATTERN, ORDER_TYPES } from './trading/order_request.js';

/** A string matching one of the parsers' patterns. */
export function matching(pattern: RegExp, description?: string): JsonSchema {
  return { type: 'string', pattern: pattern.source, ...(description === undefined ? {} : { description }) };
}

const safeInteger = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const uint256Text = matching(DECIMAL, 'a uint256 in decimal');
/** The order parser reads each struct field as text; the official clients send salt as a JSON number, so safe integers are taken too. */
const uint256 = { anyOf: [uint256Text, safeInteger] } as const;

// Gamma fields (catalog/ingest.ts): null is read as absent, texts have a length cap.
const text = (lengthMax: number = ingestLimits.textLengthMax): JsonSchema => ({ type: ['string', 'null'], maxLength: lengthMax });
/** A text that must not be blank. */
const requiredText = { type: 'string', maxLength: ingestLimits.textLengthMax, pattern: '\\S' } as const;
const description = text(ingestLimits.descriptionLengthMax);
const flag = { type: ['boolean', 'null'] } as const;
const dateTime = matching(isoDateTime, 'ISO 8601: a date, optionally a time, optionally an offset (none: UTC)');
const date = { anyOf: [dateTime, { const: '' }, { type: 'null' }] } as const;
/** A non-negative decimal (Gamma's statistics): a number, or decimal text; past 6 decimals it is truncated. */
const statistic = { anyOf: [{ type: 'number', minimum: 0 }, matching(decimalPattern), { const: '' }, { type: 'null' }] } as const;
const stamps = { createdAt: date, updatedAt: date } as const;
/** Gamma's live statistics, which an import file carries: accepted with any value and ignored, since the catalog computes them from its own books and trades. */
const ignored = { description: "Ignored: the catalog computes it from clobd's own books and trades" } as const;

const requestSchemaTable = {
  /** A route that reads no field of its body. */
  IgnoredBody: { description: 'Not read: any JSON value, or no body.' },

  // Orders (contract §4; trading/order_request.ts).
  SignedOrder: {
    type: 'object',
    description: 'The EIP-712 Order (version 2) and its signature. The signature must recover signer, maker must equal signer and be the '
      + 'API key\'s address; makerAmount/takerAmount (micros) must give a price on the market\'s tick and a whole-lot size.',
    properties: {
      salt: uint256, maker: matching(ADDRESS), signer: matching(ADDRESS), tokenId: uint256,
      makerAmount: { anyOf: [{ ...uint256Text, not: { const: '0' } }, { ...safeInteger, minimum: 1 }], description: 'positive, at most 2^53 − 1 micros' },
      takerAmount: { anyOf: [{ ...uint256Text, not: { const: '0' } }, { ...safeInteger, minimum: 1 }], description: 'positive, at most 2^53 − 1 micros' },
      side: { type: 'string', enum: ['BUY', 'SELL'] },
      signatureType: { enum: [0, null], description: '0 (EOA) is the only one supported; null or absent is 0.' },
      timestamp: { ...uint256, default: '0' },
      metadata: { ...matching(BYTES32), default: ZERO_BYTES32 },
      builder: { ...matching(BYTES32), default: ZERO_BYTES32 },
      expiration: {
        anyOf: [matching(EXPIRATION_PATTERN), safeInteger, { type: 'null' }],
        description: 'Unix seconds: a future time for GTD, "0" (or absent) for every other type.',
      },
      conditionId: { type: 'string', description: 'When given, the market of tokenId (any letter case).' },
      signature: matching(SIGNATURE, '65 bytes r ‖ s ‖ v in hex, canonical (low) s'),
    },
    required: ['salt', 'maker', 'signer', 'tokenId', 'makerAmount', 'takerAmount', 'side', 'signature'],
  },
  OrderRequest: {
    type: 'object',
    properties: {
      order: link('SignedOrder'),
      owner: { type: 'string', description: 'The API key the request is made with.' },
      orderType: { enum: [...Object.keys(ORDER_TYPES), null], default: 'GTC' },
      postOnly: { ...flag, default: false },
    },
    required: ['order', 'owner'],
  },
  OrderId: matching(ORDER_ID_PATTERN),

  /** An item of the batch book and price reads (market/book_routes.ts). */
  TokenRequest: {
    type: 'object',
    properties: {
      token_id: matching(TOKEN_ID_PATTERN),
      side: { type: 'string', enum: ['BUY', 'SELL'], description: 'POST /prices: the one side wanted (both when absent); read by no other route.' },
    },
    required: ['token_id'],
  },

  // The admin event (contract §8; catalog/ingest.ts in create mode: ids in the body are ignored, the server assigns them).
  GammaEvent: {
    type: 'object',
    properties: {
      title: requiredText, slug: text(), ticker: text(), description, resolutionSource: text(), image: text(), icon: text(),
      startDate: date, creationDate: date, endDate: dateTime, ...stamps,
      active: flag, closed: flag, archived: flag, featured: flag, restricted: flag, negRisk: flag,
      volume: ignored, volume24hr: ignored, liquidity: ignored, openInterest: statistic,
      markets: { type: 'array', items: link('GammaMarket'), minItems: 1, maxItems: ingestLimits.marketsPerEvent },
      tags: { type: ['array', 'null'], items: link('GammaTag'), maxItems: ingestLimits.tagsPerEvent },
      series: { type: ['array', 'null'], items: link('GammaSeries'), maxItems: ingestLimits.seriesPerEvent },
      eventMetadata: { type: ['object', 'null'], description: `At most ${ingestLimits.metadataBytesMax} bytes as JSON.` },
    },
    required: ['title', 'endDate', 'markets'],
  },
  GammaMarket: {
    type: 'object',
    properties: {
      question: requiredText, slug: text(), description, resolutionSource: text(), image: text(), icon: text(), groupItemTitle: text(),
      outcomes: {
        anyOf: [
          { type: 'array', items: { type: 'string', maxLength: ingestLimits.nameLengthMax, pattern: '\\S' }, minItems: 2, maxItems: 2, uniqueItems: true },
          { type: 'string', description: 'The same array as JSON text, as Gamma sends it.' },
          { type: 'null' },
        ],
        description: 'Two different outcome names (binary markets only); Yes and No when absent.',
      },
      startDate: date, endDate: date, ...stamps,
      active: flag, closed: flag, archived: flag, negRisk: flag, enableOrderBook: flag, acceptingOrders: flag,
      creator: text(ingestLimits.nameLengthMax),
      orderPriceMinTickSize: {
        anyOf: [{ enum: TICK_UNITS_ALLOWED.map((units) => units / PRICE_UNITS_PER_ONE) }, matching(decimalPattern), { type: 'null' }],
        description: `One of ${TICK_UNITS_ALLOWED.map((units) => units / PRICE_UNITS_PER_ONE).join(', ')}, as a number or decimal text; 0.01 when absent.`,
      },
      orderMinSize: {
        anyOf: [{ type: 'number', exclusiveMinimum: 0, maximum: ingestLimits.orderMinSharesMax }, matching(decimalPattern), { type: 'null' }],
        description: 'Shares, at most 2 decimals; 5 when absent.',
      },
      makerBaseFee: { type: ['integer', 'null'], minimum: 0, maximum: FEE_BPS_MAX, description: 'basis points' },
      takerBaseFee: { type: ['integer', 'null'], minimum: 0, maximum: FEE_BPS_MAX, description: 'basis points' },
      volume: ignored, volumeNum: ignored, volume24hr: ignored, liquidity: ignored, liquidityNum: ignored, outcomePrices: ignored,
      bestBid: ignored, bestAsk: ignored, spread: ignored, lastTradePrice: ignored,
    },
    required: ['question'],
  },
  GammaTag: {
    type: 'object',
    properties: { label: requiredText, slug: text(), requiresTranslation: flag, ...stamps },
    required: ['label'],
  },
  GammaSeries: {
    type: 'object',
    properties: {
      slug: text(), ticker: text(), title: text(), description, seriesType: text(), recurrence: text(), image: text(), icon: text(),
      active: flag, closed: flag, archived: flag, ...stamps,
    },
    // A slug or a title that is not blank.
    anyOf: [{ properties: { slug: requiredText }, required: ['slug'] }, { properties: { title: requiredText }, required: ['title'] }],
  },
} satisfies Record<string, JsonSchema>;

export type RequestSchemaName = keyof typeof requestSchemaTable;

/** Every shared schema of the documents: the answers' and the requests'. */
export const componentSchemas: Readonly<Record<string, JsonSchema>> = { ...schemas, ...requestSchemaTable };

/** A reference to a shared request schema, for the routes' declarations. */
export function requestRef(name: RequestSchemaName): JsonSchema {
  return link(name);
}

// Checked once, at load: no name is both an answer's and a request's, and every name referred to is defined.
for (const name of Object.keys(requestSchemaTable)) {
  if (name in schemas) throw new Error(`request schema ${name} has the name of a response schema`);
}
referencedSchemas(Object.values(requestSchemaTable), componentSchemas);

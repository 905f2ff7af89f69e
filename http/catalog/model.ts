// The catalog's stored records. Dates are epoch milliseconds and amounts integer micro-units; the
// views render them as ISO 8601 strings and decimal numbers at the edge. Volumes, liquidity and
// prices are not stored: the views compute them from the books and trades (live.ts). Records an
// older version stored may still hold volumeMicros and liquidityMicros; nothing reads them.

export interface TagRecord {
  readonly id: number;
  readonly label: string;
  readonly slug: string;
  readonly requiresTranslation: boolean;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

export interface SeriesRecord {
  readonly id: number;
  readonly ticker: string;
  readonly slug: string;
  readonly title: string;
  readonly description: string;
  readonly seriesType: string;
  readonly recurrence: string;
  readonly image: string;
  readonly icon: string;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

export interface EventRecord {
  readonly id: number;
  readonly ticker: string;
  readonly slug: string;
  readonly title: string;
  readonly description: string;
  readonly resolutionSource: string;
  readonly image: string;
  readonly icon: string;
  readonly startDateMs: number;
  readonly creationDateMs: number;
  readonly endDateMs: number;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  readonly featured: boolean;
  readonly restricted: boolean;
  readonly negRisk: boolean;
  readonly openInterestMicros: number;
  readonly tagIds: readonly number[];
  readonly seriesIds: readonly number[];
  readonly marketIds: readonly number[];
  /** The creators (lower-case) of the event's markets; derived, kept for creator scoping. */
  readonly creators: readonly string[];
  readonly metadata: Readonly<Record<string, unknown>>;
}

export interface MarketRecord {
  readonly id: number;
  readonly eventId: number;
  readonly question: string;
  readonly conditionId: string;
  readonly questionId: string;
  readonly slug: string;
  readonly resolutionSource: string;
  readonly image: string;
  readonly icon: string;
  readonly description: string;
  readonly groupItemTitle: string;
  /** Exactly two: a binary market. Index 0 is the YES orientation of the book. */
  readonly outcomes: readonly [string, string];
  readonly tokenIds: readonly [string, string];
  readonly startDateMs: number;
  readonly endDateMs: number;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  readonly active: boolean;
  readonly closed: boolean;
  readonly archived: boolean;
  /** Lower-case wallet address or site id whose `creator` filter shows the market; null: none. */
  readonly creator: string | null;
  /** Price units of 0.0001. */
  readonly tickUnits: number;
  readonly minSizeMicros: number;
  readonly negRisk: boolean;
  readonly makerBaseFeeBps: number;
  readonly takerBaseFeeBps: number;
  readonly enableOrderBook: boolean;
  readonly acceptingOrders: boolean;
}


// The demo catalog loaded on the first start of an empty data directory (unless SEED_DEMO=0):
// Gamma-shaped events fed through the same path as the admin API. It is a pure function of
// nothing, so every fresh install shows the same ids, slugs, condition ids and token ids.

/** The two creators of the demo: a site id and a wallet address. */
export const demoCreators = { site: 'clobd.example', wallet: '0x5ca1ab1e00000000000000000000000000000b0b' } as const;

interface DemoMarket {
  readonly question: string;
  readonly group?: string;
  readonly creator?: string;
  /** Tick size as decimal text; 0.01 when absent. */
  readonly tick?: string;
  readonly feeBps?: number;
}

interface DemoEvent {
  readonly title: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly series?: string;
  readonly endDate: string;
  readonly closed?: boolean;
  readonly negRisk?: boolean;
  readonly featured?: boolean;
  readonly markets: readonly DemoMarket[];
}

const tags: Readonly<Record<string, string>> = {
  politics: 'Politics',
  crypto: 'Crypto',
  sports: 'Sports',
  economy: 'Economy',
  science: 'Science',
  weather: 'Weather',
  culture: 'Pop Culture',
};

const series: Readonly<Record<string, { title: string; recurrence: string }>> = {
  'fed-watch': { title: 'Fed Watch', recurrence: 'monthly' },
  'crypto-year-end': { title: 'Crypto Year-End Prices', recurrence: 'annual' },
  'bitcoin-daily': { title: 'Bitcoin Up or Down Daily', recurrence: 'daily' },
};

const { site, wallet } = demoCreators;

const candidates = (names: readonly string[], question: (name: string) => string, creator: string): DemoMarket[] =>
  names.map((name) => ({ question: question(name), group: name, creator }));

const events: readonly DemoEvent[] = [
  {
    title: 'Presidential Election Winner 2028',
    description: 'Which candidate will win the 2028 US presidential election?',
    tags: ['politics'],
    endDate: '2028-11-07T00:00:00Z',
    negRisk: true,
    featured: true,
    markets: candidates(['Alice Moreno', 'Ben Carter', 'Chloe Nguyen', 'David Okafor', 'Other'], (name) => `Will ${name} win the 2028 US presidential election?`, site),
  },
  {
    title: 'Fed Decision in December',
    description: 'What will the FOMC decide at its December meeting?',
    tags: ['economy'],
    series: 'fed-watch',
    endDate: '2026-12-16T19:00:00Z',
    negRisk: true,
    markets: candidates(['50+ bps cut', '25 bps cut', 'No change', 'Hike'], (name) => `Fed decision in December: ${name}?`, site),
  },
  {
    title: 'Bitcoin above ___ on December 31?',
    description: 'Will the BTC/USD price be above the strike at 23:59 UTC on December 31, 2026?',
    tags: ['crypto'],
    series: 'crypto-year-end',
    endDate: '2026-12-31T23:59:00Z',
    markets: [
      ...candidates(['80,000', '100,000'], (strike) => `Will Bitcoin be above $${strike} on December 31?`, site),
      ...candidates(['120,000', '150,000', '200,000'], (strike) => `Will Bitcoin be above $${strike} on December 31?`, wallet),
    ],
  },
  {
    title: 'Ethereum above ___ on December 31?',
    description: 'Will the ETH/USD price be above the strike at 23:59 UTC on December 31, 2026?',
    tags: ['crypto'],
    series: 'crypto-year-end',
    endDate: '2026-12-31T23:59:00Z',
    markets: candidates(['3,000', '4,000', '5,000', '6,000'], (strike) => `Will Ethereum be above $${strike} on December 31?`, wallet),
  },
  {
    title: 'NBA Champion 2027',
    description: 'Which team will win the 2027 NBA Finals?',
    tags: ['sports'],
    endDate: '2027-06-30T00:00:00Z',
    negRisk: true,
    markets: candidates(['Boston', 'Denver', 'Oklahoma City', 'New York'], (team) => `Will ${team} win the 2027 NBA Finals?`, site),
  },
  {
    title: 'Super Bowl LXI Winner',
    description: 'Which team will win Super Bowl LXI?',
    tags: ['sports'],
    endDate: '2027-02-14T23:00:00Z',
    negRisk: true,
    markets: candidates(['Kansas City', 'Philadelphia', 'Detroit', 'Baltimore'], (team) => `Will ${team} win Super Bowl LXI?`, wallet),
  },
  {
    title: 'Will it snow in New York City on Christmas Day?',
    description: 'Resolves YES if Central Park records at least 0.1 inch of snow on December 25, 2026.',
    tags: ['weather'],
    endDate: '2026-12-26T05:00:00Z',
    markets: [{ question: 'Will it snow in New York City on Christmas Day?', creator: site, tick: '0.001' }],
  },
  {
    title: 'Highest temperature in London on August 1',
    description: 'The highest temperature recorded at Heathrow on August 1, 2027.',
    tags: ['weather', 'science'],
    endDate: '2027-08-02T00:00:00Z',
    markets: candidates(['Below 20°C', '20-25°C', 'Above 25°C'], (band) => `Highest temperature in London on August 1: ${band}?`, site),
  },
  {
    title: 'Next Starship flight reaches orbit?',
    description: 'Resolves YES if the next Starship flight test reaches orbital velocity.',
    tags: ['science'],
    endDate: '2027-03-31T00:00:00Z',
    markets: [{ question: 'Will the next Starship flight reach orbit?', creator: wallet, feeBps: 10 }],
  },
  {
    title: 'Best Picture at the 2027 Oscars',
    description: 'Which film will win Best Picture at the 99th Academy Awards?',
    tags: ['culture'],
    endDate: '2027-03-15T00:00:00Z',
    negRisk: true,
    markets: candidates(['The Long Field', 'Glass Harbor', 'Northern Lights', 'Paper Moons'], (film) => `Will "${film}" win Best Picture?`, site),
  },
  {
    title: 'US recession in 2027?',
    description: 'Resolves YES if the NBER declares a recession starting in 2027.',
    tags: ['economy', 'politics'],
    endDate: '2027-12-31T00:00:00Z',
    markets: [{ question: 'Will the US enter a recession in 2027?', creator: site, tick: '0.001', feeBps: 20 }],
  },
  {
    title: 'January CPI above ___?',
    description: 'Year-over-year US CPI for January 2027 as first reported by the BLS.',
    tags: ['economy'],
    series: 'fed-watch',
    endDate: '2027-02-12T13:30:00Z',
    markets: [
      { question: 'Will January CPI be above 2.5%?' },
      { question: 'Will January CPI be above 3.0%?', creator: wallet },
    ],
  },
  {
    title: 'Bitcoin Up or Down on November 20?',
    description: 'Resolves UP if the BTC/USD close on November 20, 2026 is above the open.',
    tags: ['crypto'],
    series: 'bitcoin-daily',
    endDate: '2026-11-21T00:00:00Z',
    closed: true,
    markets: [{ question: 'Bitcoin Up or Down on November 20?', creator: site }],
  },
  {
    title: 'Bitcoin Up or Down on November 21?',
    description: 'Resolves UP if the BTC/USD close on November 21, 2026 is above the open.',
    tags: ['crypto'],
    series: 'bitcoin-daily',
    endDate: '2026-11-22T00:00:00Z',
    markets: [{ question: 'Bitcoin Up or Down on November 21?', creator: site }],
  },
  {
    title: 'Bitcoin Up or Down on November 22?',
    description: 'Resolves UP if the BTC/USD close on November 22, 2026 is above the open.',
    tags: ['crypto'],
    series: 'bitcoin-daily',
    endDate: '2026-11-23T00:00:00Z',
    markets: [{ question: 'Bitcoin Up or Down on November 22?', creator: wallet }],
  },
];

const createdEpochMs = Date.UTC(2026, 0, 5, 12, 0, 0);
const dayMs = 86_400_000;

/** The demo catalog as Gamma-shaped event bodies, in creation order. */
export function demoEvents(): unknown[] {
  return events.map((event, index) => {
    const createdAt = new Date(createdEpochMs + index * dayMs).toISOString();
    const isUpDown = event.series === 'bitcoin-daily';
    return {
      title: event.title,
      description: event.description,
      startDate: createdAt,
      endDate: event.endDate,
      createdAt,
      closed: event.closed ?? false,
      featured: event.featured ?? false,
      tags: event.tags.map((slug) => ({ slug, label: tags[slug], createdAt: new Date(createdEpochMs).toISOString() })),
      series: event.series === undefined ? [] : [{ slug: event.series, title: series[event.series]?.title, recurrence: series[event.series]?.recurrence, seriesType: 'single', createdAt }],
      markets: event.markets.map((market) => ({
        question: market.question,
        groupItemTitle: market.group ?? '',
        outcomes: JSON.stringify(isUpDown ? ['Up', 'Down'] : ['Yes', 'No']),
        orderPriceMinTickSize: market.tick ?? '0.01',
        orderMinSize: 5,
        negRisk: event.negRisk ?? false,
        takerBaseFee: market.feeBps ?? 0,
        creator: market.creator,
        closed: event.closed ?? false,
        acceptingOrders: !(event.closed ?? false),
        createdAt,
      })),
    };
  });
}

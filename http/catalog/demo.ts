// The demo catalog loaded on the first start of an empty data directory (unless SEED_DEMO=0):
// Gamma-shaped events fed through the same path as the admin API. Its dates are relative to the
// day of that first start (the demo's anchor, kept in DATA_DIR/demo.json), so events end days to
// months after a new user first sees them, never on fixed calendar dates that have passed; it is
// a pure function of that day, so installs seeded on the same day show the same catalog.

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

const dayMs = 86_400_000;
const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A UTC day as the demo's texts name it. */
interface Day {
  /** "November 21" */
  readonly date: string;
  /** "November 21, 2026" */
  readonly full: string;
  readonly month: string;
  readonly year: number;
}

function dayOf(ms: number): Day {
  const at = new Date(ms);
  const month = months[at.getUTCMonth()]!;
  const date = `${month} ${at.getUTCDate()}`;
  return { date, full: `${date}, ${at.getUTCFullYear()}`, month, year: at.getUTCFullYear() };
}

/** Milliseconds of `days` days after the anchor plus a UTC time of day ("HH:MM"). */
function at(anchorMs: number, days: number, time = '00:00'): number {
  const [hours, minutes] = time.split(':').map(Number);
  return anchorMs + days * dayMs + ((hours ?? 0) * 60 + (minutes ?? 0)) * 60_000;
}

/**
 * The demo's events, dated from `anchorMs` (UTC midnight of the day the data directory was first
 * seeded): every end date is some days after it, and every text that names a date names the one
 * the event is about, so a fresh install never shows an event that ended before it started. The
 * one closed event is yesterday's of the daily series.
 */
function eventsAt(anchorMs: number): DemoEvent[] {
  const ending = (days: number, time?: string) => {
    const endMs = at(anchorMs, days, time);
    return { endDate: new Date(endMs).toISOString(), day: dayOf(endMs), before: dayOf(endMs - dayMs) };
  };
  const election = ending(716);
  const fed = ending(25, '19:00');
  const yearEnd = ending(40, '23:59');
  const nba = ending(586);
  const superBowl = ending(450, '23:00');
  const snow = ending(35, '05:00');
  const london = ending(254);
  const oscars = ending(114);
  const recession = ending(405);
  const cpi = ending(83, '13:30');
  const cpiMonth = dayOf(at(anchorMs, 83 - 30));
  const upDown = (days: number, creator: string, closed = false): DemoEvent => {
    const { endDate, before } = ending(days);
    return {
      title: `Bitcoin Up or Down on ${before.date}?`,
      description: `Resolves UP if the BTC/USD close on ${before.full} is above the open.`,
      tags: ['crypto'],
      series: 'bitcoin-daily',
      endDate,
      closed,
      markets: [{ question: `Bitcoin Up or Down on ${before.date}?`, creator }],
    };
  };
  return [
    {
      title: `Presidential Election Winner ${election.day.year}`,
      description: `Which candidate will win the ${election.day.year} US presidential election?`,
      tags: ['politics'],
      endDate: election.endDate,
      negRisk: true,
      featured: true,
      markets: candidates(['Alice Moreno', 'Ben Carter', 'Chloe Nguyen', 'David Okafor', 'Other'], (name) => `Will ${name} win the ${election.day.year} US presidential election?`, site),
    },
    {
      title: `Fed Decision in ${fed.day.month}`,
      description: `What will the FOMC decide at its ${fed.day.month} meeting?`,
      tags: ['economy'],
      series: 'fed-watch',
      endDate: fed.endDate,
      negRisk: true,
      markets: candidates(['50+ bps cut', '25 bps cut', 'No change', 'Hike'], (name) => `Fed decision in ${fed.day.month}: ${name}?`, site),
    },
    {
      title: `Bitcoin above ___ on ${yearEnd.day.date}?`,
      description: `Will the BTC/USD price be above the strike at 23:59 UTC on ${yearEnd.day.full}?`,
      tags: ['crypto'],
      series: 'crypto-year-end',
      endDate: yearEnd.endDate,
      markets: [
        ...candidates(['80,000', '100,000'], (strike) => `Will Bitcoin be above $${strike} on ${yearEnd.day.date}?`, site),
        ...candidates(['120,000', '150,000', '200,000'], (strike) => `Will Bitcoin be above $${strike} on ${yearEnd.day.date}?`, wallet),
      ],
    },
    {
      title: `Ethereum above ___ on ${yearEnd.day.date}?`,
      description: `Will the ETH/USD price be above the strike at 23:59 UTC on ${yearEnd.day.full}?`,
      tags: ['crypto'],
      series: 'crypto-year-end',
      endDate: yearEnd.endDate,
      markets: candidates(['3,000', '4,000', '5,000', '6,000'], (strike) => `Will Ethereum be above $${strike} on ${yearEnd.day.date}?`, wallet),
    },
    {
      title: `NBA Champion ${nba.day.year}`,
      description: `Which team will win the ${nba.day.year} NBA Finals?`,
      tags: ['sports'],
      endDate: nba.endDate,
      negRisk: true,
      markets: candidates(['Boston', 'Denver', 'Oklahoma City', 'New York'], (team) => `Will ${team} win the ${nba.day.year} NBA Finals?`, site),
    },
    {
      title: `Super Bowl ${superBowl.day.year} Winner`,
      description: `Which team will win the Super Bowl played on ${superBowl.day.full}?`,
      tags: ['sports'],
      endDate: superBowl.endDate,
      negRisk: true,
      markets: candidates(['Kansas City', 'Philadelphia', 'Detroit', 'Baltimore'], (team) => `Will ${team} win the ${superBowl.day.year} Super Bowl?`, wallet),
    },
    {
      title: `Will it snow in New York City on ${snow.before.date}?`,
      description: `Resolves YES if Central Park records at least 0.1 inch of snow on ${snow.before.full}.`,
      tags: ['weather'],
      endDate: snow.endDate,
      markets: [{ question: `Will it snow in New York City on ${snow.before.date}?`, creator: site, tick: '0.001' }],
    },
    {
      title: `Highest temperature in London on ${london.before.date}`,
      description: `The highest temperature recorded at Heathrow on ${london.before.full}.`,
      tags: ['weather', 'science'],
      endDate: london.endDate,
      markets: candidates(['Below 20°C', '20-25°C', 'Above 25°C'], (band) => `Highest temperature in London on ${london.before.date}: ${band}?`, site),
    },
    {
      title: 'Next Starship flight reaches orbit?',
      description: 'Resolves YES if the next Starship flight test reaches orbital velocity.',
      tags: ['science'],
      endDate: ending(130).endDate,
      markets: [{ question: 'Will the next Starship flight reach orbit?', creator: wallet, feeBps: 10 }],
    },
    {
      title: `Best Picture at the ${oscars.day.year} Oscars`,
      description: `Which film will win Best Picture at the Academy Awards of ${oscars.day.full}?`,
      tags: ['culture'],
      endDate: oscars.endDate,
      negRisk: true,
      markets: candidates(['The Long Field', 'Glass Harbor', 'Northern Lights', 'Paper Moons'], (film) => `Will "${film}" win Best Picture?`, site),
    },
    {
      title: `US recession by ${recession.day.full}?`,
      description: `Resolves YES if the NBER declares a recession starting before ${recession.day.full}.`,
      tags: ['economy', 'politics'],
      endDate: recession.endDate,
      markets: [{ question: `Will the US enter a recession by ${recession.day.full}?`, creator: site, tick: '0.001', feeBps: 20 }],
    },
    {
      title: `${cpiMonth.month} CPI above ___?`,
      description: `Year-over-year US CPI for ${cpiMonth.month} ${cpiMonth.year} as first reported by the BLS on ${cpi.day.full}.`,
      tags: ['economy'],
      series: 'fed-watch',
      endDate: cpi.endDate,
      markets: [
        { question: `Will ${cpiMonth.month} CPI be above 2.5%?` },
        { question: `Will ${cpiMonth.month} CPI be above 3.0%?`, creator: wallet },
      ],
    },
    upDown(0, site, true),
    upDown(1, site),
    upDown(2, wallet),
  ];
}

/**
 * Where the first demo put its events' creation dates (2026-01-05 12:00 UTC, then a day apart, in
 * creation order): versions before the demo was dated from the first start wrote exactly these.
 */
export const LEGACY_DEMO_CREATED_MS = Date.UTC(2026, 0, 5, 12, 0, 0);
/** How many events the demo catalog holds (the legacy one held as many, in the same order). */
export const DEMO_EVENT_COUNT = 15;

/** UTC midnight of the day of `ms`: the demo's anchor when the data directory is first seeded at `ms`. */
export function demoAnchorOf(ms: number): number {
  return Math.floor(ms / dayMs) * dayMs;
}

/**
 * The demo catalog as Gamma-shaped event bodies, in creation order, dated from `anchorMs` (UTC
 * midnight of the first start's day, demoAnchorOf): a pure function of that day, so every install
 * seeded on the same day shows the same ids, slugs, dates, condition ids and token ids. Each
 * event was created (and started) some days before the anchor, a day apart.
 */
export function demoEvents(anchorMs: number): unknown[] {
  const events = eventsAt(anchorMs);
  return events.map((event, index) => {
    const createdAt = new Date(anchorMs + 12 * 3_600_000 - (events.length - index) * dayMs).toISOString();
    const isUpDown = event.series === 'bitcoin-daily';
    return {
      title: event.title,
      description: event.description,
      startDate: createdAt,
      endDate: event.endDate,
      createdAt,
      closed: event.closed ?? false,
      featured: event.featured ?? false,
      tags: event.tags.map((slug) => ({ slug, label: tags[slug], createdAt: new Date(anchorMs - 30 * dayMs).toISOString() })),
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

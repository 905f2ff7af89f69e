// GET /public-search: case-insensitive matching of a query over event titles, tickers, slugs and
// their markets' questions, and over tag labels and slugs. Matches rank exact, then prefix, then
// word prefix, then substring; ties go to the larger (the event's volume as the read's scope
// sums it, live: views.ts; the tag's event count), then the lower id. The lower-cased text is
// built once per catalog version, not per request.
import type { CatalogStore } from './store.js';
import type { EventRecord, TagRecord } from './model.js';
import { eventVisible, type CatalogViews, type Creator } from './views.js';

const noMatch = 4;

/** 0 exact, 1 prefix, 2 word prefix, 3 substring, 4 none. */
export function matchRank(text: string, needle: string): number {
  if (text === needle) return 0;
  if (text.startsWith(needle)) return 1;
  const first = text.indexOf(needle);
  if (first === -1) return noMatch;
  // Any occurrence may start a word ("brainstorm before the storm"), not only the first one.
  for (let at = first; at !== -1; at = text.indexOf(needle, at + 1)) {
    if (/[^a-z0-9]/.test(text[at - 1] ?? '')) return 2;
  }
  return 3;
}

interface EventText {
  readonly event: EventRecord;
  readonly texts: readonly string[];
  readonly questions: readonly { readonly text: string; readonly creator: string | null }[];
}

interface TagText {
  readonly tag: TagRecord;
  readonly texts: readonly string[];
}

interface Corpus {
  readonly version: number;
  readonly events: readonly EventText[];
  readonly tags: readonly TagText[];
}

export interface SearchOptions {
  readonly limitPerType: number;
  readonly page: number;
  readonly searchTags: boolean;
  readonly creator: Creator;
}

export interface SearchResult {
  readonly events: { id: string; ticker: string; slug: string; title: string }[];
  readonly tags: { id: string; label: string; slug: string; event_count: number }[];
  readonly pagination: { hasMore: boolean; totalResults: number };
}

interface Ranked<T> {
  readonly item: T;
  readonly rank: number;
  readonly weight: number;
  readonly id: number;
}

function byRank<T>(a: Ranked<T>, b: Ranked<T>): number {
  return a.rank - b.rank || b.weight - a.weight || a.id - b.id;
}

export class CatalogSearch {
  private corpus: Corpus | undefined = undefined;

  constructor(private readonly store: CatalogStore, private readonly views: CatalogViews) {}

  search(query: string, options: SearchOptions): SearchResult {
    const needle = query.trim().toLowerCase();
    const corpus = this.current();
    const events = this.rankEvents(corpus, needle, options.creator);
    const tags = options.searchTags ? this.rankTags(corpus, needle, options.creator) : [];
    const start = (options.page - 1) * options.limitPerType;
    const end = start + options.limitPerType;
    return {
      events: events.slice(start, end).map(({ item }) => ({ id: String(item.id), ticker: item.ticker, slug: item.slug, title: item.title })),
      tags: tags.slice(start, end).map(({ item, weight }) => ({ id: String(item.id), label: item.label, slug: item.slug, event_count: weight })),
      pagination: { hasMore: end < events.length || end < tags.length, totalResults: events.length },
    };
  }

  private current(): Corpus {
    const version = this.store.version;
    if (this.corpus?.version === version) return this.corpus;
    const store = this.store;
    const events = store.allEvents().map((event) => ({
      event,
      texts: [event.title, event.ticker, event.slug].map((text) => text.toLowerCase()),
      questions: event.marketIds.flatMap((id) => {
        const market = store.market(id);
        return market === undefined ? [] : [{ text: market.question.toLowerCase(), creator: market.creator }];
      }),
    }));
    const tags = store.allTags().map((tag) => ({ tag, texts: [tag.label.toLowerCase(), tag.slug.toLowerCase()] }));
    this.corpus = { version, events, tags };
    return this.corpus;
  }

  private rankEvents(corpus: Corpus, needle: string, creator: Creator): Ranked<EventRecord>[] {
    const ranked: Ranked<EventRecord>[] = [];
    for (const entry of corpus.events) {
      if (!eventVisible(entry.event, creator)) continue;
      let rank = noMatch;
      for (const text of entry.texts) rank = Math.min(rank, matchRank(text, needle));
      for (const question of entry.questions) {
        if (creator === undefined || question.creator === creator) rank = Math.min(rank, matchRank(question.text, needle));
      }
      if (rank < noMatch) ranked.push({ item: entry.event, rank, weight: this.views.eventTotals(entry.event, creator).volumeMicros, id: entry.event.id });
    }
    return ranked.sort(byRank);
  }

  private rankTags(corpus: Corpus, needle: string, creator: Creator): Ranked<TagRecord>[] {
    const ranked: Ranked<TagRecord>[] = [];
    for (const entry of corpus.tags) {
      const rank = Math.min(...entry.texts.map((text) => matchRank(text, needle)));
      if (rank === noMatch) continue;
      const count = this.store.eventIdsOfTag(entry.tag.id).filter((id) => {
        const event = this.store.event(id);
        return event !== undefined && eventVisible(event, creator);
      }).length;
      if (creator !== undefined && count === 0) continue;
      ranked.push({ item: entry.tag, rank, weight: count, id: entry.tag.id });
    }
    return ranked.sort(byRank);
  }
}

// Each book's version in shared memory, so the front-end threads (http/front_end/) can tell
// whether a read they kept is still what the main thread would answer: an answer built from a book
// (GET /book, /price, /midpoint, …) stays right exactly while its book's version does. The main
// thread is the only writer; a cell is written before the change it stands for can be seen by
// anyone (before the answer of the order that made it is written), so a read on another thread
// after that answer finds the new version.
import type { Reply } from '../respond.js';
/** Books whose reads the front-end threads may keep (4 bytes each: 1 MiB); a book past them is always read on the main thread. */
export const BOOK_VERSION_CELLS = 1 << 18;

export class BookVersions {
  readonly buffer = new SharedArrayBuffer(BOOK_VERSION_CELLS * 4);
  private readonly cells = new Int32Array(this.buffer);
  private next = 0;

  /** A cell for a new book; -1 once every one is taken. */
  allocate(): number {
    return this.next < BOOK_VERSION_CELLS ? this.next++ : -1;
  }

  set(cell: number, version: number): void {
    Atomics.store(this.cells, cell, version | 0);
  }
}

/** One book's part of a kept answer's validity: right while `cell` holds `version`. */
export interface BookVersion {
  readonly cell: number;
  readonly version: number;
}

/** A kept answer's validity: right while every book it was built from holds its version. */
export type Validity = readonly BookVersion[];

/**
 * `reply`, kept by a front-end thread while every one of `books` (and any other cell, such as the
 * catalog's) holds its version (Reply.validity); as it is when one has no cell (then no thread keeps it).
 */
export function keptWhile(reply: Reply, books: readonly (BookVersion | undefined)[]): Reply {
  const validity: BookVersion[] = [];
  for (const book of books) {
    if (book === undefined) return reply;
    validity.push(book);
  }
  return { ...reply, validity };
}

/** Something versioned elsewhere (the catalog: catalog/store.ts) whose answers the threads keep too. */
export interface Versioned {
  readonly version: number;
  onChange(listener: (version: number) => void): void;
}

/**
 * A cell that follows `source`'s version, written as each change commits (before its writer
 * answers), so an answer built from it is kept while it is unchanged; undefined without shared
 * versions or once every cell is taken.
 */
export function followVersion(versions: BookVersions | undefined, source: Versioned): (() => BookVersion) | undefined {
  const cell = versions?.allocate() ?? -1;
  if (versions === undefined || cell === -1) return undefined;
  versions.set(cell, source.version);
  source.onChange((version) => versions.set(cell, version));
  return () => ({ cell, version: source.version | 0 });
}

// A map of the pages an LMDB data file's newest snapshot uses, so tests can damage pages that are
// in use rather than free ones (a flipped byte in a free page changes nothing): the tree walk the
// start's check makes of the free-page list, made here of the main database and its tables.
import { closeSync, openSync } from 'node:fs';
import { NO_PAGE } from '../../http/data_dir/lmdb_layout.js';
import { readMetaPages } from '../../http/data_dir/meta_pages.js';
import { walkTree, type PageKind } from '../../http/data_dir/page_tree.js';

export interface PageMap {
  readonly pageBytes: number;
  /** Every page the newest snapshot reaches from its main database, and what it is. */
  readonly pages: ReadonlyMap<number, PageKind>;
  /** The roots the newest meta page names (the free-page and main databases'). */
  readonly roots: readonly number[];
  /** The free-page database's root, undefined when it is empty. */
  readonly freeRoot: number | undefined;
}

export function pageMap(file: string): PageMap {
  const fd = openSync(file, 'r');
  try {
    const meta = readMetaPages(fd);
    if (typeof meta === 'string') throw new Error(`${file}: ${meta}`);
    const pages = walkTree({ fd, pageBytes: meta.pageBytes, filePages: meta.filePages }, meta.mainRoot);
    const roots = [meta.freeRoot, meta.mainRoot].filter((root) => root !== NO_PAGE).map(Number);
    return { pageBytes: meta.pageBytes, pages, roots, freeRoot: meta.freeRoot === NO_PAGE ? undefined : Number(meta.freeRoot) };
  } finally {
    closeSync(fd);
  }
}

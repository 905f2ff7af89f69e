// The two meta pages at the head of an LMDB data file, read with plain file reads and checked
// before LMDB maps the file. LMDB keeps no checksums: it trusts these pages, and a damaged one
// can make it read outside the file (SIGBUS) or outside any page (SIGSEGV) instead of failing.
//
// The layout is in lmdb_layout.ts.
import { fstatSync, readSync } from 'node:fs';
import {
  DATA_VERSION, FREE_ROOT_AT, LAST_PAGE_AT, MAGIC, MAGIC_AT, MAIN_ROOT_AT, META_BYTES, NO_PAGE, P_META, PAGE_BYTES_AT, PAGE_FLAGS_AT,
  TXNID_AT, VERSION_AT,
} from './lmdb_layout.js';

/** LMDB's page sizes: a power of two from 512 bytes (its smallest OS page) to 64 KiB (its largest). */
const PAGE_BYTES_MIN = 512;
const PAGE_BYTES_MAX = 65_536;

interface Meta {
  readonly pageBytes: number;
  readonly freeRoot: bigint;
  readonly mainRoot: bigint;
  readonly lastPage: bigint;
  readonly txnid: bigint;
}

/** What the meta pages say about the file, once they are sound. */
export interface MetaSummary {
  readonly pageBytes: number;
  /** Pages the newest meta page says the file has (its last page number + 1). */
  readonly pages: bigint;
  /** Whole pages the file holds. */
  readonly filePages: bigint;
  readonly txnid: bigint;
  /** The newest meta page's roots of the free-page and main databases (NO_PAGE when empty). */
  readonly freeRoot: bigint;
  readonly mainRoot: bigint;
}

/** Reads `length` bytes at `position`; fewer when the file ends first. */
function readAt(fd: number, position: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  const read = readSync(fd, bytes, 0, length, position);
  return bytes.subarray(0, read);
}

/** Meta page `index` of the file (`page`: its first META_BYTES bytes), or what is wrong with it. */
function parseMeta(page: Buffer, index: number, pageBytes: number | undefined): Meta | string {
  if (page.length < META_BYTES) return `it ends inside meta page ${index}`;
  if ((page.readUInt16LE(PAGE_FLAGS_AT) & P_META) === 0) return `meta page ${index} is missing (zeroed or overwritten)`;
  if (page.readUInt32LE(MAGIC_AT) !== MAGIC) return `meta page ${index} does not hold LMDB's magic number`;
  if ((page.readUInt32LE(VERSION_AT) & 0xffff) !== DATA_VERSION) return `meta page ${index} is of an unknown LMDB data version`;
  const meta: Meta = {
    pageBytes: page.readUInt32LE(PAGE_BYTES_AT), freeRoot: page.readBigUInt64LE(FREE_ROOT_AT), mainRoot: page.readBigUInt64LE(MAIN_ROOT_AT),
    lastPage: page.readBigUInt64LE(LAST_PAGE_AT), txnid: page.readBigUInt64LE(TXNID_AT),
  };
  const powerOfTwo = (meta.pageBytes & (meta.pageBytes - 1)) === 0;
  if (!powerOfTwo || meta.pageBytes < PAGE_BYTES_MIN || meta.pageBytes > PAGE_BYTES_MAX) return `meta page ${index} holds an impossible page size (${meta.pageBytes})`;
  if (pageBytes !== undefined && meta.pageBytes !== pageBytes) return `its meta pages disagree on the page size (${pageBytes} and ${meta.pageBytes})`;
  if (meta.txnid !== 0n && Number(meta.txnid % 2n) !== index) return `meta page ${index} holds a transaction id it is never written with (${meta.txnid})`;
  if (meta.lastPage < 1n) return `meta page ${index} holds an impossible last page (${meta.lastPage})`;
  for (const [name, root] of [['free-page', meta.freeRoot], ['main', meta.mainRoot]] as const) {
    if (root !== NO_PAGE && (root < 2n || root > meta.lastPage)) return `meta page ${index}'s ${name} root (page ${root}) is not a page of the file`;
  }
  return meta;
}

/**
 * Checks the meta pages of the data file open at `fd` without mapping it: both present and
 * sound, and the newest one's root pages inside the file. Returns the summary, or what is wrong
 * ("it is empty (0 bytes)", "meta page 0 is missing (…)").
 */
export function readMetaPages(fd: number): MetaSummary | string {
  const fileBytes = fstatSync(fd).size;
  if (fileBytes === 0) return 'it is empty (0 bytes)';
  const first = parseMeta(readAt(fd, 0, META_BYTES), 0, undefined);
  if (typeof first === 'string') return first;
  const second = parseMeta(readAt(fd, first.pageBytes, META_BYTES), 1, first.pageBytes);
  if (typeof second === 'string') return second;
  const newest = second.txnid > first.txnid ? second : first;
  const filePages = BigInt(Math.floor(fileBytes / first.pageBytes));
  for (const root of [newest.freeRoot, newest.mainRoot]) {
    if (root !== NO_PAGE && root >= filePages) return `it is truncated: its root page ${root} lies past its end (${filePages} of ${newest.lastPage + 1n} pages)`;
  }
  return {
    pageBytes: first.pageBytes, pages: newest.lastPage + 1n, filePages, txnid: newest.txnid, freeRoot: newest.freeRoot, mainRoot: newest.mainRoot,
  };
}

// The two meta pages at the head of an LMDB data file, read with plain file reads and checked
// before LMDB maps the file. LMDB keeps no checksums: it trusts these pages, and a damaged one
// can make it read outside the file (SIGBUS) or outside any page (SIGSEGV) instead of failing.
//
// The layout is that of the LMDB lmdb-js 3.x bundles (its master3 branch), 64-bit, data format
// 2, as read from files it wrote (the C struct's offsets, checked against real data.mdb files):
//   page header (24 bytes): page number u64, txnid u64, pad u16, flags u16 (0x08: meta), bounds u32
//   meta (from byte 24):    magic u32 (0xBEEFC0DE), version u32 (low 16 bits: 2), fixed address
//                           u64, map size u64, the free-page database's record (48 bytes: page
//                           size u32, flags u16, depth u16, branch, leaf and overflow page counts
//                           u64, entries u64, root page u64), the main database's record (48
//                           bytes, same fields), last page number u64, txnid u64, boot id u64.
// Meta page 0 is at byte 0, meta page 1 at byte `page size`. A commit with txnid t writes meta
// page t mod 2; a new file has txnid 0 in both. An empty database's root is 2^64 − 1.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const PAGE_FLAGS_AT = 18;
const P_META = 0x08;
const MAGIC_AT = 24;
const MAGIC = 0xbeefc0de;
const VERSION_AT = 28;
const DATA_VERSION = 2;
const PAGE_BYTES_AT = 48;
const FREE_ROOT_AT = 88;
const MAIN_ROOT_AT = 136;
const LAST_PAGE_AT = 144;
const TXNID_AT = 152;
/** Bytes of a meta page that hold the header and the meta, through the boot id. */
const META_BYTES = 168;
/** LMDB's page sizes: a power of two from 512 bytes (its smallest OS page) to 64 KiB (its largest). */
const PAGE_BYTES_MIN = 512;
const PAGE_BYTES_MAX = 65_536;
const NO_PAGE = 0xffff_ffff_ffff_ffffn;

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
 * Checks the meta pages of the data file `file` without mapping it: both present and sound, and
 * the newest one's root pages inside the file. Returns the summary, or what is wrong ("it is
 * empty (0 bytes)", "meta page 0 is missing (…)").
 */
export function readMetaPages(file: string): MetaSummary | string {
  const fd = openSync(file, 'r');
  try {
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
    return { pageBytes: first.pageBytes, pages: newest.lastPage + 1n, filePages, txnid: newest.txnid };
  } finally {
    closeSync(fd);
  }
}

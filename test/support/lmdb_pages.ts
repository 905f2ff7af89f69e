// A map of the pages an LMDB data file's newest snapshot uses, read from the file with plain
// reads, so tests can damage pages that are in use rather than free ones (a flipped byte in a
// free page changes nothing). Written from the layout LMDB documents in mdb.c (64-bit, data
// format 2, as lmdb-js 3.x bundles it): a page header of 24 bytes (page number, txnid, pad,
// flags, lower/upper bounds or an overflow page count), node offsets after it, nodes of
// [lo u16, hi u16, flags u16, key size u16, key, data].
import { readFileSync } from 'node:fs';

const HEADER_BYTES = 24;
const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_OVERFLOW = 0x04;
const P_LEAF2 = 0x20;
const F_BIGDATA = 0x01;
const F_SUBDATA = 0x02;
const NO_PAGE = 0xffff_ffff_ffff_ffffn;
const NODE_HEADER_BYTES = 8;
const DB_ROOT_AT = 40;

export type PageKind = 'branch' | 'leaf' | 'overflow';

export interface PageMap {
  readonly pageBytes: number;
  /** Every page the newest snapshot reaches from its main database, and what it is. */
  readonly pages: ReadonlyMap<number, PageKind>;
  /** The roots the newest meta page names (the free-page and main databases'). */
  readonly roots: readonly number[];
}

export function pageMap(file: string): PageMap {
  const bytes = readFileSync(file);
  const pageBytes = bytes.readUInt32LE(48);
  const meta = (index: number) => ({
    txnid: bytes.readBigUInt64LE(index * pageBytes + 152), freeRoot: bytes.readBigUInt64LE(index * pageBytes + 88),
    mainRoot: bytes.readBigUInt64LE(index * pageBytes + 136),
  });
  const [first, second] = [meta(0), meta(1)];
  const newest = second.txnid > first.txnid ? second : first;
  const pages = new Map<number, PageKind>();
  const walk = (root: bigint): void => {
    if (root === NO_PAGE) return;
    const page = Number(root);
    const at = page * pageBytes;
    const flags = bytes.readUInt16LE(at + 18);
    if ((flags & P_OVERFLOW) !== 0) throw new Error(`page ${page} is an overflow page where a tree page was expected`);
    pages.set(page, (flags & P_BRANCH) !== 0 ? 'branch' : 'leaf');
    if ((flags & P_LEAF2) !== 0) return;
    const count = bytes.readUInt16LE(at + 20) >> 1;
    for (let index = 0; index < count; index++) {
      const node = at + bytes.readUInt16LE(at + HEADER_BYTES + 2 * index) + HEADER_BYTES;
      const nodeFlags = bytes.readUInt16LE(node + 4);
      const data = node + NODE_HEADER_BYTES + bytes.readUInt16LE(node + 6);
      if ((flags & P_BRANCH) !== 0) {
        walk(BigInt(bytes.readUInt16LE(node)) | (BigInt(bytes.readUInt16LE(node + 2)) << 16n) | (BigInt(nodeFlags) << 32n));
      } else if ((flags & P_LEAF) !== 0 && (nodeFlags & F_BIGDATA) !== 0) {
        const overflow = Number(bytes.readBigUInt64LE(data));
        const count = bytes.readUInt32LE(overflow * pageBytes + 20);
        for (let next = 0; next < count; next++) pages.set(overflow + next, 'overflow');
      } else if ((nodeFlags & F_SUBDATA) !== 0) {
        // A named database (in the main one) or the tree of a key's sorted duplicates; duplicates
        // kept in a sub-page inside their node (F_DUPDATA alone) have no page of their own.
        walk(bytes.readBigUInt64LE(data + DB_ROOT_AT));
      }
    }
  };
  walk(newest.mainRoot);
  return { pageBytes, pages, roots: [newest.freeRoot, newest.mainRoot].filter((root) => root !== NO_PAGE).map(Number) };
}

// A B-tree of an LMDB data file walked with plain reads, every page checked before anything in it
// is followed: the page is inside the file and says it is the page it was reached as, its flags
// are a tree page's, its node offsets and each node's key and data lie inside it, and an
// overflow value's pages are inside the file. Nothing is mapped, so damage is a thrown error,
// never a signal. The start's check walks the free-page database this way (lmdb-js opens no
// handle on it, and LMDB reads it at the first commit, in a shard's worker); tests use it to find
// the pages a store's tables use. The layout is in lmdb_layout.ts.
import { readSync } from 'node:fs';
import {
  DB_ROOT_AT, F_BIGDATA, F_SUBDATA, NO_PAGE, NODE_FLAGS_AT, NODE_HEADER_BYTES, NODE_KEY_BYTES_AT, P_BRANCH, P_LEAF, P_LEAF2, P_OVERFLOW,
  PAGE_FLAGS_AT, PAGE_HEADER_BYTES, PAGE_LOWER_AT, PAGE_UPPER_AT,
} from './lmdb_layout.js';

export type PageKind = 'branch' | 'leaf' | 'overflow';

/** The data file being walked: an open descriptor, its page size and its whole pages. */
export interface PageFile {
  readonly fd: number;
  readonly pageBytes: number;
  readonly filePages: bigint;
}

/** Levels a tree may have: LMDB's own cursor stack holds 32. */
const DEPTH_MAX = 32;

function readPage(file: PageFile, page: bigint, what: string): Buffer {
  if (page < 2n || page >= file.filePages) throw new Error(`${what} (page ${page}) is not a page of the file`);
  const bytes = Buffer.alloc(file.pageBytes);
  readSync(file.fd, bytes, 0, file.pageBytes, Number(page) * file.pageBytes);
  if (bytes.readBigUInt64LE(0) !== page) throw new Error(`page ${page} says it is page ${bytes.readBigUInt64LE(0)}`);
  return bytes;
}

/** The 64-bit page number a branch node points at: [lo u16, hi u16, flags u16] of the node. */
function childOf(bytes: Buffer, node: number): bigint {
  return BigInt(bytes.readUInt16LE(node)) | (BigInt(bytes.readUInt16LE(node + 2)) << 16n) | (BigInt(bytes.readUInt16LE(node + NODE_FLAGS_AT)) << 32n);
}

/**
 * Walks the tree whose root is `root`, and the trees of the named tables and sorted duplicates
 * its leaves hold; returns every page reached and what it is. Throws, naming the page, at the
 * first that is not sound or is reached twice.
 */
export function walkTree(file: PageFile, root: bigint): Map<number, PageKind> {
  const pages = new Map<number, PageKind>();
  const reach = (page: bigint, kind: PageKind): void => {
    if (pages.has(Number(page))) throw new Error(`page ${page} is reached twice`);
    pages.set(Number(page), kind);
  };
  const walk = (page: bigint, depth: number): void => {
    if (page === NO_PAGE) return;
    if (depth > DEPTH_MAX) throw new Error(`page ${page} lies deeper than ${DEPTH_MAX} levels`);
    const bytes = readPage(file, page, 'a tree page');
    const flags = bytes.readUInt16LE(PAGE_FLAGS_AT);
    const branch = (flags & P_BRANCH) !== 0;
    if (branch === ((flags & P_LEAF) !== 0)) throw new Error(`page ${page} is neither a branch nor a leaf (flags ${flags})`);
    reach(page, branch ? 'branch' : 'leaf');
    if ((flags & P_LEAF2) !== 0) return;
    const lower = bytes.readUInt16LE(PAGE_LOWER_AT);
    const upper = bytes.readUInt16LE(PAGE_UPPER_AT);
    if (lower > upper || PAGE_HEADER_BYTES + upper > file.pageBytes) throw new Error(`page ${page} has impossible bounds (${lower}, ${upper})`);
    for (let index = 0; index < lower >> 1; index++) {
      const node = PAGE_HEADER_BYTES + bytes.readUInt16LE(PAGE_HEADER_BYTES + 2 * index);
      if (node < PAGE_HEADER_BYTES + upper || node + NODE_HEADER_BYTES > file.pageBytes) throw new Error(`page ${page} has node ${index} outside its nodes`);
      const data = node + NODE_HEADER_BYTES + bytes.readUInt16LE(node + NODE_KEY_BYTES_AT);
      if (branch) {
        if (data > file.pageBytes) throw new Error(`page ${page} has node ${index} running past it`);
        walk(childOf(bytes, node), depth + 1);
        continue;
      }
      const nodeFlags = bytes.readUInt16LE(node + NODE_FLAGS_AT);
      const dataBytes = (nodeFlags & F_BIGDATA) !== 0 ? 8 : bytes.readUInt16LE(node) | (bytes.readUInt16LE(node + 2) << 16);
      if (data + dataBytes > file.pageBytes) throw new Error(`page ${page} has node ${index} running past it`);
      if ((nodeFlags & F_BIGDATA) !== 0) {
        const first = bytes.readBigUInt64LE(data);
        const overflow = readPage(file, first, `an overflow value of page ${page}`);
        if ((overflow.readUInt16LE(PAGE_FLAGS_AT) & P_OVERFLOW) === 0) throw new Error(`page ${first} is not the overflow page page ${page} points at`);
        const count = BigInt(overflow.readUInt32LE(PAGE_LOWER_AT));
        if (count < 1n || first + count > file.filePages) throw new Error(`overflow page ${first} runs past the file (${count} pages)`);
        for (let next = 0n; next < count; next++) reach(first + next, 'overflow');
      } else if ((nodeFlags & F_SUBDATA) !== 0) {
        walk(bytes.readBigUInt64LE(data + DB_ROOT_AT), depth + 1);
      }
    }
  };
  walk(root, 0);
  return pages;
}

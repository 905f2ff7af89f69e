// A B-tree of an LMDB data file walked with plain reads, every page checked before anything in it
// is followed: the page is inside the file and says it is the page it was reached as, its flags
// are a tree page's, its node offsets and each node's key and data lie inside it, an overflow
// value's pages are inside the file and hold its size, a table's record is a record, and no page
// is reached twice. Nothing is mapped, so damage is a thrown error, never a signal. LMDB checks
// none of this: it reads a node's data for as many bytes as the node says, past its page and the
// file if it says so, and what it finds there (a signal, or whatever memory lies beyond) depends
// on the process. The start's check walks the free-page database (which lmdb-js opens no handle
// on, and LMDB reads at the first commit) and the main one with its tables this way; tests use
// it to find the pages a store's tables use. The layout is in lmdb_layout.ts.
import { readSync } from 'node:fs';
import {
  DB_RECORD_BYTES, DB_ROOT_AT, F_BIGDATA, F_DUPDATA, F_SUBDATA, NO_PAGE, NODE_FLAGS_AT, NODE_HEADER_BYTES, NODE_KEY_BYTES_AT, P_BRANCH, P_LEAF, P_LEAF2, P_OVERFLOW,
  PAGE_FLAGS_AT, PAGE_HEADER_BYTES, PAGE_LOWER_AT, PAGE_PAD_AT, PAGE_UPPER_AT,
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

/** A leaf node's data size: [lo u16, hi u16] of the node, unsigned. */
function dataSizeOf(bytes: Buffer, node: number): number {
  return (bytes.readUInt16LE(node) | (bytes.readUInt16LE(node + 2) << 16)) >>> 0;
}

/**
 * The nodes of the page (or a leaf's sub-page of sorted duplicates) at [start, start + size) of
 * `bytes`, as offsets into `bytes`: its bounds and each node's offset and key checked to lie
 * inside it. `where` names it in the error.
 */
function nodesOf(bytes: Buffer, start: number, size: number, where: string): number[] {
  const lower = bytes.readUInt16LE(start + PAGE_LOWER_AT);
  const upper = bytes.readUInt16LE(start + PAGE_UPPER_AT);
  if (lower > upper || PAGE_HEADER_BYTES + upper > size) throw new Error(`${where} has impossible bounds (${lower}, ${upper})`);
  const nodes: number[] = [];
  for (let index = 0; index < lower >> 1; index++) {
    const node = PAGE_HEADER_BYTES + bytes.readUInt16LE(start + PAGE_HEADER_BYTES + 2 * index);
    if (node < PAGE_HEADER_BYTES + upper || node + NODE_HEADER_BYTES > size) throw new Error(`${where} has node ${index} outside its nodes`);
    if (node + NODE_HEADER_BYTES + bytes.readUInt16LE(start + node + NODE_KEY_BYTES_AT) > size) throw new Error(`${where} has node ${index} running past it`);
    nodes.push(start + node);
  }
  return nodes;
}

/** Checks a leaf's sub-page of sorted duplicates, [start, start + size) of `bytes`. */
function checkSubPage(bytes: Buffer, start: number, size: number, where: string): void {
  if (size < PAGE_HEADER_BYTES) throw new Error(`${where} is shorter than a page header`);
  if ((bytes.readUInt16LE(start + PAGE_FLAGS_AT) & P_LEAF2) === 0) {
    nodesOf(bytes, start, size, where);
    return;
  }
  // Duplicates of one fixed size (the header's pad), back to back.
  const count = bytes.readUInt16LE(start + PAGE_LOWER_AT) >> 1;
  if (PAGE_HEADER_BYTES + count * bytes.readUInt16LE(start + PAGE_PAD_AT) > size) throw new Error(`${where} holds more than fits in it`);
}

/**
 * Walks the tree whose root is `root`, and the trees of the named tables and sorted duplicates
 * its leaves hold, adding every page reached and what it is to `pages` (pass the map of another
 * tree of the same file to find a page two trees share); returns it. Throws, naming the page, at
 * the first that is not sound or is reached twice.
 */
export function walkTree(file: PageFile, root: bigint, pages = new Map<number, PageKind>()): Map<number, PageKind> {
  const reach = (page: bigint, kind: PageKind): void => {
    if (pages.has(Number(page))) throw new Error(`page ${page} is reached twice`);
    pages.set(Number(page), kind);
  };
  /** The leaf node's value in overflow pages: they are inside the file and hold it. */
  const overflowOf = (bytes: Buffer, node: number, data: number, where: string): void => {
    const first = bytes.readBigUInt64LE(data);
    const overflow = readPage(file, first, `an overflow value of ${where}`);
    if ((overflow.readUInt16LE(PAGE_FLAGS_AT) & P_OVERFLOW) === 0) throw new Error(`page ${first} is not the overflow page ${where} points at`);
    const count = BigInt(overflow.readUInt32LE(PAGE_LOWER_AT));
    if (count < 1n || first + count > file.filePages) throw new Error(`overflow page ${first} runs past the file (${count} pages)`);
    if (BigInt(PAGE_HEADER_BYTES + dataSizeOf(bytes, node)) > count * BigInt(file.pageBytes)) throw new Error(`${where} has a value that runs past its ${count} overflow pages`);
    for (let next = 0n; next < count; next++) reach(first + next, 'overflow');
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
    for (const [index, node] of nodesOf(bytes, 0, file.pageBytes, `page ${page}`).entries()) {
      const where = `page ${page}'s node ${index}`;
      if (branch) {
        walk(childOf(bytes, node), depth + 1);
        continue;
      }
      const nodeFlags = bytes.readUInt16LE(node + NODE_FLAGS_AT);
      const data = node + NODE_HEADER_BYTES + bytes.readUInt16LE(node + NODE_KEY_BYTES_AT);
      const dataBytes = (nodeFlags & F_BIGDATA) !== 0 ? 8 : dataSizeOf(bytes, node);
      if (data + dataBytes > file.pageBytes) throw new Error(`${where} runs past its page`);
      if ((nodeFlags & F_BIGDATA) !== 0) {
        overflowOf(bytes, node, data, where);
      } else if ((nodeFlags & F_SUBDATA) !== 0) {
        if (dataBytes !== DB_RECORD_BYTES) throw new Error(`${where} holds a table record of ${dataBytes} bytes`);
        walk(bytes.readBigUInt64LE(data + DB_ROOT_AT), depth + 1);
      } else if ((nodeFlags & F_DUPDATA) !== 0) {
        checkSubPage(bytes, data, dataBytes, `${where}'s duplicates`);
      }
    }
  };
  walk(root, 0);
  return pages;
}

// Where LMDB keeps what in its data file, for the checks that read it without LMDB: that of the
// LMDB lmdb-js 3.x bundles (its master3 branch), 64-bit, data format 2, as mdb.c declares it and
// as read back from files it wrote.
//
//   page header (24 bytes): page number u64, txnid u64, pad u16, flags u16, then the bounds of the
//                           free space (lower u16, upper u16) or an overflow page's page count (u32);
//                           a tree page's node offsets (u16, from the end of the header) follow it
//   node:                   data size or page number (lo u16, hi u16), flags u16, key size u16,
//                           the key, the data
//   meta page (0 and 1):    after the header, magic u32 (0xBEEFC0DE), version u32 (low 16 bits:
//                           2), fixed address u64, map size u64, the free-page database's record,
//                           the main database's record, last page number u64, txnid u64, boot id u64
//   database record:        (MDB_db, 48 bytes) pad u32 (the page size, in the free-page
//                           database's), flags u16, depth u16, branch, leaf and overflow page
//                           counts u64, entries u64, root page u64; a named table's record is its
//                           value in the main database, keyed by its name and a NUL byte
//
// Meta page 0 is at byte 0, meta page 1 at byte `page size`. A commit with txnid t writes meta
// page t mod 2; a new file has txnid 0 in both. An empty database's root is NO_PAGE.

export const PAGE_HEADER_BYTES = 24;
/** A LEAF2 page's (or sub-page's) key size. */
export const PAGE_PAD_AT = 16;
export const PAGE_FLAGS_AT = 18;
/** A tree page's lower bound of free space: twice its node count. An overflow page's page count, as u32. */
export const PAGE_LOWER_AT = 20;
export const PAGE_UPPER_AT = 22;
export const P_BRANCH = 0x01;
export const P_LEAF = 0x02;
export const P_OVERFLOW = 0x04;
export const P_META = 0x08;
export const P_LEAF2 = 0x20;

export const NODE_HEADER_BYTES = 8;
export const NODE_FLAGS_AT = 4;
export const NODE_KEY_BYTES_AT = 6;
/** A leaf node whose value is in overflow pages (its data: their first page number). */
export const F_BIGDATA = 0x01;
/** A leaf node whose data is a database record: a named table, or a key's tree of duplicates. */
export const F_SUBDATA = 0x02;
/** A leaf node with sorted duplicates: in a sub-page in its data (alone), or in a tree (with F_SUBDATA). */
export const F_DUPDATA = 0x04;

export const MAGIC_AT = 24;
export const MAGIC = 0xbeefc0de;
export const VERSION_AT = 28;
export const DATA_VERSION = 2;
/** The free-page database's record starts at 48; its pad is the page size. */
export const PAGE_BYTES_AT = 48;
export const FREE_ROOT_AT = 88;
export const MAIN_ROOT_AT = 136;
export const LAST_PAGE_AT = 144;
export const TXNID_AT = 152;
/** Bytes of a meta page that hold the header and the meta, through the boot id. */
export const META_BYTES = 168;

export const DB_RECORD_BYTES = 48;
export const DB_FLAGS_AT = 4;
export const DB_ENTRIES_AT = 32;
export const DB_ROOT_AT = 40;
/** Database flags: sorted duplicates, integer keys. */
export const DUPSORT = 0x04;
export const INTEGERKEY = 0x08;

export const NO_PAGE = 0xffff_ffff_ffff_ffffn;

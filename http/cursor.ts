// Cursors of paged reads (contract §5): base64 of the decimal offset of the next page. "MA=="
// (offset 0) starts, "LTE=" (base64 of -1) marks the end where a listing has one.
import { badRequest } from './errors.js';

export const END_CURSOR = 'LTE=';

/** Offset from a cursor: base64 of a decimal offset; "" and absent start at 0. */
export function cursorOffset(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  const text = Buffer.from(cursor, 'base64').toString('latin1');
  if (!/^(0|[1-9][0-9]{0,8})$/.test(text) || Buffer.from(text).toString('base64') !== cursor) throw badRequest('invalid next_cursor');
  return Number(text);
}

export function cursorOf(offset: number): string {
  return Buffer.from(String(offset)).toString('base64');
}

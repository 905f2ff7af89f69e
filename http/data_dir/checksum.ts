// The checksum a record carries beside its fields, for records where a flipped byte would still
// decode, to a value that is wrong and matters: an API key's secret, a treasury balance. LMDB
// checks nothing in the values it holds, and msgpack decodes a changed character or digit as
// well as the original. The checksum is CRC-32 (zlib's) of the fields as text joined by newlines:
// it is made to catch damage, not forgery; whoever can write the file can write both.
import { crc32 } from 'node:zlib';

export function checksumOf(fields: readonly (string | number)[]): number {
  return crc32(fields.join('\n'));
}

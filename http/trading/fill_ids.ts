// The public names of a fill: its trade id and the hash standing in for its settlement
// transaction. Both derive from where the fill happened (shard, command sequence number, fill
// index), so the account trades, the public trade feed and the activity feed agree on them.
import { createHash } from 'node:crypto';

export function tradeId(shard: number, seq: number, fillIndex: number): string {
  return `${shard}-${seq}-${fillIndex}`;
}

/** A stable 32-byte id for the settlement of a fill (clobd settles at match time, off chain). */
export function transactionHash(shard: number, seq: number, fillIndex: number): string {
  return `0x${createHash('sha256').update(`${shard}:${seq}:${fillIndex}`).digest('hex')}`;
}

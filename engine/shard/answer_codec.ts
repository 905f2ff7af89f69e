// The encoding of answers on a result ring. An answer is msgpack of arrays, not of objects: each
// event goes as [kind number, ...its values] and the field names of a kind travel once, in the
// first answer that carries that kind (the ring is ordered and each ring has exactly one encoder
// and one decoder, both created with it). Packing arrays instead of maps makes an answer about
// half the bytes and a third of the time to pack and unpack.
//
// BALANCE events stay in the shard: the front end reads balances from the shards when asked,
// and they are half of all events.
import { Packr } from 'msgpackr';
import type { EngineEvent } from '../event_objects.js';
import type { FrameResult, Redemption } from './core.js';

type Encoded = [
  requestId: number, timeMs: number, error: string, market: number, credits: (string | number)[], events: unknown[][],
  schemas: unknown[][], redemptions: (string | number)[],
];

/** Values of one redemption on the wire, in this order. */
const REDEMPTION_WIDTH = 6;

/** One per thread: the codec's own state lives in the encoder and decoder objects. */
const packr = new Packr({ useRecords: false, moreTypes: false });

interface Schema {
  readonly id: number;
  /** The event's field names other than `kind`, in the order its values travel. */
  readonly keys: readonly string[];
}

export class AnswerEncoder {
  private readonly schemas = new Map<string, Schema>();

  encode(result: FrameResult): Buffer {
    const events: unknown[][] = [];
    const schemas: unknown[][] = [];
    for (const event of result.events) {
      if (event.kind === 'BALANCE') continue;
      const fields = event as unknown as Record<string, unknown>;
      let schema = this.schemas.get(event.kind);
      if (schema === undefined) {
        schema = { id: this.schemas.size, keys: Object.keys(event).filter((key) => key !== 'kind') };
        this.schemas.set(event.kind, schema);
        schemas.push([schema.id, event.kind, ...schema.keys]);
      }
      const values: unknown[] = [schema.id];
      for (const key of schema.keys) values.push(fields[key]);
      events.push(values);
    }
    const credits: (string | number)[] = [];
    for (const [address, micros] of result.credits) credits.push(address, micros);
    const redemptions: (string | number)[] = [];
    for (const { seq, account, market, winner, sharesMicros } of result.redemptions) redemptions.push(seq, account, market, winner, sharesMicros[0], sharesMicros[1]);
    const encoded: Encoded = [result.requestId, result.timeMs, result.error, result.market, credits, events, schemas, redemptions];
    return packr.pack(encoded);
  }
}

export class AnswerDecoder {
  /** By schema id: the kind and the field names. */
  private readonly schemas: { kind: string; keys: string[] }[] = [];

  decode(bytes: Uint8Array): FrameResult {
    const [requestId, timeMs, error, market, flatCredits, rows, schemas, flatRedemptions] = packr.unpack(bytes) as Encoded;
    for (const [id, kind, ...keys] of schemas) this.schemas[id as number] = { kind: kind as string, keys: keys as string[] };
    const events: EngineEvent[] = [];
    for (const values of rows) {
      const schema = this.schemas[values[0] as number];
      if (schema === undefined) throw new Error(`answer event of unknown schema ${String(values[0])}`);
      const event: Record<string, unknown> = { kind: schema.kind };
      for (let index = 0; index < schema.keys.length; index++) event[schema.keys[index]!] = values[index + 1];
      events.push(event as unknown as EngineEvent);
    }
    const credits: [string, number][] = [];
    for (let index = 0; index < flatCredits.length; index += 2) credits.push([flatCredits[index] as string, flatCredits[index + 1] as number]);
    const redemptions: Redemption[] = [];
    for (let at = 0; at < flatRedemptions.length; at += REDEMPTION_WIDTH) {
      const [seq, account, redeemed, winner, yes, no] = flatRedemptions.slice(at, at + REDEMPTION_WIDTH) as [number, string, number, number, number, number];
      redemptions.push({ seq, account, market: redeemed, winner, sharesMicros: [yes, no] });
    }
    return { requestId, timeMs, error, market, credits, events, redemptions };
  }
}

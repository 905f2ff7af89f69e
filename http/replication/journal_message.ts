// The replicated journal's messages: each shard's committed batches, in order, on the subject
// `<stream>.journal.<shard>` of the JetStream stream `<stream>` (NATS_STREAM, "clobd").
//
// A batch's entry is [f64 LE batch][u32 LE length][length bytes: the batch's journal entry,
// as the shard's store holds it (engine/shard/store.ts: its frames, each [u32 length][frame])].
// A message holds one or more whole entries, in batch order, and says in JOURNAL_HEADERS the
// first and the last batch it holds. An entry longer than a message can carry goes out in parts instead, one
// message each, with JOURNAL_HEADERS.PART "i/n" (1-based); only the last part carries LAST.
// Batch numbers have no gaps: a reader that sees one missing has lost its place.
export const JOURNAL_HEADERS = {
  /** The batch whose entry starts this message (or which this part is of). */
  BATCH: 'Clobd-Batch',
  /** The last batch whose entry ends in this message (absent on a part that is not the last). */
  LAST: 'Clobd-Last',
  /** "i/n": this message is part i of an entry cut in n. */
  PART: 'Clobd-Part',
  /**
   * The appending primary's term (its lease's revision). A new term's first message on a
   * subject is empty (it claims the subject): an append of an older term is refused after it.
   */
  TERM: 'Clobd-Term',
} as const;

/**
 * The last batch whole on `subject` once its message with `header` is read: the message's LAST,
 * or the batch before its BATCH when it is a part but not the last part (it only grows along a
 * subject). A message without them was not appended by clobd: the subject is not clobd's.
 */
export function streamedBatch(header: { get(name: string): string }, subject: string): number {
  const last = header.get(JOURNAL_HEADERS.LAST);
  if (/^\d+$/.test(last)) return Number(last);
  const first = header.get(JOURNAL_HEADERS.BATCH);
  if (/^\d+$/.test(first)) return Number(first) - 1;
  throw new Error(`the last message on ${subject} was not appended by a clobd primary (it has no ${JOURNAL_HEADERS.BATCH} header)`);
}

/** Bytes of an entry's head: batch (f64) and length (u32). */
export const ENTRY_HEAD_BYTES = 12;

/** The subject a shard's batches go to. */
export function journalSubject(stream: string, shard: number): string {
  return `${stream}.journal.${shard}`;
}

/** Every shard's subjects (the stream's subject filter). */
export function journalSubjects(stream: string): string {
  return `${stream}.journal.*`;
}

/** An entry's bytes: its head, then `bytes`. */
export function encodeEntry(batch: number, bytes: Uint8Array): Uint8Array {
  const entry = new Uint8Array(ENTRY_HEAD_BYTES + bytes.length);
  const view = new DataView(entry.buffer);
  view.setFloat64(0, batch, true);
  view.setUint32(8, bytes.length, true);
  entry.set(bytes, ENTRY_HEAD_BYTES);
  return entry;
}

/** One batch read back from the stream. */
export interface StreamedBatch {
  readonly batch: number;
  /** The batch's journal entry (its frames). */
  readonly bytes: Buffer;
}

/**
 * Reads a shard's messages back into batches, in order: whole entries at once, parts once the
 * last is in. A part out of its place (a part 1 that starts again, one that skips) starts over.
 */
export class JournalReader {
  private parts: Uint8Array[] = [];
  private partsExpected = 0;
  private partsRead = 0;

  /** The batches `payload` completes (`part` from the PART header, when it has one). */
  read(payload: Uint8Array, part: string | undefined): StreamedBatch[] {
    if (part === undefined || part === '') return entriesOf(payload);
    const match = /^(\d+)\/(\d+)$/.exec(part);
    if (match === null) throw new Error(`journal message part "${part}" is not i/n`);
    const index = Number(match[1]);
    const count = Number(match[2]);
    if (index === 1) {
      this.parts = [];
      this.partsExpected = count;
      this.partsRead = 0;
    } else if (count !== this.partsExpected || index !== this.partsRead + 1) {
      throw new Error(`journal part ${part} arrived after part ${this.partsRead}/${this.partsExpected}`);
    }
    this.parts.push(payload);
    this.partsRead = index;
    if (index < count) return [];
    const whole = Buffer.concat(this.parts);
    this.parts = [];
    this.partsExpected = 0;
    this.partsRead = 0;
    return entriesOf(whole);
  }
}

/** The whole entries of `payload`, in order; throws when one is cut short. */
export function entriesOf(payload: Uint8Array): StreamedBatch[] {
  const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const entries: StreamedBatch[] = [];
  for (let at = 0; at < bytes.length;) {
    if (at + ENTRY_HEAD_BYTES > bytes.length) throw new Error('journal message ends inside an entry head');
    const batch = bytes.readDoubleLE(at);
    const length = bytes.readUInt32LE(at + 8);
    const end = at + ENTRY_HEAD_BYTES + length;
    if (!Number.isSafeInteger(batch) || batch < 1 || end > bytes.length) throw new Error(`journal message holds a damaged entry at byte ${at}`);
    entries.push({ batch, bytes: bytes.subarray(at + ENTRY_HEAD_BYTES, end) });
    at = end;
  }
  return entries;
}

// Reads the replicated journal back: where a subject stands (its last message), where a reader
// that holds its batches through one starts (seekAfter: a replica following it, publisher.ts),
// and a shard's batches, in order, through an ordered consumer (tests read the whole subject).
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { JOURNAL_HEADERS, JournalReader, journalSubject, streamedBatch, type StreamedBatch } from './journal_message.js';
import { apiErrorCode, JS_ERRORS } from './wire.js';

/** How long one fetch waits for messages that are not there yet. */
const FETCH_WAIT_MS = 1_000;

/** The subject's last message, or undefined when it has none. */
export async function lastMessage(jsm: JetStreamManager, stream: string, subject: string): Promise<{ seq: number; header: { get(name: string): string } } | undefined> {
  try {
    const message = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    if (message === null) return undefined;
    return { seq: message.seq, header: { get: (name) => message.header?.get(name) ?? '' } };
  } catch (error) {
    if (apiErrorCode(error) === JS_ERRORS.NO_MESSAGE) return undefined;
    throw error;
  }
}

/**
 * Where a reader that holds every batch of `subject` through `from` starts: the stream sequence
 * of the first message that completes a batch at or after `from` (streamedBatch), found by
 * bisecting the stream's sequences, each step one request for the subject's next message from
 * a sequence on. Starting there, a reader meets the entry of batch `from + 1` from its start
 * (a batch cut in parts: its first part comes after the message completing `from`), and skips
 * what it holds. A replica started from a snapshot or a backup so reads a few messages of
 * history instead of all of it. 1 (the subject's start) when `from` is 0 or the subject holds
 * nothing past it yet.
 */
export async function seekAfter(jsm: JetStreamManager, stream: string, subject: string, from: number): Promise<number> {
  if (from === 0) return 1;
  const last = await lastMessage(jsm, stream, subject);
  if (last === undefined || streamedBatch(last.header, subject) < from) return 1;
  // The first message at or after `seq` on the subject: a plain STREAM.MSG.GET with
  // next_by_subj (nats-server 2.9 takes it; the client's type names only seq and last_by_subj).
  const next = async (seq: number): Promise<{ seq: number; completes: number; laterPart: boolean }> => {
    const message = await jsm.streams.getMessage(stream, { seq, next_by_subj: subject } as unknown as { seq: number });
    if (message === null) throw new Error(`${subject} holds no message from sequence ${seq}`);
    const header = { get: (name: string): string => message.header?.get(name) ?? '' };
    return { seq: message.seq, completes: streamedBatch(header, subject), laterPart: /^([2-9]|\d{2,})\//.test(header.get(JOURNAL_HEADERS.PART)) };
  };
  // The least sequence whose next message on the subject completes `from` or later (next(seq)
  // only moves on as seq grows): it is in [low, high].
  let low = 1;
  let high = last.seq;
  while (low < high) {
    const middle = low + Math.floor((high - low) / 2);
    const found = await next(middle);
    if (found.completes >= from) high = middle;
    else low = found.seq + 1;
  }
  // A part after the first can only be the last part of batch `from` itself (its earlier parts
  // complete `from - 1`): its entry is held already, and a reader must not start inside it.
  const start = await next(low);
  return start.laterPart ? start.seq + 1 : start.seq;
}

/**
 * Every batch of `shard` the stream `stream` holds now, oldest first; throws when the batches
 * the subject holds skip one (`from`: the first batch expected, when known).
 */
export async function readShardJournal(nc: NatsConnection, stream: string, shard: number, from?: number): Promise<StreamedBatch[]> {
  const subject = journalSubject(stream, shard);
  const jsm = await jetstreamManager(nc);
  const last = await lastMessage(jsm, stream, subject);
  if (last === undefined) return [];
  const lastSeq = last.seq;
  const consumer = await jetstream(nc).consumers.get(stream, { filter_subjects: subject });
  const reader = new JournalReader();
  const batches: StreamedBatch[] = [];
  let expected = from;
  for (let seq = 0; seq < lastSeq;) {
    const messages = await consumer.fetch({ max_messages: 256, expires: FETCH_WAIT_MS });
    for await (const message of messages) {
      seq = message.seq;
      for (const batch of reader.read(message.data, message.headers?.get(JOURNAL_HEADERS.PART))) {
        if (expected !== undefined && batch.batch !== expected) throw new Error(`shard ${shard}'s journal skips from batch ${expected} to ${batch.batch}`);
        expected = batch.batch + 1;
        batches.push(batch);
      }
      if (seq >= lastSeq) break;
    }
  }
  return batches;
}

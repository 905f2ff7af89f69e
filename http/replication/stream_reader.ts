// Reads a shard's batches back from the replicated journal, in order, through an ordered
// consumer (JetStream redelivers nothing out of order and resumes where it stopped). Tests read
// the whole subject with it; a replica follows the subject with it.
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { JOURNAL_HEADERS, JournalReader, journalSubject, type StreamedBatch } from './journal_message.js';
import { apiErrorCode, JS_ERRORS } from './wire.js';

/** How long one fetch waits for messages that are not there yet. */
const FETCH_WAIT_MS = 1_000;

/**
 * Every batch of `shard` the stream `stream` holds now, oldest first; throws when the batches
 * the subject holds skip one (`from`: the first batch expected, when known).
 */
export async function readShardJournal(nc: NatsConnection, stream: string, shard: number, from?: number): Promise<StreamedBatch[]> {
  const subject = journalSubject(stream, shard);
  const jsm = await jetstreamManager(nc);
  let lastSeq: number;
  try {
    const last = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    if (last === null) return [];
    lastSeq = last.seq;
  } catch (error) {
    if (apiErrorCode(error) === JS_ERRORS.NO_MESSAGE) return [];
    throw error;
  }
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

// Where a replica starts reading a subject it holds the batches of through some batch
// (stream_reader.ts seekAfter), on a real JetStream stream: whatever `from`, reading on from
// the sequence found gives batch from + 1 first, whole, and every later one, across messages
// of several batches, a batch cut in parts, parts a restarted primary left without their end,
// a new term's claim, and another subject's messages in between.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { encodeEntry, JOURNAL_HEADERS, JournalReader } from '../../http/replication/journal_message.js';
import { seekAfter } from '../../http/replication/stream_reader.js';
import { natsServerInstalled, startNats, type NatsCluster } from '../support/nats.js';

const skip = natsServerInstalled() ? false : 'nats-server is not installed (apt-get install nats-server)';
const STREAM = 'seek';
const SUBJECT = 'seek.journal.0';
const OTHER = 'seek.journal.1';
const LAST_BATCH = 9;

let nats: NatsCluster;
let nc: NatsConnection;
before(async () => {
  if (skip !== false) return;
  nats = await startNats(1);
  nc = await connect({ servers: nats.urls.split(',') });
});
after(async () => {
  await nc?.close();
  await nats?.close();
});

function entry(batch: number): Uint8Array {
  return encodeEntry(batch, new Uint8Array(40).fill(batch));
}

async function append(subject: string, payload: Uint8Array, batch: number, last: number | undefined, part?: string): Promise<void> {
  const header = headers();
  header.set(JOURNAL_HEADERS.TERM, '1');
  header.set(JOURNAL_HEADERS.BATCH, String(batch));
  if (last !== undefined) header.set(JOURNAL_HEADERS.LAST, String(last));
  if (part !== undefined) header.set(JOURNAL_HEADERS.PART, part);
  await jetstream(nc).publish(subject, payload, { headers: header });
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((part) => [...part]));
}

/** The batches read on SUBJECT from `seq` to its end. */
async function readFrom(seq: number, lastSeq: number): Promise<number[]> {
  const consumer = await jetstream(nc).consumers.get(STREAM, { filter_subjects: SUBJECT, opt_start_seq: seq });
  const reader = new JournalReader();
  const batches: number[] = [];
  for (let at = 0; at < lastSeq;) {
    for await (const message of await consumer.fetch({ max_messages: 64, expires: 1_000 })) {
      at = message.seq;
      batches.push(...reader.read(message.data, message.headers?.get(JOURNAL_HEADERS.PART)).map((read) => read.batch));
      if (at >= lastSeq) break;
    }
  }
  return batches;
}

test('a replica holding a subject through any batch reads on from the batch after it, whole', { skip }, async () => {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: STREAM, subjects: [`${STREAM}.journal.*`] });
  const noise = (): Promise<void> => append(OTHER, entry(1), 1, 1);
  await append(SUBJECT, concat(entry(1), entry(2), entry(3)), 1, 3);
  await noise();
  await append(SUBJECT, new Uint8Array(0), 4, 3); // a new term's claim
  const four = entry(4);
  await append(SUBJECT, four.subarray(0, 20), 4, undefined, '1/3');
  await noise();
  await append(SUBJECT, four.subarray(20, 40), 4, undefined, '2/3');
  await append(SUBJECT, four.subarray(40), 4, 4, '3/3');
  await append(SUBJECT, entry(5), 5, 5);
  const six = entry(6);
  await append(SUBJECT, six.subarray(0, 30), 6, undefined, '1/2'); // left by a primary that died
  await noise();
  await append(SUBJECT, six.subarray(0, 30), 6, undefined, '1/2');
  await append(SUBJECT, six.subarray(30), 6, 6, '2/2');
  await append(SUBJECT, concat(entry(7), entry(8), entry(9)), 7, LAST_BATCH);
  await noise();
  const lastSeq = (await jsm.streams.getMessage(STREAM, { last_by_subj: SUBJECT }))!.seq;

  const allRead = await readFrom(1, lastSeq);
  assert.deepEqual(allRead, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  for (let from = 0; from <= LAST_BATCH; from++) {
    const seq = await seekAfter(jsm, STREAM, SUBJECT, from);
    const read = (await readFrom(seq, lastSeq)).filter((batch) => batch > from);
    assert.deepEqual(read, Array.from({ length: LAST_BATCH - from }, (_, index) => from + 1 + index), `from batch ${from} (sequence ${seq})`);
    if (from >= 4) assert.ok(seq > 1, `from batch ${from}, not the subject's start`);
  }
});

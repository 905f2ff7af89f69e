// The result ring's answer encoding: every event kind the engine emits decodes to exactly the
// object eventsToObjects makes of its row (BALANCE events into `balances`, the others into
// `events`, each in the engine's order), with the frame's
// outcome (credits, redemptions, errors), over seeded random flows; answers laid end to end in
// one buffer decode one by one. Counts past 16 bits round trip, and the writer refuses a value
// its field cannot hold.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CommandKind, OrderType, Side, makeCommand } from '../../../engine/command.js';
import { Engine } from '../../../engine/engine.js';
import { eventsToObjects, type BalanceEvent, type EngineEvent } from '../../../engine/events/event_objects.js';
import { Reject } from '../../../engine/events/reject.js';
import { ByteWriter } from '../../../engine/bytes.js';
import { AnswerDecoder, AnswerWriter } from '../../../engine/shard/answer_codec.js';
import type { FrameOutcome } from '../../../engine/shard/core.js';
import { RandomCommands } from '../random_commands.js';

const OPERATOR = '0x00000000000000000000000000000000000000fe';

test('answers decode to the events and outcome they were written from', () => {
  const writer = new AnswerWriter();
  const decoder = new AnswerDecoder();
  const kinds = new Set<string>();
  for (const seed of [4, 5]) {
    const flow = new RandomCommands(seed, { accounts: 6, markets: 3, marketsMax: 64 });
    const engine = new Engine({ operatorAddress: OPERATOR, marketsMax: 64 });
    const written: [start: number, end: number, outcome: FrameOutcome, events: EngineEvent[], balances: BalanceEvent[]][] = [];
    const commands = [...flow.setup()];
    for (let step = 0; step < 6000; step++) commands.push(flow.next(engine));
    commands.forEach((command, index) => {
      engine.execute(command);
      const outcome: FrameOutcome = {
        requestId: index + 1, timeMs: command.timeMs, error: index % 997 === 0 ? `refused ✓ ${index}` : '', market: index % 7 - 1,
        marketKey: index % 7 === 1 ? `0x${index.toString(16).padStart(64, 'c')}` : '',
        fundedAccount: index % 5 === 0 ? `0x${index.toString(16).padStart(40, 'b')}` : '', fundedMicros: index % 5 === 0 ? index * 10_001 : 0,
        credits: index % 3 === 0 ? [[`0x${index.toString(16).padStart(40, 'a')}`, index * 1_000_001]] : [],
        redemptions: index % 500 === 0 ? [{ seq: index, account: OPERATOR, market: 2, winner: 1, sharesMicros: [5_000_000, 0] }] : [],
      };
      const start = writer.write(outcome, engine.events);
      const all = eventsToObjects(engine.events);
      const events = all.filter((event) => event.kind !== 'BALANCE');
      const balances = all.filter((event): event is BalanceEvent => event.kind === 'BALANCE');
      for (const event of all) kinds.add(event.kind);
      written.push([start, writer.end(), outcome, events, balances]);
      engine.events.clear();
      if (index % 50 === 49) {
        // A batch's answers, end to end in the writer's buffer, then decoded one by one.
        for (const [from, to, expected, expectedEvents, expectedBalances] of written) {
          const bytes = writer.slice(from, to - from);
          assert.deepEqual(
            decoder.decode(bytes, 0, bytes.length), { ...expected, events: expectedEvents, balances: expectedBalances }, `seed ${seed}, command ${index}`,
          );
        }
        written.length = 0;
        writer.reset();
      }
    });
  }
  for (const kind of ['ORDER_ACCEPTED', 'ORDER_REJECTED', 'ORDER_UPDATED', 'ORDER_CANCELLED', 'CANCEL_REJECTED', 'FILL', 'LEVEL', 'BALANCE', 'MARKET', 'COMMAND_REJECTED']) {
    assert.ok(kinds.has(kind), `the flows made a ${kind}`);
  }
});

test('a duplicate is answered with its ORDER_REJECTED and the refunded funding', () => {
  const writer = new AnswerWriter();
  const command = makeCommand({
    kind: CommandKind.PlaceOrder, seq: 9, timeMs: 1_700_000_000_000, account: '0x01', orderId: '0xabc', market: 3, outcome: 1,
    side: Side.Sell, orderType: OrderType.FAK, priceUnits: 4200, sizeMicros: 7_000_000,
  });
  const outcome: FrameOutcome = { requestId: 77, timeMs: 1_700_000_000_000, error: '', market: -1, marketKey: '', fundedAccount: '', fundedMicros: 0, credits: [['0x01', 29_400_000]], redemptions: [] };
  const start = writer.writeDuplicate(outcome, command);
  const bytes = writer.slice(start, writer.end() - start);
  assert.deepEqual(new AnswerDecoder().decode(bytes, 0, bytes.length), {
    ...outcome,
    events: [{
      kind: 'ORDER_REJECTED', seq: 0, orderId: '0xabc', account: '0x01', market: 3, outcome: 1, side: Side.Sell,
      priceUnits: 4200, sizeMicros: 7_000_000, orderType: OrderType.FAK, reason: Reject.DUPLICATE_ORDER,
    }],
    balances: [],
  });
});

test('credits and redemptions past 65 535 round trip (the counts are 32-bit)', () => {
  const writer = new AnswerWriter();
  const holders = 70_000;
  const outcome: FrameOutcome = {
    requestId: 9, timeMs: 1_700_000_000_000, error: '', market: -1, marketKey: '', fundedAccount: '', fundedMicros: 0,
    credits: Array.from({ length: holders }, (_, index): [string, number] => [`0x${index.toString(16).padStart(40, '0')}`, index + 1]),
    redemptions: Array.from({ length: holders }, (_, index) => ({
      seq: 5, account: `0x${index.toString(16).padStart(40, '0')}`, market: 1, winner: 0, sharesMicros: [index, 0] as const,
    })),
  };
  writer.write(outcome, undefined);
  const bytes = writer.slice(0, writer.end());
  const decoded = new AnswerDecoder().decode(bytes, 0, bytes.length);
  assert.equal(decoded.credits.length, holders);
  assert.equal(decoded.redemptions.length, holders);
  assert.deepEqual(decoded.credits.at(-1), outcome.credits.at(-1));
  assert.deepEqual(decoded.redemptions.at(-1), outcome.redemptions.at(-1));
});

test('the byte writer refuses a value its field cannot hold instead of wrapping it', () => {
  const writer = new ByteWriter(16);
  assert.throws(() => writer.u16(65_536), /does not fit a u16/);
  assert.throws(() => writer.u8(256), /does not fit a u8/);
  assert.throws(() => writer.u32(-1), /does not fit a u32/);
  assert.throws(() => writer.u32(2 ** 32), /does not fit a u32/);
  assert.throws(() => writer.i32(2 ** 31), /does not fit an? i32/);
  assert.throws(() => writer.i32(Number.NaN), /does not fit an? i32/);
  assert.throws(() => writer.u16(1.5), /does not fit a u16/);
  assert.equal(writer.end(), 0, 'nothing was written');
  writer.u16(65_535);
  writer.i32(-(2 ** 31));
  assert.equal(writer.end(), 6);
});

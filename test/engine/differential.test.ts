// The differential test: seeded random command flows run through the fast engine (verify mode:
// every invariant after every command) and the reference engine; every event must agree, and
// the state hashes must agree periodically and at the end. Midway through each segment the fast
// engine is snapshotted, serialised with msgpack, restored, and the run continues on the
// restored engine, so restore is held to "behaves identically" too.
//
// CI runs 10^5 operations; CLOBD_LONG=1 runs 10^7. CLOBD_SEED=<n> replays one base seed. A
// failure names the seed, the segment and the step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { pack, unpack } from 'msgpackr';
import type { Command } from '../../engine/command.js';
import { Engine } from '../../engine/engine.js';
import { eventsToObjects, type EngineEvent } from '../../engine/events/event_objects.js';
import { rejectName } from '../../engine/events/reject.js';
import type { EngineSnapshot } from '../../engine/state/snapshot.js';
import { RandomCommands } from './random_commands.js';
import { ReferenceEngine, changesInKeyOrder, referenceStateHash, type ReferenceLimits } from './reference.js';

const LONG = process.env['CLOBD_LONG'] === '1';
const OPERATIONS = LONG ? 10_000_000 : 100_000;
const SEGMENT_OPERATIONS = LONG ? 100_000 : 25_000;
const HASH_EVERY = 2_000;
const SEED_TEXT = process.env['CLOBD_SEED'];
const BASE_SEED = SEED_TEXT === undefined ? 20_261_122 : Number(SEED_TEXT);

interface Config extends ReferenceLimits {
  readonly name: string;
  readonly accounts: number;
  readonly markets: number;
}

const ROOMY: Config = {
  name: 'roomy', orderSlots: 4096, accountOrdersMax: 1000, orderHistory: 2048, marketsMax: 256, accountsMax: 64,
  positionsMax: 4096, accounts: 8, markets: 3,
};
const TIGHT: Config = {
  name: 'tight', orderSlots: 30, accountOrdersMax: 6, orderHistory: 200, marketsMax: 256, accountsMax: 10,
  positionsMax: 14, accounts: 9, markets: 2,
};

const OPERATOR = '0xoperator';

function describeCommand(command: Command): string {
  return JSON.stringify(command);
}

function firstDifference(got: EngineEvent[], want: EngineEvent[]): string {
  for (let index = 0; index < Math.max(got.length, want.length); index += 1) {
    if (!isDeepStrictEqual(got[index], want[index])) {
      const keys = Object.keys({ ...got[index], ...want[index] }) as (keyof EngineEvent)[];
      const fields = keys.filter((key) => !Object.is(got[index]?.[key], want[index]?.[key]));
      return `event ${index} differs in ${fields.join(', ')}: engine ${JSON.stringify(got[index])} reference ${JSON.stringify(want[index])}`;
    }
  }
  return 'no difference';
}

interface Counts {
  [kind: string]: number;
}

/**
 * Tallies events by kind, rejections by reason and fills by kind, to show what a flow covered;
 * and the sizes finer than a lot: fills whose price × size has a part below one micro (which
 * fill_collateral.ts rounds), by kind, and makers left resting with a finer remainder.
 */
function count(counts: Counts, event: EngineEvent): void {
  if (event.kind === 'FILL' && (BigInt(event.takerPriceUnits) * BigInt(event.sizeMicros)) % 10_000n !== 0n) {
    const key = `sub-micro FILL:${['NORMAL', 'MINT', 'MERGE'][event.fillKind]}:${event.takerSide === 0 ? 'BUY' : 'SELL'} taker`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  if (event.kind === 'ORDER_UPDATED' && event.remainingMicros % 10_000 !== 0) {
    counts['ORDER_UPDATED:finer than a lot'] = (counts['ORDER_UPDATED:finer than a lot'] ?? 0) + 1;
  }
  let key: string = event.kind;
  if (event.kind === 'ORDER_REJECTED' || event.kind === 'CANCEL_REJECTED' || event.kind === 'COMMAND_REJECTED') {
    key = `${event.kind}:${rejectName(event.reason)}`;
  } else if (event.kind === 'FILL') {
    key = `FILL:${['NORMAL', 'MINT', 'MERGE'][event.fillKind]}`;
  } else if (event.kind === 'ORDER_CANCELLED') {
    key = `ORDER_CANCELLED:${event.reason}`;
  }
  counts[key] = (counts[key] ?? 0) + 1;
  if (key !== event.kind) counts[event.kind] = (counts[event.kind] ?? 0) + 1;
}

function runSegment(seed: number, config: Config, counts: Counts): void {
  const where = (step: number): string => `seed ${seed} (${config.name}), step ${step}`;
  const flow = new RandomCommands(seed, { accounts: config.accounts, markets: config.markets, marketsMax: config.marketsMax });
  let engine = new Engine({ operatorAddress: OPERATOR, verify: true, ...config });
  const reference = new ReferenceEngine(OPERATOR, config);
  const step = (command: Command, index: number): void => {
    try {
      engine.execute(command);
    } catch (error) {
      throw new Error(`${where(index)}: engine threw on ${describeCommand(command)}`, { cause: error });
    }
    const events = eventsToObjects(engine.events);
    engine.events.clear();
    const want = reference.execute(command);
    const got = changesInKeyOrder(events, reference);
    if (!isDeepStrictEqual(got, want)) {
      assert.fail(`${where(index)}: events differ on ${describeCommand(command)}\n${firstDifference(got, want)}`);
    }
    for (const event of got) count(counts, event);
    if (index % HASH_EVERY === 0) assert.equal(engine.stateHash(), referenceStateHash(reference), `${where(index)}: hash`);
  };
  flow.setup().forEach((command) => step(command, 0));
  for (let index = 1; index <= SEGMENT_OPERATIONS; index += 1) {
    if (index === SEGMENT_OPERATIONS / 2) engine = restoreThroughMsgpack(engine, where(index));
    step(flow.next(engine), index);
  }
  engine.checkInvariants();
  assert.equal(engine.stateHash(), referenceStateHash(reference), `${where(SEGMENT_OPERATIONS)}: final hash`);
}

function restoreThroughMsgpack(engine: Engine, where: string): Engine {
  const hash = engine.stateHash();
  const snapshot = unpack(pack(engine.snapshot())) as EngineSnapshot;
  const restored = Engine.restore(snapshot, { verify: true });
  assert.equal(restored.stateHash(), hash, `${where}: restored hash`);
  return restored;
}

test(`engine and reference agree on ${OPERATIONS} random operations (base seed ${BASE_SEED})`, (t) => {
  const counts: Counts = {};
  const segments = OPERATIONS / SEGMENT_OPERATIONS;
  for (let segment = 0; segment < segments; segment += 1) {
    runSegment(BASE_SEED + segment, segment % 2 === 0 ? ROOMY : TIGHT, counts);
  }
  t.diagnostic(`events: ${JSON.stringify(Object.fromEntries(Object.entries(counts).sort()))}`);
  for (const kind of ['FILL', 'ORDER_CANCELLED', 'ORDER_REJECTED', 'CANCEL_REJECTED', 'MARKET', 'BALANCE', 'LEVEL']) {
    assert.ok((counts[kind] ?? 0) > 0, `the flow produced ${kind} events`);
  }
  // Fills the engine must round, every kind and either taker side, and finer remainders resting.
  for (const kind of ['NORMAL:BUY', 'NORMAL:SELL', 'MINT:BUY', 'MERGE:SELL']) {
    assert.ok((counts[`sub-micro FILL:${kind} taker`] ?? 0) > 0, `the flow produced sub-micro ${kind} fills`);
  }
  assert.ok((counts['ORDER_UPDATED:finer than a lot'] ?? 0) > 0, 'the flow left finer remainders resting');
});

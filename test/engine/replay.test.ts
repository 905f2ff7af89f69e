// Determinism: the same commands always give the same events and state hash; a restored
// snapshot has the same hash and answers later commands identically; the hash does not depend
// on the order in which unrelated markets and accounts appeared.
import assert from 'node:assert/strict';
import { describe as suite, test } from 'node:test';
import { pack, unpack } from 'msgpackr';
import { CommandKind, makeCommand, type Command } from '../../engine/command.js';
import { Engine } from '../../engine/engine.js';
import { eventsToObjects, type EngineEvent } from '../../engine/events/event_objects.js';
import type { EngineSnapshot, SnapshotFinished } from '../../engine/state/snapshot.js';
import { RandomCommands } from './random_commands.js';

const OPTIONS = { operatorAddress: '0xoperator', verify: true, orderSlots: 2048, orderHistory: 1024, marketsMax: 64 };

/** A seeded flow of commands, generated against a scratch engine so SELLs are mostly funded. */
function flow(seed: number, count: number): Command[] {
  const generator = new RandomCommands(seed, { accounts: 6, markets: 3, marketsMax: 64 });
  const scratch = new Engine(OPTIONS);
  const commands = generator.setup();
  commands.forEach((command) => scratch.execute(command));
  for (let index = 0; index < count; index += 1) {
    const command = generator.next(scratch);
    scratch.execute(command);
    scratch.events.clear();
    commands.push(command);
  }
  return commands;
}

function run(engine: Engine, commands: readonly Command[]): EngineEvent[] {
  const events: EngineEvent[] = [];
  for (const command of commands) {
    engine.execute(command);
    events.push(...eventsToObjects(engine.events));
    engine.events.clear();
  }
  return events;
}

suite('replay', () => {
  const commands = flow(7, 6000);

  test('the same commands give the same event stream and state hash', () => {
    const first = new Engine(OPTIONS);
    const second = new Engine(OPTIONS);
    assert.deepEqual(run(first, commands), run(second, commands));
    assert.equal(first.stateHash(), second.stateHash());
  });

  test('a columnar snapshot of a wrapped history restores to the state it was taken in, chunk by chunk, after the engine moved on', () => {
    const options = { ...OPTIONS, orderHistory: 256 };
    const engine = new Engine(options);
    run(engine, commands.slice(0, 3000));
    const hashThen = engine.stateHash();
    const columnar = engine.columnarSnapshot();
    assert.equal(columnar.history.count, 256, 'the ring has wrapped, so the copy starts mid-ring');
    const ids = columnar.history.entries(0, columnar.history.count).map((entry) => entry[0]);
    const viewsThen = ids.map((id) => engine.getOrder(id));
    run(engine, commands.slice(3000));
    assert.notEqual(engine.stateHash(), hashThen, 'the engine moved on');
    const history: SnapshotFinished[] = [];
    for (let from = 0; from < columnar.history.count; from += 100) {
      history.push(...columnar.history.entries(from, Math.min(columnar.history.count, from + 100)));
    }
    const restored = Engine.restore(unpack(pack({ ...columnar, history })) as EngineSnapshot);
    assert.equal(restored.stateHash(), hashThen);
    assert.deepEqual(ids.map((id) => restored.getOrder(id)), viewsThen, 'every remembered order reads as it did');
  });

  test('a snapshot restored with a smaller history keeps its newest finished orders and the same hash', () => {
    const original = new Engine({ ...OPTIONS, orderHistory: 512 });
    run(original, commands.slice(0, 3000));
    const snapshot = unpack(pack(original.snapshot())) as EngineSnapshot;
    assert.equal(snapshot.history.length, 512);
    const restored = Engine.restore(snapshot, { orderHistory: 100 });
    assert.equal(restored.stateHash(), original.stateHash());
    assert.equal(restored.config.orderHistory, 100);
    const ids = snapshot.history.map((entry) => entry[0]);
    assert.deepEqual(ids.slice(-100).map((id) => restored.getOrder(id)), ids.slice(-100).map((id) => original.getOrder(id)));
    assert.ok(ids.slice(0, -100).every((id) => restored.getOrder(id) === undefined && original.getOrder(id) !== undefined));
    restored.checkInvariants();
  });

  test('a snapshot restored with another hash seed has the same hash and answers every later command the same', () => {
    const original = new Engine({ ...OPTIONS, hashSeed: 11 });
    run(original, commands.slice(0, 3000));
    const restored = Engine.restore(unpack(pack(original.snapshot())) as EngineSnapshot, { hashSeed: 987_654 });
    assert.equal(restored.config.hashSeed, 987_654);
    assert.equal(restored.stateHash(), original.stateHash());
    assert.deepEqual(run(restored, commands.slice(3000)), run(original, commands.slice(3000)));
    assert.equal(restored.stateHash(), original.stateHash());
  });

  test('a restored snapshot has the same hash and continues identically', () => {
    const original = new Engine(OPTIONS);
    run(original, commands.slice(0, 3000));
    const snapshot = unpack(pack(original.snapshot())) as EngineSnapshot;
    const restored = Engine.restore(snapshot);
    assert.equal(restored.stateHash(), original.stateHash());
    assert.deepEqual(restored.snapshot(), original.snapshot());
    assert.deepEqual(run(restored, commands.slice(3000)), run(original, commands.slice(3000)));
    assert.equal(restored.stateHash(), original.stateHash());
  });

  test('the hash ignores the order in which unrelated markets and accounts appeared', () => {
    const setup = (order: number[]): Engine => {
      const engine = new Engine(OPTIONS);
      const commands = [
        makeCommand({ kind: CommandKind.AddMarket, market: 1, tickUnits: 100, minSizeMicros: 1_000_000 }),
        makeCommand({ kind: CommandKind.AddMarket, market: 2, tickUnits: 10, minSizeMicros: 1_000_000 }),
        makeCommand({ kind: CommandKind.Deposit, account: '0xa', amountMicros: 5_000_000 }),
        makeCommand({ kind: CommandKind.Deposit, account: '0xb', amountMicros: 7_000_000 }),
      ];
      for (const index of order) engine.execute(commands[index]!);
      return engine;
    };
    assert.equal(setup([0, 1, 2, 3]).stateHash(), setup([3, 1, 2, 0]).stateHash());
    assert.notEqual(setup([0, 1, 2, 3]).stateHash(), setup([0, 1, 2]).stateHash());
  });
});

// Crash recovery with real processes. A driver process starts the server (SHARDS=2), deposits
// for 40 accounts and floods seeded orders and cancels over markets of both shards; the test
// kills it with SIGKILL after a seeded number of acknowledgements, then starts a checker process
// on the same DATA_DIR twice. What must hold:
// - every acknowledged accepted order is stored, with at least the fills its answer reported;
//   every acknowledged rejection is absent; every acknowledged cancel left its order cancelled;
// - every stored order was sent by the driver, and every stored fill names stored orders whose
//   matched sizes its fills add up to; the engine's view of each stored order is the stored one;
// - invariants hold in every shard and collateral is conserved to the micro: treasury free +
//   collateral inside the engines = acknowledged deposits − withdrawals;
// - the second restart reaches the same per-shard state hashes.
// Half the moments first stop the server cleanly once (a snapshot), so recovery is snapshot +
// journal tail. CI runs CRASH_MOMENTS moments; CLOBD_LONG=1 runs many more. The base seed is
// random unless CLOBD_SEED is set, and every failure names its seed.
// A second set of moments runs the deep flow: books grow thousands of orders deep, sweeps fill up
// to 5 000 of them in one command (answers in fragments, batches that finish more orders than the
// engine's history holds), from 256 lanes at once, and the kill lands among them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { OrderStatus } from '../../../engine/orders/order_status.js';
import { Prng } from '../../engine/prng.js';
import type { CrashLine } from './crash_process.js';
import { assertRuntimeState, removeDataDir, stateHashes, temporaryDataDir, type Ack, type FlowProfile, type RuntimeState } from './support.js';

const processPath = fileURLToPath(new URL('./crash_process.js', import.meta.url));
const long = process.env['CLOBD_LONG'] === '1';
const CRASH_MOMENTS = long ? 100 : 10;
const DEEP_MOMENTS = long ? 30 : 3;
/** The kill comes after this many acknowledgements (replay time grows with it), by profile. */
const KILL_AFTER_ACKS: Record<FlowProfile, readonly [number, number]> = {
  mixed: [0, long ? 6_000 : 1_500], deep: [8_000, long ? 60_000 : 25_000],
};
const PROCESS_TIMEOUT_MS = 30_000;

interface Run {
  readonly lines: CrashLine[];
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** Runs crash_process.js in `mode`; `killAfterAcks` (drive) sends SIGKILL once that many acks were read. */
function runProcess(mode: 'drive' | 'check', env: Record<string, string>, killAfterAcks = -1): Promise<Run> {
  const child = spawn(process.execPath, [processPath, mode], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: CrashLine[] = [];
  let stderr = '';
  let acks = 0;
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const timer = setTimeout(kill, PROCESS_TIMEOUT_MS);
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // SIGKILL can land while the driver writes a line: the last line may then be cut short. It is
  // work the driver never fully reported, as if the kill had come a moment sooner; a cut line
  // followed by more lines, or in a run that was not killed, is an error, reported with the
  // exit, the parse error and the line's end (the start of a state line says little).
  let cut: { text: string; error: string } | undefined;
  let late: string | undefined;
  createInterface({ input: child.stdout }).on('line', (text) => {
    if (cut !== undefined) {
      late ??= text.slice(0, 300);
      return;
    }
    let line: CrashLine;
    try {
      line = JSON.parse(text) as CrashLine;
    } catch (error) {
      cut = { text, error: error instanceof Error ? error.message : String(error) };
      return;
    }
    lines.push(line);
    if (line.k === 'order' || line.k === 'cancel' || line.k === 'withdraw') acks++;
    if (killAfterAcks >= 0 && (acks >= killAfterAcks || line.k === 'error') && line.k !== 'deposit') kill();
  });
  return new Promise((resolve, reject) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (cut !== undefined && (signal !== 'SIGKILL' || late !== undefined)) {
        reject(new Error(
          `unreadable line from the ${mode} process (exit code ${code}, signal ${signal}): ${cut.error}; ` +
          `${cut.text.length} characters, ending ${JSON.stringify(cut.text.slice(-300))}` +
          (late === undefined ? '' : `; followed by ${JSON.stringify(late)}`) + `\nstderr: ${stderr.slice(-2000)}`,
        ));
        return;
      }
      resolve({ lines, code, signal, stderr });
    });
  });
}

type StateLine = Extract<CrashLine, { k: 'state' }>;

/** The checker's one state line, once it exited cleanly without reporting an error. */
function stateOf(run: Run, what: string): StateLine {
  const errors = run.lines.filter((line) => line.k === 'error');
  assert.deepEqual(errors, [], `${what} reported an error\n${run.stderr}`);
  assert.equal(run.code, 0, `${what} exited with ${run.code}\n${run.stderr}`);
  const line = run.lines.find((candidate): candidate is StateLine => candidate.k === 'state');
  assert.ok(line !== undefined, `${what} printed no state`);
  return line;
}

/** What the driver's acknowledgements promise about the recovered state. */
function assertAcknowledged(lines: readonly CrashLine[], state: RuntimeState): void {
  const stored = new Map(state.orders.map(([, view]) => [view.orderId, view]));
  // Sequence numbers are per shard: a fill is known by its taker order and its place in that shard.
  const fills = new Map(state.fills.map(([, fill]) => [`${fill.takerOrderId}/${fill.seq}/${fill.fillIndex}`, fill]));
  const sent = new Set<string>();
  let depositedMicros = 0;
  let withdrawnMicros = 0;
  let withdrawalsInFlightMicros = 0;
  const acks: Ack[] = [];
  for (const line of lines) {
    if (line.k === 'deposit') depositedMicros += line.micros;
    else if (line.k === 'sent' && line.operation.k === 'order') sent.add(line.operation.id);
    else if (line.k === 'sent' && line.operation.k === 'withdraw') withdrawalsInFlightMicros += line.operation.micros;
    else if (line.k === 'order' || line.k === 'cancel' || line.k === 'withdraw') acks.push(line);
  }
  let acceptedCount = 0;
  for (const ack of acks) {
    if (ack.k === 'withdraw') {
      withdrawalsInFlightMicros -= ack.micros;
      if (ack.ok) withdrawnMicros += ack.micros;
      continue;
    }
    for (const id of ack.cancelled) {
      assert.equal(stored.get(id)?.status, OrderStatus.CANCELED, `acknowledged cancel of ${id} is not recorded`);
    }
    if (ack.k === 'cancel') continue;
    const view = stored.get(ack.id);
    if (!ack.accepted) {
      assert.equal(view, undefined, `order ${ack.id} was acknowledged as rejected (${ack.reason}) but is stored`);
      continue;
    }
    acceptedCount++;
    assert.ok(view !== undefined, `acknowledged order ${ack.id} is missing`);
    assert.ok(view.matchedMicros >= ack.matchedMicros, `order ${ack.id} matched ${view.matchedMicros} < acknowledged ${ack.matchedMicros}`);
    for (const [seq, fillIndex, makerOrderId, sizeMicros] of ack.fills) {
      const fill = fills.get(`${ack.id}/${seq}/${fillIndex}`);
      assert.ok(fill !== undefined, `acknowledged fill ${seq}/${fillIndex} of ${ack.id} is missing`);
      assert.deepEqual([fill.makerOrderId, fill.sizeMicros], [makerOrderId, sizeMicros], `fill ${seq}/${fillIndex} of ${ack.id}`);
    }
  }
  for (const id of stored.keys()) assert.ok(sent.has(id), `stored order ${id} was never sent`);
  // A withdrawal is durable before its line is printed, so one the kill cut off may or may not
  // have happened: the external total lies between the two.
  const expectedMicros = depositedMicros - withdrawnMicros;
  assert.ok(
    state.externalMicros <= expectedMicros && state.externalMicros >= expectedMicros - withdrawalsInFlightMicros,
    `external ${state.externalMicros}, acknowledged ${expectedMicros}, in flight ${withdrawalsInFlightMicros}`,
  );
  assert.ok(acceptedCount <= stored.size);
}

async function crashMoment(seed: number, profile: FlowProfile): Promise<{ acks: number; replayed: number }> {
  const prng = new Prng(seed);
  const killAfterAcks = prng.between(...KILL_AFTER_ACKS[profile]);
  const prestop = prng.chance(0.5) ? prng.between(50, 400) : 0;
  const dataDir = temporaryDataDir();
  const env = { DATA_DIR: dataDir, SHARDS: '2', SEED: String(seed), PRESTOP: String(prestop), LOG_LEVEL: 'error', PROFILE: profile };
  // The deep flow finishes more orders than the engine's history holds.
  const withinHistory = profile === 'mixed';
  try {
    const driven = await runProcess('drive', env, killAfterAcks);
    assert.deepEqual(driven.lines.filter((line) => line.k === 'error'), [], driven.stderr);
    assert.equal(driven.signal, 'SIGKILL', `the driver ended by itself (${driven.code})\n${driven.stderr}`);
    const first = stateOf(await runProcess('check', env), 'the first restart');
    assertRuntimeState(first.state, withinHistory);
    assertAcknowledged(driven.lines, first.state);
    if (driven.lines.some((line) => line.k === 'restarted')) {
      assert.ok(first.recovery.every((figures) => (figures?.snapshotBatch ?? 0) > 0), 'recovery starts from the clean stop\'s snapshot');
    }
    const second = stateOf(await runProcess('check', env), 'the second restart');
    assertRuntimeState(second.state, withinHistory);
    assert.deepEqual(stateHashes(second.state.statuses), stateHashes(first.state.statuses), 'the second restart reaches the same state');
    assert.equal(second.state.orders.length, first.state.orders.length);
    assert.ok(second.recovery.every((figures) => figures?.replayedFrames === 0), 'a clean stop leaves nothing to replay');
    removeDataDir(dataDir);
    const acks = driven.lines.filter((line) => line.k === 'order' || line.k === 'cancel').length;
    return { acks, replayed: first.recovery.reduce((sum, figures) => sum + (figures?.replayedFrames ?? 0), 0) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${profile} crash moment with seed ${seed} (CLOBD_SEED=${seed} reproduces it first; DATA_DIR kept at ${dataDir}): ${message}`, { cause: error });
  }
}

/** Runs `moments` seeded moments of `profile`, two at a time (a moment mostly waits on fsync and process start-up). */
async function crashMoments(t: TestContext, moments: number, profile: FlowProfile): Promise<void> {
  const baseSeed = process.env['CLOBD_SEED'] !== undefined ? Number(process.env['CLOBD_SEED']) : Math.floor(Math.random() * 2 ** 31);
  t.diagnostic(`base seed ${baseSeed} (set CLOBD_SEED to repeat)`);
  let totalAcks = 0;
  let totalReplayed = 0;
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (next < moments && !failed) {
      try {
        const { acks, replayed } = await crashMoment(baseSeed + next++, profile);
        totalAcks += acks;
        totalReplayed += replayed;
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all([lane(), lane()]);
  t.diagnostic(`${totalAcks} acknowledged orders and cancels checked; ${totalReplayed} frames replayed`);
  assert.ok(totalAcks > moments, 'the moments killed the driver after real work');
}

test(`acknowledged work survives kill -9 at ${CRASH_MOMENTS} seeded moments, and recovery is exact and repeatable`, { timeout: long ? 3_600_000 : 300_000 }, async (t) => {
  await crashMoments(t, CRASH_MOMENTS, 'mixed');
});

test(`deep books swept by huge takers from large batches survive kill -9 at ${DEEP_MOMENTS} seeded moments`, { timeout: long ? 3_600_000 : 300_000 }, async (t) => {
  await crashMoments(t, DEEP_MOMENTS, 'deep');
});

// Replays one engine benchmark flow for the instruction profile (instructions.sh): rows [0, W)
// warm the engine up, then N more are measured. With a FIFO, it stops before and after the
// measured rows until a line is written to it, so the profiler counts those rows alone
// (callgrind's instrumentation is switched on and off from outside meanwhile). The flow is
// generated once (it runs the engine as its oracle, which takes minutes under valgrind) and
// cached in the temporary directory.
//
//   node dist/bench/engine/profile/replay.js <N> <W> <deep|normal|fast> [FIFO]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClobdAdapter } from '../adapters.js';
import { Flow, FlowKind, generateFlow, makeAccounts, makeIds } from '../flows.js';
import { collectGarbage } from '../../support/collect.js';

const ROWS = 300_000;
const ID_POOL = 1 << 17;
/** Rows replayed between the collection and the settling rows (see below). */
const REWARM_ROWS = 20_000;
/** Rows replayed after the first handshake, before the measured ones (see below). */
const SETTLE_ROWS = 10_000;
/** Rows per call of the replay loop after the collection, as a ring consumer calls per batch. */
const CHUNK_ROWS = 1_000;
const COLUMNS = ['rowKind', 'account', 'id', 'outcome', 'side', 'orderType', 'priceUnits', 'sizeMicros'] as const;

const [measured = '0', warm = '100000', kindName = 'fast', fifo] = process.argv.slice(2);
const kind = FlowKind[kindName as FlowKind];
if (kind === undefined) throw new Error(`unknown flow ${kindName}`);
const ids = makeIds(ID_POOL, 42);
const accounts = makeAccounts(500);
const cache = join(tmpdir(), `clobd-profile-flow-${kind}-${ROWS}.json`);

function loadFlow(): Flow {
  if (existsSync(cache)) {
    const stored = JSON.parse(readFileSync(cache, 'latin1')) as Record<string, number[]> & { length: number; prefill: number };
    const flow = new Flow(kind, stored.length, ids, accounts);
    flow.prefill = stored.prefill;
    for (const column of COLUMNS) flow[column].set(stored[column]!);
    flow.keyRows();
    return flow;
  }
  const flow = generateFlow(kind, ROWS, 42, ids, accounts, (f) => new ClobdAdapter(f));
  const stored: Record<string, unknown> = { length: flow.length, prefill: flow.prefill };
  for (const column of COLUMNS) stored[column] = Array.from(flow[column]);
  writeFileSync(cache, JSON.stringify(stored));
  return flow;
}

const flow = loadFlow();
const adapter = new ClobdAdapter(flow);
/** In a function, so the loop is optimized code like the benchmark's (a module's top level is not). */
function replay(from: number, to: number): void {
  for (let row = from; row < to; row++) adapter.execute(flow, row);
}
/**
 * The same rows in calls of CHUNK_ROWS. The first long call runs in on-stack-replaced code; the
 * measured call enters `replay` afresh, and was compiled again inside the measured rows
 * (--trace-opt) unless earlier calls had entered it the same way.
 */
function replayInChunks(from: number, to: number): void {
  for (let row = from; row < to; row += CHUNK_ROWS) replay(row, Math.min(to, row + CHUNK_ROWS));
}
/** Tells the profiler where the replay is and waits for its answer (a line on the FIFO). */
function handshake(stage: string): void {
  if (fifo === undefined) return;
  process.stderr.write(`${stage}\n`);
  readFileSync(fifo);
}
const from = flow.prefill + Number(warm);
if (from + Number(measured) > flow.length) throw new Error(`warm-up and measured rows pass the flow's ${flow.length}`);
const settleFrom = Math.max(0, from - SETTLE_ROWS);
const settled = Math.max(0, settleFrom - REWARM_ROWS);
replay(0, settled);
// A full collection first, so no incremental marking (whose write barrier calls a stub on every
// pointer store) runs on into the measured commands: loading the flow grows the heap.
collectGarbage();
// The collection also deoptimizes code that embedded objects it freed (--trace-deopt: "weak
// objects"), and with the server's inlining budget execute, replay and the placement path were
// compiled again inside the measured commands: ~3 600 instructions a command of compilation in
// a 50 000-command profile. These rows recompile them first.
replayInChunks(settled, settleFrom);
handshake('ready');
// Whatever the first wait disturbed (reading the FIFO deoptimized a function of node:fs, and a
// function of the fast flow's taker path was compiled right after it) happens here, uncounted.
replayInChunks(settleFrom, from);
handshake('counting');
const started = performance.now();
replay(from, from + Number(measured));
const elapsedMs = performance.now() - started;
handshake('done');
console.log(`${measured} commands, ${(elapsedMs * 1e6 / Math.max(1, Number(measured))).toFixed(0)} ns each`);

// The engine benchmark as a tiny test, so it never rots: every flow generates, replays through
// both engines and is measured, and the cancel-depth micro benchmark runs. Nothing here asserts
// speed; bench/engine measures that.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { BaselineAdapter, ClobdAdapter } from '../../bench/engine/adapters.js';
import { FlowKind, generateFlow, makeAccounts, makeIds } from '../../bench/engine/flows.js';
import { idKey } from '../../engine/id_buckets.js';
import { runCancelDepth } from '../../bench/engine/micro.js';
import {
  DECODE_WINDOW_ROWS, measureLatency, measureThroughput, replayPrefill, replayRows, stopGcObserver,
} from '../../bench/engine/throughput.js';

after(() => stopGcObserver());

test('every benchmark flow replays through clobd and the baseline', async () => {
  const ids = makeIds(1 << 16, 1);
  const accounts = makeAccounts(20);
  for (const kind of [FlowKind.deep, FlowKind.normal, FlowKind.fast]) {
    const flow = generateFlow(kind, 3000, 1, ids, accounts, (f) => new ClobdAdapter(f, { orderSlots: 1 << 16 }));
    // Rows carry their id's key as a frame does; a wrong one would misfile orders unchecked.
    for (let row = 0; row < flow.length; row += 1) assert.equal(flow.idKey[row], idKey(flow.ids[flow.id[row]!]!), `${kind} row ${row}`);
    for (const make of [() => new ClobdAdapter(flow, { orderSlots: 1 << 16 }), () => new BaselineAdapter()]) {
      const adapter = make();
      replayPrefill(adapter, flow);
      const throughput = await measureThroughput(adapter, flow, 1500);
      const latency = measureLatency(adapter, flow, 0);
      assert.equal(throughput.commands, 1500);
      assert.ok(throughput.commandsPerSecond > 0 && latency.p50Ns >= 0);
    }
    // The decoding view: the same rows with fresh strings of the same text, so the same events.
    const pooled = new ClobdAdapter(flow, { orderSlots: 1 << 16 });
    const view = flow.decodingView(DECODE_WINDOW_ROWS);
    const decoded = new ClobdAdapter(view, { orderSlots: 1 << 16 });
    replayPrefill(pooled, flow);
    replayPrefill(decoded, view);
    const throughput = await measureThroughput(decoded, view, 1500);
    assert.equal(throughput.commands, 1500);
    replayRows(pooled, flow, flow.prefill, flow.prefill + 1500);
    assert.equal(decoded.engine.stateHash(), pooled.engine.stateHash(), kind);
    assert.equal(decoded.events, pooled.events, kind);
  }
});

test('the cancel-depth micro benchmark runs for both engines', async () => {
  const results = await runCancelDepth(5);
  assert.deepEqual(results.map((r) => r.engine), ['clobd', 'nodejs-order-book']);
  for (const result of results) assert.ok(result.headNs > 0 && result.tailNs > 0 && result.singleNs > 0);
});

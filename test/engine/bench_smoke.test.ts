// The engine benchmark as a tiny test, so it never rots: every flow generates, replays through
// both engines and is measured, and the cancel-depth micro benchmark runs. Nothing here asserts
// speed; bench/engine measures that.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { BaselineAdapter, ClobdAdapter } from '../../bench/engine/adapters.js';
import { FlowKind, generateFlow, makeAccounts, makeIds } from '../../bench/engine/flows.js';
import { idKey } from '../../engine/orders/id_buckets.js';
import { ID_WORDS, parseIdWords } from '../../engine/orders/id_words.js';
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
    // Rows carry their id, its key and its words as a frame does; a wrong key would misfile
    // orders unchecked (the engine's verify mode checks the words).
    const words = new Float64Array(ID_WORDS);
    for (let row = 0; row < flow.length; row += 1) {
      const id = flow.ids[flow.id[row]!]!;
      assert.equal(flow.rowIds[row], id, `${kind} row ${row}`);
      assert.equal(flow.idKey[row], idKey(id), `${kind} row ${row}`);
      const at = flow.idWordsAt[row]!;
      if (!parseIdWords(id, words, 0)) {
        assert.equal(at, -1, `${kind} row ${row}: an id without words`);
        continue;
      }
      assert.equal(at, row * ID_WORDS, `${kind} row ${row}`);
      assert.deepEqual(Array.from(flow.idWords.subarray(at, at + ID_WORDS)), Array.from(words), `${kind} row ${row}`);
    }
    for (const make of [() => new ClobdAdapter(flow, { orderSlots: 1 << 16 }), () => new BaselineAdapter()]) {
      const adapter = make();
      replayPrefill(adapter, flow);
      const throughput = await measureThroughput(adapter, flow, 1500);
      const latency = measureLatency(adapter, flow, 0);
      assert.equal(throughput.commands, 1500);
      assert.ok(throughput.commandsPerSecond > 0 && latency.p50Ns >= 0);
    }
    // The decoding view: the same rows with fresh strings of the same text, so the same events.
    // Verify mode checks every command's key and words and the invariants after each.
    const pooled = new ClobdAdapter(flow, { orderSlots: 1 << 16, verify: true });
    const view = flow.decodingView(DECODE_WINDOW_ROWS);
    const decoded = new ClobdAdapter(view, { orderSlots: 1 << 16, verify: true });
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

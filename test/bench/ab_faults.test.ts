// Runs whose figures the A/B harness must not judge by: a durable run that failed commands,
// answered unlike its oracle, or recovered to another state did other work than a clean run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { faultsOf } from '../../bench/ab/faults.js';
import { durableReport, engineReport } from './ab_reports.js';

test('clean runs have no faults', () => {
  assert.deepEqual(faultsOf(durableReport()), []);
  assert.deepEqual(faultsOf(engineReport()), []);
});

test('failed commands, answers unlike the oracle\'s and a restart to another state are faults', () => {
  const clean = durableReport();
  const [one, two] = clean.shards;
  const [stop, kill] = clean.restarts;
  const spoiled = {
    ...clean,
    shards: [{ ...one!, peak: { ...one!.peak, failures: 3 } }, { ...two!, latency: { ...two!.latency, rejectionMismatches: 1 } }],
    restarts: [{ ...stop!, hashEqual: false }, { ...kill!, fill: { ...kill!.fill, failures: 2 } }],
  };
  assert.deepEqual(faultsOf(JSON.parse(JSON.stringify(spoiled))), [
    'SHARDS=1 peak: 3 failed commands',
    'SHARDS=2 latency: 1 answers unlike the oracle\'s',
    'restart (stop): the state hash differs after recovery',
    'restart (kill): the fill had 2 failures, 0 answers unlike the oracle\'s',
  ]);
});

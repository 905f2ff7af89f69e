// The figures the A/B harness reads from the durable and engine benchmarks' --json reports:
// every throughput and latency their tables print, once each, with the right direction, and the
// code that is not clobd's marked as a control. The reports here are made up, of the real types.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { figuresOf, type Figure } from '../../bench/ab/figures.js';
import { durableReport, engineReport } from './ab_reports.js';

function assertWellFormed(figures: readonly Figure[]): void {
  assert.equal(new Set(figures.map((figure) => figure.name)).size, figures.length, 'every name once');
  for (const figure of figures) {
    assert.ok(Number.isFinite(figure.value), figure.name);
    const rate = figure.unit.endsWith('/s');
    assert.equal(figure.better, rate ? 'higher' : 'lower', `${figure.name}: ${figure.unit} is better ${rate ? 'higher' : 'lower'}`);
  }
}

test('the durable report gives every ring, throughput, latency and restart figure, postMessage as the control', () => {
  const figures = figuresOf(JSON.parse(JSON.stringify(durableReport())));
  assertWellFormed(figures);
  assert.deepEqual(figures.filter((figure) => figure.control).map((figure) => figure.name), [
    'round trip p50, postMessage', 'round trip p99, postMessage', 'postMessage, batches',
  ]);
  const names = figures.map((figure) => figure.name);
  for (const name of ['durable SHARDS=1', 'durable SHARDS=2', 'ack latency SHARDS=2 at half its peak, p99.9', 'engine in memory', 'ring, batches',
    'restart after SIGKILL: journal replay', 'restart after clean stop: stop']) {
    assert.ok(names.includes(name), name);
  }
  assert.equal(figures.find((figure) => figure.name === 'durable SHARDS=1')?.value, 50_000);
});

test('the engine report gives every flow\'s rates and percentiles and the cancel costs, nodejs-order-book as the control', () => {
  const figures = figuresOf(JSON.parse(JSON.stringify(engineReport())));
  assertWellFormed(figures);
  const controls = figures.filter((figure) => figure.control);
  assert.ok(controls.length > 0 && controls.every((figure) => figure.name.includes('nodejs-order-book')));
  assert.ok(figures.filter((figure) => !figure.control).every((figure) => !figure.name.includes('nodejs-order-book')));
  assert.equal(figures.find((figure) => figure.name === 'deep: clobd')?.value, 2e6);
  assert.equal(figures.find((figure) => figure.name === 'fast: clobd, server strings')?.value, 1.5e6);
  assert.equal(figures.find((figure) => figure.name === 'cancel at the tail of a deep level, clobd')?.value, 110);
});

test('a report of another suite is refused', () => {
  assert.throws(() => figuresOf({ suite: 'catalog' }), /not a durable or engine report/);
  assert.throws(() => figuresOf(null), /not a durable or engine report/);
});

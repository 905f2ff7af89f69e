// The A/B harness's verdicts: medians over rounds, B/A per figure and per round, which way is
// better, and controls that get no verdict. Timings are never asserted here; these are made-up
// figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compare, keeps, KEEP_RATIO } from '../../bench/ab/compare.js';
import type { Better, Figure } from '../../bench/ab/figures.js';
import { median } from '../../bench/support/median.js';

const figure = (name: string, better: Better, value: number, control = false): Figure => ({ name, unit: 'x', better, control, value });

test('the median of an odd count is the middle value, of an even count the mean of the two middle ones', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.throws(() => median([]));
});

test('a throughput keeps its figure at 0.95 of A or more, a time at 1/0.95 of A or less', () => {
  assert.equal(keeps(KEEP_RATIO, 'higher'), true);
  assert.equal(keeps(0.949, 'higher'), false);
  assert.equal(keeps(1 / KEEP_RATIO, 'lower'), true);
  assert.equal(keeps(1.06, 'lower'), false);
  assert.equal(keeps(0.5, 'lower'), true);
});

test('each figure is compared on the medians of its rounds, with each round\'s own B/A', () => {
  const a = [[figure('rate', 'higher', 100), figure('p99', 'lower', 10)], [figure('rate', 'higher', 90), figure('p99', 'lower', 30)], [figure('rate', 'higher', 110), figure('p99', 'lower', 20)]];
  const b = [[figure('rate', 'higher', 80), figure('p99', 'lower', 10)], [figure('rate', 'higher', 99), figure('p99', 'lower', 20)], [figure('rate', 'higher', 120), figure('p99', 'lower', 30)]];
  const [rate, p99] = compare(a, b);
  assert.equal(rate?.medianA, 100);
  assert.equal(rate?.medianB, 99);
  assert.equal(rate?.ratio, 0.99);
  assert.deepEqual(rate?.roundRatios, [0.8, 1.1, 120 / 110]);
  assert.equal(rate?.pass, true);
  assert.equal(p99?.ratio, 1);
  assert.equal(p99?.pass, true);
});

test('a worse figure is a MISS whichever way is better; a control gets no verdict; A at 0 gives no ratio', () => {
  const a = [[figure('rate', 'higher', 100), figure('latency', 'lower', 10), figure('other library', 'higher', 100, true), figure('replay', 'lower', 0)]];
  const b = [[figure('rate', 'higher', 94), figure('latency', 'lower', 10.6), figure('other library', 'higher', 50, true), figure('replay', 'lower', 1)]];
  const rows = compare(a, b);
  assert.deepEqual(rows.map((row) => row.pass), [false, false, undefined, undefined]);
  assert.ok(Number.isNaN(rows[3]!.ratio));
});

test('rounds must pair up and name the same figures', () => {
  assert.throws(() => compare([[figure('rate', 'higher', 1)]], []), /1 runs of A and 0 of B/);
  assert.throws(() => compare([[figure('rate', 'higher', 1)]], [[figure('other', 'higher', 1)]]), /no figure "rate"/);
});

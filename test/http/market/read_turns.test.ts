// Long reads take turns (feed_pages.ts ReadTurns): never more in progress than allowed, the
// others served in the order they came, and a read past the waiting bound refused with 429.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from '../../../http/errors.js';
import { ReadTurns } from '../../../http/market/feed_pages.js';

test('reads run at most two at once, in the order they came, and the waiting line is bounded', async () => {
  const turns = new ReadTurns(2, 3);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const gates: (() => void)[] = [];
  const read = (index: number) => turns.run(async () => {
    started.push(index);
    running++;
    most = Math.max(most, running);
    await new Promise<void>((resolve) => gates.push(resolve));
    running--;
    return index;
  });
  const reads = [0, 1, 2, 3, 4].map(read);
  // Two run, three wait: a sixth is refused at once, with Retry-After.
  await assert.rejects(read(5), (error: unknown) => error instanceof HttpError && error.status === 429 && error.headers?.some(([name]) => name === 'retry-after') === true);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, [0, 1]);
  // Each read that ends hands its turn to the next in line.
  while (gates.length > 0) {
    gates.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(await Promise.all(reads), [0, 1, 2, 3, 4]);
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  assert.equal(most, 2);
  // A read that throws gives its turn back too.
  await assert.rejects(turns.run(async () => {
    throw new Error('failed');
  }), /failed/);
  const after = await Promise.all([turns.run(async () => 'a'), turns.run(async () => 'b')]);
  assert.deepEqual(after, ['a', 'b']);
});

// Request caps (contract §7): the token buckets with an injected clock (exact admission at the
// edges of both windows, refill, all-or-none charges, per-key isolation, Retry-After, a bounded
// table, threads sharing one table), RATE_LIMITS parsing, and the real server enforcing caps per
// client address and per API key in real time.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { allocateBuckets, capsFrom, DEFAULT_CAPS, RateLimiter, type Cap } from '../../http/rate_limit.js';
import { request, startServer, temporaryDataDir, removeDataDir } from '../support/server.js';
import { ADMIN_TOKEN, startTrading, type Trader } from './orders/trader.js';

function limiterOf(caps: Cap[], slots = 1024): { limiter: RateLimiter; clock: { ms: number } } {
  const clock = { ms: 1_000_000 };
  return { limiter: new RateLimiter(allocateBuckets(slots), caps, () => clock.ms), clock };
}

const cap = (name: string, requests: number, windowS: number): Cap => ({ name, requests, windowS, scope: 'ip' });

test('a cap admits exactly its requests per window and refills evenly across it', () => {
  const { limiter, clock } = limiterOf([cap('five per second', 5, 1)]);
  for (let count = 0; count < 5; count++) assert.equal(limiter.charge([0], 'a'), 0, `request ${count + 1} is admitted`);
  assert.equal(limiter.charge([0], 'a'), 1, 'the sixth waits a second at most');
  // One token every 200 ms: not at 199 ms, exactly at 200 ms, and only one.
  clock.ms += 199;
  assert.equal(limiter.charge([0], 'a'), 1);
  clock.ms += 1;
  assert.equal(limiter.charge([0], 'a'), 0);
  assert.equal(limiter.charge([0], 'a'), 1);
  // A whole idle window refills to the cap, never beyond it.
  clock.ms += 10_000;
  for (let count = 0; count < 5; count++) assert.equal(limiter.charge([0], 'a'), 0);
  assert.equal(limiter.charge([0], 'a'), 1);
});

test('burst and sustained windows both must admit, and a refused request is charged to neither', () => {
  const { limiter, clock } = limiterOf([cap('burst', 3, 1), cap('sustained', 5, 100)]);
  const both = [0, 1];
  for (let count = 0; count < 3; count++) assert.equal(limiter.charge(both, 'k'), 0);
  assert.equal(limiter.charge(both, 'k'), 1, 'the burst window is spent');
  clock.ms += 1_000;
  assert.equal(limiter.charge(both, 'k'), 0);
  assert.equal(limiter.charge(both, 'k'), 0);
  // Sustained: 5 charged (the refused fourth was not) and 1 s of refill (0.05 token): the next
  // token is 19 s away.
  assert.equal(limiter.charge(both, 'k'), 19, 'the sustained window refuses');
  // The refused charges took nothing from the burst bucket: it still holds its last token.
  assert.equal(limiter.charge([0], 'k'), 0);
  assert.equal(limiter.charge([0], 'k'), 1);
});

test('keys are isolated, batch costs count per item, and Retry-After is the wait for the tokens', () => {
  const { limiter, clock } = limiterOf([cap('ten per minute', 10, 60)]);
  let refused = 0;
  for (let count = 0; count < 100; count++) if (limiter.charge([0], 'loud') !== 0) refused++;
  assert.equal(refused, 90, 'ten admitted of a hundred');
  assert.equal(limiter.charge([0], 'quiet'), 0, 'another key is not throttled');
  assert.equal(limiter.charge([0], 'loud'), 6, 'one token every 6 s');
  assert.equal(limiter.charge([0], 'batch', 10), 0, 'a batch of ten takes the whole bucket');
  assert.equal(limiter.charge([0], 'batch', 3), 18, 'three tokens take 18 s');
  clock.ms += 18_000;
  assert.equal(limiter.charge([0], 'batch', 3), 0);
  assert.equal(limiter.charge([0], 'huge', 11), 60, 'more than the cap is never admitted: a whole window');
});

test('the table is bounded: a flood of distinct keys neither grows it nor breaks the keys in use', () => {
  const buffer = allocateBuckets(1024);
  const bytes = buffer.byteLength;
  const clock = { ms: 0 };
  const limiter = new RateLimiter(buffer, [cap('two per ten seconds', 2, 10)], () => clock.ms);
  let hotAdmitted = 0;
  for (let index = 0; index < 100_000; index++) {
    clock.ms += 1;
    limiter.charge([0], `address-${index}`);
    // The hot key keeps asking: were it evicted, it would come back with a full bucket.
    if (index % 50 === 0 && limiter.charge([0], 'hot') === 0) hotAdmitted++;
  }
  // Two at once, then one every 5 s of the 100 s: never more.
  assert.ok(hotAdmitted <= 2 + 100_000 / 5_000, `the hot key was admitted ${hotAdmitted} times`);
  assert.equal(buffer.byteLength, bytes);
  assert.equal(limiter.charge([0], 'fresh'), 0);
});

test('every bucket of one key lives in its region: a charge of many caps never evicts its own, and floods evict the idlest', () => {
  // 64 slots: a single region, so every key below shares it.
  const clock = { ms: 0 };
  const caps = Array.from({ length: 8 }, (_, index) => cap(`one per minute ${index}`, 1, 60));
  const limiter = new RateLimiter(allocateBuckets(64), caps, () => clock.ms);
  const all = caps.map((_, index) => index);
  assert.equal(limiter.charge(all, 'eight caps'), 0);
  assert.equal(limiter.charge(all, 'eight caps'), 60, 'all eight buckets are kept, and spent');
  // 56 more keys fill the region; the next ones take over the slots used longest ago, never the
  // key that keeps charging.
  for (let index = 0; index < 200; index++) {
    clock.ms += 10;
    limiter.charge([index % 8], `flood-${index}`);
    if (index % 20 === 0) assert.ok(limiter.charge(all, 'eight caps') > 0, `the busy key stays throttled (flood ${index})`);
  }
  assert.throws(() => limiter.charge([...all, 0], 'nine'), /at most 8 caps/);
});

test('threads sharing the table admit exactly the cap between them', async () => {
  const buffer = allocateBuckets(1024);
  const caps = [cap('shared', 500, 1_000)];
  const workers = Array.from({ length: 4 }, () => new Worker(new URL('./rate_limit_worker.js', import.meta.url), {
    workerData: { buffer, caps, attempts: 1_000 },
  }));
  const admitted = await Promise.all(workers.map((worker) => new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  })));
  assert.equal(admitted.reduce((sum, count) => sum + count, 0), 500, `admitted per thread: ${admitted.join(', ')}`);
});

test('RATE_LIMITS: defaults, off, overrides from a JSON file, and refusals naming the problem', () => {
  assert.deepEqual(capsFrom(undefined, () => ''), DEFAULT_CAPS);
  assert.deepEqual(capsFrom('off', () => ''), []);
  const caps = capsFrom('caps.json', () => JSON.stringify({ 'GET /book': { requests: 7, windowSeconds: 2 }, 'GET /price': { requests: 9 } }));
  assert.deepEqual(caps.find((entry) => entry.name === 'GET /book'), { name: 'GET /book', requests: 7, windowS: 2, scope: 'ip' });
  assert.deepEqual(caps.find((entry) => entry.name === 'GET /price'), { name: 'GET /price', requests: 9, windowS: 10, scope: 'ip' });
  assert.equal(caps.length, DEFAULT_CAPS.length);
  assert.throws(() => capsFrom('x', () => '{"GET /nope": {"requests": 1}}'), /unknown cap "GET \/nope"/);
  assert.throws(() => capsFrom('x', () => '{"GET /book": {"requests": 0}}'), /"GET \/book" needs/);
  assert.throws(() => capsFrom('x', () => 'not json'), /cannot read x as JSON/);
});

test('the server enforces caps per client address and per account, in real time', async () => {
  const dir = temporaryDataDir();
  const capsFile = join(dir, 'caps.json');
  writeFileSync(capsFile, JSON.stringify({
    'GET /book': { requests: 5, windowSeconds: 2 },
    'GET /events': { requests: 100, windowSeconds: 10 },
    'catalog listings': { requests: 4, windowSeconds: 60 },
    'POST /order burst': { requests: 3, windowSeconds: 60 },
  }));
  const { server, markets, traders } = await startTrading([71, 72], { RATE_LIMITS: capsFile });
  const [first, second] = traders as [Trader, Trader];
  try {
    const token = markets[0]!.yes;
    const book = () => request(`${server.urls.clob}/book?token_id=${token}`);
    for (let count = 0; count < 5; count++) assert.equal((await book()).status, 200);
    const refused = await book();
    assert.equal(refused.status, 429);
    assert.equal(refused.text, '{"error":"Too Many Requests"}');
    assert.equal(refused.headers.get('retry-after'), '1', 'a token comes back within 400 ms');
    await new Promise((resolve) => setTimeout(resolve, 450));
    assert.equal((await book()).status, 200, 'refilled');
    assert.equal((await book()).status, 429);

    // Combined caps: /events and /markets share the listings cap of 4.
    const catalog = (path: string) => request(`${server.urls.catalog}${path}`);
    const listings = await Promise.all(['/events', '/markets', '/events', '/markets'].map(catalog));
    assert.deepEqual(listings.map((r) => r.status), [200, 200, 200, 200]);
    assert.equal((await catalog('/markets?limit=1')).status, 429, 'the combined cap refuses what each own cap allows');
    assert.equal((await catalog('/series')).status, 200, 'other catalog routes are not in the listings cap');

    // Trading writes are charged per account, after authentication; a refused order does not run.
    const placed = [];
    for (let index = 0; index < 3; index++) {
      const answer = await first.place({ tokenId: token, side: 'BUY', priceUnits: 1000 + 100 * index, sizeMicros: 5_000_000 });
      assert.equal(answer.status, 200, answer.text);
      placed.push(answer.orderId);
    }
    const over = await first.place({ tokenId: token, side: 'BUY', priceUnits: 1500, sizeMicros: 5_000_000 });
    assert.equal(over.status, 429);
    assert.equal(over.text, '{"error":"Too Many Requests"}');
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    const never = await first.send('GET', `/data/order/${over.orderId}`);
    assert.equal(never.status, 404, 'the refused order was never placed');
    const other = await second.place({ tokenId: token, side: 'BUY', priceUnits: 1600, sizeMicros: 5_000_000 });
    assert.equal(other.status, 200, 'another account is not throttled');
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
    removeDataDir(dir);
  }
});

test('RATE_LIMITS=off serves past every cap', async () => {
  const server = await startServer({ env: { RATE_LIMITS: 'off', ADMIN_TOKEN } });
  try {
    const answers = await Promise.all(Array.from({ length: 80 }, () => request(`${server.urls.clob}/`)));
    assert.ok(answers.every((answer) => answer.status === 200), 'GET / past its cap of 50 per 10 s');
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});

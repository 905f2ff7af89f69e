// GET /metrics: Prometheus text that parses line by line, whose counters move when the test
// places orders and reads books; METRICS=off removes the route.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { removeDataDir, request, startServer } from '../support/server.js';
import { startTrading, type Trader } from './orders/trader.js';

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*)\})? (-?[0-9.e+-]+|\+Inf|NaN)$/;

/** Parses the exposition text strictly: every line a comment, a TYPE/HELP line, or a sample. */
function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const typed = new Set<string>();
  for (const line of text.trimEnd().split('\n')) {
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      assert.ok(['counter', 'gauge', 'histogram'].includes(type!), line);
      typed.add(name!);
      continue;
    }
    const match = SAMPLE.exec(line);
    assert.ok(match !== null, `not a Prometheus sample: ${line}`);
    const family = match[1]!.replace(/_(bucket|sum|count)$/, '');
    assert.ok(typed.has(match[1]!) || typed.has(family), `sample before its TYPE: ${line}`);
    samples.set(`${match[1]}${match[2] ?? ''}`, Number(match[4]));
  }
  return samples;
}

function find(samples: Map<string, number>, name: string, ...labels: string[]): number {
  let total = 0;
  for (const [key, value] of samples) if (key.startsWith(name) && labels.every((label) => key.includes(label))) total += value;
  return total;
}

test('metrics parse as Prometheus text and move with orders and reads', async () => {
  const { server, markets, traders } = await startTrading([91, 92]);
  const [alice, bob] = traders as [Trader, Trader];
  try {
    const scrape = async (): Promise<Map<string, number>> => {
      const response = await request(`${server.urls.clob}/metrics`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
      return parse(response.text);
    };
    const before = await scrape();
    const market = markets[0]!;
    assert.equal((await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 4000, sizeMicros: 10_000_000 })).status, 200);
    assert.equal((await bob.place({ tokenId: market.no, side: 'BUY', priceUnits: 6000, sizeMicros: 5_000_000, orderType: 'FOK' })).status, 200);
    for (let count = 0; count < 3; count++) assert.equal((await request(`${server.urls.clob}/book?token_id=${market.yes}`)).status, 200);
    assert.equal((await request(`${server.urls.clob}/book?token_id=123`)).status, 404);
    const after = await scrape();
    const delta = (name: string, ...labels: string[]) => find(after, name, ...labels) - find(before, name, ...labels);
    assert.equal(delta('clobd_http_requests_total', 'route="/order"', 'status="200"'), 2);
    assert.equal(delta('clobd_http_requests_total', 'route="/book"', 'status="200"'), 3);
    assert.equal(delta('clobd_http_requests_total', 'route="/book"', 'status="404"'), 1);
    assert.equal(delta('clobd_http_request_duration_seconds_count', 'route="/book"'), 4);
    assert.equal(find(after, 'clobd_http_request_duration_seconds_bucket', 'route="/book"', 'le="+Inf"'), find(after, 'clobd_http_request_duration_seconds_count', 'route="/book"'));
    assert.equal(delta('clobd_orders_total', 'kind="accepted"'), 2);
    assert.equal(delta('clobd_orders_total', 'kind="filled"'), 1);
    assert.ok(find(after, 'clobd_shard', 'value="commits"') > find(before, 'clobd_shard', 'value="commits"'), 'commits move');
    assert.ok(find(after, 'clobd_shard', 'value="resting_orders"') >= 1);
    assert.ok(find(after, 'clobd_process_memory_bytes', 'kind="rss"') > 0);
    assert.ok(after.has('clobd_shard_ring_depth_slots{shard="0"}'));
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});

test('METRICS=off: no /metrics route', async () => {
  const server = await startServer({ env: { METRICS: 'off' } });
  try {
    assert.equal((await request(`${server.urls.clob}/metrics`)).status, 404);
    assert.equal((await request(`${server.urls.clob}/`)).status, 200);
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});

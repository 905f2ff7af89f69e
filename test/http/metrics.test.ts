// GET /metrics: Prometheus text that parses line by line, whose counters move for real causes:
// orders placed, filled and cancelled, books read, commits (commands per commit and their time),
// a request cap's 429, API keys found in their cache, a slow WebSocket reader closed, the
// threads' CPU time (Linux); METRICS=off removes the route.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
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

async function scrape(clobUrl: string): Promise<Map<string, number>> {
  const response = await request(`${clobUrl}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
  return parse(response.text);
}

/** Every histogram's +Inf bucket equals its count. */
function assertHistogramsWhole(samples: Map<string, number>): void {
  for (const [key, value] of samples) {
    const match = /^(\w+)_bucket\{(.*),le="\+Inf"\}$/.exec(key);
    if (match === null) continue;
    assert.equal(samples.get(`${match[1]}_count{${match[2]}}`), value, key);
  }
}

test('metrics parse as Prometheus text and move with orders, reads, commits and a refused request', async () => {
  const capsDir = mkdtempSync(join(tmpdir(), 'clobd-metrics-caps-'));
  const capsFile = join(capsDir, 'caps.json');
  // One GET /price per address a minute: the second is refused by that cap alone.
  writeFileSync(capsFile, JSON.stringify({ 'GET /price': { requests: 1, windowSeconds: 60 } }));
  const { server, markets, traders } = await startTrading([91, 92], { RATE_LIMITS: capsFile });
  const [alice, bob] = traders as [Trader, Trader];
  try {
    const before = await scrape(server.urls.clob);
    const market = markets[0]!;
    const resting = await alice.place({ tokenId: market.yes, side: 'BUY', priceUnits: 4000, sizeMicros: 10_000_000 });
    assert.equal(resting.status, 200);
    assert.equal((await bob.place({ tokenId: market.no, side: 'BUY', priceUnits: 6000, sizeMicros: 5_000_000, orderType: 'FOK' })).status, 200);
    const cancelled = await bob.place({ tokenId: market.no, side: 'BUY', priceUnits: 1000, sizeMicros: 5_000_000 });
    assert.equal((await bob.send('DELETE', '/order', { orderID: cancelled.orderId })).status, 200);
    for (let count = 0; count < 3; count++) assert.equal((await request(`${server.urls.clob}/book?token_id=${market.yes}`)).status, 200);
    assert.equal((await request(`${server.urls.clob}/book?token_id=123`)).status, 404);
    assert.equal((await request(`${server.urls.clob}/no-such-route`)).status, 404);
    assert.equal((await request(`${server.urls.clob}/book`, { method: 'PUT' })).status, 405);
    assert.equal((await request(`${server.urls.clob}/price?token_id=${market.yes}&side=BUY`)).status, 200);
    assert.equal((await request(`${server.urls.clob}/price?token_id=${market.yes}&side=BUY`)).status, 429);
    const after = await scrape(server.urls.clob);
    const delta = (name: string, ...labels: string[]) => find(after, name, ...labels) - find(before, name, ...labels);
    assert.equal(delta('clobd_http_requests_total', 'route="/order"', 'method="POST"', 'status="200"'), 3);
    assert.equal(delta('clobd_http_requests_total', 'route="/order"', 'method="DELETE"', 'status="200"'), 1);
    assert.equal(delta('clobd_http_requests_total', 'route="/book"', 'status="200"'), 3);
    assert.equal(delta('clobd_http_requests_total', 'route="/book"', 'status="404"'), 1);
    assert.equal(delta('clobd_http_requests_total', 'route="/price"', 'status="429"'), 1);
    assert.equal(delta('clobd_http_requests_total', 'method="*"', 'route="(unmatched)"', 'status="404"'), 1);
    assert.equal(delta('clobd_http_requests_total', 'method="*"', 'route="/book"', 'status="405"'), 1);
    assert.equal(delta('clobd_http_request_duration_seconds_count', 'method="GET"', 'route="/book"'), 4);
    assertHistogramsWhole(after);
    assert.equal(delta('clobd_orders_total', 'kind="accepted"'), 3);
    assert.equal(delta('clobd_orders_total', 'kind="filled"'), 1);
    assert.equal(delta('clobd_orders_total', 'kind="cancelled"'), 1);
    assert.equal(delta('clobd_signatures_recovered_total'), 3, 'one signature recovered per order placed, on the pool or the front end');
    assert.equal(delta('clobd_rate_limit_refusals_total', 'cap="GET /price"', 'scope="ip"'), 1);
    assert.equal(delta('clobd_rate_limit_refusals_total'), 1, 'no other cap refused anything');
    // Each trader's key is read from the store at its first L2 request, then found in the cache.
    assert.equal(delta('clobd_api_key_cache_entries'), 2);
    assert.equal(delta('clobd_api_key_cache_lookups_total', 'result="miss"'), 2);
    assert.equal(delta('clobd_api_key_cache_lookups_total', 'result="hit"'), 2);
    assert.equal(find(after, 'clobd_api_key_cache_evictions_total'), 0);
    // Four orders' frames (3 placements, 1 cancel) were committed, in at least one commit.
    const commits = delta('clobd_shard_commits_total');
    assert.ok(commits >= 1, 'commits move');
    assert.equal(delta('clobd_shard_commands_per_commit_count'), commits);
    assert.ok(delta('clobd_shard_commands_per_commit_sum') >= 4, 'the commands committed are counted');
    assert.equal(delta('clobd_shard_commit_duration_seconds_count'), commits);
    assert.ok(delta('clobd_shard_commit_duration_seconds_sum') > 0, 'commits take time');
    assert.equal(delta('clobd_shard_resting_orders'), 1, "alice's rest of 5 shares (the demo quotes rest too)");
    // Bob's NO at 0.60 against Alice's YES at 0.40 minted 5 complete sets.
    assert.equal(delta('clobd_shard_open_interest_micros'), 5_000_000);
    assert.ok(find(after, 'clobd_shard_collateral_micros') > 0);
    assert.ok(find(after, 'clobd_process_memory_bytes', 'kind="rss"') > 0);
    assert.ok(after.has('clobd_shard_ring_depth_slots{shard="0"}'));
    assert.ok(after.has('clobd_shard_ring_full_total{shard="1"}'));
    if (existsSync('/proc/self/schedstat')) {
      // The workers committed and the front end answered: both ran, and no thread's times go back.
      for (const thread of ['front_end', 'shard_0', 'shard_1', 'other']) {
        for (const family of ['clobd_thread_cpu_seconds_total', 'clobd_thread_runqueue_wait_seconds_total']) {
          assert.ok(after.has(`${family}{thread="${thread}"}`), `${family} of ${thread}`);
        }
      }
      for (const thread of ['front_end', 'shard_0', 'shard_1']) {
        assert.ok(delta('clobd_thread_cpu_seconds_total', `thread="${thread}"`) > 0, `${thread} ran`);
        assert.ok(delta('clobd_thread_runqueue_wait_seconds_total', `thread="${thread}"`) >= 0, `${thread}'s wait never goes back`);
      }
    }
  } finally {
    await server.stop();
    removeDataDir(server.dataDir);
    rmSync(capsDir, { recursive: true, force: true });
  }
});

test('a WebSocket reader that stops reading is closed and counted as a slow reader', { timeout: 60_000 }, async () => {
  // The demo catalog: every token's book holds the demo market maker's bids.
  const server = await startServer();
  try {
    const markets = (await request<{ data: { tokens: { token_id: string }[] }[] }>(`${server.urls.clob}/sampling-markets`)).body.data;
    const tokens = markets.flatMap((market) => market.tokens.map((token) => token.token_id));
    const before = await scrape(server.urls.clob);
    assert.equal(find(before, 'clobd_ws_connections'), 0);
    const ws = new WebSocket(`${server.urls.clob.replace('http', 'ws')}/ws/market`);
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    assert.equal(find(await scrape(server.urls.clob), 'clobd_ws_connections'), 1);
    // Stop reading, then make the server send whole books again and again (each subscribe sends
    // every token's book) until its send buffer passes its cap and it closes the socket.
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    let isClosed = false;
    void closed.then(() => (isClosed = true));
    const deadline = Date.now() + 45_000;
    while (!isClosed && Date.now() < deadline) {
      const slow = find(await scrape(server.urls.clob), 'clobd_ws_slow_readers_total');
      if (slow > 0) break;
      for (let round = 0; round < 20; round++) {
        ws.send(JSON.stringify({ operation: 'unsubscribe', assets_ids: tokens }));
        ws.send(JSON.stringify({ operation: 'subscribe', assets_ids: tokens }));
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const after = await scrape(server.urls.clob);
    assert.equal(find(after, 'clobd_ws_slow_readers_total') - find(before, 'clobd_ws_slow_readers_total'), 1);
    ws.terminate();
    await closed;
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

// CatalogStore.marketOfCondition: the trading path's cached lookup of a market by condition id
// answers what the store holds, in any case of the id, and sees every write at once.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { demoEvents } from '../../../http/catalog/demo.js';
import { readEvent } from '../../../http/catalog/ingest.js';
import { CatalogStore } from '../../../http/catalog/store.js';

const TIME_MS = 1_800_000_000_000;

test('a market by condition id is cached until the next write, in any case of the id', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'clobd-catalog-cache-'));
  const store = CatalogStore.open(dir);
  try {
    const [body] = demoEvents(TIME_MS);
    store.createEvent(readEvent(body, '', 'create', TIME_MS));
    const market = store.allMarkets().find((candidate) => candidate.acceptingOrders)!;
    assert.ok(market !== undefined, 'the demo event has an open market');
    assert.deepEqual(store.marketOfCondition(market.conditionId), market);
    assert.deepEqual(store.marketOfCondition(market.conditionId.toUpperCase().replace('0X', '0x')), market);
    assert.equal(store.marketOfCondition(`0x${'ab'.repeat(32)}`), undefined, 'an unknown condition');

    store.setMarketFlags(market.id, { acceptingOrders: false }, TIME_MS + 1);
    assert.equal(store.marketOfCondition(market.conditionId)?.acceptingOrders, false, 'a write is seen by the next lookup');
    store.setMarketFlags(market.id, { acceptingOrders: true }, TIME_MS + 2);
    assert.equal(store.marketOfCondition(market.conditionId)?.acceptingOrders, true);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

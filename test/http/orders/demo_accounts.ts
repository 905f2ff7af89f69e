// The demo's accounts as a test reaches them: their keys are in DATA_DIR/demo.json (and nowhere
// else), so a test reads the file and signs as the account, like its operator could.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from '../../support/server.js';
import { Trader, type Credentials } from './trader.js';

export interface DemoFile {
  readonly format: number;
  readonly anchor: string | null;
  readonly starts: number;
  readonly maker: string;
  readonly traders: readonly string[];
  readonly markets: readonly string[];
}

export function demoFilePath(dataDir: string): string {
  return join(dataDir, 'demo.json');
}

export function readDemoFile(dataDir: string): DemoFile {
  return JSON.parse(readFileSync(demoFilePath(dataDir), 'utf8')) as DemoFile;
}

/** The file's permission bits (0o600: its owner's only). */
export function demoFileMode(dataDir: string): number {
  return statSync(demoFilePath(dataDir)).mode & 0o777;
}

export function secretOf(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex.slice(2), 'hex'));
}

/** A Trader for the key, with the API credentials the server made for it (L1 derive). */
export async function demoTrader(clobUrl: string, secretHex: string): Promise<Trader> {
  const trader = new Trader(clobUrl, secretOf(secretHex));
  const derived = await request<Credentials>(`${clobUrl}/auth/derive-api-key`, { headers: trader.l1Headers() });
  assert.equal(derived.status, 200, derived.text);
  trader.credentials = derived.body;
  return trader;
}

export interface OrderRow {
  readonly id: string;
  readonly assetId: string;
  readonly price: string;
  readonly side: string;
  readonly market: string;
}

/** The account's live orders (GET /data/orders, one page of up to 500). */
export async function liveOrders(trader: Trader): Promise<{ data: OrderRow[]; count: number }> {
  const orders = await trader.send<{ data: OrderRow[]; count: number }>('GET', '/data/orders');
  assert.equal(orders.status, 200, orders.text);
  return orders.body;
}

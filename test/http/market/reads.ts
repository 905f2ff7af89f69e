// JSON reads of the market-data tests: GET and POST against a listener whose address may change
// (a test that restarts its server), each checked never to be a 500.
import assert from 'node:assert/strict';
import { request, type Response } from '../../support/server.js';

export interface Reads {
  get<T = unknown>(path: string): Promise<Response<T>>;
  /** POSTs `body` as JSON, or as it is when it is a string (malformed bodies). */
  post<T = unknown>(path: string, body: unknown): Promise<Response<T>>;
}

export function readsOf(baseUrl: () => string): Reads {
  return {
    async get<T>(path: string): Promise<Response<T>> {
      const response = await request<T>(`${baseUrl()}${path}`);
      assert.notEqual(response.status, 500, `${path}: ${response.text}`);
      return response;
    },
    async post<T>(path: string, body: unknown): Promise<Response<T>> {
      const response = await request<T>(`${baseUrl()}${path}`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      assert.notEqual(response.status, 500, `${path}: ${response.text}`);
      return response;
    },
  };
}

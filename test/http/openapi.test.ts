// GET /openapi.json on each listener: an OpenAPI 3.1 document made from the route table. Every
// operation it lists is a route the listener serves (never the 404/405 of an unknown route), and
// the routes a bot needs are there with their parameters, credentials, rate-limit caps and
// response schemas. The document is valid OpenAPI 3.1 by the specification's own schema, and
// every response schema compiles in Ajv's strict mode (the suite holds every answer to them).
import { Validator } from '@seriousme/openapi-schema-validator';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ResponseValidator, type ApiDocument } from '../support/api_document.js';
import { removeDataDir, request, startServer, type RunningServer } from '../support/server.js';

type Operation = {
  parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
  'x-rate-limits': { name: string; requests: number; windowSeconds: number; scope: string }[];
};
type Document = {
  openapi: string; info: { title: string }; paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
};

let server: RunningServer;

before(async () => {
  server = await startServer({ env: { ADMIN_TOKEN: 'openapi-test', RATE_LIMITS: '' } });
});

after(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

async function documentOf(base: string): Promise<Document> {
  const response = await request<Document>(`${base}/openapi.json`);
  assert.equal(response.status, 200);
  return response.body;
}

test('each listener documents itself as OpenAPI 3.1, with every operation a route it serves', async () => {
  for (const [name, base] of Object.entries(server.urls)) {
    const document = await documentOf(base);
    assert.equal(document.openapi, '3.1.0');
    assert.equal(document.info.title, `clobd ${name} API`);
    assert.ok(document.paths['/openapi.json']?.['get'], 'the document lists itself');
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations)) {
        assert.ok(['get', 'post', 'put', 'delete'].includes(method), `${method} ${path}`);
        const concrete = path.replace(/\{[^}]+\}/g, 'x');
        const response = await request(`${base}${concrete}`, { method: method.toUpperCase() });
        assert.notEqual(response.status, 405, `${method} ${path} is served`);
        assert.notEqual(response.text, '{"error":"not found"}', `${method} ${path} is a route of ${name}`);
      }
    }
  }
});

test('the operations carry parameters with bounds, credentials and rate-limit caps', async () => {
  const clob = await documentOf(server.urls.clob);
  const book = clob.paths['/book']!['get']!;
  assert.deepEqual(book.parameters.map((p) => [p.name, p.in]), [['token_id', 'query']]);
  assert.deepEqual(book['x-rate-limits'].map((cap) => cap.name).sort(), ['GET /book', 'trading']);
  const order = clob.paths['/order']!['post']!;
  assert.deepEqual(order.security, [{ l2: [] }]);
  assert.ok('401' in order.responses && '413' in order.responses);
  // The per-API-key caps its handler charges, one token per order, besides the address caps.
  assert.deepEqual(order['x-rate-limits'].filter((cap) => cap.scope === 'key'), [
    { name: 'POST /order burst', requests: 2400, windowSeconds: 10, scope: 'key' },
    { name: 'POST /order sustained', requests: 24000, windowSeconds: 600, scope: 'key' },
  ]);
  assert.deepEqual(clob.paths['/orders']!['delete']!['x-rate-limits'].filter((cap) => cap.scope === 'key').map((cap) => cap.name), ['DELETE /order burst', 'DELETE /order sustained']);
  assert.deepEqual(clob.paths['/admin/events']!['post']!.security, [{ admin: [] }]);
  assert.deepEqual(clob.paths['/auth/api-key']!['post']!.security, [{ l1: [] }]);
  assert.ok(clob.paths['/markets/{condition_id}']!['get']!.parameters.some((p) => p.name === 'condition_id' && p.in === 'path' && p.required));
  assert.deepEqual(Object.keys(clob.components.securitySchemes).sort(), ['admin', 'l1', 'l2']);
  const data = await documentOf(server.urls.data);
  const trades = data.paths['/trades']!['get']!;
  const limit = trades.parameters.find((p) => p.name === 'limit')!;
  assert.deepEqual([limit.schema['minimum'], limit.schema['maximum'], limit.schema['default']], [0, 10_000, 100]);
  assert.deepEqual(trades['x-rate-limits'], [{ name: 'GET /trades', requests: 150, windowSeconds: 10, scope: 'ip' }]);
  const catalog = await documentOf(server.urls.catalog);
  assert.deepEqual(catalog.paths['/events']!['get']!['x-rate-limits'].map((cap) => cap.name).sort(), ['GET /events', 'catalog', 'catalog listings']);
});

test('each document is valid OpenAPI 3.1, and Ajv compiles every response schema in strict mode', async () => {
  for (const [name, base] of Object.entries(server.urls)) {
    const document = await documentOf(base);
    const result = await new Validator().validate(document as unknown as Record<string, unknown>);
    assert.ok(result.valid, `${name}: ${JSON.stringify(result.errors, null, 1)?.slice(0, 2000)}`);
    // Compiles every schema of every response (the constructor does), strict: an unknown keyword,
    // a required property that is not defined or a type-less applicator throws.
    const validator = new ResponseValidator(document as unknown as ApiDocument);
    assert.ok(validator.responseObjects().length > 0);
  }
});

test('every operation documents its success body, and every shared schema is used', async () => {
  for (const [name, base] of Object.entries(server.urls)) {
    const document = await documentOf(base);
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
        assert.equal(success.length, 1, `${name}: ${method} ${path} has one success status`);
        const [, answer] = success[0]! as [string, { content?: Record<string, { schema?: unknown }> }];
        assert.ok(Object.values(answer.content ?? {}).every((media) => media.schema !== undefined) && answer.content !== undefined, `${name}: ${method} ${path} success has a body schema`);
        assert.doesNotMatch(JSON.stringify(operation.responses), /docs\/api\.md/, 'no placeholder bodies');
      }
    }
    const all = JSON.stringify(document);
    for (const schema of Object.keys(document.components.schemas)) {
      assert.ok(all.includes(`"#/components/schemas/${schema}"`), `${name}: ${schema} is referred to`);
    }
  }
});

test('shapes the interface fixes are closed: a field the document does not describe fails', async () => {
  const clob = await documentOf(server.urls.clob);
  const validator = new ResponseValidator(clob as unknown as ApiDocument);
  const answer = (body: unknown) => ({
    method: 'GET', url: `${server.urls.clob}/health`, status: 200, headers: new Headers({ 'content-type': 'application/json' }), text: JSON.stringify(body),
  });
  assert.deepEqual(validator.problems(answer({ status: 'ok' })), []);
  assert.equal(validator.problems(answer({ status: 'ok', extra: 1 })).length, 1);
  assert.equal(validator.problems({ ...answer({ status: 'ok' }), status: 418 }).length, 1, 'an undocumented status fails');
  assert.deepEqual(validator.problems({ ...answer({ error: 'not found' }), url: `${server.urls.clob}/no/such/route`, status: 404 }), [], 'an unknown path is RouteNotFound');
  assert.equal(validator.problems({ ...answer({ error: 'not found' }), url: `${server.urls.clob}/no/such/route`, status: 200 }).length, 1);
  assert.deepEqual(validator.problems({ ...answer({ error: 'method not allowed' }), method: 'PUT', status: 405, headers: new Headers({ 'content-type': 'application/json', allow: 'GET' }) }), []);
  assert.equal(validator.problems({ ...answer({ error: 'method not allowed' }), method: 'PUT', status: 405 }).length, 1, 'a 405 without Allow fails');
});

// GET /openapi.json on each listener: an OpenAPI 3.1 document made from the route table. Every
// operation it lists is a route the listener serves (never the 404/405 of an unknown route), and
// the routes a bot needs are there with their parameters, credentials, rate-limit caps and
// response schemas. The document is valid OpenAPI 3.1 by the specification's own schema, and
// every response and request schema compiles in Ajv's strict mode (the suite holds every answer,
// and every body the server took, to them).
import { Validator } from '@seriousme/openapi-schema-validator';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BATCH_TOKENS_MAX } from '../../http/market/book_routes.js';
import { BATCH_ORDERS_MAX } from '../../http/trading/order_request.js';
import { ResponseValidator, type ApiDocument } from '../support/api_document.js';
import { removeDataDir, request, startServer, type RunningServer } from '../support/server.js';

type Operation = {
  parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
  requestBody?: { required: boolean; content: Record<string, { schema?: Record<string, unknown> }> };
  'x-rate-limits': { name: string; requests: number; windowSeconds: number; scope: string; unit: string }[];
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
  // The per-account caps its handler charges, one token per order, besides the address caps.
  assert.deepEqual(order['x-rate-limits'].filter((cap) => cap.scope === 'account'), [
    { name: 'POST /order burst', requests: 2400, windowSeconds: 10, scope: 'account', unit: 'requests' },
    { name: 'POST /order sustained', requests: 24000, windowSeconds: 600, scope: 'account', unit: 'requests' },
  ]);
  assert.deepEqual(clob.paths['/orders']!['delete']!['x-rate-limits'].filter((cap) => cap.scope === 'account').map((cap) => cap.name), ['DELETE /order burst', 'DELETE /order sustained']);
  assert.deepEqual(clob.paths['/admin/events']!['post']!.security, [{ admin: [] }]);
  assert.deepEqual(clob.paths['/auth/api-key']!['post']!.security, [{ l1: [] }]);
  // Every credential route is capped per client address, the key routes' own cap among them; creation also by the hour.
  const keyCaps = (path: string, method: string) => clob.paths[path]![method]!['x-rate-limits'].filter((cap) => cap.scope === 'ip').map((cap) => cap.name);
  assert.deepEqual(keyCaps('/auth/api-key', 'post'), ['trading', 'account', 'API keys', 'POST /auth/api-key']);
  assert.deepEqual(clob.paths['/auth/api-key']!['post']!['x-rate-limits'].filter((cap) => ['API keys', 'POST /auth/api-key'].includes(cap.name)), [
    { name: 'API keys', requests: 100, windowSeconds: 10, scope: 'ip', unit: 'requests' },
    { name: 'POST /auth/api-key', requests: 1000, windowSeconds: 3600, scope: 'ip', unit: 'requests' },
  ]);
  for (const [path, method] of [['/auth/derive-api-key', 'get'], ['/auth/api-keys', 'get'], ['/auth/api-key', 'delete']] as const) {
    assert.deepEqual(keyCaps(path, method), ['trading', 'account', 'API keys'], `${method} ${path}`);
  }
  assert.deepEqual(clob.paths['/auth/api-key']!['delete']!.security, [{ l2: [] }]);
  assert.deepEqual((clob.paths['/auth/api-key']!['delete']!.responses['200'] as { content: unknown }).content, { 'application/json': { schema: { const: 'OK' } } });
  assert.ok(clob.paths['/markets/{condition_id}']!['get']!.parameters.some((p) => p.name === 'condition_id' && p.in === 'path' && p.required));
  assert.deepEqual(Object.keys(clob.components.securitySchemes).sort(), ['admin', 'l1', 'l2']);
  const data = await documentOf(server.urls.data);
  const trades = data.paths['/trades']!['get']!;
  const limit = trades.parameters.find((p) => p.name === 'limit')!;
  assert.deepEqual([limit.schema['minimum'], limit.schema['maximum'], limit.schema['default']], [0, 10_000, 100]);
  assert.deepEqual(trades['x-rate-limits'], [
    { name: 'data', requests: 1000, windowSeconds: 10, scope: 'ip', unit: 'requests' },
    { name: 'GET /trades', requests: 150, windowSeconds: 10, scope: 'ip', unit: 'requests' },
    // What a page and its offset may read, the client's share and everyone's.
    { name: 'rows read', requests: 20_000, windowSeconds: 10, scope: 'ip', unit: 'rows' },
    { name: 'rows read (all clients)', requests: 30_000, windowSeconds: 10, scope: 'all', unit: 'rows' },
  ]);
  const catalog = await documentOf(server.urls.catalog);
  assert.deepEqual(catalog.paths['/events']!['get']!['x-rate-limits'].map((cap) => cap.name).sort(), ['GET /events', 'catalog', 'catalog listings', 'catalog rows', 'catalog rows (all clients)']);
  // A catalog list is charged the rows it renders: an events page its events and the markets they nest.
  for (const path of ['/events', '/markets']) {
    assert.deepEqual(catalog.paths[path]!['get']!['x-rate-limits'].filter((cap) => cap.unit === 'rows'), [
      { name: 'catalog rows', requests: 50_000, windowSeconds: 10, scope: 'ip', unit: 'rows' },
      { name: 'catalog rows (all clients)', requests: 200_000, windowSeconds: 10, scope: 'all', unit: 'rows' },
    ], path);
  }
  // Gamma's list filters are documented with their bounds; the ones clobd cannot honour say so.
  const marketParameters = catalog.paths['/markets']!['get']!.parameters;
  for (const name of ['end_date_min', 'end_date_max', 'start_date_min', 'start_date_max', 'volume_num_min', 'volume_num_max', 'liquidity_num_min', 'liquidity_num_max', 'tag_id', 'related_tags']) {
    assert.ok(marketParameters.some((p) => p.name === name && p.in === 'query'), `GET /markets documents ${name}`);
  }
  assert.deepEqual(marketParameters.find((p) => p.name === 'volume_num_min')!.schema, { type: 'number', minimum: 0 });
  const eventParameters = catalog.paths['/events']!['get']!.parameters;
  for (const name of ['end_date_min', 'volume_min', 'liquidity_max', 'exclude_tag_id', 'featured', 'series_id', 'title_search']) {
    assert.ok(eventParameters.some((p) => p.name === name && p.in === 'query'), `GET /events documents ${name}`);
  }
});

// Fair share (issue 39): no route is uncapped. Each has a cap of its own per client address,
// besides its listener's combined one, and each that reads credentials (L1 or L2) a cap per
// account too, which every key of the account shares. A route added without them fails here.
test('every operation has a cap of its own per client address, and one per account where it authenticates', async () => {
  for (const [name, base] of Object.entries(server.urls)) {
    const document = await documentOf(base);
    const listenerCaps = new Set(document.paths['/openapi.json']!['get']!['x-rate-limits']
      .filter((cap) => !['service'].includes(cap.name)).map((cap) => cap.name));
    assert.ok(listenerCaps.size > 0, `${name} has a combined cap`);
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const caps = operation['x-rate-limits'];
        const own = caps.filter((cap) => cap.scope === 'ip' && !listenerCaps.has(cap.name));
        assert.ok(own.length > 0, `${name}: ${method.toUpperCase()} ${path} has a per-address cap of its own`);
        const credentials = (operation.security ?? []).flatMap((entry) => Object.keys(entry));
        if (credentials.includes('l1') || credentials.includes('l2')) {
          assert.ok(caps.some((cap) => cap.scope === 'account'), `${name}: ${method.toUpperCase()} ${path} has a per-account cap`);
        }
      }
    }
  }
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

test('every route that reads a body documents what it accepts: a non-empty request schema', async () => {
  const bodyRoutes: string[] = [];
  for (const [name, base] of Object.entries(server.urls)) {
    const document = await documentOf(base);
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (operation.requestBody === undefined) continue;
        bodyRoutes.push(`${method.toUpperCase()} ${path}`);
        const schema = operation.requestBody.content['application/json']?.schema;
        assert.ok(schema !== undefined && Object.keys(schema).length > 0, `${name}: ${method} ${path} has a request schema`);
      }
    }
  }
  for (const known of ['POST /order', 'POST /orders', 'DELETE /order', 'DELETE /orders', 'POST /books', 'POST /prices', 'POST /batch-prices-history', 'POST /admin/events', 'POST /admin/deposits', 'PUT /admin/profiles/{address}']) {
    assert.ok(bodyRoutes.includes(known), `${known} reads a body`);
  }
});

test('the request schemas take the bodies the routes take and refuse what they refuse', async () => {
  const clob = await documentOf(server.urls.clob);
  const validator = new ResponseValidator(clob as unknown as ApiDocument);
  const accepts = (method: string, path: string, body: unknown): boolean => {
    const operation = clob.paths[path]?.[method] as unknown as Parameters<ResponseValidator['requestProblems']>[1];
    assert.ok(operation !== undefined, `${method} ${path}`);
    return validator.requestProblems(`${method} ${path}`, operation, JSON.stringify(body)).length === 0;
  };
  const order = {
    salt: 1_234_567, maker: `0x${'a'.repeat(40)}`, signer: `0x${'a'.repeat(40)}`, tokenId: '12345678901234567890', makerAmount: '5000000', takerAmount: '10000000',
    side: 'BUY', signatureType: 0, expiration: '0', signature: `0x${'1b'.repeat(65)}`,
  };
  assert.ok(accepts('post', '/order', { order, owner: 'key', orderType: 'GTC', deferExec: false }), 'an order, salt as a number, an unknown field ignored');
  assert.ok(!accepts('post', '/order', { order: { ...order, side: 'buy' }, owner: 'key' }), 'side is BUY or SELL');
  assert.ok(!accepts('post', '/order', { order: { ...order, makerAmount: '0' }, owner: 'key' }), 'amounts are positive');
  assert.ok(!accepts('post', '/order', { order: { ...order, signature: '0x1b' }, owner: 'key' }), 'a signature is 65 bytes');
  assert.ok(!accepts('post', '/order', { order, owner: 'key', orderType: 'IOC' }), 'orderType is one of four');
  assert.ok(!accepts('post', '/orders', []), 'a batch has an order');
  assert.ok(accepts('post', '/orders', [{ order, owner: 'key' }, { order: 'bad' }]), 'a bad entry is answered in its place');
  assert.ok(!accepts('post', '/orders', Array.from({ length: BATCH_ORDERS_MAX + 1 }, () => ({ order, owner: 'key' }))), `at most ${BATCH_ORDERS_MAX} orders`);
  assert.ok(!accepts('delete', '/orders', ['x'.repeat(129)]), 'an order id has at most 128 characters');

  assert.ok(accepts('post', '/books', [{ token_id: '123' }, { token_id: '456', side: 'SELL' }]));
  assert.ok(!accepts('post', '/books', [{ token_id: '12 3' }]), 'a token id has no spaces');
  assert.ok(!accepts('post', '/books', { token_id: '123' }), 'the body is an array');
  assert.ok(!accepts('post', '/prices', Array.from({ length: BATCH_TOKENS_MAX + 1 }, () => ({ token_id: '1' }))), `at most ${BATCH_TOKENS_MAX} tokens`);
  assert.ok(accepts('post', '/batch-prices-history', { markets: ['1'], interval: '1d', fidelity: 60 }));
  assert.ok(!accepts('post', '/batch-prices-history', { markets: ['1'], interval: '1d', start_ts: 1 }), 'an interval with a start');

  const event = { title: 'Rain?', endDate: '2030-01-01T00:00:00Z', markets: [{ question: 'Rain tomorrow?', outcomes: '["Yes","No"]', orderPriceMinTickSize: 0.01 }] };
  assert.ok(accepts('post', '/admin/events', event));
  assert.ok(!accepts('post', '/admin/events', { ...event, markets: [] }), 'an event has a market');
  assert.ok(!accepts('post', '/admin/events', { ...event, markets: [{ question: 'Rain?', orderPriceMinTickSize: 0.02 }] }), 'a tick size is one of the allowed');
  assert.ok(accepts('put', '/admin/profiles/{address}', { bio: 'hello' }));
  assert.ok(!accepts('put', '/admin/profiles/{address}', { twitter: 'x' }), 'profile fields other than the four are refused');
  assert.ok(accepts('post', '/admin/deposits', { address: `0x${'b'.repeat(40)}`, amount: '1000000' }));
  assert.ok(!accepts('post', '/admin/deposits', { address: `0x${'b'.repeat(40)}`, amount: '0' }), 'an amount is positive');

  // The suite's check (api_document.ts): a body the server took is held to the request schema, a refused one is not.
  const books = { method: 'POST', url: `${server.urls.clob}/books`, headers: new Headers({ 'content-type': 'application/json' }), requestBody: '{"token_id":"1"}' };
  assert.equal(validator.problems({ ...books, status: 200, text: '[]' }).length, 1, 'a taken body the schema refuses fails');
  assert.deepEqual(validator.problems({ ...books, status: 200, text: '[]', requestBody: '[{"token_id":"1"}]' }), []);
  assert.deepEqual(validator.problems({ ...books, status: 400, text: '{"error":"body must be an array of {\\"token_id\\"} objects"}' }), [], 'a refused body is not checked');
});

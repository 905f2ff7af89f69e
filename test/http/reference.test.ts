// docs/reference/<listener>.md are the listeners' OpenAPI documents as Markdown: the committed
// pages must be what the code makes now (else `npm run docs`), and the renderer must show what a
// schema says (types, bounds, enums, nested fields, $ref into components.schemas).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { LISTENERS, referencePage, referencePages } from '../../http/reference.js';

const referenceDir = new URL('../../../docs/reference/', import.meta.url);

test('the committed reference pages are what the route tables make now', { timeout: 60_000 }, async () => {
  const pages = await referencePages();
  for (const name of LISTENERS) {
    let committed = '';
    try {
      committed = readFileSync(new URL(`${name}.md`, referenceDir), 'utf8');
    } catch {
      // Missing: reported as a difference below.
    }
    assert.ok(committed === pages[name], `docs/reference/${name}.md differs from the route table: run \`npm run docs\` and commit the result`);
  }
});

test('a page shows parameters, bodies, $ref schemas, errors, credentials and caps', () => {
  const page = referencePage({
    openapi: '3.1.0', info: { title: 'clobd test API', description: 'A test.' },
    paths: {
      '/things/{id}': {
        post: {
          summary: 'Make a thing.', security: [{ l2: [] }],
          parameters: [
            { name: 'id', in: 'path', required: true, description: 'thing id', schema: { type: 'string', maxLength: 100 } },
            { name: 'side', in: 'query', required: false, description: 'which side', schema: { type: 'array', items: { type: 'string', enum: ['BUY', 'SELL'] }, maxItems: 2 } },
            { name: 'limit', in: 'query', required: false, description: 'rows', schema: { type: 'integer', minimum: 0, maximum: 500, default: 100 } },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['size'], properties: { size: { type: 'string', pattern: '^[0-9]+$' } } } } } },
          responses: {
            200: { description: 'The thing.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            429: { description: 'Over a cap.', headers: { 'Retry-After': { schema: { type: 'integer' } } }, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
            400: { description: 'Invalid input.', content: { 'application/json': { schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } } } } },
          },
          'x-rate-limits': [{ name: 'POST /things', requests: 10, windowSeconds: 60, scope: 'account', unit: 'requests' }],
        },
      },
    },
    components: {
      securitySchemes: { l2: { type: 'apiKey', description: 'HMAC headers.' } },
      schemas: {
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
        NamedThing: { type: 'object', allOf: [{ $ref: '#/components/schemas/Thing' }], properties: { name: { type: 'string' } }, required: ['name'] },
        Thing: {
          type: 'object', required: ['id'],
          properties: {
            id: { type: 'string', description: 'its id' },
            owner: { type: ['string', 'null'] },
            parts: { type: 'array', items: { type: 'object', required: ['price'], properties: { price: { type: 'string' }, kind: { enum: ['a', 'b'] } } } },
            next: { $ref: '#/components/schemas/Thing' },
          },
        },
      },
    },
  });
  const has = (line: string) => assert.ok(page.includes(line), `missing:\n${line}\nin:\n${page}`);
  has('| POST | [`/things/{id}`](#post-thingsid) | Make a thing. |');
  has('### POST /things/{id}');
  has('**Credentials:** [L2](#credentials)');
  has('**Rate limits:** `POST /things` 10 requests per 60 s per account');
  has('| `id` | path | string | yes | ≤ 100 chars |  |  | thing id |');
  has('| `side` | query | array of string | no | ≤ 2 items |  | BUY, SELL | which side |');
  has('| `limit` | query | integer | no | 0–500 | 100 |  | rows |');
  has('| `size` | string | yes | matches `^[0-9]+$` |');
  has('Type: [Thing](#schema-thing).');
  has('| 400 | Invalid input. | { error: string } |');
  has('### Schema Thing');
  has('| `owner` | string or null | no |  |');
  has('| `parts[].price` | string | yes |  |');
  has('| `parts[].kind` | "a" or "b" | no |  |');
  has('| `next` | [Thing](#schema-thing) | no |  |');
  has('| 429 | Over a cap. Headers: Retry-After. | [Error](#schema-error) |');
  has('### Schema NamedThing\n\nType: all of [Thing](#schema-thing), with the fields listed.');
  has('| `name` | string | yes |  |');
});

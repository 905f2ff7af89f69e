// OpenAPI 3.1 documents made from the route tables themselves (GET /openapi.json on each
// listener), so the reference cannot drift from the code: every route's path, method, summary,
// parameters with their types, bounds, defaults and allowed values, request body, credentials,
// error answers, and its rate-limit caps (x-rate-limits). Response bodies are described by the
// error schema for errors; success bodies are documented in docs/api.md.
import type { Cap } from './rate_limit.js';
import { L2_HEADER_NAMES } from './auth/l2.js';
import type { ParamDoc, ParamSchema } from './params.js';
import type { Route } from './router.js';

const ERROR_SCHEMA = { type: 'object', required: ['error'], properties: { error: { type: 'string' } } };
const CATALOG_ERROR_SCHEMA = { type: 'object', required: ['type', 'error'], properties: { type: { type: 'string' }, error: { type: 'string' } } };

function schemaOf(doc: ParamDoc): Record<string, unknown> {
  const scalar: Record<string, unknown> = { type: doc.type };
  if (doc.min !== undefined) scalar['minimum'] = doc.min;
  if (doc.max !== undefined) scalar['maximum'] = doc.max;
  if (doc.maxLength !== undefined) scalar['maxLength'] = doc.maxLength;
  if (doc.values !== undefined) scalar['enum'] = [...doc.values];
  if (doc.default !== undefined) scalar['default'] = doc.default;
  if (!doc.list) return scalar;
  return { type: 'array', items: scalar, ...(doc.maxItems === undefined ? {} : { maxItems: doc.maxItems }) };
}

function parameters(schema: ParamSchema, where: 'path' | 'query'): Record<string, unknown>[] {
  return Object.entries(schema).map(([name, param]) => ({
    name, in: where, required: where === 'path' || param.doc.required, description: param.doc.description, schema: schemaOf(param.doc),
    ...(param.doc.list ? { style: 'form', explode: false } : {}),
  }));
}

/** `/markets/:condition_id` → `/markets/{condition_id}`. */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function security(route: Route): Record<string, string[]>[] | undefined {
  if (route.headers.includes('authorization')) return [{ admin: [] }];
  // L1 is told by its nonce header (its other names are L2's too).
  if (route.headers.some((header) => header.endsWith('nonce'))) return [{ l1: [] }];
  if (route.headers.some((header) => L2_HEADER_NAMES.includes(header))) return [{ l2: [] }];
  return undefined;
}

export interface OpenApiInput {
  readonly title: string;
  readonly listener: string;
  readonly routes: readonly Route[];
  readonly style: 'catalog' | 'clob';
  /** Caps every route of the listener is charged to. */
  readonly listenerCaps: readonly string[];
  readonly caps: readonly Cap[];
}

export function openApiDocument(input: OpenApiInput): Record<string, unknown> {
  const errorBody = { content: { 'application/json': { schema: input.style === 'catalog' ? CATALOG_ERROR_SCHEMA : ERROR_SCHEMA } } };
  const paths: Record<string, Record<string, unknown>> = {};
  const capsByName = new Map(input.caps.map((cap) => [cap.name, cap]));
  for (const route of input.routes) {
    const path = openApiPath(route.path);
    const operation: Record<string, unknown> = {
      summary: route.summary, operationId: `${route.method.toLowerCase()} ${route.path}`,
      parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
      responses: {
        200: { description: 'Success (body: see docs/api.md).' },
        400: { description: route.unknownQuery === 'reject' ? 'Invalid input; a query parameter not listed here is unknown_field.' : 'Invalid input.', ...errorBody },
        429: { description: 'Over a rate-limit cap; Retry-After says when to come back.', ...errorBody },
        500: { description: 'Unexpected failure; the server keeps serving.', ...errorBody },
        503: { description: 'A matching worker is busy or restarting, or the server is shutting down; Retry-After.', ...errorBody },
      },
      'x-rate-limits': [...input.listenerCaps, ...route.limits].flatMap((name) => {
        const cap = capsByName.get(name);
        return cap === undefined ? [] : [{ name, requests: cap.requests, windowSeconds: cap.windowS, scope: cap.scope }];
      }),
    };
    const secured = security(route);
    if (secured !== undefined) {
      operation['security'] = secured;
      (operation['responses'] as Record<string, unknown>)[401] = { description: 'Missing or bad credentials.', ...errorBody };
    }
    if (route.body !== undefined) {
      operation['requestBody'] = { required: route.body === 'json', content: { 'application/json': { schema: {} } } };
      (operation['responses'] as Record<string, unknown>)[413] = { description: 'Body over 1 MiB.', ...errorBody };
    }
    if (route.path.includes(':')) (operation['responses'] as Record<string, unknown>)[404] = { description: 'Not found.', ...errorBody };
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: { title: input.title, version: '0.1.0', description: `The ${input.listener} listener of clobd. Units, errors and success bodies: docs/api.md.` },
    paths,
    components: {
      securitySchemes: {
        l2: { type: 'apiKey', in: 'header', name: 'POLY-API-KEY', description: 'L2: POLY-/SERVICE- ADDRESS, API-KEY, PASSPHRASE, TIMESTAMP and SIGNATURE (HMAC-SHA256 of timestamp + method + path + body with the secret).' },
        l1: { type: 'apiKey', in: 'header', name: 'POLY-SIGNATURE', description: 'L1: POLY-/SERVICE- ADDRESS, SIGNATURE (EIP-712 ClobAuth), TIMESTAMP and NONCE.' },
        admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN.' },
      },
    },
  };
}

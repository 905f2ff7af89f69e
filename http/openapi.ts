// OpenAPI 3.1 documents made from the route tables themselves (GET /openapi.json on each
// listener), so the reference cannot drift from the code: every route's path, method, summary,
// parameters with their types, bounds, defaults and allowed values, request body and its schema
// (request_schemas.ts), credentials, every answer with its status, body schema
// (response_schemas.ts, shared through components.schemas), content type and headers, and its
// rate-limit caps (x-rate-limits).
// Answers that belong to no operation (an unknown path, a known path with the wrong method) are
// components.responses RouteNotFound and MethodNotAllowed.
import type { Cap } from './rate_limit.js';
import { L2_HEADER_NAMES } from './auth/l2.js';
import type { ParamDoc, ParamSchema } from './params.js';
import { componentSchemas } from './request_schemas.js';
import { ref, referencedSchemas, type ResponseDoc } from './response_schemas.js';
import type { Route } from './router.js';

const JSON_TYPE = 'application/json';
const retryAfter = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };
const HEADERS = {
  RetryAfter: { description: 'Seconds to wait before trying again.', required: true, schema: { type: 'integer', minimum: 0 } },
  Allow: { description: 'The methods the path has.', required: true, schema: { type: 'string' } },
  NextCursor: { description: "clobd's own: the cursor of the next page (pass it as `cursor` with the same filters); absent on the last page.", required: false, schema: { type: 'string' } },
};
const headerRefs: Readonly<Record<string, Record<string, unknown>>> = {
  'retry-after': retryAfter, 'x-next-cursor': { 'X-Next-Cursor': { $ref: '#/components/headers/NextCursor' } },
};

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

/** The generic answers of a route: what the router, the error catalogue and the lifecycle give any route like it. */
function genericResponses(route: Route, secured: boolean): Record<number, ResponseDoc> {
  const generic: Record<number, ResponseDoc> = {
    400: { description: route.unknownQuery === 'reject' ? 'Invalid input; a query parameter not listed here is unknown_field.' : 'Invalid input.' },
    429: { description: 'Over a rate-limit cap; Retry-After says when to come back.', headers: ['retry-after'] },
    500: { description: 'Unexpected failure; the server keeps serving.' },
    503: { description: 'A matching worker is busy or restarting, or the server is shutting down; Retry-After.', headers: ['retry-after'] },
  };
  if (secured) generic[401] = { description: 'Missing or bad credentials.' };
  if (route.headers.includes('authorization')) generic[403] = { description: 'The admin API is disabled (no ADMIN_TOKEN).' };
  if (route.path.includes(':')) generic[404] = { description: 'Not found.' };
  if (route.body !== undefined) {
    generic[408] = { description: 'The body did not arrive in full in time; the connection is closed.' };
    generic[413] = { description: 'Body over 1 MiB; the connection is closed.' };
  }
  return generic;
}

/** The error body of a listener: the catalog answers 400 and 404 as {type, error}, everything else {error}. */
function errorSchema(style: 'catalog' | 'clob', status: number): Record<string, unknown> {
  return style === 'catalog' && (status === 400 || status === 404) ? ref('CatalogError') : ref('Error');
}

function responseObject(answer: ResponseDoc, status: number, style: 'catalog' | 'clob'): Record<string, unknown> {
  const schema = answer.schema ?? errorSchema(style, status);
  const headers = Object.assign({}, ...(answer.headers ?? []).map((name) => headerRefs[name] ?? {}));
  return {
    description: answer.description,
    ...(answer.headers === undefined ? {} : { headers }),
    content: { [answer.contentType ?? JSON_TYPE]: { schema } },
  };
}

export function openApiDocument(input: OpenApiInput): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const capsByName = new Map(input.caps.map((cap) => [cap.name, cap]));
  for (const route of input.routes) {
    const path = openApiPath(route.path);
    const secured = security(route);
    const answers = { ...genericResponses(route, secured !== undefined), ...route.response };
    const responses = Object.fromEntries(Object.entries(answers).map(([status, answer]) => [status, responseObject(answer, Number(status), input.style)]));
    const operation: Record<string, unknown> = {
      summary: route.summary, operationId: `${route.method.toLowerCase()} ${route.path}`,
      parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
      responses,
      'x-rate-limits': [
        ...[...input.listenerCaps, ...route.limits, ...route.keyLimits, ...route.accountLimits].map((name) => [name, 'requests'] as const),
        ...route.costLimits.map((name) => [name, 'rows'] as const),
      ].flatMap(([name, unit]) => {
        const cap = capsByName.get(name);
        return cap === undefined ? [] : [{ name, requests: cap.requests, windowSeconds: cap.windowS, scope: cap.scope, unit }];
      }),
    };
    if (secured !== undefined) operation['security'] = secured;
    if (route.body !== undefined) operation['requestBody'] = { required: route.body === 'json', content: { [JSON_TYPE]: { schema: route.request } } };
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  const unrouted = {
    RouteNotFound: { description: 'No route has this path.', content: { [JSON_TYPE]: { schema: { type: 'object', properties: { error: { const: 'not found' } }, required: ['error'], additionalProperties: false } } } },
    MethodNotAllowed: {
      description: 'The path has routes, none with this method.', headers: { Allow: { $ref: '#/components/headers/Allow' } },
      content: { [JSON_TYPE]: { schema: { type: 'object', properties: { error: { const: 'method not allowed' } }, required: ['error'], additionalProperties: false } } },
    },
  };
  const used = [...referencedSchemas([paths, unrouted], componentSchemas)].sort();
  return {
    openapi: '3.1.0',
    info: { title: input.title, version: '0.1.0', description: `The ${input.listener} listener of clobd. Units and conventions: docs/api.md.` },
    paths,
    components: {
      schemas: Object.fromEntries(used.map((name) => [name, componentSchemas[name]])),
      responses: unrouted,
      headers: HEADERS,
      securitySchemes: {
        l2: { type: 'apiKey', in: 'header', name: 'POLY-API-KEY', description: 'L2: POLY-/SERVICE- ADDRESS, API-KEY, PASSPHRASE, TIMESTAMP and SIGNATURE (HMAC-SHA256 of timestamp + method + path + body with the secret).' },
        l1: { type: 'apiKey', in: 'header', name: 'POLY-SIGNATURE', description: 'L1: POLY-/SERVICE- ADDRESS, SIGNATURE (EIP-712 ClobAuth), TIMESTAMP and NONCE.' },
        admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN.' },
      },
    },
  };
}

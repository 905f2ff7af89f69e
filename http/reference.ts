// The human reference (docs/reference/<listener>.md): each listener's OpenAPI document, the one
// GET /openapi.json serves, rendered as Markdown, so the pages say what the route tables say.
// Schemas are rendered generically (types, bounds, enums, $ref into components.schemas), so a
// schema added to a route shows up in its page on the next `npm run docs`. The pages are made
// from a real server started on free ports over an empty DATA_DIR with a fixed configuration
// (default caps, admin on), never from this process's environment, so they are reproducible.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config.js';
import { createLogger } from './log.js';
import { startServer, type ListenerName } from './server.js';

type Json = Record<string, unknown>;

export const LISTENERS: readonly ListenerName[] = ['clob', 'catalog', 'data'];
/** Nested inline objects are flattened into dotted rows this deep; deeper ones read "object". */
const FIELD_DEPTH_MAX = 6;
const METHODS = ['get', 'post', 'put', 'delete'];

function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
}

/** A table cell: no line breaks, pipes escaped. */
function cell(value: string): string {
  return value.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)];
}

/** GitHub's heading anchor: lower case, punctuation other than - and _ dropped, spaces to -. */
function slug(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

function schemaHeading(name: string): string {
  return `Schema ${name}`;
}

function isInlineObject(schema: Json): boolean {
  return schema['$ref'] === undefined && Object.keys(record(schema['properties'])).length > 0;
}

/** A schema as a short type: `integer`, `string or null`, `array of [Order](#schema-order)`, `"BUY" or "SELL"`. */
export function typeOf(schema: Json): string {
  if (typeof schema['$ref'] === 'string') return `[${refName(schema['$ref'])}](#${slug(schemaHeading(refName(schema['$ref'])))})`;
  if ('const' in schema) return JSON.stringify(schema['const']);
  if (Array.isArray(schema['enum'])) return schema['enum'].map((value) => JSON.stringify(value)).join(' or ');
  for (const key of ['oneOf', 'anyOf']) {
    if (Array.isArray(schema[key])) return schema[key].map((option) => typeOf(record(option))).join(' or ');
  }
  if (Array.isArray(schema['allOf'])) {
    const parts = `all of ${schema['allOf'].map((part) => typeOf(record(part))).join(' and ')}`;
    return isInlineObject(schema) ? `${parts}, with the fields listed` : parts;
  }
  const types = Array.isArray(schema['type']) ? schema['type'].map(text) : schema['type'] === undefined ? [] : [text(schema['type'])];
  const named = types.map((type) => {
    if (type === 'array') return `array of ${typeOf(record(schema['items']))}`;
    if (type === 'object' && schema['properties'] === undefined && typeof schema['additionalProperties'] === 'object') {
      return `map of ${typeOf(record(schema['additionalProperties']))}`;
    }
    return typeof schema['format'] === 'string' ? `${type} (${schema['format']})` : type;
  });
  return named.length === 0 ? 'any' : named.join(' or ');
}

/** Bounds and patterns of a schema (and of an array's items), in words. */
export function boundsOf(schema: Json): string {
  const parts: string[] = [];
  const range = (low: unknown, high: unknown, unit: string): void => {
    if (low !== undefined && high !== undefined) parts.push(`${text(low)}–${text(high)}${unit}`);
    else if (low !== undefined) parts.push(`≥ ${text(low)}${unit}`);
    else if (high !== undefined) parts.push(`≤ ${text(high)}${unit}`);
  };
  range(schema['minimum'], schema['maximum'], '');
  if (schema['exclusiveMinimum'] !== undefined) parts.push(`> ${text(schema['exclusiveMinimum'])}`);
  if (schema['exclusiveMaximum'] !== undefined) parts.push(`< ${text(schema['exclusiveMaximum'])}`);
  range(schema['minLength'], schema['maxLength'], ' chars');
  range(schema['minItems'], schema['maxItems'], ' items');
  if (typeof schema['pattern'] === 'string') parts.push(`matches \`${schema['pattern']}\``);
  const items = record(schema['items']);
  if (Object.keys(items).length > 0 && boundsOf(items) !== '') parts.push(`each ${boundsOf(items)}`);
  // The bounds of each alternative that has some (a uint256 as text or as a number).
  for (const option of list(schema['anyOf']).map(record)) {
    if (boundsOf(option) !== '') parts.push(`${typeOf(option)}: ${boundsOf(option)}`);
  }
  return parts.join(', ');
}


/** One row per field of an object schema, nested inline objects (and arrays of them) flattened. */
function fieldRows(schema: Json, prefix: string, depth: number, rows: string[][]): void {
  const required = new Set(list(schema['required']).map(text));
  for (const [name, value] of Object.entries(record(schema['properties']))) {
    const field = record(value);
    const path = `${prefix}${name}`;
    const items = record(field['items']);
    const details = [text(field['description']), boundsOf(field), field['default'] === undefined ? '' : `default ${JSON.stringify(field['default'])}`];
    rows.push([`\`${path}\``, typeOf(field), required.has(name) ? 'yes' : 'no', details.filter((part) => part !== '').join('; ')]);
    if (depth >= FIELD_DEPTH_MAX) continue;
    if (isInlineObject(field)) fieldRows(field, `${path}.`, depth + 1, rows);
    else if (isInlineObject(items)) fieldRows(items, `${path}[].`, depth + 1, rows);
  }
}

/** A body: its type, then a field table when it is (an array of) an inline object. */
function bodyLines(schema: Json): string[] {
  const bounds = boundsOf(schema);
  const lines = [`Type: ${typeOf(schema)}${bounds === '' ? '' : ` (${bounds})`}.${schema['description'] === undefined ? '' : ` ${text(schema['description'])}`}`];
  const object = isInlineObject(schema) ? schema : isInlineObject(record(schema['items'])) ? record(schema['items']) : undefined;
  if (object === undefined) return lines;
  const rows: string[][] = [];
  fieldRows(object, object === schema ? '' : '[].', 0, rows);
  return [...lines, '', ...table(['field', 'type', 'required', 'notes'], rows)];
}

/** The JSON schema of a request or response, if it declares a non-empty one. */
function contentSchema(entry: Json): Json | undefined {
  for (const media of Object.values(record(entry['content']))) {
    const schema = record(record(media)['schema']);
    if (Object.keys(schema).length > 0) return schema;
  }
  return undefined;
}

function parameterRows(operation: Json): string[][] {
  return list(operation['parameters']).map((value) => {
    const parameter = record(value);
    const schema = record(parameter['schema']);
    const items = record(schema['items']);
    const allowed = items['enum'] ?? schema['enum'];
    // The allowed values have their own column; the type says what they are.
    const bare = schema['items'] === undefined ? { ...schema, enum: undefined } : { ...schema, items: { ...items, enum: undefined } };
    return [
      `\`${text(parameter['name'])}\``, text(parameter['in']), typeOf(bare),
      parameter['required'] === true ? 'yes' : 'no', boundsOf(schema),
      schema['default'] === undefined ? '' : JSON.stringify(schema['default']),
      Array.isArray(allowed) ? allowed.map(text).join(', ') : '', text(parameter['description']),
    ];
  });
}

function operationLines(method: string, path: string, operation: Json): string[] {
  const lines = [`### ${method.toUpperCase()} ${path}`, '', text(operation['summary']), ''];
  const security = list(operation['security']).flatMap((entry) => Object.keys(record(entry)));
  lines.push(`**Credentials:** ${security.length === 0 ? 'none' : security.map((name) => `[${name.toUpperCase()}](#credentials)`).join(' or ')}`, '');
  const caps = list(operation['x-rate-limits']).map((value) => {
    const cap = record(value);
    const scope = text(cap['scope']);
    const whose = scope === 'account' ? 'account' : scope === 'all' ? 'all clients together' : scope === 'socket' ? 'WebSocket' : 'client address';
    return `\`${text(cap['name'])}\` ${text(cap['requests'])} ${text(cap['unit'])} per ${text(cap['windowSeconds'])} s per ${whose}`;
  });
  lines.push(`**Rate limits:** ${caps.length === 0 ? 'none' : caps.join('; ')}`, '');
  const parameters = parameterRows(operation);
  if (parameters.length > 0) {
    lines.push('**Parameters**', '', ...table(['name', 'in', 'type', 'required', 'bounds', 'default', 'allowed', 'description'], parameters), '');
  }
  const requestBody = record(operation['requestBody']);
  if (Object.keys(requestBody).length > 0) {
    const schema = contentSchema(requestBody);
    lines.push(`**Request body** (JSON, ${requestBody['required'] === true ? 'required' : 'optional'})${schema === undefined ? ': see [docs/api.md](../api.md).' : ''}`, '');
    if (schema !== undefined) lines.push(...bodyLines(schema), '');
  }
  const responses = Object.entries(record(operation['responses'])).sort(([a], [b]) => a.localeCompare(b));
  for (const [status, value] of responses.filter(([code]) => code.startsWith('2'))) {
    const schema = contentSchema(record(value));
    lines.push(`**Response ${status}:** ${describeResponse(record(value))}`, '');
    if (schema !== undefined) lines.push(...bodyLines(schema), '');
  }
  const errors = responses.filter(([code]) => !code.startsWith('2')).map(([status, value]) => {
    const schema = contentSchema(record(value));
    return [status, describeResponse(record(value)), schema === undefined ? '' : compactType(schema)];
  });
  if (errors.length > 0) lines.push('**Errors**', '', ...table(['status', 'when', 'body'], errors), '');
  return lines;
}

/** A response's description and the headers it sets. */
function describeResponse(response: Json): string {
  const headers = Object.keys(record(response['headers']));
  return `${text(response['description'])}${headers.length === 0 ? '' : ` Headers: ${headers.join(', ')}.`}`;
}

/** A small object schema written out (`{ error: string }`); larger ones as their type. */
function compactType(schema: Json): string {
  const properties = Object.entries(record(schema['properties']));
  if (schema['$ref'] !== undefined || properties.length === 0 || properties.length > 4) return typeOf(schema);
  const required = new Set(list(schema['required']).map(text));
  return `{ ${properties.map(([name, value]) => `${name}${required.has(name) ? '' : '?'}: ${typeOf(record(value))}`).join(', ')} }`;
}

function schemaLines(name: string, schema: Json): string[] {
  return [`### ${schemaHeading(name)}`, '', ...bodyLines(schema), ''];
}

/** The security schemes the page's operations use. */
function credentialLines(schemes: Json, operations: readonly [string, string, Json][]): string[] {
  const used = new Set(operations.flatMap(([, , operation]) => list(operation['security']).flatMap((entry) => Object.keys(record(entry)))));
  const rows = Object.entries(schemes).filter(([name]) => used.has(name)).map(([name, scheme]) => [name.toUpperCase(), text(record(scheme)['description'])]);
  return rows.length === 0 ? ['None: every operation here is public.', ''] : [...table(['scheme', 'how'], rows), ''];
}

/** The Markdown page of one listener's OpenAPI document. */
export function referencePage(document: Json): string {
  const info = record(document['info']);
  const components = record(document['components']);
  const schemes = record(components['securitySchemes']);
  const operations: [string, string, Json][] = [];
  for (const [path, methods] of Object.entries(record(document['paths']))) {
    for (const method of METHODS) if (record(methods)[method] !== undefined) operations.push([method, path, record(record(methods)[method])]);
  }
  const lines = [
    `# ${text(info['title'])} reference`, '',
    '<!-- Generated by `npm run docs` (http/reference.ts) from the route table; do not edit by hand. -->', '',
    `${text(info['description'])} This page is the listener's GET /openapi.json (OpenAPI ${text(document['openapi'])}) as text,`,
    'with the default rate-limit caps; [docs/api.md](../api.md) explains units, errors and behaviour.', '',
    '## Credentials', '',
    ...credentialLines(schemes, operations),
    '## Operations', '',
    ...table(['method', 'path', 'summary'], operations.map(([method, path, operation]) => [
      method.toUpperCase(), `[\`${path}\`](#${slug(`${method} ${path}`)})`, text(operation['summary']),
    ])), '',
  ];
  for (const [method, path, operation] of operations) lines.push(...operationLines(method, path, operation));
  const schemas = Object.entries(record(components['schemas'])).sort(([a], [b]) => a.localeCompare(b));
  if (schemas.length > 0) {
    lines.push('## Schemas', '');
    for (const [name, schema] of schemas) lines.push(...schemaLines(name, record(schema)));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/**
 * Every listener's page, from the OpenAPI documents of a real server started on free ports with
 * a temporary DATA_DIR and a fixed configuration (the default caps, admin routes on, metrics on).
 */
export async function referencePages(): Promise<Record<ListenerName, string>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clobd-reference-'));
  try {
    const config = loadConfig({
      PORT: '0', CATALOG_PORT: '0', DATA_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SEED_DEMO: '0', SHARDS: '1', VERIFY_THREADS: '0',
      LOG_LEVEL: 'silent', ADMIN_TOKEN: 'reference', METRICS: 'on',
    }, new Map());
    const server = await startServer(config, createLogger(config.logLevel));
    try {
      const pages: Partial<Record<ListenerName, string>> = {};
      for (const name of LISTENERS) {
        const response = await fetch(`${server.urls[name]}/openapi.json`);
        if (response.status !== 200) throw new Error(`${name}: GET /openapi.json answered ${response.status}`);
        pages[name] = referencePage(record(await response.json()));
      }
      return pages as Record<ListenerName, string>;
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Writes docs/reference/<listener>.md into `directory`. */
export async function writeReference(directory: string): Promise<string[]> {
  const pages = await referencePages();
  mkdirSync(directory, { recursive: true });
  return LISTENERS.map((name) => {
    const path = join(directory, `${name}.md`);
    writeFileSync(path, pages[name]);
    return path;
  });
}

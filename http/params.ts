// Parameter schemas for query strings and path segments. A schema is data (its `doc` feeds the
// API reference) plus a parser compiled once at boot; handlers receive typed, validated values.
// Every failure is a 400 whose message names the parameter and what it accepts.
import { badRequest } from './errors.js';

export interface ParamDoc {
  readonly type: 'integer' | 'number' | 'boolean' | 'string';
  readonly list: boolean;
  readonly required: boolean;
  readonly min?: number;
  readonly max?: number;
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly values?: readonly string[];
  readonly default?: number | boolean | string;
  readonly description: string;
}

export interface Param<T> {
  readonly doc: ParamDoc;
  /** `values` holds every occurrence of the parameter, in order; undefined when absent. */
  parse(values: readonly string[] | undefined, name: string): T;
}

export type ParamSchema = Readonly<Record<string, Param<unknown>>>;
export type ParamsOf<S extends ParamSchema> = { readonly [K in keyof S]: S[K] extends Param<infer T> ? T : never };

const stringLengthDefault = 256;

function single(values: readonly string[], name: string): string {
  if (values.length > 1) throw badRequest(`duplicate parameter: ${name}`);
  return values[0] ?? '';
}

function scalar<T>(doc: ParamDoc, fallback: T, read: (raw: string, name: string) => T): Param<T> {
  return {
    doc,
    parse(values, name) {
      if (values === undefined) {
        if (doc.required) throw badRequest(`${name} is required`);
        return fallback;
      }
      return read(single(values, name), name);
    },
  };
}

interface IntegerOptions {
  readonly min: number;
  readonly max?: number;
  readonly description: string;
}

function readInteger(options: IntegerOptions) {
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const range = options.max === undefined ? `>= ${options.min}` : `from ${options.min} to ${max}`;
  return (raw: string, name: string): number => {
    if (!/^-?\d{1,16}$/.test(raw)) throw badRequest(`${name} must be an integer ${range}`);
    const value = Number(raw);
    if (value < options.min || value > max) throw badRequest(`${name} must be an integer ${range}`);
    return value;
  };
}

export function integer(options: IntegerOptions & { readonly default: number }): Param<number>;
export function integer(options: IntegerOptions & { readonly required: true }): Param<number>;
export function integer(options: IntegerOptions): Param<number | undefined>;
export function integer(options: IntegerOptions & { readonly default?: number; readonly required?: boolean }): Param<number | undefined> {
  const doc: ParamDoc = {
    type: 'integer',
    list: false,
    required: options.required === true,
    min: options.min,
    ...(options.max === undefined ? {} : { max: options.max }),
    ...(options.default === undefined ? {} : { default: options.default }),
    description: options.description,
  };
  return scalar(doc, options.default, readInteger(options));
}

interface NumberOptions {
  readonly min: number;
  readonly max?: number;
  readonly description: string;
}

/** A non-integer number such as a threshold amount; parsed from its decimal text. */
export function number(options: NumberOptions): Param<number | undefined> {
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const doc: ParamDoc = { type: 'number', list: false, required: false, min: options.min, max, description: options.description };
  return scalar(doc, undefined, (raw, name) => {
    if (!/^-?\d{1,16}(\.\d{1,12})?$/.test(raw)) throw badRequest(`${name} must be a number from ${options.min} to ${max}`);
    const value = Number(raw);
    if (value < options.min || value > max) throw badRequest(`${name} must be a number from ${options.min} to ${max}`);
    return value;
  });
}

const truths = new Set(['true', '1']);
const falsities = new Set(['false', '0']);

function readBoolean(raw: string, name: string): boolean {
  const lower = raw.toLowerCase();
  if (truths.has(lower)) return true;
  if (falsities.has(lower)) return false;
  throw badRequest(`${name} must be true or false`);
}

export function boolean(options: { readonly default: boolean; readonly description: string }): Param<boolean>;
export function boolean(options: { readonly description: string }): Param<boolean | undefined>;
export function boolean(options: { readonly default?: boolean; readonly description: string }): Param<boolean | undefined> {
  const doc: ParamDoc = {
    type: 'boolean',
    list: false,
    required: false,
    ...(options.default === undefined ? {} : { default: options.default }),
    description: options.description,
  };
  return scalar(doc, options.default, readBoolean);
}

interface StringOptions {
  readonly maxLength?: number;
  readonly description: string;
}

function readString(maxLength: number) {
  return (raw: string, name: string): string => {
    if (raw.length > maxLength) throw badRequest(`${name} must be at most ${maxLength} characters`);
    return raw;
  };
}

export function string(options: StringOptions & { readonly required: true }): Param<string>;
export function string(options: StringOptions): Param<string | undefined>;
export function string(options: StringOptions & { readonly required?: boolean }): Param<string | undefined> {
  const maxLength = options.maxLength ?? stringLengthDefault;
  const doc: ParamDoc = { type: 'string', list: false, required: options.required === true, maxLength, description: options.description };
  return scalar(doc, undefined, readString(maxLength));
}

export function oneOf<const V extends string>(options: {
  readonly values: readonly V[];
  readonly description: string;
}): Param<V | undefined> {
  const doc: ParamDoc = { type: 'string', list: false, required: false, values: options.values, description: options.description };
  return scalar<V | undefined>(doc, undefined, (raw, name) => {
    const found = options.values.find((value) => value === raw);
    if (found === undefined) throw badRequest(`${name} must be one of ${options.values.join(', ')}`);
    return found;
  });
}

/**
 * A list given as repeated parameters, comma-separated values, or both (Gamma accepts both).
 * Empty items are ignored; an absent parameter is the empty list.
 */
export function stringList(options: { readonly maxItems: number; readonly maxLength?: number; readonly description: string }): Param<readonly string[]> {
  const maxLength = options.maxLength ?? stringLengthDefault;
  const doc: ParamDoc = { type: 'string', list: true, required: false, maxItems: options.maxItems, maxLength, description: options.description };
  return {
    doc,
    parse(values, name) {
      if (values === undefined) return [];
      const items: string[] = [];
      for (const value of values) {
        for (const item of value.split(',')) {
          const trimmed = item.trim();
          if (trimmed === '') continue;
          if (trimmed.length > maxLength) throw badRequest(`${name} items must be at most ${maxLength} characters`);
          items.push(trimmed);
          if (items.length > options.maxItems) throw badRequest(`${name} accepts at most ${options.maxItems} values`);
        }
      }
      return items;
    },
  };
}

/** Decodes one query component as application/x-www-form-urlencoded does ('+' is a space). */
function decodeComponent(raw: string): string {
  if (raw.indexOf('%') === -1 && raw.indexOf('+') === -1) return raw;
  const spaced = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // URLSearchParams keeps malformed escapes as they are and decodes the valid runs around them.
    return spaced.replace(/(%[0-9a-fA-F]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/**
 * Parses a raw query string into every occurrence of each name, as URLSearchParams would, without
 * its allocations: most queries are a few plain name=value pairs.
 */
export function parseQuery(raw: string | undefined): Map<string, string[]> {
  const query = new Map<string, string[]>();
  if (raw === undefined || raw === '') return query;
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    if (end > start) {
      const equals = raw.indexOf('=', start);
      const split = equals === -1 || equals > end ? end : equals;
      const name = decodeComponent(raw.slice(start, split));
      const value = split === end ? '' : decodeComponent(raw.slice(split + 1, end));
      const values = query.get(name);
      if (values === undefined) query.set(name, [value]);
      else values.push(value);
    }
    start = end + 1;
  }
  return query;
}

/** Applies a schema to parsed query values; names outside the schema are ignored (as Gamma does). */
export function applySchema<S extends ParamSchema>(schema: S, names: readonly string[], read: (name: string) => readonly string[] | undefined): ParamsOf<S> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const param = schema[name];
    if (param !== undefined) out[name] = param.parse(read(name), name);
  }
  return out as ParamsOf<S>;
}

/** A comma-separated list drawn from fixed values, such as sort columns. */
export function oneOfList<const V extends string>(options: {
  readonly values: readonly V[];
  readonly maxItems: number;
  readonly description: string;
}): Param<readonly V[]> {
  const items = stringList({ maxItems: options.maxItems, maxLength: 64, description: options.description });
  const doc: ParamDoc = { ...items.doc, values: options.values };
  return {
    doc,
    parse(values, name) {
      return items.parse(values, name).map((item) => {
        const found = options.values.find((value) => value === item);
        if (found === undefined) throw badRequest(`${name} must be one of ${options.values.join(', ')}`);
        return found;
      });
    },
  };
}

/** A list of integer ids, given like `stringList`. */
export function integerList(options: { readonly min: number; readonly maxItems: number; readonly description: string }): Param<readonly number[]> {
  const items = stringList({ maxItems: options.maxItems, maxLength: 16, description: options.description });
  const readItem = readInteger({ min: options.min, description: options.description });
  const doc: ParamDoc = { ...items.doc, type: 'integer', min: options.min };
  return { doc, parse: (values, name) => items.parse(values, name).map((item) => readItem(item, name)) };
}

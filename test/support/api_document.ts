// Holds every answer the suite receives to the listener's own OpenAPI document (GET
// /openapi.json): the operation is found by method and path template, and the answer's status
// must be documented for it, its content type one the document gives, its required headers
// present and its body valid against the schema (Ajv, JSON Schema 2020-12, strict mode, every
// schema compiled once per document). An answer no route gives is held to the document too: a
// path no route has must be components.responses.RouteNotFound, a known path with another method
// MethodNotAllowed. So a field, status or content type the document does not describe fails the
// test that received it. A JSON body the server took (a 2xx answer) is held to the operation's
// request schema too, so the document cannot describe less than the server accepts; bodies it
// refused are not checked (tests send those on purpose).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

type Schema = Record<string, unknown>;
interface MediaType { readonly schema: Schema }
interface ResponseObject {
  readonly description: string;
  readonly headers?: Readonly<Record<string, unknown>>;
  readonly content?: Readonly<Record<string, MediaType>>;
}
type Operation = {
  readonly responses: Readonly<Record<string, ResponseObject>>;
  readonly requestBody?: { readonly required?: boolean; readonly content: Readonly<Record<string, MediaType>> };
};
export interface ApiDocument {
  readonly openapi: string;
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, Schema>>;
    readonly responses: Readonly<Record<string, ResponseObject>>;
    readonly headers?: Readonly<Record<string, { readonly required?: boolean }>>;
  };
}

/** What a check looks at: the request's method and URL, and the answer. */
export interface Answer {
  readonly method: string;
  readonly url: string;
  /** The path exactly as sent, for raw-socket requests (the URL parser would decode %2e%2e as a dot segment; uWS routes it as text). */
  readonly path?: string;
  readonly status: number;
  /** fetch's Headers, or a map of lower-case names (raw-socket tests). */
  readonly headers: { get(name: string): string | null | undefined };
  readonly text: string;
  /** The request's body as sent, when it had one. */
  readonly requestBody?: string | undefined;
}

// The document's schemas refer to each other as #/components/schemas/<name>; for Ajv they live
// in one schema of their own under this id, as $defs.
const COMPONENTS_ID = 'https://clobd.invalid/components.json';

/** A copy of `value` whose component references point into the components schema. */
function relinked(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`));
}

/** Ajv as the suite uses it: 2020-12, every strict check on, formats known (date-time, uuid). */
export function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  // ajv-formats is CommonJS: its plugin is the module itself under ESM.
  (formats as unknown as (ajv: Ajv2020) => void)(ajv);
  return ajv;
}

interface Template {
  readonly path: string;
  readonly segments: readonly string[];
}

/** The compiled schemas of one document: one validator per operation, status and content type. */
export class ResponseValidator {
  private readonly ajv = strictAjv();
  private readonly templates: readonly Template[];
  private readonly compiled = new Map<Schema, ValidateFunction>();

  constructor(readonly document: ApiDocument) {
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: relinked(document.components.schemas) as Schema });
    this.templates = Object.keys(document.paths).map((path) => ({ path, segments: path.split('/') }));
    // Compile everything now, so a schema Ajv refuses fails at once rather than on first use.
    for (const response of this.responseObjects()) {
      for (const media of Object.values(response.content ?? {})) this.validatorOf(media.schema);
    }
    for (const media of this.requestMediaTypes()) this.validatorOf(media.schema);
  }

  /** Every operation's request body media types. */
  requestMediaTypes(): MediaType[] {
    const operations = Object.values(this.document.paths).flatMap((methods) => Object.values(methods));
    return operations.flatMap((operation) => Object.values(operation.requestBody?.content ?? {}));
  }

  /** What is wrong with a request body the server took, by the operation's request schema; empty when nothing. */
  requestProblems(where: string, operation: Operation, body: string): string[] {
    const media = operation.requestBody?.content['application/json'];
    if (media === undefined) return [];
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [`${where}: the server took a request body that is not JSON: ${body.slice(0, 300)}`];
    }
    const validate = this.validatorOf(media.schema);
    if (validate(value)) return [];
    return [`${where}: the server took a request body its request schema refuses:\n  ${this.errorsOf(validate).join('\n  ')}\n  request body: ${body.slice(0, 500)}`];
  }

  private errorsOf(validate: ValidateFunction): string[] {
    return (validate.errors ?? []).slice(0, 10).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
  }

  /** Every response object of the document, operations' and components'. */
  responseObjects(): ResponseObject[] {
    const operations = Object.values(this.document.paths).flatMap((methods) => Object.values(methods));
    return [...operations.flatMap((operation) => Object.values(operation.responses)), ...Object.values(this.document.components.responses)];
  }

  private validatorOf(schema: Schema): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (validate === undefined) {
      validate = this.ajv.compile(relinked(schema) as Schema);
      this.compiled.set(schema, validate);
    }
    return validate;
  }

  /** The template uWS routes the path to: same segment count, static segments equal, statics preferred leftmost. */
  private templateOf(path: string): string | undefined {
    const segments = path.split('/');
    const fits = this.templates.filter((template) => template.segments.length === segments.length
      && template.segments.every((part, index) => part.startsWith('{') || part === segments[index]));
    const rank = (template: Template): string => template.segments.map((part) => (part.startsWith('{') ? '1' : '0')).join('');
    return fits.sort((a, b) => rank(a).localeCompare(rank(b)))[0]?.path;
  }

  /** What is wrong with the answer by the document; empty when nothing. */
  problems(answer: Answer): string[] {
    const path = answer.path ?? new URL(answer.url).pathname;
    const template = this.templateOf(path);
    const method = answer.method.toLowerCase();
    const operation = template === undefined ? undefined : this.document.paths[template]?.[method];
    let where: string;
    let documented: ResponseObject | undefined;
    if (template === undefined) {
      where = `${answer.method} ${path} (no route)`;
      documented = answer.status === 404 ? this.document.components.responses['RouteNotFound'] : undefined;
    } else if (operation === undefined) {
      where = `${answer.method} ${template} (no such method)`;
      documented = answer.status === 405 ? this.document.components.responses['MethodNotAllowed'] : undefined;
    } else {
      where = `${answer.method} ${template}`;
      documented = operation.responses[String(answer.status)];
    }
    if (documented === undefined) return [`${where}: status ${answer.status} is not documented (body ${answer.text.slice(0, 300)})`];
    const problems: string[] = [];
    const taken = answer.status >= 200 && answer.status < 300;
    if (operation !== undefined && taken && answer.requestBody !== undefined && answer.requestBody !== '') {
      problems.push(...this.requestProblems(where, operation, answer.requestBody));
    }
    for (const [header, reference] of Object.entries(documented.headers ?? {})) {
      // A header the document marks required must be there; an optional one (a next page's cursor) may be.
      const required = this.document.components.headers?.[String((reference as { $ref?: string }).$ref).split('/').pop()!]?.required ?? true;
      if (required && (answer.headers.get(header.toLowerCase()) ?? null) === null) problems.push(`${where} ${answer.status}: header ${header} is documented but missing`);
    }
    const contentType = answer.headers.get('content-type') ?? '';
    const media = documented.content?.[contentType];
    if (media === undefined) {
      return [...problems, `${where} ${answer.status}: content type "${contentType}" is not documented (${Object.keys(documented.content ?? {}).join(', ')})`];
    }
    let body: unknown = answer.text;
    if (contentType === 'application/json') {
      try {
        body = JSON.parse(answer.text);
      } catch {
        return [...problems, `${where} ${answer.status}: the body is not JSON: ${answer.text.slice(0, 300)}`];
      }
    }
    const validate = this.validatorOf(media.schema);
    if (!validate(body)) {
      problems.push(`${where} ${answer.status}: the body does not match the document:\n  ${this.errorsOf(validate).join('\n  ')}\n  body: ${answer.text.slice(0, 500)}`);
    }
    return problems;
  }
}

// One validator per document text (two servers with the same route table share it), and the
// document text each listener origin served last.
const validators = new Map<string, ResponseValidator>();
const documentsByOrigin = new Map<string, Promise<string>>();

async function fetchDocument(origin: string): Promise<string> {
  const response = await fetch(`${origin}/openapi.json`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${origin}/openapi.json answered ${response.status}: ${text.slice(0, 200)}`);
  return text;
}

function validatorFor(text: string): ResponseValidator {
  let validator = validators.get(text);
  if (validator === undefined) {
    validator = new ResponseValidator(JSON.parse(text) as ApiDocument);
    validators.set(text, validator);
  }
  return validator;
}

/**
 * Throws unless the answer is one the listener's document describes. The document is fetched once
 * per origin (that request is charged to the listener's rate-limit caps like any other); a
 * server started later on a port an earlier one used may serve another route table, so on a
 * failure the document is fetched again and, if it changed, the check is made against the new one.
 */
export async function assertDocumented(answer: Answer): Promise<void> {
  const origin = new URL(answer.url).origin;
  let pending = documentsByOrigin.get(origin);
  if (pending === undefined) {
    pending = fetchDocument(origin);
    documentsByOrigin.set(origin, pending);
    // A failed fetch is not kept: the next answer tries again.
    pending.catch(() => documentsByOrigin.delete(origin));
  }
  const text = await pending;
  let problems = validatorFor(text).problems(answer);
  if (problems.length > 0) {
    const fresh = await fetchDocument(origin).catch(() => text);
    if (fresh !== text) {
      documentsByOrigin.set(origin, Promise.resolve(fresh));
      problems = validatorFor(fresh).problems(answer);
    }
  }
  if (problems.length > 0) throw new Error(`answer not described by ${origin}/openapi.json:\n${problems.join('\n')}`);
}

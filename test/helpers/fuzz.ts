// Tools for the fuzz test (test/modules/fuzz.test.ts): a seeded PRNG, a raw HTTP client
// (node:http, so paths, headers and bodies go out byte for byte, unlike fetch, which
// normalizes "../" and refuses some headers), the operations of /openapi.json, and
// values generated from their JSON schemas: valid ones and hostile ones.
import http from 'node:http';
import os from 'node:os';
import { BASE_URL } from './env.ts';

// ------------------------------------------------------------------- PRNG --

/** A small deterministic PRNG (mulberry32): the same seed gives the same requests. */
export class Rng {
  private state: number;
  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)];
  }
}

// ----------------------------------------------------------- raw requests --

export interface RawRequest {
  method: string;
  /** The request target exactly as sent (already percent-encoded where wanted). */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Send the body with Transfer-Encoding: chunked (no Content-Length). */
  chunked?: boolean;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Milliseconds until the whole answer arrived (until its headers, for an event stream). */
  ms: number;
}

// A connection per request: the server closes a connection after some refusals (413,
// 431, a bad URL), and a kept-alive socket reused just then would fail on our side.
const agent = new http.Agent({ keepAlive: false, maxSockets: 16 });
/** No answer within 5 s on an idle machine, scaled by the load average per core at the time (as fuzz.test.ts's slow bound). */
const timeoutMs = () => 5_000 * Math.max(1, os.loadavg()[0] / os.availableParallelism());

/** Sends one request to the server under test; resolves with the answer or rejects when none came. */
export function send(request: RawRequest, baseUrl = BASE_URL): Promise<RawAnswer> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const timeout = Math.round(timeoutMs());
    let settled = false;
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body !== undefined && !request.chunked) headers['content-length'] = Buffer.byteLength(request.body);
    const req = http.request({
      host: base.hostname, port: base.port, method: request.method, path: request.path, headers, agent,
      // A 1 MiB body refused with 413 may be cut off by the server: keep the answer anyway.
      timeout,
    });
    let responded = false;
    let uploadFailed = '';
    req.on('response', (res) => {
      responded = true;
      const type = String(res.headers['content-type'] ?? '');
      if (type.startsWith('text/event-stream')) {
        // A live stream never ends: what counts is how soon it answered.
        const ms = performance.now() - started;
        settled = true;
        res.destroy();
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '', ms });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started });
      });
      res.on('error', (err) => {
        if (settled) return;
        settled = true;
        reject(err);
      });
      res.on('close', () => {
        if (settled) return;
        settled = true;
        reject(new Error('the answer was cut off'));
      });
    });
    req.on('close', () => {
      if (settled || responded) return;
      settled = true;
      reject(new Error(`the connection closed without an answer${uploadFailed ? ` (sending the body failed: ${uploadFailed})` : ''}`));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeout} ms`)));
    req.on('error', (err) => {
      if (settled) return;
      // EPIPE while uploading a refused body: the answer may still come (until the connection closes).
      if ((err as NodeJS.ErrnoException).code === 'EPIPE') {
        uploadFailed = 'EPIPE';
        return;
      }
      settled = true;
      reject(err);
    });
    if (request.body !== undefined) {
      if (request.chunked) {
        const body = Buffer.from(request.body);
        for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
      } else {
        req.write(request.body);
      }
    }
    req.end();
  });
}

/** Closes the sockets still open, so the test process can exit. */
export function closeConnections(): void {
  agent.destroy();
}

// --------------------------------------------------------------- OpenAPI --

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  nullable?: boolean;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  description?: string;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}

/** One path × method of the OpenAPI document. */
export interface Operation {
  method: string;
  /** The templated path, e.g. /tables/row/list/{level}/{sid}/name/ */
  path: string;
  params: Parameter[];
  body?: JsonSchema;
  /** Whether a credential is needed (the document's security, unless the operation says []). */
  secured: boolean;
  /** The levels a list accepts (from "Levels: a, b." in its description). */
  levels: string[];
  description: string;
}

/**
 * `schema` with every `#/components/…` $ref replaced by what it names; a $ref inside what
 * it names (JsonValue's values) becomes `{}`, any value.
 */
function inlineRefs(doc: any, schema: any, within: ReadonlySet<string> = new Set()): any {
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(doc, s, within));
  if (!schema || typeof schema !== 'object') return schema;
  if (typeof schema.$ref === 'string') {
    if (within.has(schema.$ref)) return {};
    const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(schema.$ref) ?? [];
    const named = kind ? doc.components?.[kind]?.[name] : undefined;
    if (!named) throw new Error(`unresolved $ref ${schema.$ref}`);
    return inlineRefs(doc, named, new Set([...within, schema.$ref]));
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlineRefs(doc, v, within)]));
}

/** Every operation of an OpenAPI 3 document, its schemas' $refs inlined. */
export function operationsOf(doc: any): Operation[] {
  const out: Operation[] = [];
  const globalSecurity = Array.isArray(doc.security) && doc.security.length > 0;
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const description = String(op.description ?? '');
      const levels = /Levels: ([^.]+)\./.exec(description)?.[1].split(',').map((s) => s.trim()).filter(Boolean) ?? [];
      out.push({
        method: method.toUpperCase(),
        path,
        params: inlineRefs(doc, op.parameters ?? []),
        body: inlineRefs(doc, op.requestBody?.content?.['application/json']?.schema),
        secured: Array.isArray(op.security) ? op.security.length > 0 : globalSecurity,
        levels,
        description,
      });
    }
  }
  return out;
}

// ---------------------------------------------------------- hostile values --

/** Strings that break naive SQL, templates, HTML or paths; none holds the markers the test looks for in answers. */
export const INJECTIONS = [
  "' OR '1'='1", "'; DROP TABLE record_rows; --", '" OR ""="', '1; SELECT 1; --', "1) OR (1=1", '$$; DROP TABLE users; $$',
  "\\'; --", "%' OR '%'='", "1 UNION SELECT NULL, NULL--", "'; WAITFOR DELAY '0:0:5'--", '{{7*7}}', '${7*7}',
  "{{constructor.constructor('return process')()}}", '{{variables.__proto__}}', '<script>alert(1)</script>', '../../etc/passwd',
  '..\\..\\windows', '__proto__', 'constructor', 'null', 'undefined', 'NaN', 'true', '[]', '{}', '%s%s%s%n', '\\', '"', "'",
];

/** Unicode that trips length checks, normalization and encodings. */
export const UNICODE = [
  '😀🎉👩‍👩‍👧‍👦', '\u202Eevil\u202C', 'e\u0301\u0301\u0301', '日本語テキスト', 'مرحبا بالعالم', '\uFEFFbom', 'Ⅻ ﬁ ẞ',
  '\u200B\u200C\u200D', 'ǅ', '\u{10FFFF}', 'a\u0308'.repeat(50), 'Z̸̢̛̖͓̈́a̵l̷g̸o̶', '\t\r\n', ' ',
];

/** Numbers at and past the edges: JS-safe ones as values, the rest as raw JSON text. */
export const NUMBERS: unknown[] = [0, -1, 1, 0.5, -0.5, 2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 32, 1e6 + 1, 1e9 + 1, Number.MAX_SAFE_INTEGER];
export const RAW_NUMBERS = ['9007199254740993', '1e308', '1e309', '-1e309', '-0', '1E+2', '0.0000001', '123456789012345678901234567890'];
export const NUMBER_STRINGS = ['NaN', 'Infinity', '-Infinity', '1e308', '0x10', '1_000', ' 1', '1 ', '+1', '01', '1.', '.5', ''];

/** A value of the wrong type, or a container where a scalar is expected. */
export const WRONG_TYPES: unknown[] = [null, true, false, 0, 123, '', 'x', [], {}, [1, 2], ['a'], { a: 1 }, { a: { b: [{ c: null }] } }, [[[]]]];

/**
 * Raw JSON text for a value: lone surrogates and numbers that JSON.stringify cannot write.
 * Placed into a body through a placeholder string (see Body).
 */
export const RAW_JSON_VALUES = [
  '"\\ud800"', '"\\udfff"', '"x\\ud83d"', '"\\ud800\\ud800"', '"\\u0000"', '"a\\u0000b"', '"\\u001f"',
  ...RAW_NUMBERS,
];

/** Nesting `depth` levels deep, as JSON text ([[[…]]] or {"a":{"a":…}}). */
export function deepJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

// ------------------------------------------------------------------ bodies --

/**
 * A body under construction: a JS value in which placeholder strings stand for raw JSON
 * text, so one body can hold what JSON.stringify cannot produce.
 */
export class Body {
  private readonly raws: string[] = [];

  /** A placeholder for raw JSON text. */
  raw(text: string): string {
    this.raws.push(text);
    return `\u0001raw${this.raws.length - 1}\u0001`;
  }

  /** The JSON text, with every placeholder replaced by its raw text. */
  text(value: unknown): string {
    let json = JSON.stringify(value);
    if (json === undefined) return '';
    this.raws.forEach((raw, i) => {
      json = json.split(JSON.stringify(`\u0001raw${i}\u0001`)).join(raw);
    });
    return json;
  }
}

/** What a string field needs when it names a record: given its name and description, a sid or null. */
export type SidSource = (field: string, schema: JsonSchema) => string | null;

/** Generates values from a JSON schema. */
export class Generator {
  constructor(private readonly rng: Rng, private readonly sidFor: SidSource, private readonly email: () => string) {}

  /** A value that should pass the schema (sids of real records where a field names one). */
  valid(schema: JsonSchema | undefined, field = ''): unknown {
    const rng = this.rng;
    if (!schema) return {};
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches) {
      const usable = branches.filter((b) => !(b.enum && b.enum[0] === null));
      return this.valid(rng.pick(usable.length ? usable : branches), field);
    }
    if (schema.enum) return rng.pick(schema.enum);
    switch (schema.type) {
      case 'object': {
        const out: Record<string, unknown> = {};
        const props = schema.properties ?? {};
        const required = new Set(schema.required ?? []);
        for (const [key, sub] of Object.entries(props)) {
          if (required.has(key) || rng.chance(0.5)) out[key] = this.valid(sub, key);
        }
        if (!Object.keys(out).length && (schema.minProperties ?? 0) > 0 && Object.keys(props).length) {
          const key = rng.pick(Object.keys(props));
          out[key] = this.valid(props[key], key);
        }
        if (!Object.keys(props).length && schema.additionalProperties !== false && rng.chance(0.5)) {
          out[`k${rng.int(0, 9)}`] = rng.pick(['v', 1, true, null, ['x'], { y: 'z' }]);
        }
        return out;
      }
      case 'array': {
        const min = schema.minItems ?? 0;
        const max = Math.min(schema.maxItems ?? 3, min + 2);
        return Array.from({ length: rng.int(min, Math.max(min, max)) }, () => this.valid(schema.items ?? { type: 'string' }, field));
      }
      case 'integer':
      case 'number': {
        const min = Math.max(schema.minimum ?? 0, -1000);
        const max = Math.min(schema.maximum ?? 1000, min + 1000);
        return rng.int(min, Math.max(min, Math.min(max, min + 5)));
      }
      case 'boolean':
        return rng.chance(0.5);
      case 'string':
        return this.validString(schema, field);
      default:
        return rng.pick(['any', 1, true, null, { a: 'b' }, [1]]);
    }
  }

  private validString(schema: JsonSchema, field: string): string {
    const rng = this.rng;
    const sid = this.sidFor(field, schema);
    if (sid !== null) return sid;
    if (schema.format === 'email') return this.email();
    if (schema.pattern?.includes('\\d{4}-\\d{2}')) return `20${rng.int(10, 35)}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`;
    if (field === 'price') return rng.pick(['0', '0.00', '0.01', '0.5']);
    const min = schema.minLength ?? 0;
    const max = schema.maxLength ?? 50;
    const candidates = [
      'Fuzz value', 'x', `${field || 'v'}-${rng.int(0, 1e6)}`, rng.pick(UNICODE).trim() || 'u', rng.pick(INJECTIONS),
      'y'.repeat(Math.max(min, Math.min(max, 1000))),
    ].filter((s) => [...s].length >= min && s.length <= max);
    return candidates.length ? rng.pick(candidates) : 'z'.repeat(Math.max(min, 1));
  }

  /** A hostile value for a field of `schema`: wrong types, edges, huge, unicode, NUL, nesting. */
  hostile(schema: JsonSchema | undefined, body: Body): unknown {
    const rng = this.rng;
    const max = schema?.maxLength;
    switch (rng.int(0, 10)) {
      case 0: return rng.pick(WRONG_TYPES);
      case 1: return rng.pick(NUMBERS);
      case 2: return body.raw(rng.pick(RAW_JSON_VALUES));
      case 3: return rng.pick(NUMBER_STRINGS);
      case 4: return max !== undefined ? 'm'.repeat(max + 1) : 'h'.repeat(rng.pick([256, 10_001, 100_001]));
      case 5: return rng.pick(['H'.repeat(300_000), '😀'.repeat(60_000), 'é'.repeat(120_000)]);
      case 6: return rng.pick(UNICODE);
      case 7: return rng.pick(INJECTIONS);
      case 8: return `nul\u0000${rng.pick(['', 'x', '\u0000'])}`;
      case 9: return body.raw(deepJson(rng.pick([50, 1_000, 20_000, 200_000]), rng.chance(0.5) ? 'array' : 'object'));
      default: return rng.pick<unknown>([{ [rng.pick(INJECTIONS)]: 1 }, Array.from({ length: 2_000 }, (_, i) => i), { __proto__x: 1, constructor: { prototype: {} } }]);
    }
  }
}

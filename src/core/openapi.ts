// The OpenAPI document (/openapi.json, checked in as openapi.json) and the reference
// page (/docs/), written once. Routes declare their schemas; this file turns what
// @fastify/swagger generates from them into a document a typed client can use:
//   - an operationId on every operation (listRowsDetail, updateRow, signIn …);
//   - named component schemas: every schema with a `title` (the shapes, bodies and pages
//     core/resource.ts names, the shared bodies and answers), and every other body or
//     answer under its operation's name (`SignUpBody`, `…Result`), identical ones once;
//     never a numbered name: two different schemas with one title stop the document;
//   - what a typed client should send and read where the validator takes more
//     (`x-document`, core/schemas.ts): booleans as booleans, any JSON as `JsonValue`;
//   - shared answers and parameters under names that say what they are (`NotAcceptable`,
//     `NotAcceptableJson`, `PathRecordSid`, `QueryPage`);
//   - the media types the service really sends (the spec's 406s are text/plain);
//   - the headers it reads and sends (Idempotency-Key, If-Match, ETag, Retry-After,
//     Set-Cookie) and the answers any operation can give (413, 415 with a body; 503);
//   - `level` as the list's own levels; parameters the API checks itself (to answer the
//     spec's 406) as required;
//   - a request body example that passes validation, for "Try it out".
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { canonicalJson } from './canonical-json.js';
import { SESSION_COOKIE } from './auth.js';

type Json = Record<string, any>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A list route's levels (the OpenAPI document gives them as the `level` parameter's values). */
    levels?: string[];
    /** The operationId of the route (default: one made from its method and URL). */
    operationId?: string;
    /** The 200 answer as the document gives it, when the route sends more than its serialization schema says. */
    docResponse?: unknown;
    /** A body the route reads as a stream (not validated by Fastify): its media type and schema, for the document only. */
    docBody?: { mediaType: string; schema: unknown };
  }
}

const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">
<rect x="4" y="4" width="56" height="56" rx="10" fill="#1f4e79"/>
<g fill="#ffffff"><rect x="14" y="15" width="36" height="7" rx="2"/><rect x="14" y="27" width="36" height="7" rx="2" opacity=".8"/>
<rect x="14" y="39" width="22" height="7" rx="2" opacity=".6"/><circle cx="45" cy="43" r="5"/></g></svg>`;

const THEME_CSS = `.swagger-ui .topbar { background-color: #1f4e79; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
.swagger-ui .topbar-wrapper img { height: 40px; }
.swagger-ui .info .title { color: #1f4e79; }`;

const DESCRIPTION = `Organizations, their personnel, projects holding tables of records (rows) whose cells are
edited through widgets, a tamper-evident, hash-chained version history of every row,
workflows that act on rows, and notifications between members.

## Signing in

1. Create an account: \`POST /accounts/signup/\` with \`{"email", "password", "first_name", "last_name"}\`.
2. Get a session token: \`POST /accounts/auth/\` with \`{"username": "<email>", "password": "…"}\` answers
   \`{"token": "…", "user": {…}}\`. It expires after 30 minutes without use (\`TOKEN_IDLE_MINUTES\`);
   \`/accounts/logout/\` ends it.
3. Press **Authorize** above and paste the token under **token** (sent as the header \`token: <token>\`;
   \`Authorization: Token <token>\` works too). An API key (\`POST /accounts/apikey/list/user/{your user sid}/detail/\`)
   goes under **apiKey** (sent as \`Authorization: Bearer <key>\`).

The web app signs in with \`POST /accounts/session/\` instead: the token stays in the HttpOnly cookie
\`${SESSION_COOKIE}\`, and every POST, PUT, PATCH or DELETE it makes carries \`X-Requested-With: records-web\`.

## Conventions

Paths end with \`/\`. Lists are \`/{app}/{model}/list/{level}/{sid}/{serializer}/\` pages (\`page\`, \`page_size\` up to 100);
records \`/{app}/{model}/detail/{sid}/\`. Errors are \`{"detail": "…"}\`, field errors \`{"field": ["…"]}\` (400) and the
plain-text 406 messages. Send \`Idempotency-Key\` with a POST to make a retry safe, and a detail's \`ETag\` back as
\`If-Match\` with a PATCH to refuse it (412) when the record changed meanwhile.`;

const DOCS_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:",
  "connect-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const MODELS: Record<string, [string, string]> = {
  apikey: ['ApiKey', 'ApiKeys'], personnel: ['Personnel', 'Personnel'], organization: ['Organization', 'Organizations'],
  activity: ['Activity', 'Activities'],
};
const SPECIAL_IDS: Record<string, string> = {
  'get /health/': 'checkHealth',
  'get /health/live/': 'checkLiveness',
  'get /health/ready/': 'checkReadiness',
  'post /accounts/signup/': 'signUp',
  'post /accounts/auth/': 'signIn',
  'get /accounts/checktoken/': 'checkToken',
  'get /accounts/logout/': 'signOutWithGet',
  'post /accounts/logout/': 'signOut',
  'post /accounts/forgetpassword/': 'forgetPassword',
  'post /accounts/resetpassword/': 'resetPassword',
  'post /accounts/session/': 'createSession',
  'get /accounts/session/': 'getSession',
  'delete /accounts/session/': 'deleteSession',
  'post /accounts/changepassword/': 'changePassword',
  'post /accounts/logoutall/': 'signOutEverywhere',
  'get /tables/row/list/table/{sid}/grid/': 'listRowsGrid',
  'post /accounts/verifyemail/': 'verifyEmail',
  'post /accounts/verifyemail/resend/': 'resendEmailProof',
  'get /notifications/notification/stream/': 'streamNotifications',
  'post /accounts/changeemail/': 'changeEmail',
  'post /admin/account/detail/{sid}/resendproof/': 'resendInstanceAccountProof',
  'get /admin/settings/': 'getInstanceSettings',
  'patch /admin/settings/': 'updateInstanceSettings',
  'get /admin/outbox/': 'getOutboxHealth',
};

const pascal = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');

/** The names of a model ('row' → Row, Rows); an instance administrator's (/admin/…) are Instance… (InstanceAccount). */
function modelNames(model: string, path = ''): [string, string] {
  const [one, many] = MODELS[model] ?? [pascal(model), `${pascal(model)}s`];
  return path.startsWith('/admin/') ? [`Instance${one}`, `Instance${many}`] : [one, many];
}

/**
 * An operationId from the method and the path, for the routes that do not name their own
 * (`config.operationId`). The last resort, `{method}{Path}` (`postAccountsVerifyemail`),
 * is refused by the document's test: such a route is named here or in its config.
 */
export function operationIdOf(method: string, path: string): string {
  // labii-sdk 1.13.14's path of the workflows (/workflows/workflow/…): the same operations, named apart.
  if (path.startsWith('/workflows/workflow/')) return `${operationIdOf(method, path.replace('/workflows/', '/tables/'))}AtLabiiPath`;
  // The path of Labii's v3 docs for project members.
  if (path.startsWith('/projects/projectmember/')) return `${operationIdOf(method, path.replace('/projectmember/', '/member/'))}AtLabiiPath`;
  // labii-sdk 1.13.14's path of the activity log (/tables/activity/…); the v3 docs' is /activities/activity/.
  if (path.startsWith('/tables/activity/')) return `${operationIdOf(method, path.replace('/tables/', '/activities/'))}AtLabiiPath`;
  const special = SPECIAL_IDS[`${method} ${path}`];
  if (special) return special;
  const list = /^\/\w+\/(\w+)\/list\/\{level\}\/\{sid\}\/(\w+)\/$/.exec(path);
  if (list) {
    const [one, many] = modelNames(list[1], path);
    return method === 'get' ? `list${many}${pascal(list[2])}` : `create${one}${pascal(list[2])}`;
  }
  const detail = /^\/\w+\/(\w+)\/detail\/\{sid\}\/(?:(\w+)\/)?$/.exec(path);
  if (detail) {
    const [one] = modelNames(detail[1], path);
    if (detail[2]) return `${method === 'get' ? '' : method}${detail[2]}${one}`.replace(/^./, (c) => c.toLowerCase());
    return `${{ get: 'get', patch: 'update', delete: 'delete', put: 'replace', post: 'post' }[method]}${one}`;
  }
  return `${method}${pascal(path)}`;
}

// ------------------------------------------------------------- walking --

/** Every schema position of an operation: request body and answers (not parameters). */
function* operationSchemas(op: Json): Generator<{ holder: Json; key: string; where: 'body' | 'response'; status?: string }> {
  for (const media of Object.values<Json>(op.requestBody?.content ?? {})) {
    if (media.schema) yield { holder: media, key: 'schema', where: 'body' };
  }
  for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
    for (const media of Object.values<Json>(response.content ?? {})) {
      if (media.schema) yield { holder: media, key: 'schema', where: 'response', status };
    }
  }
}

function* operations(doc: Json): Generator<{ path: string; method: string; op: Json }> {
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) if (item[method]) yield { path, method, op: item[method] };
  }
}

/** Hoists named schemas into components (bottom-up), reusing identical ones. */
class Components {
  readonly schemas: Record<string, Json> = {};
  private readonly byContent = new Map<string, string>();

  /**
   * `schema` with every titled sub-schema replaced by a $ref; itself a $ref when it has a
   * title, or (an object, array or union) when `fallbackName` names it.
   */
  hoist(schema: Json, fallbackName?: string): Json {
    const inner = this.walk(schema);
    if (!inner || typeof inner !== 'object' || inner.$ref) return inner;
    if (inner.title) return this.refTo(inner.title, inner);
    // A union of named schemas says what it is as it stands (`VersionListPage | RowDataPage`).
    const union = inner.anyOf ?? inner.oneOf;
    const namedUnion = Array.isArray(union) && union.every((member: Json) => member.$ref);
    const composite = inner.type === 'object' || inner.type === 'array' || (union && !namedUnion);
    return fallbackName && composite ? this.refTo(fallbackName, inner) : inner;
  }

  private refTo(name: string, schema: Json): Json {
    return { $ref: `#/components/schemas/${this.add(name, schema)}` };
  }

  private add(name: string, schema: Json): string {
    const key = canonicalJson(schema);
    const known = this.byContent.get(key);
    if (known) return known;
    // A numbered name (`Ref2`) would tell a client nothing: two schemas need two titles.
    if (this.schemas[name]) throw new Error(`two different schemas are named ${name}: give one of them another title`);
    this.schemas[name] = schema;
    this.byContent.set(key, name);
    return name;
  }

  private walk(schema: Json): Json {
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
    const out: Json = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && value && typeof value === 'object') {
        out.properties = Object.fromEntries(Object.entries<Json>(value).map(([k, v]) => [k, this.child(v)]));
      } else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && value && typeof value === 'object') {
        out[key] = this.child(value);
      } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
        out[key] = value.map((v) => this.child(v));
      } else {
        out[key] = value;
      }
    }
    return out;
  }

  private child(schema: Json): Json {
    const inner = this.walk(schema);
    if (!inner || !inner.title) return inner;
    // @fastify/swagger folds `X | null` into X with nullable (and the union's description):
    // the named X stays as it is, and the use says it may be null.
    if (inner.nullable) {
      const { nullable, description, ...named } = inner;
      return { type: named.type, allOf: [this.refTo(named.title, named)], nullable, ...(description !== undefined ? { description } : {}) };
    }
    return this.refTo(inner.title, inner);
  }
}

// ------------------------------------------------------------- documented --

/**
 * Any JSON value: what a client may send and will read where the service takes anything
 * (personnel `metadata`, a step's settings, an execution's variables). An array directly
 * inside an array is taken but not described: openapi-typescript writes a schema as a
 * property of its `components` interface, and TypeScript cannot resolve such a property
 * that is an array of itself (TS2502); through an object it can.
 */
const JSON_SCALARS: Json[] = [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }];
const JSON_SCHEMAS: Record<string, Json> = {
  JsonValue: {
    description: 'any JSON value (an array directly inside an array is accepted, but not described here)',
    anyOf: [
      ...JSON_SCALARS, { $ref: '#/components/schemas/JsonObject' },
      { type: 'array', items: { anyOf: [...JSON_SCALARS, { $ref: '#/components/schemas/JsonObject' }] } },
    ],
  },
  JsonObject: { type: 'object', description: 'a JSON object', additionalProperties: { $ref: '#/components/schemas/JsonValue' } },
};

/** What each `x-document` (core/schemas.ts, Documented) stands for in the document. */
const DOCUMENTED: Record<string, Json> = {
  boolean: { type: 'boolean' },
  JsonValue: { $ref: '#/components/schemas/JsonValue' },
};

/**
 * `value` with every schema that carries `x-document` replaced by what it documents (its
 * description kept beside a type, dropped beside a $ref, which OpenAPI 3.0 reads alone).
 */
function documented(value: unknown): any {
  if (Array.isArray(value)) return value.map(documented);
  if (!value || typeof value !== 'object') return value;
  const node = value as Json;
  const as = node['x-document'];
  if (typeof as === 'string') {
    const replacement = DOCUMENTED[as];
    if (!replacement) throw new Error(`x-document: ${as} is not one of ${Object.keys(DOCUMENTED).join(', ')}`);
    return replacement.$ref || node.description === undefined ? { ...replacement } : { ...replacement, description: node.description };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, documented(v)]));
}

// ------------------------------------------------------------- examples --

/** A value that passes `schema` (the one a person would try first), for "Try it out". */
export function exampleOf(schema: Json, name = ''): unknown {
  if (!schema || typeof schema !== 'object') return null;
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return exampleOf(union.find((s: Json) => s.type !== 'null' && !s.nullable) ?? union[0], name);
  switch (schema.type) {
    case 'object': {
      const out: Json = {};
      for (const [key, value] of Object.entries<Json>(schema.properties ?? {})) out[key] = exampleOf(value, key);
      return out;
    }
    case 'array': return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => exampleOf(schema.items ?? {}, name));
    case 'integer': case 'number': return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? Number(schema.exclusiveMinimum) + 1 : 1);
    case 'boolean': return false;
    case 'null': return null;
    case 'string': {
      if (schema.format === 'email') return 'ada@example.org';
      if (schema.format === 'date') return '2024-01-15';
      if (schema.format === 'date-time') return '2024-01-15T09:30:00Z';
      if (schema.format === 'uri') return 'https://example.org/';
      let text = /password/i.test(name) ? 'correct horse battery' : name ? `${name.replace(/_/g, ' ')}` : 'text';
      if (schema.minLength && text.length < schema.minLength) text = text.padEnd(schema.minLength, 'x');
      if (schema.maxLength !== undefined) text = text.slice(0, schema.maxLength);
      return text;
    }
    default: return {};
  }
}

// ------------------------------------------------------------- the document --

const ERROR = { $ref: '#/components/schemas/Error' };
const errorAnswer = (description: string, headers?: Json) => ({
  description, ...(headers ? { headers } : {}), content: { 'application/json': { schema: ERROR } },
});
const ETAG = { description: 'the version of the record, for If-Match on its PATCH', schema: { type: 'string' } };
const RETRY_AFTER = { 'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } } };

/** Finishes the document @fastify/swagger generated (see the top of this file). */
export function finishDocument(doc: Json): Json {
  doc.paths = documented(doc.paths);
  const components = new Components();
  const seen = new Set<string>();
  for (const { path, method, op } of operations(doc)) {
    op.operationId ??= operationIdOf(method, path);
    if (seen.has(op.operationId)) throw new Error(`duplicate operationId ${op.operationId} (${method} ${path})`);
    seen.add(op.operationId);

    // Parameters the API checks itself are required all the same.
    for (const param of op.parameters ?? []) {
      if (param.schema?.['x-required']) {
        param.required = true;
        delete param.schema['x-required'];
      }
    }

    // The 406s of the spec are plain text.
    for (const response of Object.values<Json>(op.responses ?? {})) {
      const schema = response.content?.['application/json']?.schema;
      if (schema?.title === 'PlainText') response.content = { 'text/plain': { schema: { type: 'string', description: schema.description } } };
    }

    // A body example that passes validation.
    const body = op.requestBody?.content?.['application/json'];
    if (body?.schema && body.example === undefined) body.example = exampleOf(body.schema);

    // Headers the service reads and sends.
    op.parameters ??= [];
    const secured = !(Array.isArray(op.security) && op.security.length === 0);
    if (method === 'post' && secured) {
      op.parameters.push({
        in: 'header', name: 'Idempotency-Key', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 },
        description: 'makes a retry safe: a POST with the same key (per user, 24 hours) and the same request gets the first answer again, without a second write',
      });
    }
    if (method === 'patch' && op.responses?.['412']) {
      op.parameters.push({
        in: 'header', name: 'If-Match', required: false, schema: { type: 'string' },
        description: 'the ETag of the record as you read it: the change is refused (412) if the record changed since',
      });
    }
    if (/\/detail\/\{sid\}\/$/.test(path) && (method === 'get' || method === 'patch') && op.responses?.['200']) {
      op.responses['200'].headers = { ETag: ETAG, ...op.responses['200'].headers };
    }
    // A create whose answer is the record's detail GET (core/resource.ts, `etag`).
    if (op['x-etag']) {
      delete op['x-etag'];
      op.responses['201'].headers = { ETag: ETAG, ...op.responses['201'].headers };
    }
    if (path === '/accounts/session/' && method === 'post' && op.responses?.['200']) {
      op.responses['200'].headers = {
        'Set-Cookie': { description: `\`${SESSION_COOKIE}=<token>; HttpOnly; SameSite=Strict; Path=/\` (and \`Secure\` when PUBLIC_URL is https)`, schema: { type: 'string' } },
      };
    }
    if (op.parameters.length === 0) delete op.parameters;

    // Answers any such operation can give.
    const responses = op.responses ?? (op.responses = {});
    if (op.requestBody) {
      responses['413'] ??= errorAnswer('the request body is too large (BODY_LIMIT_BYTES)');
      responses['415'] ??= errorAnswer('the request body is not application/json');
    }
    if (responses['429']) responses['429'] = { ...responses['429'], description: responses['429'].description ?? 'too many attempts', headers: RETRY_AFTER };
    // An answer of large records, or a verification, is refused while the process's
    // heavy-work budget is spent (core/heavy-work.ts): a 503 of its own words, shared below.
    if (op['x-heavy']) {
      delete op['x-heavy'];
      responses['503'] = { $ref: '#/components/responses/ServiceBusy' };
    }
    responses['503'] ??= errorAnswer('the database is unavailable or the service is shutting down; try again', RETRY_AFTER);
  }

  // Named schemas: titled ones by their title, other bodies and answers by their operation.
  for (const { method, path, op } of operations(doc)) {
    for (const { holder, key, where, status } of operationSchemas(op)) {
      const id = pascal(op.operationId ?? operationIdOf(method, path));
      // Not `…Response`: generators name their own types so (`SignInResponse`), and a
      // component of that name becomes `SignInResponse2`.
      const fallback = where === 'body' ? `${id}Body` : `${id}${status === '200' || status === '201' ? '' : status}Result`;
      holder[key] = components.hoist(holder[key], fallback);
    }
  }
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ...components.schemas } };
  if (JSON.stringify(doc).includes('#/components/schemas/JsonValue')) Object.assign(doc.components.schemas, JSON_SCHEMAS);
  shareResponsesAndParameters(doc);
  doc.components.responses.ServiceBusy = errorAnswer(
    'the process is answering too many large requests at once (HEAVY_WORK_BYTES: "The server is answering too many large '
    + 'requests at once; try again in 1 second."), or the database is unavailable, or the service is shutting down; '
    + 'try again after Retry-After seconds', RETRY_AFTER);
  return doc;
}

const STATUS_NAMES: Record<string, string> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed', 406: 'NotAcceptable',
  409: 'Conflict', 412: 'PreconditionFailed', 413: 'PayloadTooLarge', 415: 'UnsupportedMediaType', 429: 'TooManyRequests',
  503: 'ServiceUnavailable',
};
const SUCCESS_DESCRIPTIONS: Record<string, string> = { 200: 'OK', 201: 'Created', 204: 'No Content' };
/** The bodies of error answers that are shared; an answer with another body stays with its operation. */
const SHARED_BODIES = new Set(['#/components/schemas/Error', '#/components/schemas/FieldErrors']);
const PARAMETER_PLACES: Record<string, string> = { path: 'Path', query: 'Query', header: 'Header', cookie: 'Cookie' };

/**
 * The name of a shared error answer: its status (`NotFound`), and its media type when it
 * is not the status's usual one (the spec's 406s are text: `NotAcceptable`; the sign-in's
 * JSON 406 is `NotAcceptableJson`). Undefined: not shared.
 */
function responseName(status: string, response: Json): string | undefined {
  const base = STATUS_NAMES[status];
  const media = Object.keys(response.content ?? {});
  if (!base || media.length !== 1) return undefined;
  const usual = status === '406' ? 'text/plain' : 'application/json';
  if (media[0] === 'text/plain') return usual === 'text/plain' ? base : `${base}Text`;
  if (media[0] !== 'application/json' || !SHARED_BODIES.has(response.content[media[0]].schema?.$ref)) return undefined;
  return usual === 'application/json' ? base : `${base}Json`;
}

/**
 * The name of a shared parameter: the headers the service reads (`HeaderIfMatch`), and
 * those whose schema has a title (`PathRecordSid`, `QueryPage`: core/resource.ts,
 * core/schemas.ts). Undefined: not shared (a list's `level`, whose values are its own).
 */
function parameterName(param: Json): string | undefined {
  const title = param.in === 'header' ? pascal(param.name) : param.schema?.title;
  return title ? `${PARAMETER_PLACES[param.in] ?? pascal(param.in)}${title}` : undefined;
}

/**
 * The error answers and the parameters many operations share, once under components,
 * each operation referring to them. A name is given to one content only: another answer
 * or parameter that would take it stays with its operation (never `NotAcceptable2`).
 */
function shareResponsesAndParameters(doc: Json): void {
  const responses: Record<string, Json> = {};
  const parameters: Record<string, Json> = {};
  const share = (into: Record<string, Json>, kind: string, name: string, value: Json): Json => {
    if (!into[name]) into[name] = value;
    return canonicalJson(into[name]) === canonicalJson(value) ? { $ref: `#/components/${kind}/${name}` } : value;
  };
  for (const { op } of operations(doc)) {
    for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
      if (response.description === 'Default Response') response.description = SUCCESS_DESCRIPTIONS[status] ?? 'the answer';
      const name = responseName(status, response);
      if (name) op.responses[status] = share(responses, 'responses', name, response);
    }
    op.parameters = op.parameters?.map((param: Json) => {
      const name = parameterName(param);
      if (param.schema?.title) {
        const { title: _title, ...schema } = param.schema;
        param = { ...param, schema };
      }
      return name ? share(parameters, 'parameters', name, param) : param;
    });
  }
  doc.components.responses = responses;
  doc.components.parameters = parameters;
}

/** Registers @fastify/swagger, /openapi.json and the reference page at /docs/. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Records Service API',
        version: '1.0.0',
        description: DESCRIPTION,
        license: { name: 'Proprietary', url: 'https://records.example.org/license' },
      },
      servers: [{ url: '/', description: 'this service' }],
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'header', name: 'token', description: 'a session token from POST /accounts/auth/' },
          apiKey: { type: 'http', scheme: 'bearer', description: 'an API key, as Authorization: Bearer <key>' },
          session: {
            type: 'apiKey', in: 'cookie', name: SESSION_COOKIE,
            description: 'the web app\'s session cookie from POST /accounts/session/ (writes also need X-Requested-With: records-web)',
          },
        },
      },
      security: [{ token: [] }, { apiKey: [] }, { session: [] }],
    },
    transform: ({ schema, url, route }) => {
      const out: Json = { ...(schema as Json) };
      const config = (route as { config?: { levels?: string[]; operationId?: string; docResponse?: unknown; docBody?: { mediaType: string; schema: unknown } } }).config;
      if (config?.operationId) out.operationId = config.operationId;
      if (config?.docBody) {
        out.body = config.docBody.schema;
        out.consumes = [config.docBody.mediaType];
      }
      if (config?.docResponse) out.response = { ...(out.response as Json), 200: config.docResponse };
      const params = out.params as Json | undefined;
      if (config?.levels && params?.properties?.level) {
        out.params = { ...params, properties: { ...params.properties, level: { ...params.properties.level, enum: config.levels } } };
      }
      return { schema: out as never, url };
    },
    transformObject: (documentObject) => finishDocument((documentObject as { openapiObject: Json }).openapiObject) as never,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, persistAuthorization: false, displayOperationId: false, tryItOutEnabled: false, validatorUrl: null },
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO), href: '/docs/', target: '_self' },
    theme: {
      title: 'Records Service API',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(LOGO) }],
      css: [{ filename: 'records-theme.css', content: THEME_CSS }],
    },
    // The page's policy: Swagger UI's own scripts only, like the app's; its styles, which it
    // also applies inline, from here alone; no upgrade-insecure-requests (plain http on a laptop).
    staticCSP: true,
    transformStaticCSP: () => DOCS_CSP,
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: false } }, async () => app.swagger());
}

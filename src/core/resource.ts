// The list and detail machinery every resource uses, written once:
//   /{app}/{model}/list/{level}/{sid}/{serializer}/   GET (a page), POST (create)
//   /{app}/{model}/detail/{sid}/                      GET, PATCH, DELETE
// It checks the level and serializer, resolves the scope (the organization and the
// caller's role in it) before the body is validated, wraps lists in the page envelope,
// and answers 405 with Allow for any method a path does not offer.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { Type, type Static, type TSchema, type TProperties } from '@sinclair/typebox';
import { errors } from './errors.js';
import { actorOf, type Actor } from './auth.js';
import { pageRequest, type Counted, type PageRequest } from './pagination.js';
import { answerPage, type AnswerLimits } from './answer-stream.js';
import { ErrorResponses, Page, PageQuery, DetailError, FieldErrors } from './schemas.js';
import type { AppContext } from '../context.js';
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { ApiError } from './errors.js';
import { inAmbientTransaction, KeyedQueue, type RecordLock } from './record-lock.js';

export const SERIALIZERS = ['name', 'list', 'detail'] as const;
export type Serializer = (typeof SERIALIZERS)[number];
const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** What a list request is about: the level's record and the caller's standing there. */
export interface Scope {
  level: string;
  sid: string;
  actor: Actor;
  [key: string]: unknown;
}

/** Resolves a level's sid into a scope, or throws (406 wrong id, 403 …). */
export type LevelResolver<S extends Scope> = (ctx: AppContext, actor: Actor, sid: string, request?: FastifyRequest) => Promise<S>;

declare module 'fastify' {
  interface FastifyRequest {
    scope?: Scope;
  }
  interface FastifyContextConfig {
    /** A route that only answers 405 (refuseOtherMethods). */
    refusal?: boolean;
  }
}

type Shapes = Record<Serializer, TSchema>;

export interface ListDefinition<S extends Scope, Q extends TProperties, PQ extends TProperties, B extends TSchema> {
  /** '/organizations/personnel' */
  path: string;
  tag: string;
  levels: Record<string, LevelResolver<S>>;
  shapes: Shapes;
  get?: {
    summary: string;
    description?: string;
    query?: Q;
    /** Whether the scope's caller may list; default: anyone the level resolver admits. */
    allowed?: (scope: S) => boolean;
    addPermission: (scope: S, query: Static<ReturnType<typeof Type.Object<Q>>>) => boolean | Promise<boolean>;
    /** When true for a query, results are sent as they are, not through the shape's schema (e.g. versions' `dataonly`). */
    raw?: (query: Static<ReturnType<typeof Type.Object<Q>>>) => boolean;
    /** What a result is when raw() holds, for the OpenAPI document (a page of the one shape or of the other). */
    rawShape?: TSchema;
    count: (scope: S, query: Static<ReturnType<typeof Type.Object<Q>>>) => Promise<number>;
    /**
     * The page. When it is a Counted page with its `total` (see pagination.ts), count()
     * is asked only for an empty page; otherwise count() runs alongside.
     */
    rows: (scope: S, query: Static<ReturnType<typeof Type.Object<Q>>>, serializer: Serializer, page: PageRequest) => Promise<unknown[] | Counted<unknown>>;
    /**
     * The most one record of this shape can be, as JSON, when records can be large (row
     * data, JSON settings, messages): the page is then read and written in reads of at
     * most ANSWER_MAX_BYTES, under the process's heavy-work budget (core/answer-stream.ts).
     * Undefined: small records, the page is one read.
     */
    recordBytes?: (serializer: Serializer, query: Static<ReturnType<typeof Type.Object<Q>>>) => number | undefined;
    /**
     * rows() honours the read's `maxBytes` (PageRequest): a page of large-capable records is
     * read by their real sizes, in one read when they are small (core/answer-stream.ts).
     */
    sized?: boolean;
    /**
     * rows() answers a Counted page: count() is not run alongside it, and addPermission()
     * runs after it, only when the page did not carry add_permission.
     */
    counted?: boolean;
  };
  post?: {
    summary: string;
    description?: string;
    query?: PQ;
    /** The JSON body; absent with `upload`. */
    body?: B;
    /**
     * A streamed body instead of JSON (files' multipart upload): not parsed nor validated
     * here, `create` reads request.raw itself; `schema` is what the OpenAPI document shows.
     */
    upload?: { mediaType: string; schema: TSchema };
    allowed: (scope: S) => boolean;
    /** The response schema for a shape (default: the shape itself). */
    response?: (shape: TSchema) => TSchema;
    /** Answer the detail shape whatever the URL's serializer (the spec's personnel, cell and notification POSTs). */
    answersDetail?: boolean;
    /** The 201 carries the ETag of the answer (only where it is the record's detail GET, as If-Match compares it). */
    etag?: boolean;
    create: (scope: S, body: Static<B>, query: Static<ReturnType<typeof Type.Object<PQ>>>, serializer: Serializer, request: FastifyRequest) => Promise<unknown>;
  };
}

// The sids are titled: the document shares them under those names (core/openapi.ts).
const listParams = Type.Object({
  level: Type.String({ description: 'the level of the list (for example `organization`)' }),
  sid: Type.String({ description: 'the sid of the record at that level', title: 'LevelSid' }),
});
const detailParams = Type.Object({ sid: Type.String({ description: 'the sid of the record', title: 'RecordSid' }) });

/** The model's name in the OpenAPI document: '/tables/row' → 'Row'. */
function modelTitle(path: string): string {
  const model = path.split('/').pop() ?? '';
  return model === 'apikey' ? 'ApiKey' : model.charAt(0).toUpperCase() + model.slice(1);
}

/** Names a schema in the OpenAPI document (core/openapi.ts) unless it has a name already. */
function titled<T extends TSchema>(schema: T, title: string): T {
  if (!schema.title) (schema as { title?: string }).title = title;
  return schema;
}

/** Registers 405 answers for every method `offered` does not include. */
export function refuseOtherMethods(app: FastifyInstance, url: string, offered: HTTPMethods[]) {
  const others = METHODS.filter((m) => !offered.includes(m));
  if (!others.length) return;
  app.route({
    method: others,
    url,
    config: { auth: false, refusal: true },
    schema: { hide: true },
    handler: async (request) => {
      throw errors.methodNotAllowed(request.method, offered.length ? offered : ['OPTIONS']);
    },
  });
}

/** The limits of answers written read by read: the read's bytes and the process's heavy-work budget. */
export function answerLimits(ctx: AppContext): AnswerLimits {
  return { publicUrl: ctx.config.publicUrl, readBytes: ctx.config.answerMaxBytes, budget: ctx.heavy };
}

/**
 * 400 for a query parameter the list does not take, naming it and the ones it takes:
 * a Labii filter we do not have must not answer the unfiltered list as if it were filtered.
 */
export function refuseUnknownParameters(request: FastifyRequest, accepted: string[]): void {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  const unknown = Object.keys(query).filter((key) => !accepted.includes(key));
  if (!unknown.length) return;
  const takes = accepted.length ? `this list takes only: ${accepted.join(', ')}` : 'this request takes none';
  throw errors.fields(Object.fromEntries(unknown.slice(0, 20).map((key) => [key, `Unknown query parameter; ${takes}.`])));
}

/** Registers a resource's list routes. */
export function defineList<S extends Scope, Q extends TProperties = {}, PQ extends TProperties = {}, B extends TSchema = TSchema>(
  app: FastifyInstance,
  ctx: AppContext,
  def: ListDefinition<S, Q, PQ, B>,
): void {
  const offered: HTTPMethods[] = [];
  if (def.get) offered.push('GET');
  if (def.post) offered.push('POST');
  const levels = Object.keys(def.levels);
  // The level comes from the URL: only the definition's own keys count, never what an
  // object inherits ("constructor", "__proto__", "toString" …).
  const resolverOf = (level: string) => (Object.hasOwn(def.levels, level) ? def.levels[level] : undefined);
  const model = modelTitle(def.path);
  for (const serializer of SERIALIZERS) titled(def.shapes[serializer], `${model}${serializer.charAt(0).toUpperCase()}${serializer.slice(1)}`);
  if (def.post?.body) titled(def.post.body, `${model}Create`);

  // Resolve the level and the caller's standing before the body is validated, so an
  // outsider gets 403, never a lesson in our schemas.
  const resolveScope = async (request: FastifyRequest) => {
    const { level, sid } = request.params as { level: string; sid: string };
    const resolver = resolverOf(level);
    if (!resolver) throw errors.wrongLevel();
    request.scope = await resolver(ctx, actorOf(request), sid, request);
  };
  // The query parameters each method takes: any other is a 400 naming it, never ignored
  // (a filter the list does not know would otherwise answer the unfiltered list).
  const getParams = def.get ? [...Object.keys(PageQuery), ...Object.keys(def.get.query ?? {})] : [];
  const postParams = def.post ? Object.keys(def.post.query ?? {}) : [];

  for (const serializer of SERIALIZERS) {
    const url = `${def.path}/list/:level/:sid/${serializer}/`;
    const shape = def.shapes[serializer];
    if (def.get) {
      const get = def.get;
      app.route({
        method: 'GET',
        url,
        config: { levels, ...(get.rawShape ? { docResponse: Type.Union([Page(shape), Page(get.rawShape)]) } : {}) },
        preValidation: async (request) => {
          await resolveScope(request);
          refuseUnknownParameters(request, getParams);
        },
        schema: {
          tags: [def.tag],
          summary: `${get.summary} (${serializer} shape)`,
          description: `${get.description ?? ''}\n\nLevels: ${levels.join(', ')}.`.trim(),
          params: listParams,
          querystring: Type.Object({ ...PageQuery, ...(get.query ?? {}) }),
          response: { 200: Page(shape), ...ErrorResponses },
          // A list of large records can be refused 503 while the process's heavy-work budget is spent (core/openapi.ts).
          ...(get.recordBytes?.(serializer, {} as never) !== undefined ? { 'x-heavy': true } : {}),
        },
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          const scope = request.scope as S;
          if (get.allowed && !get.allowed(scope)) throw errors.forbidden();
          const query = request.query as never;
          const page = pageRequest(request.query as { page?: number; page_size?: number });
          const raw = get.raw?.(query) ?? false;
          // Written as it is read, read by read, when its records can be large (core/answer-stream.ts).
          return answerPage(request, reply, answerLimits(ctx), {
            page,
            recordBytes: get.recordBytes?.(serializer, query),
            raw,
            item: shape,
            sized: get.sized,
            first: async (read) => {
              // A sized read may stop short of its page: how many records the page holds, from the count.
              const held = (count: number) => (get.sized ? { records: Math.max(0, Math.min(page.size, count - page.offset)) } : {});
              if (get.counted) {
                // One query for the page and its count; add_permission only when the page did not tell it.
                const found = await get.rows(scope, query, serializer, read) as Counted<unknown>;
                const count = found.total ?? (page.offset === 0 ? 0 : await get.count(scope, query));
                return { results: found, count, addPermission: found.addPermission ?? await get.addPermission(scope, query), ...held(count) };
              }
              const [count, results, addPermission] = await Promise.all([
                get.count(scope, query), get.rows(scope, query, serializer, read), get.addPermission(scope, query),
              ]);
              return { results, count, addPermission, ...held(count) };
            },
            more: (read) => get.rows(scope, query, serializer, read),
          });
        },
      });
    }
    if (def.post) {
      const post = def.post;
      const answered: Serializer = post.answersDetail ? 'detail' : serializer;
      const answeredShape = def.shapes[answered];
      app.route({
        method: 'POST',
        url,
        config: { levels, ...(post.upload ? { docBody: post.upload } : {}) },
        preValidation: async (request) => {
          await resolveScope(request);
          if (!post.allowed(request.scope as S)) throw errors.forbidden();
          refuseUnknownParameters(request, postParams);
        },
        schema: {
          tags: [def.tag],
          summary: `${post.summary} (answers the ${answered} shape)`,
          description: `${post.description ?? ''}\n\nLevels: ${levels.join(', ')}.`.trim(),
          params: listParams,
          querystring: Type.Object(post.query ?? {}),
          ...(post.body ? { body: post.body } : {}),
          response: { 201: post.response ? post.response(answeredShape) : answeredShape, ...ErrorResponses },
          ...(post.etag ? { 'x-etag': true } : {}),
        },
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          const record = await post.create(request.scope as S, request.body as Static<B>, request.query as never, answered, request);
          if (post.etag) reply.header('etag', etagOf(record));
          return reply.code(201).send(record);
        },
      });
    }
    refuseOtherMethods(app, url, offered);
  }

  // Any other serializer: 406 (after authentication, like every list request).
  const anyUrl = `${def.path}/list/:level/:sid/:serializer/`;
  app.route({
    method: offered,
    url: anyUrl,
    schema: { hide: true },
    handler: async (request) => {
      const { level } = request.params as { level: string };
      if (!resolverOf(level)) throw errors.wrongLevel();
      throw errors.wrongSerializer();
    },
  });
  refuseOtherMethods(app, anyUrl, offered);
}

export interface DetailDefinition<GQ extends TProperties, PB extends TSchema, PQ extends TProperties> {
  /** '/organizations/personnel' */
  path: string;
  tag: string;
  shape: TSchema;
  /**
   * The record as the caller sees it now (the detail shape), for If-Match on PATCH;
   * default: the GET handler.
   */
  current?: (actor: Actor, sid: string, request: FastifyRequest) => Promise<unknown>;
  /**
   * Locks the record in the caller's transaction: the lock every writer of the record
   * takes (core/record-lock.ts). Required with `patch`: If-Match is checked under it.
   */
  lock?: RecordLock;
  /** The ETag of an answer, when the PATCH answer adds fields to the GET shape (default etagOf). */
  etag?: (record: unknown) => string;
  get?: {
    summary: string;
    description?: string;
    query?: GQ;
    handler: (actor: Actor, sid: string, query: Static<ReturnType<typeof Type.Object<GQ>>>, request: FastifyRequest) => Promise<unknown>;
  };
  patch?: {
    summary: string;
    description?: string;
    query?: PQ;
    body: PB;
    /** The response schema (default: the detail shape). */
    response?: TSchema;
    handler: (actor: Actor, sid: string, body: Static<PB>, query: Static<ReturnType<typeof Type.Object<PQ>>>, request: FastifyRequest) => Promise<unknown>;
  };
  delete?: {
    summary: string;
    description?: string;
    handler: (actor: Actor, sid: string, request: FastifyRequest) => Promise<void>;
  };
}

/** The entity tag of a representation: a hash of its canonical JSON. */
export function etagOf(value: unknown): string {
  return `"${createHash('sha256').update(canonicalJson(value)).digest('base64url').slice(0, 32)}"`;
}

function ifMatchAccepts(header: string, etag: string): boolean {
  return header.split(',').map((t) => t.trim().replace(/^W\//, '')).some((t) => t === '*' || t === etag);
}

const NOUNS: Record<string, string> = { personnel: 'personnel record', member: 'project membership', apikey: 'API key' };

/** The 412: which record changed, and the GET that gives its current ETag. */
const preconditionFailed = (path: string, sid: string) => {
  const model = path.split('/').pop() ?? 'record';
  return new ApiError(412, {
    detail: `The ${NOUNS[model] ?? model} changed since you read it: GET ${path}/detail/${sid}/ and retry with its ETag.`,
  });
};

/**
 * Registers a resource's detail routes. GET and PATCH answers carry an ETag; a PATCH
 * with If-Match is refused (412) unless the record is still as the caller read it, the
 * check and the write in one transaction holding the record's lock (core/record-lock.ts).
 * DELETE answers {} (the spec's notification DELETE).
 */
export function defineDetail<GQ extends TProperties = {}, PB extends TSchema = TSchema, PQ extends TProperties = {}>(
  app: FastifyInstance,
  ctx: AppContext,
  def: DetailDefinition<GQ, PB, PQ>,
): void {
  const url = `${def.path}/detail/:sid/`;
  const offered: HTTPMethods[] = [];
  titled(def.shape, `${modelTitle(def.path)}Detail`);
  if (def.patch) titled(def.patch.body, `${modelTitle(def.path)}Update`);
  const sidOf = (request: FastifyRequest) => (request.params as { sid: string }).sid;
  const withEtag = (reply: FastifyReply, record: unknown) => {
    reply.header('etag', (def.etag ?? etagOf)(record));
    return record;
  };
  const preconditions = { 412: DetailError };
  if (def.get) {
    const get = def.get;
    offered.push('GET');
    app.route({
      method: 'GET',
      url,
      schema: {
        tags: [def.tag], summary: get.summary, description: get.description, params: detailParams,
        querystring: Type.Object(get.query ?? {}),
        response: { 200: def.shape, ...ErrorResponses },
      },
      handler: async (request, reply) =>
        withEtag(reply, await get.handler(actorOf(request), sidOf(request), request.query as never, request)),
    });
  }
  if (def.patch) {
    const patch = def.patch;
    const current = def.current ?? (def.get ? (actor: Actor, sid: string, request: FastifyRequest) => def.get!.handler(actor, sid, {} as never, request) : undefined);
    if (!def.lock) throw new Error(`${def.path}: a PATCH needs the record's lock (lock)`);
    // The 412 names the GET to read the record again.
    if (!def.get) throw new Error(`${def.path}: a PATCH needs the record's GET (its answer gives the ETag If-Match compares)`);
    const lock = def.lock;
    const checks = new KeyedQueue();
    offered.push('PATCH');
    app.route({
      method: 'PATCH',
      url,
      schema: {
        tags: [def.tag], summary: patch.summary,
        description: `${patch.description ?? ''}\n\nSend \`If-Match: <ETag>\` to refuse the change (412) when the record changed since you read it.`.trim(),
        params: detailParams,
        querystring: Type.Object(patch.query ?? {}),
        body: patch.body,
        response: { 200: patch.response ?? def.shape, ...ErrorResponses, ...preconditions },
      },
      handler: async (request, reply) => {
        const actor = actorOf(request);
        const sid = sidOf(request);
        const run = () => patch.handler(actor, sid, request.body as Static<PB>, request.query as never, request);
        const ifMatch = request.headers['if-match'];
        if (typeof ifMatch !== 'string' || !current) return withEtag(reply, await run());
        // The check and the write in one transaction, under the record's lock (ctx.db is
        // that transaction meanwhile); one such request per record at a time per process.
        return checks.run(sid, () => inAmbientTransaction(ctx.database.db, async (tx) => {
          await lock(tx, sid, actor);
          if (!ifMatchAccepts(ifMatch, etagOf(await current(actor, sid, request)))) throw preconditionFailed(def.path, sid);
          return withEtag(reply, await run());
        }));
      },
    });
  }
  if (def.delete) {
    const del = def.delete;
    offered.push('DELETE');
    app.route({
      method: 'DELETE',
      url,
      schema: {
        tags: [def.tag], summary: del.summary, description: del.description, params: detailParams,
        response: { 200: Type.Object({}, { title: 'Empty', description: 'an empty object', additionalProperties: false }), ...ErrorResponses },
      },
      handler: async (request) => {
        await del.handler(actorOf(request), sidOf(request), request);
        return {};
      },
    });
  }
  refuseOtherMethods(app, url, offered);
}

export { DetailError, FieldErrors };

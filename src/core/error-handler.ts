import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { uniqueRuleError } from './unique.js';
import { ApiError, MESSAGES, errors } from './errors.js';
import { lingerAfterRefusal, missingSlash } from './protocol-errors.js';
import { safeMessage } from './log-redaction.js';

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const COMPARISONS: Record<string, string> = {
  '>=': 'greater than or equal to', '<=': 'less than or equal to', '>': 'greater than', '<': 'less than',
};

/** The field an ajv error is about, and a message a person can act on. */
function describeValidation(error: AjvError): [string, string] {
  const pathParts = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'required') return [[...pathParts, String(error.params.missingProperty)].join('.'), 'This field is required.'];
  if (error.keyword === 'additionalProperties') {
    return [[...pathParts, String(error.params.additionalProperty)].join('.'), 'Unknown field.'];
  }
  const field = pathParts.join('.') || 'non_field_errors';
  switch (error.keyword) {
    case 'maxLength': return [field, `Ensure this field has no more than ${error.params.limit} characters.`];
    case 'minLength': return [field, error.params.limit === 1 ? 'This field may not be blank.' : `Ensure this field has at least ${error.params.limit} characters.`];
    case 'maxItems': return [field, `Ensure this field has no more than ${error.params.limit} element${error.params.limit === 1 ? '' : 's'}.`];
    case 'minItems': return [field, `Ensure this field has at least ${error.params.limit} element${error.params.limit === 1 ? '' : 's'}.`];
    case 'format': return [field, `Enter a valid ${String(error.params.format).replace('date-time', 'timestamp')}.`];
    case 'pattern': return [field, 'Enter a value in the expected format.'];
    case 'enum': return [field, `Must be one of: ${(error.params.allowedValues as unknown[]).map(String).join(', ')}.`];
    case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum':
      return [field, `Ensure this value is ${COMPARISONS[String(error.params.comparison)] ?? String(error.params.comparison)} ${error.params.limit}.`];
    case 'type': return [field, `Must be of type ${String(error.params.type)}.`];
    default: return [field, error.message ? `${error.message[0].toUpperCase()}${error.message.slice(1)}.` : 'Invalid value.'];
  }
}

const isUnion = (error: AjvError) => error.keyword === 'anyOf' || error.keyword === 'oneOf';

/**
 * The errors worth showing for a union (anyOf/oneOf). When the value's JSON type rules out
 * all branches but one (an object sent where "an object or an array" is taken), that
 * branch's own errors say what is wrong; otherwise the union's summary stands for all.
 *
 * A body may hold thousands of unions and errors (an array of 100,000 items where at most
 * 100 are taken): each error finds its unions by lookup, so the work grows with the number
 * of errors, never with its square.
 */
function resolveUnions(validation: AjvError[]): AjvError[] {
  const unions = validation.filter(isUnion);
  if (!unions.length) return validation;
  // Unions by schema path, then by instance path.
  const index = new Map<string, Map<string, AjvError>>();
  for (const union of unions) {
    let byInstance = index.get(union.schemaPath);
    if (!byInstance) index.set(union.schemaPath, (byInstance = new Map()));
    byInstance.set(union.instancePath, union);
  }
  // The errors inside each union's branches: under its schema path, at or under its instance path.
  const members = new Map<AjvError, AjvError[]>();
  for (const error of validation) {
    for (const [schemaPath, byInstance] of index) {
      if (!error.schemaPath.startsWith(`${schemaPath}/`)) continue;
      for (let at = error.instancePath; ; at = at.slice(0, at.lastIndexOf('/'))) {
        const union = byInstance.get(at);
        if (union && union !== error) {
          const list = members.get(union);
          if (list) list.push(error);
          else members.set(union, [error]);
        }
        if (!at) break;
      }
    }
  }
  const dropped = new Set<AjvError>();
  for (const union of unions.sort((a, b) => a.schemaPath.length - b.schemaPath.length)) {
    if (dropped.has(union)) continue; // inside a branch already dropped
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, AjvError[]>();
    for (const error of members.get(union) ?? []) {
      if (dropped.has(error)) continue;
      const branch = error.schemaPath.slice(prefix.length).split('/')[0];
      const list = branches.get(branch);
      if (list) list.push(error);
      else branches.set(branch, [error]);
    }
    const fitting = [...branches].filter(([branch, list]) =>
      !list.some((e) => e.keyword === 'type' && e.instancePath === union.instancePath && e.schemaPath === `${prefix}${branch}/type`));
    const kept = fitting.length === 1 ? new Set(fitting[0][1]) : null;
    for (const list of branches.values()) for (const error of list) if (!kept?.has(error)) dropped.add(error);
    if (kept) dropped.add(union);
  }
  return validation.filter((e) => !dropped.has(e));
}

/**
 * Without the errors of items past an array's maxItems: the array is reported as too long,
 * and a body of 200,000 wrong items does not become 200,000 field errors.
 */
function withinMaxItems(validation: AjvError[]): AjvError[] {
  const limits = new Map<string, number>();
  for (const error of validation) {
    if (error.keyword === 'maxItems') limits.set(error.instancePath, Number(error.params.limit));
  }
  if (!limits.size) return validation;
  return validation.filter((error) => {
    for (const [array, limit] of limits) {
      if (!error.instancePath.startsWith(`${array}/`)) continue;
      const index = error.instancePath.slice(array.length + 1).split('/', 1)[0];
      if (Number(index) >= limit) return false;
    }
    return true;
  });
}

/** The most fields a 400 lists; past it, non_field_errors says more were wrong. */
export const MAX_FIELD_ERRORS = 100;

/** Field errors {"field": ["message"]} from ajv's errors (see resolveUnions for unions). */
export function validationBody(validation: AjvError[], context?: string): Record<string, string[]> {
  // Field names come from the request ("constructor", "__proto__" …): no inherited keys.
  const out: Record<string, string[]> = Object.create(null);
  let fields = 0;
  for (const error of resolveUnions(withinMaxItems(validation))) {
    let [field, message] = describeValidation(error);
    if (isUnion(error)) message = 'Invalid value.';
    if (field === 'non_field_errors' && context === 'body' && error.keyword === 'type') message = 'Expected a JSON object.';
    if (!out[field]) {
      if (fields === MAX_FIELD_ERRORS) {
        (out.non_field_errors ??= []).push(`More fields have errors; only the first ${MAX_FIELD_ERRORS} are listed.`);
        break;
      }
      out[field] = [];
      fields += 1;
    }
    if (!out[field].includes(message)) out[field].push(message);
  }
  return out;
}

// 57014: a statement cancelled by statement_timeout (db/client.ts): the database is too busy or stuck.
// 40P01, 40001: a deadlock or serialization failure broke the transaction (rolled back whole): retry.
const UNAVAILABLE_CODES = ['40P01', '40001', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57014', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'];

/** Whether the database could not be reached: the error or one of its causes (Drizzle wraps the driver's error) says so. */
function isDatabaseUnavailable(error: unknown): boolean {
  let e = error as { code?: string; message?: string; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth += 1, e = e.cause as typeof e) {
    // Connection-level failures of node-postgres and PostgreSQL's "shutting down" classes.
    if (UNAVAILABLE_CODES.includes(e.code ?? '')) return true;
    if (/^(Connection terminated|Client has encountered a connection error|Query read timeout)|connection timeout|timeout exceeded when trying to connect/i.test(e.message ?? '')) return true;
  }
  return false;
}

function send(reply: FastifyReply, error: ApiError): FastifyReply {
  reply.code(error.statusCode).headers(error.headers);
  if (typeof error.body === 'string') return reply.type('text/plain; charset=utf-8').send(error.body);
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(error.body));
}

/** How deeply arrays and objects may nest in a request body. */
export const MAX_NESTING = 32;

type InputProblem = { at: string[]; message: string };

/**
 * What PostgreSQL cannot store of a string: a NUL character, or an unpaired UTF-16
 * surrogate (JSON's "\ud800" alone is no Unicode character: jsonb refuses it, text
 * would hold U+FFFD in its place).
 */
// (String.prototype.isWellFormed: Node 20's V8; the compiler's ES2022 library does not declare it.)
function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'Null characters are not allowed.';
  if (!(text as unknown as { isWellFormed(): boolean }).isWellFormed()) return 'Not valid Unicode: an unpaired surrogate (\\ud800–\\udfff alone); send each character whole.';
  return null;
}

/**
 * The first problem of a request's parsed input: a string (value or key) holding a NUL
 * character or an unpaired surrogate, or arrays and objects nested deeper than MAX_NESTING. Walks without
 * recursion, so no input can exhaust the stack.
 */
function inputProblem(value: unknown): InputProblem | null {
  const pending: Array<{ value: unknown; at: string[] }> = [{ value, at: [] }];
  while (pending.length) {
    const { value: item, at } = pending.pop()!;
    const key = at[at.length - 1];
    if (key !== undefined) {
      const bad = textProblem(key);
      if (bad) return { at, message: bad };
    }
    if (typeof item === 'string') {
      const bad = textProblem(item);
      if (bad) return { at, message: bad };
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (at.length >= MAX_NESTING) {
      return { at: at.slice(0, 1), message: `Nested too deeply: at most ${MAX_NESTING} levels of arrays and objects.` };
    }
    const entries = Object.entries(item);
    // Pushed in reverse, so fields are checked in their order (the first bad one is named).
    for (let i = entries.length - 1; i >= 0; i -= 1) pending.push({ value: entries[i][1], at: [...at, entries[i][0]] });
  }
  return null;
}

/** Installs the one handler that turns every error into the API's error bodies. */
export function installErrorHandler(app: FastifyInstance): void {
  // PostgreSQL text and jsonb cannot hold a NUL character nor an unpaired surrogate, and values nested thousands
  // deep overflow the stack of whatever serializes them (JSON.stringify, the database
  // driver): refuse both as bad input (400) once the request has passed its schema,
  // before any handler sees it.
  app.addHook('preHandler', async (request) => {
    for (const part of [request.params, request.query, request.body]) {
      const problem = inputProblem(part);
      if (problem) throw errors.field(problem.at.join('.') || 'non_field_errors', problem.message);
    }
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) return send(reply, error);
    if (error.validation) {
      // No body at all where one is needed (see protocol-errors.ts installEmptyBodyAsNone).
      if (error.validationContext === 'body' && request.body === undefined) {
        return send(reply, errors.badRequest('The request body is empty; send a JSON object.'));
      }
      return send(reply, new ApiError(400, validationBody(error.validation as AjvError[], error.validationContext)));
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(reply, new ApiError(415, { detail: `Unsupported media type "${request.headers['content-type'] ?? ''}" in request; send application/json.` }));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        lingerAfterRefusal(request.raw);
        return send(reply, new ApiError(413, { detail: 'Request body is too large.' }));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(reply, errors.badRequest('The request body is empty; send a JSON object.'));
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return send(reply, errors.badRequest('JSON parse error - the request body is not valid JSON.'));
      default:
    }
    if (error instanceof SyntaxError || error.statusCode === 400) {
      return send(reply, errors.badRequest('JSON parse error - the request body is not valid JSON.'));
    }
    const unique = uniqueRuleError(error);
    if (unique) return send(reply, unique);
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: { code: (error as { code?: string }).code, message: safeMessage(error) } }, 'database unavailable');
      return send(reply, errors.unavailable());
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, new ApiError(error.statusCode, { detail: error.message }));
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, new ApiError(500, { detail: MESSAGES.serverError }));
  });

  app.setNotFoundHandler((request, reply) => missingSlash(request, reply) ?? send(reply, errors.notFound()));
  // A path that does not exist answers its 404 before any body is read: never a 413 or 415
  // about the body of a request that has nowhere to go. (GET and HEAD carry none, and may
  // still be a browser's navigation to the web app.)
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404 || request.method === 'GET' || request.method === 'HEAD') return;
    return missingSlash(request, reply) ?? send(reply, errors.notFound());
  });
}

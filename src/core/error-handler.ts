import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, MESSAGES, errors } from './errors.js';

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
 */
function resolveUnions(validation: AjvError[]): AjvError[] {
  let errors = validation;
  const unions = errors.filter(isUnion).sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const union of unions) {
    if (!errors.includes(union)) continue; // inside a branch already dropped
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, AjvError[]>();
    for (const error of errors) {
      if (!error.schemaPath.startsWith(prefix)) continue;
      const branch = error.schemaPath.slice(prefix.length).split('/')[0];
      branches.set(branch, [...(branches.get(branch) ?? []), error]);
    }
    const fitting = [...branches].filter(([branch, list]) =>
      !list.some((e) => e.keyword === 'type' && e.instancePath === union.instancePath && e.schemaPath === `${prefix}${branch}/type`));
    const dropped = new Set<AjvError>([...branches.values()].flat());
    if (fitting.length === 1) {
      dropped.add(union);
      for (const error of fitting[0][1]) dropped.delete(error);
    }
    errors = errors.filter((e) => !dropped.has(e));
  }
  return errors;
}

/** Field errors {"field": ["message"]} from ajv's errors (see resolveUnions for unions). */
export function validationBody(validation: AjvError[], context?: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const error of resolveUnions(validation)) {
    let [field, message] = describeValidation(error);
    if (isUnion(error)) message = 'Invalid value.';
    if (field === 'non_field_errors' && context === 'body' && error.keyword === 'type') message = 'Expected a JSON object.';
    (out[field] ??= []);
    if (!out[field].includes(message)) out[field].push(message);
  }
  return out;
}

const UNAVAILABLE_CODES = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'];

/** Whether the database could not be reached: the error or one of its causes (Drizzle wraps the driver's error) says so. */
function isDatabaseUnavailable(error: unknown): boolean {
  let e = error as { code?: string; message?: string; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth += 1, e = e.cause as typeof e) {
    // Connection-level failures of node-postgres and PostgreSQL's "shutting down" classes.
    if (UNAVAILABLE_CODES.includes(e.code ?? '')) return true;
    if (/^(Connection terminated|Client has encountered a connection error)|connection timeout|timeout exceeded when trying to connect/i.test(e.message ?? '')) return true;
  }
  return false;
}

function send(reply: FastifyReply, error: ApiError): FastifyReply {
  reply.code(error.statusCode).headers(error.headers);
  if (typeof error.body === 'string') return reply.type('text/plain; charset=utf-8').send(error.body);
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(error.body));
}

/** The path of the first string (value or key) in `value` that holds a NUL character, or null. */
function nulCharacterPath(value: unknown, at: string[] = []): string[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? at : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return [...at, key];
    const found = nulCharacterPath(item, [...at, key]);
    if (found) return found;
  }
  return null;
}

/** Installs the one handler that turns every error into the API's error bodies. */
export function installErrorHandler(app: FastifyInstance): void {
  // PostgreSQL text and jsonb cannot hold a NUL character: refuse it as bad input (400)
  // once the request has passed its schema, before any handler sends it to the database.
  app.addHook('preHandler', async (request) => {
    for (const part of [request.params, request.query, request.body]) {
      const at = nulCharacterPath(part);
      if (at) throw errors.field(at.join('.') || 'non_field_errors', 'Null characters are not allowed.');
    }
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) return send(reply, error);
    if (error.validation) {
      return send(reply, new ApiError(400, validationBody(error.validation as AjvError[], error.validationContext)));
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(reply, new ApiError(415, { detail: `Unsupported media type "${request.headers['content-type'] ?? ''}" in request; send application/json.` }));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
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
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: { code: (error as { code?: string }).code, message: error.message } }, 'database unavailable');
      return send(reply, errors.unavailable());
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, new ApiError(error.statusCode, { detail: error.message }));
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, new ApiError(500, { detail: MESSAGES.serverError }));
  });

  app.setNotFoundHandler((request, reply) => send(reply, errors.notFound()));
}

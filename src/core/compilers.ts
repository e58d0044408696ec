// Fastify's schema compilers for the service: each distinct schema is compiled once, and
// only when a request first needs it (docs/decisions.md, "npm start builds only what changed").
//
// Fastify compiles every route's validators and serializers as the app gets ready; with
// ~1,100 routes (every list per serializer, every path's 405 answers) that was ~0.5 s of
// CPU on every start, for schemas most of which a process never uses. Here each compiler
// hands Fastify a stand-in that compiles on its first call and delegates after that; the
// same schema text gets the same stand-in, so a schema shared by many routes compiles once.
import { SerializerSelector, type Serializer, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/** A validator that compiles its schema on its first call; Fastify sees an Ajv validate function. */
function lazyValidator(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const get = () => (compiled ??= compile());
  // Fastify calls it with Ajv's data context (so a root value can be coerced) when the
  // function has `schemaEnv`, and reads `errors` after a failure: both as Ajv's own.
  const validate = function (this: unknown, data: unknown, dataCxt?: unknown) {
    const fn = get();
    const valid = (fn as (this: unknown, d: unknown, c?: unknown) => boolean).call(this, data, dataCxt);
    validate.errors = fn.errors;
    return valid;
  } as ValidateFunction;
  Object.defineProperty(validate, 'schemaEnv', { get: () => get().schemaEnv });
  return validate;
}

/**
 * The validator compiler. Bodies are validated strictly (no coercion, unknown fields
 * refused); query strings, path parameters and headers are coerced from their text form.
 * The routes repeat the same few dozen schemas (ids, pages, levels), each route its own
 * copy. The two Ajv instances are made with the first validator that compiles (an
 * instance compiles its meta-schemas as it is made).
 */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const make = (coerceTypes: boolean) => {
    const ajv = new Ajv({ allErrors: true, coerceTypes, removeAdditional: false, useDefaults: true, strict: false });
    addFormats.default(ajv);
    return ajv;
  };
  let strict: Ajv | undefined;
  let coercing: Ajv | undefined;
  const validators = new Map<string, ValidateFunction>();
  return ({ schema, httpPart }) => {
    const body = httpPart === 'body';
    const key = `${body ? 'body' : 'text'} ${JSON.stringify(schema)}`;
    let validate = validators.get(key);
    if (!validate) {
      const compile = () => (body ? (strict ??= make(false)) : (coercing ??= make(true))).compile(schema as object);
      validators.set(key, (validate = lazyValidator(compile)));
    }
    return validate;
  };
}

/** The serializer compiler: fast-json-stringify's, one serializer per distinct answer schema, built on its first answer. */
export const sharedSerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  const built = new Map<string, Serializer>();
  return (route) => {
    const key = JSON.stringify(route.schema);
    let serialize = built.get(key);
    if (!serialize) {
      let compiled: Serializer | undefined;
      built.set(key, (serialize = (doc) => (compiled ??= compile(route))(doc)));
    }
    return serialize;
  };
};

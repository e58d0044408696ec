// Fastify's schema compilers for the service: each distinct schema is compiled once, and
// not while the server starts (docs/decisions.md, "npm start builds only what changed").
//
// Fastify compiles every route's validators and serializers as the app gets ready; with
// ~960 routes (every list per serializer, HEAD beside GET, every path's 405 answers) that
// was ~0.5 s of CPU before a server could answer. Here each compiler hands Fastify a
// stand-in that compiles its schema on its first call and delegates after that (the same
// schema text gets the same stand-in, so a schema shared by many routes compiles once),
// and warm() compiles the rest in small slices once the server listens: the first
// requests do not pay for it, and a schema that does not compile is logged at start-up.
import { SerializerSelector, type Serializer, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyBaseLogger, FastifySchemaCompiler } from 'fastify';

/** How long one slice of warm() may compile before it lets other work run. */
const SLICE_MS = 10;

interface Pending {
  /** Compiles (once) and returns the compiled function. */
  compile(): unknown;
  what: string;
}

export class SchemaCompilers {
  /** Stand-ins not compiled yet, for warm(). */
  private readonly pending: Pending[] = [];

  /** A validator that compiles its schema on its first call; Fastify sees an Ajv validate function. */
  private lazyValidator(compile: () => ValidateFunction, what: string): ValidateFunction {
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
    this.pending.push({ compile: get, what });
    return validate;
  }

  /**
   * The validator compiler. Bodies are validated strictly (no coercion, unknown fields
   * refused); query strings, path parameters and headers are coerced from their text form.
   * The routes repeat the same few dozen schemas (ids, pages, levels), each route its own
   * copy or the same object. The two Ajv instances are made with the first validator that
   * compiles (an instance compiles its meta-schemas as it is made).
   */
  validator(): FastifySchemaCompiler<unknown> {
    const make = (coerceTypes: boolean) => {
      const ajv = new Ajv({ allErrors: true, coerceTypes, removeAdditional: false, useDefaults: true, strict: false });
      addFormats.default(ajv);
      return ajv;
    };
    let strict: Ajv | undefined;
    let coercing: Ajv | undefined;
    const byText = new Map<string, ValidateFunction>();
    const byObject = { body: new WeakMap<object, ValidateFunction>(), text: new WeakMap<object, ValidateFunction>() };
    return ({ schema, httpPart, method, url }) => {
      const part = httpPart === 'body' ? 'body' : 'text';
      const same = typeof schema === 'object' && schema !== null ? byObject[part] : null;
      let validate = same?.get(schema as object);
      if (validate) return validate;
      const key = `${part} ${JSON.stringify(schema)}`;
      validate = byText.get(key);
      if (!validate) {
        const compile = () => (part === 'body' ? (strict ??= make(false)) : (coercing ??= make(true))).compile(schema as object);
        byText.set(key, (validate = this.lazyValidator(compile, `${method} ${url} ${httpPart}`)));
      }
      same?.set(schema as object, validate);
      return validate;
    };
  }

  /** The serializer compiler: fast-json-stringify's, one serializer per distinct answer schema, built on its first answer. */
  readonly serializer: SerializerFactory = (externalSchemas, options) => {
    const compile = SerializerSelector()(externalSchemas, options);
    const byText = new Map<string, Serializer>();
    const byObject = new WeakMap<object, Serializer>();
    return (route) => {
      const schema = route.schema as object;
      let serialize = byObject.get(schema);
      if (serialize) return serialize;
      const key = JSON.stringify(schema);
      serialize = byText.get(key);
      if (!serialize) {
        let compiled: Serializer | undefined;
        const get = () => (compiled ??= compile(route));
        byText.set(key, (serialize = (doc) => get()(doc)));
        this.pending.push({ compile: get, what: `${route.method} ${route.url} ${route.httpStatus}` });
      }
      byObject.set(schema, serialize);
      return serialize;
    };
  };

  /** Compiles every stand-in not compiled yet, a slice at a time between other work; a failure is logged (its route answers 500). */
  warm(log: FastifyBaseLogger): void {
    const slice = () => {
      const until = performance.now() + SLICE_MS;
      while (this.pending.length && performance.now() < until) {
        const next = this.pending.pop()!;
        try {
          next.compile();
        } catch (err) {
          log.error({ err, route: next.what }, 'a route schema does not compile');
        }
      }
      if (this.pending.length) setTimeout(slice, 0).unref();
    };
    setTimeout(slice, 0).unref();
  }
}

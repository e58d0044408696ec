// TypeBox pieces every resource's schemas are built from.
import { Type, type TSchema, type TObject, type TProperties } from '@sinclair/typebox';

/** A sid (as the API shows it). */
export const Sid = Type.String({ description: 'identifier', example: 'a1B2c3D4e5F6g7H8' });
/** ISO 8601 UTC with microseconds and a trailing Z. */
export const Timestamp = Type.String({ description: 'ISO 8601 UTC timestamp with microseconds', example: '2018-07-27T07:10:57.279388Z' });
/** YYYY-MM-DD. */
export const DateString = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD', example: '2024-01-15' });
/** A formatted amount. */
export const Money = Type.String({ description: 'formatted currency amount', example: '$12.50' });
/** {sid, name}: how one record refers to another. */
export const Ref = Type.Object({ sid: Sid, name: Type.String() }, { title: 'Ref' });

/** `schema` or null. */
export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});

/**
 * What the OpenAPI document declares in place of a validating schema (core/openapi.ts,
 * `DOCUMENTED`): the service accepts more spellings than a typed client needs to send, or
 * checks less than the document can say. 'boolean': a boolean; 'JsonValue': the named
 * schema of any JSON value (rather than `unknown` in generated types).
 */
export type Documented = 'boolean' | 'JsonValue';
const documentedAs = (as: Documented) => ({ 'x-document': as });

/** Any JSON value (documented as `JsonValue`). */
export const JsonValue = () => Type.Unknown(documentedAs('JsonValue'));

/** A JSON object of any content. */
export const JsonObject = (description: string) => Type.Record(Type.String(), JsonValue(), { description });

/** A text field of a request body, at most `max` characters. */
export const Text = (max = 255, options: { minLength?: number; description?: string } = {}) =>
  Type.String({ maxLength: max, ...options });

/** One of a fixed set of strings (a JSON-schema enum: its error names the allowed values). */
export const StringEnum = <T extends string>(values: readonly T[], options: { description?: string; 'x-document'?: Documented } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

/**
 * A boolean that also accepts the strings "true" and "false" (the spec types some flags as
 * strings); documented as a boolean, what a typed client sends.
 */
export const BoolLike = Type.Union([Type.Boolean(), Type.Union([Type.Literal('true'), Type.Literal('false')])], {
  description: 'true or false (as a JSON boolean or the string "true"/"false")', ...documentedAs('boolean'),
});

/** Normalizes a BoolLike value. */
export function toBool(value: boolean | 'true' | 'false'): boolean {
  return value === true || value === 'true';
}

/** The spellings of a boolean in a query string: what browsers, curl and Python (`True`, `1`) send. */
const QUERY_BOOLEANS = ['true', 'false', 'True', 'False', 'TRUE', 'FALSE', '1', '0'] as const;
/** A boolean query parameter: documented as a boolean (a typed client sends `true`/`false`), any of QUERY_BOOLEANS accepted. */
export const QueryBool = (description: string) =>
  StringEnum(QUERY_BOOLEANS, { description: `${description} (true, True, 1; false, False, 0)`, ...documentedAs('boolean') });

/** A QueryBool's value (absent: false). */
export function queryBool(value: string | undefined): boolean {
  return value !== undefined && ['true', '1'].includes(value.toLowerCase());
}

/** A request body object that refuses unknown fields. */
export const Body = <T extends TProperties>(properties: T, options: { description?: string; minProperties?: number } = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** A response record (documents and serializes exactly these fields). */
export const Record_ = <T extends TProperties>(properties: T, description?: string): TObject<T> =>
  Type.Object(properties, description ? { description } : {});

export const DetailError = Type.Object({ detail: Type.String() }, { title: 'Error', description: 'an error: {"detail": message}' });
export const FieldErrors = Type.Record(Type.String(), Type.Array(Type.String()), { title: 'FieldErrors', description: 'field errors: {"field": ["message"]}' });
export const PlainText = Type.String({ title: 'PlainText', description: 'a plain-text message' });

/** The page envelope around `item`. */
export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    page_size: Type.Integer(),
    page_number: Type.Integer(),
    page_count: Type.Integer(),
    count: Type.Integer(),
    next: Type.Union([Type.String(), Type.Null()]),
    previous: Type.Union([Type.String(), Type.Null()]),
    add_permission: Type.Boolean(),
    results: Type.Array(item),
  }, item.title ? { title: `${item.title}Page` } : {});
}

/** Query parameters of every list. */
export const PageQuery = {
  // Titled: the document shares a titled parameter under that name (core/openapi.ts).
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'page number, from 1', title: 'Page' })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'records per page (default 10, at most 100)', title: 'PageSize' })),
};

/** The error responses a route can give, documented once. */
export const ErrorResponses = {
  400: FieldErrors,
  401: DetailError,
  403: DetailError,
  404: DetailError,
  405: DetailError,
  406: PlainText,
} as const;

/** Labii's `metadata` (tables, columns, projects, organizations): an array or an object of JSON values, as the caller keeps it. */
export const MetadataIn = Type.Union([
  Type.Array(JsonValue(), { maxItems: 1000 }),
  Type.Record(Type.String(), JsonValue()),
], { description: 'any JSON array or object, kept as sent' });
export const MetadataOut = JsonValue();

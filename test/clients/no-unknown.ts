// A compile-time check on generated types (issue 22, point 11): `Leaks<T, Json>` is never
// when no part of T is `unknown` or `any`, else 'unknown'. `Json` is the document's
// JsonValue (a closed, recursive union of JSON values), accepted as it is. Compiled with
// the walkthroughs beside it by test/modules/generated-clients.test.ts.

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export type Leaks<T, Json> = unknown extends T ? 'unknown' : Same<T, Json> extends true ? never : Parts<T, Json>;

type Parts<T, Json> = T extends readonly (infer U)[]
  ? Leaks<U, Json>
  : T extends object
    ? { [K in keyof T]-?: Leaks<Exclude<T[K], undefined>, Json> }[keyof T]
    : never;

/** Compiles only when `T` is never: `Expect<Leaks<Shape, Json>>`. */
export type Expect<T extends never> = T;

// The check is not blind: it finds `unknown` deep in an object, in an array, behind an index signature.
type Blind<T> = [T] extends ['unknown'] ? never : 'Leaks misses an unknown';
export type SelfTest = [
  Expect<Blind<Leaks<{ a: { b: unknown[] } }, null>>>,
  Expect<Blind<Leaks<{ [key: string]: unknown }, null>>>,
  Expect<Blind<Leaks<{ a?: string; b: { c: any } }, null>>>,
];

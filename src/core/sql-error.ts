// The database's error inside whatever wrapped it (Drizzle wraps the driver's error in its
// own, with the driver's as `cause`): its SQLSTATE and the fields callers read.

/** What a PostgreSQL error (node-postgres' or PGlite's) says. */
export interface SqlError {
  code: string;
  constraint?: string;
  detail?: string;
}

/** The first error of `error`'s chain of causes that carries a SQLSTATE, if any. */
export function sqlErrorOf(error: unknown): SqlError | undefined {
  let e = error as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth += 1, e = e.cause as typeof e) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e as SqlError;
  }
  return undefined;
}

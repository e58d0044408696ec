// Statements whose SQL text is built once per process (issue 23; docs/performance.md): the
// write path's statements run in a transaction, a new Drizzle handle each time, so
// core/prepared.ts (built once per handle) does not reach them, and building their text
// was ≈ 0.6 ms of a cell PATCH's Node time. A statement here is written once with
// sql.placeholder() for every value, turned into its text and parameter list the first
// time its key is asked for, and from then on only run with the values: the same text,
// which the pg client sends as one named statement per connection (db/postgres.ts). Only
// the text is kept, never a result.
import type { SQL } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { genericTwin } from './prepared.js';

interface Built {
  sql: string;
  params: unknown[];
}

/** What this file needs of a Drizzle handle (either engine's, or a transaction's). */
interface Handle {
  dialect: { sqlToQuery(statement: SQL): Built };
  session: { prepareQuery(query: Built, fields: undefined, name: undefined, arrayMode: boolean): { execute(values: Record<string, unknown>): Promise<unknown> } };
}

const built = new Map<string, Built>();

/**
 * Runs the statement `build` makes (its values sql.placeholder()s) with `values`, and
 * returns its rows. `key` names the statement: everything that changes its text must be
 * in it (the text is built on the key's first use and kept). `generic`: its best plan does
 * not depend on its values (lookups by key), it may keep a generic plan (core/prepared.ts's
 * planGenerically; in a transaction it stays in the transaction).
 */
export async function runBuilt<T>(
  db: Db, key: string, build: () => SQL, values: Record<string, unknown>, options: { generic?: boolean } = {},
): Promise<T[]> {
  const handle = (options.generic ? genericTwin(db) : db) as unknown as Handle;
  let query = built.get(key);
  if (!query) built.set(key, (query = handle.dialect.sqlToQuery(build())));
  const result = await handle.session.prepareQuery(query, undefined, undefined, false).execute(values);
  return (result as { rows: T[] }).rows;
}

// Hot statements' SQL built once (issue 23; docs/performance.md): Drizzle writes a query's
// SQL text from its builder on every call (≈ 0.5 ms of a list request). A query prepared
// here is built once per database handle and shape (which optional filters it has), with
// sql.placeholder() for every value, and then only run with the values: the same text
// each time, which the pg client sends as one named statement per connection
// (db/client.ts), so PostgreSQL parses it once and may keep a generic plan. Only the SQL
// text is kept, never a result: nothing here can answer with stale data or permissions.
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import type { Membership } from './roles.js';

/** What Drizzle's `.prepare(name)` gives: a query run with its placeholders' values. */
export interface PreparedRun<T> {
  execute(values?: Record<string, unknown>): Promise<T>;
}

type Builder<T> = (db: Db, shape: string) => { prepare(name: string): PreparedRun<T> };

/** A database handle's twin whose sessions may keep generic plans (db/postgres.ts), by handle. */
const genericTwins = new WeakMap<object, Db>();

/**
 * Statements run through `runPrepared(db, …, { generic: true })` go to `twin` instead of
 * `db`: PostgreSQL sessions under `plan_cache_mode = force_generic_plan`, where a
 * statement prepared on the connection is planned once, for no values, and keeps that
 * plan. Only for statements whose best plan cannot depend on the values (keys, a page of
 * an organization's or a recipient's records, a page of a table's rows in an order one of
 * its indexes gives, a page of a row's versions found in its index); a table's rows
 * filtered further and searches stay on `db` (`force_custom_plan`: planned for their
 * values every time). A transaction's handle has no twin: its statements stay in it.
 */
export function planGenerically(db: Db, twin: Db): void {
  genericTwins.set(db, twin);
}

/** The handle a statement whose best plan does not depend on its values runs on: `db`'s twin (planGenerically), or `db` itself. */
export function genericTwin(db: Db): Db {
  return genericTwins.get(db) ?? db;
}

const prepared = new WeakMap<object, Map<Builder<unknown>, Map<string, PreparedRun<unknown>>>>();
let named = 0;

/**
 * Runs the query `build` makes for `shape` with `values` for its placeholders. The query
 * is built the first time this handle asks for this builder and shape (a transaction's
 * handle is a new one: its queries are built in it). `shape` must name everything that
 * changes the SQL text; values go in `values`. `generic`: the statement's best plan does
 * not depend on its values, it may keep a generic plan (planGenerically).
 */
export function runPrepared<T>(
  db: Db, build: Builder<T>, shape: string, values: Record<string, unknown>, options: { generic?: boolean } = {},
): Promise<T> {
  if (options.generic) db = genericTwin(db);
  let byBuilder = prepared.get(db);
  if (!byBuilder) prepared.set(db, (byBuilder = new Map()));
  let byShape = byBuilder.get(build as Builder<unknown>);
  if (!byShape) byBuilder.set(build as Builder<unknown>, (byShape = new Map()));
  let query = byShape.get(shape) as PreparedRun<T> | undefined;
  if (!query) {
    named += 1;
    query = build(db, shape).prepare(`rsq${named}`);
    byShape.set(shape, query as PreparedRun<unknown>);
  }
  return query.execute(values);
}

/** A value of a statement built once where its builder takes a sid: the placeholder `name`, typed as the text it stands for. */
export function placeholderText(name: string): string {
  return sql.placeholder(name) as unknown as string;
}

/**
 * A member of organization role `role` whose organization and personnel sids are the
 * placeholders `org` and `me`: the read rules of a statement built once a role (the rules'
 * SQL differs by role, never by sid).
 */
export function placeholderMember(role: string): Membership {
  return { organizationSid: placeholderText('org'), organizationName: '', personnelSid: placeholderText('me'), role: role as Membership['role'] };
}

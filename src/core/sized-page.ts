// A read of a page by its records' real sizes (core/answer-stream.ts, a `sized` list): the
// database measures each record of the page and keeps the first ones whose sizes add up to
// the placeholder `max_bytes` (always the first), so a page of records that could be large
// but are not is one read, and one that is large never reaches the process whole.
import { is, sql, SQL, type Column, type SQLWrapper } from 'drizzle-orm';
import type { Db } from '../db/client.js';

/**
 * `fields` fit for a subquery: each named by its key (two tables' columns of one name, as
 * `sid`, would clash), a column still read as its type.
 */
export function named<F extends Record<string, unknown>>(fields: F): F {
  return Object.fromEntries(Object.entries(fields).map(([name, field]) => [
    name, is(field, SQL) ? field.as(name) : sql`${field as Column}`.mapWith(field as Column).as(name),
  ])) as F;
}

/** A subquery of a page: its selected fields by key (drizzle's `.as()` of a select). */
interface PageSubquery {
  _: { selectedFields: Record<string, unknown> };
}

/**
 * The records of `page` (a select of `keep`'s fields, `bytes` — a record's size as JSON at
 * most — and the fields `order` sorts by, with its LIMIT and OFFSET, as a subquery) whose
 * running sum of `bytes` in `order` is within the placeholder `max_bytes`, or the first;
 * in `order`. `order` takes a subquery's fields and gives the ORDER BY terms (unique together).
 */
export function sizedPage<T>(db: Db, page: PageSubquery, keep: readonly string[], order: (fields: Record<string, SQLWrapper>) => SQLWrapper[]): T {
  // The subquery's fields as the outer statement names them ("page"."email"): through the subquery, not its selection.
  const inner = Object.fromEntries(Object.keys(page._.selectedFields).map((name) => [name, (page as unknown as Record<string, SQLWrapper>)[name]]));
  const running = db.select({
    ...(inner as Record<string, SQL>),
    running: sql<number>`sum(${inner.bytes}) OVER (ORDER BY ${sql.join(order(inner), sql`, `)})`.as('running'),
  }).from(page as never).as('sized');
  const outer = running as unknown as Record<string, SQLWrapper>;
  return db.select(Object.fromEntries(keep.map((name) => [name, outer[name]])) as Record<string, SQL>).from(running)
    .where(sql`${outer.running} <= ${sql.placeholder('max_bytes')} OR ${outer.running} = ${outer.bytes}`)
    .orderBy(...(order(outer) as SQL[])) as T;
}

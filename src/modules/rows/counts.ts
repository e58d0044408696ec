// The count of a row list from the counters of record_row_counts (kept by triggers in every
// row write's transaction), with the rows counted through other projects and those open to
// the organization: a few counter rows per table and project, however many rows it holds.
import { sql, and, type SQL } from 'drizzle-orm';
import { rowCounts } from '../../db/schema.js';
import { readsProject } from '../../core/rules.js';
import type { Membership } from '../../core/access.js';
import type { RowFilter } from './repository.js';

/** What record_row_counts can count exactly: the rows of a table or project, in a state. */
export interface CountedFilter {
  table__sid?: string;
  project__sid?: string;
  is_archived?: boolean;
  is_locked?: boolean;
}

/** Whether the counters (with the rows in several projects) count a list exactly: no filter of Labii's but is_archived. */
export function countable(filter: RowFilter): boolean {
  const { table__sid: _t, project__sid: _p, is_archived: _a, ...rest } = filter as RowFilter & { page?: unknown; page_size?: unknown };
  const { page: _pg, page_size: _ps, ...others } = rest as Record<string, unknown>;
  return Object.values(others).every((v) => v === undefined);
}

/**
 * The exact number of rows the member may read under `filter`, as a subquery that sums
 * the counters of record_row_counts (kept by triggers in every row write's transaction):
 * a few counter rows per table and project, however many rows the table holds. The
 * counters count a row under its first project; the rows the member reads (or that
 * project__sid selects) only through another of their projects are counted from
 * record_row_projects, which holds only those other projects.
 */
export function rowCount(orgSid: string, membership: Membership, filter: CountedFilter): SQL<number> {
  const { is_archived: a, is_locked: l } = filter;
  let measure: SQL;
  if (a === undefined && l === undefined) measure = sql`c.rows`;
  else if (l === undefined) measure = a ? sql`c.archived` : sql`c.rows - c.archived`;
  else if (a === undefined) measure = l ? sql`c.locked` : sql`c.rows - c.locked`;
  else if (a && l) measure = sql`c.archived_locked`;
  else if (a) measure = sql`c.archived - c.archived_locked`;
  else if (l) measure = sql`c.locked - c.archived_locked`;
  else measure = sql`c.rows - c.archived - c.locked + c.archived_locked`;
  const conditions = [
    sql`c.organization_sid = ${orgSid}`,
    // As where() and the grid's condition read them: an empty sid filters nothing.
    filter.table__sid ? sql`c.table_sid = ${filter.table__sid}` : undefined,
    filter.project__sid ? sql`c.project_sid = ${filter.project__sid}` : undefined,
    readsProject.forMember(membership, sql`c.project_sid`),
  ].filter((c): c is SQL => c !== undefined);
  // Counted under its first project: that project is selected and readable.
  const firstCounts = and(
    filter.project__sid ? sql`r.project_sid = ${filter.project__sid}` : undefined,
    readsProject.forMember(membership, sql`r.project_sid`),
  )!;
  const others = [
    sql`rp.organization_sid = ${orgSid}`,
    filter.project__sid ? sql`rp.project_sid = ${filter.project__sid}` : undefined,
    readsProject.forMember(membership, sql`rp.project_sid`),
    filter.table__sid ? sql`r.table_sid = ${filter.table__sid}` : undefined,
    a !== undefined ? sql`r.is_archived = ${a}` : undefined,
    l !== undefined ? sql`r.is_locked = ${l}` : undefined,
    sql`NOT ${firstCounts}`,
  ].filter((c): c is SQL => c !== undefined);
  // An Admin reads every row and, without project__sid, every row is counted under its first
  // project already: no row is counted through another (a subquery fewer to plan).
  const throughOthers = membership.role === 'admin' && !filter.project__sid ? sql`0`
    : sql`(SELECT count(DISTINCT rp.row_sid)::int FROM record_row_projects rp JOIN record_rows r ON r.sid = rp.row_sid WHERE ${sql.join(others, sql` AND `)})`;
  return sql<number>`((SELECT coalesce(sum(${measure}), 0)::int FROM ${rowCounts} c WHERE ${sql.join(conditions, sql` AND `)})
    + ${throughOthers} + ${openRowCount(orgSid, membership, filter)})`;
}

/**
 * The rows a member reads only because they are open to the organization (rules.ts,
 * openToOrganization), which the project counters do not count for them: row by row, over
 * the organization's open rows (index record_rows_open_idx). An Admin reads every row: 0.
 */
function openRowCount(orgSid: string, membership: Membership, filter: CountedFilter): SQL {
  if (membership.role === 'admin') return sql`0`;
  const { is_archived: a, is_locked: l } = filter;
  const conditions = [
    sql`r.organization_sid = ${orgSid}`, sql`r.open_to_organization`,
    filter.table__sid ? sql`r.table_sid = ${filter.table__sid}` : undefined,
    filter.project__sid ? sql`(r.project_sid = ${filter.project__sid} OR EXISTS (SELECT 1 FROM record_row_projects fp WHERE fp.row_sid = r.sid AND fp.project_sid = ${filter.project__sid}))` : undefined,
    a !== undefined ? sql`r.is_archived = ${a}` : undefined,
    l !== undefined ? sql`r.is_locked = ${l}` : undefined,
    sql`NOT ${readsProject.forMember(membership, sql`r.project_sid`)}`,
    sql`NOT EXISTS (SELECT 1 FROM record_row_projects rp WHERE rp.row_sid = r.sid AND ${readsProject.forMember(membership, sql`rp.project_sid`)})`,
  ].filter((c): c is SQL => c !== undefined);
  return sql`(SELECT count(*)::int FROM record_rows r WHERE ${sql.join(conditions, sql` AND `)})`;
}

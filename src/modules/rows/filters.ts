// The row list's filters as Labii documents them (issue 24): is_archived, uid, owner__sid,
// search and the date ranges, and "in a project" for rows of several projects.
import { eq, sql, type SQL } from 'drizzle-orm';
import { rows } from '../../db/schema.js';
import { errors } from '../../core/errors.js';
import { queryBool } from '../../core/schemas.js';
import { containsPattern } from '../../core/sql.js';
import type { RowLabiiFilter } from './schemas.js';

/**
 * Rows of table `tableSid` of organization `orgSid`. The organization is checked on the
 * table, once a statement, not on each row (a row's organization is its table's): the
 * table's sid is then the one key of record_rows the statement can search by, so a plan
 * kept for any table (a generic plan) walks that table's index in the page's order, never
 * the organization's (docs/performance.md, "A row page planned once").
 */
export function inTable(orgSid: string, tableSid: string): SQL {
  return sql`${rows.tableSid} = ${tableSid} AND EXISTS (SELECT 1 FROM record_tables ot WHERE ot.sid = ${tableSid} AND ot.organization_sid = ${orgSid})`;
}

/** Rows of project `projectSid`: their first project, or one of the others. */
export function inProject(projectSid: string): SQL {
  return sql`(${rows.projectSid} = ${projectSid} OR EXISTS (SELECT 1 FROM record_row_projects rp WHERE rp.row_sid = ${rows.sid} AND rp.project_sid = ${projectSid}))`;
}

/** A date bound of a filter: a date (YYYY-MM-DD, UTC) or a timestamp; 400 naming the parameter otherwise. */
export function dateBound(name: string, value: string, wholeDay: boolean): SQL {
  const isDate = /^\d{4}-\d{2}-\d{2}$/.test(value);
  if (Number.isNaN(Date.parse(isDate ? `${value}T00:00:00Z` : value)) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw errors.field(name, 'Not a date (YYYY-MM-DD) or an ISO 8601 timestamp.');
  }
  const at = isDate ? sql`(${value}::date::timestamp AT TIME ZONE 'UTC')` : sql`${value}::timestamptz`;
  return wholeDay && isDate ? sql`(${at} + interval '1 day')` : at;
}

const DATE_COLUMNS = { date_created: rows.dateCreated, date_updated: rows.dateUpdated } as const;

/** The conditions of Labii's row filters (is_archived, uid, owner__sid, search, the date ranges). */
export function labiiConditions(orgSid: string, filter: RowLabiiFilter): SQL[] {
  const out: SQL[] = [];
  if (filter.is_archived !== undefined) out.push(eq(rows.isArchived, queryBool(filter.is_archived)));
  if (filter.uid !== undefined) out.push(eq(rows.uid, filter.uid));
  if (filter.owner__sid !== undefined) {
    out.push(sql`${rows.createdBy} = (SELECT user_sid FROM personnel WHERE sid = ${filter.owner__sid} AND organization_sid = ${orgSid})`);
  }
  if (filter.search) out.push(sql`(${rows.name} ILIKE ${containsPattern(filter.search)} OR ${rows.uid} ILIKE ${containsPattern(filter.search)})`);
  for (const field of ['date_created', 'date_updated'] as const) {
    const column = DATE_COLUMNS[field];
    const gte = filter[`${field}__gte`]; const gt = filter[`${field}__gt`];
    const lte = filter[`${field}__lte`]; const lt = filter[`${field}__lt`];
    if (gte !== undefined) out.push(sql`${column} >= ${dateBound(`${field}__gte`, gte, false)}`);
    if (gt !== undefined) out.push(sql`${column} > ${dateBound(`${field}__gt`, gt, false)}`);
    if (lte !== undefined) {
      const wholeDay = /^\d{4}-\d{2}-\d{2}$/.test(lte);
      out.push(wholeDay ? sql`${column} < ${dateBound(`${field}__lte`, lte, true)}` : sql`${column} <= ${dateBound(`${field}__lte`, lte, false)}`);
    }
    if (lt !== undefined) out.push(sql`${column} < ${dateBound(`${field}__lt`, lt, false)}`);
  }
  return out;
}

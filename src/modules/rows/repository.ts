import { and, asc, desc, eq, inArray, sql, count, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { rows } from '../../db/schema.js';
import { queryBool } from '../../core/schemas.js';
import type { RowLabiiFilter } from './schemas.js';
import { inProject, labiiConditions } from './filters.js';
import { containsPattern, isoTimestamp, personName } from '../../core/sql.js';
import type { Membership } from '../../core/access.js';
import { readableRows, roleOnRows } from './access.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';
import { countable, rowCount } from './counts.js';
import { runPrepared } from '../../core/prepared.js';
import { runBuilt } from '../../core/built-sql.js';

/**
 * A column of record_rows, always with its table's name: Drizzle writes the bare column
 * name in the fields of a one-table select, which inside a subquery would name the
 * subquery's own column of that name (a nested SQL keeps the table's name).
 */
const r = (column: AnyColumn): SQL => sql`${column}`;

/** A row's projects as [{sid, name}]: its first project, then the others in the order they were added. */
const projectsOf = sql<{ sid: string; name: string }[]>`(
  SELECT json_agg(json_build_object('sid', p.sid, 'name', p.name) ORDER BY x.o, x.added, p.sid)
    FROM (SELECT ${r(rows.projectSid)} AS project_sid, 0 AS o, NULL::timestamptz AS added
          UNION ALL SELECT rp.project_sid, 1, rp.date_created FROM record_row_projects rp WHERE rp.row_sid = ${r(rows.sid)}) x
    JOIN projects p ON p.sid = x.project_sid)`;

/** A person's name (users.sid `userSid`) as personName gives it, '' without one. */
function nameOf(userSid: AnyColumn): SQL<string> {
  return sql<string>`coalesce((SELECT ${personName({ firstName: sql`u.first_name`, lastName: sql`u.last_name`, email: sql`u.email` })} FROM users u WHERE u.sid = ${r(userSid)}), '')`;
}

/**
 * A row's fields. Its table, project and people are read by key in subqueries rather than
 * joined: the rows' statement is then a scan of record_rows alone, which PostgreSQL plans
 * in about half the time of the five-way join (each join multiplied the paths considered
 * through record_rows' fifteen indexes; docs/performance.md, "The row list's plan").
 */
const fields = {
  sid: rows.sid,
  uid: rows.uid,
  name: rows.name,
  description: rows.description,
  table: sql<{ sid: string; name: string }>`(SELECT json_build_object('sid', t.sid, 'name', t.name) FROM record_tables t WHERE t.sid = ${r(rows.tableSid)})`,
  table__name_plural: sql<string>`(SELECT t.name FROM record_tables t WHERE t.sid = ${r(rows.tableSid)})`,
  project: sql<{ sid: string; name: string }>`(SELECT json_build_object('sid', p.sid, 'name', p.name) FROM projects p WHERE p.sid = ${r(rows.projectSid)})`,
  projects: projectsOf,
  project_sid: rows.projectSid,
  is_template: rows.isTemplate,
  open_to_organization: rows.openToOrganization,
  metadata: rows.metadata,
  is_locked: rows.isLocked,
  is_archived: rows.isArchived,
  version: rows.version,
  hash: rows.lastHash,
  created_by: nameOf(rows.createdBy),
  updated_by: nameOf(rows.updatedBy),
  date_created: isoTimestamp(rows.dateCreated),
  date_updated: isoTimestamp(rows.dateUpdated),
};

export type RowRecord = {
  sid: string; uid: string; name: string; description: string; table: { sid: string; name: string }; table__name_plural: string;
  project: { sid: string; name: string }; projects: { sid: string; name: string }[];
  project_sid: string; is_template: boolean; open_to_organization: boolean; metadata: unknown;
  is_locked: boolean; is_archived: boolean; version: number; hash: string; created_by: string; updated_by: string;
  date_created: string; date_updated: string; permission: 'admin' | 'edit' | 'view' | null;
};

export interface RowFilter extends RowLabiiFilter {
  table__sid?: string;
  project__sid?: string;
}

function where(orgSid: string, membership: Membership, filter: RowFilter): SQL {
  return and(
    eq(rows.organizationSid, orgSid),
    filter.table__sid ? eq(rows.tableSid, filter.table__sid) : undefined,
    filter.project__sid ? inProject(filter.project__sid) : undefined,
    ...labiiConditions(orgSid, filter),
    readableRows(membership),
  )!;
}

/** Rows with their table, project, creator, last author and the project role of `personnelSid` on each, and `extra` columns. */
function select<E extends Record<string, SQL>>(db: Db, personnelSid: string, extra: E = {} as E) {
  return db.select({ ...fields, permission: roleOnRows(personnelSid), ...extra }).from(rows);
}

/** The count of a list: from the counters when they count it exactly, else row by row. */
function listCount(db: Db, orgSid: string, membership: Membership, filter: RowFilter): SQL<number> {
  if (countable(filter)) {
    return rowCount(orgSid, membership, {
      table__sid: filter.table__sid, project__sid: filter.project__sid,
      is_archived: filter.is_archived === undefined ? undefined : queryBool(filter.is_archived),
    });
  }
  return totalOf(db.select({ n: count() }).from(rows).where(where(orgSid, membership, filter)));
}

export async function countRows(db: Db, orgSid: string, membership: Membership, filter: RowFilter): Promise<number> {
  const [row] = await query<{ n: number }>(db, sql`SELECT ${listCount(db, orgSid, membership, filter)} AS n`);
  return row.n;
}

/** A page of rows, oldest first, with the count of the whole list (from the counters). */
export async function pageRows(db: Db, orgSid: string, membership: Membership, filter: RowFilter, limit: number, offset: number): Promise<Counted<RowRecord>> {
  const shape = pageShape(membership, filter);
  if (shape) {
    return counted(await runPrepared(db, pageQuery, shape, {
      org: orgSid, me: membership.personnelSid, table: filter.table__sid, project: filter.project__sid, limit, offset,
    }) as (RowRecord & { total: number })[]);
  }
  return counted(await pageSelect(db, orgSid, membership, filter, limit, offset) as (RowRecord & { total: number })[]);
}

/** A page of the row list with its count, oldest first: the one statement pageRows runs, built per request or once (pageQuery). */
function pageSelect(db: Db, orgSid: string, membership: Membership, filter: RowFilter, limit: number | Placeholder, offset: number | Placeholder) {
  return select(db, membership.personnelSid, { total: listCount(db, orgSid, membership, filter) })
    .where(inArray(rows.sid, pageOf(db, where(orgSid, membership, filter), asc(rows.dateCreated), asc(rows.sid), limit, offset)))
    .orderBy(rows.dateCreated, rows.sid);
}

/**
 * The sids of a page, as a subquery: the page's rows are found along the order's index
 * first, and only they get their fields (each a lookup by key: table, project, people,
 * role). Selected with their fields, a deep page's skipped rows got them too: page 10,000
 * of a table computed them for 100,000 rows (seconds).
 */
function pageOf(db: Db, condition: SQL, first: SQL, then: SQL, limit: number | Placeholder, offset: number | Placeholder) {
  return db.select({ sid: rows.sid }).from(rows).where(condition).orderBy(first, then).limit(limit).offset(offset);
}

/**
 * The shape of a page whose statement is built once (core/prepared.ts): the caller's
 * organization role (the read rule's SQL differs by it), which of table__sid and
 * project__sid are given (non-empty), and is_archived. Any other filter: null, built per request.
 */
function pageShape(membership: Membership, filter: RowFilter): string | null {
  if (!countable(filter)) return null;
  const archived = filter.is_archived === undefined ? '' : String(queryBool(filter.is_archived));
  return `${membership.role}|${filter.table__sid ? 't' : ''}${filter.project__sid ? 'p' : ''}|${archived}`;
}

/** The page statement of a shape (pageShape), every value a placeholder: org, me, table, project, limit, offset. */
function pageQuery(db: Db, shape: string) {
  const [role, given, archived] = shape.split('|');
  const placeholder = (name: string) => sql.placeholder(name) as unknown as string;
  const membership: Membership = { organizationSid: placeholder('org'), organizationName: '', personnelSid: placeholder('me'), role: role as Membership['role'] };
  const filter: RowFilter = {
    table__sid: given.includes('t') ? placeholder('table') : undefined,
    project__sid: given.includes('p') ? placeholder('project') : undefined,
    is_archived: archived || undefined,
  };
  return pageSelect(db, membership.organizationSid, membership, filter, sql.placeholder('limit'), sql.placeholder('offset'));
}

export async function findRow(db: Db, sid: string, personnelSid: string): Promise<RowRecord | undefined> {
  const [row] = await select(db, personnelSid).where(eq(rows.sid, sid));
  return row as RowRecord | undefined;
}

export interface CellSummary {
  sid: string;
  column: { sid: string; name: string };
  widget: { sid: string; name: string };
  data: string;
}

/**
 * The statement of cellsOfRows, its text built once a process (core/built-sql.ts: it also
 * runs in transactions, the workflow engine's): the rows' sids are one placeholder, joined
 * by commas, so the text is one whatever their number.
 */
const cellsOfRowsSql = () => sql`
  SELECT c.row_sid, c.sid, json_build_object('sid', col.sid, 'name', col.name) AS "column",
         json_build_object('sid', w.sid, 'name', w.name) AS widget, c.data
    FROM cells c JOIN record_columns col ON col.sid = c.column_sid JOIN widgets w ON w.sid = c.widget_sid
   WHERE c.row_sid = ANY(string_to_array(${sql.placeholder('rows')}, ','))
   ORDER BY col."order", col.sid`;

/** The cells of the given rows in column order, by row sid, in one query. */
export async function cellsOfRows(db: Db, rowSids: string[]): Promise<Map<string, CellSummary[]>> {
  const byRow = new Map<string, CellSummary[]>(rowSids.map((sid) => [sid, []]));
  if (!rowSids.length) return byRow;
  const found = await runBuilt<CellSummary & { row_sid: string }>(db, 'rows.cellsOfRows', cellsOfRowsSql, { rows: rowSids.join(',') });
  for (const { row_sid, ...cell } of found) byRow.get(row_sid)!.push(cell);
  return byRow;
}

/** The grid's filters (GET /tables/row/list/table/{sid}/grid/). */
export interface GridFilter {
  project__sid?: string;
  search?: string;
  is_archived?: boolean;
  is_locked?: boolean;
  ordering?: GridOrdering;
}

export const GRID_ORDERINGS = ['name', '-name', 'date_created', '-date_created', 'date_updated', '-date_updated'] as const;
export type GridOrdering = (typeof GRID_ORDERINGS)[number];

const GRID_ORDER_COLUMNS = { name: rows.name, date_created: rows.dateCreated, date_updated: rows.dateUpdated };

export function gridWhere(orgSid: string, tableSid: string, membership: Membership, filter: GridFilter): SQL {
  return and(
    eq(rows.organizationSid, orgSid),
    eq(rows.tableSid, tableSid),
    filter.project__sid !== undefined ? inProject(filter.project__sid) : undefined,
    filter.search ? sql`${rows.name} ILIKE ${containsPattern(filter.search)}` : undefined,
    filter.is_archived !== undefined ? eq(rows.isArchived, filter.is_archived) : undefined,
    filter.is_locked !== undefined ? eq(rows.isLocked, filter.is_locked) : undefined,
    readableRows(membership),
  )!;
}

/**
 * What a grid page is read by: its condition, its order (`ordering`, default oldest first;
 * ties by sid) and the count of the whole filtered list. The counters count every filter
 * but `search` exactly; a search is counted row by row.
 */
function gridPage(db: Db, orgSid: string, tableSid: string, membership: Membership, filter: GridFilter) {
  const condition = gridWhere(orgSid, tableSid, membership, filter);
  const ordering = filter.ordering ?? 'date_created';
  const column = GRID_ORDER_COLUMNS[ordering.replace(/^-/, '') as keyof typeof GRID_ORDER_COLUMNS];
  const direction = ordering.startsWith('-') ? desc : asc;
  const total = filter.search ? totalOf(db.select({ n: count() }).from(rows).where(condition))
    : rowCount(orgSid, membership, { table__sid: tableSid, project__sid: filter.project__sid, is_archived: filter.is_archived, is_locked: filter.is_locked });
  return { condition, order: [direction(column), direction(rows.sid)] as const, total };
}

/**
 * The sids of a page of the grid, in its order, with the count of the whole filtered list
 * (one query of narrow columns): a page of large rows is then read by these sids a few at
 * a time (gridRowsOf), each read an index lookup, and the page is the one this query saw.
 */
export async function gridSids(
  db: Db, orgSid: string, tableSid: string, membership: Membership, filter: GridFilter, limit: number, offset: number,
): Promise<Counted<{ sid: string }>> {
  const { condition, order, total } = gridPage(db, orgSid, tableSid, membership, filter);
  const found = await db.select({ sid: rows.sid, total }).from(rows)
    .where(condition)
    .orderBy(...order)
    .limit(limit).offset(offset);
  return counted(found as { sid: string; total: number }[]);
}

/** The grid's rows of these sids (still matching the filter and readable), in the sids' order. */
export async function gridRowsOf(
  db: Db, orgSid: string, tableSid: string, membership: Membership, filter: GridFilter, sids: string[],
): Promise<RowRecord[]> {
  if (!sids.length) return [];
  const found = await select(db, membership.personnelSid)
    .where(and(gridWhere(orgSid, tableSid, membership, filter), inArray(rows.sid, sids))) as RowRecord[];
  const bySid = new Map(found.map((r) => [r.sid, r]));
  return sids.map((sid) => bySid.get(sid)).filter((r): r is RowRecord => r !== undefined);
}

/**
 * A page of a table's rows (detail fields) with the count of the whole filtered list, in
 * one query; ordered by `ordering` (default oldest first), ties by sid.
 */
export async function gridRows(
  db: Db, orgSid: string, tableSid: string, membership: Membership, filter: GridFilter, limit: number, offset: number,
): Promise<Counted<RowRecord>> {
  const { condition, order, total } = gridPage(db, orgSid, tableSid, membership, filter);
  const found = await select(db, membership.personnelSid, { total })
    .where(inArray(rows.sid, pageOf(db, condition, order[0], order[1], limit, offset)))
    .orderBy(...order);
  return counted(found as (RowRecord & { total: number })[]);
}

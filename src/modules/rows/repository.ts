import { and, asc, desc, eq, inArray, sql, count, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { cells, columns, projectMembers, projects, rows, tables, users, widgets } from '../../db/schema.js';
import { containsPattern, isoTimestamp, personName } from '../../core/sql.js';
import type { Membership } from '../../core/access.js';
import { readableRows } from './access.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';

const creator = alias(users, 'creator');

const fields = {
  sid: rows.sid,
  name: rows.name,
  description: rows.description,
  table: sql<{ sid: string; name: string }>`json_build_object('sid', ${tables.sid}, 'name', ${tables.name})`,
  project: sql<{ sid: string; name: string }>`json_build_object('sid', ${projects.sid}, 'name', ${projects.name})`,
  project_sid: rows.projectSid,
  is_locked: rows.isLocked,
  is_archived: rows.isArchived,
  version: rows.version,
  hash: rows.lastHash,
  created_by: personName(creator),
  date_created: isoTimestamp(rows.dateCreated),
  date_updated: isoTimestamp(rows.dateUpdated),
  permission: projectMembers.permission,
};

export type RowRecord = {
  sid: string; name: string; description: string; table: { sid: string; name: string }; project: { sid: string; name: string };
  project_sid: string; is_locked: boolean; is_archived: boolean; version: number; hash: string; created_by: string;
  date_created: string; date_updated: string; permission: 'admin' | 'edit' | 'view' | null;
};

export interface RowFilter {
  table__sid?: string;
  project__sid?: string;
}

function where(orgSid: string, membership: Membership, filter: RowFilter): SQL {
  return and(
    eq(rows.organizationSid, orgSid),
    filter.table__sid ? eq(rows.tableSid, filter.table__sid) : undefined,
    filter.project__sid ? eq(rows.projectSid, filter.project__sid) : undefined,
    readableRows(membership),
  )!;
}

/** Rows with their table, project, creator and the project role of `personnelSid`. */
function select(db: Db, personnelSid: string) {
  return db.select(fields).from(rows)
    .leftJoin(projectMembers, and(eq(projectMembers.projectSid, rows.projectSid), eq(projectMembers.personnelSid, personnelSid)))
    .innerJoin(tables, eq(tables.sid, rows.tableSid))
    .innerJoin(projects, eq(projects.sid, rows.projectSid))
    .leftJoin(creator, eq(creator.sid, rows.createdBy));
}

export async function countRows(db: Db, orgSid: string, membership: Membership, filter: RowFilter): Promise<number> {
  const [row] = await db.select({ n: count() }).from(rows).where(where(orgSid, membership, filter));
  return row.n;
}

export async function pageRows(db: Db, orgSid: string, membership: Membership, filter: RowFilter, limit: number, offset: number) {
  return (await select(db, membership.personnelSid).where(where(orgSid, membership, filter))
    .orderBy(rows.dateCreated, rows.sid).limit(limit).offset(offset)) as RowRecord[];
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

/** The cells of the given rows in column order, by row sid, in one query. */
export async function cellsOfRows(db: Db, rowSids: string[]): Promise<Map<string, CellSummary[]>> {
  const byRow = new Map<string, CellSummary[]>(rowSids.map((sid) => [sid, []]));
  if (!rowSids.length) return byRow;
  const found = await db.select({
    row_sid: cells.rowSid,
    sid: cells.sid,
    column: sql<{ sid: string; name: string }>`json_build_object('sid', ${columns.sid}, 'name', ${columns.name})`,
    widget: sql<{ sid: string; name: string }>`json_build_object('sid', ${widgets.sid}, 'name', ${widgets.name})`,
    data: cells.data,
  }).from(cells)
    .innerJoin(columns, eq(columns.sid, cells.columnSid))
    .innerJoin(widgets, eq(widgets.sid, cells.widgetSid))
    .where(inArray(cells.rowSid, rowSids))
    .orderBy(columns.order, columns.sid);
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

function gridWhere(orgSid: string, tableSid: string, membership: Membership, filter: GridFilter): SQL {
  return and(
    eq(rows.organizationSid, orgSid),
    eq(rows.tableSid, tableSid),
    filter.project__sid !== undefined ? eq(rows.projectSid, filter.project__sid) : undefined,
    filter.search ? sql`${rows.name} ILIKE ${containsPattern(filter.search)}` : undefined,
    filter.is_archived !== undefined ? eq(rows.isArchived, filter.is_archived) : undefined,
    filter.is_locked !== undefined ? eq(rows.isLocked, filter.is_locked) : undefined,
    readableRows(membership),
  )!;
}

/**
 * A page of a table's rows (detail fields) with the count of the whole filtered list, in
 * one query; ordered by `ordering` (default oldest first), ties by sid.
 */
export async function gridRows(
  db: Db, orgSid: string, tableSid: string, membership: Membership, filter: GridFilter, limit: number, offset: number,
): Promise<Counted<RowRecord>> {
  const condition = gridWhere(orgSid, tableSid, membership, filter);
  const ordering = filter.ordering ?? 'date_created';
  const column = GRID_ORDER_COLUMNS[ordering.replace(/^-/, '') as keyof typeof GRID_ORDER_COLUMNS];
  const direction = ordering.startsWith('-') ? desc : asc;
  const total = totalOf(db.select({ n: count() }).from(rows).where(condition));
  const found = await db.select({ ...fields, total }).from(rows)
    .leftJoin(projectMembers, and(eq(projectMembers.projectSid, rows.projectSid), eq(projectMembers.personnelSid, membership.personnelSid)))
    .innerJoin(tables, eq(tables.sid, rows.tableSid))
    .innerJoin(projects, eq(projects.sid, rows.projectSid))
    .leftJoin(creator, eq(creator.sid, rows.createdBy))
    .where(condition)
    .orderBy(direction(column), direction(rows.sid))
    .limit(limit).offset(offset);
  return counted(found as (RowRecord & { total: number })[]);
}

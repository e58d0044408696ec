import { and, eq, inArray, sql, count, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { cells, columns, rows, widgets } from '../../db/schema.js';
import { isoTimestamp } from '../../core/sql.js';
import type { Membership } from '../../core/access.js';
import { readableRows, roleOnRows } from '../rows/access.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';
import { queryBool } from '../../core/schemas.js';
import { runPrepared } from '../../core/prepared.js';

const fields = {
  sid: cells.sid,
  data: cells.data,
  organization_sid: cells.organizationSid,
  row: sql<{ sid: string; name: string }>`json_build_object('sid', ${rows.sid}, 'name', ${rows.name})`,
  column: sql<{ sid: string; name: string }>`json_build_object('sid', ${columns.sid}, 'name', ${columns.name})`,
  widget: sql<{ sid: string; name: string }>`json_build_object('sid', ${widgets.sid}, 'name', ${widgets.name})`,
  price: widgets.price,
  addable_at_readonly: widgets.addableAtReadonly,
  is_locked: rows.isLocked,
  is_archived: rows.isArchived,
  date_created: isoTimestamp(cells.dateCreated),
  date_updated: isoTimestamp(cells.dateUpdated),
};

export interface CellRecord {
  sid: string; data: string; organization_sid: string;
  row: { sid: string; name: string }; column: { sid: string; name: string }; widget: { sid: string; name: string };
  price: string; addable_at_readonly: boolean; is_locked: boolean; is_archived: boolean;
  date_created: string; date_updated: string; permission: 'admin' | 'edit' | 'view' | null;
}

/** Cells with their row, column and widget, and the project role of `personnelSid`. */
function select(db: Db, personnelSid: string, total?: SQL<number>, withData = true) {
  const chosen = { ...(withData ? fields : { ...fields, data: sql<string>`''` }), permission: roleOnRows(personnelSid) };
  return db.select(total ? { ...chosen, total } : chosen).from(cells)
    .innerJoin(rows, eq(rows.sid, cells.rowSid))
    .innerJoin(columns, eq(columns.sid, cells.columnSid))
    .innerJoin(widgets, eq(widgets.sid, cells.widgetSid));
}

/** The cell list's filters (Labii's: column__sid, column__sid__in, data__isnull; ours: row__sid). */
export interface CellFilter {
  row__sid?: string;
  column__sid?: string;
  column__sid__in?: string;
  data__isnull?: string;
}

function where(orgSid: string, membership: Membership, filter: CellFilter): SQL {
  const columnsIn = filter.column__sid__in?.split(',').map((c) => c.trim()).filter(Boolean);
  return and(
    eq(cells.organizationSid, orgSid),
    filter.row__sid ? eq(cells.rowSid, filter.row__sid) : undefined,
    filter.column__sid !== undefined ? eq(cells.columnSid, filter.column__sid) : undefined,
    columnsIn !== undefined ? (columnsIn.length ? inArray(cells.columnSid, columnsIn) : sql`FALSE`) : undefined,
    // An empty cell is Labii's null (a cell's data is text, '' when empty).
    filter.data__isnull !== undefined ? (queryBool(filter.data__isnull) ? sql`${cells.data} = ''` : sql`${cells.data} <> ''`) : undefined,
    readableRows(membership),
  )!;
}

/** The count of the cells a list shows, as a query. */
function countQuery(db: Db, condition: SQL) {
  return db.select({ n: count() }).from(cells).innerJoin(rows, eq(rows.sid, cells.rowSid)).where(condition);
}

export async function countCells(db: Db, orgSid: string, membership: Membership, filter: CellFilter): Promise<number> {
  const [row] = await countQuery(db, where(orgSid, membership, filter));
  return row.n;
}

/**
 * The page query with its count for `shape` (core/prepared.ts): "role,row,column,data,withData"
 * (the caller's organization role, whether row__sid and column__sid filter, data__isnull's
 * "", "null" or "set", whether the data is read), every value a placeholder.
 */
function pageQuery(db: Db, shape: string) {
  const [role, row, column, data, withData] = shape.split(',');
  const personnelSid = sql.placeholder('personnel') as unknown as string;
  const member = { organizationSid: '', organizationName: '', personnelSid, role: role as Membership['role'] };
  const filter = {
    row__sid: row ? sql.placeholder('row') as unknown as string : undefined,
    column__sid: column ? sql.placeholder('column') as unknown as string : undefined,
    data__isnull: data ? (data === 'null' ? 'true' : 'false') : undefined,
  };
  const condition = where(sql.placeholder('org') as unknown as string, member, filter);
  const query = select(db, personnelSid, totalOf(countQuery(db, condition)), withData === 'data').where(condition);
  const ordered = row ? query.orderBy(columns.order, columns.sid) : query.orderBy(cells.dateCreated, cells.sid);
  return ordered.limit(sql.placeholder('limit')).offset(sql.placeholder('offset'));
}

/**
 * A page of cells with the count of the list: a row's in column order, or the
 * organization's oldest first. Without `withData` their data is read as '' (the name and
 * list shapes do not show it). Its SQL is built once a shape (core/prepared.ts) and may keep
 * a generic plan (a row's cells, or a page of an organization's by their creation: keys),
 * except with column__sid__in (a list of any length: built for its values).
 */
export async function pageCells(
  db: Db, orgSid: string, membership: Membership, filter: CellFilter, limit: number, offset: number, withData = true,
): Promise<Counted<CellRecord>> {
  const rowSid = filter.row__sid;
  if (filter.column__sid__in === undefined) {
    const data = filter.data__isnull === undefined ? '' : queryBool(filter.data__isnull) ? 'null' : 'set';
    const shape = [membership.role, rowSid ? 'row' : '', filter.column__sid !== undefined ? 'column' : '', data, withData ? 'data' : ''].join(',');
    return counted(await runPrepared(db, pageQuery, shape, {
      org: orgSid, personnel: membership.personnelSid, row: rowSid || undefined, column: filter.column__sid, limit, offset,
    }, { generic: true }) as (CellRecord & { total: number })[]);
  }
  const condition = where(orgSid, membership, filter);
  const query = select(db, membership.personnelSid, totalOf(countQuery(db, condition)), withData).where(condition);
  const ordered = rowSid ? query.orderBy(columns.order, columns.sid) : query.orderBy(cells.dateCreated, cells.sid);
  return counted((await ordered.limit(limit).offset(offset)) as (CellRecord & { total: number })[]);
}

export async function findCell(db: Db, sid: string, personnelSid: string): Promise<CellRecord | undefined> {
  const [row] = await select(db, personnelSid).where(eq(cells.sid, sid));
  return row as CellRecord | undefined;
}


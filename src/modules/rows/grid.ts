// The grid (GET /tables/row/list/table/{sid}/grid/): a page of a table's rows with all
// their cells, filtered and ordered, with its count.
import { and, asc, desc, eq, inArray, sql, count, type Placeholder, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { rows } from '../../db/schema.js';
import { containsPattern } from '../../core/sql.js';
import type { Membership } from '../../core/access.js';
import { inProject, inTable } from './filters.js';
import { readableRows } from './access.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';
import { rowCount } from './counts.js';
import { placeholderMember, placeholderText, runPrepared } from '../../core/prepared.js';
import { gridCellsOfRow, pageOf, select, type GridRowRecord } from './fields.js';

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
    inTable(orgSid, tableSid),
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

/** The grid's rows of these sids (still matching the filter and readable) with their cells, in the sids' order. */
export async function gridRowsOf(
  db: Db, orgSid: string, tableSid: string, membership: Membership, filter: GridFilter, sids: string[],
): Promise<GridRowRecord[]> {
  if (!sids.length) return [];
  const found = await select(db, membership.personnelSid, { cells: gridCellsOfRow })
    .where(and(gridWhere(orgSid, tableSid, membership, filter), inArray(rows.sid, sids))) as GridRowRecord[];
  const bySid = new Map(found.map((r) => [r.sid, r]));
  return sids.map((sid) => bySid.get(sid)).filter((r): r is GridRowRecord => r !== undefined);
}

/**
 * A page of a table's rows (detail fields) with their cells and the count of the whole
 * filtered list, in one query; ordered by `ordering` (default oldest first), ties by sid.
 */
export async function gridRows(
  db: Db, orgSid: string, tableSid: string, membership: Membership, filter: GridFilter, limit: number, offset: number,
): Promise<Counted<GridRowRecord>> {
  const shape = gridShape(membership, filter);
  if (shape) {
    return counted(await runPrepared(db, gridQuery, shape, {
      org: orgSid, me: membership.personnelSid, table: tableSid, project: filter.project__sid, limit, offset,
    }, { generic: plannedOnce(filter) }) as (GridRowRecord & { total: number })[]);
  }
  return counted(await gridSelect(db, orgSid, tableSid, membership, filter, limit, offset) as (GridRowRecord & { total: number })[]);
}

/** A grid page with its cells and count: the one statement gridRows runs, built per request or once a shape (gridQuery). */
function gridSelect(
  db: Db, orgSid: string, tableSid: string, membership: Membership, filter: GridFilter, limit: number | Placeholder, offset: number | Placeholder,
) {
  const { condition, order, total } = gridPage(db, orgSid, tableSid, membership, filter);
  return select(db, membership.personnelSid, { total, cells: gridCellsOfRow })
    .where(pageOf(db, condition, order[0], order[1], limit, offset))
    .orderBy(...order);
}

/**
 * The shape of a grid page whose statement is built once (core/prepared.ts): the caller's
 * organization role, whether project__sid is given, is_archived, is_locked and the
 * ordering. A search (or an empty project__sid): null, built per request.
 */
function gridShape(membership: Membership, filter: GridFilter): string | null {
  if (filter.search || filter.project__sid === '') return null;
  const flag = (value: boolean | undefined) => (value === undefined ? '' : String(value));
  return [membership.role, filter.project__sid ? 'p' : '', flag(filter.is_archived), flag(filter.is_locked), filter.ordering ?? ''].join('|');
}

/**
 * Whether a grid page's statement may keep one plan for every table (core/prepared.ts,
 * generic): the table's rows in one of its orders, each of which an index of the table
 * gives (record_rows_table_order_idx, _name_idx, _updated_idx), with no other filter. A
 * project, is_archived or is_locked: planned for their values every time (rows/repository.ts,
 * plannedOnce).
 */
function plannedOnce(filter: GridFilter): boolean {
  return !filter.project__sid && filter.is_archived === undefined && filter.is_locked === undefined;
}

/** The grid page statement of a shape (gridShape), every value a placeholder: org, me, table, project, limit, offset. */
function gridQuery(db: Db, shape: string) {
  const [role, project, archived, locked, ordering] = shape.split('|');
  const membership = placeholderMember(role);
  const flag = (value: string) => (value === '' ? undefined : value === 'true');
  const filter: GridFilter = {
    project__sid: project ? placeholderText('project') : undefined,
    is_archived: flag(archived),
    is_locked: flag(locked),
    ordering: (ordering || undefined) as GridOrdering | undefined,
  };
  return gridSelect(db, membership.organizationSid, placeholderText('table'), membership, filter, sql.placeholder('limit'), sql.placeholder('offset'));
}

// The row list (GET /tables/row/list/…): a page of rows with their cells and count in one
// statement, and the cells of rows by their sids.
import { and, asc, eq, sql, count, type Placeholder, type SQL } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { rows } from '../../db/schema.js';
import { queryBool } from '../../core/schemas.js';
import type { RowLabiiFilter } from './schemas.js';
import { inProject, inTable, labiiConditions } from './filters.js';
import type { Membership } from '../../core/access.js';
import { readableRows } from './access.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';
import { countable, rowCount } from './counts.js';
import { placeholderMember, placeholderText, runPrepared } from '../../core/prepared.js';
import { runBuilt } from '../../core/built-sql.js';
import { cellsOfRow, pageOf, select, type CellSummary, type RowRecord } from './fields.js';

export type { CellSummary, RowRecord } from './fields.js';

export interface RowFilter extends RowLabiiFilter {
  table__sid?: string;
  project__sid?: string;
}

function where(orgSid: string, membership: Membership, filter: RowFilter): SQL {
  return and(
    filter.table__sid ? inTable(orgSid, filter.table__sid) : eq(rows.organizationSid, orgSid),
    filter.project__sid ? inProject(filter.project__sid) : undefined,
    ...labiiConditions(orgSid, filter),
    readableRows(membership),
  )!;
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

/**
 * A page of rows, oldest first, with the count of the whole list (from the counters);
 * `withCells`: each with its cells (RowRecord.cells), in the same statement.
 */
export async function pageRows(
  db: Db, orgSid: string, membership: Membership, filter: RowFilter, limit: number, offset: number, withCells = false,
): Promise<Counted<RowRecord>> {
  const shape = pageShape(membership, filter);
  if (shape) {
    return counted(await runPrepared(db, pageQuery, `${shape}|${withCells ? 'cells' : ''}`, {
      org: orgSid, me: membership.personnelSid, table: filter.table__sid, project: filter.project__sid, limit, offset,
    }, { generic: plannedOnce(filter) }) as (RowRecord & { total: number })[]);
  }
  return counted(await pageSelect(db, orgSid, membership, filter, limit, offset, withCells) as (RowRecord & { total: number })[]);
}

/** A page of the row list with its count, oldest first: the one statement pageRows runs, built per request or once (pageQuery). */
function pageSelect(
  db: Db, orgSid: string, membership: Membership, filter: RowFilter, limit: number | Placeholder, offset: number | Placeholder, withCells: boolean,
) {
  const total = listCount(db, orgSid, membership, filter);
  return select(db, membership.personnelSid, withCells ? { total, cells: cellsOfRow } : { total })
    .where(pageOf(db, where(orgSid, membership, filter), asc(rows.dateCreated), asc(rows.sid), limit, offset))
    .orderBy(rows.dateCreated, rows.sid);
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

/**
 * Whether a page's statement may keep one plan for every table (core/prepared.ts, generic):
 * the rows of one table (inTable) in its order, with no other filter, which its index
 * (record_rows_table_order_idx) gives whatever the table's size. Planning it is most of what
 * a row list costs PostgreSQL (1.2 of 2.4 ms). A project (rows found through
 * record_row_projects too) or is_archived (a plan for an average table may sort all the
 * table's rows by record_rows_table_state_idx) are planned for their values every time.
 */
function plannedOnce(filter: RowFilter): boolean {
  return Boolean(filter.table__sid) && !filter.project__sid && filter.is_archived === undefined;
}

/** The page statement of a shape (pageShape, then `|cells` or `|`), every value a placeholder: org, me, table, project, limit, offset. */
function pageQuery(db: Db, shape: string) {
  const [role, given, archived, cells] = shape.split('|');
  const membership = placeholderMember(role);
  const filter: RowFilter = {
    table__sid: given.includes('t') ? placeholderText('table') : undefined,
    project__sid: given.includes('p') ? placeholderText('project') : undefined,
    is_archived: archived || undefined,
  };
  return pageSelect(db, membership.organizationSid, membership, filter, sql.placeholder('limit'), sql.placeholder('offset'), cells === 'cells');
}

export async function findRow(db: Db, sid: string, personnelSid: string): Promise<RowRecord | undefined> {
  const [row] = await select(db, personnelSid).where(eq(rows.sid, sid));
  return row as RowRecord | undefined;
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

/**
 * The cells of the given rows in column order, by row sid, in one query: lookups by the
 * rows' keys, planned once a connection (a generic plan; docs/performance.md).
 */
export async function cellsOfRows(db: Db, rowSids: string[]): Promise<Map<string, CellSummary[]>> {
  const byRow = new Map<string, CellSummary[]>(rowSids.map((sid) => [sid, []]));
  if (!rowSids.length) return byRow;
  const found = await runBuilt<CellSummary & { row_sid: string }>(db, 'rows.cellsOfRows', cellsOfRowsSql, { rows: rowSids.join(',') }, { generic: true });
  for (const { row_sid, ...cell } of found) byRow.get(row_sid)!.push(cell);
  return byRow;
}


// A row's fields as the row lists, the grid and the detail read them (rows/repository.ts,
// rows/grid.ts): every one a column of record_rows or a lookup by key, with the caller's
// project role, and a row's cells in the row's own statement.
import { sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { rows } from '../../db/schema.js';
import { inPage, isoTimestamp, personName, qualified } from '../../core/sql.js';
import { roleOnRows } from './access.js';

/** A column of record_rows with its table's name, inside a correlated subquery (core/sql.ts qualified). */
const r = qualified;

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

/**
 * A row's cells in column order as a JSON array, read in the row's own statement (a page
 * and its cells in one round trip): each cell's sid, data, column and widget (CellSummary),
 * and the `more` fields of the cell (`c`) and its widget (`w`) as json_build_object pairs.
 */
function cellsOfRowWith(more?: SQL): SQL {
  return sql`(
  SELECT coalesce(json_agg(json_build_object('sid', c.sid, 'data', c.data, 'column', json_build_object('sid', col.sid, 'name', col.name),
                  'widget', json_build_object('sid', w.sid, 'name', w.name)${more ? sql`, ${more}` : sql``}) ORDER BY col."order", col.sid), '[]'::json)
    FROM cells c JOIN record_columns col ON col.sid = c.column_sid JOIN widgets w ON w.sid = c.widget_sid
   WHERE c.row_sid = ${r(rows.sid)})`;
}

/** A row's cells as the row list gives them (CellSummary). */
export const cellsOfRow = sql<CellSummary[]>`${cellsOfRowWith()}`;

/** A cell of a grid row: what the cell detail shows of the cell, its column and widget (its row's are the row's). */
export interface GridCell extends CellSummary {
  addable_at_readonly: boolean; date_created: string; date_updated: string;
}

/** A grid row's cells (GridCell). */
export const gridCellsOfRow = sql<GridCell[]>`${cellsOfRowWith(sql`'addable_at_readonly', w.addable_at_readonly,
  'date_created', ${isoTimestamp(sql`c.date_created`)}, 'date_updated', ${isoTimestamp(sql`c.date_updated`)}`)}`;

export type RowRecord = {
  sid: string; uid: string; name: string; description: string; table: { sid: string; name: string }; table__name_plural: string;
  project: { sid: string; name: string }; projects: { sid: string; name: string }[];
  project_sid: string; is_template: boolean; open_to_organization: boolean; metadata: unknown;
  is_locked: boolean; is_archived: boolean; version: number; hash: string; created_by: string; updated_by: string;
  date_created: string; date_updated: string; permission: 'admin' | 'edit' | 'view' | null;
  /** The row's cells, when its statement read them (pageRows with `withCells`). */
  cells?: CellSummary[];
};

/** A grid row: a row with its cells (GridCell). */
export type GridRowRecord = Omit<RowRecord, 'cells'> & { cells: GridCell[] };

/** A cell as a row of the row list carries it (column_set, the detail's cells). */
export interface CellSummary {
  sid: string;
  column: { sid: string; name: string };
  widget: { sid: string; name: string };
  data: string;
}

/** Rows with their table, project, creator, last author and the project role of `personnelSid` on each, and `extra` columns. */
export function select<E extends Record<string, SQL>>(db: Db, personnelSid: string, extra: E = {} as E) {
  return db.select({ ...fields, permission: roleOnRows(personnelSid), ...extra }).from(rows);
}

/**
 * The condition that selects a page's rows (core/sql.ts inPage): their sids, found along the
 * order's index first, and only they get their fields (each a lookup by key: table, project,
 * people, role). Selected with their fields, a deep page's skipped rows got them too: page
 * 10,000 of a table computed them for 100,000 rows (seconds).
 */
export function pageOf(db: Db, condition: SQL, first: SQL, then: SQL, limit: number | Placeholder, offset: number | Placeholder): SQL {
  return inPage(rows.sid, db.select({ sid: rows.sid }).from(rows).where(condition).orderBy(first, then).limit(limit).offset(offset));
}

// The row and the caller's standing towards it, in one statement: the only place where a
// row is joined to the caller's personnel record and project role (rules.ts rowRole: the
// strongest role through any of the row's projects). Every writer of a row takes its lock
// here (lockRow); a reader asks the same statement without the lock (readRow).
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { runBuilt } from '../../core/built-sql.js';
import { roleOf, type Membership, type ProjectRole } from '../../core/access.js';
import type { Actor } from '../../core/auth.js';
import { isSid } from '../../core/ids.js';
import { isoTimestamp } from '../../core/sql.js';
import { currentPersonnel, rowRole } from '../../core/rules.js';
import type { CellColumn } from './cells.js';

/** A row as its writers need it. */
export interface RowRef {
  sid: string;
  name: string;
  organization_sid: string;
  table_sid: string;
  project_sid: string;
  is_locked: boolean;
  is_archived: boolean;
  /** Labii's open_to_organization: every active member reads the row (its live events say so) */
  open_to_organization: boolean;
}

/** Which row: by its sid, or the row of a cell, a section or a version. */
export type RowTarget = { row: string } | { cell: string } | { section: string } | { version: string };

/** A cell named by the target, with its column and widget (a {cell} target only). */
export interface TargetCell {
  sid: string;
  data: string;
  date_created: string;
  date_updated: string;
  column: { sid: string; name: string; widgetSid: string; price: string; addable: boolean; kind: string; settings: Record<string, unknown> };
  widget_name: string;
}

/** The row and the caller's standing: membership null when they are not personnel of its organization. */
export interface RowStanding {
  row: RowRef;
  /** The user who created the row (their change notices are spared their own writes). */
  createdBy: string;
  membership: Membership | null;
  /** The caller's strongest project role on the row; null for a non-member or an Alumni. */
  projectRole: ProjectRole | null;
  /** With a {cell} target: the cell, its column and widget. */
  cell?: TargetCell;
  /** With `column`: that column of the row's table and its widget; null when the table has no such column. */
  column?: CellColumn | null;
}

interface Found extends RowRef {
  created_by: string; organization_name: string; personnel_sid: string | null; is_administrator: boolean | null;
  personnel_archived: boolean | null; is_current: boolean | null; permission: ProjectRole | null;
  cell_sid?: string; cell_data?: string; cell_created?: string; cell_updated?: string;
}

/** The fields of a column (joined as `col`) and its widget (`w`), their names prefixed: what columnOf reads. */
function columnFields(col: string, w: string, prefix: string): SQL {
  const as = (field: string) => `${prefix}${field}`;
  return sql.raw(`${col}.sid AS ${as('column_sid')}, ${col}.name AS ${as('column_name')}, ${w}.sid AS ${as('widget_sid')}, `
    + `${w}.name AS ${as('widget_name')}, ${w}.price AS ${as('price')}, ${w}.addable_at_readonly AS ${as('addable')}, `
    + `${w}.kind AS ${as('kind')}, ${col}.settings AS ${as('settings')}`);
}

/** The column (with its widget's name) columnFields read under `prefix`; null when the join found none. */
function columnOf(found: Found, prefix: string): Required<CellColumn> | null {
  const f = found as unknown as Record<string, unknown>;
  const field = <T>(name: string) => f[`${prefix}${name}`] as T;
  if (!field<string | null>('column_sid')) return null;
  return {
    sid: field('column_sid'), name: field('column_name'), widgetSid: field('widget_sid'), widgetName: field('widget_name'),
    price: field('price'), addable: field('addable'), kind: field('kind'), settings: field<Record<string, unknown> | null>('settings') ?? {},
  };
}

function sidOf(target: RowTarget): string {
  if ('row' in target) return target.row;
  if ('cell' in target) return target.cell;
  return 'section' in target ? target.section : target.version;
}

/** Which kind of target: part of a statement's key (its text differs by kind). */
function kindOf(target: RowTarget): 'row' | 'cell' | 'section' | 'version' {
  if ('row' in target) return 'row';
  if ('cell' in target) return 'cell';
  return 'section' in target ? 'section' : 'version';
}

/** The row the target names, its sid the `target` placeholder. */
function where(kind: ReturnType<typeof kindOf>): SQL {
  const target = sql.placeholder('target');
  if (kind === 'row') return sql`r.sid = ${target}`;
  if (kind === 'cell') return sql`c.sid = ${target}`;
  if (kind === 'section') return sql`r.sid = (SELECT row_sid FROM sections WHERE sid = ${target})`;
  return sql`r.sid = (SELECT row_sid FROM versions WHERE sid = ${target})`;
}

/**
 * The statement of `standing`, for a kind of target, with or without the lock, and with or
 * without the column named by the `column` placeholder (built once a process: core/built-sql.ts).
 */
function standingSql(kind: ReturnType<typeof kindOf>, lock: boolean, withColumn: boolean): SQL {
  const byCell = kind === 'cell';
  return sql`
    SELECT r.sid, r.name, r.organization_sid, r.table_sid, r.project_sid, r.is_locked, r.is_archived, r.open_to_organization, r.created_by,
           o.name AS organization_name, p.sid AS personnel_sid, p.is_administrator, p.is_archived AS personnel_archived,
           ${currentPersonnel.sql('p')} AS is_current, ${rowRole.sql(sql`p.sid`, sql`r.sid`, sql`r.project_sid`, sql`r.open_to_organization`)} AS permission
           ${byCell ? sql`, c.sid AS cell_sid, c.data AS cell_data, ${isoTimestamp(sql`c.date_created`)} AS cell_created,
           ${isoTimestamp(sql`c.date_updated`)} AS cell_updated, ${columnFields('col', 'w', '')}` : sql``}
           ${withColumn ? sql`, ${columnFields('nc', 'nw', 'named_')}` : sql``}
      FROM record_rows r
      JOIN organizations o ON o.sid = r.organization_sid
      ${byCell ? sql`JOIN cells c ON c.row_sid = r.sid JOIN record_columns col ON col.sid = c.column_sid JOIN widgets w ON w.sid = c.widget_sid` : sql``}
      LEFT JOIN personnel p ON p.organization_sid = r.organization_sid AND p.user_sid = ${sql.placeholder('user')}
      ${withColumn ? sql`LEFT JOIN record_columns nc ON nc.sid = ${sql.placeholder('column')} AND nc.table_sid = r.table_sid
      LEFT JOIN widgets nw ON nw.sid = nc.widget_sid` : sql``}
     WHERE ${where(kind)}
     ${lock ? sql`FOR UPDATE OF r` : sql``}`;
}

async function standing(db: Db, actor: Pick<Actor, 'userSid'>, target: RowTarget, lock: boolean, column?: string): Promise<RowStanding | undefined> {
  if (!isSid(sidOf(target))) return undefined;
  const kind = kindOf(target);
  const byCell = kind === 'cell';
  const withColumn = column !== undefined;
  const [r] = await runBuilt<Found>(db, `records/lock:${kind}:${lock}:${withColumn}`, () => standingSql(kind, lock, withColumn), {
    target: sidOf(target), user: actor.userSid, ...(withColumn ? { column } : {}),
  });
  if (!r) return undefined;
  const role = roleOf({ personnel_sid: r.personnel_sid, is_administrator: r.is_administrator, is_archived: r.personnel_archived, is_current: r.is_current });
  const cellColumn = byCell ? columnOf(r, '') : null;
  return {
    row: {
      sid: r.sid, name: r.name, organization_sid: r.organization_sid, table_sid: r.table_sid,
      project_sid: r.project_sid, is_locked: r.is_locked, is_archived: r.is_archived, open_to_organization: r.open_to_organization,
    },
    createdBy: r.created_by,
    membership: role ? { organizationSid: r.organization_sid, organizationName: r.organization_name, personnelSid: r.personnel_sid!, role } : null,
    projectRole: role === 'admin' || role === 'member' ? r.permission : null,
    ...(cellColumn ? {
      cell: { sid: r.cell_sid!, data: r.cell_data!, date_created: r.cell_created!, date_updated: r.cell_updated!, widget_name: cellColumn.widgetName, column: cellColumn },
    } : {}),
    ...(withColumn ? { column: columnOf(r, 'named_') } : {}),
  };
}

/**
 * Locks the target's row (FOR UPDATE) until the caller's transaction ends and answers it
 * with the caller's standing, in one statement; undefined when there is no such row (or cell).
 * A cell's data read here may be older than the lock: records_set_cell reads it again.
 * `column`: the column of that sid of the row's table comes with it (RowStanding.column; a cell's POST).
 */
export function lockRow(tx: Db, actor: Pick<Actor, 'userSid'>, target: RowTarget, options: { column?: string } = {}): Promise<RowStanding | undefined> {
  return standing(tx, actor, target, true, options.column);
}

/** The target's row and the caller's standing, without a lock (a reader's question). */
export function readRow(db: Db, actor: Pick<Actor, 'userSid'>, target: RowTarget): Promise<RowStanding | undefined> {
  return standing(db, actor, target, false);
}

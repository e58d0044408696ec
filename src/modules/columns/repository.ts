import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { columns, tables, widgets } from '../../db/schema.js';
import { isoTimestamp } from '../../core/sql.js';

const fields = {
  sid: columns.sid,
  organization_sid: columns.organizationSid,
  name: columns.name,
  order: columns.order,
  table_sid: tables.sid,
  table_name: tables.name,
  widget_sid: widgets.sid,
  widget_name: widgets.name,
  widget_kind: widgets.kind,
  widget_documentation_url: widgets.documentationUrl,
  description: columns.description,
  default_value: columns.defaultValue,
  is_required: columns.isRequired,
  is_hidden: columns.isHidden,
  is_archived: columns.isArchived,
  name_system: columns.nameSystem,
  metadata: columns.metadata,
  settings: sql<Record<string, unknown>>`${columns.settings}`,
  date_created: isoTimestamp(columns.dateCreated),
  date_updated: isoTimestamp(columns.dateUpdated),
};

export interface ColumnRow {
  sid: string; organization_sid: string; name: string; order: number; table_sid: string; table_name: string;
  widget_sid: string; widget_name: string; widget_kind: string; widget_documentation_url: string;
  description: string; default_value: string; is_required: boolean; is_hidden: boolean; is_archived: boolean;
  name_system: string; metadata: unknown; settings: Record<string, unknown>; date_created: string; date_updated: string;
}

/** The list's filters. */
export interface ColumnFilters { table__sid?: string; name_system?: string; is_archived?: boolean }

/** An organization's columns, or one table's. */
function where(orgSid: string, filters: ColumnFilters): SQL {
  return and(
    eq(columns.organizationSid, orgSid),
    filters.table__sid ? eq(columns.tableSid, filters.table__sid) : undefined,
    filters.name_system !== undefined ? eq(columns.nameSystem, filters.name_system) : undefined,
    filters.is_archived !== undefined ? eq(columns.isArchived, filters.is_archived) : undefined,
  )!;
}

function select(db: Db) {
  return db.select(fields).from(columns)
    .innerJoin(tables, eq(tables.sid, columns.tableSid))
    .innerJoin(widgets, eq(widgets.sid, columns.widgetSid));
}

export async function countColumns(db: Db, orgSid: string, filters: ColumnFilters = {}): Promise<number> {
  const [row] = await db.select({ n: count() }).from(columns).where(where(orgSid, filters));
  return row.n;
}

/** A page of columns, by table (oldest table first) and then by order. */
export async function pageColumns(db: Db, orgSid: string, filters: ColumnFilters, limit: number, offset: number): Promise<ColumnRow[]> {
  return select(db).where(where(orgSid, filters))
    .orderBy(tables.dateCreated, tables.sid, columns.order, columns.sid).limit(limit).offset(offset);
}

export async function findBySid(db: Db, sid: string): Promise<ColumnRow | undefined> {
  const [row] = await select(db).where(eq(columns.sid, sid));
  return row;
}

/** Locks table `tableSid` of organization `orgSid` (column numbering takes turns) and returns the next free order; undefined when the table is not the organization's. */
export async function lockTableForColumns(db: Db, orgSid: string, tableSid: string): Promise<number | undefined> {
  const [table] = await db.select({ sid: tables.sid }).from(tables)
    .where(and(eq(tables.sid, tableSid), eq(tables.organizationSid, orgSid))).for('update');
  if (!table) return undefined;
  const [row] = await db.select({ next: sql<number>`coalesce(max(${columns.order}) + 1, 0)::int` }).from(columns)
    .where(eq(columns.tableSid, tableSid));
  return row.next;
}

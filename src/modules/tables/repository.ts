import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { columns, tables, widgets } from '../../db/schema.js';
import { isoTimestamp } from '../../core/sql.js';

const fields = {
  sid: tables.sid,
  organization_sid: tables.organizationSid,
  name: tables.name,
  description: tables.description,
  date_created: isoTimestamp(tables.dateCreated),
  date_updated: isoTimestamp(tables.dateUpdated),
};

export interface TableRow {
  sid: string; organization_sid: string; name: string; description: string; date_created: string; date_updated: string;
}

export interface TableColumn {
  table_sid: string; sid: string; name: string; order: number; widget: { sid: string; name: string };
}

export async function countInOrganization(db: Db, orgSid: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(tables).where(eq(tables.organizationSid, orgSid));
  return row.n;
}

/** A page of an organization's tables, oldest first. */
export async function pageInOrganization(db: Db, orgSid: string, limit: number, offset: number): Promise<TableRow[]> {
  return db.select(fields).from(tables).where(eq(tables.organizationSid, orgSid))
    .orderBy(tables.dateCreated, tables.sid).limit(limit).offset(offset);
}

export async function findBySid(db: Db, sid: string): Promise<TableRow | undefined> {
  const [row] = await db.select(fields).from(tables).where(eq(tables.sid, sid));
  return row;
}

/** The table `sid` if it belongs to organization `orgSid`. */
export async function findInOrganization(db: Db, orgSid: string, sid: string): Promise<TableRow | undefined> {
  const [row] = await db.select(fields).from(tables).where(and(eq(tables.sid, sid), eq(tables.organizationSid, orgSid)));
  return row;
}

/** The columns of several tables (a whole page) in one query, each table's by order. */
export async function columnsOf(db: Db, tableSids: string[]): Promise<TableColumn[]> {
  if (!tableSids.length) return [];
  const rows = await db.select({
    table_sid: columns.tableSid, sid: columns.sid, name: columns.name, order: columns.order,
    widget_sid: widgets.sid, widget_name: widgets.name,
  }).from(columns).innerJoin(widgets, eq(widgets.sid, columns.widgetSid))
    .where(inArray(columns.tableSid, tableSids))
    .orderBy(columns.tableSid, asc(columns.order), columns.sid);
  return rows.map(({ widget_sid, widget_name, ...c }) => ({ ...c, widget: { sid: widget_sid, name: widget_name } }));
}

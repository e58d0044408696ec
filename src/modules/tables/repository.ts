import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { columns, tables, widgets } from '../../db/schema.js';
import { isoTimestamp } from '../../core/sql.js';

const fields = {
  sid: tables.sid,
  organization_sid: tables.organizationSid,
  name: tables.name,
  name_singular: tables.nameSingular,
  unique_code: tables.uniqueCode,
  description: tables.description,
  icon: tables.icon,
  table_type: tables.tableType,
  order: tables.order,
  is_archived: tables.isArchived,
  name_system: tables.nameSystem,
  metadata: tables.metadata,
  date_created: isoTimestamp(tables.dateCreated),
  date_updated: isoTimestamp(tables.dateUpdated),
};

export interface TableRow {
  sid: string; organization_sid: string; name: string; name_singular: string; unique_code: string; description: string;
  icon: string; table_type: string; order: number; is_archived: boolean; name_system: string; metadata: unknown;
  date_created: string; date_updated: string;
}

export interface TableColumn {
  table_sid: string; sid: string; name: string; order: number; widget: { sid: string; name: string; documentation_url: string };
}

/** The list's filters (Labii's name_system and is_archived). */
export interface TableFilters {
  name_system?: string;
  is_archived?: boolean;
}

function where(orgSid: string, filters: TableFilters): SQL {
  return and(
    eq(tables.organizationSid, orgSid),
    filters.name_system !== undefined ? eq(tables.nameSystem, filters.name_system) : undefined,
    filters.is_archived !== undefined ? eq(tables.isArchived, filters.is_archived) : undefined,
  )!;
}

export async function countInOrganization(db: Db, orgSid: string, filters: TableFilters = {}): Promise<number> {
  const [row] = await db.select({ n: count() }).from(tables).where(where(orgSid, filters));
  return row.n;
}

/** A page of an organization's tables, oldest first. */
export async function pageInOrganization(db: Db, orgSid: string, limit: number, offset: number, filters: TableFilters = {}): Promise<TableRow[]> {
  return db.select(fields).from(tables).where(where(orgSid, filters))
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
    widget_sid: widgets.sid, widget_name: widgets.name, widget_documentation_url: widgets.documentationUrl,
  }).from(columns).innerJoin(widgets, eq(widgets.sid, columns.widgetSid))
    .where(inArray(columns.tableSid, tableSids))
    .orderBy(columns.tableSid, asc(columns.order), columns.sid);
  return rows.map(({ widget_sid, widget_name, widget_documentation_url, ...c }) =>
    ({ ...c, widget: { sid: widget_sid, name: widget_name, documentation_url: widget_documentation_url } }));
}

export interface TableCounts { number_of_records: number; number_of_columns: number; number_of_workflows: number }

/**
 * The counts of several tables (a whole page) in one query: records from the per-table
 * counters the row triggers keep (record_row_counts), columns and workflows by their table indexes.
 */
export async function countsOf(db: Db, tableSids: string[]): Promise<Map<string, TableCounts>> {
  const out = new Map<string, TableCounts>();
  if (!tableSids.length) return out;
  const rows = await query<{ sid: string; records: string; columns: string; workflows: string }>(db, sql`
    SELECT t.sid,
           (SELECT coalesce(sum(c.rows), 0) FROM record_row_counts c WHERE c.table_sid = t.sid) AS records,
           (SELECT count(*) FROM record_columns rc WHERE rc.table_sid = t.sid) AS columns,
           (SELECT count(*) FROM workflows w WHERE w.table_sid = t.sid) AS workflows
      FROM unnest(ARRAY[${sql.join(tableSids.map((sid) => sql`${sid}`), sql`, `)}]::text[]) AS t(sid)`);
  for (const r of rows) {
    out.set(r.sid, { number_of_records: Number(r.records), number_of_columns: Number(r.columns), number_of_workflows: Number(r.workflows) });
  }
  return out;
}

/**
 * A unique code for a new table of the organization: `wanted`, or the first three letters
 * or digits of the name upper-case ("REC" for none), with "-2", "-3" … when taken.
 */
export async function freeUniqueCode(db: Db, orgSid: string, name: string): Promise<string> {
  const base = name.replace(/[^A-Za-z0-9]/g, '').slice(0, 3).toUpperCase() || 'REC';
  const taken = new Set((await query<{ unique_code: string }>(db, sql`
    SELECT unique_code FROM record_tables WHERE organization_sid = ${orgSid} AND (unique_code = ${base} OR unique_code LIKE ${`${base}-%`})`))
    .map((r) => r.unique_code));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** Whether another table of the organization has this code. */
export async function codeTaken(db: Db, orgSid: string, code: string, exceptSid = ''): Promise<boolean> {
  const [row] = await query<{ sid: string }>(db, sql`
    SELECT sid FROM record_tables WHERE organization_sid = ${orgSid} AND unique_code = ${code} AND sid <> ${exceptSid} LIMIT 1`);
  return !!row;
}

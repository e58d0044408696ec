// What an import reads: the table's columns with their widgets, and the rows its lines name
// (by sid or by a key column's value) with their cells, a batch of lines at a time.
import { asc, eq, sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { columns, widgets } from '../../db/schema.js';
import type { CellColumn } from '../cells/write.js';

/** The table's columns with their widget's price (in cents) and whether it may change a locked row. */
export async function importColumns(db: Db, tableSid: string): Promise<(CellColumn & { cents: number })[]> {
  const found = await db.select({
    sid: columns.sid, name: columns.name, widgetSid: widgets.sid, price: widgets.price, addable: widgets.addableAtReadonly,
    kind: widgets.kind, settings: columns.settings,
  }).from(columns).innerJoin(widgets, eq(widgets.sid, columns.widgetSid))
    .where(eq(columns.tableSid, tableSid)).orderBy(asc(columns.order), asc(columns.sid));
  return found.map((c) => ({ ...c, settings: c.settings as Record<string, unknown>, cents: Math.round(Number(c.price) * 100) }));
}

export interface ExistingRow {
  sid: string;
  name: string;
  description: string;
  is_locked: boolean;
  is_archived: boolean;
  /** The row's cells: sid and data by column sid. */
  cells: Record<string, { sid: string; data: string }>;
  /** The key column's data (key by column). */
  key: string | null;
}

/**
 * The rows of the table and project that `keys` name: by sid, or (with `keyColumn`) by that
 * column's data (the oldest row when several share it). `lock`: FOR UPDATE, in sid order.
 */
export async function existingRows(
  db: Db, tableSid: string, projectSid: string, keys: string[], keyColumn: string | null, lock: boolean,
): Promise<Map<string, ExistingRow>> {
  const found = new Map<string, ExistingRow>();
  if (!keys.length) return found;
  const list = sql.join(keys.map((k) => sql`${k}`), sql`, `);
  const match = keyColumn
    ? sql`r.sid IN (SELECT DISTINCT ON (c.data) c.row_sid FROM cells c JOIN record_rows r2 ON r2.sid = c.row_sid
                      WHERE c.column_sid = ${keyColumn} AND c.data IN (${list}) AND r2.table_sid = ${tableSid} AND r2.project_sid = ${projectSid}
                      ORDER BY c.data, r2.date_created, r2.sid)`
    : sql`r.sid IN (${list})`;
  const rows = await query<Omit<ExistingRow, 'cells'> & { cells: Record<string, { sid: string; data: string }> | null }>(db, sql`
    SELECT r.sid, r.name, r.description, r.is_locked, r.is_archived,
           (SELECT json_object_agg(c.column_sid, json_build_object('sid', c.sid, 'data', c.data)) FROM cells c WHERE c.row_sid = r.sid) AS cells,
           ${keyColumn ? sql`(SELECT c.data FROM cells c WHERE c.row_sid = r.sid AND c.column_sid = ${keyColumn})` : sql`NULL::text`} AS key
      FROM record_rows r
     WHERE ${match} AND r.table_sid = ${tableSid} AND r.project_sid = ${projectSid}
     ORDER BY r.sid
     ${lock ? sql`FOR UPDATE OF r` : sql``}`);
  for (const r of rows) found.set(keyColumn ? r.key! : r.sid, { ...r, cells: r.cells ?? {} });
  return found;
}

/** The organization's balance in cents, as last committed. */
export async function balanceCents(db: Db, organizationSid: string): Promise<number> {
  const [row] = await query<{ balance: string }>(db, sql`
    SELECT coalesce(sum(credits), 0)::numeric(14, 2)::text AS balance FROM credit_shards WHERE organization_sid = ${organizationSid}`);
  return Math.round(Number(row.balance) * 100);
}


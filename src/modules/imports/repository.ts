// What an import reads: the table's columns with their widgets, and the rows its lines name
// (by sid or by a key column's value) with their cells, a batch of lines at a time.
import { createHash } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { inProject } from '../rows/filters.js';
import { query, type Db } from '../../db/client.js';
import { columns, widgets } from '../../db/schema.js';
import type { CellColumn } from '../cells/write.js';

/**
 * The table's columns with their widget's price (in cents), whether it may change a locked
 * row, and its rules (rows/column-rules.ts): `required` and `defaultValue`, of an archived
 * column neither.
 */
export async function importColumns(db: Db, tableSid: string): Promise<(CellColumn & { cents: number; required: boolean; defaultValue: string })[]> {
  const found = await db.select({
    sid: columns.sid, name: columns.name, widgetSid: widgets.sid, price: widgets.price, addable: widgets.addableAtReadonly,
    kind: widgets.kind, settings: columns.settings, isRequired: columns.isRequired, defaultValue: columns.defaultValue, isArchived: columns.isArchived,
  }).from(columns).innerJoin(widgets, eq(widgets.sid, columns.widgetSid))
    .where(eq(columns.tableSid, tableSid)).orderBy(asc(columns.order), asc(columns.sid));
  return found.map(({ isRequired, defaultValue, isArchived, ...c }) => ({
    ...c, settings: c.settings as Record<string, unknown>, cents: Math.round(Number(c.price) * 100),
    required: isRequired && !isArchived, defaultValue: isArchived ? '' : defaultValue,
  }));
}

export interface ExistingRow {
  sid: string;
  name: string;
  description: string;
  is_locked: boolean;
  is_archived: boolean;
  open_to_organization: boolean;
  /** The row's cells: sid and data by column sid. */
  cells: Record<string, { sid: string; data: string }>;
  /** The key column's data (key by column). */
  key: string | null;
}

/**
 * The rows of the table in the project (their first project or another, rows/filters.ts)
 * that `keys` name: by sid, or (with `keyColumn`) by that column's data — the oldest row
 * when several share it — found through cells_column_data_md5_idx by the values' md5, not
 * by reading the column's cells. `lock`: FOR UPDATE, in sid order.
 */
export async function existingRows(
  db: Db, tableSid: string, projectSid: string, keys: string[], keyColumn: string | null, lock: boolean,
): Promise<Map<string, ExistingRow>> {
  const found = new Map<string, ExistingRow>();
  if (!keys.length) return found;
  const list = sql.join(keys.map((k) => sql`${k}`), sql`, `);
  const hashes = sql.join(keys.map((k) => sql`${createHash('md5').update(k, 'utf8').digest('hex')}`), sql`, `);
  const keyed = keyColumn ? sql`
    WITH keyed AS (
      SELECT DISTINCT ON (c.data) c.row_sid, c.data AS key
        FROM cells c JOIN record_rows ON record_rows.sid = c.row_sid
       WHERE c.column_sid = ${keyColumn} AND md5(c.data) IN (${hashes}) AND c.data IN (${list})
         AND record_rows.table_sid = ${tableSid} AND ${inProject(projectSid)}
       ORDER BY c.data, record_rows.date_created, record_rows.sid)` : sql``;
  const rows = await query<Omit<ExistingRow, 'cells'> & { cells: Record<string, { sid: string; data: string }> | null }>(db, sql`
    ${keyed}
    SELECT record_rows.sid, record_rows.name, record_rows.description, record_rows.is_locked, record_rows.is_archived, record_rows.open_to_organization,
           (SELECT json_object_agg(c.column_sid, json_build_object('sid', c.sid, 'data', c.data)) FROM cells c WHERE c.row_sid = record_rows.sid) AS cells,
           ${keyColumn ? sql`keyed.key` : sql`NULL::text`} AS key
      FROM record_rows ${keyColumn ? sql`JOIN keyed ON keyed.row_sid = record_rows.sid` : sql``}
     WHERE ${keyColumn ? sql`true` : sql`record_rows.sid IN (${list})`} AND record_rows.table_sid = ${tableSid} AND ${inProject(projectSid)}
     ORDER BY record_rows.sid
     ${lock ? sql`FOR UPDATE OF record_rows` : sql``}`);
  for (const r of rows) found.set(keyColumn ? r.key! : r.sid, { ...r, cells: r.cells ?? {} });
  return found;
}

/** The organization's balance in cents, as last committed. */
export async function balanceCents(db: Db, organizationSid: string): Promise<number> {
  const [row] = await query<{ balance: string }>(db, sql`
    SELECT coalesce(sum(credits), 0)::numeric(14, 2)::text AS balance FROM credit_shards WHERE organization_sid = ${organizationSid}`);
  return Math.round(Number(row.balance) * 100);
}

/** An import of at least this many rows refreshes the planner's statistics (refreshStatistics). */
export const ANALYZE_AFTER_ROWS = 1_000;

/**
 * ANALYZE the tables an import of `rowsWritten` rows wrote (rows, their cells and versions),
 * when there were at least ANALYZE_AFTER_ROWS: the next list or export of the table is then
 * planned with figures that know of them. Without, PostgreSQL plans them with what it knew
 * before (a table it believes holds a few rows is read by a bitmap and a sort, not along its
 * index: a million-row export took a second a batch) until autovacuum analyzes the tables,
 * a minute later if it is on; PGlite has no autovacuum. ANALYZE reads a sample (30,000 rows
 * a table), a few seconds at most, once the import is committed.
 */
export async function refreshStatistics(db: Db, rowsWritten: number): Promise<void> {
  if (rowsWritten < ANALYZE_AFTER_ROWS) return;
  try {
    await db.execute(sql`ANALYZE record_rows, cells, versions`);
  } catch {
    // The import is committed and answered as such: the statistics are only late (autovacuum's).
  }
}

// What an export reads: a table's columns, and its rows in keyset batches (oldest first,
// ties by sid, on record_rows_table_order_idx), each batch's cells in one query.
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { columns, projects, rows } from '../../db/schema.js';
import { isoTimestamp } from '../../core/sql.js';
import type { Membership } from '../../core/access.js';
import { gridWhere, type GridFilter } from '../rows/grid.js';

export interface ExportColumn {
  sid: string;
  name: string;
}

/** The table's columns in the grid's order (order, then sid). */
export async function tableColumns(db: Db, tableSid: string): Promise<ExportColumn[]> {
  return db.select({ sid: columns.sid, name: columns.name }).from(columns)
    .where(eq(columns.tableSid, tableSid)).orderBy(asc(columns.order), asc(columns.sid));
}

export interface ExportRow {
  sid: string;
  name: string;
  description: string;
  project: { sid: string; name: string };
  is_locked: boolean;
  is_archived: boolean;
  version: number;
  hash: string;
  date_created: string;
  date_updated: string;
  /** The row's cells' data by column sid. */
  cells: Record<string, string>;
  /** The keyset cursor: date_created as PostgreSQL's text of it. */
  at: string;
}

/** Where a batch starts: after this row. */
export interface Cursor {
  at: string;
  sid: string;
}

/**
 * Up to `limit` rows of the table the member may read under `filter`, after `after`,
 * with their cells: two queries whatever the batch's size.
 */
export async function exportBatch(
  db: Db, orgSid: string, tableSid: string, membership: Membership, filter: GridFilter, after: Cursor | null, limit: number,
): Promise<ExportRow[]> {
  const condition: SQL = and(
    gridWhere(orgSid, tableSid, membership, filter),
    after ? sql`(${rows.dateCreated}, ${rows.sid}) > (${after.at}::timestamptz, ${after.sid})` : undefined,
  )!;
  const found = await db.select({
    sid: rows.sid, name: rows.name, description: rows.description,
    project: sql<{ sid: string; name: string }>`json_build_object('sid', ${projects.sid}, 'name', ${projects.name})`,
    is_locked: rows.isLocked, is_archived: rows.isArchived, version: rows.version, hash: rows.lastHash,
    date_created: isoTimestamp(rows.dateCreated), date_updated: isoTimestamp(rows.dateUpdated),
    at: sql<string>`${rows.dateCreated}::text`,
  }).from(rows).innerJoin(projects, eq(projects.sid, rows.projectSid))
    .where(condition).orderBy(asc(rows.dateCreated), asc(rows.sid)).limit(limit);
  const bySid = new Map<string, ExportRow>(found.map((r) => [r.sid, { ...r, cells: {} }]));
  if (found.length) {
    const cellRows = await query<{ row_sid: string; column_sid: string; data: string }>(db, sql`
      SELECT row_sid, column_sid, data FROM cells WHERE row_sid IN (${sql.join(found.map((r) => sql`${r.sid}`), sql`, `)})`);
    for (const c of cellRows) bySid.get(c.row_sid)!.cells[c.column_sid] = c.data;
  }
  return [...bySid.values()];
}

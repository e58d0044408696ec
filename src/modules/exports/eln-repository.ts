// What a project's .eln export reads: its rows in keyset batches (oldest first, ties by
// sid, on record_rows_project_order_idx), each batch's whole version chains, the files its
// rows' cells name, and the tables and columns they belong to; a few queries a batch.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { columns, files, rows, tables, users, versions } from '../../db/schema.js';
import { isoTimestamp } from '../../core/sql.js';
import type { Cursor } from './repository.js';

export interface ElnRow {
  sid: string;
  table_sid: string;
  created_by: string | null;
  date_created: string;
  at: string;
}

/** Up to `limit` rows of the project after `after`. */
export async function projectRowBatch(db: Db, projectSid: string, after: Cursor | null, limit: number): Promise<ElnRow[]> {
  return db.select({
    sid: rows.sid, table_sid: rows.tableSid, created_by: rows.createdBy, date_created: isoTimestamp(rows.dateCreated),
    at: sql<string>`${rows.dateCreated}::text`,
  }).from(rows)
    .where(and(eq(rows.projectSid, projectSid), after ? sql`(${rows.dateCreated}, ${rows.sid}) > (${after.at}::timestamptz, ${after.sid})` : undefined))
    .orderBy(asc(rows.dateCreated), asc(rows.sid)).limit(limit);
}

/** One version as the archive keeps it: what its hash covers, and who and why. */
export interface ElnVersion {
  row: string;
  version: number;
  previousHash: string;
  hash: string;
  data: { name: string; description: string; is_locked: boolean; is_archived: boolean; cells: Record<string, string> };
  updated_by: string;
  date_created: string;
  activity_message: string;
  commit: string | null;
}

/** The whole chains of the rows, by row sid, each in version order. */
export async function chainsOf(db: Db, rowSids: string[]): Promise<Map<string, ElnVersion[]>> {
  const byRow = new Map<string, ElnVersion[]>(rowSids.map((sid) => [sid, []]));
  if (!rowSids.length) return byRow;
  const found = await db.select({
    row: versions.rowSid, version: versions.version, previousHash: versions.previousHash, hash: versions.hash, data: versions.data,
    updated_by: versions.updatedBy, date_created: isoTimestamp(versions.dateCreated), activity_message: versions.activityMessage,
    commit: versions.commit,
  }).from(versions).where(inArray(versions.rowSid, rowSids)).orderBy(asc(versions.rowSid), asc(versions.version));
  for (const v of found) byRow.get(v.row)!.push(v as ElnVersion);
  return byRow;
}

export interface ElnFile {
  row_sid: string;
  sid: string;
  sha256: string;
  size: number;
  media_type: string;
  name: string;
  date_created: string;
}

/**
 * The files of these rows: every file ever attached to a row (a file cell lists it now or
 * did in an older version: docs/files.md), and the organization's files a cell names by sid
 * (files named in a text cell before file cells existed).
 */
export async function filesOf(db: Db, organizationSid: string, rowSids: string[]): Promise<ElnFile[]> {
  if (!rowSids.length) return [];
  const list = sql.join(rowSids.map((s) => sql`${s}`), sql`, `);
  const described = sql`f.sha256, f.size::float8 AS size, f.media_type, f.name, ${isoTimestamp(sql`f.date_created`)} AS date_created`;
  return query<ElnFile>(db, sql`
    SELECT row_sid, sid, sha256, size, media_type, name, date_created FROM (
      SELECT f.row_sid, f.sid, ${described} FROM ${files} f WHERE f.row_sid IN (${list})
      UNION
      SELECT c.row_sid, f.sid, ${described}
        FROM cells c JOIN ${files} f ON f.sid = c.data AND f.organization_sid = ${organizationSid}
       WHERE c.row_sid IN (${list})) found
     ORDER BY row_sid, sid`);
}

export interface ElnTable {
  sid: string;
  name: string;
  columns: { sid: string; name: string }[];
}

/** The tables with their columns in order. */
export async function tablesOf(db: Db, tableSids: string[]): Promise<ElnTable[]> {
  if (!tableSids.length) return [];
  const [found, cols] = await Promise.all([
    db.select({ sid: tables.sid, name: tables.name }).from(tables).where(inArray(tables.sid, tableSids)),
    db.select({ table: columns.tableSid, sid: columns.sid, name: columns.name }).from(columns)
      .where(inArray(columns.tableSid, tableSids)).orderBy(asc(columns.order), asc(columns.sid)),
  ]);
  return found.map((t) => ({ ...t, columns: cols.filter((c) => c.table === t.sid).map(({ sid, name }) => ({ sid, name })) }));
}

/** Names of the users (authors and editors), by sid. */
export async function peopleOf(db: Db, userSids: string[]): Promise<{ sid: string; first_name: string; last_name: string }[]> {
  if (!userSids.length) return [];
  return db.select({ sid: users.sid, first_name: users.firstName, last_name: users.lastName }).from(users).where(inArray(users.sid, userSids));
}

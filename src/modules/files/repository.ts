// Files' SQL: descriptors (files), the stored objects the database knows of (file_objects)
// and each organization's usage (file_usage). Every function takes the organization
// explicitly where a descriptor is concerned.
import { and, asc, count, eq, isNull, sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { fileObjects, files, personnel } from '../../db/schema.js';
import { isoTimestamp, personName } from '../../core/sql.js';

const fields = {
  sid: files.sid,
  organization_sid: files.organizationSid,
  sha256: files.sha256,
  size: files.size,
  media_type: files.mediaType,
  name: files.name,
  uploaded_by_sid: files.uploadedBy,
  uploaded_by_name: personName(personnel),
  row_sid: files.rowSid,
  date_created: isoTimestamp(files.dateCreated),
};

export interface FileRow {
  sid: string;
  organization_sid: string;
  sha256: string;
  size: number;
  media_type: string;
  name: string;
  uploaded_by_sid: string;
  uploaded_by_name: string;
  /** The row it is attached to (null: not attached yet). */
  row_sid: string | null;
  date_created: string;
}

function select(db: Db) {
  return db.select(fields).from(files).innerJoin(personnel, eq(personnel.sid, files.uploadedBy));
}

/** One descriptor by sid (any organization: the caller's standing is checked after). */
export async function findFile(db: Db, sid: string): Promise<FileRow | undefined> {
  const [row] = await select(db).where(eq(files.sid, sid));
  return row as FileRow | undefined;
}

/** Which descriptors a list shows: an organization's not attached to a row yet, or those of a row (its whole history's). */
export type FileOwner = { organizationSid: string } | { rowSid: string };

const ownedBy = (owner: FileOwner) => ('rowSid' in owner
  ? eq(files.rowSid, owner.rowSid)
  : and(eq(files.organizationSid, owner.organizationSid), isNull(files.rowSid)));

/** A page of the owner's descriptors, oldest first. */
export async function pageFiles(db: Db, owner: FileOwner, limit: number, offset: number): Promise<FileRow[]> {
  return (await select(db).where(ownedBy(owner))
    .orderBy(asc(files.dateCreated), asc(files.sid)).limit(limit).offset(offset)) as FileRow[];
}

export async function countFiles(db: Db, owner: FileOwner): Promise<number> {
  const [row] = await db.select({ n: count() }).from(files).where(ownedBy(owner));
  return row?.n ?? 0;
}

/** The sids of the files ever attached to a row (verify: which of its cells' items are files). */
export async function rowFileSids(db: Db, rowSid: string): Promise<Set<string>> {
  const found = await db.select({ sid: files.sid }).from(files).where(eq(files.rowSid, rowSid));
  return new Set(found.map((f) => f.sid));
}

/** The bytes an organization's descriptors hold now. */
export async function usedBytes(db: Db, organizationSid: string): Promise<number> {
  const [row] = await query<{ bytes: string | number }>(db, sql`SELECT bytes FROM file_usage WHERE organization_sid = ${organizationSid}`);
  return Number(row?.bytes ?? 0);
}

/**
 * Counts `size` more bytes against the organization's quota, in the caller's transaction:
 * one statement that adds and checks together (like the credit debit), so concurrent
 * uploads cannot pass the quota between them. False when it would be passed.
 */
export async function addUsage(tx: Db, organizationSid: string, size: number, quotaBytes: number): Promise<boolean> {
  if (size > quotaBytes) return false;
  const rows = await query<{ bytes: string }>(tx, sql`
    INSERT INTO file_usage (organization_sid, bytes) VALUES (${organizationSid}, ${size})
    ON CONFLICT (organization_sid) DO UPDATE SET bytes = file_usage.bytes + EXCLUDED.bytes
      WHERE file_usage.bytes + EXCLUDED.bytes <= ${quotaBytes}
    RETURNING bytes`);
  return rows.length === 1;
}

export async function subtractUsage(tx: Db, organizationSid: string, size: number): Promise<void> {
  await query(tx, sql`UPDATE file_usage SET bytes = greatest(bytes - ${size}, 0) WHERE organization_sid = ${organizationSid}`);
}

/**
 * The stored object's row, written (or its date refreshed) and locked in the caller's
 * transaction: the GC takes the same lock before it deletes an object (gc.ts).
 */
export async function holdObject(tx: Db, sha256: string, size: number): Promise<void> {
  await query(tx, sql`
    INSERT INTO file_objects (sha256, size) VALUES (${sha256}, ${size})
    ON CONFLICT (sha256) DO UPDATE SET date_stored = now()`);
}

/**
 * Locks the stored object's row and refreshes its date, in the caller's transaction; false
 * when the row is gone (the GC deleted the object since it was put in place).
 */
export async function refreshObject(tx: Db, sha256: string): Promise<boolean> {
  const rows = await query<{ sha256: string }>(tx, sql`UPDATE file_objects SET date_stored = now() WHERE sha256 = ${sha256} RETURNING sha256`);
  return rows.length === 1;
}

/** Restarts an object's grace period: the GC keeps it FILES_GC_GRACE_SECONDS from now (a file naming it was just deleted). */
export async function touchObject(tx: Db, sha256: string): Promise<void> {
  await query(tx, sql`UPDATE file_objects SET date_stored = now() WHERE sha256 = ${sha256}`);
}

export async function insertFile(tx: Db, row: {
  sid: string; organizationSid: string; sha256: string; size: number; mediaType: string; name: string; uploadedBy: string; rowSid?: string;
}): Promise<void> {
  await tx.insert(files).values(row);
}

/** Deletes a descriptor not attached to a row (an attached one is its row's history: never deleted). */
export async function deleteFileRow(tx: Db, organizationSid: string, sid: string): Promise<{ size: number } | undefined> {
  const [row] = await tx.delete(files).where(and(eq(files.organizationSid, organizationSid), eq(files.sid, sid), isNull(files.rowSid)))
    .returning({ size: files.size });
  return row;
}

export { fileObjects };

// File cells (issue 25): a column whose widget is of kind `file` holds files. Its cell's data
// is the list of the files' descriptors, as canonical JSON text, so the row's version — which
// snapshots the cells — carries each file's SHA-256 and its hash covers the bytes
// (docs/versions.md, "File cells"). A write names the files by sid (a JSON array of sids, or
// of descriptors with their `sid`); the service writes the descriptors itself, from the
// files table, whatever else the client sent. A file named for the first time is attached
// to the row in the same transaction, and stays the row's for good: its versions refer to
// it, so it is never deleted while the row is (docs/decisions.md, "Files: file cells").
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { isoTimestamp, personName } from '../../core/sql.js';
import { personnel } from '../../db/schema.js';

/** The widget kind of file columns. */
export const FILE_KIND = 'file';

/** The most files one cell may list. */
export const MAX_FILES_A_CELL = 1000;

/** A file as its cell lists it (and every version that snapshots the cell). */
export interface CellFile {
  sid: string;
  name: string;
  size: number;
  media_type: string;
  sha256: string;
  uploaded_by: { sid: string; name: string };
  date_created: string;
}

const DATA = 'data';

/** The sids a file cell's data names, in order: a JSON array of sids or of objects with a `sid`. 400 on `data` otherwise. */
export function sidsOfFileData(data: string): string[] {
  if (data.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw errors.field(DATA, 'A file cell\'s data is a JSON array of file sids (or of file descriptors with their "sid"), e.g. ["Fx1…"].');
  }
  if (!Array.isArray(parsed)) throw errors.field(DATA, 'A file cell\'s data is a JSON array of file sids (or of file descriptors with their "sid").');
  if (parsed.length > MAX_FILES_A_CELL) throw errors.field(DATA, `A file cell lists at most ${MAX_FILES_A_CELL} files.`);
  const sids = parsed.map((item, i) => {
    const sid = typeof item === 'string' ? item : (item && typeof item === 'object' ? (item as { sid?: unknown }).sid : undefined);
    if (typeof sid !== 'string' || !isSid(sid)) throw errors.field(DATA, `Item ${i} is not a file sid (nor an object with one).`);
    return sid;
  });
  const seen = new Set<string>();
  for (const sid of sids) {
    if (seen.has(sid)) throw errors.field(DATA, `The file ${sid} is listed twice.`);
    seen.add(sid);
  }
  return sids;
}

/** The descriptors a file cell's stored data lists ([] for anything else: an empty cell). */
export function filesOfCellData(data: string): CellFile[] {
  try {
    const parsed = JSON.parse(data);
    return Array.isArray(parsed) ? parsed.filter((f) => f && typeof f === 'object' && typeof f.sid === 'string' && typeof f.sha256 === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The stored data of a file cell of row `rowSid` that names `data`'s files, in the caller's
 * transaction (the row locked): each must be a file of the organization not attached yet,
 * or one of this row's; those not attached yet are attached to the row here. 400 on `data`
 * naming the file otherwise.
 */
export async function resolveFileCell(tx: Db, organizationSid: string, rowSid: string, data: string): Promise<string> {
  const sids = sidsOfFileData(data);
  if (!sids.length) return '[]';
  const found = await query<CellFile & { row_sid: string | null; organization_sid: string; uploaded_by_sid: string; uploaded_by_name: string }>(tx, sql`
    SELECT f.sid, f.name, f.size::float8 AS size, f.media_type, f.sha256, f.row_sid, f.organization_sid,
           personnel.sid AS uploaded_by_sid, ${personName(personnel)} AS uploaded_by_name, ${isoTimestamp(sql`f.date_created`)} AS date_created
      FROM files f JOIN personnel ON personnel.sid = f.uploaded_by
     WHERE f.sid IN ${sql`(${sql.join(sids.map((s) => sql`${s}`), sql`, `)})`}
       FOR UPDATE OF f`);
  const bySid = new Map(found.map((f) => [f.sid, f]));
  const attach: string[] = [];
  for (const sid of sids) {
    const file = bySid.get(sid);
    if (!file || file.organization_sid !== organizationSid) throw errors.field(DATA, `No file ${sid} in this organization (upload it first: POST /files/file/list/organization/{sid}/detail/).`);
    if (file.row_sid !== null && file.row_sid !== rowSid) {
      throw errors.field(DATA, `The file ${sid} is attached to another row; upload its bytes again to attach them here (they are stored once).`);
    }
    if (file.row_sid === null) attach.push(sid);
  }
  if (attach.length) {
    await query(tx, sql`UPDATE files SET row_sid = ${rowSid} WHERE row_sid IS NULL AND sid IN ${sql`(${sql.join(attach.map((s) => sql`${s}`), sql`, `)})`}`);
  }
  const listed: CellFile[] = sids.map((sid) => {
    const f = bySid.get(sid)!;
    return {
      sid: f.sid, name: f.name, size: Number(f.size), media_type: f.media_type, sha256: f.sha256,
      uploaded_by: { sid: f.uploaded_by_sid, name: f.uploaded_by_name }, date_created: f.date_created,
    };
  });
  return canonicalJson(listed);
}

import { and, asc, eq, gt, sql, count, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { query, type Db } from '../../db/client.js';
import { rows, users, versions } from '../../db/schema.js';
import { inPage, isoTimestamp, qualified } from '../../core/sql.js';
import type { Membership } from '../../core/access.js';
import { readableRows, roleOnRows } from '../rows/access.js';
import { storedVersionHash } from './chain.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';
import { placeholderMember, placeholderText, runPrepared } from '../../core/prepared.js';

const author = alias(users, 'author');

const fields = {
  sid: versions.sid,
  row_sid: versions.rowSid,
  version: versions.version,
  hash: versions.hash,
  previousHash: versions.previousHash,
  data: versions.data,
  activity_message: versions.activityMessage,
  commit: versions.commit,
  updated_by_sid: versions.updatedBy,
  first_name: author.firstName,
  last_name: author.lastName,
  email: author.email,
  date_created: isoTimestamp(versions.dateCreated),
  date_updated: isoTimestamp(versions.dateUpdated),
  // The stored hash of the version before: the chain link is checked without another query.
  // A lookup by the (row, version) key rather than a join: a plan kept for any row (a
  // generic plan, rowPageQuery) joined the page to all of the row's versions.
  linked_hash: sql<string | null>`(SELECT p.hash FROM versions p WHERE p.row_sid = ${qualified(versions.rowSid)} AND p.version = ${qualified(versions.version)} - 1)`,
};

export interface VersionRow {
  sid: string; row_sid: string; version: number; hash: string; previousHash: string; data: Record<string, unknown>;
  activity_message: string; commit: string | null; updated_by_sid: string; first_name: string | null; last_name: string | null;
  email: string | null; date_created: string; date_updated: string; linked_hash: string | null; permission: 'admin' | 'edit' | 'view' | null;
}

/** Whether a stored version is intact: its hash matches its content and it links to the version before. */
export function isValidVersion(v: Pick<VersionRow, 'row_sid' | 'version' | 'hash' | 'previousHash' | 'data' | 'updated_by_sid' | 'date_created' | 'linked_hash'>): boolean {
  const linked = v.version === 1 ? v.previousHash === '' : v.linked_hash === v.previousHash;
  return linked && v.hash === storedVersionHash(v);
}

function select(db: Db, personnelSid: string, total?: SQL<number>) {
  const chosen = { ...fields, permission: roleOnRows(personnelSid) };
  return db.select(total ? { ...chosen, total } : chosen).from(versions)
    .innerJoin(rows, eq(rows.sid, versions.rowSid))
    .leftJoin(author, eq(author.sid, versions.updatedBy));
}

function where(orgSid: string, membership: Membership, rowSid: string | undefined): SQL {
  return and(eq(versions.organizationSid, orgSid), rowSid ? eq(versions.rowSid, rowSid) : undefined, readableRows(membership))!;
}

/** The count of the versions a list shows, as a query. */
function countQuery(db: Db, condition: SQL) {
  return db.select({ n: count() }).from(versions).innerJoin(rows, eq(rows.sid, versions.rowSid)).where(condition);
}

export async function countVersions(db: Db, orgSid: string, membership: Membership, rowSid?: string): Promise<number> {
  const [row] = await countQuery(db, where(orgSid, membership, rowSid));
  return row.n;
}

/**
 * A page of versions with the count of the list: a row's in version order, or the
 * organization's oldest first.
 */
export async function pageVersions(
  db: Db, orgSid: string, membership: Membership, rowSid: string | undefined, limit: number, offset: number, after?: number,
): Promise<Counted<VersionRow>> {
  if (rowSid) {
    return counted(await runPrepared(db, rowPageQuery, membership.role, {
      org: orgSid, row: rowSid, me: membership.personnelSid, after: after ?? offset, limit,
    }, { generic: true }) as (VersionRow & { total: number })[]);
  }
  const condition = where(orgSid, membership, rowSid);
  return counted(await select(db, membership.personnelSid, totalOf(countQuery(db, condition))).where(condition)
    .orderBy(versions.dateCreated, versions.sid).limit(limit).offset(offset) as (VersionRow & { total: number })[]);
}

/**
 * The statement of a page of a row's versions with their count, built once a caller's
 * organization role (core/prepared.ts; the read rule's SQL differs by it), every value a
 * placeholder: org, row, me, after, limit. Planned once a connection (a generic plan,
 * whatever the row's number of versions): the page's sids are found in the (row, version)
 * index first, the only one that searches by row, and the page's versions are then read by
 * their key, each with its link (linked_hash) by the (row, version) key. The row's own
 * condition is left to the page: beside the sids, a plan made for an average row (a version
 * or two) would read the versions of the row through it and drop those not in the page.
 */
function rowPageQuery(db: Db, role: string) {
  const membership = placeholderMember(role);
  const rowSid = placeholderText('row');
  // Counted, not taken from the row's head version (a version deleted behind the API
  // must not be counted), in the (row, version) index alone: the row's organization
  // and readability are checked once, on the row.
  const readable = db.select({ one: sql`1` }).from(rows).where(and(eq(rows.sid, rowSid), eq(rows.organizationSid, membership.organizationSid), readableRows(membership)));
  const total = sql<number>`(SELECT count(*) FROM ${versions} WHERE ${versions.rowSid} = ${rowSid} AND EXISTS (${readable}))`;
  // A row's versions are numbered 1..n without gaps: page p starts after version
  // (p - 1) * size, found in the (row, version) index instead of skipping rows. The
  // offset of a far page (?page=1000000000) passes an integer's range: compared as bigint.
  const page = db.select({ sid: versions.sid }).from(versions)
    .where(and(eq(versions.rowSid, rowSid), gt(versions.version, sql`${sql.placeholder('after')}::bigint`)))
    .orderBy(asc(versions.version)).limit(sql.placeholder('limit'));
  return select(db, membership.personnelSid, total)
    .where(and(inPage(versions.sid, page), where(membership.organizationSid, membership, undefined)))
    .orderBy(asc(versions.version));
}

export async function findVersion(db: Db, sid: string, personnelSid: string): Promise<VersionRow | undefined> {
  const [row] = await select(db, personnelSid).where(eq(versions.sid, sid));
  return row as VersionRow | undefined;
}

/**
 * A row's versions from `after` (exclusive), in version order, a batch at a time (for
 * verification): at most `limit` versions and, past the first, no more than `maxBytes` of
 * data (measured in the database, so a batch of wide rows never reaches the process
 * whole). `more`: whether versions after the batch may remain.
 */
export async function versionBatch(db: Db, rowSid: string, after: number, limit: number, maxBytes: number) {
  const found = await query<{
    row_sid: string; version: number; hash: string; previousHash: string; data: Record<string, unknown>;
    updated_by_sid: string; date_created: string; taken: number;
  }>(db, sql`
    WITH sized AS (
      SELECT v.row_sid, v.version, v.hash, v.previous_hash, v.updated_by, v.date_created, count(*) OVER () AS taken,
             sum(octet_length(v.data::text)) OVER (ORDER BY v.version) - octet_length(v.data::text) AS before
        FROM (SELECT * FROM versions WHERE row_sid = ${rowSid} AND version > ${after} ORDER BY version LIMIT ${limit}) v)
    SELECT s.row_sid, s.version, s.hash, s.previous_hash AS "previousHash", v.data, s.updated_by AS updated_by_sid,
           ${isoTimestamp(sql`s.date_created`)} AS date_created, s.taken::int AS taken
      FROM sized s JOIN versions v ON v.row_sid = s.row_sid AND v.version = s.version
     WHERE s.before < ${maxBytes} OR s.before = 0
     ORDER BY s.version`);
  return { versions: found, more: found.length > 0 && (found.length < found[0].taken || found.length === limit) };
}

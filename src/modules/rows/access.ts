// The rules of reading rows as SQL fragments for lists; a row's standing for one record is
// records/lock.ts's (loadRowAccess below names it for older callers).
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { Membership } from '../../core/access.js';
import { personnel, rows } from '../../db/schema.js';
import type { Actor } from '../../core/auth.js';
import { readsRow, rowRole } from '../../core/rules.js';
import { lockRow, readRow, type RowStanding } from '../records/lock.js';

export type { RowRef } from '../records/lock.js';

/** The row and the caller's standing (records/lock.ts RowStanding). */
export type RowAccess = RowStanding;

/**
 * The row `rowSid` with the caller's organization role and project role; undefined when there is no such row.
 * With `lock`, the row is locked (FOR UPDATE) until the caller's transaction ends. A thin
 * name for records/lock.ts's lockRow and readRow, kept for its callers.
 */
export function loadRowAccess(db: Db, actor: Pick<Actor, 'userSid'>, rowSid: string, options: { lock?: boolean } = {}): Promise<RowAccess | undefined> {
  return options.lock ? lockRow(db, actor, { row: rowSid }) : readRow(db, actor, { row: rowSid });
}

/**
 * The condition on record_rows that limits a list to the rows the member may read:
 * every row for an organization Admin, rows of any of their projects for others.
 */
export function readableRows(membership: Membership) {
  return readsRow.forMember(membership, sql`${rows.sid}`, sql`${rows.projectSid}`, sql`${rows.openToOrganization}`);
}

/** The member's project role on each row of a query over record_rows (rules.ts, rowRole). */
export function roleOnRows(personnelSid: string) {
  return rowRole.sql(sql`${personnelSid}`, sql`${rows.sid}`, sql`${rows.projectSid}`, sql`${rows.openToOrganization}`);
}

export { personnel };

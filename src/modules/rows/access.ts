// A row and the caller's standing towards it, in one query: cells and versions use it too.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { roleOf, type Membership, type ProjectRole } from '../../core/access.js';
import { isSid } from '../../core/ids.js';
import { personnel, rows } from '../../db/schema.js';
import type { Actor } from '../../core/auth.js';
import { currentPersonnel, readsRow, rowRole } from '../../core/rules.js';

export interface RowRef {
  sid: string;
  name: string;
  organization_sid: string;
  table_sid: string;
  project_sid: string;
  is_locked: boolean;
  is_archived: boolean;
}

export interface RowAccess {
  row: RowRef;
  /** null when the caller is not personnel of the row's organization. */
  membership: Membership | null;
  projectRole: ProjectRole | null;
}

/**
 * The row `rowSid` with the caller's organization role and project role; undefined when there is no such row.
 * With `lock`, the row is locked (FOR UPDATE) until the caller's transaction ends.
 */
export async function loadRowAccess(db: Db, actor: Pick<Actor, 'userSid'>, rowSid: string, options: { lock?: boolean } = {}): Promise<RowAccess | undefined> {
  if (!isSid(rowSid)) return undefined;
  const [r] = await query<RowRef & {
    organization_name: string; personnel_sid: string | null; is_administrator: boolean | null;
    personnel_archived: boolean | null; is_current: boolean | null; permission: ProjectRole | null;
  }>(db, sql`
    SELECT r.sid, r.name, r.organization_sid, r.table_sid, r.project_sid, r.is_locked, r.is_archived,
           o.name AS organization_name, p.sid AS personnel_sid, p.is_administrator, p.is_archived AS personnel_archived,
           ${currentPersonnel.sql('p')} AS is_current, ${rowRole.sql(sql`p.sid`, sql`r.sid`, sql`r.project_sid`)} AS permission
      FROM record_rows r
      JOIN organizations o ON o.sid = r.organization_sid
      LEFT JOIN personnel p ON p.organization_sid = r.organization_sid AND p.user_sid = ${actor.userSid}
     WHERE r.sid = ${rowSid}
     ${options.lock ? sql`FOR UPDATE OF r` : sql``}`);
  if (!r) return undefined;
  const role = roleOf({ personnel_sid: r.personnel_sid, is_administrator: r.is_administrator, is_archived: r.personnel_archived, is_current: r.is_current });
  return {
    row: {
      sid: r.sid, name: r.name, organization_sid: r.organization_sid, table_sid: r.table_sid,
      project_sid: r.project_sid, is_locked: r.is_locked, is_archived: r.is_archived,
    },
    membership: role ? { organizationSid: r.organization_sid, organizationName: r.organization_name, personnelSid: r.personnel_sid!, role } : null,
    projectRole: role === 'admin' || role === 'member' ? r.permission : null,
  };
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
  return rowRole.sql(sql`${personnelSid}`, sql`${rows.sid}`, sql`${rows.projectSid}`);
}

export { personnel };

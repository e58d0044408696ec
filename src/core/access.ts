// Roles: who the caller is in an organization. What each role may do is in permissions.ts.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../db/client.js';
import { isSid } from './ids.js';
import { errors } from './errors.js';
import type { Actor } from './auth.js';
import { activeMember, currentPersonnel, projectRole } from './rules.js';
import type { Membership, MembershipRow, OrgRole, ProjectRole } from './roles.js';

export type { OrgRole, Membership, MembershipRow, ProjectRole } from './roles.js';

/** The organization role a personnel row grants (null: no personnel row). */
export function roleOf(row: Pick<MembershipRow, 'personnel_sid' | 'is_administrator' | 'is_archived' | 'is_current'>): OrgRole | null {
  if (row.personnel_sid === null) return null;
  if (!activeMember.test(row)) return 'alumni';
  return row.is_administrator ? 'admin' : 'member';
}

/**
 * The organization `orgSid` and the caller's role in it, in one query.
 * Returns undefined when the organization does not exist; role null when the caller is not personnel there.
 */
export async function findMembership(db: Db, actor: Actor, orgSid: string): Promise<{ membership: Membership | null; exists: boolean }> {
  if (!isSid(orgSid)) return { membership: null, exists: false };
  const [row] = actor.standing?.organizationSid === orgSid ? [actor.standing.row] : await query<MembershipRow>(db, sql`
    SELECT ${membershipColumns()}
      FROM organizations o LEFT JOIN personnel ON personnel.organization_sid = o.sid AND personnel.user_sid = ${actor.userSid}
     WHERE o.sid = ${orgSid}`);
  if (!row) return { membership: null, exists: false };
  return { exists: true, membership: membershipOf(row) };
}

/** The standing a membership row grants: null when the caller is not personnel there. */
export function membershipOf(row: MembershipRow): Membership | null {
  const role = roleOf(row);
  if (role === null) return null;
  return { organizationSid: row.organization_sid, organizationName: row.organization_name, personnelSid: row.personnel_sid!, role };
}

/** SQL: the caller's MembershipRow columns in the organization `o` (joined as `o`, personnel as `personnel`). */
export function membershipColumns() {
  return sql`o.sid AS organization_sid, o.name AS organization_name, personnel.sid AS personnel_sid,
           personnel.is_administrator, personnel.is_archived,
           ${currentPersonnel.sql('personnel')} AS is_current`;
}

/** An active member's standing: 403 for someone who is not (or no longer) an active member. */
export function requireActive(membership: Membership | null): Membership {
  if (!membership || membership.role === 'alumni') throw errors.forbidden();
  return membership;
}

/**
 * The caller's active role in an organization named in a list path: 406 when the
 * organization does not exist, 403 when the caller is not an active member.
 */
export async function requireOrganizationMember(db: Db, actor: Actor, orgSid: string): Promise<Membership> {
  const { membership, exists } = await findMembership(db, actor, orgSid);
  if (!exists) throw errors.wrongId();
  return requireActive(membership);
}

/**
 * The caller's active role in the organization that owns a record they asked for by sid:
 * a record of an organization the caller never belonged to is simply not found (404),
 * a former member (Alumni) is refused (403).
 */
export async function requireRecordAccess(db: Db, actor: Actor, orgSid: string): Promise<Membership> {
  const { membership } = await findMembership(db, actor, orgSid);
  if (!membership) throw errors.notFound();
  if (membership.role === 'alumni') throw errors.forbidden();
  return membership;
}

/** The caller's role in a project (rules.ts, projectRole: View in a project open to the organization), or null without one. */
export async function findProjectRole(db: Db, personnelSid: string, projectSid: string): Promise<ProjectRole | null> {
  const [row] = await query<{ permission: ProjectRole | null }>(db, sql`SELECT ${projectRole.sql(sql`${personnelSid}`, sql`${projectSid}`)} AS permission`);
  return row?.permission ?? null;
}

/**
 * A record of an organization, looked up by sid, and the caller's standing in that
 * organization: a malformed or unknown sid, or a record of an organization the caller
 * never belonged to, is 404; a former member (Alumni) is 403.
 */
export async function loadOrganizationRecord<T extends { organization_sid: string }>(
  db: Db,
  actor: Actor,
  sid: string,
  find: (sid: string) => Promise<T | undefined>,
): Promise<{ row: T; membership: Membership }> {
  if (!isSid(sid)) throw errors.notFound();
  const row = await find(sid);
  if (!row) throw errors.notFound();
  return { row, membership: await requireRecordAccess(db, actor, row.organization_sid) };
}

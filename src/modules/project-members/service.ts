import { and, eq, inArray, sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Serializer } from '../../core/resource.js';
import type { ProjectScope } from '../../core/levels.js';
import { loadOrganizationRecord, type Membership, type ProjectRole } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { projectMembers } from '../../db/schema.js';
import { logMemberships } from '../activities/log.js';
import { findBySid, findPersonnelOf, type ProjectMemberRow } from './repository.js';

const NOT_PERSONNEL = 'Select a personnel record of this organization.';

/** A membership in a shape, for a caller with `membership` and project role `role`. */
export function serializeProjectMember(row: ProjectMemberRow, serializer: Serializer, membership: Membership, role: ProjectRole | null) {
  if (serializer === 'name') return { sid: row.sid, name: row.personnel_name };
  const base = {
    sid: row.sid,
    name: row.personnel_name,
    personnel: { sid: row.personnel_sid, name: row.personnel_name },
    team: row.team_sid ? { sid: row.team_sid, name: row.team_name ?? '' } : null,
    project: { sid: row.project_sid, name: row.project_name },
    permission: row.permission,
    is_archived: false,
    change_permission: permissions.projectMember.manage(membership, role),
  };
  if (serializer === 'list') return base;
  return { ...base, date_created: row.date_created, date_updated: row.date_updated };
}

/**
 * Adds a personnel record of the project's organization to the project with a role.
 * Another organization's or an unknown sid is a field error that says nothing about it;
 * someone already a member is a field error too.
 */
export async function addProjectMember(ctx: AppContext, scope: ProjectScope, body: MemberCreateBody) {
  const permission = body.permission.toLowerCase() as ProjectRole;
  refuseArchived(body.is_archived);
  const orgSid = scope.project.organizationSid;
  const forms = [body.personnel !== undefined, body.member !== undefined, body.team !== undefined].filter(Boolean).length;
  if (forms === 0) throw errors.field('personnel', 'Send the personnel to add: `personnel` (a sid), or Labii\'s `member` (a list of sids) or `team` (a list of team sids).');
  if (body.personnel !== undefined && forms > 1) throw errors.field('personnel', 'Send `personnel` alone, or Labii\'s `member` and `team`.');
  // Who to add: each with the team they come through (null: alone); a person named twice is added once.
  const wanted = new Map<string, string | null>();
  const sidOf = (v: string | { sid: string }) => (typeof v === 'string' ? v : v.sid);
  for (const [i, value] of (body.personnel !== undefined ? [body.personnel] : body.member ?? []).entries()) {
    const sid = sidOf(value);
    const person = isSid(sid) ? await findPersonnelOf(ctx.db, orgSid, sid) : undefined;
    if (!person) throw errors.field(body.personnel !== undefined ? 'personnel' : `member.${i}`, NOT_PERSONNEL);
    wanted.set(person.sid, null);
  }
  for (const [i, value] of (body.team ?? []).entries()) {
    const sid = sidOf(value);
    const members = isSid(sid) ? await teamPersonnel(ctx.db, orgSid, sid) : undefined;
    if (!members) throw errors.field(`team.${i}`, 'Select a team of this organization.');
    for (const person of members) if (!wanted.has(person)) wanted.set(person, sid);
  }
  if (!wanted.size) throw errors.field('team', 'The teams have no personnel to add.');
  // A concurrent add of the same personnel passes the check and is refused by the unique
  // index: core/unique.ts answers it (400 on personnel).
  return ctx.db.transaction(async (tx) => {
    const existing = await tx.select({ personnel: projectMembers.personnelSid }).from(projectMembers)
      .where(and(eq(projectMembers.projectSid, scope.project.sid), inArray(projectMembers.personnelSid, [...wanted.keys()])));
    if (existing.length && body.personnel !== undefined) {
      const person = (await findPersonnelOf(tx, orgSid, existing[0].personnel))!;
      throw errors.field('personnel', `${person.name} is already a member of this project.`);
    }
    // Labii's lists: those already members keep their membership; the others are added.
    for (const { personnel: sid } of existing) wanted.delete(sid);
    if (!wanted.size) throw errors.field(body.member !== undefined ? 'member' : 'team', 'Everyone named is already a member of this project.');
    const rows = [...wanted].map(([personnelSid, teamSid]) => ({ sid: newSid(), projectSid: scope.project.sid, personnelSid, teamSid, permission }));
    await tx.insert(projectMembers).values(rows);
    await logMemberships(tx, scope.actor.userSid, 'Created', rows);
    return (await findBySid(tx, rows[0].sid, scope.actor.userSid))!;
  });
}

/** The body of an add: ours ({personnel, permission}) or Labii's ({member: [...], team: [...], permission, is_archived}). */
export interface MemberCreateBody {
  personnel?: string;
  member?: (string | { sid: string })[];
  team?: (string | { sid: string })[];
  permission: string;
  is_archived?: boolean | string;
}

/** A membership is removed, never archived: is_archived may only be false. */
function refuseArchived(value: boolean | string | undefined) {
  if (value === true || value === 'true' || value === 'True') {
    throw errors.field('is_archived', 'A project membership is not archived: remove it (DELETE /projects/member/detail/{sid}/).');
  }
}

/** The personnel of team `teamSid` of organization `orgSid` (undefined: no such team). */
async function teamPersonnel(db: Db, orgSid: string, teamSid: string): Promise<string[] | undefined> {
  const rows = await query<{ team: string; personnel: string | null }>(db, sql`
    SELECT t.sid AS team, tm.personnel_sid AS personnel FROM teams t LEFT JOIN team_members tm ON tm.team_sid = t.sid
     WHERE t.sid = ${teamSid} AND t.organization_sid = ${orgSid} ORDER BY tm.date_created, tm.personnel_sid`);
  if (!rows.length) return undefined;
  return rows.map((r) => r.personnel).filter((p): p is string => p !== null);
}

/** The membership `sid` for a caller who may read its project (404 outside their organizations, 403 otherwise). */
export async function loadProjectMember(ctx: AppContext, actor: Actor, sid: string) {
  const { row, membership } = await loadOrganizationRecord(ctx.db, actor, sid, (s) => findBySid(ctx.db, s, actor.userSid));
  if (!permissions.projectMember.read(membership, row.my_role)) throw errors.forbidden();
  return { row, membership };
}

/** The membership `sid` for a caller who may manage the project's members. */
async function loadManaged(ctx: AppContext, actor: Actor, sid: string) {
  const loaded = await loadProjectMember(ctx, actor, sid);
  if (!permissions.projectMember.manage(loaded.membership, loaded.row.my_role)) throw errors.forbidden();
  return loaded;
}

/** Changes a member's project role (organization Admin or Project Admin); a new role is an activity line. */
export async function changeProjectMember(ctx: AppContext, actor: Actor, sid: string, body: { permission?: string; is_archived?: boolean }) {
  const { membership, row: before } = await loadManaged(ctx, actor, sid);
  refuseArchived(body.is_archived);
  if (body.permission === undefined) return { row: before, membership };
  const permission = body.permission.toLowerCase() as ProjectRole;
  const row = await ctx.db.transaction(async (tx) => {
    await tx.update(projectMembers).set({ permission, dateUpdated: sql`now()` }).where(eq(projectMembers.sid, sid));
    if (permission !== before.permission) {
      await logMemberships(tx, actor.userSid, 'Updated', [{ sid, personnelSid: before.personnel_sid, permission }], 'permission');
    }
    return (await findBySid(tx, sid, actor.userSid))!;
  });
  return { row, membership };
}

/** Removes a member from a project (organization Admin or Project Admin), with its activity line. */
export async function removeProjectMember(ctx: AppContext, actor: Actor, sid: string): Promise<void> {
  await loadManaged(ctx, actor, sid);
  await ctx.db.transaction(async (tx) => {
    // The line only when this removal removed it (not a concurrent one).
    const gone = await tx.delete(projectMembers).where(eq(projectMembers.sid, sid))
      .returning({ sid: projectMembers.sid, personnelSid: projectMembers.personnelSid, permission: projectMembers.permission });
    await logMemberships(tx, actor.userSid, 'Deleted', gone);
  });
}

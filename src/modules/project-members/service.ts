import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Serializer } from '../../core/resource.js';
import type { ProjectScope } from '../../core/levels.js';
import { loadOrganizationRecord, type Membership, type ProjectRole } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { projectMembers } from '../../db/schema.js';
import { findBySid, findPersonnelOf, type ProjectMemberRow } from './repository.js';

const NOT_PERSONNEL = 'Select a personnel record of this organization.';

/** A membership in a shape, for a caller with `membership` and project role `role`. */
export function serializeProjectMember(row: ProjectMemberRow, serializer: Serializer, membership: Membership, role: ProjectRole | null) {
  if (serializer === 'name') return { sid: row.sid, name: row.personnel_name };
  const base = {
    sid: row.sid,
    personnel: { sid: row.personnel_sid, name: row.personnel_name },
    permission: row.permission,
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
export async function addProjectMember(ctx: AppContext, scope: ProjectScope, body: { personnel: string; permission: ProjectRole }) {
  const person = isSid(body.personnel) ? await findPersonnelOf(ctx.db, scope.project.organizationSid, body.personnel) : undefined;
  if (!person) throw errors.field('personnel', NOT_PERSONNEL);
  const already = errors.field('personnel', `${person.name} is already a member of this project.`);
  const sid = newSid();
  // A concurrent add of the same personnel passes the check and is refused by the unique
  // index: core/unique.ts answers it (400 on personnel).
  return ctx.db.transaction(async (tx) => {
    const [existing] = await tx.select({ sid: projectMembers.sid }).from(projectMembers)
      .where(and(eq(projectMembers.projectSid, scope.project.sid), eq(projectMembers.personnelSid, person.sid)));
    if (existing) throw already;
    await tx.insert(projectMembers).values({ sid, projectSid: scope.project.sid, personnelSid: person.sid, permission: body.permission });
    return (await findBySid(tx, sid, scope.actor.userSid))!;
  });
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

/** Changes a member's project role (organization Admin or Project Admin). */
export async function changeProjectMember(ctx: AppContext, actor: Actor, sid: string, body: { permission: ProjectRole }) {
  const { membership } = await loadManaged(ctx, actor, sid);
  const row = await ctx.db.transaction(async (tx) => {
    await tx.update(projectMembers).set({ permission: body.permission, dateUpdated: sql`now()` }).where(eq(projectMembers.sid, sid));
    return (await findBySid(tx, sid, actor.userSid))!;
  });
  return { row, membership };
}

/** Removes a member from a project (organization Admin or Project Admin). */
export async function removeProjectMember(ctx: AppContext, actor: Actor, sid: string): Promise<void> {
  await loadManaged(ctx, actor, sid);
  await ctx.db.transaction(async (tx) => {
    await tx.delete(projectMembers).where(eq(projectMembers.sid, sid));
  });
}

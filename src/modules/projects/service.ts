import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Serializer } from '../../core/resource.js';
import { loadOrganizationRecord, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { newSid } from '../../core/ids.js';
import { projects } from '../../db/schema.js';
import { findBySid, type ProjectRow } from './repository.js';

/** A project in a shape, for a caller with `membership` (and the project role carried by the row). */
export function serializeProject(row: ProjectRow, serializer: Serializer, membership: Membership) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  const change_permission = permissions.project.change(membership, row.my_role);
  if (serializer === 'list') return { sid: row.sid, name: row.name, description: row.description, change_permission };
  return {
    sid: row.sid, name: row.name, description: row.description, created_by: row.created_by,
    date_created: row.date_created, date_updated: row.date_updated, change_permission,
  };
}

/** Creates a project of the caller's organization (the catalog has checked the role). */
export async function createProject(ctx: AppContext, membership: Membership, actor: Actor, body: { name: string; description?: string }) {
  return ctx.db.transaction(async (tx) => {
    const sid = newSid();
    await tx.insert(projects).values({
      sid, organizationSid: membership.organizationSid, name: body.name, description: body.description ?? '', createdBy: actor.userSid,
    });
    return (await findBySid(tx, sid, actor.userSid))!;
  });
}

/** The project `sid` for a caller who may read it: 404 outside their organizations, 403 without a role that reads it. */
export async function loadProject(ctx: AppContext, actor: Actor, sid: string) {
  const { row, membership } = await loadOrganizationRecord(ctx.db, actor, sid, (s) => findBySid(ctx.db, s, actor.userSid));
  if (!permissions.project.read(membership, row.my_role)) throw errors.forbidden();
  return { row, membership };
}

/** Changes a project's name or description (organization Admin or Project Admin). */
export async function changeProject(ctx: AppContext, actor: Actor, sid: string, body: { name?: string; description?: string }) {
  const { row, membership } = await loadProject(ctx, actor, sid);
  if (!permissions.project.change(membership, row.my_role)) throw errors.forbidden();
  if (!Object.keys(body).length) return { row, membership };
  const updated = await ctx.db.transaction(async (tx) => {
    await tx.update(projects).set({ ...body, dateUpdated: sql`now()` }).where(eq(projects.sid, sid));
    return (await findBySid(tx, sid, actor.userSid))!;
  });
  return { row: updated, membership };
}

import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Serializer } from '../../core/resource.js';
import { loadOrganizationRecord, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { query, type Db } from '../../db/client.js';
import { projects } from '../../db/schema.js';
import { findBySid, type ProjectRow } from './repository.js';

/** A project in a shape, for a caller with `membership` (and the project role carried by the row). */
export function serializeProject(row: ProjectRow, serializer: Serializer, membership: Membership) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  const change_permission = permissions.project.change(membership, row.my_role);
  const base = {
    sid: row.sid, name: row.name, description: row.description,
    parent: row.parent_sid ? { sid: row.parent_sid, name: row.parent_name ?? '' } : null,
    date_start: row.date_start, date_end: row.date_end, is_archived: row.is_archived, open_to_organization: row.open_to_organization,
  };
  if (serializer === 'list') return { ...base, change_permission };
  return {
    ...base, metadata: row.metadata, created_by: row.created_by, updated_by: row.updated_by,
    date_created: row.date_created, date_updated: row.date_updated, change_permission,
  };
}

/** The body fields a project takes besides its name. */
export interface ProjectFields {
  description?: string; parent?: string | { sid: string } | null; date_start?: string | null; date_end?: string | null;
  is_archived?: boolean; open_to_organization?: boolean; metadata?: unknown;
}

const NOT_A_PROJECT = 'Select a project of this organization.';

/** The columns of the body's fields (those it has); the parent must be another project of the organization. */
async function projectValues(db: Db, orgSid: string, body: ProjectFields, sid: string) {
  let parentSid: string | null | undefined;
  if (body.parent !== undefined) {
    parentSid = body.parent === null ? null : typeof body.parent === 'string' ? body.parent : body.parent.sid;
    if (parentSid === '') parentSid = null;
    if (parentSid !== null) {
      if (parentSid === sid) throw errors.field('parent', 'A project cannot be inside itself.');
      if (!isSid(parentSid) || !(await query(db, sql`SELECT 1 FROM projects WHERE sid = ${parentSid} AND organization_sid = ${orgSid}`)).length) {
        throw errors.field('parent', NOT_A_PROJECT);
      }
      // No cycle: the parent is not inside this project (a walk up from the parent).
      const [cycle] = await query<{ found: boolean }>(db, sql`
        WITH RECURSIVE up(sid, depth) AS (SELECT ${parentSid}::text, 0 UNION ALL
          SELECT p.parent_sid, up.depth + 1 FROM projects p JOIN up ON p.sid = up.sid WHERE p.parent_sid IS NOT NULL AND up.depth < 100)
        SELECT EXISTS (SELECT 1 FROM up WHERE sid = ${sid}) AS found`);
      if (cycle?.found) throw errors.field('parent', 'The parent is inside this project: a project cannot be inside itself.');
    }
  }
  const date = (v: string | null | undefined) => (v === undefined ? undefined : v || null);
  const dateStart = date(body.date_start);
  const dateEnd = date(body.date_end);
  if (dateStart && dateEnd && dateEnd < dateStart) throw errors.field('date_end', 'The end is before the start.');
  return {
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(parentSid !== undefined ? { parentSid } : {}),
    ...(dateStart !== undefined ? { dateStart } : {}),
    ...(dateEnd !== undefined ? { dateEnd } : {}),
    ...(body.is_archived !== undefined ? { isArchived: body.is_archived } : {}),
    ...(body.open_to_organization !== undefined ? { openToOrganization: body.open_to_organization } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
  };
}

/** Creates a project of the caller's organization (the catalog has checked the role). */
export async function createProject(ctx: AppContext, membership: Membership, actor: Actor, body: { name: string } & ProjectFields) {
  const sid = newSid();
  const values = await projectValues(ctx.db, membership.organizationSid, body, sid);
  return ctx.db.transaction(async (tx) => {
    await tx.insert(projects).values({
      sid, organizationSid: membership.organizationSid, name: body.name, description: '', ...values,
      createdBy: actor.userSid, updatedBy: actor.userSid,
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

/** Changes a project (organization Admin or Project Admin). */
export async function changeProject(ctx: AppContext, actor: Actor, sid: string, body: { name?: string } & ProjectFields) {
  const { row, membership } = await loadProject(ctx, actor, sid);
  if (!permissions.project.change(membership, row.my_role)) throw errors.forbidden();
  if (!Object.keys(body).length) return { row, membership };
  const merged = { date_start: row.date_start, date_end: row.date_end, ...body };
  const values = await projectValues(ctx.db, row.organization_sid, merged, sid);
  const updated = await ctx.db.transaction(async (tx) => {
    await tx.update(projects).set({
      ...(body.name !== undefined ? { name: body.name } : {}), ...values, updatedBy: actor.userSid, dateUpdated: sql`now()`,
    }).where(eq(projects.sid, sid));
    return (await findBySid(tx, sid, actor.userSid))!;
  });
  return { row: updated, membership };
}

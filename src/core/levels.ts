// The levels a list path may name, each resolving its sid into a scope.
import { errors } from './errors.js';
import { sql } from 'drizzle-orm';
import { query } from '../db/client.js';
import { isSid } from './ids.js';
import { runBuilt } from './built-sql.js';
import { tables } from '../db/schema.js';
import {
  findProjectRole, membershipColumns, membershipOf, requireActive, requireOrganizationMember, type Membership, type MembershipRow, type ProjectRole,
} from './access.js';
import type { LevelResolver, Scope } from './resource.js';

/** level=organization: the caller is an active member (Admin or Member) of the organization. */
export interface OrganizationScope extends Scope {
  membership: Membership;
}

export const organizationLevel: LevelResolver<OrganizationScope> = async (ctx, actor, sid) => ({
  level: 'organization',
  sid,
  actor,
  membership: await requireOrganizationMember(ctx.db, actor, sid),
});

/** level=user: the sid is the caller's own user sid (anyone else's is refused). */
export const userLevel: LevelResolver<Scope> = async (_ctx, actor, sid) => {
  if (sid !== actor.userSid) throw errors.forbidden();
  return { level: 'user', sid, actor };
};

/** level=project: the project, the caller's standing in its organization and their project role (null: none). */
export interface ProjectScope extends Scope {
  membership: Membership;
  project: { sid: string; name: string; organizationSid: string };
  projectRole: ProjectRole | null;
}

export const projectLevel: LevelResolver<ProjectScope> = async (ctx, actor, sid) => {
  if (!isSid(sid)) throw errors.wrongId();
  const [project] = await query<{ sid: string; name: string; organization_sid: string }>(ctx.db,
    sql`SELECT sid, name, organization_sid FROM projects WHERE sid = ${sid}`);
  if (!project) throw errors.wrongId();
  const membership = await requireOrganizationMember(ctx.db, actor, project.organization_sid);
  return {
    level: 'project',
    sid,
    actor,
    membership,
    project: { sid: project.sid, name: project.name, organizationSid: project.organization_sid },
    projectRole: await findProjectRole(ctx.db, membership.personnelSid, sid),
  };
};

/**
 * level=organization with `?project__sid=` (Labii's path for a project's lists, e.g. its
 * members): the project's scope, the project one of that organization (400 on project__sid otherwise).
 */
export const organizationProjectLevel: LevelResolver<ProjectScope> = async (ctx, actor, sid, request) => {
  const projectSid = (request?.query as { project__sid?: unknown } | undefined)?.project__sid;
  await requireOrganizationMember(ctx.db, actor, sid);
  if (typeof projectSid !== 'string' || !projectSid) throw errors.field('project__sid', 'This query parameter is required at level=organization.');
  if (!isSid(projectSid)) throw errors.field('project__sid', 'Select a project of this organization.');
  const [project] = await query<{ organization_sid: string }>(ctx.db, sql`SELECT organization_sid FROM projects WHERE sid = ${projectSid}`);
  if (!project || project.organization_sid !== sid) throw errors.field('project__sid', 'Select a project of this organization.');
  return { ...(await projectLevel(ctx, actor, projectSid)), level: 'organization', sid };
};

/** level=table: the table and the caller's standing in its organization (an active member). */
export interface TableScope extends Scope {
  membership: Membership;
  table: { sid: string; name: string; organizationSid: string };
}

const tableWithStanding = () => sql`
  SELECT t.sid, t.name, ${membershipColumns()}
    FROM ${tables} t JOIN organizations o ON o.sid = t.organization_sid
    LEFT JOIN personnel ON personnel.organization_sid = o.sid AND personnel.user_sid = ${sql.placeholder('user')}
   WHERE t.sid = ${sql.placeholder('table')}`;

export const tableLevel: LevelResolver<TableScope> = async (ctx, actor, sid) => {
  if (!isSid(sid)) throw errors.wrongId();
  // Read with the credential (a route with standingOf: 'table', core/auth.ts), else in one query (by keys: a generic plan).
  if (actor.table?.sid === sid) {
    const { found } = actor.table;
    if (!found) throw errors.wrongId();
    return {
      level: 'table', sid, actor,
      membership: requireActive(membershipOf(actor.standing!.row!)),
      table: { sid, name: found.name, organizationSid: found.organizationSid },
    };
  }
  const [table] = await runBuilt<MembershipRow & { sid: string; name: string }>(ctx.db, 'levels.table', tableWithStanding,
    { user: actor.userSid, table: sid }, { generic: true });
  if (!table) throw errors.wrongId();
  return {
    level: 'table',
    sid,
    actor,
    membership: requireActive(membershipOf(table)),
    table: { sid: table.sid, name: table.name, organizationSid: table.organization_sid },
  };
};

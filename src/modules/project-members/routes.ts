// Project members (design: `{personnel: sid, permission: admin|edit|view}`, list at level=project).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationProjectLevel, projectLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { ProjectMemberCreate, ProjectMemberListQuery, ProjectMemberPatch, ProjectMemberShapes } from './schemas.js';
import { countInProject, pageInProject } from './repository.js';
import { addProjectMember, changeProjectMember, loadProjectMember, removeProjectMember, serializeProjectMember } from './service.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { errors } from '../../core/errors.js';
import { projectMembers } from '../../db/schema.js';

export function registerProjectMembers(app: FastifyInstance, ctx: AppContext): void {
  // Ours and the SDK's path, and the one of Labii's v3 docs (api/project-member.md): the same resource.
  for (const path of ['/projects/member', '/projects/projectmember']) registerAt(app, ctx, path);
}

function registerAt(app: FastifyInstance, ctx: AppContext, path: string): void {
  defineList(app, ctx, {
    path,
    tag: 'project members',
    // level=organization with ?project__sid= is Labii's path (its SDK's default level).
    levels: { project: projectLevel, organization: organizationProjectLevel },
    shapes: ProjectMemberShapes,
    get: {
      summary: 'List the members of a project (Admin; any project member)',
      description: 'level=project: the sid in the path is the project\'s; level=organization (Labii\'s path): the organization\'s, '
        + 'with the project in `?project__sid=`. In the order they were added.',
      query: ProjectMemberListQuery,
      allowed: (scope) => permissions.projectMember.read(scope.membership, scope.projectRole),
      addPermission: (scope) => permissions.projectMember.manage(scope.membership, scope.projectRole),
      count: (scope, q) => {
        sameProject(scope, q);
        return countInProject(ctx.db, scope.project.sid);
      },
      rows: async (scope, q, serializer, page) => sameProject(scope, q) ??
        (await pageInProject(ctx.db, scope.project.sid, page.limit, page.offset))
          .map((row) => serializeProjectMember(row, serializer, scope.membership, scope.projectRole)),
    },
    post: {
      summary: 'Add a member to a project (Admin, Project Admin)',
      description: 'Body {personnel: sid of a personnel record of the project\'s organization, permission: admin|edit|view}, or '
        + 'Labii\'s {member: [personnel sids], team: [team sids], permission: Admin|Edit|View, is_archived?: false}: one membership '
        + 'per person (a team\'s personnel as they are now, each remembering the team); the answer is the first. '
        + 'Someone already a member, or a sid that is not personnel of this organization, is a 400 on `personnel`; in Labii\'s '
        + 'lists, those already members are left as they are. Levels as for the list (`?project__sid=` at level=organization).',
      query: ProjectMemberListQuery,
      body: ProjectMemberCreate,
      allowed: (scope) => permissions.projectMember.manage(scope.membership, scope.projectRole),
      create: async (scope, body, q, serializer) => sameProject(scope, q) ??
        serializeProjectMember(await addProjectMember(ctx, scope, body), serializer, scope.membership, scope.projectRole),
    },
  });

  defineDetail(app, ctx, {
    path,
    lock: lockOwnRow(projectMembers),
    tag: 'project members',
    shape: ProjectMemberShapes.detail,
    get: {
      summary: 'One project membership (Admin; any project member)',
      description: 'A membership of an organization the caller is not in is 404; a member of the organization without a role '
        + 'in the project gets 403.',
      handler: async (actor, sid) => {
        const { row, membership } = await loadProjectMember(ctx, actor, sid);
        return serializeProjectMember(row, 'detail', membership, row.my_role);
      },
    },
    patch: {
      summary: "Change a member's project role (Admin, Project Admin)",
      description: 'Body {permission: admin|edit|view (or Admin|Edit|View), is_archived?: false}. The personnel of a membership '
        + 'cannot be changed: remove it and add another.',
      body: ProjectMemberPatch,
      handler: async (actor, sid, body) => {
        const { row, membership } = await changeProjectMember(ctx, actor, sid, body);
        return serializeProjectMember(row, 'detail', membership, row.my_role);
      },
    },
    delete: {
      summary: 'Remove a member from a project (Admin, Project Admin)',
      description: 'Answers {}.',
      handler: (actor, sid) => removeProjectMember(ctx, actor, sid),
    },
  });
}

/** At level=project, a `project__sid` must name that project (never a filter silently ignored). */
function sameProject(scope: { level: string; project: { sid: string } }, q: { project__sid?: string }): undefined {
  if (scope.level === 'project' && q.project__sid !== undefined && q.project__sid !== scope.project.sid) {
    throw errors.field('project__sid', 'At level=project the project is the one in the path; leave project__sid out or name the same project.');
  }
  return undefined;
}

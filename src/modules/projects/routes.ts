// Projects (design: "Resources the spec relies on but does not list"): level=organization.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { ProjectCreate, ProjectListQuery, ProjectPatch, ProjectShapes } from './schemas.js';
import { queryBool } from '../../core/schemas.js';
import { countVisible, pageVisible } from './repository.js';
import { changeProject, createProject, loadProject, serializeProject } from './service.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { projects } from '../../db/schema.js';

export function registerProjects(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/projects/project',
    tag: 'projects',
    levels: { organization: organizationLevel },
    shapes: ProjectShapes,
    get: {
      summary: 'List the projects of an organization (Admin: all; Member: those where they hold a project role)',
      description: 'Oldest first. An organization Admin sees every project; any other member sees the projects where they are '
        + 'Project Admin, Edit or View.',
      query: ProjectListQuery,
      addPermission: (scope) => permissions.project.create(scope.membership),
      count: (scope, q) => countVisible(ctx.db, scope.membership.organizationSid, scope.membership.personnelSid,
        permissions.project.listAll(scope.membership), projectFilters(q)),
      rows: async (scope, q, serializer, page) =>
        (await pageVisible(ctx.db, scope.membership.organizationSid, scope.actor.userSid,
          permissions.project.listAll(scope.membership), page.limit, page.offset, projectFilters(q)))
          .map((row) => serializeProject(row, serializer, scope.membership)),
    },
    post: {
      summary: 'Create a project (Admin)',
      description: 'Body {name, description?, parent? (a project of the organization), date_start?, date_end?, is_archived?, '
        + 'open_to_organization?, metadata?}. The creator is not made a project member: an organization Admin reads every '
        + 'project, and adds project members (themself included) through /projects/member/.',
      body: ProjectCreate,
      allowed: (scope) => permissions.project.create(scope.membership),
      create: async (scope, body, _q, serializer) =>
        serializeProject(await createProject(ctx, scope.membership, scope.actor, body), serializer, scope.membership),
    },
  });

  defineDetail(app, ctx, {
    path: '/projects/project',
    lock: lockOwnRow(projects),
    tag: 'projects',
    shape: ProjectShapes.detail,
    get: {
      summary: 'One project (Admin; members with a project role)',
      description: 'A project of an organization the caller is not in is 404; a member without a role in the project gets 403.',
      handler: async (actor, sid) => {
        const { row, membership } = await loadProject(ctx, actor, sid);
        return serializeProject(row, 'detail', membership);
      },
    },
    patch: {
      summary: 'Change a project (Admin, Project Admin)',
      description: 'Body: any of the creation fields. Projects are not deleted (405): archive them (is_archived).',
      body: ProjectPatch,
      handler: async (actor, sid, body) => {
        const { row, membership } = await changeProject(ctx, actor, sid, body);
        return serializeProject(row, 'detail', membership);
      },
    },
  });
}

/** The list's filters from its query. */
function projectFilters(q: { is_archived?: string; parent__sid?: string }) {
  return { is_archived: q.is_archived === undefined ? undefined : queryBool(q.is_archived), parent__sid: q.parent__sid };
}

// Teams (Labii's /organizations/team/): level=organization.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { queryBool } from '../../core/schemas.js';
import { teams } from '../../db/schema.js';
import { TeamCreate, TeamListQuery, TeamPatch, TeamShapes } from './schemas.js';
import { changeTeam, countTeams, createTeam, deleteTeam, loadTeam, pageTeams, serializeTeam } from './service.js';

export function registerTeams(app: FastifyInstance, ctx: AppContext): void {
  const archived = (q: { is_archived?: string }) => (q.is_archived === undefined ? undefined : queryBool(q.is_archived));
  defineList(app, ctx, {
    path: '/organizations/team',
    tag: 'teams',
    levels: { organization: organizationLevel },
    shapes: TeamShapes,
    get: {
      summary: 'List the teams of an organization (Admin, Member)',
      description: 'Oldest first; `is_archived` filters. A team is a named group of personnel: a notification recipient (its active '
        + 'personnel) and a way to add several people to a project (POST /projects/member/ with `team: [...]`).',
      query: TeamListQuery,
      allowed: (scope) => permissions.schema.read(scope.membership),
      addPermission: (scope) => permissions.schema.change(scope.membership),
      count: (scope, q) => countTeams(ctx.db, scope.membership.organizationSid, archived(q)),
      rows: async (scope, q, serializer, page) =>
        (await pageTeams(ctx.db, scope.membership.organizationSid, page.limit, page.offset, archived(q)))
          .map((row) => serializeTeam(row, serializer, scope.membership)),
    },
    post: {
      summary: 'Create a team (Admin)',
      description: 'Body {name, description?, is_archived?, members?: personnel sids of the organization}.',
      body: TeamCreate,
      allowed: (scope) => permissions.schema.change(scope.membership),
      create: async (scope, body, _q, serializer) =>
        serializeTeam(await createTeam(ctx, scope.membership, scope.actor, body), serializer, scope.membership),
    },
  });

  defineDetail(app, ctx, {
    path: '/organizations/team',
    lock: lockOwnRow(teams),
    tag: 'teams',
    shape: TeamShapes.detail,
    get: {
      summary: 'One team, with its members (Admin, Member)',
      handler: async (actor, sid) => {
        const { row, membership } = await loadTeam(ctx, actor, sid);
        return serializeTeam(row, 'detail', membership);
      },
    },
    patch: {
      summary: 'Change a team (Admin)',
      description: 'Body {name?, description?, is_archived?, members?}: `members` replaces the whole team. Project memberships '
        + 'added through the team stay as they are.',
      body: TeamPatch,
      handler: async (actor, sid, body) => {
        const { row, membership } = await changeTeam(ctx, actor, sid, body);
        return serializeTeam(row, 'detail', membership);
      },
    },
    delete: {
      summary: 'Delete a team (Admin)',
      description: 'Answers {}. The project memberships added through it stay, without their team.',
      handler: (actor, sid) => deleteTeam(ctx, actor, sid),
    },
  });
}

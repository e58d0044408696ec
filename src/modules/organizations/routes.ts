// Organizations: listed and created at level=user; detail and PATCH by sid.
import type { FastifyInstance } from 'fastify';
import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { organizations } from '../../db/schema.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel, userLevel } from '../../core/levels.js';
import { requireRecordAccess } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { OrganizationCreate, OrganizationPatch, OrganizationShapes } from './schemas.js';
import { countForUser, findForUser, listForUser, serializeOrganization } from './repository.js';
import { checkOrganizationQuota, createOrganization, organizationColumns, usernameTaken, usernameTakenError } from './service.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { currentSettings } from '../admin/settings.js';

export function registerOrganizations(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/organizations/organization',
    tag: 'organizations',
    // level=organization is how Labii's SDK asks (its default level): that organization alone, for its active personnel.
    levels: { user: userLevel, organization: organizationLevel },
    shapes: OrganizationShapes,
    get: {
      summary: "List the caller's organizations",
      description: 'level=user: the organizations where the caller is active personnel (Admin or Member). level=organization '
        + '(Labii\'s SDK): that organization alone, for its active personnel.',
      addPermission: () => true,
      count: async (scope) => (scope.level === 'organization' ? 1 : countForUser(ctx.db, scope.actor.userSid)),
      rows: async (scope, _q, serializer, page) => {
        if (scope.level === 'organization') {
          if (page.offset > 0) return [];
          return [serializeOrganization((await findForUser(ctx.db, scope.sid, scope.actor.userSid, ctx.config.salesContact))!, serializer)];
        }
        return (await listForUser(ctx.db, scope.actor.userSid, page.limit, page.offset)).map((r) => serializeOrganization(r, serializer));
      },
    },
    post: {
      summary: 'Create an organization; the caller becomes its Admin',
      description: 'The new organization starts with INITIAL_CREDITS credits. One account may create at most ORGANIZATIONS_PER_USER '
        + 'organizations (403 beyond). An instance administrator may replace both values while the service runs (PATCH /admin/settings/).',
      body: OrganizationCreate,
      allowed: () => true,
      create: async (scope, body, _q, serializer) => {
        const { actor } = scope;
        const settings = await currentSettings(ctx);
        const sid = await ctx.db.transaction(async (tx) => {
          await checkOrganizationQuota(tx, actor.userSid, settings.organizations_per_user);
          return createOrganization(tx, {
            ...body,
            credits: settings.initial_credits,
            admin: { sid: actor.userSid, email: actor.email, firstName: actor.firstName, lastName: actor.lastName },
          });
        });
        return serializeOrganization((await findForUser(ctx.db, sid, actor.userSid, ctx.config.salesContact))!, serializer);
      },
    },
  });

  defineDetail(app, ctx, {
    path: '/organizations/organization',
    lock: lockOwnRow(organizations),
    tag: 'organizations',
    shape: OrganizationShapes.detail,
    get: {
      summary: 'One organization, with its credits',
      handler: async (actor, sid) => {
        if (!isSid(sid)) throw errors.notFound();
        await requireRecordAccess(ctx.db, actor, sid);
        return serializeOrganization((await findForUser(ctx.db, sid, actor.userSid, ctx.config.salesContact))!, 'detail');
      },
    },
    patch: {
      summary: 'Change the name, username, description, logos, dashboard, metadata or digest setting (Admin)',
      body: OrganizationPatch,
      handler: async (actor, sid, body) => {
        if (!isSid(sid)) throw errors.notFound();
        const membership = await requireRecordAccess(ctx.db, actor, sid);
        if (!permissions.organization.change(membership)) throw errors.forbidden();
        if (body.username !== undefined && await usernameTaken(ctx.db, body.username, sid)) throw usernameTakenError();
        await ctx.db.update(organizations).set({
          ...(body.name !== undefined ? { name: body.name } : {}), ...organizationColumns(body), updatedBy: actor.userSid, dateUpdated: sql`now()`,
        }).where(eq(organizations.sid, sid));
        return serializeOrganization((await findForUser(ctx.db, sid, actor.userSid, ctx.config.salesContact))!, 'detail');
      },
    },
  });
}

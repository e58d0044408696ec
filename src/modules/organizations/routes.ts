// Organizations: listed and created at level=user; detail and PATCH by sid.
import type { FastifyInstance } from 'fastify';
import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { organizations } from '../../db/schema.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { userLevel } from '../../core/levels.js';
import { requireRecordAccess } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { OrganizationCreate, OrganizationPatch, OrganizationShapes } from './schemas.js';
import { countForUser, findForUser, listForUser, serializeOrganization } from './repository.js';
import { checkOrganizationQuota, createOrganization } from './service.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { currentSettings } from '../admin/settings.js';

export function registerOrganizations(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/organizations/organization',
    tag: 'organizations',
    levels: { user: userLevel },
    shapes: OrganizationShapes,
    get: {
      summary: "List the caller's organizations",
      description: 'The organizations where the caller is active personnel (Admin or Member).',
      addPermission: () => true,
      count: (scope) => countForUser(ctx.db, scope.actor.userSid),
      rows: async (scope, _q, serializer, page) =>
        (await listForUser(ctx.db, scope.actor.userSid, page.limit, page.offset)).map((r) => serializeOrganization(r, serializer)),
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
            name: body.name,
            description: body.description,
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
      summary: 'Change the name or description (Admin)',
      body: OrganizationPatch,
      handler: async (actor, sid, body) => {
        if (!isSid(sid)) throw errors.notFound();
        const membership = await requireRecordAccess(ctx.db, actor, sid);
        if (!permissions.organization.change(membership)) throw errors.forbidden();
        await ctx.db.update(organizations).set({ ...body, dateUpdated: sql`now()` }).where(eq(organizations.sid, sid));
        return serializeOrganization((await findForUser(ctx.db, sid, actor.userSid, ctx.config.salesContact))!, 'detail');
      },
    },
  });
}

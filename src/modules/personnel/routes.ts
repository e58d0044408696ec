// Personnel (spec: Personnel member, Personnel endpoints).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { withTotal, bodyRecordBytes } from '../../core/pagination.js';
import { PersonnelCreate, PersonnelListQuery, PersonnelPatch, PersonnelShapes } from './schemas.js';
import { countInOrganization, pageInOrganization } from './repository.js';
import { serializePersonnel } from './serializers.js';
import { addPersonnel, changePersonnel, loadPersonnel, type PersonnelInput } from './service.js';
import { sql } from 'drizzle-orm';
import { lockOwnRow } from '../../core/record-lock.js';
import { personnel } from '../../db/schema.js';

export function registerPersonnel(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/organizations/personnel',
    tag: 'personnel',
    levels: { organization: organizationLevel },
    shapes: PersonnelShapes,
    get: {
      summary: 'List the members of an organization (Admin, Member)',
      description: 'Oldest first. `search`: only members whose name ("First Last") or email contains the text (case-insensitive); '
        + '`user__sid`: only the record of that account (a caller finds their own with their user sid); `is_administrator`: only the '
        + 'Admins (who add people to projects) or only the others. `count` is the number found.',
      query: PersonnelListQuery,
      allowed: (scope) => permissions.personnel.list(scope.membership),
      addPermission: (scope) => permissions.personnel.create(scope.membership),
      // The detail shape carries metadata and dashboard (free text, JSON): read and written by
      // their real sizes, a page in one read unless they are large (core/answer-stream.ts).
      recordBytes: (serializer) => (serializer === 'detail' ? bodyRecordBytes(ctx.config) : undefined),
      sized: true,
      counted: true,
      count: (scope, query) => countInOrganization(ctx.db, scope.membership.organizationSid, query),
      rows: async (scope, query, serializer, page) => {
        const found = await pageInOrganization(ctx.db, scope.membership.organizationSid, page.limit, page.offset, query, page.maxBytes);
        return withTotal(found.map((row) => serializePersonnel(row, serializer, scope.membership)), found);
      },
    },
    post: {
      summary: 'Add one or more members (Admin)',
      description: 'Body: one member or an array of up to 100. An email without an account gets an account without a password '
        + 'and an invitation email (so does an account whose email is not proved yet); a record gives access only to an account '
        + 'that has proved its email. Invitations count against the mail quota (429). Flags may be sent as "true"/"false" strings. '
        + 'Answers 201 with the member (or an array of members, for an array).',
      body: PersonnelCreate,
      allowed: (scope) => permissions.personnel.create(scope.membership),
      response: (shape) => Type.Union([shape, Type.Array(shape)], { title: 'PersonnelCreated' }),
      answersDetail: true,
      create: async (scope, body, _q, serializer) => {
        const inputs = (Array.isArray(body) ? body : [body]) as PersonnelInput[];
        const rows = await addPersonnel(ctx, scope.membership, scope.actor, inputs);
        const records = rows.map((row) => serializePersonnel(row, serializer, scope.membership));
        return Array.isArray(body) ? records : records[0];
      },
    },
  });

  defineDetail(app, ctx, {
    path: '/organizations/personnel',
    // The organization first, then the record: the order a change of Admins locks them in (service.ts).
    lock: async (tx, sid) => {
      await tx.execute(sql`SELECT 1 FROM organizations WHERE sid = (SELECT organization_sid FROM personnel WHERE sid = ${sid}) FOR UPDATE`);
      await lockOwnRow(personnel)(tx, sid);
    },
    tag: 'personnel',
    shape: PersonnelShapes.detail,
    get: {
      summary: 'One member (Admin, Member)',
      handler: async (actor, sid) => {
        const { row, membership } = await loadPersonnel(ctx, actor, sid);
        return serializePersonnel(row, 'detail', membership);
      },
    },
    patch: {
      summary: 'Change a member (Admin: any field; Member: only their own member fields)',
      description: 'A Member may change only first_name, last_name, email, metadata, dashboard and the should_receive_* settings, '
        + 'and only on their own record; anything else is 403 and nothing changes. The last active Admin cannot be demoted, '
        + 'archived or ended (400). A new email gets no mail until proved: a proof link is mailed to it (counted in the mail quota, 429).',
      body: PersonnelPatch,
      handler: async (actor, sid, body) => {
        const { row, membership } = await changePersonnel(ctx, actor, sid, body);
        return serializePersonnel(row, 'detail', membership);
      },
    },
  });
}

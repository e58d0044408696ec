// Tables (design: "Admin creates {name, description}"): level=organization.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { TableCreate, TablePatch, TableShapes } from './schemas.js';
import { countInOrganization, pageInOrganization } from './repository.js';
import { changeTable, createTable, loadTable, serializeTable, serializeTables } from './service.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { tables } from '../../db/schema.js';

export function registerTables(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/tables/table',
    tag: 'tables',
    levels: { organization: organizationLevel },
    shapes: TableShapes,
    get: {
      summary: 'List the tables of an organization (Admin, Member)',
      description: 'Oldest first. The detail shape carries each table\'s columns, by order.',
      allowed: (scope) => permissions.schema.read(scope.membership),
      addPermission: (scope) => permissions.schema.change(scope.membership),
      count: (scope) => countInOrganization(ctx.db, scope.membership.organizationSid),
      rows: async (scope, _q, serializer, page) =>
        serializeTables(ctx.db, await pageInOrganization(ctx.db, scope.membership.organizationSid, page.limit, page.offset),
          serializer, scope.membership),
    },
    post: {
      summary: 'Create a table (Admin)',
      description: 'Body {name, description?}. Columns are added through /tables/column/ with ?table__sid=.',
      body: TableCreate,
      allowed: (scope) => permissions.schema.change(scope.membership),
      create: async (scope, body, _q, serializer) =>
        serializeTable(ctx.db, await createTable(ctx, scope.membership, scope.actor, body), serializer, scope.membership),
    },
  });

  defineDetail(app, ctx, {
    path: '/tables/table',
    lock: lockOwnRow(tables),
    tag: 'tables',
    shape: TableShapes.detail,
    get: {
      summary: 'One table, with its columns (Admin, Member)',
      description: 'The columns are {sid, name, order, widget: {sid, name}}, by order. A table of an organization the caller '
        + 'is not in is 404.',
      handler: async (actor, sid) => {
        const { row, membership } = await loadTable(ctx, actor, sid);
        return serializeTable(ctx.db, row, 'detail', membership);
      },
    },
    patch: {
      summary: "Change a table's name or description (Admin)",
      description: 'Body {name?, description?}. Tables are not deleted (405).',
      body: TablePatch,
      handler: async (actor, sid, body) => {
        const { row, membership } = await changeTable(ctx, actor, sid, body);
        return serializeTable(ctx.db, row, 'detail', membership);
      },
    },
  });
}

// Tables (design: "Admin creates {name, description}"): level=organization.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { TableCreate, TableListQuery, TablePatch, TableShapes } from './schemas.js';
import { queryBool } from '../../core/schemas.js';
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
      description: 'Oldest first. The detail shape carries each table\'s columns, by order. Filters (Labii\'s): `name_system`, `is_archived`.',
      query: TableListQuery,
      allowed: (scope) => permissions.schema.read(scope.membership),
      addPermission: (scope) => permissions.schema.change(scope.membership),
      count: (scope, q) => countInOrganization(ctx.db, scope.membership.organizationSid, filtersOf(q)),
      rows: async (scope, q, serializer, page) =>
        serializeTables(ctx.db, await pageInOrganization(ctx.db, scope.membership.organizationSid, page.limit, page.offset, filtersOf(q)),
          serializer, scope.membership),
    },
    post: {
      summary: 'Create a table (Admin)',
      description: 'Body {name (or name_plural), name_singular?, unique_code?, description?, icon?, table_type?, order?, is_archived?, '
        + 'name_system?, metadata?}. unique_code (the prefix of the records\' uid) is unique in the organization; without it, the '
        + 'first three letters or digits of the name, upper-case, with "-2", "-3" … when taken. Columns are added through '
        + '/tables/column/ with ?table__sid=.',
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
      description: 'The columns are {sid, name, order, widget: {sid, name, documentation_url}}, by order. A table of an organization the caller '
        + 'is not in is 404.',
      handler: async (actor, sid) => {
        const { row, membership } = await loadTable(ctx, actor, sid);
        return serializeTable(ctx.db, row, 'detail', membership);
      },
    },
    patch: {
      summary: 'Change a table (Admin)',
      description: 'Body: any of the creation fields. Tables are not deleted (405): archive them (is_archived).',
      body: TablePatch,
      handler: async (actor, sid, body) => {
        const { row, membership } = await changeTable(ctx, actor, sid, body);
        return serializeTable(ctx.db, row, 'detail', membership);
      },
    },
  });
}

/** The list's filters from its query. */
function filtersOf(q: { name_system?: string; is_archived?: string }) {
  return { name_system: q.name_system, is_archived: q.is_archived === undefined ? undefined : queryBool(q.is_archived) };
}

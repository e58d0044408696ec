// Columns (design: `?table__sid=`; `{name, widget: sid, order}`): level=organization.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { ColumnCreate, ColumnCreateQuery, ColumnListQuery, ColumnPatch, ColumnShapes } from './schemas.js';
import { countColumns, pageColumns } from './repository.js';
import { changeColumn, checkTableFilter, createColumn, loadColumn, serializeColumn } from './service.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { queryBool } from '../../core/schemas.js';
import { columns } from '../../db/schema.js';

export function registerColumns(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/tables/column',
    tag: 'columns',
    levels: { organization: organizationLevel },
    shapes: ColumnShapes,
    get: {
      summary: 'List the columns of an organization\'s tables (Admin, Member)',
      description: 'By table (oldest first), then by order. `table__sid` restricts the list to one table of the organization '
        + '(any other sid is a 400 on `table__sid`); `name_system` and `is_archived` (Labii\'s) filter too.',
      query: ColumnListQuery,
      allowed: (scope) => permissions.schema.read(scope.membership),
      addPermission: (scope) => permissions.schema.change(scope.membership),
      count: async (scope, query) => {
        await checkTableFilter(ctx, scope.membership.organizationSid, query.table__sid);
        return countColumns(ctx.db, scope.membership.organizationSid, columnFilters(query));
      },
      rows: async (scope, query, serializer, page) =>
        (await pageColumns(ctx.db, scope.membership.organizationSid, columnFilters(query), page.limit, page.offset))
          .map((row) => serializeColumn(row, serializer, scope.membership)),
    },
    post: {
      summary: 'Add a column to a table (Admin)',
      description: 'Query `table__sid` (required): a table of the organization. Body {name, widget: sid of a built-in widget or '
        + 'one of the organization\'s, order? (integer ≥ 0; default: after the last column), description?, default_value?, '
        + 'is_required?, is_hidden?, is_archived?, name_system?, metadata?, settings? (the widget\'s: a number\'s unit, a choice\'s '
        + 'choices, a foreign key\'s table)}.',
      query: ColumnCreateQuery,
      body: ColumnCreate,
      allowed: (scope) => permissions.schema.change(scope.membership),
      create: async (scope, body, query, serializer) =>
        serializeColumn(await createColumn(ctx, scope.membership, scope.actor, query.table__sid, body), serializer, scope.membership),
    },
  });

  defineDetail(app, ctx, {
    path: '/tables/column',
    lock: lockOwnRow(columns),
    tag: 'columns',
    shape: ColumnShapes.detail,
    get: {
      summary: 'One column (Admin, Member)',
      description: 'A column of an organization the caller is not in is 404.',
      handler: async (actor, sid) => {
        const { row, membership } = await loadColumn(ctx, actor, sid);
        return serializeColumn(row, 'detail', membership);
      },
    },
    patch: {
      summary: "Change a column's name or order (Admin)",
      description: 'The widget of a column cannot be changed: its cells were written through it.',
      body: ColumnPatch,
      handler: async (actor, sid, body) => {
        const { row, membership } = await changeColumn(ctx, actor, sid, body);
        return serializeColumn(row, 'detail', membership);
      },
    },
  });
}

/** The list's filters from its query. */
function columnFilters(q: { table__sid?: string; name_system?: string; is_archived?: string }) {
  return { table__sid: q.table__sid, name_system: q.name_system, is_archived: q.is_archived === undefined ? undefined : queryBool(q.is_archived) };
}

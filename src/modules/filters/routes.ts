// Saved filters (Labii's Filter, /tables/filter/): level=organization.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { savedFilters } from '../../db/schema.js';
import { FilterCreate, FilterCreateQuery, FilterListQuery, FilterPatch, FilterShapes } from './schemas.js';
import { changeFilter, countFilters, createFilter, deleteFilter, loadFilter, pageFilters, serializeFilter } from './service.js';

export function registerFilters(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/tables/filter',
    tag: 'filters',
    levels: { organization: organizationLevel },
    shapes: FilterShapes,
    get: {
      summary: 'List saved filters (Admin: all; others: their own and those shared with them)',
      description: 'Oldest first; `table__sid` and `is_archived` filter. A saved filter applies to the row list with `?filter__sid=`.',
      query: FilterListQuery,
      allowed: (scope) => permissions.filter.create(scope.membership),
      addPermission: (scope) => permissions.filter.create(scope.membership),
      count: (scope, q) => countFilters(ctx.db, scope.membership, q),
      rows: async (scope, q, serializer, page) =>
        (await pageFilters(ctx.db, scope.membership, q, page.limit, page.offset)).map((row) => serializeFilter(row, serializer, scope.membership)),
    },
    post: {
      summary: 'Save a filter of a table\'s rows (Admin, Member)',
      description: 'Query `table__sid` (or `table` in the body). Body {name, description?, query, users?, is_archived?}: `query` is the row '
        + 'list\'s filters, as Labii\'s {field__expr: value} or a query string; `users` the personnel it is shared with.',
      query: FilterCreateQuery,
      body: FilterCreate,
      allowed: (scope) => permissions.filter.create(scope.membership),
      create: async (scope, body, q, serializer) =>
        serializeFilter(await createFilter(ctx, scope.membership, q.table__sid, body), serializer, scope.membership),
    },
  });

  defineDetail(app, ctx, {
    path: '/tables/filter',
    lock: lockOwnRow(savedFilters),
    tag: 'filters',
    shape: FilterShapes.detail,
    get: {
      summary: 'One saved filter (its owner, those it is shared with, Admin)',
      handler: async (actor, sid) => {
        const { row, membership } = await loadFilter(ctx, actor, sid);
        return serializeFilter(row, 'detail', membership);
      },
    },
    patch: {
      summary: 'Change a saved filter (its owner, Admin)',
      description: 'Body {name?, description?, query?, users?, is_archived?}: `users` replaces the list.',
      body: FilterPatch,
      handler: async (actor, sid, body) => {
        const { row, membership } = await changeFilter(ctx, actor, sid, body);
        return serializeFilter(row, 'detail', membership);
      },
    },
    delete: {
      summary: 'Delete a saved filter (its owner, Admin)',
      description: 'Answers {}.',
      handler: (actor, sid) => deleteFilter(ctx, actor, sid),
    },
  });
}

// Widgets (design: built-in widgets seeded by a migration; Admins add their organization's own).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { WidgetCreate, WidgetPatch, WidgetShapes } from './schemas.js';
import { countUsable, pageUsable } from './repository.js';
import { changeWidget, createWidget, loadWidget, serializeWidget } from './service.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { widgets } from '../../db/schema.js';

export function registerWidgets(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/widgets/widget',
    tag: 'widgets',
    levels: { organization: organizationLevel },
    shapes: WidgetShapes,
    get: {
      summary: 'List the widgets an organization uses: the built-in ones and its own (Admin, Member)',
      description: 'Built-in widgets first (is_builtin, read-only), then the organization\'s own, oldest first. '
        + 'Prices are shown as "$0.50".',
      allowed: (scope) => permissions.widget.read(scope.membership),
      addPermission: (scope) => permissions.widget.create(scope.membership),
      count: (scope) => countUsable(ctx.db, scope.membership.organizationSid),
      rows: async (scope, _q, serializer, page) =>
        (await pageUsable(ctx.db, scope.membership.organizationSid, page.limit, page.offset))
          .map((row) => serializeWidget(row, serializer, scope.membership)),
    },
    post: {
      summary: 'Create a widget of the organization (Admin)',
      description: 'Body {name, description?, price? ("0.50"; default "0.00"), addable_at_readonly? (default false), '
        + 'kind? (default text)}. The price is debited from the organization\'s credits for every cell written with it.',
      body: WidgetCreate,
      allowed: (scope) => permissions.widget.create(scope.membership),
      create: async (scope, body, _q, serializer) =>
        serializeWidget(await createWidget(ctx, scope.membership, body), serializer, scope.membership),
    },
  });

  defineDetail(app, ctx, {
    path: '/widgets/widget',
    lock: lockOwnRow(widgets),
    tag: 'widgets',
    shape: WidgetShapes.detail,
    get: {
      summary: 'One widget (built-in: any user; an organization\'s: its Admins and Members)',
      description: 'A widget of an organization the caller is not in is 404.',
      handler: async (actor, sid) => {
        const { row, membership } = await loadWidget(ctx, actor, sid);
        return serializeWidget(row, 'detail', membership);
      },
    },
    patch: {
      summary: "Change an organization's widget (Admin)",
      description: 'Built-in widgets are read-only: 403. A new price applies to cell writes from then on.',
      body: WidgetPatch,
      handler: async (actor, sid, body) => {
        const { row, membership } = await changeWidget(ctx, actor, sid, body);
        return serializeWidget(row, 'detail', membership);
      },
    },
  });
}

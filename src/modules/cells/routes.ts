// Cells (spec: Cell, Cell endpoints, States, Errors).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { withTotal } from '../../core/pagination.js';
import { CellCreate, CellCreateQuery, CellListQuery, CellPatch, CellShapes } from './schemas.js';
import { countCells, pageCells } from './repository.js';
import { serializeCell } from './serializers.js';
import { cellOfReader, readableCell } from './service.js';
import { cellCreate } from '../records/commands/cell-create.js';
import { cellUpdate } from '../records/commands/cell-update.js';
import { cellWords } from './messages.js';
import { lockRow, readRow } from '../records/lock.js';
import { rowRecordBytes } from '../../core/pagination.js';

export function registerCells(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/tables/cell',
    tag: 'cells',
    levels: { organization: organizationLevel },
    shapes: CellShapes,
    get: {
      summary: 'List cells (Admin, Project Admin, Edit, View)',
      description: 'With `row__sid`, the cells of that row in column order (none when the caller cannot read the row); '
        + 'without, every cell the caller may read, oldest first. Labii\'s filters: `column__sid`, `column__sid__in` (commas), '
        + '`data__isnull` (an empty cell is Labii\'s null). add_permission: whether the caller may add a cell to that row.',
      query: CellListQuery,
      // The detail shape carries each cell's data: read and written a few records at a time (core/answer-stream.ts; the other shapes do not read it).
      recordBytes: (serializer) => (serializer === 'detail' ? rowRecordBytes(ctx.config) : undefined),
      addPermission: async (scope, query) => {
        if (!query.row__sid) return false;
        const access = await readRow(ctx.db, scope.actor, { row: query.row__sid });
        if (!access || access.row.organization_sid !== scope.membership.organizationSid) return false;
        return permissions.cell.write(scope.membership, access.projectRole) && !access.row.is_archived;
      },
      counted: true,
      count: (scope, query) => countCells(ctx.db, scope.membership.organizationSid, scope.membership, query),
      rows: async (scope, query, serializer, page) => {
        const found = await pageCells(ctx.db, scope.membership.organizationSid, scope.membership, query, page.limit, page.offset, serializer === 'detail');
        // The cells of one row carry the caller's project role and the row's state: add_permission without another query.
        const first = found[0];
        const addPermission = query.row__sid && first
          ? permissions.cell.write(scope.membership, first.permission) && !first.is_archived
          : undefined;
        return withTotal(found.map((cell) => serializeCell(cell, serializer, scope.membership)), found, addPermission);
      },
    },
    post: {
      summary: 'Create a cell of a row (Project Admin, Edit; subject to the row rules)',
      description: 'Query `row__sid` (required). Body {column, data}: the widget is the column\'s; one cell per row and column. '
        + "The widget's price is debited from the organization's credits. Errors of the spec answer 406 in plain text: "
        + 'a missing row__sid, a row of another organization, too few credits, a locked (unless the widget is addable at the read-only stage) or archived row.',
      query: CellCreateQuery,
      body: CellCreate,
      allowed: () => true,
      answersDetail: true,
      // The ETag of the detail GET: send it back as If-Match on the cell's PATCH.
      etag: true,
      create: async (scope, body, query, serializer) => {
        const cell = await cellWords(true, () => cellCreate(ctx, scope.membership, scope.actor, query.row__sid, body));
        ctx.metrics.cellWritten(cell.price);
        return serializeCell(cell, serializer, scope.membership);
      },
    },
  });

  defineDetail(app, ctx, {
    path: '/tables/cell',
    lock: (tx, sid, actor) => lockRow(tx, actor, { cell: sid }),
    tag: 'cells',
    shape: CellShapes.detail,
    get: {
      summary: 'One cell, in the detail shape (Admin, Project Admin, Edit, View: whoever reads its row)',
      description: 'Its ETag is what `If-Match` on the PATCH compares with. 404 when the caller cannot read the row.',
      handler: async (actor, sid) => {
        const { cell, membership } = await cellOfReader(ctx, actor, sid);
        return serializeCell(cell, 'detail', membership);
      },
    },
    // If-Match on PATCH reads the cell with the PATCH's rules (406 "Wrong id", 403), not the GET's 404.
    current: async (actor, sid) => {
      const { cell, membership } = await readableCell(ctx, actor, sid);
      return serializeCell(cell, 'detail', membership);
    },
    patch: {
      summary: "Change a cell's content (Project Admin, Edit; subject to the row rules)",
      description: "Body {data}. The widget's price is debited; the row gets a new version. 406 in plain text for a wrong sid, "
        + 'too few credits, or a locked or archived row.',
      body: CellPatch,
      handler: async (actor, sid, body) => {
        const { cell, membership } = await cellWords(false, () => cellUpdate(ctx, actor, sid, body));
        ctx.metrics.cellWritten(cell.price);
        return serializeCell(cell, 'detail', membership);
      },
    },
  });
}

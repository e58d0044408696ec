// Rows (design: Resources the spec relies on): records of a table, in a project.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import type { Serializer } from '../../core/resource.js';
import type { Membership } from '../../core/access.js';
import { answerLimits, defineDetail, defineList, refuseOtherMethods, refuseUnknownParameters } from '../../core/resource.js';
import { answerPage } from '../../core/answer-stream.js';
import { organizationLevel, tableLevel, type TableScope } from '../../core/levels.js';
import { findProjectRole } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { actorOf } from '../../core/auth.js';
import { presignedColumn, presignedPost } from '../files/labii-upload.js';
import { isSid } from '../../core/ids.js';
import { ErrorResponses, Page, PageQuery, queryBool } from '../../core/schemas.js';
import { errors } from '../../core/errors.js';
import { pageRequest, withTotal } from '../../core/pagination.js';
import { ChainReport, GridQuery, GridRow, RowCreate, RowCreateQuery, RowListQuery, RowPatch, RowShapes } from './schemas.js';
import { cellsOfRows, countRows, findRow, pageRows, type CellSummary, type RowFilter, type RowRecord } from './repository.js';
import { gridRows, gridRowsOf, gridSids, type GridFilter } from './grid.js';
import type { GridRowRecord } from './fields.js';
import { serializeCellDetail } from '../cells/serializers.js';
import { createRow, readableRow } from './service.js';
import { rowUpdate } from '../records/commands/row-update.js';
import { withSavedFilter } from '../filters/service.js';
import { verifyChain } from '../versions/verify.js';
import { lockRow } from '../records/lock.js';
import { rowRecordBytes } from '../../core/pagination.js';
import { registerRowStream } from './stream.js';
import { sectionsOfRows } from '../sections/repository.js';
import { serializeSection } from '../sections/serializers.js';

/** Labii's `column_set` item of a cell. */
function columnSetItem(cell: CellSummary & { column_widget?: { sid: string; name: string } }) {
  return { sid: cell.sid, column: { sid: cell.column.sid, name: cell.column.name, widget: cell.widget }, data: cell.data };
}

/** The fields both the list and the detail shape show. */
function common(row: RowRecord, cells: CellSummary[], viewer: Membership) {
  return {
    sid: row.sid, uid: row.uid, name: row.name, table: row.table, table__name_plural: row.table__name_plural, project: row.project,
    projects: row.projects, owner: row.created_by, is_template: row.is_template, open_to_organization: row.open_to_organization,
    is_locked: row.is_locked, is_archived: row.is_archived, version: row.version,
    column_set: cells.map(columnSetItem), change_permission: permissions.row.change(viewer, row.permission),
  };
}

/** The cells of rows by row sid: those their own statement read (pageRows' `withCells`), else one query for all of them. */
async function cellsOf(ctx: AppContext, found: RowRecord[]): Promise<Map<string, CellSummary[]>> {
  if (found.every((row) => row.cells)) return new Map(found.map((row) => [row.sid, row.cells!]));
  return cellsOfRows(ctx.db, found.map((r) => r.sid));
}

/** Rows in the name or list shape; the list shape's cells read with the rows or in one query for all of them. */
async function rowSummaries(ctx: AppContext, found: RowRecord[], serializer: Exclude<Serializer, 'detail'>, viewer: Membership) {
  if (serializer === 'name') return found.map((row) => ({ sid: row.sid, name: row.name }));
  const cells = await cellsOf(ctx, found);
  return found.map((row) => common(row, cells.get(row.sid)!, viewer));
}

/** Rows in the detail shape, their cells read with them (or in one query) and their sections in one query for all of them. */
async function rowDetails(ctx: AppContext, found: RowRecord[], viewer: Membership) {
  const sids = found.map((r) => r.sid);
  const [cells, sections] = await Promise.all([cellsOf(ctx, found), sectionsOfRows(ctx.db, sids, viewer.personnelSid)]);
  return found.map((row) => {
    const rowCells = cells.get(row.sid) as CellSummary[];
    return {
      ...common(row, rowCells, viewer), description: row.description, metadata: row.metadata, hash: row.hash, cells: rowCells,
      section_set: sections.get(row.sid)!.map((section) => serializeSection(section, 'detail', viewer)),
      created_by: row.created_by, updated_by: row.updated_by, date_created: row.date_created, date_updated: row.date_updated,
    };
  });
}

async function rowDetail(ctx: AppContext, row: RowRecord, viewer: Membership) {
  return (await rowDetails(ctx, [row], viewer))[0];
}

/**
 * A page of the grid: a table's rows in the detail shape, each with its cells keyed by
 * column sid (the cell detail shape). Rows can be ROW_MAX_BYTES each, so the page is read
 * and written a few rows at a time (core/answer-stream.ts); a read is one query whatever
 * its size, the rows with their cells (and the page's count), and the first read asks for
 * the caller's project role (with project__sid) alongside.
 */
async function gridPage(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const { membership, table } = request.scope as TableScope;
  const filter = request.query as GridFilter & { page?: number; page_size?: number };
  const page = pageRequest(filter);
  // Each row's cells came in its own statement; a cell's row, state and the caller's role are its row's.
  // The record is completed in place, not copied: the answer's serializer (GridRow) writes
  // only the shape's fields, so project_sid and permission stay behind unwritten.
  const withCells = (found: GridRowRecord[]) => found.map((record) => {
    const standing = { row: { sid: record.sid, name: record.name }, permission: record.permission, is_locked: record.is_locked, is_archived: record.is_archived };
    const byColumn: Record<string, unknown> = {};
    for (const cell of record.cells) byColumn[cell.column.sid] = serializeCellDetail(cell, standing, membership);
    return Object.assign(record, { owner: record.created_by, cells: byColumn, change_permission: permissions.row.change(membership, record.permission) });
  });
  const projectRole = () => (filter.project__sid && isSid(filter.project__sid) ? findProjectRole(ctx.db, membership.personnelSid, filter.project__sid) : null);
  const addPermission = (role: Awaited<ReturnType<typeof projectRole>>) => (filter.project__sid ? permissions.row.create(membership, role) : false);
  // Read a few at a time, the page's sids come first (with its count), then the rows by sid.
  let sids: string[] = [];
  return answerPage(request, reply, answerLimits(ctx), {
    page,
    recordBytes: rowRecordBytes(ctx.config),
    item: GridRow,
    first: async (part) => {
      if (part.limit >= page.size) {
        // One read holds the page: the rows with their count, then their cells.
        const [found, role] = await Promise.all([
          gridRows(ctx.db, table.organizationSid, table.sid, membership, filter, part.limit, part.offset), projectRole(),
        ]);
        return { results: withCells(found), count: found.total ?? 0, addPermission: addPermission(role) };
      }
      const [found, role] = await Promise.all([
        gridSids(ctx.db, table.organizationSid, table.sid, membership, filter, page.limit, page.offset), projectRole(),
      ]);
      sids = found.map((r) => r.sid);
      const rowsRead = await gridRowsOf(ctx.db, table.organizationSid, table.sid, membership, filter, sids.slice(0, part.limit));
      return { results: withCells(rowsRead), count: found.total ?? 0, addPermission: addPermission(role), records: sids.length };
    },
    more: async (part) => {
      const from = part.offset - page.offset;
      return withCells(await gridRowsOf(ctx.db, table.organizationSid, table.sid, membership, filter, sids.slice(from, from + part.limit)));
    },
  });
}

export function registerRows(app: FastifyInstance, ctx: AppContext): void {
  registerRowStream(app, ctx);
  // A saved filter (?filter__sid=) applied once per request: the page, its count and add_permission read the same query.
  const savedFilterApplied = new WeakMap<object, Promise<RowFilter>>();
  const applied = (membership: Membership, query: RowFilter & { filter__sid?: string }) => {
    let found = savedFilterApplied.get(query);
    if (!found) savedFilterApplied.set(query, (found = withSavedFilter(ctx.db, membership, query)));
    return found;
  };
  defineList(app, ctx, {
    path: '/tables/row',
    tag: 'rows',
    levels: { organization: organizationLevel },
    shapes: RowShapes,
    get: {
      summary: 'List rows (Admin: all; others: rows of their projects)',
      description: 'Oldest first. Filters: table__sid, project__sid.',
      query: RowListQuery,
      // The list and detail shapes carry each row's cells (column_set, cells): pages are read and written a few records at a time (core/answer-stream.ts).
      recordBytes: (serializer) => (serializer !== 'name' ? rowRecordBytes(ctx.config) : undefined),
      addPermission: async (scope, given) => {
        const query = await applied(scope.membership, given);
        if (!query.project__sid || !isSid(query.project__sid)) return false;
        return permissions.row.create(scope.membership, await findProjectRole(ctx.db, scope.membership.personnelSid, query.project__sid));
      },
      // The page carries its count, summed from the row counters (rows/counts.ts).
      counted: true,
      count: async (scope, given) => countRows(ctx.db, scope.membership.organizationSid, scope.membership, await applied(scope.membership, given)),
      rows: async (scope, given, serializer, page) => {
        const query = await applied(scope.membership, given);
        // The list and detail shapes' cells come in the page's own statement (one round trip fewer).
        const found = await pageRows(ctx.db, scope.membership.organizationSid, scope.membership, query, page.limit, page.offset, serializer !== 'name');
        if (serializer !== 'detail') return withTotal(await rowSummaries(ctx, found, serializer, scope.membership), found);
        return withTotal(await rowDetails(ctx, found, scope.membership), found);
      },
    },
    post: {
      summary: 'Create a row of a table in a project (Project Admin, Edit)',
      description: 'Query: table__sid and project__sid (both required, of this organization). The row gets version 1.',
      query: RowCreateQuery,
      body: RowCreate,
      allowed: () => true,
      create: async (scope, body, query, serializer, request) => {
        // presigned_post=true (labii-sdk upload()): the file column is checked first; the answer says where to upload the file.
        const presigned = queryBool(query.presigned_post);
        if (presigned && serializer !== 'detail') throw errors.field('presigned_post', 'A presigned post is answered in the detail shape: POST to …/detail/.');
        const column = presigned ? await presignedColumn(ctx, scope.membership.organizationSid, query.table__sid) : undefined;
        const row = await createRow(ctx, scope.membership, scope.actor, query, body);
        if (column) return { ...await rowDetail(ctx, row, scope.membership), presigned_post: presignedPost(ctx, request, row.sid, column) };
        return serializer === 'detail' ? rowDetail(ctx, row, scope.membership) : (await rowSummaries(ctx, [row], serializer, scope.membership))[0];
      },
    },
  });

  defineDetail(app, ctx, {
    path: '/tables/row',
    lock: (tx, sid, actor) => lockRow(tx, actor, { row: sid }),
    tag: 'rows',
    shape: RowShapes.detail,
    get: {
      summary: 'One row with its cells',
      handler: async (actor, sid) => {
        const { membership } = await readableRow(ctx, actor, sid);
        return rowDetail(ctx, (await findRow(ctx.db, sid, membership.personnelSid))!, membership);
      },
    },
    patch: {
      summary: 'Change a row: name, description (Project Admin, Edit); is_locked, is_archived (Project Admin)',
      description: 'Each change appends a version. An archived row only takes being unarchived; a locked row keeps its name and description until unlocked.',
      body: RowPatch,
      handler: async (actor, sid, body) => {
        const { row, membership } = await rowUpdate(ctx, actor, sid, body);
        return rowDetail(ctx, row, membership);
      },
    },
  });

  const gridUrl = '/tables/row/list/table/:sid/grid/';
  app.get(gridUrl, {
    // The table and the caller's standing in its organization are read with the credential (core/auth.ts).
    config: { standingOf: 'table' },
    // The caller's standing first (an outsider gets 403), then a parameter the grid does not take is a 400 naming it.
    preValidation: async (request) => {
      request.scope = await tableLevel(ctx, actorOf(request), (request.params as { sid: string }).sid);
      refuseUnknownParameters(request, Object.keys({ ...PageQuery, ...GridQuery }));
    },
    schema: {
      tags: ['rows'],
      summary: "The grid: a page of a table's rows, each with all its cells",
      description: 'One request per page: the rows in the detail shape, `cells` keyed by column sid (each as the cell detail gives it). '
        + 'Same rules as the row list: an Admin sees every row, others the rows of their projects. '
        + 'Filters: project__sid, search (name contains), is_archived, is_locked; ordering. '
        + 'add_permission: whether the caller may create a row in project__sid (false without it). The columns: GET /tables/column/list/…',
      params: Type.Object({ sid: Type.String({ description: 'the sid of the table' }) }),
      querystring: Type.Object({ ...PageQuery, ...GridQuery }),
      response: { 200: Page(GridRow), ...ErrorResponses },
      'x-heavy': true,
    },
  }, async (request, reply) => gridPage(ctx, request, reply));
  refuseOtherMethods(app, gridUrl, ['GET']);

  const verifyUrl = '/tables/row/detail/:sid/verify/';
  app.get(verifyUrl, {
    schema: {
      tags: ['rows'],
      summary: "Verify a row's whole version chain",
      description: 'Recomputes every version hash from the stored data and checks numbering, links and the row head. '
        + 'Reports is_valid, the first invalid version and up to 100 problems. The files the versions\' file cells list are '
        + 'read back from storage and hashed: a file whose bytes no longer match the SHA-256 its version carries (or that is '
        + 'missing) is a problem of the first version listing it, naming the file (`file`).',
      params: Type.Object({ sid: Type.String() }),
      response: { 200: ChainReport, ...ErrorResponses },
      'x-heavy': true,
    },
  }, async (request, reply) => {
    const { row } = await readableRow(ctx, actorOf(request), (request.params as { sid: string }).sid);
    // A verification holds at most two batches of ANSWER_MAX_BYTES / 2: one read's worth of the
    // process's heavy-work budget, reserved until it answers (503 past the budget).
    await ctx.heavy.takeFor(reply, ctx.config.answerMaxBytes);
    const batchBytes = Math.floor(ctx.config.answerMaxBytes / 2);
    return verifyChain(ctx.db, row, batchBytes, Math.floor(batchBytes / rowRecordBytes(ctx.config)), ctx.files.store);
  });
  refuseOtherMethods(app, verifyUrl, ['GET']);
}

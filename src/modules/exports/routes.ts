// Exports (issue 26): a table's rows as CSV, XLSX or NDJSON, streamed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { create as contentDisposition } from 'content-disposition';
import type { AppContext } from '../../context.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { projectLevel, tableLevel } from '../../core/levels.js';
import { readsProject } from '../../core/rules.js';
import { errors } from '../../core/errors.js';
import { query } from '../../db/client.js';
import { sql } from 'drizzle-orm';
import { actorOf } from '../../core/auth.js';
import { ErrorResponses, StringEnum } from '../../core/schemas.js';
import { GridQuery } from '../rows/schemas.js';
import type { GridFilter } from '../rows/grid.js';
import { elnStream } from './eln.js';
import { rootFolder } from './eln-format.js';
import { EXPORT_FORMATS, MEDIA_TYPES, exportStream, type ExportFormat } from './table.js';

const { ordering: _ordering, ...ExportFilter } = GridQuery;

const binary = (mediaType: string) => ({ [mediaType.split(';')[0]]: { schema: Type.String({ format: 'binary' }) } });

/** A download's file name: the table's name without what a file system refuses. */
function fileName(tableName: string, format: ExportFormat): string {
  const base = tableName.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, ' ').trim().slice(0, 200) || 'rows';
  return `${base}.${format}`;
}

export function registerExports(app: FastifyInstance, ctx: AppContext): void {
  const tableExport = '/tables/row/export/table/:sid/';
  app.get(tableExport, {
    config: { operationId: 'exportRows' },
    schema: {
      tags: ['rows'],
      summary: "Export a table's rows as CSV, XLSX or NDJSON, streamed",
      description: 'The rows the caller may read (the grid\'s rules: an Admin every row, others the rows of their projects), '
        + 'oldest first (ties by sid), filtered as the grid filters (project__sid, search, is_archived, is_locked). '
        + 'CSV and XLSX: a header of `sid`, `name`, `description` and the columns\' names in column order, then one line a row '
        + '(an empty field where a row has no cell). NDJSON: one JSON object a line, the row\'s fields and `cells` (data by column sid). '
        + 'Streamed as the database yields the rows: a large table starts downloading at once.',
      params: Type.Object({ sid: Type.String({ description: 'the sid of the table' }) }),
      querystring: Type.Object({
        format: Type.Optional(StringEnum(EXPORT_FORMATS, { description: 'csv (default), xlsx or ndjson' })),
        ...ExportFilter,
      }),
      response: {
        200: {
          description: 'the rows, as a download',
          content: { ...binary(MEDIA_TYPES.csv), ...binary(MEDIA_TYPES.xlsx), ...binary(MEDIA_TYPES.ndjson) },
        },
        ...ErrorResponses,
      },
    },
  }, async (request: FastifyRequest, reply: FastifyReply) => {
    const scope = await tableLevel(ctx, actorOf(request), (request.params as { sid: string }).sid);
    const { format = 'csv', ...filter } = request.query as GridFilter & { format?: ExportFormat };
    const body = await exportStream({
      db: ctx.db, organizationSid: scope.table.organizationSid, tableSid: scope.table.sid, membership: scope.membership, filter,
    }, format, scope.table.name);
    body.on('error', (err) => request.log.error({ err }, 'an export ended early'));
    reply.headers({
      'content-disposition': contentDisposition(fileName(scope.table.name, format), { type: 'attachment' }),
      'cache-control': 'private, no-store',
    });
    reply.type(MEDIA_TYPES[format]);
    return reply.send(body);
  });
  refuseOtherMethods(app, tableExport, ['GET']);

  const projectExport = '/projects/project/detail/:sid/eln/';
  app.get(projectExport, {
    config: { operationId: 'exportProjectEln' },
    schema: {
      tags: ['projects'],
      summary: 'Export a project as an .eln archive (RO-Crate 1.1 in a zip, as the ELN Consortium specifies), streamed',
      description: 'Every row of the project (Admin, or any role in the project) as a Dataset with its cells, the files its cells name, '
        + 'and its whole version chain with the hashes (versions.ndjson: who changed what and when), so that the chain can be '
        + 're-verified offline from the archive alone: `npm run cli -- verify-archive file.eln`. See docs/eln.md.',
      params: Type.Object({ sid: Type.String({ description: 'the sid of the project' }) }),
      response: { 200: { description: 'the archive, as a download', content: binary('application/zip') }, ...ErrorResponses },
    },
  }, async (request: FastifyRequest, reply: FastifyReply) => {
    const scope = await projectLevel(ctx, actorOf(request), (request.params as { sid: string }).sid);
    if (!readsProject.test(scope.membership, scope.projectRole)) throw errors.forbidden();
    const [project] = await query<{ description: string }>(ctx.db, sql`SELECT description FROM projects WHERE sid = ${scope.project.sid}`);
    const now = new Date();
    const root = rootFolder(scope.project.name, now.toISOString().slice(0, 10));
    const body = await elnStream({
      db: ctx.db, store: ctx.files.store, organizationSid: scope.project.organizationSid,
      project: { sid: scope.project.sid, name: scope.project.name, description: project.description }, root,
      publicUrl: ctx.config.publicUrl ?? 'http://localhost/', now,
    });
    body.on('error', (err) => request.log.error({ err }, 'an .eln export ended early'));
    reply.headers({
      'content-disposition': contentDisposition(`${root}.eln`, { type: 'attachment' }),
      'cache-control': 'private, no-store',
    });
    reply.type('application/zip');
    return reply.send(body);
  });
  refuseOtherMethods(app, projectExport, ['GET', 'POST']);
}

// POST /projects/project/detail/{sid}/eln/?table__sid= — an .eln archive's datasets into new
// rows of a table in the project (imports/eln.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { projectLevel } from '../../core/levels.js';
import { actorOf } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { permissions } from '../../core/permissions.js';
import { isSid } from '../../core/ids.js';
import { DetailError, ErrorResponses, Ref, Sid } from '../../core/schemas.js';
import { tables } from '../../db/schema.js';
import { spool } from './spool.js';
import { importEln } from './eln.js';

const ElnImportSummary = Type.Object({
  created: Type.Integer(),
  files: Type.Integer({ description: 'files of the archive made files of the organization' }),
  price: Type.String(),
  rows: Type.Array(Type.Object({ ...Ref.properties, sid: Sid, source: Type.String({ description: 'the dataset it was made from (ours: the row sid and version)' }) })),
  unmapped: Type.Array(Type.String(), { description: 'properties no column of the table is named after (left out)' }),
}, { title: 'ElnImportSummary' });

export function registerElnImport(app: FastifyInstance, ctx: AppContext): void {
  void app.register(async (scope) => {
    const passThrough = (_request: FastifyRequest, _payload: unknown, done: (err: Error | null, body?: unknown) => void) => done(null);
    for (const type of ['application/zip', 'application/octet-stream']) scope.addContentTypeParser(type, passThrough);
    scope.post('/projects/project/detail/:sid/eln/', {
      config: { operationId: 'importProjectEln', docBody: { mediaType: 'application/zip', schema: Type.String({ format: 'binary' }) } },
      schema: {
        tags: ['projects'],
        summary: 'Import an .eln archive into new rows of a table in the project (Project Admin, Edit)',
        description: 'Each dataset the archive\'s root lists becomes a row: ours with its cells (by column sid, else name) and files, '
          + 'other ELNs\' (eLabFTW\'s experiments and resources) with their properties by column name, their text as the description '
          + 'and their attachments as files (named in a column called Files, when the table has one). Our archives must verify first '
          + '(400 naming the row and version otherwise); each new row\'s first version names where it came from. One transaction.',
        params: Type.Object({ sid: Type.String({ description: 'the sid of the project' }) }),
        querystring: Type.Object({ table__sid: Type.String({ maxLength: 64, description: 'the table of the new rows (required)' }) }),
        response: { 200: ElnImportSummary, 413: DetailError, ...ErrorResponses },
      },
    }, async (request) => {
      const actor = actorOf(request);
      const scoped = await projectLevel(ctx, actor, (request.params as { sid: string }).sid);
      const { table__sid: tableSid } = request.query as { table__sid: string };
      const [table] = isSid(tableSid) ? await ctx.db.select({ sid: tables.sid }).from(tables)
        .where(and(eq(tables.sid, tableSid), eq(tables.organizationSid, scoped.project.organizationSid))) : [];
      if (!table) throw errors.field('table__sid', 'No table with this sid in this organization.');
      if (!permissions.row.create(scoped.membership, scoped.projectRole)) throw errors.writeRefused(scoped.membership, scoped.projectRole, scoped.project.sid);
      const dir = await mkdtemp(path.join(tmpdir(), 'records-eln-import-'));
      try {
        const file = path.join(dir, 'upload.eln');
        await spool(request, file, ctx.files.config.maxBytes);
        return await importEln(ctx, scoped.membership, actor, { tableSid: table.sid, projectSid: scoped.project.sid }, file);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}

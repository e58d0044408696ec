// Imports (issue 26): POST /tables/row/import/table/{sid}/ — a CSV or XLSX file's lines into
// rows of a table in a project, checked line by line (dry_run=true: the check alone), then
// written all at once; GET /tables/row/import/progress/ — how far the caller's import is.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { tableLevel } from '../../core/levels.js';
import { actorOf } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { spool } from './spool.js';
import { findProjectRole } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { isSid } from '../../core/ids.js';
import { DetailError, ErrorResponses, queryBool } from '../../core/schemas.js';
import { projects } from '../../db/schema.js';
import { UnreadableFile, type ImportFormat } from './parse.js';
import { refusal, runImport } from './service.js';
import { ImportProgress, ImportQuery, ImportSummary } from './schemas.js';
import { ProgressBoard } from './progress.js';

const MEDIA: Record<string, ImportFormat> = {
  'text/csv': 'csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};

export function registerImports(app: FastifyInstance, ctx: AppContext): void {
  const board = new ProgressBoard(ctx.database, ctx.live);
  void app.register(async (scope) => {
    const passThrough = (_request: FastifyRequest, _payload: unknown, done: (err: Error | null, body?: unknown) => void) => done(null);
    for (const type of [...Object.keys(MEDIA), 'application/octet-stream']) scope.addContentTypeParser(type, passThrough);
    const url = '/tables/row/import/table/:sid/';
    scope.post(url, {
      config: { operationId: 'importRows', docBody: { mediaType: 'text/csv', schema: Type.String({ format: 'binary' }) } },
      schema: {
        tags: ['rows'],
        summary: 'Import rows from a CSV or XLSX file into a table and project (Project Admin, Edit)',
        description: 'The body is the file (Content-Type text/csv, the XLSX type, or application/octet-stream with `format`). Its first line '
          + 'is the header: each field goes to `sid`, `name`, `description` or the column of that name, unless `mapping` says otherwise. '
          + 'Lines whose key (`sid`, or the column named by `key`) names a row of the table and project update it; the others create rows. '
          + 'Each line is one write of its row (one version; an unchanged line writes nothing), with the rules of a cell edit. '
          + '`dry_run=true` checks every line and writes nothing: the answer lists every problem by line and column, and the price. '
          + 'Otherwise all lines are written in one transaction, or none (400 with the problems). Idempotency-Key replays the answer; '
          + 'GET /tables/row/import/progress/?key=<Idempotency-Key> tells how far a running import is.',
        params: Type.Object({ sid: Type.String({ description: 'the sid of the table' }) }),
        querystring: ImportQuery,
        response: { 200: ImportSummary, 413: DetailError, ...ErrorResponses },
      },
    }, async (request) => {
      const actor = actorOf(request);
      const scopeOf = await tableLevel(ctx, actor, (request.params as { sid: string }).sid);
      const q = request.query as { project__sid: string; format?: ImportFormat; dry_run?: string; key?: string; mapping?: string };
      const [project] = isSid(q.project__sid) ? await ctx.db.select({ sid: projects.sid }).from(projects)
        .where(and(eq(projects.sid, q.project__sid), eq(projects.organizationSid, scopeOf.table.organizationSid))) : [];
      if (!project) throw errors.field('project__sid', 'No project with this sid in this organization.');
      const role = await findProjectRole(ctx.db, scopeOf.membership.personnelSid, project.sid);
      if (!permissions.row.create(scopeOf.membership, role)) throw errors.writeRefused(scopeOf.membership, role, project.sid);
      const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      const format = q.format ?? MEDIA[type];
      if (!format) throw errors.field('format', 'Say which format the file is in: format=csv or format=xlsx (or Content-Type text/csv or the XLSX type).');
      let mapping: Record<string, string> = {};
      if (q.mapping !== undefined) {
        try {
          mapping = JSON.parse(q.mapping);
        } catch {
          throw errors.field('mapping', 'Send a JSON object of header field → column name or sid (or "" to leave the field out).');
        }
        if (!mapping || typeof mapping !== 'object' || Array.isArray(mapping) || Object.values(mapping).some((v) => typeof v !== 'string')) {
          throw errors.field('mapping', 'Send a JSON object of header field → column name or sid (or "" to leave the field out).');
        }
      }
      const dir = await mkdtemp(path.join(tmpdir(), 'records-import-'));
      const key = request.idempotencyKey?.key;
      try {
        const file = path.join(dir, `upload.${format}`);
        await spool(request, file, ctx.files.config.maxBytes);
        const summary = await runImport({
          db: ctx.db, organizationSid: scopeOf.table.organizationSid, tableSid: scopeOf.table.sid, projectSid: project.sid, userSid: actor.userSid,
          file, format, mapping, key: q.key, dryRun: queryBool(q.dry_run), rowMaxBytes: ctx.config.rowMaxBytes, salesContact: ctx.config.salesContact,
          progress: async (done, total, phase) => { if (key) await board.publish(actor.userSid, key, { phase, rows_done: done, rows_total: total }); },
        });
        if (!summary.dry_run && summary.problem_count) throw refusal(summary.problems);
        return summary;
      } catch (err) {
        if (err instanceof UnreadableFile) throw errors.fields({ file: [err.line ? `line ${err.line}: ${err.message}` : err.message] });
        throw err;
      } finally {
        if (key) await board.finish(actor.userSid, key);
        await rm(dir, { recursive: true, force: true });
      }
    });
    refuseOtherMethods(scope, url, ['POST']);
  });

  const progressUrl = '/tables/row/import/progress/';
  app.get(progressUrl, {
    config: { operationId: 'importProgress' },
    schema: {
      tags: ['rows'],
      summary: "How far the caller's import is",
      description: 'By the Idempotency-Key the import was sent with: its phase (checking, writing, done), the rows done and, once the '
        + 'check has counted them, the total. 404 for a key of no import of the caller\'s in the last 10 minutes (kept by the process that runs it).',
      querystring: Type.Object({ key: Type.String({ maxLength: 255, description: 'the Idempotency-Key of the import' }) }),
      response: { 200: ImportProgress, ...ErrorResponses },
    },
  }, async (request) => {
    const found = board.get(actorOf(request).userSid, (request.query as { key: string }).key);
    if (!found) throw errors.notFound();
    return found;
  });
  refuseOtherMethods(app, progressUrl, ['GET']);
}


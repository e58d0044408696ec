// The activity log (Labii's Activity, /activities/activity/): the Admins' list, and its
// export streamed as NDJSON or CSV (keyset batches pulled as the socket takes them).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable, pipeline } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { stringify } from 'csv-stringify';
import { create as contentDisposition } from 'content-disposition';
import type { AppContext } from '../../context.js';
import { defineList, refuseOtherMethods, refuseUnknownParameters } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { actorOf } from '../../core/auth.js';
import { ErrorResponses, StringEnum } from '../../core/schemas.js';
import { ActivityFilters, ActivityShapes, type ActivityFilter } from './schemas.js';
import { activityBatch, checkActivityFilter, countActivities, pageActivities, type ActivityRecord } from './repository.js';

const FORMATS = ['ndjson', 'csv'] as const;
const MEDIA = { ndjson: 'application/x-ndjson; charset=utf-8', csv: 'text/csv; charset=utf-8' } as const;
const BATCH = 500;
const CSV_FIELDS = ['date_created', 'user_sid', 'user_email', 'user_name', 'action', 'model', 'object_sid', 'target', 'field', 'new_data', 'version'] as const;

/** The log's lines under `filter`, newest first, a batch read each time the consumer asks. */
async function* lines(ctx: AppContext, orgSid: string, filter: ActivityFilter): AsyncGenerator<Omit<ActivityRecord, 'id'>> {
  let before: number | null = null;
  for (;;) {
    const batch = await activityBatch(ctx.db, orgSid, filter, before, BATCH);
    for (const { id: _id, ...line } of batch) yield line;
    if (batch.length < BATCH) return;
    before = batch[batch.length - 1].id;
  }
}

function csvLine(a: Omit<ActivityRecord, 'id'>): string[] {
  const name = a.user ? `${a.user.first_name} ${a.user.last_name}`.trim() : '';
  return [a.date_created, a.user?.sid ?? '', a.user?.email ?? '', name, a.action, a.model, a.object_sid, a.target, a.field, a.new_data, a.version === null ? '' : String(a.version)];
}

export function registerActivities(app: FastifyInstance, ctx: AppContext): void {
  // At the v3 docs' path and at labii-sdk 1.13.14's (its `Activity` is APIResource("tables", "activity")).
  for (const path of ['/activities/activity', '/tables/activity']) registerList(app, ctx, path);
  registerExport(app, ctx);
}

function registerList(app: FastifyInstance, ctx: AppContext, path: string): void {
  defineList(app, ctx, {
    path,
    tag: 'activities',
    levels: { organization: organizationLevel },
    shapes: ActivityShapes,
    get: {
      summary: "The organization's activity log (Admin)",
      description: 'Who did what to which object, when, newest first: each version of a row (its creation, cells, sections, fields, '
        + 'states), each project, table, column and personnel record created or changed (archiving is a change), each project member '
        + 'added, changed or removed, written in the transaction of the change. Filters: user__sid, model, object_sid, '
        + 'date_created__gte/__gt/__lte/__lt. The whole log: GET /activities/activity/export/organization/{sid}/.',
      query: ActivityFilters,
      allowed: (scope) => permissions.activity.read(scope.membership),
      addPermission: () => false,
      counted: true,
      count: (scope, q) => countActivities(ctx.db, scope.membership.organizationSid, q),
      rows: (scope, q, _serializer, page) => pageActivities(ctx.db, scope.membership.organizationSid, q, page.limit, page.offset),
    },
  });
}

function registerExport(app: FastifyInstance, ctx: AppContext): void {
  const exportUrl = '/activities/activity/export/organization/:sid/';
  app.get(exportUrl, {
    config: { operationId: 'exportActivities' },
    preValidation: async (request) => {
      request.scope = await organizationLevel(ctx, actorOf(request), (request.params as { sid: string }).sid, request);
      if (!permissions.activity.read((request.scope as Awaited<ReturnType<typeof organizationLevel>>).membership)) throw errors.forbidden();
      refuseUnknownParameters(request, ['format', ...Object.keys(ActivityFilters)]);
    },
    schema: {
      tags: ['activities'],
      summary: "Export the organization's activity log as NDJSON or CSV, streamed (Admin)",
      description: 'Newest first, filtered as the list filters. NDJSON: one line of the list shape a line. CSV: a header of '
        + `${CSV_FIELDS.join(', ')}, then one line each. Streamed as the database yields the lines.`,
      params: Type.Object({ sid: Type.String({ description: 'the sid of the organization' }) }),
      querystring: Type.Object({ format: Type.Optional(StringEnum(FORMATS, { description: 'ndjson (default) or csv' })), ...ActivityFilters }),
      response: {
        200: {
          description: 'the log, as a download',
          content: { 'application/x-ndjson': { schema: Type.String({ format: 'binary' }) }, 'text/csv': { schema: Type.String({ format: 'binary' }) } },
        },
        ...ErrorResponses,
      },
    },
  }, async (request: FastifyRequest, reply: FastifyReply) => {
    const { membership } = request.scope as Awaited<ReturnType<typeof organizationLevel>>;
    const { format = 'ndjson', ...filter } = request.query as ActivityFilter & { format?: (typeof FORMATS)[number] };
    const orgSid = membership.organizationSid;
    checkActivityFilter(filter); // a bad date is a 400 before the first byte
    let body: Readable;
    if (format === 'csv') {
      const out = stringify({ header: true, columns: CSV_FIELDS.map((name, i) => ({ key: String(i), header: name })) });
      pipeline(Readable.from((async function* csv() { for await (const a of lines(ctx, orgSid, filter)) yield csvLine(a); })()), out, () => undefined);
      body = out;
    } else {
      body = Readable.from((async function* ndjson() { for await (const a of lines(ctx, orgSid, filter)) yield `${JSON.stringify(a)}\n`; })());
    }
    body.on('error', (err) => request.log.error({ err }, 'an activity export ended early'));
    reply.headers({ 'content-disposition': contentDisposition(`activity.${format}`, { type: 'attachment' }), 'cache-control': 'private, no-store' });
    reply.type(MEDIA[format]);
    return reply.send(body);
  });
  refuseOtherMethods(app, exportUrl, ['GET']);
}

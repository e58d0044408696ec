// labii-sdk's upload() (issue 25), unchanged: it creates the record with
// POST /tables/row/list/organization/{org}/detail/?table__sid=…&presigned_post=true, then
// POSTs the file as multipart/form-data to the answer's `presigned_post.url` with its
// `fields` (sent before the file, as to S3), its token headers and a Content-Type with no
// boundary (multipart.ts reads it from the body's first line). Labii answers an S3 form
// there; ours is a URL of our own, /tables/row/upload/{row sid}/, whose one field names the
// file column: the upload is then the multipart upload to that row's cell (row-upload.ts) —
// streamed, hashed, one version of the row — by the row's and its cells' rules.
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { actorOf } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { DetailError, ErrorResponses } from '../../core/schemas.js';
import { baseUrlOf } from '../../core/urls.js';
import { columns, tables, widgets } from '../../db/schema.js';
import { readRow } from '../records/lock.js';
import { readableRow } from '../rows/service.js';
import { FILE_KIND } from './cells.js';
import { FILE_PATH_WIDGET } from './files-table.js';
import { attachTo, prepareRowUpload } from './row-upload.js';
import { FileShapes, UploadBody } from './schemas.js';
import { serializeFile } from './service.js';
import { FILE_FIELD, uploadMultipart } from './upload.js';

/** The one field of a presigned post: the file column the upload goes to. */
const COLUMN_FIELD = 'column';
const UPLOAD_URL = '/tables/row/upload/:sid/';

/** The answer's `presigned_post`: where and with which fields to POST the file. */
export interface PresignedPost {
  url: string;
  fields: Record<string, string>;
}

/**
 * The file column a presigned post of a new row of the table goes to (Labii's file-path
 * widget's first, else the first column of kind file), checked before the row is created:
 * undefined when the table is not the organization's (the create refuses it), a 400 on
 * `presigned_post` when it has no file column.
 */
export async function presignedColumn(ctx: AppContext, organizationSid: string, tableSid: string): Promise<string | undefined> {
  if (!isSid(tableSid)) return undefined;
  const found = await ctx.db.select({ column: columns.sid, fileWidget: widgets.sid }).from(tables)
    .leftJoin(columns, eq(columns.tableSid, tables.sid))
    .leftJoin(widgets, and(eq(widgets.sid, columns.widgetSid), eq(widgets.kind, FILE_KIND)))
    .where(and(eq(tables.sid, tableSid), eq(tables.organizationSid, organizationSid)))
    .orderBy(sql`${widgets.sid} IS NULL`, sql`${widgets.sid} <> ${FILE_PATH_WIDGET}`, columns.order, columns.sid)
    .limit(1);
  if (!found.length) return undefined;
  if (found[0].fileWidget === null || found[0].column === null) {
    throw errors.field('presigned_post', 'The table has no file column (a column whose widget is of kind file) to upload to.');
  }
  return found[0].column;
}

/** Where the client uploads the file of a row just created with presigned_post=true. */
export function presignedPost(ctx: AppContext, request: FastifyRequest, rowSid: string, columnSid: string): PresignedPost {
  return { url: `${baseUrlOf(request, ctx.config.publicUrl)}/tables/row/upload/${rowSid}/`, fields: { [COLUMN_FIELD]: columnSid } };
}

/** POST /tables/row/upload/{sid}/: the presigned post's upload (registered where multipart bodies are streamed, routes.ts). */
export function registerPresignedUpload(app: FastifyInstance, ctx: AppContext): void {
  app.post(UPLOAD_URL, {
    config: { operationId: 'uploadToRow', docBody: { mediaType: 'multipart/form-data', schema: UploadBody } },
    schema: {
      tags: ['files'],
      summary: "Upload a row's file where presigned_post sent it (labii-sdk upload(); who may write the row's cells)",
      description: `multipart/form-data: the presigned post's fields (\`${COLUMN_FIELD}\`: the file column), then the file as the part `
        + `"${FILE_FIELD}". A Content-Type without its boundary is read from the body's first line. The same upload as `
        + 'POST /files/file/list/row/{sid}/detail/?column=…: streamed, one version of the row carrying the file\'s SHA-256, '
        + 'the widget\'s price debited. Answers 201 with the file\'s descriptor.',
      params: Type.Object({ sid: Type.String({ description: 'the sid of the row' }) }),
      response: { 201: FileShapes.detail, 413: DetailError, 422: DetailError, ...ErrorResponses },
    },
  }, async (request, reply) => {
    const actor = actorOf(request);
    const { sid } = request.params as { sid: string };
    if (!isSid(sid) || !(await readRow(ctx.db, actor, { row: sid }))) throw errors.wrongId();
    const access = await readableRow(ctx, actor, sid);
    const file = await uploadMultipart(ctx, access.membership, request, {
      fields: [COLUMN_FIELD],
      resolve: async (fields) => {
        const column = fields[COLUMN_FIELD];
        if (column === undefined) throw errors.field(COLUMN_FIELD, `Send the field "${COLUMN_FIELD}" (from presigned_post.fields) before the file.`);
        return attachTo(ctx, actor, await prepareRowUpload(ctx, access, column, undefined));
      },
    });
    reply.code(201);
    return serializeFile(file, 'detail', access.membership);
  });
  refuseOtherMethods(app, UPLOAD_URL, ['POST']);
}

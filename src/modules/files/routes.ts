// Files (issue 25): /files/file/ — upload (multipart), list, descriptor, download, delete;
// /files/upload/ — resumable uploads (tus, resumable.ts). An organization's files are its
// active members' to upload and read (part b narrows reading to the rows that hold them).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList, refuseOtherMethods } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { requireOrganizationMember } from '../../core/access.js';
import { actorOf } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { DetailError, ErrorResponses, Sid } from '../../core/schemas.js';
import { queryBool } from '../../core/schemas.js';
import { DownloadQuery, FileShapes, UploadBody, UploadQuery } from './schemas.js';
import { countFiles, pageFiles, type FileOwner } from './repository.js';
import { attachTo, prepareRowUpload, rowLevel, type FilesScope } from './row-upload.js';
import { deleteFile, loadFile, serializeFile } from './service.js';
import { sendFile } from './download.js';
import { FILE_FIELD, uploadMultipart } from './upload.js';
import { ResumableUploads } from './resumable.js';
import { registerPresignedUpload } from './labii-upload.js';
import { registerThumbnails } from './thumbnails.js';

const LIMITS_TEXT = 'At most FILE_MAX_BYTES a file (413 past it) and FILES_QUOTA_BYTES for all of an organization\'s files (413); '
  + 'with a virus scanner configured, an infected file is refused (422) and none is accepted while the scanner is away (503). '
  + 'The media type is sniffed from the bytes; the name is kept as typed (400 for an empty name, one over 1000 characters, or control characters).';

const ownerOf = (scope: FilesScope): FileOwner => (scope.access ? { rowSid: scope.access.row.sid } : { organizationSid: scope.membership.organizationSid });

const Uploaded = { 413: DetailError, 422: DetailError };

export function registerFiles(app: FastifyInstance, ctx: AppContext): ResumableUploads {
  const resumable = new ResumableUploads(ctx);
  // Upload bodies are streams the routes read themselves: parsed by nobody here, and only
  // in this plugin's routes (everywhere else the body is JSON or 415).
  void app.register(async (scope) => {
    const passThrough = (_request: FastifyRequest, _payload: unknown, done: (err: Error | null, body?: unknown) => void) => done(null);
    scope.addContentTypeParser('multipart/form-data', passThrough);
    scope.addContentTypeParser('application/offset+octet-stream', passThrough);
    registerFileRoutes(scope, ctx);
    registerPresignedUpload(scope, ctx);
    registerThumbnails(scope, ctx);
    registerResumableRoutes(scope, ctx, resumable);
  });
  return resumable;
}

function registerFileRoutes(app: FastifyInstance, ctx: AppContext) {
  defineList<FilesScope, {}, typeof UploadQuery>(app, ctx, {
    path: '/files/file',
    tag: 'files',
    levels: { organization: organizationLevel, row: rowLevel },
    shapes: FileShapes,
    get: {
      summary: "List an organization's files not attached to a row yet (Admin, Member), or every file a row's history holds (who may read the row)",
      description: 'Oldest first. Level row: the files attached to the row, those its cells list now and those they listed before.',
      addPermission: (scope) => (scope.access
        ? permissions.cell.write(scope.membership, scope.access.projectRole)
        : permissions.file.upload(scope.membership)),
      count: (scope) => countFiles(ctx.db, ownerOf(scope)),
      rows: async (scope, _q, serializer, page) => (await pageFiles(ctx.db, ownerOf(scope), page.limit, page.offset))
        .map((row) => serializeFile(row, serializer, scope.membership)),
    },
    post: {
      summary: 'Upload a file (Admin, Member), or upload it straight to a file cell of a row (who may write its cells): multipart/form-data, streamed',
      description: `The file as the part "${FILE_FIELD}" of a multipart/form-data body; its filename is the name kept. The bytes are `
        + 'streamed to storage as they arrive and kept once however often they are uploaded (by SHA-256). A Content-Type '
        + 'without its boundary is read from the body\'s first line. For large files, or a link that may break, use the '
        + `resumable upload (/files/upload/). ${LIMITS_TEXT}\n\nLevel row, with ?column= (a column whose widget is of kind file) `
        + 'and optionally ?replace= (a file that cell lists): one write — the file is attached to the row, the cell lists it '
        + '(in the place of the replaced one), the row\'s version is appended (its data carries the file\'s SHA-256) and the '
        + 'widget\'s price is debited; the answer carries the `cell` and the `version`. The cell POST\'s rules and 406s apply.',
      query: UploadQuery,
      upload: { mediaType: 'multipart/form-data', schema: UploadBody },
      allowed: (scope) => (scope.access ? true : permissions.file.upload(scope.membership)),
      answersDetail: true,
      create: async (scope, _body, query, _serializer, request) => {
        let attach;
        if (scope.access) {
          attach = attachTo(ctx, scope.actor, await prepareRowUpload(ctx, scope.access, query.column, query.replace));
        } else if (query.column !== undefined || query.replace !== undefined) {
          throw errors.field(query.column !== undefined ? 'column' : 'replace', 'Only an upload to a row (level row) names a column or a file to replace.');
        }
        return serializeFile(await uploadMultipart(ctx, scope.membership, request, attach), 'detail', scope.membership);
      },
    },
  });

  defineDetail(app, ctx, {
    path: '/files/file',
    tag: 'files',
    shape: FileShapes.detail,
    get: {
      summary: "A file's descriptor (Admin, Member)",
      description: 'Its bytes: GET /files/file/download/{sid}/.',
      handler: async (actor, sid) => {
        const { row, membership } = await loadFile(ctx, actor, sid);
        return serializeFile(row, 'detail', membership);
      },
    },
    delete: {
      summary: 'Delete a file (its uploader, Admin)',
      description: 'The descriptor goes and its bytes no longer count against the quota; the stored bytes are deleted by the GC '
        + 'once no file refers to them (after FILES_GC_GRACE_SECONDS).',
      handler: async (actor, sid) => deleteFile(ctx, actor, sid),
    },
  });

  const download = '/files/file/download/:sid/';
  const sendBytes = async (request: FastifyRequest, reply: FastifyReply) => {
    const { sid } = request.params as { sid: string };
    const { row } = await loadFile(ctx, actorOf(request), sid);
    return sendFile(request, reply, ctx.files.store, row, queryBool((request.query as { attachment?: string }).attachment));
  };
  // HEAD of its own (before the GET): Fastify's generated one would answer Content-Length: 0.
  app.route({
    method: 'HEAD', url: download, handler: sendBytes,
    schema: { hide: true, params: Type.Object({ sid: Type.String() }), querystring: Type.Object(DownloadQuery) },
  });
  app.get(download, {
    config: { operationId: 'downloadFile' },
    schema: {
      tags: ['files'],
      summary: "A file's bytes (Admin, Member)",
      description: 'Streamed with Content-Length, the SHA-256 as ETag (If-None-Match: 304), one Range (206; 416 past the end), '
        + 'a Content-Disposition safe for any name, the sniffed media type. Images, PDF, audio and video are inline '
        + '(unless `attachment`); HTML, SVG, XML, plain text (scripts among it) and anything else are attachments, and every answer is sandboxed '
        + '(Content-Security-Policy: sandbox).',
      params: Type.Object({ sid: Type.String({ description: 'the sid of the file' }) }),
      querystring: Type.Object(DownloadQuery),
      response: {
        200: { description: 'the bytes', content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } } },
        206: { description: 'the range asked for', content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } } },
        304: { description: 'unchanged (If-None-Match)', type: 'null' },
        416: DetailError,
        ...ErrorResponses,
      },
    },
  }, sendBytes);
  refuseOtherMethods(app, download, ['GET']);
}

const TUS_HEADERS = 'Tus-Resumable: 1.0.0 on every request but OPTIONS.';

function registerResumableRoutes(app: FastifyInstance, ctx: AppContext, resumable: ResumableUploads) {
  const create = '/files/upload/list/organization/:sid/';
  const detail = '/files/upload/detail/:id/';
  const idParams = Type.Object({ id: Type.String({ description: 'the upload\'s id (from the Location of its creation)' }) });
  const answers = { ...ErrorResponses, 412: DetailError, 409: DetailError, 410: DetailError, ...Uploaded };

  app.post(create, {
    config: { operationId: 'createResumableUpload', docBody: { mediaType: 'application/offset+octet-stream', schema: Type.String({ format: 'binary' }) } },
    schema: {
      tags: ['files'],
      summary: 'Begin a resumable upload (tus 1.0 creation; Admin, Member)',
      description: `${TUS_HEADERS} Upload-Length (the file's size) and Upload-Metadata with \`filename\` (base64) are required; `
        + 'with `row` and `column` (and `replace`) in the metadata too, the finished upload goes to that file cell as the multipart upload to a row does; '
        + 'a first part may come along (creation-with-upload). Answers 201 with Location: /files/upload/detail/{id}/, to which '
        + 'the bytes are PATCHed; the PATCH that completes the upload answers 200 with the file\'s descriptor. An unfinished upload '
        + `is kept FILES_RESUMABLE_HOURS for its client to resume (HEAD tells how much arrived). ${LIMITS_TEXT}`,
      params: Type.Object({ sid: Sid }),
      response: { 201: { description: 'created; Location names the upload', type: 'null' }, ...answers },
    },
  }, async (request, reply) => {
    const actor = actorOf(request);
    const membership = await requireOrganizationMember(ctx.db, actor, (request.params as { sid: string }).sid);
    if (!permissions.file.upload(membership)) throw errors.forbidden();
    return resumable.handle(request, reply, { actor, userSid: actor.userSid, membership });
  });
  refuseOtherMethods(app, create, ['POST']);

  const onUpload = async (request: FastifyRequest, reply: FastifyReply) => {
    const actor = actorOf(request);
    const organizationSid = await resumable.ownedBy((request.params as { id: string }).id, actor.userSid);
    const membership = await requireOrganizationMember(ctx.db, actor, organizationSid);
    return resumable.handle(request, reply, { actor, userSid: actor.userSid, membership });
  };
  app.route({
    method: 'HEAD',
    url: detail,
    schema: { hide: true, params: idParams },
    handler: onUpload,
  });
  app.patch(detail, {
    config: { operationId: 'continueResumableUpload', docBody: { mediaType: 'application/offset+octet-stream', schema: Type.String({ format: 'binary' }) } },
    schema: {
      tags: ['files'],
      summary: 'Send the next bytes of a resumable upload (tus 1.0; its creator)',
      description: `${TUS_HEADERS} Upload-Offset (what HEAD answered) and Content-Type: application/offset+octet-stream. Answers 204 `
        + 'with the new Upload-Offset, or, once the upload is whole, 200 with the file\'s descriptor. HEAD on the same URL answers '
        + 'Upload-Offset and Upload-Length. An upload is its creator\'s: 404 for anyone else.',
      params: idParams,
      response: { 200: FileShapes.detail, 204: { description: 'the bytes arrived; Upload-Offset says how many in all', type: 'null' }, ...answers },
    },
    handler: onUpload,
  });
  app.delete(detail, {
    config: { operationId: 'cancelResumableUpload' },
    schema: {
      tags: ['files'],
      summary: 'Give up a resumable upload (tus 1.0 termination; its creator)',
      description: `${TUS_HEADERS} Answers 204; what had arrived is deleted.`,
      params: idParams,
      response: { 204: { description: 'deleted', type: 'null' }, ...answers },
    },
    handler: onUpload,
  });
  refuseOtherMethods(app, detail, ['PATCH', 'DELETE']);
}

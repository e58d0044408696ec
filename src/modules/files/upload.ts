// The multipart upload (POST /files/file/list/organization/{sid}/detail/): one file part,
// streamed through ingest.ts into storage; its filename is the name kept. A refusal while
// the client is still sending (413 past the limit or quota, 400 for a bad name, 422 for an
// infected file) is answered at once and the connection closed after a lingering read
// (core/protocol-errors.ts), so the rest of the body is discarded, never stored. A client
// that closes its connection after its body was whole, before the upload's transaction
// commits (a cancel that came late), keeps nothing either: the transaction rolls back.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Membership } from '../../core/access.js';
import { ApiError, errors } from '../../core/errors.js';
import { lingerAfterRefusal } from '../../core/protocol-errors.js';
import { receive, type Received } from './ingest.js';
import { BodyInterrupted, isMultipart, readMultipart } from './multipart.js';
import { checkName, commitFile, uploadLimits, uploadRefusal, type Attach, type Attached } from './service.js';
import type { FileRow } from './repository.js';

/** The most a multipart body may hold besides its file (part headers and fields, multipart.ts LIMITS). */
const OVERHEAD_BYTES = 2 * 1024 * 1024;

/** The file part's field name. */
export const FILE_FIELD = 'file';

/** Where an upload goes, from the text fields sent before its file part (the fields named here are the only ones it takes). */
export interface AttachByFields {
  fields: string[];
  resolve(fields: Record<string, string>): Promise<Attach>;
}

export async function uploadMultipart(
  ctx: AppContext, membership: Membership, request: FastifyRequest, target?: Attach | AttachByFields,
): Promise<FileRow & { attached?: Attached }> {
  const raw = request.raw;
  const byFields = target && 'resolve' in target ? target : undefined;
  let attach = byFields ? undefined : target as Attach | undefined;
  let received: Received | null = null;
  try {
    const contentType = raw.headers['content-type'];
    if (contentType === undefined) throw errors.badRequest('The request body is empty; send the file as multipart/form-data.');
    if (!isMultipart(contentType)) {
      throw new ApiError(415, { detail: `Unsupported media type "${contentType}" in request; send multipart/form-data with the file as the part "${FILE_FIELD}".` });
    }
    const length = Number(raw.headers['content-length']);
    const declared = Number.isFinite(length) ? Math.max(0, length - OVERHEAD_BYTES) : undefined;
    const limits = await uploadLimits(ctx, membership.organizationSid, declared);
    let name = '';
    const { fields } = await readMultipart(raw, async (file) => {
      if (file.field !== FILE_FIELD) throw errors.field(file.field, `Unknown field: send the file as the part "${FILE_FIELD}".`);
      checkName(file.filename, FILE_FIELD);
      if (byFields) attach = await byFields.resolve(file.fields);
      name = file.filename;
      received = await receive(file.stream, ctx.files.store, ctx.files.clamd, limits);
    });
    const unknown = Object.keys(fields).filter((f) => !byFields?.fields.includes(f));
    if (unknown.length) throw errors.fields(Object.fromEntries(unknown.map((f) => [f, 'Unknown field.'])));
    const done = received!;
    received = null;
    return await commitFile(ctx, membership, name, done, attach, () => raw.socket === null || raw.socket.destroyed);
  } catch (err) {
    await (received as Received | null)?.writer.abort().catch(() => {});
    if (err instanceof BodyInterrupted) throw errors.badRequest('The upload was interrupted before its body was whole; nothing was stored.');
    const refusal = uploadRefusal(err);
    if (!refusal) throw err;
    if (raw.complete) throw refusal;
    // Refused mid-body: answer now, read and drop what the client still sends, then close.
    lingerAfterRefusal(raw);
    throw new ApiError(refusal.statusCode, refusal.body, { ...refusal.headers, connection: 'close' });
  }
}

// Files' decisions: who may upload, read and delete; an upload from its stream to a
// descriptor (ingest.ts receives the bytes, commitFile makes them a file in one
// transaction); the descriptor in its shapes.
import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Serializer } from '../../core/resource.js';
import { ApiError, errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import type { Db } from '../../db/client.js';
import { KeyedQueue } from '../../core/record-lock.js';
import { readableRow } from '../rows/service.js';
import { loadOrganizationRecord, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { Infected, ScannerUnavailable } from '../../storage/clamd.js';
import { receive, OverLimit, type Received } from './ingest.js';
import { nameProblem } from './names.js';
import { sniffMediaType } from './sniff.js';
import { addUsage, deleteFileRow, touchObject, findFile, holdObject, insertFile, refreshObject, subtractUsage, usedBytes, type FileRow } from './repository.js';

/** A descriptor in a shape, for a caller with `membership`. A file attached to a row is its history's: nobody deletes it. */
export function serializeFile(row: FileRow & { attached?: Attached }, serializer: Serializer, membership: Membership) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  const change_permission = row.row_sid === null && permissions.file.delete(membership, row.uploaded_by_sid);
  const common = { sid: row.sid, name: row.name, size: Number(row.size), media_type: row.media_type, sha256: row.sha256, row: row.row_sid };
  if (serializer === 'list') return { ...common, date_created: row.date_created, change_permission };
  return {
    ...common, uploaded_by: { sid: row.uploaded_by_sid, name: row.uploaded_by_name }, date_created: row.date_created, change_permission,
    ...(row.attached ? { cell: row.attached.cell, version: row.attached.version } : {}),
  };
}

const mib = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.floor(bytes / (1024 * 1024))} MiB` : `${bytes} bytes`);

/** The API's answer to an upload refused for what it is (never a 500). */
export function uploadRefusal(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof OverLimit) {
    return new ApiError(413, {
      detail: err.which === 'file'
        ? `The file is larger than the limit of ${mib(err.limit)} (${err.limit} bytes, FILE_MAX_BYTES); nothing was stored.`
        : `The organization's files would go past its storage quota (FILES_QUOTA_BYTES; ${mib(Math.max(err.limit, 0))} left); nothing was stored.`,
    });
  }
  if (err instanceof Infected) {
    return new ApiError(422, { detail: `The file is infected (${err.signature}) and was refused; nothing was stored.` });
  }
  if (err instanceof ScannerUnavailable) {
    return new ApiError(503, { detail: 'The virus scanner is unavailable, so no file can be accepted now; try again shortly.' }, { 'retry-after': '30' });
  }
  return null;
}

/** Refuses a name that breaks the rules (names.ts): 400 naming the field. */
export function checkName(name: string, field = 'file'): void {
  const problem = nameProblem(name);
  if (problem) throw errors.field(field, problem);
}

/** Limits for an upload of an organization: the size limit, and what its quota still allows. */
export async function uploadLimits(ctx: AppContext, organizationSid: string, declaredBytes?: number) {
  const { maxBytes, quotaBytes } = ctx.files.config;
  const roomBytes = quotaBytes - await usedBytes(ctx.db, organizationSid);
  if (declaredBytes !== undefined && declaredBytes > maxBytes) throw new OverLimit('file', maxBytes);
  if (declaredBytes !== undefined && declaredBytes > roomBytes) throw new OverLimit('quota', roomBytes);
  return { maxBytes, roomBytes };
}

/** One queue per row within the process (core/record-lock.ts). */
const rowTurns = new KeyedQueue();

/**
 * Makes received bytes a file of the organization, in one transaction: the bytes counted
 * against the quota (refused past it), the stored object's row locked, the object put in
 * place under that lock (kept once), the descriptor written. The object's row is first
 * written on its own, so that an object put by a transaction that then fails is known
 * to the GC (gc.ts).
 *
 * An upload to a cell (`attach`) locks the row first, like every cell write (one lock order:
 * row, usage, credits), and so puts its object in place before, in a short transaction of
 * its own (the object's row locked, the object put): the slow part — a flush and a rename,
 * or an S3 copy — then holds no record's row, and twenty uploads to one row take turns
 * quickly. Its transaction locks the object's row again, which must still be there (the GC
 * deletes an object only FILES_GC_GRACE_SECONDS after the date just set; 503 otherwise).
 * The price: an upload to a cell refused by the quota at that point (a race the early
 * check did not see) leaves its object to the GC.
 */
export async function commitFile(
  ctx: AppContext, membership: Membership, name: string, received: Received, attach?: Attach, gone?: () => boolean,
): Promise<FileRow & { attached?: Attached }> {
  const { sha256, size, writer } = received;
  try {
    const mediaType = await sniffMediaType(received.head);
    if (attach) {
      await ctx.database.db.transaction(async (tx) => {
        await holdObject(tx, sha256, size);
        await writer.commit(sha256, size);
      });
    } else {
      await holdObject(ctx.database.db, sha256, size);
    }
    const sid = newSid();
    const commit = () => ctx.database.db.transaction(async (tx) => {
      const target = attach ? await attach.lock(tx) : undefined;
      if (!(await addUsage(tx, membership.organizationSid, size, ctx.files.config.quotaBytes))) {
        throw new OverLimit('quota', ctx.files.config.quotaBytes - await usedBytes(tx, membership.organizationSid));
      }
      if (!attach) {
        await holdObject(tx, sha256, size);
        await writer.commit(sha256, size);
      } else if (!(await refreshObject(tx, sha256))) {
        throw new ApiError(503, { detail: 'The stored bytes were collected while the upload finished; send the file again.' }, { 'retry-after': '1' });
      }
      await insertFile(tx, {
        sid, organizationSid: membership.organizationSid, sha256, size, mediaType, name, uploadedBy: membership.personnelSid, rowSid: target?.rowSid,
      });
      const attached = target ? await target.attach(tx, sid) : undefined;
      // The last moment to change one's mind: a client that went away (an upload cancelled
      // once its body was whole, while it waited for the row's lock) keeps nothing.
      if (gone?.()) throw errors.badRequest('The connection closed before the upload was stored; nothing was stored.');
      return attached;
    });
    // Uploads to one row take turns here, each on no connection, while the one ahead holds
    // the row's lock: twenty at once would otherwise hold every pooled connection waiting
    // for that lock, and the pool refuses the rest of the service (503) meanwhile.
    const attached = attach ? await rowTurns.run(attach.rowSid, commit) : await commit();
    return { ...(await findFile(ctx.db, sid))!, ...(attached ? { attached } : {}) };
  } finally {
    await writer.abort().catch(() => {});
  }
}

/** Where an upload straight to a cell goes (row-upload.ts): the row locked in the upload's transaction, then the cell written. */
export interface Attach {
  /** The row the upload goes to. */
  readonly rowSid: string;
  lock(tx: Db): Promise<{ rowSid: string; attach(tx: Db, fileSid: string): Promise<Attached> }>;
}

/** The cell an upload was attached to and the row's version that records it. */
export interface Attached {
  cell: string;
  version: number | null;
}

/** An upload's bytes from `source` into a new file (the caller has checked the role and the name). */
export async function uploadFile(ctx: AppContext, membership: Membership, name: string, source: Readable, declaredBytes?: number): Promise<FileRow> {
  const limits = await uploadLimits(ctx, membership.organizationSid, declaredBytes);
  const received = await receive(source, ctx.files.store, ctx.files.clamd, limits);
  return commitFile(ctx, membership, name, received);
}

/**
 * A descriptor the caller may read. A file not attached yet: 404 outside its organization,
 * 403 for a former member. A file attached to a row: exactly the row's rules (404 for who
 * cannot read the row, 403 for a former member).
 */
export async function loadFile(ctx: AppContext, actor: Actor, sid: string): Promise<{ row: FileRow; membership: Membership }> {
  if (!isSid(sid)) throw errors.notFound();
  const file = await findFile(ctx.db, sid);
  if (!file) throw errors.notFound();
  if (file.row_sid !== null) return { row: file, membership: (await readableRow(ctx, actor, file.row_sid)).membership };
  const { row, membership } = await loadOrganizationRecord(ctx.db, actor, sid, async () => file);
  if (!permissions.file.read(membership)) throw errors.forbidden();
  return { row, membership };
}

/**
 * Deletes a descriptor (its uploader or an Admin) and gives its bytes back to the quota;
 * the stored object goes with the GC once no descriptor names it.
 */
export async function deleteFile(ctx: AppContext, actor: Actor, sid: string): Promise<void> {
  const { row, membership } = await loadFile(ctx, actor, sid);
  if (row.row_sid !== null) {
    throw errors.conflict(`The file is attached to the row ${row.row_sid}, whose versions refer to it: it stays as long as the row. Remove it from the cell instead (its versions keep it).`);
  }
  if (!permissions.file.delete(membership, row.uploaded_by_sid)) throw errors.forbidden();
  await ctx.db.transaction(async (tx) => {
    const gone = await deleteFileRow(tx, row.organization_sid, sid);
    // Not deleted: gone already, or attached to a row meanwhile (a cell's write came first).
    if (!gone) {
      const now = await findFile(tx, sid);
      if (now?.row_sid) throw errors.conflict(`The file is attached to the row ${now.row_sid}, whose versions refer to it: it stays as long as the row.`);
      return;
    }
    await subtractUsage(tx, row.organization_sid, Number(gone.size));
    // The grace period counts from now: an object is deleted only once nothing has named it for that long.
    await touchObject(tx, row.sha256);
  });
}

// Resumable uploads (issue 25): the tus protocol 1.0 (creation, creation-with-upload,
// termination, expiration) through @tus/server, its parts kept by @tus/file-store under
// FILES_DIR/resumable until the upload is whole. Then the bytes take the same way as a
// multipart upload's — read once more, hashed, sized and scanned on the way into the
// store (ingest.ts), committed by commitFile — and the final PATCH answers the file's
// descriptor (200). An unfinished upload is kept for its client to resume for
// FILES_RESUMABLE_HOURS, then deleted by the files' GC; a refused one at once.
//
//   POST   /files/upload/list/organization/{sid}/   Upload-Length, Upload-Metadata: filename <base64>
//                                                    (and row, column, replace: an upload to a file cell, row-upload.ts)
//   HEAD   /files/upload/detail/{id}/               Upload-Offset: how much arrived
//   PATCH  /files/upload/detail/{id}/               Upload-Offset, Content-Type: application/offset+octet-stream
//   DELETE /files/upload/detail/{id}/               gives up
//
// Each request is authenticated like any other; an upload is its creator's alone.
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Server } from '@tus/server';
import type { FileStore as TusFileStore } from '@tus/file-store';
import type { NodeRequest } from 'srvx/node';
import type { AppContext } from '../../context.js';
import type { Membership } from '../../core/access.js';
import type { Actor } from '../../core/auth.js';
import { attachTo, rowTargetOf } from './row-upload.js';
import { errors } from '../../core/errors.js';
import { commitFile, serializeFile, uploadLimits, uploadRefusal } from './service.js';
import { receive } from './ingest.js';
import { nameProblem } from './names.js';

const ID = /^[0-9a-f]{32}$/;
const OWNER = 'records_user';
const ORGANIZATION = 'records_organization';

/** Who is making a tus request, known before @tus/server sees it. */
interface Caller {
  actor: Actor;
  userSid: string;
  membership: Membership;
  /** The upload this request completed (a file now, or refused for good): its parts are deleted once answered. */
  finished?: string;
}

type TusError = { status_code: number; body: string };
const tusError = (status: number, detail: string): TusError => ({ status_code: status, body: JSON.stringify({ detail }) });

/** Turns any error of an upload into the tus error @tus/server answers with. */
function asTusError(err: unknown): TusError {
  const refusal = uploadRefusal(err);
  if (refusal) return { status_code: refusal.statusCode, body: JSON.stringify(refusal.body) };
  throw err;
}

/** The name an upload's metadata gives (tus clients send `filename`; some `name`). */
function nameOf(metadata: Record<string, string | null> | undefined): string | null {
  return metadata?.filename ?? metadata?.name ?? null;
}

/** @tus/server and its store, made on first use (their modules are not loaded at start-up). */
interface Tus {
  datastore: TusFileStore;
  server: Server;
  NodeRequest: typeof NodeRequest;
}

export class ResumableUploads {
  private loaded: Promise<Tus> | null = null;
  private readonly callers = new WeakMap<IncomingMessage, Caller>();

  constructor(private readonly ctx: AppContext) {}

  private tus(): Promise<Tus> {
    return (this.loaded ??= (async () => {
      const [{ Server }, { FileStore }, { NodeRequest }] = await Promise.all([import('@tus/server'), import('@tus/file-store'), import('srvx/node')]);
      const datastore = new FileStore({
        directory: path.join(this.ctx.files.config.dir, 'resumable'),
        expirationPeriodInMilliseconds: this.ctx.files.config.resumableHours * 3600 * 1000,
      });
      const server = new Server({
        path: '/files/upload',
        datastore,
        relativeLocation: true,
        generateUrl: (_req, { id }) => `/files/upload/detail/${id}/`,
        getFileIdFromRequest: (_req, last) => (last && ID.test(last) ? last : undefined),
        onUploadCreate: (req, upload) => this.onCreate(req, upload),
        onUploadFinish: (req, upload) => this.onFinish(req, upload, datastore),
      });
      return { datastore, server, NodeRequest };
    })());
  }

  private callerOf(req: unknown): Caller {
    const node = (req as { runtime?: { node?: { req: IncomingMessage } } }).runtime?.node?.req;
    const caller = node && this.callers.get(node);
    if (!caller) throw new Error('a tus request without its caller');
    return caller;
  }

  private async onCreate(req: unknown, upload: { size?: number; metadata?: Record<string, string | null> }) {
    const caller = this.callerOf(req);
    if (upload.size === undefined) throw tusError(400, 'Send Upload-Length: the size must be known when the upload is created.');
    const name = nameOf(upload.metadata);
    if (name === null) throw tusError(400, 'Send the file name in Upload-Metadata: filename <the name, base64>.');
    const problem = nameProblem(name);
    if (problem) throw tusError(400, problem);
    try {
      await uploadLimits(this.ctx, caller.membership.organizationSid, upload.size);
      await rowTargetOf(this.ctx, caller.actor, caller.membership.organizationSid, upload.metadata);
    } catch (err) {
      throw asTusError(err);
    }
    // Who owns the upload is ours to say, whatever the client put in its metadata.
    return { metadata: { ...upload.metadata, [OWNER]: caller.userSid, [ORGANIZATION]: caller.membership.organizationSid } };
  }

  private async onFinish(req: unknown, upload: { id: string; size?: number; metadata?: Record<string, string | null> }, datastore: TusFileStore) {
    const caller = this.callerOf(req);
    caller.finished = upload.id;
    try {
      const limits = await uploadLimits(this.ctx, caller.membership.organizationSid, upload.size);
      const received = await receive(datastore.read(upload.id), this.ctx.files.store, this.ctx.files.clamd, limits);
      // Checked again at the end: the row's state or the caller's role may have changed meanwhile.
      const target = await rowTargetOf(this.ctx, caller.actor, caller.membership.organizationSid, upload.metadata);
      const row = await commitFile(this.ctx, caller.membership, nameOf(upload.metadata)!, received, target && attachTo(this.ctx, caller.actor, target));
      return {
        status_code: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(serializeFile(row, 'detail', caller.membership)),
      };
    } catch (err) {
      throw asTusError(err);
    }
  }

  /**
   * The upload `id` if `userSid` created it: 404 for any other (an upload is nobody else's
   * business) or an unknown one. Returns the organization it is for.
   */
  async ownedBy(id: string, userSid: string): Promise<string> {
    if (!ID.test(id)) throw errors.notFound();
    const { datastore } = await this.tus();
    const upload = await datastore.getUpload(id).catch(() => null);
    if (!upload || upload.metadata?.[OWNER] !== userSid || !upload.metadata?.[ORGANIZATION]) throw errors.notFound();
    return upload.metadata[ORGANIZATION]!;
  }

  /** Hands an authenticated request to @tus/server and sends its answer, errors in the API's {"detail"} body. */
  async handle(request: FastifyRequest, reply: FastifyReply, caller: Caller) {
    const { datastore, server, NodeRequest } = await this.tus();
    this.callers.set(request.raw, caller);
    const response = await server.handleWeb(new NodeRequest({ req: request.raw, res: reply.raw }));
    // Whole, the upload is a file now or refused for good: its parts are not kept (not
    // before @tus/server has answered: it reads the upload once more after onUploadFinish).
    if (caller.finished) await datastore.remove(caller.finished).catch(() => {});
    reply.code(response.status);
    response.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'content-type') reply.header(name, value);
    });
    const text = response.body ? await response.text() : '';
    if (response.status >= 400) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = { detail: text.trim() || 'The upload was refused.' };
      }
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
    }
    if (!text) return reply.send();
    return reply.type(response.headers.get('content-type') ?? 'text/plain; charset=utf-8').send(text);
  }

  /** Deletes unfinished uploads past FILES_RESUMABLE_HOURS; returns how many. */
  async cleanUpExpired(): Promise<number> {
    return (await this.tus()).server.cleanUpExpiredUploads();
  }
}

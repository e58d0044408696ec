// Thumbnails (issue 25): a stored image gets a small WebP of itself, made in the background
// (jobs/thumbnails.ts) by sharp (libvips, prebuilt in its npm packages), and served at
// GET /files/file/thumbnail/{sid}/ by the file's own rules. A thumbnail belongs to the
// stored object (its SHA-256), so a file uploaded twice gets one; it is kept in the
// database (a few KB: backed up with it) and goes with the object (file_thumbnails'
// foreign key, when the GC deletes the object). Every object starts pending
// (file_objects.thumbnail_pending); the job looks at each once, whatever its type.
// PDFs get none: rendering a page takes a PDF library and a canvas binding that are
// not worth their weight here (docs/decisions.md, "Files: previews and thumbnails").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type SharpFactory from 'sharp';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { query, type Db } from '../../db/client.js';
import { actorOf } from '../../core/auth.js';
import { ApiError } from '../../core/errors.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { ErrorResponses } from '../../core/schemas.js';
import type { FileStore } from '../../storage/store.js';
import { DOWNLOAD_CSP } from './download.js';
import { loadFile } from './service.js';

/** The most pixels a thumbnail has a side. */
export const THUMBNAIL_PIXELS = 256;
/** The media types sharp reads (as sniff.ts names them). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/tiff', 'image/heic']);
/** Larger images are left without a thumbnail: their decoding would take more memory than the service may. */
const MAX_INPUT_PIXELS = 40_000_000;
const MAX_INPUT_BYTES = 64 * 1024 * 1024;

let loaded: Promise<typeof SharpFactory> | null = null;
/** sharp, loaded on the first image (libvips takes memory: a process that never sees one never loads it). */
function loadSharp(): Promise<typeof SharpFactory> {
  loaded ??= import('sharp').then(({ default: sharp }) => {
    // One image at a time, no cache of decoded images: the service's memory stays its own.
    sharp.concurrency(1);
    sharp.cache(false);
    return sharp;
  });
  return loaded;
}

/** Whether any object still waits for the job (the partial index on thumbnail_pending). */
export async function thumbnailsPending(db: Db): Promise<boolean> {
  return (await query(db, sql`SELECT 1 FROM file_objects WHERE thumbnail_pending LIMIT 1`)).length > 0;
}

/** The thumbnail of the bytes of an image, or null when it cannot be read as one. */
async function thumbnailOf(store: FileStore, sha256: string): Promise<{ bytes: Buffer; width: number; height: number } | null> {
  const sharp = await loadSharp();
  const source = await store.read(sha256);
  const image = sharp({ limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
    .rotate()
    .resize(THUMBNAIL_PIXELS, THUMBNAIL_PIXELS, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 80 });
  source.pipe(image);
  try {
    const { data, info } = await image.toBuffer({ resolveWithObject: true });
    return { bytes: data, width: info.width, height: info.height };
  } catch {
    source.destroy();
    return null;
  }
}

/**
 * Looks at the oldest pending object: an image (by its files' sniffed type) gets its
 * thumbnail; any object is then no longer pending. Returns whether there was one. Two
 * processes may look at the same object: both make the same thumbnail, one is kept.
 */
export async function makeNextThumbnail(db: Db, store: FileStore, log: { warn: (o: object, m: string) => void }): Promise<boolean> {
  const [next] = await query<{ sha256: string; size: string; media_type: string | null }>(db, sql`
    SELECT o.sha256, o.size, (SELECT f.media_type FROM files f WHERE f.sha256 = o.sha256 LIMIT 1) AS media_type
      FROM file_objects o WHERE o.thumbnail_pending ORDER BY o.date_stored LIMIT 1`);
  if (!next) return false;
  let made: Awaited<ReturnType<typeof thumbnailOf>> = null;
  if (next.media_type !== null && IMAGE_TYPES.has(next.media_type) && Number(next.size) <= MAX_INPUT_BYTES) {
    made = await thumbnailOf(store, next.sha256).catch((err: Error) => {
      log.warn({ sha256: next.sha256, err: err.message }, 'thumbnail: the object could not be read');
      return null;
    });
  }
  await db.transaction(async (tx) => {
    if (made) {
      await query(tx, sql`
        INSERT INTO file_thumbnails (sha256, media_type, bytes, width, height)
        SELECT sha256, 'image/webp', ${made.bytes}, ${made.width}, ${made.height} FROM file_objects WHERE sha256 = ${next.sha256}
        ON CONFLICT (sha256) DO NOTHING`);
    }
    await query(tx, sql`UPDATE file_objects SET thumbnail_pending = false WHERE sha256 = ${next.sha256}`);
  });
  return true;
}

const THUMBNAIL_URL = '/files/file/thumbnail/:sid/';

/** GET /files/file/thumbnail/{sid}/: who may download the file may see its thumbnail. */
export function registerThumbnails(app: FastifyInstance, ctx: AppContext): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { row } = await loadFile(ctx, actorOf(request), (request.params as { sid: string }).sid);
    const [found] = await query<{ media_type: string; bytes: Buffer }>(ctx.db, sql`
      SELECT media_type, bytes FROM file_thumbnails WHERE sha256 = ${row.sha256}`);
    if (!found) {
      const [object] = await query<{ thumbnail_pending: boolean }>(ctx.db, sql`SELECT thumbnail_pending FROM file_objects WHERE sha256 = ${row.sha256}`);
      throw new ApiError(404, {
        detail: object?.thumbnail_pending
          ? 'The thumbnail is not made yet (it is made in the background); try again shortly.'
          : 'This file has no thumbnail: only images have one.',
      });
    }
    const etag = `"thumbnail-${row.sha256}"`;
    reply.headers({ etag, 'cache-control': 'private, no-cache', 'content-security-policy': DOWNLOAD_CSP, 'cross-origin-resource-policy': 'same-origin' });
    if ((request.headers['if-none-match'] ?? '').split(',').map((t) => t.trim()).includes(etag)) return reply.code(304).send();
    const bytes = Buffer.from(found.bytes);
    reply.type(found.media_type).header('content-length', String(bytes.length));
    return reply.send(bytes);
  };
  app.get(THUMBNAIL_URL, {
    config: { operationId: 'fileThumbnail' },
    schema: {
      tags: ['files'],
      summary: "An image file's thumbnail (who may download the file)",
      description: `A WebP of at most ${THUMBNAIL_PIXELS} pixels a side, made in the background after the upload (jobs/thumbnails.ts). `
        + '404 while it is not made yet, and for a file that is not an image (PNG, JPEG, GIF, WebP, AVIF, TIFF, HEIC) or could not be read as one. '
        + 'ETag and If-None-Match (304) as the download.',
      params: Type.Object({ sid: Type.String({ description: 'the sid of the file' }) }),
      response: {
        200: { description: 'the thumbnail', content: { 'image/webp': { schema: Type.String({ format: 'binary' }) } } },
        304: { description: 'unchanged (If-None-Match)', type: 'null' },
        ...ErrorResponses,
      },
    },
  }, handler);
  refuseOtherMethods(app, THUMBNAIL_URL, ['GET']);
}

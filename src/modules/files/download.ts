// A file's bytes, streamed from storage (issue 25): Content-Length, the hash as ETag
// (If-None-Match answers 304), one Range (206; 416 when it lies past the end; several
// ranges get the whole file, which RFC 9110 allows), a Content-Disposition any name is
// safe in (RFC 6266 and 5987, by content-disposition), and the sniffed media type. Only
// types a browser shows without running the file's code are inline; HTML, SVG, XML,
// scripts and unknown bytes are attachments, and every answer carries a sandboxing
// Content-Security-Policy, so nothing a member uploads runs on the app's origin.
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { create as contentDisposition } from 'content-disposition';
import rangeParser from 'range-parser';
import type { FileStore } from '../../storage/store.js';
import { ObjectMissing } from '../../storage/store.js';
import { ApiError } from '../../core/errors.js';
import { downloadName } from './names.js';
import { isInlineSafe } from './sniff.js';
import type { FileRow } from './repository.js';

/** What a download may do in a browser: nothing but show itself (no script, no form, no plugin, no frame of ours). */
export const DOWNLOAD_CSP = "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'";

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').map((t) => t.trim().replace(/^W\//, '')).some((t) => t === '*' || t === etag);
}

/** Answers a GET or HEAD of a file's bytes. */
export async function sendFile(request: FastifyRequest, reply: FastifyReply, store: FileStore, file: FileRow, attachment: boolean) {
  const size = Number(file.size);
  const etag = `"${file.sha256}"`;
  if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).header('etag', etag).send();

  let range: { start: number; end: number } | undefined;
  const header = request.headers.range;
  const ifRange = request.headers['if-range'];
  if (header && (ifRange === undefined || ifRange === etag)) {
    const ranges = rangeParser(size, header, { combine: true });
    if (ranges === -1) {
      throw new ApiError(416, { detail: `The range is not within the file's ${size} bytes.` }, { 'content-range': `bytes */${size}` });
    }
    // -2 (malformed) and several ranges are answered with the whole file.
    if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) range = { start: ranges[0].start, end: ranges[0].end };
  }
  const length = range ? range.end - range.start + 1 : size;
  let body: Readable | null = null;
  if (request.method !== 'HEAD' && length > 0) {
    try {
      body = await store.read(file.sha256, range);
    } catch (err) {
      if (!(err instanceof ObjectMissing)) throw err;
      request.log.error({ file: file.sid, sha256: file.sha256 }, "a file's stored object is missing");
      throw new ApiError(500, { detail: "This file's bytes are missing from storage; the operator should restore them from a backup." });
    }
  }
  const inline = !attachment && isInlineSafe(file.media_type);
  reply.headers({
    etag,
    'accept-ranges': 'bytes',
    'cache-control': 'private, no-cache',
    'content-security-policy': DOWNLOAD_CSP,
    'cross-origin-resource-policy': 'same-origin',
    'content-disposition': contentDisposition(downloadName(file.name), { type: inline ? 'inline' : 'attachment' }),
    'content-length': String(length),
  });
  reply.type(file.media_type === 'text/plain' ? 'text/plain; charset=utf-8' : file.media_type);
  if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
  // A HEAD answer keeps the Content-Length of the GET (Fastify sets none for an empty HEAD payload).
  if (request.method === 'HEAD') return reply.send();
  return reply.send(body ?? '');
}

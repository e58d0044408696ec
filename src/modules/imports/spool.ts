// An upload's body to a temporary file, as it arrives (an import reads its file twice).
import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';

/** Writes the request's body to `file`, refusing (413) past `max` bytes. */
export async function spool(request: FastifyRequest, file: string, max: number): Promise<void> {
  let size = 0;
  const bound = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > max) done(new ApiError(413, { detail: `The file is larger than ${max} bytes (FILE_MAX_BYTES).` }));
      else done(null, chunk);
    },
  });
  await pipeline(request.raw, bound, fs.createWriteStream(file));
}


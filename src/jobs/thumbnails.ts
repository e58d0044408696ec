// Thumbnails as a job of every process (modules/files/thumbnails.ts): every 2 s it asks
// whether a stored object waits (one indexed look-up, not traced), and then makes thumbnails
// one object at a time until none waits. Several processes at once may make the same
// thumbnail twice; one is kept.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import type { FileStorage } from '../storage/index.js';
import { makeNextThumbnail, thumbnailsPending } from '../modules/files/thumbnails.js';
import type { JobSpec } from './registry.js';

export function thumbnailsJob(options: { db: Db; files: FileStorage; log: FastifyBaseLogger }): JobSpec {
  return {
    name: 'thumbnails',
    everySeconds: 2,
    due: () => thumbnailsPending(options.db),
    run: async () => ({ again: await makeNextThumbnail(options.db, options.files.store, options.log) }),
  };
}

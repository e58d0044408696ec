// The files' GC as a job of every process (FILES_GC_SECONDS): unreferenced stored objects
// past FILES_GC_GRACE_SECONDS (modules/files/gc.ts) and unfinished resumable uploads past
// FILES_RESUMABLE_HOURS. Several processes at once skip each other's rows.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import type { FileStorage } from '../storage/index.js';
import { collectGarbage } from '../modules/files/gc.js';
import type { JobSpec } from './registry.js';

/** The job; `expireResumable` deletes unfinished resumable uploads past their time and returns how many. */
export function filesGcJob(options: {
  db: Db; files: FileStorage; log: FastifyBaseLogger; expireResumable: () => Promise<number>;
}): JobSpec {
  const { config } = options.files;
  return {
    name: 'files-gc',
    everySeconds: config.gcEverySeconds,
    firstSeconds: Math.min(60, config.gcEverySeconds),
    run: async () => {
      const collected = await collectGarbage(options.db, options.files.store, config.gcGraceSeconds);
      const resumable = await options.expireResumable();
      if (collected.objects || collected.temporary || resumable) options.log.info({ ...collected, resumable }, 'files GC: deleted');
    },
  };
}

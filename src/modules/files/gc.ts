// The files' GC (docs/decisions.md, "Files: the GC"): a stored object is deleted only when
// no file descriptor names its hash any more and it has been so for the grace period.
// It never deletes what an upload is putting in place: both take the object's row in
// file_objects FOR UPDATE, and an upload puts its object (or finds it) only under that
// lock, so an upload either comes first (the object has a fresh date, or a descriptor,
// and stays) or after (it puts the object back). Part b makes versions refer to files
// through descriptors that are then never deleted, so "referred to" stays one question:
// does a descriptor name this hash.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import type { FileStore } from '../../storage/store.js';

export interface Collected {
  /** Stored objects deleted: no descriptor named them for the grace period. */
  objects: number;
  /** Temporary objects of writes that never finished (a crash mid-upload). */
  temporary: number;
}

/** One pass: deletes unreferenced objects older than `graceSeconds`, and temporary ones older than that too. */
export async function collectGarbage(db: Db, store: FileStore, graceSeconds: number): Promise<Collected> {
  const temporary = await store.sweepTemporary(new Date(Date.now() - graceSeconds * 1000));
  let objects = 0;
  for (;;) {
    const deleted = await db.transaction(async (tx) => {
      const [found] = await query<{ sha256: string }>(tx, sql`
        SELECT o.sha256 FROM file_objects o
         WHERE o.date_stored < now() - make_interval(secs => ${graceSeconds})
           AND NOT EXISTS (SELECT 1 FROM files f WHERE f.sha256 = o.sha256)
         ORDER BY o.date_stored LIMIT 1
         FOR UPDATE SKIP LOCKED`);
      if (!found) return false;
      await store.remove(found.sha256);
      await query(tx, sql`DELETE FROM file_objects WHERE sha256 = ${found.sha256}`);
      return true;
    });
    if (!deleted) break;
    objects += 1;
  }
  return { objects, temporary };
}

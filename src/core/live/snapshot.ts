// When a stream opened, as the database sees it: the snapshot of its opening
// (pg_current_snapshot()). An access change carries its transaction's id (xid); one that
// the opening snapshot sees had committed before the stream opened, and the stream's
// client was not there to be told of it (its standing at opening counts it already).
// A notice can arrive late: the LISTEN connection hears it a moment after its commit, and
// a stream opened in that moment would otherwise report a change older than itself.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';

/** A pg_snapshot: transactions below `xmin` are done, from `xmax` on not yet; `running` were in progress. */
export interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  running: Set<bigint>;
}

/** Reads pg_snapshot's text form, `xmin:xmax:xip,xip,…`; null when it is not one. */
export function parseSnapshot(text: string): Snapshot | null {
  const match = /^(\d+):(\d+):([\d,]*)$/.exec(text);
  if (!match) return null;
  return { xmin: BigInt(match[1]), xmax: BigInt(match[2]), running: new Set(match[3] ? match[3].split(',').map(BigInt) : []) };
}

/** Had transaction `xid` (pg_current_xact_id()'s text) committed when `snapshot` was taken? (pg_visible_in_snapshot, in TypeScript.) */
export function committedBefore(xid: string | undefined, snapshot: Snapshot | null): boolean {
  if (!snapshot || !xid || !/^\d+$/.test(xid)) return false;
  const id = BigInt(xid);
  return id < snapshot.xmin || (id < snapshot.xmax && !snapshot.running.has(id));
}

/** The database's snapshot now (null when it cannot be read: every notice is then told). */
export async function snapshotNow(db: Db): Promise<Snapshot | null> {
  try {
    const [row] = await query<{ snapshot: string }>(db, sql`SELECT pg_current_snapshot()::text AS snapshot`);
    return row ? parseSnapshot(row.snapshot) : null;
  } catch {
    return null;
  }
}

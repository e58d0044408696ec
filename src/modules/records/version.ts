// The row's next version (records_append_version: the row's data and cells snapshotted, the
// hash chained) and its live event: part of applying a change, since the version is the
// change's record (its consequences name it). A cell write appends both in the statement
// that writes the cell (cells.ts: one round trip); the writes of a row's own fields and of
// its sections append them here.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { newSid } from '../../core/ids.js';
import { emitRowChange, type RowChange } from './events.js';

/** Appends the row's next version for `activity` and announces `changes` on the record stream; the version's number. */
export async function appendVersionAndEvent(tx: Db, rowSid: string, userSid: string, activity: string, changes: RowChange[]): Promise<number> {
  const [row] = await query<{ version: number }>(tx, sql`SELECT version FROM records_append_version(${newSid()}, ${rowSid}, ${userSid}, ${activity})`);
  await emitRowChange(tx, { rowSid, userSid, version: row.version, changes });
  return row.version;
}

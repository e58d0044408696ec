import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { newSid } from '../../core/ids.js';
import { notifyRecordChange } from '../notifications/record-change.js';

/**
 * Appends the row's next version in the caller's transaction (records_append_version:
 * locks the row, snapshots its data and cells, chains the hash), and notifies the row's
 * creator of the change when they want it (in the same transaction). Returns its number.
 */
export async function appendVersion(tx: Db, rowSid: string, userSid: string, activityMessage: string): Promise<number> {
  const [row] = await query<{ version: number }>(tx,
    sql`SELECT version FROM records_append_version(${newSid()}, ${rowSid}, ${userSid}, ${activityMessage})`);
  await notifyRecordChange(tx, { rowSid, userSid, version: row.version, activityMessage });
  return row.version;
}

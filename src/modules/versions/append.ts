import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { newSid } from '../../core/ids.js';

/**
 * Appends the row's next version in the caller's transaction (records_append_version:
 * locks the row, snapshots its data and cells, chains the hash). Returns its number.
 */
export async function appendVersion(tx: Db, rowSid: string, userSid: string, activityMessage: string): Promise<number> {
  const [row] = await query<{ version: number }>(tx,
    sql`SELECT version FROM records_append_version(${newSid()}, ${rowSid}, ${userSid}, ${activityMessage})`);
  return row.version;
}

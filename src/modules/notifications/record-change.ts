// Record changes: a change to a row notifies the member who created it.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { sendNotifications } from './send.js';
import { readsRow } from '../../core/rules.js';

/**
 * Notifies, in the caller's transaction, the creator of row `rowSid` that `userSid`
 * changed it (version `version`, described by `activityMessage`), when the creator is
 * someone else, still an active member who may read the row, and their
 * should_receive_record_change_notification is on. Returns the notification's sids.
 */
export async function notifyRecordChange(tx: Db, change: { rowSid: string; userSid: string; version: number; activityMessage: string }): Promise<string[]> {
  if (change.version <= 1) return [];
  const [found] = await query<{ organization_sid: string; row_name: string; creator_sid: string; author_sid: string | null; author_name: string | null }>(tx, sql`
    SELECT r.organization_sid, r.name AS row_name, c.sid AS creator_sid, a.sid AS author_sid,
           coalesce(nullif(trim(a.first_name || ' ' || a.last_name), ''), a.email) AS author_name
      FROM record_rows r
      JOIN personnel c ON c.organization_sid = r.organization_sid AND c.user_sid = r.created_by
      LEFT JOIN personnel a ON a.organization_sid = r.organization_sid AND a.user_sid = ${change.userSid}
     WHERE r.sid = ${change.rowSid} AND r.created_by <> ${change.userSid}
       AND c.should_receive_record_change_notification
       AND ${readsRow.forPersonnel('c', sql`r.sid`, sql`r.project_sid`)}`);
  if (!found) return [];
  const who = found.author_name ?? 'Someone';
  return sendNotifications(tx, {
    organizationSid: found.organization_sid,
    senderSid: found.author_sid,
    recipientSids: [found.creator_sid],
    name: `${who} changed ${found.row_name}`.slice(0, 255),
    body: `${who} changed ${found.row_name}, which you created (version ${change.version}): ${change.activityMessage}`,
    rows: [{ sid: change.rowSid, name: found.row_name }],
  });
}

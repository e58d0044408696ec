// Mentions: "@<personnel sid>" or "@<email>" in a cell notifies that member of the
// organization, once, when the mention first appears in the cell.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { sendNotifications } from './send.js';
import { readsRow } from '../../core/rules.js';
import { emailKeySql, normalizeEmail } from '../../core/email.js';

// "@" not preceded by a character of an email address or sid, so "bob@example.com" mentions no one.
const SID_MENTION = /(?<![0-9A-Za-z@._%+-])@([0-9A-Za-z]{16})(?![0-9A-Za-z@._%+-])/g;
const EMAIL_MENTION = /(?<![0-9A-Za-z@._%+-])@([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)/g;
const EXCERPT = 1000;

/** The personnel sids and the keys of the emails (core/email.ts) mentioned in a text. */
export function mentionsIn(text: string): { sids: Set<string>; emails: Set<string> } {
  const sids = new Set<string>();
  const emails = new Set<string>();
  if (!text.includes('@')) return { sids, emails };
  for (const m of text.matchAll(SID_MENTION)) sids.add(m[1]);
  for (const m of text.matchAll(EMAIL_MENTION)) emails.add(normalizeEmail(m[1]));
  return { sids, emails };
}

export interface CellChange {
  organizationSid: string;
  row: { sid: string; name: string; project_sid: string };
  columnName: string;
  authorUserSid: string;
  /** the cell's data before the change ('' for a new cell) */
  before: string;
  after: string;
}

/**
 * Notifies, in the caller's transaction, the members mentioned in `after` but not in
 * `before`: active personnel of the organization who may read the row (an Admin or a
 * member of its project), whose should_receive_mention_notification is on, other than
 * the author. Returns the notifications' sids.
 */
export async function notifyMentions(tx: Db, change: CellChange): Promise<string[]> {
  const now = mentionsIn(change.after);
  if (!now.sids.size && !now.emails.size) return [];
  const earlier = mentionsIn(change.before);
  const sids = [...now.sids].filter((s) => !earlier.sids.has(s));
  const emails = [...now.emails].filter((e) => !earlier.emails.has(e));
  if (!sids.length && !emails.length) return [];
  const list = (values: string[]) => (values.length ? sql.join(values.map((v) => sql`${v}`), sql`, `) : sql`NULL`);
  const people = await query<{ sid: string; is_author: boolean; name: string; wants: boolean }>(tx, sql`
    SELECT p.sid, p.user_sid = ${change.authorUserSid} AS is_author, p.should_receive_mention_notification AS wants,
           coalesce(nullif(trim(p.first_name || ' ' || p.last_name), ''), p.email) AS name
      FROM personnel p
     WHERE p.organization_sid = ${change.organizationSid}
       AND (p.user_sid = ${change.authorUserSid} OR (
             (p.sid IN (${list(sids)}) OR ${emailKeySql(sql`p.email`)} IN (${list(emails)}))
         AND ${readsRow.forPersonnel('p', sql`${change.row.sid}`, sql`${change.row.project_sid}`)}))`);
  const author = people.find((p) => p.is_author);
  const recipients = people.filter((p) => !p.is_author && p.wants).map((p) => p.sid);
  if (!recipients.length) return [];
  const excerpt = change.after.length > EXCERPT ? `${change.after.slice(0, EXCERPT)}…` : change.after;
  return sendNotifications(tx, {
    organizationSid: change.organizationSid,
    senderSid: author?.sid ?? null,
    recipientSids: recipients,
    name: `${author?.name ?? 'Someone'} mentioned you in ${change.row.name}`.slice(0, 255),
    body: `In the cell of ${change.columnName} of ${change.row.name}:\n\n${excerpt}`,
    rows: [{ sid: change.row.sid, name: change.row.name }],
  });
}

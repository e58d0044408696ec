import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { emailKeySql, normalizeEmail } from '../core/email.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  body: string;
  /** The HTML alternative of `body` (mail/compose.ts); without it the worker writes one from the text. */
  html?: string;
  /**
   * Whose address `to` is. Mail goes only to an address its user has proved
   * (proven_addresses); anything else is dropped here, whoever asked for it.
   * 'proof': the message itself proves the address (an address proof, an invitation,
   * a password reset link), so it may go to an unproven one.
   */
  recipient: { userSid: string } | 'proof';
}

/**
 * The one rule of who gets mail: an address the user proved to be theirs, as SQL over a
 * user sid and an address (written once; used here and to choose digest recipients).
 * Addresses are compared by their keys (core/email.ts): a value given here is normalized
 * by the process, a column by emailKeySql.
 */
export function provenAddress(userSid: unknown, email: string | SQL) {
  const key = typeof email === 'string' ? normalizeEmail(email) : emailKeySql(email);
  return sql`EXISTS (SELECT 1 FROM proven_addresses pa WHERE pa.user_sid = ${userSid} AND pa.email = ${key})`;
}

/**
 * Queues mail in the caller's transaction: it is sent (by the mail worker) only if
 * that transaction commits, and a crash after the commit never loses it. A message to an
 * address its user has not proved is not queued (except a proof, see OutgoingMail).
 */
export async function enqueueMail(tx: Db, mail: OutgoingMail | OutgoingMail[]): Promise<void> {
  const list = Array.isArray(mail) ? mail : [mail];
  if (!list.length) return;
  const rows = list.map((m) => sql`(${m.to}::text, ${m.subject}::text, ${m.body}::text, ${m.html ?? null}::text,
    ${m.recipient === 'proof' ? null : m.recipient.userSid}::text, ${m.recipient === 'proof'}::boolean)`);
  await tx.execute(enqueueMailSql(sql`VALUES ${sql.join(rows, sql`, `)}`));
}

/**
 * The statement of enqueueMail over `rows`, a query of (to_address, subject, body, html,
 * user_sid, is_proof), for a caller that queues mail inside a larger statement (a CTE
 * that also writes what the mail is about). Returns a row per message queued.
 */
export function enqueueMailSql(rows: SQL): SQL {
  return sql`
    INSERT INTO mail_outbox (to_address, subject, body, html)
    SELECT m.to_address, m.subject, m.body, m.html FROM (${rows}) AS m(to_address, subject, body, html, user_sid, is_proof)
     WHERE m.is_proof OR ${provenAddress(sql`m.user_sid`, sql`m.to_address`)}
    RETURNING id`;
}

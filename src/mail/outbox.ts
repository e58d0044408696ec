import { mailOutbox } from '../db/schema.js';
import type { Db } from '../db/client.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  body: string;
}

/**
 * Queues mail in the caller's transaction: it is sent (by the mail worker) only if
 * that transaction commits, and a crash after the commit never loses it.
 */
export async function enqueueMail(tx: Db, mail: OutgoingMail | OutgoingMail[]): Promise<void> {
  const list = Array.isArray(mail) ? mail : [mail];
  if (!list.length) return;
  await tx.insert(mailOutbox).values(list.map((m) => ({ toAddress: m.to, subject: m.subject, body: m.body })));
}

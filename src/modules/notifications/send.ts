// Sending notifications inside the caller's transaction: one notification per recipient,
// and an outbox mail for those who want notification emails (or when the sender asks).
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { newSid } from '../../core/ids.js';
import { notifications, personnel } from '../../db/schema.js';
import { enqueueMail } from '../../mail/outbox.js';

export interface NotificationInput {
  organizationSid: string;
  /** The sender's personnel sid (null: the service itself). */
  senderSid: string | null;
  /** Personnel sids of the organization. */
  recipientSids: string[];
  name: string;
  body: string;
  rows?: { sid: string; name: string }[];
  parentSid?: string | null;
  /** Email every recipient, whatever their should_receive_notification_email. */
  shouldEmail?: boolean;
}

/**
 * Creates one notification per recipient (each named once) in the caller's transaction
 * and queues their emails; returns the new notification sids. Recipients must be
 * personnel of the organization, else 400 on `to`.
 */
export async function sendNotifications(tx: Db, input: NotificationInput): Promise<string[]> {
  const recipientSids = [...new Set(input.recipientSids)];
  if (!recipientSids.length) throw errors.field('to', 'Name at least one recipient.');
  const found = await tx.select({ sid: personnel.sid, email: personnel.email, wantsEmail: personnel.shouldReceiveNotificationEmail })
    .from(personnel)
    .where(and(eq(personnel.organizationSid, input.organizationSid), inArray(personnel.sid, recipientSids)));
  const known = new Set(found.map((p) => p.sid));
  const unknown = recipientSids.filter((sid) => !known.has(sid));
  if (unknown.length) throw errors.field('to', `Not personnel of this organization: ${unknown.join(', ')}.`);

  const sids = recipientSids.map(() => newSid());
  await tx.insert(notifications).values(recipientSids.map((recipientSid, i) => ({
    sid: sids[i],
    organizationSid: input.organizationSid,
    senderSid: input.senderSid,
    recipientSid,
    parentSid: input.parentSid ?? null,
    name: input.name,
    body: input.body,
    rows: input.rows ?? [],
    shouldEmail: input.shouldEmail ?? false,
  })));
  await enqueueMail(tx, found
    .filter((p) => input.shouldEmail || p.wantsEmail)
    .map((p) => ({ to: p.email, subject: input.name, body: input.body })));
  return sids;
}

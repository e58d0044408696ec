// Sending notifications: the one way any part of the service (the API, mentions, record
// changes, the workflow engine) notifies members. Everything happens in the caller's
// transaction: the notifications, their outbox mail and the live event commit together.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { notifications } from '../../db/schema.js';
import { newSid } from '../../core/ids.js';
import { errors } from '../../core/errors.js';
import { enqueueMail } from '../../mail/outbox.js';
import { activeMember } from '../../core/rules.js';

/** The PostgreSQL channel of live notification events (see live.ts). */
export const NOTIFICATION_CHANNEL = 'records_notifications';
const MAX_PAYLOAD_BYTES = 7_500;

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

/** The payload of one live event: who it is for, and the notification in the list shape. */
export interface LiveEvent {
  sid: string;
  organization_sid: string;
  /** the recipient's user sid: live streams are per signed-in user */
  user_sid: string;
  /** whether mail was queued with it (the mail worker is woken up) */
  email: boolean;
  item: { sid: string; name: string; From: { sid: string; name: string } | null; is_read: boolean; change_permission: boolean };
}

interface Recipient { sid: string; user_sid: string; email: string; name: string; wants_email: boolean }

const NAME = sql`coalesce(nullif(trim(p.first_name || ' ' || p.last_name), ''), p.email)`;

/**
 * Sends a notification to each recipient (one copy per distinct recipient), in the
 * caller's transaction `tx`: queues an email for each recipient whose
 * should_receive_notification_email is on, or for every recipient when `shouldEmail`;
 * and emits the live event with pg_notify, which listeners hear only after commit (on
 * PGlite too). No recipient, or one that is not personnel of the organization: 400 on
 * `to`. Personnel who are no longer active members (archived, past date_end) are
 * skipped. A sender must be personnel of the organization. Returns the sids of the
 * notifications created, in the order of `recipientSids`.
 */
export async function sendNotifications(tx: Db, input: NotificationInput): Promise<string[]> {
  const wanted = [...new Set(input.recipientSids)];
  if (!wanted.length) throw errors.field('to', 'Name at least one recipient.');
  const org = input.organizationSid;
  const found = await query<Recipient & { active: boolean }>(tx, sql`
    SELECT p.sid, p.user_sid, p.email, ${NAME} AS name, p.should_receive_notification_email AS wants_email,
           ${activeMember.sql('p')} AS active
      FROM personnel p
     WHERE p.organization_sid = ${org} AND p.sid IN (${sql.join(wanted.map((s) => sql`${s}`), sql`, `)})`);
  const bySid = new Map(found.map((r) => [r.sid, r]));
  const unknown = wanted.filter((s) => !bySid.has(s));
  if (unknown.length) throw errors.field('to', `Not personnel of this organization: ${unknown.join(', ')}.`);
  const recipients = wanted.map((s) => bySid.get(s)!).filter((r) => r.active);
  if (!recipients.length) return [];

  let from: { sid: string; name: string } | null = null;
  if (input.senderSid) {
    const [sender] = await query<{ sid: string; name: string }>(tx, sql`
      SELECT p.sid, ${NAME} AS name FROM personnel p WHERE p.sid = ${input.senderSid} AND p.organization_sid = ${org}`);
    if (!sender) throw new Error(`sendNotifications: the sender ${input.senderSid} is not personnel of organization ${org}`);
    from = sender;
  }
  const [{ organization }] = await query<{ organization: string }>(tx, sql`SELECT name AS organization FROM organizations WHERE sid = ${org}`);

  const rows = input.rows ?? [];
  const created = recipients.map((r) => ({ sid: newSid(), recipient: r, email: Boolean(input.shouldEmail) || r.wants_email }));
  await tx.insert(notifications).values(created.map((c) => ({
    sid: c.sid,
    organizationSid: org,
    senderSid: from?.sid ?? null,
    recipientSid: c.recipient.sid,
    parentSid: input.parentSid ?? null,
    name: input.name,
    body: input.body,
    rows,
    shouldEmail: Boolean(input.shouldEmail),
  })));

  await enqueueMail(tx, created.filter((c) => c.email).map((c) => ({
    to: c.recipient.email,
    subject: input.name,
    body: mailBody(organization, from, input, c.sid),
    recipient: { userSid: c.recipient.user_sid },
  })));

  const events: LiveEvent[] = created.map((c) => ({
    sid: c.sid,
    organization_sid: org,
    user_sid: c.recipient.user_sid,
    email: c.email,
    item: { sid: c.sid, name: input.name, From: from, is_read: false, change_permission: true },
  }));
  await tx.execute(sql`SELECT pg_notify(${NOTIFICATION_CHANNEL}, e.payload)
    FROM (VALUES ${sql.join(events.map((e) => sql`(${payloadOf(e)}::text)`), sql`, `)}) AS e(payload)`);
  return created.map((c) => c.sid);
}

/**
 * The event as pg_notify carries it. A payload must stay under 8000 bytes: the subject
 * and sender name of an (unusually) long one are shortened in the event only.
 */
function payloadOf(event: LiveEvent): string {
  const text = JSON.stringify(event);
  if (Buffer.byteLength(text) < MAX_PAYLOAD_BYTES) return text;
  const cut = (value: string) => (value.length > 500 ? `${value.slice(0, 500)}…` : value);
  const { item } = event;
  return JSON.stringify({ ...event, item: { ...item, name: cut(item.name), From: item.From && { ...item.From, name: cut(item.From.name) } } });
}

function mailBody(organization: string, from: { name: string } | null, input: NotificationInput, sid: string): string {
  const lines = [
    `${from ? from.name : 'The Records Service'} sent you a notification in ${organization}:`,
    '',
    input.name,
    '',
    input.body,
  ];
  if (input.rows?.length) lines.push('', 'About:', ...input.rows.map((r) => `  - ${r.name} (${r.sid})`));
  lines.push('', `Read it in the Records Service: GET /notifications/notification/detail/${sid}/`, '',
    'You receive this email because the sender asked for it or your settings (should_receive_notification_email) say so.');
  return lines.join('\n');
}

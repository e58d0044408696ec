// Sending notifications: the one way any part of the service (the API, mentions, record
// changes, the workflow engine) notifies members. Everything happens in the caller's
// transaction: the notifications and their outbox mail commit together, and the live
// events are sent once they have (db/after-commit.ts).
import { sql, type SQL } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { notifyAfterCommit } from '../../db/after-commit.js';
import { newSid } from '../../core/ids.js';
import { errors } from '../../core/errors.js';
import { enqueueMailSql } from '../../mail/outbox.js';
import { plainName, plainNameSql, plainText } from '../../mail/compose.js';
import { activeMember } from '../../core/rules.js';
import { permissions } from '../../core/permissions.js';
import { takeHitsSql } from '../../core/rate-limit.js';
import { isoTimestamp } from '../../core/sql.js';
import type { NotificationRow } from './repository.js';

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

const NAME = sql`coalesce(nullif(trim(p.first_name || ' ' || p.last_name), ''), p.email)`;
/** The longest a notification's subject is quoted in its mail (then cut with "…"). */
const SUBJECT_MAX = 120;
/** The longest a notification's body is quoted in its mail. */
const BODY_MAX = 2_000;

/**
 * Rule: whether a notification is mailed to the recipient `alias` (a personnel row joined
 * with the notification's `i.should_email`). Only after the person accepted the organization
 * (personnel/consent.ts); then their own choice of should_receive_notification_email wins,
 * and a sender's should_email mails only those who never chose (the spec's "regardless of the
 * recipient's email settings", for settings left as they came). docs/decisions.md, "Consent before mail".
 */
export const MAILED = {
  sql: (alias: string, shouldEmail: boolean): SQL => sql`(${sql.raw(alias)}.date_accepted IS NOT NULL AND (${sql.raw(alias)}.should_receive_notification_email
    OR (${shouldEmail}::boolean AND NOT ${sql.raw(alias)}.notification_email_chosen)))`,
};

/** What a sender asks of a notification beyond sendNotifications' own rules (the API's POST). */
export interface SendConditions {
  /** Write nothing unless every recipient is an active member (otherwise former members are skipped). */
  activeOnly?: boolean;
  /** Write nothing unless `parentSid` is a notification of the organization this personnel may read. */
  parentReader?: string;
  /** Take `n` from a mail quota (core/rate-limit.ts); write nothing when it does not fit. */
  quota?: { key: string; n: number; max: number; windowSeconds: number };
}

/** What the statement found and did. Nothing is written unless every condition held. */
export interface SendOutcome {
  /** Each distinct recipient, in the order asked: whether they are personnel of the organization, an active member, and their copy. */
  recipients: { sid: string; known: boolean; active: boolean; notification: NotificationRow | null }[];
  senderFound: boolean;
  parentFound: boolean;
  quotaTaken: boolean;
  written: boolean;
}

/**
 * Sends a notification to each recipient (one copy per distinct recipient), in the
 * caller's transaction `tx`: queues an email for each recipient whose
 * should_receive_notification_email is on, or for every recipient when `shouldEmail`;
 * and sends each recipient's live event once the transaction has committed
 * (db/after-commit.ts; on PGlite too). No recipient, or one that is not personnel of the
 * organization: 400 on `to`. Personnel who are no longer active members (archived, past
 * date_end) are skipped. A sender must be personnel of the organization. Returns the sids of the
 * notifications created, in the order of `recipientSids`. One statement, one round trip.
 */
export async function sendNotifications(tx: Db, input: NotificationInput): Promise<string[]> {
  if (!input.recipientSids.length) throw errors.field('to', 'Name at least one recipient.');
  const outcome = await sendInOneStatement(tx, input);
  const unknown = outcome.recipients.filter((r) => !r.known).map((r) => r.sid);
  if (unknown.length) throw errors.field('to', `Not personnel of this organization: ${unknown.join(', ')}.`);
  if (!outcome.senderFound && outcome.recipients.some((r) => r.active)) {
    throw new Error(`sendNotifications: the sender ${input.senderSid} is not personnel of organization ${input.organizationSid}`);
  }
  return outcome.recipients.flatMap((r) => (r.notification ? [r.notification.sid] : []));
}

/**
 * Checks and sends a notification in a single statement: the recipients, the sender,
 * the parent and the mail quota are read and taken, the notifications, their outbox mail
 * and their live events written, and the new copies returned, all at once. A single
 * statement is atomic (its own transaction when `db` is not one), so nothing is written
 * unless every check held, and the caller learns from the outcome which one failed.
 */
export async function sendInOneStatement(db: Db, input: NotificationInput, conditions: SendConditions = {}): Promise<SendOutcome> {
  const wanted = [...new Set(input.recipientSids)];
  if (!wanted.length) throw errors.field('to', 'Name at least one recipient.');
  const org = input.organizationSid;
  const rows = input.rows ?? [];
  const shouldEmail = Boolean(input.shouldEmail);
  const parentSid = input.parentSid ?? null;
  const wantedRows = wanted.map((sid, i) => sql`(${i}::int, ${sid}::text, ${newSid()}::text)`);
  const parentRule = conditions.parentReader === undefined ? sql`TRUE` : permissions.notification.readSql(conditions.parentReader, 'n');
  const recipientsOk = conditions.activeOnly
    ? sql`NOT EXISTS (SELECT 1 FROM found WHERE NOT active)`
    : sql`NOT EXISTS (SELECT 1 FROM found WHERE user_sid IS NULL)`;
  const parentOk = conditions.parentReader === undefined ? sql`TRUE` : sql`EXISTS (SELECT 1 FROM parent)`;
  const checked = sql`(SELECT recipients_ok AND sender_ok AND parent_ok FROM checked)`;
  const quota = conditions.quota;
  const from = sql`coalesce(s.name, 'The Records Service')`;
  const item = (name: SQL, fromName: SQL) => sql`json_build_object('sid', m.sid, 'organization_sid', i.org, 'user_sid', f.user_sid,
    'email', coalesce(f.mailable, false),
    'item', json_build_object('sid', m.sid, 'name', ${name},
      'From', CASE WHEN s.sid IS NULL THEN NULL ELSE json_build_object('sid', s.sid, 'name', ${fromName}) END,
      'is_read', false, 'change_permission', true))::text`;
  const cut = (value: SQL) => sql`CASE WHEN length(${value}) > 500 THEN left(${value}, 500) || '…' ELSE ${value} END`;
  const [first, ...others] = await query<{
    ord: number; sid: string; user_sid: string | null; active: boolean; notification: string | null;
    date_created: string | null; date_updated: string | null;
    recipients_ok: boolean; sender_ok: boolean; parent_ok: boolean; quota_taken: boolean;
    sender_sid: string | null; sender_user_sid: string | null; sender_name: string | null; parent_name: string | null;
    mailed: number; events: string[] | null;
  }>(db, sql`
    WITH input AS (
      SELECT ${org}::text AS org, ${input.senderSid}::text AS sender, ${input.name}::text AS name, ${input.body}::text AS body,
             ${JSON.stringify(rows)}::jsonb AS rows, ${parentSid}::text AS parent, ${shouldEmail}::boolean AS should_email
    ),
    wanted (ord, sid, new_sid) AS (VALUES ${sql.join(wantedRows, sql`, `)}),
    found AS (
      SELECT w.ord, w.sid, w.new_sid, p.user_sid, p.email, ${NAME} AS name,
             p.should_receive_notification_email AS wants_email, coalesce(${activeMember.sql('p')}, false) AS active,
             ${MAILED.sql('p', shouldEmail)} AS mailable
        FROM wanted w LEFT JOIN personnel p ON p.sid = w.sid AND p.organization_sid = ${org}
    ),
    sender AS (SELECT p.sid, p.user_sid, ${NAME} AS name FROM personnel p WHERE p.sid = ${input.senderSid}::text AND p.organization_sid = ${org}),
    parent AS (
      SELECT n.sid, n.name FROM notifications n
       WHERE n.sid = ${parentSid}::text AND n.organization_sid = ${org} AND ${parentRule}
    ),
    checked AS (
      SELECT ${recipientsOk} AS recipients_ok,
             (${input.senderSid}::text IS NULL OR EXISTS (SELECT 1 FROM sender)) AS sender_ok,
             ${parentOk} AS parent_ok
    ),
    quota AS (${quota ? takeHitsSql(quota.key, quota.n, quota.max, quota.windowSeconds, checked) : sql`SELECT 1 WHERE ${checked}`}),
    go AS (SELECT EXISTS (SELECT 1 FROM quota) AS ok),
    made AS (
      INSERT INTO notifications (sid, organization_sid, sender_sid, recipient_sid, parent_sid, name, body, rows, should_email)
      SELECT f.new_sid, i.org, i.sender, f.sid, i.parent, i.name, i.body, i.rows, i.should_email
        FROM found f, input i WHERE f.active AND (SELECT ok FROM go)
      RETURNING sid, date_created, date_updated
    ),
    mailed AS (${enqueueMailSql(sql`
      SELECT f.email, ${plainName(input.name, SUBJECT_MAX)}::text, ${mailBody(plainNameSql(sql`o.name`), plainNameSql(from), input, sql`m.sid`)}, NULL::text, f.user_sid, false
        FROM made m JOIN found f ON f.new_sid = m.sid CROSS JOIN input i
        JOIN organizations o ON o.sid = i.org LEFT JOIN sender s ON TRUE
       WHERE f.mailable`)}),
    events AS (
      SELECT f.ord, CASE WHEN octet_length(e.payload) < ${MAX_PAYLOAD_BYTES} THEN e.payload ELSE e.shortened END AS payload
        FROM made m JOIN found f ON f.new_sid = m.sid CROSS JOIN input i LEFT JOIN sender s ON TRUE,
             LATERAL (SELECT ${item(sql`i.name`, sql`s.name`)} AS payload, ${item(cut(sql`i.name`), cut(sql`s.name`))} AS shortened) e
    )
    SELECT f.ord, f.sid, f.user_sid, f.active, m.sid AS notification,
           ${isoTimestamp(sql`m.date_created`)} AS date_created, ${isoTimestamp(sql`m.date_updated`)} AS date_updated,
           c.recipients_ok, c.sender_ok, c.parent_ok, (SELECT ok FROM go) AS quota_taken,
           s.sid AS sender_sid, s.user_sid AS sender_user_sid, s.name AS sender_name, (SELECT name FROM parent) AS parent_name,
           (SELECT count(*) FROM mailed)::int AS mailed, (SELECT array_agg(payload ORDER BY ord) FROM events) AS events
      FROM found f CROSS JOIN checked c LEFT JOIN sender s ON TRUE LEFT JOIN made m ON m.sid = f.new_sid
     ORDER BY f.ord`);
  notifyAfterCommit(db, NOTIFICATION_CHANNEL, first.events ?? []);
  const all = [first, ...others];
  return {
    recipients: all.map((r) => ({
      sid: r.sid,
      known: r.user_sid !== null,
      active: r.active,
      notification: r.notification === null ? null : {
        sid: r.notification, organization_sid: org, name: input.name, body: input.body, rows, is_read: false, is_deleted: false,
        recipient_sid: r.sid, recipient_user_sid: r.user_sid!, sender_sid: r.sender_sid, sender_user_sid: r.sender_user_sid,
        sender_name: r.sender_name, parent_sid: r.parent_name === null ? null : parentSid, parent_name: r.parent_name,
        updated_by: null, date_created: r.date_created!, date_updated: r.date_updated!,
      },
    })),
    senderFound: first.sender_ok,
    parentFound: first.parent_ok,
    quotaTaken: first.quota_taken,
    written: all.some((r) => r.notification !== null),
  };
}

/**
 * The email of a notification, as SQL: the organization's and sender's names and the
 * notification's sid are read in the statement that queues it.
 */
function mailBody(organization: SQL, from: SQL, input: NotificationInput, sid: SQL): SQL {
  const lines: (string | SQL)[][] = [
    [from, ' sent you a notification in ', organization, ':'],
    [''],
    [plainName(input.name, SUBJECT_MAX)],
    [''],
    [plainText(input.body, BODY_MAX)],
  ];
  if (input.rows?.length) lines.push([''], ['About:'], ...input.rows.map((r) => [`  - ${plainName(r.name)} (${r.sid})`]));
  lines.push([''], ['Read it in the Records Service: GET /notifications/notification/detail/', sid, '/'], [''],
    ['You receive this email because you accepted this organization and your settings (should_receive_notification_email) or the sender asked for it; '
      + 'turn should_receive_notification_email off on your member record (the Account page) and no notification is mailed to you.']);
  // Adjacent texts become one parameter; the SQL pieces are concatenated between them.
  const pieces: (string | SQL)[] = [];
  lines.forEach((line, i) => {
    for (const piece of i ? ['\n', ...line] : line) {
      const last = pieces[pieces.length - 1];
      if (typeof piece === 'string' && typeof last === 'string') pieces[pieces.length - 1] = last + piece;
      else pieces.push(piece);
    }
  });
  return sql`(${sql.join(pieces.map((p) => (typeof p === 'string' ? sql`${p}::text` : sql`(${p})`)), sql` || `)})`;
}

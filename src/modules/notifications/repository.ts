import { and, count, desc, eq, inArray, not, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { notifications, personnel, users } from '../../db/schema.js';
import { isoTimestamp, personName } from '../../core/sql.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';
import { runPrepared } from '../../core/prepared.js';
import { named, sizedPage } from '../../core/sized-page.js';

const sender = alias(personnel, 'sender');
const recipient = alias(personnel, 'recipient');
const parent = alias(notifications, 'parent');
const updater = alias(users, 'updater');

/** A member's display name in SQL, as personnelName() builds it: first and last name, or the email. */
function personnelNameSql(p: typeof sender): SQL<string> {
  return personName(p);
}

const fields = {
  sid: notifications.sid,
  organization_sid: notifications.organizationSid,
  name: notifications.name,
  body: notifications.body,
  rows: notifications.rows,
  is_read: notifications.isRead,
  is_deleted: notifications.isDeletedByRecipient,
  recipient_sid: notifications.recipientSid,
  recipient_user_sid: recipient.userSid,
  sender_sid: notifications.senderSid,
  sender_user_sid: sender.userSid,
  sender_name: sql<string | null>`CASE WHEN ${sender.sid} IS NULL THEN NULL ELSE ${personnelNameSql(sender)} END`,
  parent_sid: parent.sid,
  parent_name: parent.name,
  updated_by: sql<string | null>`CASE WHEN ${updater.sid} IS NULL THEN NULL ELSE ${personName(updater)} END`,
  date_created: isoTimestamp(notifications.dateCreated),
  date_updated: isoTimestamp(notifications.dateUpdated),
};

export interface NotificationRow {
  sid: string; organization_sid: string; name: string; body: string; rows: { sid: string; name: string }[];
  is_read: boolean; is_deleted: boolean; recipient_sid: string; recipient_user_sid: string;
  sender_sid: string | null; sender_user_sid: string | null; sender_name: string | null;
  parent_sid: string | null; parent_name: string | null; updated_by: string | null;
  date_created: string; date_updated: string;
}

/** The fields with `extra`; `sub`: as a subquery's (core/sized-page.ts named). */
function select<E extends Record<string, SQL>>(db: Db, extra: E = {} as E, sub = false) {
  const selection = { ...fields, ...extra };
  return db.select(sub ? named(selection) : selection).from(notifications)
    .innerJoin(recipient, eq(recipient.sid, notifications.recipientSid))
    .leftJoin(sender, eq(sender.sid, notifications.senderSid))
    .leftJoin(parent, and(eq(parent.sid, notifications.parentSid), eq(parent.organizationSid, notifications.organizationSid)))
    .leftJoin(updater, eq(updater.sid, notifications.updatedBy));
}

/**
 * The inbox of one member: what was sent to them and not deleted
 * (notifications_recipient_inbox_idx); with `isRead`, only the read or the unread ones.
 * "Not deleted" is written in the statement, not bound as a value: the index holds only the
 * undeleted notifications, and a plan made for any values (pageInbox's, generic) may use it
 * only when the statement itself says so.
 */
function inbox(recipientSid: unknown, isRead?: unknown): SQL {
  return and(eq(notifications.recipientSid, recipientSid as string), not(notifications.isDeletedByRecipient),
    isRead === undefined ? undefined : eq(notifications.isRead, isRead as boolean))!;
}

/** The count of a member's inbox, as a query. */
function countQuery(db: Db, recipientSid: unknown, isRead?: unknown) {
  return db.select({ n: count() }).from(notifications).where(inbox(recipientSid, isRead));
}

export async function countInbox(db: Db, recipientSid: string, isRead?: boolean): Promise<number> {
  const [row] = await countQuery(db, recipientSid, isRead);
  return row.n;
}

/** A page of a member's inbox (all, or only the read or unread ones), newest first, with its count. */
export async function pageInbox(
  db: Db, recipientSid: string, limit: number, offset: number, isRead?: boolean, maxBytes?: number,
): Promise<Counted<NotificationRow>> {
  const shape = `${isRead === undefined ? '' : 'read'},${maxBytes === undefined ? '' : 'sized'}`;
  return counted(await runPrepared(db, pageQuery, shape, {
    recipient: recipientSid, read: isRead, limit, offset, max_bytes: maxBytes,
  }, { generic: true }) as (NotificationRow & { total: number })[]);
}

/**
 * The page query with its count for `shape` (core/prepared.ts): "read" filters, every value
 * a placeholder; "sized": a sized read (the detail shape; core/sized-page.ts).
 */
function pageQuery(db: Db, shape: string) {
  const recipient = sql.placeholder('recipient');
  const isRead = shape.startsWith('read') ? sql.placeholder('read') : undefined;
  const total = totalOf(countQuery(db, recipient, isRead));
  const sized = shape.includes('sized');
  const extra: { total: SQL<number> } & Record<string, SQL> = sized ? { total, bytes: messageSize, created: sql`${notifications.dateCreated}` } : { total };
  const page = select(db, extra, sized).where(inbox(recipient, isRead))
    .orderBy(desc(notifications.dateCreated), desc(notifications.sid)).limit(sql.placeholder('limit')).offset(sql.placeholder('offset'));
  return sized ? sizedPage<typeof page>(db, page.as('page'), [...Object.keys(fields), 'total'], (f) => [desc(f.created), desc(f.sid)]) : page;
}

/** The most a notification is as JSON: its subject, message and rows as JSON, and 4 KiB for the rest (sids, names, dates). */
const messageSize = sql<number>`octet_length(json_build_array(${notifications.name}, ${notifications.body}, ${notifications.rows})::text) + 4096`;

export async function findNotification(db: Db, sid: string): Promise<NotificationRow | undefined> {
  const [row] = await select(db).where(eq(notifications.sid, sid));
  return row as NotificationRow | undefined;
}

/** Notifications by sid, in no particular order. */
export async function findNotifications(db: Db, sids: string[]): Promise<NotificationRow[]> {
  if (!sids.length) return [];
  return (await select(db).where(inArray(notifications.sid, sids))) as NotificationRow[];
}

/**
 * The notifications of members of the given users created at or after `since` (a timestamp
 * from the database), oldest first: what a live stream may have missed.
 */
export async function inboxesSince(db: Db, userSids: string[], since: string, limit: number): Promise<NotificationRow[]> {
  if (!userSids.length) return [];
  return (await select(db)
    .where(and(inArray(recipient.userSid, userSids), eq(notifications.isDeletedByRecipient, false),
      sql`${notifications.dateCreated} >= ${since}::timestamptz`))
    .orderBy(notifications.dateCreated, notifications.sid).limit(limit)) as NotificationRow[];
}

// Notifications through the API: sending from a member, reading (which marks read),
// marking, deleting from the inbox. Who may do what is in core/permissions.ts.
import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import { findMembership, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { query } from '../../db/client.js';
import { notifications } from '../../db/schema.js';
import { findNotification, type NotificationRow } from './repository.js';
import { sendNotifications } from './send.js';
import { activeMember } from '../../core/rules.js';
import { takeSenderMailQuota } from '../accounts/service.js';

export interface NotificationBody {
  to: { sid: string; name?: string }[];
  name: string;
  body?: string;
  parent?: { sid: string; name?: string } | null;
  should_email?: boolean;
}

/**
 * The notification `sid` and the caller's personnel sid in its organization, when the
 * caller may read it (its recipient, until they delete it, or its sender). Anyone else:
 * 404, so nobody learns that it exists; a recipient or sender who left the organization: 403.
 */
export async function loadNotification(ctx: AppContext, actor: Actor, sid: string): Promise<{ row: NotificationRow; viewer: string }> {
  if (!isSid(sid)) throw errors.notFound();
  const row = await findNotification(ctx.db, sid);
  if (!row) throw errors.notFound();
  const { membership } = await findMembership(ctx.db, actor, row.organization_sid);
  if (!membership || !permissions.notification.read(membership.personnelSid, row)) throw errors.notFound();
  if (membership.role === 'alumni') throw errors.forbidden();
  return { row, viewer: membership.personnelSid };
}

/** Refuses (400, field `to`) recipients that are not active personnel of the organization. */
async function checkRecipients(ctx: AppContext, orgSid: string, sids: string[]) {
  const wellFormed = sids.filter(isSid);
  const active = wellFormed.length ? await query<{ sid: string }>(ctx.db, sql`
    SELECT sid FROM personnel
     WHERE organization_sid = ${orgSid} AND sid IN (${sql.join(wellFormed.map((s) => sql`${s}`), sql`, `)})
       AND ${activeMember.sql()}`) : [];
  const known = new Set(active.map((r) => r.sid));
  const unknown = [...new Set(sids.filter((s) => !known.has(s)))];
  if (unknown.length) throw errors.fields({ to: unknown.map((s) => `${s} is not an active member of this organization.`) });
}

/** Refuses (400, field `parent`) a parent the caller did not receive or send in this organization. */
async function checkParent(ctx: AppContext, membership: Membership, parentSid: string) {
  const found = isSid(parentSid) ? await findNotification(ctx.db, parentSid) : undefined;
  if (!found || found.organization_sid !== membership.organizationSid || !permissions.notification.read(membership.personnelSid, found)) {
    throw errors.field('parent', 'No notification with this sid that you received or sent in this organization.');
  }
}

/**
 * Sends a notification from the caller to each recipient in `to` (one copy each), in one
 * transaction with its outbox mail and live event. Returns the first recipient's copy.
 */
export async function createNotification(ctx: AppContext, membership: Membership, body: NotificationBody, actor: Actor): Promise<NotificationRow> {
  const recipientSids = body.to.map((r) => r.sid);
  await checkRecipients(ctx, membership.organizationSid, recipientSids);
  if (body.parent) await checkParent(ctx, membership, body.parent.sid);
  const [first] = await ctx.db.transaction(async (tx) => {
    // should_email sends text of the sender's choosing: each recipient counts against the sender's mail quota (429, nothing sent).
    if (body.should_email) await takeSenderMailQuota(ctx, tx, actor.userSid, new Set(recipientSids).size);
    return sendNotifications(tx, {
      organizationSid: membership.organizationSid,
      senderSid: membership.personnelSid,
      recipientSids,
      name: body.name,
      body: body.body ?? '',
      parentSid: body.parent?.sid ?? null,
      shouldEmail: body.should_email ?? false,
    });
  });
  ctx.mail.kick();
  // A recipient archived between the check and the transaction is skipped by sendNotifications.
  if (!first) throw errors.fields({ to: ['None of the recipients is an active member of this organization.'] });
  return (await findNotification(ctx.db, first))!;
}

/** GET detail: the recipient's read marks their copy read; the sender's read changes nothing. */
export async function readNotification(ctx: AppContext, actor: Actor, sid: string) {
  const { row, viewer } = await loadNotification(ctx, actor, sid);
  if (!permissions.notification.change(viewer, row) || row.is_read) return { row, viewer };
  await ctx.db.update(notifications).set({ isRead: true, dateUpdated: sql`now()` })
    .where(and(eq(notifications.sid, sid), eq(notifications.isRead, false)));
  return { row: (await findNotification(ctx.db, sid))!, viewer };
}

/** PATCH detail: the recipient sets is_read (true or back to false); nothing else changes. The sender: 403. */
export async function changeNotification(ctx: AppContext, actor: Actor, sid: string, body: { is_read?: boolean }) {
  const { row, viewer } = await loadNotification(ctx, actor, sid);
  if (!permissions.notification.change(viewer, row)) throw errors.forbidden();
  if (body.is_read === undefined || body.is_read === row.is_read) return { row, viewer };
  await ctx.db.update(notifications).set({ isRead: body.is_read, updatedBy: actor.userSid, dateUpdated: sql`now()` })
    .where(eq(notifications.sid, sid));
  return { row: (await findNotification(ctx.db, sid))!, viewer };
}

/** DELETE detail: the recipient removes their copy from their inbox (the sender still reads it). The sender: 403. */
export async function deleteNotification(ctx: AppContext, actor: Actor, sid: string): Promise<void> {
  const { row, viewer } = await loadNotification(ctx, actor, sid);
  if (!permissions.notification.change(viewer, row)) throw errors.forbidden();
  await ctx.db.update(notifications).set({ isDeletedByRecipient: true, dateUpdated: sql`now()` })
    .where(eq(notifications.sid, sid));
}

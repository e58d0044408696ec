// Notifications through the API: sending from a member, reading (which marks read),
// marking, deleting from the inbox. Who may do what is in core/permissions.ts.
import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import { findMembership, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { notifications } from '../../db/schema.js';
import { findNotification, type NotificationRow } from './repository.js';
import { sendInOneStatement } from './send.js';
import { expandTeams } from '../teams/service.js';
import { senderMailQuota, senderMailQuotaExceeded } from '../accounts/service.js';
import { secondsLeft } from '../../core/rate-limit.js';

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

/**
 * Sends a notification from the caller to each recipient in `to` (one copy each) with its
 * outbox mail and live events, and returns the first recipient's copy: one statement
 * (send.ts, sendInOneStatement) that also checks the recipients (each an active member,
 * else 400 on `to`), the parent (one the caller received or sent here, else 400 on
 * `parent`) and, with should_email, takes each recipient from the sender's mail quota
 * (429, nothing written), so nothing is written unless every check holds.
 */
export async function createNotification(ctx: AppContext, membership: Membership, body: NotificationBody, actor: Actor): Promise<NotificationRow> {
  const send = (recipientSids: string[]) => {
    const quota = body.should_email ? senderMailQuota(ctx, actor.userSid, new Set(recipientSids).size) : undefined;
    return sendInOneStatement(ctx.db, {
      organizationSid: membership.organizationSid,
      senderSid: membership.personnelSid,
      recipientSids,
      name: body.name,
      body: body.body ?? '',
      parentSid: body.parent?.sid ?? null,
      shouldEmail: body.should_email ?? false,
    }, { activeOnly: true, parentReader: body.parent ? membership.personnelSid : undefined, quota }).then((outcome) => ({ outcome, quota }));
  };
  let { outcome, quota } = await send(body.to.map((r) => r.sid));
  // A recipient that is no personnel may be a team (Labii's): its active personnel receive it
  // instead. Looked up only then, so a POST to personnel stays one statement; the refused
  // statement wrote nothing and took no quota.
  const notPersonnel = outcome.recipients.filter((r) => !r.known).map((r) => r.sid);
  if (notPersonnel.length) {
    const expanded = await expandTeams(ctx.db, membership.organizationSid, body.to.map((r) => r.sid), notPersonnel);
    if (expanded) ({ outcome, quota } = await send(expanded));
  }
  const refused = outcome.recipients.filter((r) => !r.active).map((r) => r.sid);
  if (refused.length) throw errors.fields({ to: refused.map((s) => `${s} is not an active member of this organization.`) });
  if (!outcome.parentFound) {
    throw errors.field('parent', 'No notification with this sid that you received or sent in this organization.');
  }
  if (!outcome.senderFound) throw new Error(`createNotification: the sender ${membership.personnelSid} is no longer personnel of ${membership.organizationSid}`);
  if (quota && !outcome.quotaTaken) {
    throw senderMailQuotaExceeded(ctx, quota.n > quota.max ? quota.windowSeconds : await secondsLeft(ctx.db, quota.key, quota.windowSeconds));
  }
  ctx.mail.kick();
  return outcome.recipients[0].notification!;
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

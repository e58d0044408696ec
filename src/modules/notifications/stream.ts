// GET /notifications/notification/stream/: the caller's new notifications as
// Server-Sent Events, from whichever server process created them, and the changes of the
// caller's own access. The stream itself (its framing, bound, re-check) is core/live's.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { actorOf } from '../../core/auth.js';
import { requireOrganizationMember } from '../../core/access.js';
import { isSid } from '../../core/ids.js';
import { ErrorResponses } from '../../core/schemas.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { activeMember } from '../../core/rules.js';
import { activeOrganizations } from '../../core/live/standing.js';
import type { StreamPolicy } from '../../core/live/hub.js';
import { query } from '../../db/client.js';
import { eventOf, type LiveNotifications, type Subscriber } from './live.js';
import { findNotification, inboxesSince } from './repository.js';
import { StreamQuery } from './schemas.js';
import { safeMessage } from '../../core/log-redaction.js';

const CATCH_UP_LIMIT = 100;
const NO_LONGER_MEMBER = 'You are no longer an active member of the organization.';

/** The organizations where the user is an active member today. */
async function activeOrganizationsOf(ctx: AppContext, userSid: string): Promise<string[]> {
  const rows = await query<{ organization_sid: string }>(ctx.db, sql`
    SELECT organization_sid FROM personnel
     WHERE user_sid = ${userSid} AND ${activeMember.sql()}`);
  return rows.map((r) => r.organization_sid);
}

/**
 * What a notification stream hears as its viewer's standing changes: a user who is no
 * longer an active member of an organization stops hearing about it; the stream ends when
 * none of the organizations it had is left (or the one it asked for is gone). A stream
 * opened by someone of no organization has none to lose: it stays open (until its
 * credential ends).
 */
function notificationPolicy(subscriber: Subscriber, only: string | undefined, send: (event: string, data: unknown) => void): StreamPolicy {
  return {
    restand(standing) {
      const now = activeOrganizations(standing);
      const heard = subscriber.organizations;
      const noneLeft = only !== undefined ? !now.has(only) : heard.size > 0 && ![...heard].some((o) => now.has(o));
      if (noneLeft) return NO_LONGER_MEMBER;
      // Organizations left meanwhile are not heard about any more (new ones need a new stream).
      for (const o of [...heard]) if (!now.has(o)) heard.delete(o);
      return null;
    },
    // The person's own roles, in any organization: the app re-reads what it shows.
    access: (change) => send('access', change),
  };
}

/** Registers the stream route; open streams end when the app closes, or when their credential or membership does. */
export function registerNotificationStream(app: FastifyInstance, ctx: AppContext, live: LiveNotifications): void {
  const url = '/notifications/notification/stream/';
  app.get(url, {
    schema: {
      tags: ['notifications'],
      summary: 'Live stream of the caller\'s new notifications (Server-Sent Events)',
      description: 'Authenticated like every request (header `token`, `Authorization: Token …` or `Bearer …`, or the web app\'s session cookie alone). '
        + 'Each new notification sent to the caller, in any organization where they are an active member '
        + '(or only `organization__sid`), arrives within a second as `event: notification`, `id: <sid>`, '
        + '`data: <the notification in the list shape>`, whichever server process created it. '
        + 'A change of the caller\'s own roles (their personnel record in any organization, or a project role) arrives as '
        + '`event: access`, `data: {organization, project, role, permission}` (no id): `project` is null for the personnel record; '
        + '`role` is the organization role now ("admin", "member", "alumni", or null when no longer personnel), `permission` the '
        + 'project role now ("admin", "edit", "view", or null). '
        + 'A comment line is sent every 15 seconds to keep the connection open. A client that reconnects with '
        + '`Last-Event-ID: <sid>` first receives what it missed since that notification (at most 100). '
        + 'One credential holds at most LIVE_STREAMS_PER_CREDENTIAL open streams in a server process (429 beyond).',
      querystring: StreamQuery,
      response: {
        200: { description: 'a text/event-stream of `notification`, `access` and `end` events', content: { 'text/event-stream': { schema: Type.String() } } },
        ...ErrorResponses,
      },
    },
  }, async (request: FastifyRequest, reply: FastifyReply) => {
    const actor = actorOf(request);
    const { organization__sid: only } = request.query as { organization__sid?: string };
    const organizations = only
      ? [(await requireOrganizationMember(ctx.db, actor, only)).organizationSid]
      : await activeOrganizationsOf(ctx, actor.userSid);
    const lastEventId = request.headers['last-event-id'];
    const catchingUp = typeof lastEventId === 'string' && isSid(lastEventId);

    const subscriber: Subscriber = {
      userSid: actor.userSid,
      organizations: new Set(organizations),
      openedAt: Date.now(),
      send: (event) => stream.send('notification', event.item, event.sid),
      held: catchingUp ? [] : undefined,
    };
    let unsubscribe = () => {};
    const stream = await ctx.live.open(request, reply, actor,
      notificationPolicy(subscriber, only, (event, data) => stream.send(event, data)), () => unsubscribe());
    if (stream.closed) return; // the client left already
    unsubscribe = live.subscribe(subscriber);

    // Subscribed first, then caught up: an event heard meanwhile is held and sent after what
    // was missed, once (live dedupes by sid).
    if (catchingUp) {
      try {
        const last = await findNotification(ctx.db, lastEventId);
        if (last && last.recipient_user_sid === actor.userSid) {
          const missed = await inboxesSince(ctx.db, [actor.userSid], last.date_created, CATCH_UP_LIMIT);
          for (const row of missed) if (row.sid !== last.sid) live.deliverTo(subscriber, eventOf(row));
        }
      } catch (err) {
        request.log.warn({ error: safeMessage(err) }, 'notification stream: catching up failed');
      } finally {
        live.release(subscriber);
      }
    }
  });
  refuseOtherMethods(app, url, ['GET']);
}

// GET /notifications/notification/stream/: the caller's new notifications as
// Server-Sent Events, from whichever server process created them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { actorOf } from '../../core/auth.js';
import { requireOrganizationMember } from '../../core/access.js';
import { isSid } from '../../core/ids.js';
import { ErrorResponses } from '../../core/schemas.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { query } from '../../db/client.js';
import type { LiveEvent } from './send.js';
import { eventOf, type LiveNotifications, type Subscriber } from './live.js';
import { findNotification, inboxesSince } from './repository.js';
import { StreamQuery } from './schemas.js';

const KEEP_ALIVE_MS = 15_000;
/** A client that reads slower than this much pending output is dropped (it reconnects and catches up). */
const MAX_PENDING_BYTES = 1024 * 1024;
const CATCH_UP_LIMIT = 100;

const HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** The organizations where the user is an active member today. */
async function activeOrganizations(ctx: AppContext, userSid: string): Promise<string[]> {
  const rows = await query<{ organization_sid: string }>(ctx.db, sql`
    SELECT organization_sid FROM personnel
     WHERE user_sid = ${userSid} AND NOT is_archived AND (date_end IS NULL OR date_end >= CURRENT_DATE)`);
  return rows.map((r) => r.organization_sid);
}

function frame(event: LiveEvent): string {
  return `id: ${event.sid}\nevent: notification\ndata: ${JSON.stringify(event.item)}\n\n`;
}

/** Registers the stream route; open streams end when the app closes. */
export function registerNotificationStream(app: FastifyInstance, ctx: AppContext, live: LiveNotifications): void {
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const close of [...open]) close();
  });

  const url = '/notifications/notification/stream/';
  app.get(url, {
    schema: {
      tags: ['notifications'],
      summary: 'Live stream of the caller\'s new notifications (Server-Sent Events)',
      description: 'Authenticated like every request (header `token`, `Authorization: Token …` or `Bearer …`, or the web app\'s session cookie alone). '
        + 'Each new notification sent to the caller, in any organization where they are an active member '
        + '(or only `organization__sid`), arrives within a second as `event: notification`, `id: <sid>`, '
        + '`data: <the notification in the list shape>`, whichever server process created it. '
        + 'A comment line is sent every 15 seconds to keep the connection open. A client that reconnects with '
        + '`Last-Event-ID: <sid>` first receives what it missed since that notification (at most 100).',
      querystring: StreamQuery,
      response: {
        200: { description: 'a text/event-stream of `notification` events', content: { 'text/event-stream': { schema: Type.String() } } },
        ...ErrorResponses,
      },
    },
  }, async (request: FastifyRequest, reply: FastifyReply) => {
    const actor = actorOf(request);
    const { organization__sid: only } = request.query as { organization__sid?: string };
    const organizations = only
      ? [(await requireOrganizationMember(ctx.db, actor, only)).organizationSid]
      : await activeOrganizations(ctx, actor.userSid);
    const lastEventId = request.headers['last-event-id'];

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { ...HEADERS, 'x-request-id': String(request.id) });
    res.write('retry: 3000\n: connected\n\n');

    let closed = false;
    const subscriber: Subscriber = {
      userSid: actor.userSid,
      organizations: new Set(organizations),
      openedAt: Date.now(),
      send: (event) => {
        if (closed) return;
        res.write(frame(event));
        if (res.writableLength > MAX_PENDING_BYTES) close();
      },
    };
    const unsubscribe = live.subscribe(subscriber);
    const keepAlive = setInterval(() => {
      if (!closed) res.write(': keep-alive\n\n');
    }, KEEP_ALIVE_MS);
    keepAlive.unref();
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      unsubscribe();
      open.delete(close);
      res.end();
    };
    open.add(close);
    res.on('close', close);
    res.on('error', close);

    // Subscribed first, then caught up: an event arriving meanwhile is sent once (live dedupes by sid).
    if (typeof lastEventId === 'string' && isSid(lastEventId)) {
      try {
        const last = await findNotification(ctx.db, lastEventId);
        if (last && last.recipient_user_sid === actor.userSid) {
          const missed = await inboxesSince(ctx.db, [actor.userSid], last.date_created, CATCH_UP_LIMIT);
          for (const row of missed) if (row.sid !== last.sid) live.deliverTo(subscriber, eventOf(row));
        }
      } catch (err) {
        request.log.warn({ error: (err as Error).message }, 'notification stream: catching up failed');
      }
    }
  });
  refuseOtherMethods(app, url, ['GET']);
}

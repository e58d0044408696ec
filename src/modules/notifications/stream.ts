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
import { activeMember } from '../../core/rules.js';
import { Periodic } from '../../jobs/periodic.js';
import { EVENT_STREAM_HEADERS, validStreamCredentials } from '../../core/event-stream.js';

const KEEP_ALIVE_MS = 15_000;
/** A client that reads slower than this much pending output is dropped (it reconnects and catches up). */
const MAX_PENDING_BYTES = 1024 * 1024;
const CATCH_UP_LIMIT = 100;
/**
 * How often each process checks that its open streams' credentials and memberships still
 * hold: a stream ends within this long of a logout, an API key's deletion, a password
 * reset (which deletes the account's session tokens), an archived member or a past date_end.
 */
export const STREAM_CHECK_SECONDS = 2;

/** An open stream, as the revocation check sees it. */
interface OpenStream {
  credentialSid: string;
  userSid: string;
  /** `organization__sid`: the stream is about that organization only. */
  only: string | undefined;
  subscriber: Subscriber;
  /** Ends the stream, telling the client why first. */
  end(reason: string): void;
}

/** The organizations where the user is an active member today. */
async function activeOrganizations(ctx: AppContext, userSid: string): Promise<string[]> {
  const rows = await query<{ organization_sid: string }>(ctx.db, sql`
    SELECT organization_sid FROM personnel
     WHERE user_sid = ${userSid} AND ${activeMember.sql()}`);
  return rows.map((r) => r.organization_sid);
}

function frame(event: LiveEvent): string {
  return `id: ${event.sid}\nevent: notification\ndata: ${JSON.stringify(event.item)}\n\n`;
}

/**
 * Checks every open stream of this process in two queries: a stream whose credential is
 * gone (logout, a deleted API key, a password reset, an idle session, an inactive
 * account) ends; a stream whose user is no longer an active member of an organization
 * stops hearing about it, and ends when none of the organizations it had is left (or the
 * one it asked for is gone). An open stream counts as use of its session token (at most once a minute).
 * Works across processes: it reads the database, not this process's memory.
 */
async function checkStreams(ctx: AppContext, streams: Set<OpenStream>): Promise<void> {
  if (!streams.size) return;
  const all = [...streams];
  const userSids = [...new Set(all.map((s) => s.userSid))];
  const valid = await validStreamCredentials(ctx, [...new Set(all.map((s) => s.credentialSid))]);
  const active = new Map<string, Set<string>>();
  for (const row of await query<{ user_sid: string; organization_sid: string }>(ctx.db, sql`
    SELECT user_sid, organization_sid FROM personnel
     WHERE user_sid = ANY(string_to_array(${userSids.join(',')}, ',')) AND NOT is_archived AND (date_end IS NULL OR date_end >= CURRENT_DATE)`)) {
    let set = active.get(row.user_sid);
    if (!set) active.set(row.user_sid, (set = new Set()));
    set.add(row.organization_sid);
  }
  for (const stream of all) {
    if (!streams.has(stream)) continue; // ended meanwhile
    if (!valid.has(stream.credentialSid)) {
      stream.end('Invalid token.');
      continue;
    }
    const now = active.get(stream.userSid) ?? new Set<string>();
    const heard = stream.subscriber.organizations;
    // A stream opened by someone of no organization has none to lose: it stays open (until its credential ends).
    const noneLeft = stream.only !== undefined ? !now.has(stream.only) : heard.size > 0 && ![...heard].some((o) => now.has(o));
    if (noneLeft) {
      stream.end('You are no longer an active member of the organization.');
      continue;
    }
    // Organizations left meanwhile are not heard about any more (new ones need a new stream).
    for (const o of [...heard]) if (!now.has(o)) heard.delete(o);
  }
}

/** Registers the stream route; open streams end when the app closes, or when their credential or membership does. */
export function registerNotificationStream(app: FastifyInstance, ctx: AppContext, live: LiveNotifications): void {
  const open = new Set<() => void>();
  const streams = new Set<OpenStream>();
  const check = new Periodic({ name: 'stream credential check', everySeconds: STREAM_CHECK_SECONDS, task: () => checkStreams(ctx, streams), log: app.log });
  app.addHook('onReady', async () => check.start());
  app.addHook('preClose', async () => {
    await check.stop();
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
    res.writeHead(200, { ...EVENT_STREAM_HEADERS, 'x-request-id': String(request.id) });
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
      streams.delete(tracked);
      res.end();
    };
    const tracked: OpenStream = {
      credentialSid: actor.credentialSid,
      userSid: actor.userSid,
      only,
      subscriber,
      end: (reason) => {
        // An `end` event says why, so a client does not reconnect with a credential that no longer works.
        if (!closed) res.write(`event: end\ndata: ${JSON.stringify({ detail: reason })}\n\n`);
        close();
      },
    };
    streams.add(tracked);
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

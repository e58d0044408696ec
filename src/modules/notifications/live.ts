// Live delivery of notifications: on the process's one LISTEN (core/live), each event is
// fanned out to that process's open streams by recipient. sendNotifications() queues its
// events on the sending transaction and they are sent once it has committed
// (db/after-commit.ts), so an event is heard only then, by every process on the same
// PostgreSQL database (and, on PGlite, by this process).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.js';
import type { LiveHub } from '../../core/live/hub.js';
import { Fanout } from '../../core/live/fanout.js';
import { NOTIFICATION_CHANNEL, type LiveEvent } from './send.js';
import { inboxesSince, type NotificationRow } from './repository.js';
import { notificationListItem } from './serializers.js';

/** One open stream: a signed-in user, the organizations it may hear about, and where to write. */
export interface Subscriber {
  userSid: string;
  organizations: Set<string>;
  /** When the stream opened (ms since the epoch): a catch-up never sends anything older. */
  openedAt: number;
  send(event: LiveEvent): void;
  /**
   * While the stream catches up from `Last-Event-ID`: the events heard meanwhile, held in
   * the order heard and sent after what it missed (`release`), so it gets them oldest first.
   */
  held?: LiveEvent[];
}

const RECENT = 200;
const CATCH_UP_LIMIT = 500;

/** A live event for a notification read from the database (catching up after a gap). */
export function eventOf(row: NotificationRow): LiveEvent {
  return {
    sid: row.sid,
    organization_sid: row.organization_sid,
    user_sid: row.recipient_user_sid,
    email: false,
    item: notificationListItem(row, row.recipient_sid),
  };
}

export class LiveNotifications {
  private readonly byUser = new Fanout<Subscriber>();
  /** Sids recently written to each subscriber, so a catch-up never repeats an event. */
  private readonly recent = new WeakMap<Subscriber, Set<string>>();

  constructor(private readonly options: {
    hub: LiveHub;
    database: Database;
    log: FastifyBaseLogger;
    /** Called for every event this process hears (the mail worker is woken up for events with mail). */
    onEvent?: (event: LiveEvent) => void;
  }) {
    options.hub.listen(NOTIFICATION_CHANNEL, {
      hear: (payload) => this.hear(payload),
      onReconnect: (lostAt) => this.catchUp(lostAt),
    });
  }

  /** Registers an open stream; returns the function that removes it. */
  subscribe(subscriber: Subscriber): () => void {
    this.recent.set(subscriber, new Set());
    return this.byUser.add(subscriber.userSid, subscriber);
  }

  /** Writes `event` to `subscriber` unless it is not theirs or they had it already. */
  deliverTo(subscriber: Subscriber, event: LiveEvent): void {
    if (event.user_sid !== subscriber.userSid || !subscriber.organizations.has(event.organization_sid)) return;
    const seen = this.recent.get(subscriber);
    if (!seen || seen.has(event.sid)) return;
    seen.add(event.sid);
    if (seen.size > RECENT) seen.delete(seen.values().next().value as string);
    subscriber.send(event);
  }

  private hear(payload: string) {
    let event: LiveEvent;
    try {
      event = JSON.parse(payload) as LiveEvent;
    } catch {
      this.options.log.warn({ payload: payload.slice(0, 200) }, 'live notifications: unreadable event');
      return;
    }
    this.options.onEvent?.(event);
    for (const subscriber of this.byUser.of(event.user_sid)) {
      if (subscriber.held) subscriber.held.push(event);
      else this.deliverTo(subscriber, event);
    }
  }

  /** Ends `subscriber`'s catching up: the events heard meanwhile are sent, those it had already left out. */
  release(subscriber: Subscriber): void {
    const held = subscriber.held ?? [];
    subscriber.held = undefined;
    for (const event of held) this.deliverTo(subscriber, event);
  }

  /** After the LISTEN connection was back: what open streams may have missed meanwhile. */
  private async catchUp(lostAt: string) {
    const users = this.byUser.keys();
    if (!users.length) return;
    // Transactions that began a little before the loss may have committed during it.
    const since = new Date(Date.parse(lostAt) - 30_000).toISOString();
    for (const row of await inboxesSince(this.options.database.db, users, since, CATCH_UP_LIMIT)) {
      for (const subscriber of this.byUser.of(row.recipient_user_sid)) {
        if (Date.parse(row.date_created) >= subscriber.openedAt - 1_000) this.deliverTo(subscriber, eventOf(row));
      }
    }
  }
}

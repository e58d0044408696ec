// Live delivery of notifications: one LISTEN per server process, fanned out to that
// process's open streams by recipient. sendNotifications() emits with pg_notify inside
// the sending transaction, so an event is heard only once it has committed, by every
// process on the same PostgreSQL database (and, on PGlite, by this process).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.js';
import { ChannelListener } from '../../core/listen.js';
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
  private readonly byUser = new Map<string, Set<Subscriber>>();
  /** Sids recently written to each subscriber, so a catch-up never repeats an event. */
  private readonly recent = new WeakMap<Subscriber, Set<string>>();
  private readonly listener: ChannelListener;

  constructor(private readonly options: {
    database: Database;
    databaseUrl: string | null;
    log: FastifyBaseLogger;
    /** Called for every event this process hears (the mail worker is woken up for events with mail). */
    onEvent?: (event: LiveEvent) => void;
  }) {
    this.listener = new ChannelListener({
      channel: NOTIFICATION_CHANNEL, label: 'live notifications', ...options,
      hear: (payload) => this.hear(payload),
      onReconnect: (lostAt) => this.catchUp(lostAt),
    });
  }

  /** Starts listening; a database that does not answer yet is retried with back-off. */
  start(): Promise<void> {
    return this.listener.start();
  }

  /** Stops listening (open streams are the routes' to close, before this). */
  stop(): Promise<void> {
    return this.listener.stop();
  }

  /** Registers an open stream; returns the function that removes it. */
  subscribe(subscriber: Subscriber): () => void {
    let set = this.byUser.get(subscriber.userSid);
    if (!set) this.byUser.set(subscriber.userSid, (set = new Set()));
    set.add(subscriber);
    this.recent.set(subscriber, new Set());
    return () => {
      set!.delete(subscriber);
      if (!set!.size && this.byUser.get(subscriber.userSid) === set) this.byUser.delete(subscriber.userSid);
    };
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

  /** How many streams are open in this process. */
  get size(): number {
    let n = 0;
    for (const set of this.byUser.values()) n += set.size;
    return n;
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
    for (const subscriber of this.byUser.get(event.user_sid) ?? []) this.deliverTo(subscriber, event);
  }

  /** After the LISTEN connection was back: what open streams may have missed meanwhile. */
  private async catchUp(lostAt: string) {
    const users = [...this.byUser.keys()];
    if (!users.length) return;
    // Transactions that began a little before the loss may have committed during it.
    const since = new Date(Date.parse(lostAt) - 30_000).toISOString();
    try {
      for (const row of await inboxesSince(this.options.database.db, users, since, CATCH_UP_LIMIT)) {
        for (const subscriber of this.byUser.get(row.recipient_user_sid) ?? []) {
          if (Date.parse(row.date_created) >= subscriber.openedAt - 1_000) this.deliverTo(subscriber, eventOf(row));
        }
      }
    } catch (err) {
      this.options.log.warn({ error: (err as Error).message }, 'live notifications: catching up after a reconnect failed');
    }
  }
}

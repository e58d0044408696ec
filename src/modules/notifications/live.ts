// Live delivery of notifications: one LISTEN per server process, fanned out to that
// process's open streams by recipient. sendNotifications() emits with pg_notify inside
// the sending transaction, so an event is heard only once it has committed, by every
// process on the same PostgreSQL database (and, on PGlite, by this process).
import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.js';
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
const MAX_RETRY_MS = 10_000;
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
  private client: pg.Client | null = null;
  private unlistenPglite: (() => Promise<void>) | null = null;
  private retryMs = 250;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  /** When the LISTEN connection was lost (ISO time), until it is back. */
  private lostAt: string | null = null;

  constructor(private readonly options: {
    database: Database;
    databaseUrl: string | null;
    log: FastifyBaseLogger;
    /** Called for every event this process hears (the mail worker is woken up for events with mail). */
    onEvent?: (event: LiveEvent) => void;
  }) {}

  /** Starts listening; a database that does not answer yet is retried with back-off. */
  async start(): Promise<void> {
    this.stopped = false;
    const { database } = this.options;
    if (database.pglite) {
      this.unlistenPglite = await database.pglite.listen(NOTIFICATION_CHANNEL, (payload) => this.hear(payload));
      return;
    }
    await this.connect();
  }

  /** Stops listening (open streams are the routes' to close, before this). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
    await this.unlistenPglite?.().catch(() => {});
    this.unlistenPglite = null;
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

  private async connect(): Promise<void> {
    if (this.stopped || !this.options.databaseUrl) return;
    const client = new pg.Client({ connectionString: this.options.databaseUrl, keepAlive: true, connectionTimeoutMillis: 5_000 });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.lostAt ??= new Date().toISOString();
      client.end().catch(() => {});
      if (this.stopped) return;
      this.options.log.warn({ error: err?.message, retryMs: this.retryMs }, 'live notifications: LISTEN connection lost; reconnecting');
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === NOTIFICATION_CHANNEL && message.payload) this.hear(message.payload);
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFICATION_CHANNEL}`);
    } catch (err) {
      lost(err as Error);
      return;
    }
    this.retryMs = 250;
    if (this.lostAt) {
      const since = this.lostAt;
      this.lostAt = null;
      await this.catchUp(since);
    }
  }

  private scheduleReconnect() {
    if (this.retryTimer || this.stopped) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, wait);
    this.retryTimer.unref();
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

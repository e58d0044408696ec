// The one LISTEN of this server process: on PostgreSQL one connection of its own that
// listens on every channel the live machinery uses (access changes, record changes,
// notifications), kept up with back-off when it is lost; on PGlite the embedded database's
// own listen. Each channel's payloads go to its `hear`; after a lost connection is back,
// each channel's `onReconnect` learns since when events may have been missed.
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.js';
import { safeMessage } from '../log-redaction.js';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;
/** A channel name as LISTEN takes it unquoted (ours are constants: this only guards against a typo). */
const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/;

export interface ChannelHandlers {
  /** Every payload NOTIFY sends on the channel, after the sender's commit. */
  hear: (payload: string) => void;
  /** After the LISTEN connection was lost and is back: `lostAt` is when it was lost (ISO time). */
  onReconnect?: (lostAt: string) => void | Promise<void>;
}

export class LiveListener {
  /** In the order added: LISTEN runs in this order (the last statement the connection ran names the last channel). */
  private readonly channels = new Map<string, ChannelHandlers>();
  private client: pg.Client | null = null;
  private unlistenPglite: Array<() => Promise<void>> = [];
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  /** When the LISTEN connection was lost (ISO time), until it is back. */
  private lostAt: string | null = null;

  constructor(private readonly options: { database: Database; databaseUrl: string | null; log: FastifyBaseLogger }) {}

  /** Adds a channel; before start() (a module registers its channel when its routes are registered). */
  listen(channel: string, handlers: ChannelHandlers): void {
    if (!this.stopped) throw new Error(`live: channel ${channel} added after the listener started`);
    if (!CHANNEL_NAME.test(channel) || this.channels.has(channel)) throw new Error(`live: bad or repeated channel ${channel}`);
    this.channels.set(channel, handlers);
  }

  /** Starts listening; a database that does not answer yet is retried with back-off. */
  async start(): Promise<void> {
    this.stopped = false;
    const { database } = this.options;
    if (database.pglite) {
      for (const [channel, handlers] of this.channels) {
        this.unlistenPglite.push(await database.pglite.listen(channel, (payload) => this.deliver(handlers, payload)));
      }
      return;
    }
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
    for (const unlisten of this.unlistenPglite.splice(0)) await unlisten().catch(() => {});
  }

  /** One channel's handler failing must not stop the others, nor the connection. */
  private deliver(handlers: ChannelHandlers, payload: string) {
    try {
      handlers.hear(payload);
    } catch (err) {
      this.options.log.warn({ error: safeMessage(err) }, 'live: an event could not be handled');
    }
  }

  private async connect(): Promise<void> {
    const { databaseUrl, log } = this.options;
    if (this.stopped || !databaseUrl) return;
    // pg is loaded with the PostgreSQL handle (db/postgres.ts), never on the embedded database.
    const { default: pg } = await import('pg');
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: databaseUrl, keepAlive: true, connectionTimeoutMillis: 5_000 });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.lostAt ??= new Date().toISOString();
      client.end().catch(() => {});
      if (this.stopped) return;
      log.warn({ error: err ? safeMessage(err) : undefined, retryMs: this.retryMs }, 'live: LISTEN connection lost; reconnecting');
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      const handlers = this.channels.get(message.channel);
      if (handlers && message.payload) this.deliver(handlers, message.payload);
    });
    this.client = client;
    try {
      await client.connect();
      // One statement per channel, so pg_stat_activity shows the connection as `LISTEN <the last channel>`.
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      lost(err as Error);
      return;
    }
    this.retryMs = FIRST_RETRY_MS;
    if (this.lostAt) {
      const since = this.lostAt;
      this.lostAt = null;
      for (const handlers of this.channels.values()) {
        try {
          await handlers.onReconnect?.(since);
        } catch (err) {
          log.warn({ error: safeMessage(err) }, 'live: catching up after a reconnect failed');
        }
      }
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
}

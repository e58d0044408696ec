// One LISTEN on a PostgreSQL channel for this server process: on PostgreSQL a connection
// of its own, kept up with back-off when it is lost; on PGlite the embedded database's own
// listen. Every payload goes to `hear`; after a lost connection is back, `onReconnect`
// learns since when events may have been missed. Used by the live notifications and the
// live record changes, which differ only in what they do with an event.
import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.js';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;

export interface ChannelListenerOptions {
  channel: string;
  /** how log lines name it, e.g. "live notifications" */
  label: string;
  database: Database;
  databaseUrl: string | null;
  log: FastifyBaseLogger;
  hear: (payload: string) => void;
  /** After the LISTEN connection was lost and is back: `lostAt` is when it was lost (ISO time). */
  onReconnect?: (lostAt: string) => void | Promise<void>;
}

export class ChannelListener {
  private client: pg.Client | null = null;
  private unlistenPglite: (() => Promise<void>) | null = null;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  /** When the LISTEN connection was lost (ISO time), until it is back. */
  private lostAt: string | null = null;

  constructor(private readonly options: ChannelListenerOptions) {}

  /** Starts listening; a database that does not answer yet is retried with back-off. */
  async start(): Promise<void> {
    this.stopped = false;
    const { database, channel, hear } = this.options;
    if (database.pglite) {
      this.unlistenPglite = await database.pglite.listen(channel, hear);
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
    await this.unlistenPglite?.().catch(() => {});
    this.unlistenPglite = null;
  }

  private async connect(): Promise<void> {
    const { channel, databaseUrl, log, label } = this.options;
    if (this.stopped || !databaseUrl) return;
    const client = new pg.Client({ connectionString: databaseUrl, keepAlive: true, connectionTimeoutMillis: 5_000 });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.lostAt ??= new Date().toISOString();
      client.end().catch(() => {});
      if (this.stopped) return;
      log.warn({ error: err?.message, retryMs: this.retryMs }, `${label}: LISTEN connection lost; reconnecting`);
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload) this.options.hear(message.payload);
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      lost(err as Error);
      return;
    }
    this.retryMs = FIRST_RETRY_MS;
    if (this.lostAt) {
      const since = this.lostAt;
      this.lostAt = null;
      await this.options.onReconnect?.(since);
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

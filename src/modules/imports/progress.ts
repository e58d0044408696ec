// How far each running import is, by user and Idempotency-Key (docs/eln.md, "Imports"). An
// import's writes are one transaction, invisible to other connections until its commit, so
// its progress cannot be a table's row: each process keeps a board in memory, and on
// PostgreSQL (several processes) every update is also sent with NOTIFY from a connection
// outside the import's transaction, which every process's LISTEN hears.
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { LiveHub } from '../../core/live/hub.js';

const CHANNEL = 'records_import_progress';
const KEEP_MS = 10 * 60 * 1000;

export interface Progress {
  phase: 'checking' | 'writing' | 'done';
  rows_done: number;
  rows_total: number | null;
}

export class ProgressBoard {
  private readonly entries = new Map<string, Progress & { at: number }>();

  constructor(private readonly database: Database, live: LiveHub) {
    if (database.kind === 'postgres') {
      live.listen(CHANNEL, {
        hear: (payload) => {
          const { user, key, ...progress } = JSON.parse(payload) as Progress & { user: string; key: string };
          this.set(user, key, progress);
        },
      });
    }
  }

  /**
   * Records an import's progress here and, on PostgreSQL, in every process (awaited: the updates
   * arrive in order); and keeps its Idempotency-Key's claim fresh, so that a retry while it runs
   * waits (409) rather than taking the claim as abandoned after 60 s (core/idempotency.ts). On
   * the embedded database, a statement outside the import's transaction would wait for it: the
   * claim is kept during the check only (during the writes, a retry waits for the connection).
   */
  async publish(userSid: string, key: string, progress: Progress): Promise<void> {
    this.set(userSid, key, progress);
    if (this.database.kind === 'postgres' || progress.phase === 'checking') {
      await this.database.db.execute(sql`UPDATE idempotency_keys SET date_created = now() WHERE user_sid = ${userSid} AND key = ${key} AND status = 'processing'`);
    }
    if (this.database.kind === 'postgres') {
      await this.database.db.execute(sql`SELECT pg_notify(${CHANNEL}, ${JSON.stringify({ user: userSid, key, ...progress })})`);
    }
  }

  set(userSid: string, key: string, progress: Progress): void {
    this.entries.set(`${userSid}\n${key}`, { ...progress, at: Date.now() });
  }

  /** The import ended: kept as done (with its last counts) for a while. */
  async finish(userSid: string, key: string): Promise<void> {
    const entry = this.entries.get(`${userSid}\n${key}`);
    this.sweep();
    if (entry) await this.publish(userSid, key, { phase: 'done', rows_done: entry.rows_done, rows_total: entry.rows_total ?? entry.rows_done });
  }

  get(userSid: string, key: string): Progress | undefined {
    const entry = this.entries.get(`${userSid}\n${key}`);
    if (!entry || Date.now() - entry.at > KEEP_MS) return undefined;
    const { at: _at, ...progress } = entry;
    return progress;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, v] of this.entries) if (now - v.at > KEEP_MS) this.entries.delete(k);
  }
}

// Per-record mutual exclusion across every server process, for check-then-write
// sequences that span several transactions (If-Match): a PostgreSQL advisory lock held
// by a transaction on a small pool of its own, or an in-process queue on PGlite.
import pg from 'pg';
import type { Database } from '../db/client.js';

export interface RecordLocks {
  /** Runs `fn` while holding the lock named `key`. */
  with<T>(key: string, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

class ProcessLocks implements RecordLocks {
  private readonly tails = new Map<string, Promise<unknown>>();
  async with<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const run = before.catch(() => {}).then(fn);
    const tail = run.catch(() => {});
    this.tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
  async close() {}
}

class AdvisoryLocks implements RecordLocks {
  // Its own pool: a lock holder's work uses the main pool, so holders cannot starve it.
  private readonly pool: pg.Pool;
  constructor(connectionString: string) {
    this.pool = new pg.Pool({ connectionString, max: 4, connectionTimeoutMillis: 5_000 });
    // A lost connection fails the holder's queries; it must not crash the process (see db/client.ts).
    this.pool.on('error', () => {});
    this.pool.on('connect', (client) => client.on('error', () => {}));
  }
  async with<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
      return await fn();
    } finally {
      await client.query('COMMIT').catch(() => {});
      client.release();
    }
  }
  close() {
    return this.pool.end();
  }
}

/** The record locks for a database. */
export function recordLocks(database: Database, databaseUrl: string | null): RecordLocks {
  return database.kind === 'postgres' && databaseUrl ? new AdvisoryLocks(databaseUrl) : new ProcessLocks();
}

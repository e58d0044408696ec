// The database handle every module uses, on PostgreSQL or the embedded PGlite.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { sql, type SQL } from 'drizzle-orm';
import type * as schema from './schema.js';
import { Publisher, publishAfterCommit, publishSql } from './after-commit.js';
import { genericTwin } from '../core/prepared.js';

/** A Drizzle handle on either engine, or a transaction of one: the same API for both. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** Applies pending migrations; safe when several processes start at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** The pg pool (PostgreSQL only), for LISTEN/NOTIFY and health checks. */
  pool: pg.Pool | null;
  /** PostgreSQL only: the pool whose sessions may keep generic plans (core/prepared.ts's `generic` statements). */
  genericPool?: pg.Pool | null;
  /** The embedded engine (PGlite only), for LISTEN/NOTIFY within the process. */
  pglite?: PGlite | null;
  /** Sends the live events of committed writes (db/after-commit.ts). */
  publisher: Publisher;
}

/** What an engine's module opens: a Database but for the publisher openDatabase adds. */
export type OpenedDatabase = Omit<Database, 'publisher'>;

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface OpenOptions {
  databaseUrl: string | null;
  dataDir: string;
  poolSize?: number;
  /** PostgreSQL: the longest a statement may run before it is cancelled (the request answers 503). Default 30 s. */
  statementTimeoutSeconds?: number;
}

/**
 * Opens the database named by DATABASE_URL, or the embedded PGlite under dataDir. Each
 * engine's module (and its driver: pg, or PGlite's ~0.1 s of loading) is imported only
 * when it is the one opened.
 */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  const opened = options.databaseUrl
    ? (await import('./postgres.js')).openPostgres({ ...options, databaseUrl: options.databaseUrl })
    : await (await import('./pglite.js')).openPglite(options);
  // Writes queue their live events on their transaction; they go out once it has committed.
  const { db } = opened;
  const publisher = new Publisher((batch) => db.execute(publishSql(batch)));
  publishAfterCommit(db, publisher);
  if (opened.kind === 'postgres') publishAfterCommit(genericTwin(db), publisher);
  return {
    ...opened,
    publisher,
    async close() {
      await publisher.drain();
      await opened.close();
    },
  };
}

/** Runs a raw query and returns its rows, on either engine. */
export async function query<T>(db: Db, statement: SQL): Promise<T[]> {
  const result = (await db.execute(statement)) as unknown as { rows: T[] };
  return result.rows;
}

export { sql };

// A fresh database of a test's own, for tests of migrations: in-process PGlite, or a
// scratch PostgreSQL database created on the run's server and dropped afterwards.
// And, on PostgreSQL, a lock held from outside the service while a test runs (whileHeld).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { DB_KIND, TEST_DATABASE_URL } from './env.ts';

export type Run = (text: string, params?: unknown[]) => Promise<{ rows: any[] }>;

/** A fresh database: `steps` run with a migrate function (to a folder) and SQL access. */
export async function withScratchDatabase(steps: (migrate: (folder: string) => Promise<void>, run: Run) => Promise<void>): Promise<void> {
  if (DB_KIND === 'pglite') {
    const db = new PGlite({ extensions: { pg_trgm } });
    try {
      await steps((folder) => migratePglite(drizzlePglite(db), { migrationsFolder: folder }), (text, params) => db.query(text, params));
    } finally {
      await db.close();
    }
    return;
  }
  const { url, drop } = await scratchDatabase('mig');
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    await steps((folder) => migratePg(drizzlePg(pool), { migrationsFolder: folder }), (text, params) => pool.query(text, params as unknown[]));
  } finally {
    await pool.end();
    await drop();
  }
}

/**
 * A PostgreSQL database of a test's own on the run's server, set as test/run.ts sets the
 * run's (synchronous_commit off: docs/testing.md): its URL, and `drop` (WITH FORCE, safe
 * to call more than once).
 */
export async function scratchDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  assert.ok(TEST_DATABASE_URL, 'a scratch database is made on the run\'s PostgreSQL server');
  const admin = TEST_DATABASE_URL;
  const name = `records_${label}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
    await client.query(`ALTER DATABASE "${name}" SET synchronous_commit = off`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: admin });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/**
 * PostgreSQL only: runs `steps` while a transaction of the test's own, on the run's
 * database, holds what `lock` locks (a `SELECT … FOR UPDATE` with `params`); the
 * transaction rolls back after, whatever `steps` did. `steps` gets that connection.
 */
export async function whileHeld<T>(lock: string, params: unknown[], steps: (holder: pg.Client) => Promise<T>): Promise<T> {
  const holder = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(lock, params);
    return await steps(holder);
  } finally {
    await holder.query('ROLLBACK').catch(() => {});
    await holder.end();
  }
}

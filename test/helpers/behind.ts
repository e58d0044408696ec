// Direct SQL on the database behind a server, for tests that change what the API cannot
// (a version rewritten, a credential's last use moved back): through `pg` on PostgreSQL
// (the run's database, TEST_DATABASE_URL); on PGlite, which lives inside the server
// process, the server is stopped, DATA_DIR/pgdata opened with PGlite, and the server
// started again on the same folder.
import assert from 'node:assert/strict';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { DB_KIND, TEST_DATABASE_URL } from './env.ts';
import { startServer, type RunningServer } from './server.ts';

export type Runner = (text: string, params?: unknown[]) => Promise<{ rows: any[] }>;

/**
 * Runs `change` with SQL access to the database of `server` (the harness's server when
 * null, PostgreSQL only). Returns the server to call afterwards: on PGlite a new process
 * on the same data folder, started with `env`.
 */
export async function behindTheApi(
  server: RunningServer | null, change: (run: Runner) => Promise<void>, env?: Record<string, string>,
): Promise<RunningServer | null> {
  if (DB_KIND === 'postgres') {
    assert.ok(TEST_DATABASE_URL, 'the harness gives TEST_DATABASE_URL on PostgreSQL');
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await change((text, params) => client.query(text, params as unknown[]));
    } finally {
      await client.end();
    }
    return server;
  }
  assert.ok(server, 'on PGlite the test runs a server of its own');
  await server.stop();
  const db = new PGlite(path.join(server.dataDir, 'pgdata'), { extensions: { pg_trgm } });
  try {
    await change((text, params) => db.query(text, params as unknown[]));
  } finally {
    await db.close();
  }
  return startServer({ databaseUrl: null, dataDir: server.dataDir, env });
}

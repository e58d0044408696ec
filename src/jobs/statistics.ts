// The planner's statistics (session 12). PostgreSQL plans every statement from figures of
// each table's size and contents that ANALYZE gathers; autovacuum refreshes them as tables
// change, but the embedded engine has no autovacuum and some servers run with it off. On
// figures from when a table was small, the plans go wrong as it grows (an export of a
// table analyzed before a million rows came in read 1,530 rows/s; analyzed, 16,000).
// Every STATISTICS_CHECK_SECONDS each process looks for tables changed past autovacuum's
// own default threshold (50 rows and a tenth of the table since their last ANALYZE) and
// analyzes them, skipping a table another process is analyzing. Where autovacuum runs it
// keeps the figures fresh first, and this finds nothing to do.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../db/client.js';
import type { JobSpec } from './registry.js';

/** The most tables one run analyzes (the most changed first); the rest wait for the next run. */
const TABLES_A_RUN = 8;

/** The service's tables whose statistics are stale by autovacuum's default measure, most changed first. */
export async function staleTables(db: Db): Promise<string[]> {
  const found = await query<{ name: string }>(db, sql`
    SELECT s.relname AS name
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema()
       AND s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
     ORDER BY s.n_mod_since_analyze DESC
     LIMIT ${TABLES_A_RUN}`);
  return found.map((t) => t.name);
}

export function statisticsJob(db: Db, everySeconds: number): JobSpec {
  let stale: string[] = [];
  return {
    name: 'statistics',
    everySeconds,
    due: async () => (stale = await staleTables(db)).length > 0,
    run: async () => {
      const tables = sql.join(stale.map((name) => sql.identifier(name)), sql`, `);
      await db.execute(sql`ANALYZE (SKIP_LOCKED) ${tables}`);
    },
  };
}

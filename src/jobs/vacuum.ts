// The credit_shards table holds each organization's credits, and every priced cell write
// updates one of its rows: at hundreds of writes a second its dead row versions pile up
// faster than autovacuum (at most once a minute, and off on some servers) clears them,
// and each write walks them (measured: 900 → 320 writes/s within 90 s; a VACUUM restored
// 900 at once). Every process vacuums it every few seconds: a few pages, milliseconds,
// skipped when another process is at it. The row counters (record_row_counts, a few
// stripes per table and project, updated by every row insert) are the same kind of row.
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import type { JobSpec } from './registry.js';

export const CREDITS_VACUUM_SECONDS = 10;

export function creditsVacuum(db: Db): JobSpec {
  return {
    name: 'vacuum',
    everySeconds: CREDITS_VACUUM_SECONDS,
    run: async () => {
      await db.execute(sql`VACUUM (SKIP_LOCKED) credit_shards, record_row_counts`);
    },
  };
}

// The retention job: what the service keeps only for a while is deleted once that while
// is over (the times are in docs/configuration.md, "Retention"). Every process runs it (a job of
// jobs/registry.ts); rows are deleted in batches claimed with FOR UPDATE SKIP LOCKED, so
// several processes at once neither wait for each other nor do the work twice.
import fs from 'node:fs/promises';
import path from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { query, type Db } from '../db/client.js';
import { KEEP_HOURS } from '../core/idempotency.js';
import type { JobSpec } from './registry.js';

/** Sent mail (it holds reset, invitation and proof links in clear) is kept this long after sending. */
export const SENT_MAIL_HOURS = 24;
/** Mail that could not be delivered is kept this long after it was queued, for the operator to look into. */
export const FAILED_MAIL_DAYS = 7;
const BATCH = 5_000;

/** What each purge deletes: a table and the condition of its expired rows (each backed by an index). */
function purges(tokenIdleMinutes: number): Array<{ name: string; table: SQL; expired: SQL }> {
  return [
    { name: 'sent mail', table: sql`mail_outbox`, expired: sql`status = 'sent' AND date_sent < now() - make_interval(hours => ${SENT_MAIL_HOURS})` },
    { name: 'failed mail', table: sql`mail_outbox`, expired: sql`status = 'failed' AND date_created < now() - make_interval(days => ${FAILED_MAIL_DAYS})` },
    { name: 'idempotency keys', table: sql`idempotency_keys`, expired: sql`date_created < now() - make_interval(hours => ${KEEP_HOURS})` },
    { name: 'expired sessions', table: sql`credentials`, expired: sql`kind = 'session' AND last_used_at < now() - make_interval(mins => ${tokenIdleMinutes})` },
    // Sign-in and mail counters (core/rate-limit.ts) are dead once their window has passed.
    { name: 'rate limits', table: sql`rate_limits`, expired: sql`expires_at < now()` },
    { name: 'email proofs', table: sql`email_proofs`, expired: sql`expires_at < now()` },
    // Reset and invitation tags, used or not, once they no longer open anything.
    { name: 'password resets', table: sql`password_resets`, expired: sql`expires_at < now()` },
    // Device cookies not used for a year, and unlock links, once they no longer open anything.
    { name: 'trusted devices', table: sql`trusted_devices`, expired: sql`expires_at < now()` },
    { name: 'unlock tags', table: sql`unlock_tags`, expired: sql`expires_at < now()` },
  ];
}

/** Deletes every expired row, batch by batch; returns how many of each were deleted. */
export async function purgeExpired(db: Db, tokenIdleMinutes: number): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const purge of purges(tokenIdleMinutes)) {
    deleted[purge.name] = 0;
    for (;;) {
      const [{ n }] = await query<{ n: number }>(db, sql`
        WITH gone AS (
          DELETE FROM ${purge.table} WHERE ctid = ANY(ARRAY(
            SELECT ctid FROM ${purge.table} WHERE ${purge.expired} LIMIT ${BATCH} FOR UPDATE SKIP LOCKED))
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`);
      deleted[purge.name] += n;
      if (n < BATCH) break;
    }
  }
  return deleted;
}

/**
 * Deletes the mail files (DATA_DIR/mail/*.eml, written when there is no SMTP_URL) older than
 * SENT_MAIL_HOURS: they hold reset, invitation and proof links in clear, like the outbox's rows.
 * Returns how many were deleted. A file another process deleted first is skipped.
 */
export async function purgeMailFiles(dataDir: string, now = Date.now()): Promise<number> {
  const dir = path.join(dataDir, 'mail');
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  let deleted = 0;
  for (const name of names) {
    if (!/\.eml(\.tmp)?$/.test(name)) continue;
    const file = path.join(dir, name);
    const stat = await fs.stat(file).catch(() => null);
    if (!stat || now - stat.mtimeMs < SENT_MAIL_HOURS * 3_600_000) continue;
    if (await fs.unlink(file).then(() => true, () => false)) deleted += 1;
  }
  return deleted;
}

/** The job: purgeExpired and purgeMailFiles every `everySeconds` (RETENTION_CHECK_SECONDS), first a minute after start-up (or sooner). */
export function retentionJob(options: { db: Db; log: FastifyBaseLogger; everySeconds: number; tokenIdleMinutes: number; dataDir: string }): JobSpec {
  return {
    name: 'retention',
    everySeconds: options.everySeconds,
    firstSeconds: Math.min(60, options.everySeconds),
    run: async () => {
      const deleted = await purgeExpired(options.db, options.tokenIdleMinutes);
      deleted['mail files'] = await purgeMailFiles(options.dataDir);
      if (Object.values(deleted).some((n) => n > 0)) options.log.info({ deleted }, 'retention: expired rows deleted');
    },
  };
}

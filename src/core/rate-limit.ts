// Fixed-window counters in the database (table rate_limits), shared by every process:
// sign-in attempts and mail quotas. Taking a hit is one statement that counts and checks
// at once, so concurrent requests can never get past a limit together.
import { sql, type SQL } from 'drizzle-orm';
import { query, type Db } from '../db/client.js';

export interface Taken {
  /** Whether the hits fitted under the limit (and were counted). */
  ok: boolean;
  /** Hits in the window after this call (when ok). */
  hits: number;
  /** Seconds until the window ends (at least 1). */
  retryAfter: number;
}

/**
 * Counts `n` hits on `key` in a window of `windowSeconds` if the window's hits stay at
 * most `max`; otherwise counts nothing and answers ok: false. One atomic statement: the
 * row lock of the conflicting INSERT makes concurrent callers take turns.
 */
export async function takeHits(db: Db, key: string, n: number, max: number, windowSeconds: number): Promise<Taken> {
  if (n > max) return { ok: false, hits: 0, retryAfter: windowSeconds };
  const [row] = await query<{ hits: number; remaining: number }>(db, takeHitsSql(key, n, max, windowSeconds));
  if (row) return { ok: true, hits: row.hits, retryAfter: row.remaining };
  return { ok: false, hits: max, retryAfter: await secondsLeft(db, key, windowSeconds) };
}

/**
 * The statement of takeHits, for a caller that runs it inside a larger statement (a
 * CTE): it counts only when `when` holds, and returns a row (hits, remaining) only when
 * the hits were counted (never when n > max).
 */
export function takeHitsSql(key: string, n: number, max: number, windowSeconds: number, when: SQL = sql`TRUE`): SQL {
  return sql`
    INSERT INTO rate_limits AS r (key, hits, window_start, expires_at)
    SELECT ${key}::text, ${n}::int, now(), now() + make_interval(secs => ${windowSeconds}::int) WHERE ${n}::int <= ${max}::int AND ${when}
    ON CONFLICT (key) DO UPDATE SET
      hits = CASE WHEN r.expires_at <= now() THEN excluded.hits ELSE r.hits + excluded.hits END,
      window_start = CASE WHEN r.expires_at <= now() THEN now() ELSE r.window_start END,
      next_allowed_at = CASE WHEN r.expires_at <= now() THEN NULL ELSE r.next_allowed_at END,
      expires_at = CASE WHEN r.expires_at <= now() THEN excluded.expires_at ELSE r.expires_at END
    WHERE r.expires_at <= now() OR r.hits + excluded.hits <= ${max}::int
    RETURNING r.hits, GREATEST(1, CEIL(EXTRACT(EPOCH FROM (r.expires_at - now()))))::int AS remaining`;
}

/** Seconds until the window of `key` ends (at least 1; `fallback` when there is none). */
export async function secondsLeft(db: Db, key: string, fallback: number): Promise<number> {
  const [row] = await query<{ remaining: number }>(db, sql`
    SELECT GREATEST(1, CEIL(EXTRACT(EPOCH FROM (expires_at - now()))))::int AS remaining FROM rate_limits WHERE key = ${key}`);
  return row?.remaining ?? fallback;
}

/** Gives back `n` hits taken on `key` (never below zero). */
export async function giveBackHits(db: Db, key: string, n = 1): Promise<void> {
  await db.execute(sql`UPDATE rate_limits SET hits = GREATEST(hits - ${n}, 0) WHERE key = ${key} AND expires_at > now()`);
}

/** Forgets `key`'s window. */
export async function clearHits(db: Db, key: string): Promise<void> {
  await db.execute(sql`DELETE FROM rate_limits WHERE key = ${key}`);
}

/**
 * While `key` has at least `threshold` hits in its window, lets one caller through every
 * `everySeconds` (the claim is atomic); answers the seconds to wait, or 0 to go ahead.
 */
export async function slowDown(db: Db, key: string, threshold: number, everySeconds: number): Promise<number> {
  const [claimed] = await query<{ wait: number }>(db, sql`
    WITH current AS (SELECT key, hits, next_allowed_at FROM rate_limits WHERE key = ${key} AND expires_at > now() AND hits >= ${threshold}),
         claim AS (
           UPDATE rate_limits r SET next_allowed_at = now() + make_interval(secs => ${everySeconds})
             FROM current c WHERE r.key = c.key AND (r.next_allowed_at IS NULL OR r.next_allowed_at <= now())
           RETURNING r.key)
    SELECT CASE WHEN EXISTS (SELECT 1 FROM claim) THEN 0
                ELSE GREATEST(1, CEIL(EXTRACT(EPOCH FROM (c.next_allowed_at - now()))))::int END AS wait
      FROM current c`);
  return claimed?.wait ?? 0;
}

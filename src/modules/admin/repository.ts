// What the instance administrators read and change across every organization: the
// organizations, the accounts, the outbox's health. Lists are newest first, each filter
// served by an index (migration 0032: users_joined_idx, organizations_created_idx and the
// trigram indexes of the searches).
import { sql, type SQL } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { counted, type Counted } from '../../core/pagination.js';
import { containsPattern, formatMoney } from '../../core/sql.js';
import { normalizeEmail } from '../../core/email.js';
import { creditsOf } from '../credits/service.js';

const ts = (column: SQL) => sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const nameOf = (alias: string) => {
  const u = sql.identifier(alias);
  return sql`coalesce(nullif(trim(${u}.first_name || ' ' || ${u}.last_name), ''), ${u}.email, '')`;
};

// ------------------------------------------------------------ organizations --

function organizationsWhere(search: string | undefined): SQL {
  return search ? sql`o.name ILIKE ${containsPattern(search)}` : sql`TRUE`;
}

export interface AdminOrganizationRow {
  sid: string; name: string; description: string; credits: string; created_by_sid: string | null; created_by_name: string | null; date_created: string;
}

/** A page of every organization (those whose name contains `search`), newest first, with the count. */
export async function pageOrganizations(db: Db, search: string | undefined, limit: number, offset: number): Promise<Counted<AdminOrganizationRow>> {
  const where = organizationsWhere(search);
  return counted(await query<AdminOrganizationRow & { total: number }>(db, sql`
    SELECT o.sid, o.name, o.description, ${creditsOf(sql`o.sid` as never)}::text AS credits,
           c.sid AS created_by_sid, ${nameOf('c')} AS created_by_name, ${ts(sql`o.date_created`)} AS date_created,
           (SELECT count(*)::int FROM organizations o WHERE ${where}) AS total
      FROM organizations o LEFT JOIN users c ON c.sid = o.created_by
     WHERE ${where}
     ORDER BY o.date_created DESC, o.sid DESC LIMIT ${limit} OFFSET ${offset}`));
}

export async function countOrganizations(db: Db, search: string | undefined): Promise<number> {
  const [row] = await query<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM organizations o WHERE ${organizationsWhere(search)}`);
  return row.n;
}

/** An organization row in a shape. */
export function serializeAdminOrganization(row: AdminOrganizationRow, serializer: 'name' | 'list' | 'detail') {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  return {
    sid: row.sid, name: row.name, description: row.description, credits: formatMoney(row.credits),
    created_by: row.created_by_sid ? { sid: row.created_by_sid, name: row.created_by_name ?? '' } : null,
    date_created: row.date_created, change_permission: true,
  };
}

/** The organization `sid` (its name), if there is one. */
export async function findOrganization(db: Db, sid: string): Promise<{ sid: string; name: string } | undefined> {
  const [row] = await query<{ sid: string; name: string }>(db, sql`SELECT sid, name FROM organizations WHERE sid = ${sid}`);
  return row;
}

// ----------------------------------------------------------------- accounts --

/** Name contains `search` (ILIKE), or the address's key contains the text's key (core/email.ts: one way to compare addresses). */
function accountsWhere(search: string | undefined): SQL {
  if (!search) return sql`TRUE`;
  return sql`((u.first_name || ' ' || u.last_name) ILIKE ${containsPattern(search)} OR u.email_key LIKE ${containsPattern(normalizeEmail(search))})`;
}

export interface AdminAccountRow {
  sid: string; name: string; email: string; first_name: string; last_name: string;
  is_active: boolean; is_email_verified: boolean; is_instance_admin: boolean; date_joined: string;
}

const accountColumns = sql`u.sid, ${nameOf('u')} AS name, u.email, u.first_name, u.last_name, u.is_active,
  u.email_verified_at IS NOT NULL AS is_email_verified, u.is_instance_admin, ${ts(sql`u.date_joined`)} AS date_joined`;

/** A page of every account (those whose name or email contains `search`), newest first, with the count. */
export async function pageAccounts(db: Db, search: string | undefined, limit: number, offset: number): Promise<Counted<AdminAccountRow>> {
  const where = accountsWhere(search);
  return counted(await query<AdminAccountRow & { total: number }>(db, sql`
    SELECT ${accountColumns}, (SELECT count(*)::int FROM users u WHERE ${where}) AS total
      FROM users u WHERE ${where}
     ORDER BY u.date_joined DESC, u.sid DESC LIMIT ${limit} OFFSET ${offset}`));
}

export async function countAccounts(db: Db, search: string | undefined): Promise<number> {
  const [row] = await query<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM users u WHERE ${accountsWhere(search)}`);
  return row.n;
}

export async function findAccount(db: Db, sid: string): Promise<AdminAccountRow | undefined> {
  const [row] = await query<AdminAccountRow>(db, sql`SELECT ${accountColumns} FROM users u WHERE u.sid = ${sid}`);
  return row;
}

/**
 * Disables (false) or enables (true) an account, in one transaction: a disabled account's
 * sessions are deleted (its open streams end at their next check) and its API keys stop
 * working while it stays disabled (every credential's query asks for an active account).
 */
export async function setAccountActive(db: Db, sid: string, active: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`UPDATE users SET is_active = ${active} WHERE sid = ${sid}`);
    if (!active) await tx.execute(sql`DELETE FROM credentials WHERE user_sid = ${sid} AND kind = 'session'`);
  });
}

// ------------------------------------------------------------------- outbox --

/** How the mail outbox is doing: each count through its partial index (mail_outbox_*_idx). */
export async function outboxHealth(db: Db) {
  const [row] = await query<{
    pending: number; retrying: number; failed: number; oldest: number | null; sent_last_hour: number;
    failure_date: string | null; failure_error: string | null;
  }>(db, sql`
    WITH pending AS (SELECT date_created, attempts, last_error FROM mail_outbox WHERE status = 'pending'),
         failure AS (
           (SELECT date_created, last_error FROM pending WHERE last_error IS NOT NULL ORDER BY date_created DESC LIMIT 1)
           UNION ALL
           (SELECT date_created, last_error FROM mail_outbox WHERE status = 'failed' ORDER BY date_created DESC LIMIT 1))
    SELECT (SELECT count(*)::int FROM pending) AS pending,
           (SELECT count(*)::int FROM pending WHERE attempts > 0 AND last_error IS NOT NULL) AS retrying,
           (SELECT count(*)::int FROM mail_outbox WHERE status = 'failed') AS failed,
           (SELECT extract(epoch FROM (now() - min(date_created)))::float8 FROM pending) AS oldest,
           (SELECT count(*)::int FROM mail_outbox WHERE status = 'sent' AND date_sent > now() - interval '1 hour') AS sent_last_hour,
           (SELECT ${ts(sql`date_created`)} FROM failure ORDER BY date_created DESC LIMIT 1) AS failure_date,
           (SELECT last_error FROM failure ORDER BY date_created DESC LIMIT 1) AS failure_error`);
  return {
    pending: row.pending,
    retrying: row.retrying,
    failed: row.failed,
    oldest_pending_seconds: Math.max(0, Math.round(row.oldest ?? 0)),
    sent_last_hour: row.sent_last_hour,
    last_failure: row.failure_date ? { date_created: row.failure_date, error: row.failure_error ?? '' } : null,
  };
}

// Instance administrators (docs/decisions.md, "The instance's administrators"): the first
// account of a fresh instance, once it has proved its email, and whoever the operator's
// CLI names. Each rule is here once; the CLI, the proof of an email and the admin routes use them.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { normalizeEmail } from '../../core/email.js';
import { requireSession, type Actor } from '../../core/auth.js';

/**
 * Makes `userSid` an instance administrator when the instance has none and no account was
 * made before it: the first account of a fresh instance, at the moment its email is
 * proved. Once any administrator exists (the CLI names one), nobody becomes one this way.
 * In the caller's transaction. Whether it did.
 */
export async function grantFirstAccount(tx: Db, userSid: string): Promise<boolean> {
  const made = await query<{ sid: string }>(tx, sql`
    UPDATE users u SET is_instance_admin = true
     WHERE u.sid = ${userSid} AND u.email_verified_at IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM users a WHERE a.is_instance_admin)
       AND NOT EXISTS (SELECT 1 FROM users o WHERE (o.date_joined, o.sid) < (u.date_joined, u.sid))
    RETURNING u.sid`);
  return made.length > 0;
}

/** Grants (true) or revokes (false) the instance administrator role of the account with `email` (by its key); undefined: no such account. */
export async function setInstanceAdmin(tx: Db, email: string, admin: boolean) {
  const [row] = await query<{ sid: string; email: string; is_instance_admin: boolean }>(tx, sql`
    UPDATE users SET is_instance_admin = ${admin} WHERE email_key = ${normalizeEmail(email)}
    RETURNING sid, email, is_instance_admin`);
  return row;
}

/** How many instance administrators there are. */
export async function countInstanceAdmins(db: Db): Promise<number> {
  const [row] = await query<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM users WHERE is_instance_admin`);
  return row.n;
}

/**
 * Whether the caller may use the /admin/ routes: an instance administrator signed in with a
 * session. Their API key is refused with the reason (403, core/auth.ts requireSession): a
 * key left in a script must not hold the whole instance (docs/decisions.md).
 */
export function mayAdminister(actor: Actor): boolean {
  if (!actor.instanceAdmin) return false;
  requireSession(actor, 'administer the instance');
  return true;
}

/** The caller, who must be an instance administrator with a session (403 otherwise, as for any role a caller lacks). */
export function requireInstanceAdmin(actor: Actor): Actor {
  if (!mayAdminister(actor)) throw errors.forbidden();
  return actor;
}

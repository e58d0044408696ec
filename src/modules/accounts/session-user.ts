import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';

/** The signed-in person as GET and POST /accounts/session/ answer them (SessionUser), in one query. */
export async function sessionUser(db: Db, userSid: string) {
  const [row] = await query<{
    sid: string; first_name: string; last_name: string; email: string; is_email_verified: boolean; is_instance_admin: boolean; pending_email: string | null;
  }>(db, sql`
    SELECT u.sid, u.first_name, u.last_name, u.email, u.email_verified_at IS NOT NULL AS is_email_verified, u.is_instance_admin,
           CASE WHEN u.email_verified_at IS NULL THEN (
             SELECT p.email FROM email_proofs p
              WHERE p.user_sid = u.sid AND p.changes_signin AND p.used_at IS NULL AND p.expires_at > now()
              ORDER BY p.date_created DESC LIMIT 1) END AS pending_email
      FROM users u WHERE u.sid = ${userSid}`);
  if (!row) throw errors.invalidToken();
  return row;
}

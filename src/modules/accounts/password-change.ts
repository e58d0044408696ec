// A signed-in person changes their password (the current one required) or ends every
// session of their account ("sign out everywhere"). API keys are not sessions: they stay,
// and are deleted one by one (DELETE /accounts/apikey/detail/{sid}/). Both need a session:
// an API key may do neither (core/auth.ts requireSession). Wrong current passwords are
// limited like sign-in failures, so a stolen session cannot guess the password through here.
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { requireSession, type Actor } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { query, type Db } from '../../db/client.js';
import { clearHits, giveBackHits, takeHits } from '../../core/rate-limit.js';
import { assertStrongPassword, checkPassword, hashPassword } from './passwords.js';

const WRONG_PASSWORD = 'This is not your current password.';
const WINDOW_SECONDS = 15 * 60;

/** Deletes the account's session tokens, all of them or all but `keep`; returns how many. */
async function endSessions(tx: Db, userSid: string, keep: string | null): Promise<number> {
  const ended = await query<{ sid: string }>(tx, sql`
    DELETE FROM credentials
     WHERE user_sid = ${userSid} AND kind = 'session' AND (${keep}::text IS NULL OR sid <> ${keep}::text)
    RETURNING sid`);
  return ended.length;
}

/**
 * Sets a new password when `current` is the account's password (400 on `current_password`
 * otherwise), and ends every other session of the account, in one transaction under the
 * user's row lock (so two changes at once cannot both pass the check of the old password).
 * The caller's own session stays signed in. Each attempt first takes a hit on the
 * account's counter (LOGIN_FAILURES_PER_CLIENT per 15 minutes, whatever session asks;
 * 429 with Retry-After beyond), given back when the current password was right.
 */
export async function changePassword(ctx: AppContext, actor: Actor, current: string, next: string): Promise<void> {
  requireSession(actor, 'change the password');
  await assertStrongPassword(next, 'new_password', [actor.email, actor.firstName, actor.lastName]);
  const counter = `changepassword:${actor.userSid}`;
  const taken = await takeHits(ctx.db, counter, 1, ctx.config.loginFailuresPerClient, WINDOW_SECONDS);
  if (!taken.ok) throw errors.tooManyRequests(taken.retryAfter);
  let wrong = false;
  try {
    // The costly hash of the new password before the transaction, so the row lock is held only for the check.
    const passwordHash = await hashPassword(next);
    await ctx.db.transaction(async (tx) => {
      const [user] = await query<{ password_hash: string | null }>(tx, sql`
        SELECT password_hash FROM users WHERE sid = ${actor.userSid} FOR UPDATE`);
      if (!user || !(await checkPassword(user.password_hash, current))) {
        wrong = true;
        throw errors.field('current_password', WRONG_PASSWORD);
      }
      await tx.execute(sql`UPDATE users SET password_hash = ${passwordHash} WHERE sid = ${actor.userSid}`);
      await endSessions(tx, actor.userSid, actor.credentialSid);
    });
  } catch (err) {
    // Only a wrong current password keeps its hit.
    if (!wrong) await giveBackHits(ctx.db, counter);
    throw err;
  }
  await clearHits(ctx.db, counter);
}

/** Ends every session of the caller's account, the caller's own included; returns how many ended. */
export async function endEverySession(ctx: AppContext, actor: Actor): Promise<number> {
  requireSession(actor, 'end sessions');
  return ctx.db.transaction((tx) => endSessions(tx, actor.userSid, null));
}

// An account that has not proved its sign-in email yet (a typo at signup, an address it no
// longer reads) names another: POST /accounts/changeemail/. Nothing changes until the new
// address is proved: its link makes it the sign-in email (email-proof.ts, verifyEmail).
import { sql } from 'drizzle-orm';
import { query } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { normalizeEmail } from '../../core/email.js';
import { requireSession, type Actor } from '../../core/auth.js';
import { enqueueMail } from '../../mail/outbox.js';
import type { AppContext } from '../../context.js';
import { createProofTag, INVITED, isInvited } from './email-proof.js';
import { changeAddressMail, existingAccountMail } from './mails.js';
import { createResetTag, mayMailAccount, takeClientMailQuota, RESET_MINUTES } from './service.js';

/**
 * Mails `email` a link that makes it the caller's sign-in email and proves it. Answers the
 * same whether or not the address has an account (that address is told so instead, with a
 * reset link, as signup does), so nobody learns who has one; the quotas are signup's. 403
 * for an account whose email is proved (its sign-in address is not changed here) and for one an
 * organization added by its address (the invitation proves that one). Only a session may ask
 * (403 for an API key): the sign-in address is a credential, like the password (issue 21).
 */
export async function changeEmail(ctx: AppContext, actor: Actor, email: string, clientAddress: string): Promise<void> {
  requireSession(actor, 'change the sign-in address');
  if (actor.emailVerified) throw errors.refused('Your email address is proved: it is your sign-in address and cannot be changed here.');
  if (await isInvited(ctx.db, actor.userSid)) throw errors.refused(INVITED);
  await takeClientMailQuota(ctx, clientAddress);
  await ctx.db.transaction(async (tx) => {
    const mayMail = await mayMailAccount(tx, email);
    const [other] = await query<{ sid: string; email: string; is_active: boolean }>(tx, sql`
      SELECT sid, email, is_active FROM users WHERE email_key = ${normalizeEmail(email)} AND sid <> ${actor.userSid}`);
    // A tag either way, so the caller's pending address (GET /accounts/session/) looks the
    // same; when the address has an account, its owner is told so instead, and the tag
    // goes nowhere.
    const tag = await createProofTag(tx, actor.userSid, email, { changesSignin: true });
    if (other) {
      const reset = await createResetTag(tx, other.sid, RESET_MINUTES);
      if (mayMail && other.is_active) await enqueueMail(tx, existingAccountMail(ctx.config.mailBaseUrl, other.email, reset, RESET_MINUTES));
      return;
    }
    if (mayMail) await enqueueMail(tx, changeAddressMail(ctx.config.mailBaseUrl, email, actor.firstName, tag));
  });
  ctx.mail.kick();
}


// Password reset: forgetpassword mails a link, resetpassword sets the password with its tag.
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { query } from '../../db/client.js';
import { hashSecret } from '../../core/ids.js';
import { errors } from '../../core/errors.js';
import { isoTimestamp } from '../../core/sql.js';
import { credentials, passwordResets, users } from '../../db/schema.js';
import { and, desc, eq } from 'drizzle-orm';
import { enqueueMail } from '../../mail/outbox.js';
import { hashPassword } from './passwords.js';
import { proveAddress } from './email-proof.js';
import { resetMail } from './mails.js';
import { createResetTag, findUserByEmail, mayMailAccount, takeClientMailQuota, RESET_MINUTES } from './service.js';
import type { AppContext } from '../../context.js';

const BAD_TAG = 'This link is invalid or has expired; ask for a new one.';

/**
 * POST /accounts/forgetpassword/: takes one account mail from the client address's quota
 * (429 when spent), then answers at once; the lookup and the mail happen after the
 * answer, so neither the answer nor its time tells whether the email has an account.
 */
export async function forgetPassword(ctx: AppContext, email: string, clientAddress: string, log: FastifyBaseLogger): Promise<void> {
  await takeClientMailQuota(ctx, clientAddress);
  setImmediate(() => {
    mailResetLink(ctx, email).catch((err: Error) => log.warn({ err: { message: err.message } }, 'the password reset mail could not be queued'));
  });
}

/** Mails a reset link valid 30 minutes, listing the account's API keys, when the email has an active account. */
export async function mailResetLink(ctx: AppContext, email: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (!user || !user.isActive) return;
    if (!(await mayMailAccount(tx, user.email))) return;
    const keys = await tx.select({
      sid: credentials.sid, name: credentials.name,
      date_created: isoTimestamp(credentials.dateCreated), last_used: isoTimestamp(credentials.lastUsedAt),
    }).from(credentials).where(and(eq(credentials.userSid, user.sid), eq(credentials.kind, 'apikey'))).orderBy(desc(credentials.dateCreated));
    const tag = await createResetTag(tx, user.sid, RESET_MINUTES);
    await enqueueMail(tx, resetMail(ctx.config.mailBaseUrl, user, tag, RESET_MINUTES, keys));
  });
  ctx.mail.kick();
}

/**
 * Sets a password with a valid, unused tag (checked before the costly hashing, so bogus
 * tags cost nothing), proves the address the tag was mailed to, and ends every session
 * of the account (API keys stay; the reset mail listed them).
 */
export async function resetPassword(ctx: AppContext, tag: string, password: string): Promise<void> {
  const tagHash = hashSecret(tag);
  const live = sql`${passwordResets.tagHash} = ${tagHash} AND ${passwordResets.usedAt} IS NULL AND ${passwordResets.expiresAt} > now()`;
  const [found] = await ctx.db.select({ userSid: passwordResets.userSid }).from(passwordResets).where(live);
  if (!found) throw errors.field('tag', BAD_TAG);
  const passwordHash = await hashPassword(password);
  await ctx.db.transaction(async (tx) => {
    // Spent here, under the row's lock: of two requests with one tag, one sets the password.
    const [row] = await query<{ user_sid: string }>(tx, sql`
      UPDATE password_resets SET used_at = now() WHERE ${live} RETURNING user_sid`);
    if (!row) throw errors.field('tag', BAD_TAG);
    const [user] = await tx.update(users).set({ passwordHash }).where(eq(users.sid, row.user_sid)).returning({ email: users.email });
    await proveAddress(tx, row.user_sid, user.email);
    await tx.delete(credentials).where(sql`${credentials.userSid} = ${row.user_sid} AND ${credentials.kind} = 'session'`);
    await tx.delete(passwordResets).where(sql`${passwordResets.userSid} = ${row.user_sid} AND ${passwordResets.usedAt} IS NULL`);
  });
}

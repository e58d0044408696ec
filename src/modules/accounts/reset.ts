// Password reset: forgetpassword mails a link, resetpassword sets the password with its tag.
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { query } from '../../db/client.js';
import { hashSecret } from '../../core/ids.js';
import { errors } from '../../core/errors.js';
import { isoTimestamp } from '../../core/sql.js';
import { credentials, passwordResets, rateLimits, users } from '../../db/schema.js';
import { and, desc, eq } from 'drizzle-orm';
import { enqueueMail } from '../../mail/outbox.js';
import { assertStrongPassword, hashPassword } from './passwords.js';
import { proveAddress } from './email-proof.js';
import { resetMail } from './mails.js';
import { createResetTag, findUserByEmail, mayMailAccount, takeClientMailQuota, RESET_MINUTES } from './service.js';
import { accountCounter } from './signin.js';
import { trustDevice } from './devices.js';
import type { AppContext } from '../../context.js';
import { safeMessage } from '../../core/log-redaction.js';

/**
 * Labii's answers for a reset tag (406, plain text): a wrong, used or expired tag, and no tag
 * at all (docs/labii-compatibility.md).
 */
export const WRONG_TAG = 'Error: Wrong Tag! - Tag is not valid';
export const MISSING_TAG = 'Error: Missing Tag in GET! - Tag is missing in the url';

/**
 * POST /accounts/forgetpassword/: takes one account mail from the client address's quota
 * (429 when spent), then answers at once; the lookup and the mail happen after the
 * answer, so neither the answer nor its time tells whether the email has an account.
 */
export async function forgetPassword(ctx: AppContext, email: string, clientAddress: string, log: FastifyBaseLogger): Promise<void> {
  await takeClientMailQuota(ctx, clientAddress);
  setImmediate(() => {
    mailResetLink(ctx, email).catch((err: Error) => log.warn({ err: { message: safeMessage(err) } }, 'the password reset mail could not be queued'));
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
 * tags cost nothing; then a password easy to guess is refused, 400), proves the address
 * the tag was mailed to, ends every session of the account (API keys stay; the reset mail
 * listed them) and the account's sign-in slow-down (signin.ts: the strangers' failures no
 * longer hold up anyone), and trusts the client that sent it (devices.ts: the tag came by
 * mail). Returns the device token for its cookie.
 */
export async function resetPassword(ctx: AppContext, tag: string | undefined, password: string, device: string | undefined): Promise<string> {
  if (!tag) throw errors.notAcceptable(MISSING_TAG);
  const tagHash = hashSecret(tag);
  const live = sql`${passwordResets.tagHash} = ${tagHash} AND ${passwordResets.usedAt} IS NULL AND ${passwordResets.expiresAt} > now()`;
  const [found] = await ctx.db.select({ email: users.email, firstName: users.firstName, lastName: users.lastName })
    .from(passwordResets).innerJoin(users, eq(users.sid, passwordResets.userSid)).where(live);
  if (!found) throw errors.notAcceptable(WRONG_TAG);
  await assertStrongPassword(password, 'password', [found.email, found.firstName, found.lastName]);
  const passwordHash = await hashPassword(password);
  return ctx.db.transaction(async (tx) => {
    // Spent here, under the row's lock: of two requests with one tag, one sets the password.
    const [row] = await query<{ user_sid: string; personnel_sid: string | null }>(tx, sql`
      UPDATE password_resets SET used_at = now() WHERE ${live} RETURNING user_sid, personnel_sid`);
    if (!row) throw errors.notAcceptable(WRONG_TAG);
    // An invitation's tag: choosing the password accepts that organization (personnel/consent.ts).
    if (row.personnel_sid) {
      await tx.execute(sql`UPDATE personnel SET date_accepted = coalesce(date_accepted, now()) WHERE sid = ${row.personnel_sid} AND user_sid = ${row.user_sid}`);
    }
    const [user] = await tx.update(users).set({ passwordHash }).where(eq(users.sid, row.user_sid))
      .returning({ email: users.email, emailKey: users.emailKey });
    await proveAddress(tx, row.user_sid, user.email);
    await tx.delete(credentials).where(sql`${credentials.userSid} = ${row.user_sid} AND ${credentials.kind} = 'session'`);
    await tx.delete(passwordResets).where(sql`${passwordResets.userSid} = ${row.user_sid} AND ${passwordResets.usedAt} IS NULL`);
    if (user.emailKey !== null) await tx.delete(rateLimits).where(eq(rateLimits.key, accountCounter(user.emailKey)));
    return trustDevice(tx, row.user_sid, device);
  });
}

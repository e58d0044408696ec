import { sql, eq } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { users, credentials, passwordResets } from '../../db/schema.js';
import { newSid, newSecret, hashSecret } from '../../core/ids.js';
import { errors } from '../../core/errors.js';
import { normalizeEmail } from '../../core/email.js';
import { takeHits } from '../../core/rate-limit.js';
import { enqueueMail } from '../../mail/outbox.js';
import { assertStrongPassword, hashPassword } from './passwords.js';
import { createProofTag, proveAddress } from './email-proof.js';
import { existingAccountMail, proofMail } from './mails.js';
import type { AppContext } from '../../context.js';

export interface UserPublic {
  sid: string;
  email: string;
  first_name: string;
  last_name: string;
}

const RESET_MINUTES = 30;
const INVITATION_DAYS = 7;
/** Account mail (proof, reset, "you already have an account") one address receives per hour, at most. */
const ACCOUNT_MAIL_PER_RECIPIENT_PER_HOUR = 5;

function publicUser(row: { sid: string; email: string; firstName: string; lastName: string }): UserPublic {
  return { sid: row.sid, email: row.email, first_name: row.firstName, last_name: row.lastName };
}

/** The account with this email (compared by its key, core/email.ts), if any. */
export async function findUserByEmail(db: Db, email: string) {
  const [row] = await db.select().from(users).where(eq(users.emailKey, normalizeEmail(email)));
  return row;
}

/**
 * Creates an account; the email must be free (400 otherwise). `proven`: the email counts
 * as proved (accounts the operator makes with the CLI).
 */
export async function createUser(
  db: Db,
  input: { email: string; password: string | null; first_name?: string; last_name?: string },
  options: { proven?: boolean } = {},
): Promise<UserPublic> {
  if (await findUserByEmail(db, input.email)) throw errors.field('email', 'A user with this email already exists.');
  const [row] = await db.insert(users).values({
    sid: newSid(),
    email: input.email,
    emailKey: normalizeEmail(input.email),
    firstName: input.first_name ?? '',
    lastName: input.last_name ?? '',
    passwordHash: input.password === null ? null : await hashPassword(input.password),
  }).returning();
  if (options.proven) await proveAddress(db, row.sid, row.email);
  return publicUser(row);
}

/**
 * The account with this email, created without a password when there is none (an
 * invitation). Two requests creating the same account at once both get it: the loser's
 * insert waits for the winner's commit and does nothing. `created`: this call made it.
 */
export async function ensureUser(db: Db, input: { email: string; first_name?: string; last_name?: string }) {
  const found = await findUserByEmail(db, input.email);
  if (found) return { user: found, created: false };
  const [made] = await db.insert(users).values({
    sid: newSid(), email: input.email, emailKey: normalizeEmail(input.email), firstName: input.first_name ?? '', lastName: input.last_name ?? '', passwordHash: null,
  }).onConflictDoNothing().returning();
  return made ? { user: made, created: true } : { user: (await findUserByEmail(db, input.email))!, created: false };
}

/**
 * Takes one account mail from the client address's hourly quota (signup, password reset):
 * 429 when it is spent. The same for every email, known or not.
 */
export async function takeClientMailQuota(ctx: AppContext, clientAddress: string): Promise<void> {
  const taken = await takeHits(ctx.db, `mail:client:${clientAddress}`, 1, ctx.config.accountMailPerClientPerHour, 3600);
  if (!taken.ok) throw errors.quotaExceeded('Too many account emails were asked for from your address.', taken.retryAfter);
}

/**
 * Takes `n` mails from a signed-in sender's hourly quota (MAIL_PER_USER_PER_HOUR): should_email
 * notifications, invitations, proofs of changed addresses. 429 when they do not fit; the
 * caller's transaction then rolls back, so nothing is written.
 */
export async function takeSenderMailQuota(ctx: AppContext, tx: Db, userSid: string, n: number): Promise<void> {
  if (n <= 0) return;
  const quota = senderMailQuota(ctx, userSid, n);
  const taken = await takeHits(tx, quota.key, n, quota.max, quota.windowSeconds);
  if (!taken.ok) throw senderMailQuotaExceeded(ctx, taken.retryAfter);
}

/** The sender's hourly mail quota, for a caller that takes `n` of it inside a statement of its own (takeHitsSql). */
export function senderMailQuota(ctx: AppContext, userSid: string, n: number) {
  return { key: `mail:user:${userSid}`, n, max: ctx.config.mailPerUserPerHour, windowSeconds: 3600 };
}

/** The 429 of a sender's spent mail quota. */
export function senderMailQuotaExceeded(ctx: AppContext, retryAfter: number) {
  return errors.quotaExceeded(`You may send at most ${ctx.config.mailPerUserPerHour} emails an hour.`, retryAfter);
}

/** Whether one more account mail may go to `email` this hour (counted when it may). */
export async function mayMailAccount(db: Db, email: string): Promise<boolean> {
  return (await takeHits(db, `mail:to:${normalizeEmail(email)}`, 1, ACCOUNT_MAIL_PER_RECIPIENT_PER_HOUR, 3600)).ok;
}

/**
 * Signup. Answers the same (201, a sid, is_email_verified false) whether or not the email
 * already has an account, in the same time (the password is hashed either way): a new
 * account gets the link that proves its email, an existing one a mail saying it exists,
 * with a link to reset its password. The mail says the rest. A password easy to guess is
 * refused first (400), from what was sent alone, so that answer tells nothing either.
 */
export async function signup(
  ctx: AppContext,
  input: { email: string; password: string; first_name?: string; last_name?: string },
  clientAddress: string,
) {
  await assertStrongPassword(input.password, 'password', [input.email, input.first_name ?? '', input.last_name ?? '']);
  await takeClientMailQuota(ctx, clientAddress);
  const passwordHash = await hashPassword(input.password);
  const sid = newSid();
  const answer = { sid, email: input.email, first_name: input.first_name ?? '', last_name: input.last_name ?? '', is_email_verified: false };
  await ctx.db.transaction(async (tx) => {
    const made = await query<{ sid: string }>(tx, sql`
      INSERT INTO users (sid, email, email_key, first_name, last_name, password_hash)
      VALUES (${sid}, ${input.email}, ${normalizeEmail(input.email)}, ${answer.first_name}, ${answer.last_name}, ${passwordHash})
      ON CONFLICT (email_key) DO NOTHING RETURNING sid`);
    const mayMail = await mayMailAccount(tx, input.email);
    if (made.length) {
      const tag = await createProofTag(tx, sid, input.email);
      if (mayMail) await enqueueMail(tx, proofMail(ctx.config.mailBaseUrl, input.email, answer.first_name, tag));
      return;
    }
    const existing = (await findUserByEmail(tx, input.email))!;
    const tag = await createResetTag(tx, existing.sid, RESET_MINUTES);
    if (mayMail && existing.isActive) await enqueueMail(tx, existingAccountMail(ctx.config.mailBaseUrl, existing.email, tag, RESET_MINUTES));
  });
  ctx.mail.kick();
  return answer;
}

/** Issues a secret credential (session token or API key) for a user; returns the secret once. */
export async function issueCredential(db: Db, userSid: string, kind: 'session' | 'apikey', name = '') {
  const secret = newSecret();
  const [row] = await db.insert(credentials).values({ keyHash: hashSecret(secret), sid: newSid(), userSid, kind, name }).returning();
  return { secret, row };
}

/** Ends the session token the request was made with (an API key is deleted through its own endpoint). */
export async function logout(db: Db, credentialSid: string, kind: 'session' | 'apikey') {
  if (kind === 'session') await db.delete(credentials).where(eq(credentials.sid, credentialSid));
}

/** Ends the session whose token is `token` (an API key is left alone: it has its own endpoint). */
export async function endSession(db: Db, token: string) {
  if (token.length > 512) return;
  await db.delete(credentials).where(sql`${credentials.keyHash} = ${hashSecret(token)} AND ${credentials.kind} = 'session'`);
}

/** Creates a one-time tag for setting a password and returns it. */
export async function createResetTag(tx: Db, userSid: string, validMinutes: number, personnelSid: string | null = null): Promise<string> {
  const tag = newSecret();
  await tx.insert(passwordResets).values({
    tagHash: hashSecret(tag), userSid, personnelSid, expiresAt: sql`now() + make_interval(mins => ${validMinutes})` as never,
  });
  return tag;
}

export { publicUser, RESET_MINUTES, INVITATION_DAYS };

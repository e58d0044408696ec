import { sql, eq } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { users, credentials, passwordResets } from '../../db/schema.js';
import { newSid, newSecret, hashSecret } from '../../core/ids.js';
import { errors } from '../../core/errors.js';
import { enqueueMail } from '../../mail/outbox.js';
import { hashPassword, checkPassword } from './passwords.js';
import type { AppContext } from '../../context.js';

export interface UserPublic {
  sid: string;
  email: string;
  first_name: string;
  last_name: string;
}

const RESET_MINUTES = 30;
const INVITATION_DAYS = 7;
const FAILURE_WINDOW_SECONDS = 15 * 60;
const MAX_FAILURES_PER_ACCOUNT = 10;
const MAX_FAILURES_PER_ADDRESS = 50;

function publicUser(row: { sid: string; email: string; firstName: string; lastName: string }): UserPublic {
  return { sid: row.sid, email: row.email, first_name: row.firstName, last_name: row.lastName };
}

/** The account with this email (case-insensitive), if any. */
export async function findUserByEmail(db: Db, email: string) {
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`);
  return row;
}

/** Creates an account; the email must be free (400 otherwise). */
export async function createUser(
  db: Db,
  input: { email: string; password: string | null; first_name?: string; last_name?: string },
): Promise<UserPublic> {
  if (await findUserByEmail(db, input.email)) throw errors.field('email', 'A user with this email already exists.');
  const [row] = await db.insert(users).values({
    sid: newSid(),
    email: input.email,
    firstName: input.first_name ?? '',
    lastName: input.last_name ?? '',
    passwordHash: input.password === null ? null : await hashPassword(input.password),
  }).returning();
  return publicUser(row);
}

/** Issues a secret credential (session token or API key) for a user; returns the secret once. */
export async function issueCredential(db: Db, userSid: string, kind: 'session' | 'apikey', name = '') {
  const secret = newSecret();
  const [row] = await db.insert(credentials).values({ keyHash: hashSecret(secret), sid: newSid(), userSid, kind, name }).returning();
  return { secret, row };
}

async function failuresBlocking(db: Db, key: string, max: number): Promise<number | null> {
  const [row] = await query<{ failures: number; remaining: number }>(db, sql`
    SELECT failures, GREATEST(1, CEIL(EXTRACT(EPOCH FROM (window_start + make_interval(secs => ${FAILURE_WINDOW_SECONDS}) - now()))))::int AS remaining
      FROM login_failures WHERE key = ${key} AND window_start > now() - make_interval(secs => ${FAILURE_WINDOW_SECONDS})`);
  return row && row.failures >= max ? row.remaining : null;
}

async function recordFailure(db: Db, key: string) {
  await db.execute(sql`
    INSERT INTO login_failures (key, failures, window_start) VALUES (${key}, 1, now())
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE WHEN login_failures.window_start > now() - make_interval(secs => ${FAILURE_WINDOW_SECONDS}) THEN login_failures.failures + 1 ELSE 1 END,
      window_start = CASE WHEN login_failures.window_start > now() - make_interval(secs => ${FAILURE_WINDOW_SECONDS}) THEN login_failures.window_start ELSE now() END`);
}

/**
 * Signs in with email and password: a new session token, or 406 for wrong credentials.
 * Too many failures for one account or from one address within 15 minutes: 429 with Retry-After.
 */
export async function login(ctx: AppContext, username: string, password: string, address: string) {
  const accountKey = `account:${username.toLowerCase()}`;
  const addressKey = `address:${address}`;
  const wait = (await failuresBlocking(ctx.db, accountKey, MAX_FAILURES_PER_ACCOUNT))
    ?? (await failuresBlocking(ctx.db, addressKey, MAX_FAILURES_PER_ADDRESS));
  if (wait !== null) throw errors.tooManyRequests(wait);
  const user = await findUserByEmail(ctx.db, username);
  const ok = await checkPassword(user?.passwordHash ?? null, password);
  if (!user || !ok || !user.isActive) {
    await recordFailure(ctx.db, accountKey);
    await recordFailure(ctx.db, addressKey);
    throw errors.badCredentials();
  }
  await ctx.db.execute(sql`DELETE FROM login_failures WHERE key = ${accountKey}`);
  const { secret } = await issueCredential(ctx.db, user.sid, 'session');
  return { token: secret, user: publicUser(user) };
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
export async function createResetTag(tx: Db, userSid: string, validMinutes: number): Promise<string> {
  const tag = newSecret();
  await tx.insert(passwordResets).values({
    tagHash: hashSecret(tag), userSid, expiresAt: sql`now() + make_interval(mins => ${validMinutes})` as never,
  });
  return tag;
}

/** Where a person sets their password with a tag. */
export function resetLink(baseUrl: string, tag: string): string {
  return `${baseUrl}/accounts/resetpassword/?tag=${encodeURIComponent(tag)}`;
}

/**
 * Mails a reset link valid 30 minutes when the email has an account. Answers the same
 * either way, so the endpoint does not tell who has an account.
 */
export async function forgetPassword(ctx: AppContext, email: string, baseUrl: string) {
  await ctx.db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (!user || !user.isActive) return;
    const tag = await createResetTag(tx, user.sid, RESET_MINUTES);
    await enqueueMail(tx, {
      to: user.email,
      subject: 'Reset your Records Service password',
      body: `Hello ${user.firstName || user.email},\n\nSomeone (we hope you) asked to reset the password of your Records Service account.\n`
        + `Set a new password within ${RESET_MINUTES} minutes by sending it to:\n\n  POST ${resetLink(baseUrl, tag)}\n  {"password": "<new password>"}\n\n`
        + `Reset tag: ${tag}\n\nIf you did not ask for this, ignore this message; your password stays as it is.\n`,
    });
  });
  ctx.mail.kick();
}

/** Sets a password with a valid, unused tag, and ends every existing session of the account. */
export async function resetPassword(ctx: AppContext, tag: string, password: string) {
  const passwordHash = await hashPassword(password);
  await ctx.db.transaction(async (tx) => {
    const [row] = await query<{ user_sid: string }>(tx, sql`
      UPDATE password_resets SET used_at = now()
       WHERE tag_hash = ${hashSecret(tag)} AND used_at IS NULL AND expires_at > now()
      RETURNING user_sid`);
    if (!row) throw errors.field('tag', 'This link is invalid or has expired; ask for a new one.');
    await tx.update(users).set({ passwordHash }).where(eq(users.sid, row.user_sid));
    await tx.delete(credentials).where(sql`${credentials.userSid} = ${row.user_sid} AND ${credentials.kind} = 'session'`);
    await tx.delete(passwordResets).where(sql`${passwordResets.userSid} = ${row.user_sid} AND ${passwordResets.usedAt} IS NULL`);
  });
}

export { RESET_MINUTES, INVITATION_DAYS };

// Device cookies (issue 21, point 5), after OWASP's "Slow Down Online Guessing Attacks
// with Device Cookies": a browser or client that signed in to an account before carries a
// cookie naming it (a random token, stored hashed per account); its sign-ins to that
// account are limited by a counter of its own (LOGIN_FAILURES_PER_CLIENT per 15 minutes),
// never by the per-address limits or the account-wide slow-down that strangers' failures
// cause. So strangers hammering an account from many addresses slow down only clients
// the account has never seen, and its owner signs in at once from their usual browser.
// Following the mailed unlock link, or a password reset link, trusts the client that
// follows it the same way (the mail proves it is the owner's).
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { query, type Db } from '../../db/client.js';
import { unlockTags } from '../../db/schema.js';
import { errors } from '../../core/errors.js';
import { hashSecret, newSecret } from '../../core/ids.js';

/** The cookie (HttpOnly, SameSite=Strict, Path=/accounts/, a year). */
export const DEVICE_COOKIE = 'records_device';
/** How long a client stays trusted after its last sign-in. */
export const DEVICE_DAYS = 365;
/**
 * The most clients an account trusts at once: a new one pushes out the one that signed in
 * longest ago, so a script that signs in often without keeping cookies cannot grow the table.
 */
export const DEVICES_PER_ACCOUNT = 20;
/** How long the mailed unlock link is valid (once). */
export const UNLOCK_HOURS = 24;

/** The device cookie's token, when the request carries a plausible one (parsed by @fastify/cookie). */
export function deviceTokenOf(request: FastifyRequest): string | undefined {
  const value = (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies?.[DEVICE_COOKIE];
  return value && value.length <= 128 ? value : undefined;
}

/** Sets (or renews) the device cookie on the answer. */
export function setDeviceCookie(reply: FastifyReply, ctx: AppContext, token: string): void {
  reply.setCookie(DEVICE_COOKIE, token, {
    httpOnly: true, sameSite: 'strict', path: '/accounts/', maxAge: DEVICE_DAYS * 86_400,
    secure: ctx.config.publicUrl?.startsWith('https:') ?? false,
  });
}

/**
 * The hash of `token` when it names a client trusted by the account whose address has the
 * key `emailKey` (one indexed read), else null. The hash names the client's counter.
 */
export async function trustedDevice(db: Db, token: string | undefined, emailKey: string): Promise<string | null> {
  if (token === undefined) return null;
  const tokenHash = hashSecret(token);
  const [row] = await query<{ ok: boolean }>(db, sql`
    SELECT true AS ok FROM trusted_devices d JOIN users u ON u.sid = d.user_sid
     WHERE d.token_hash = ${tokenHash} AND u.email_key = ${emailKey} AND d.expires_at > now()`);
  return row ? tokenHash : null;
}

/**
 * Trusts the client for the account (for DEVICE_DAYS from now): with the token it already
 * carries, so one browser keeps one cookie whatever accounts sign in from it, or a new one.
 * Beyond DEVICES_PER_ACCOUNT, the clients unused longest are forgotten. Returns the token
 * for the cookie.
 */
export async function trustDevice(db: Db, userSid: string, token: string | undefined): Promise<string> {
  const kept = token ?? newSecret();
  const [row] = await query<{ inserted: boolean }>(db, sql`
    INSERT INTO trusted_devices (token_hash, user_sid, expires_at)
    VALUES (${hashSecret(kept)}, ${userSid}, now() + make_interval(days => ${DEVICE_DAYS}))
    ON CONFLICT (token_hash, user_sid) DO UPDATE SET expires_at = excluded.expires_at
    RETURNING xmax = 0 AS inserted`);
  if (row?.inserted) {
    await db.execute(sql`
      DELETE FROM trusted_devices WHERE user_sid = ${userSid} AND token_hash NOT IN (
        SELECT token_hash FROM trusted_devices WHERE user_sid = ${userSid} ORDER BY expires_at DESC, token_hash LIMIT ${DEVICES_PER_ACCOUNT})`);
  }
  return kept;
}

/** A one-time tag for the unlock link mailed with the slow-down warning. */
export async function createUnlockTag(tx: Db, userSid: string): Promise<string> {
  const tag = newSecret();
  await tx.insert(unlockTags).values({
    tagHash: hashSecret(tag), userSid, expiresAt: sql`now() + make_interval(hours => ${UNLOCK_HOURS})` as never,
  });
  return tag;
}

/**
 * POST /accounts/unlock/?tag=: spends the tag (400 on `tag` for a bad, used or expired
 * one) and trusts the client that sent it; returns the device token for its cookie.
 */
export async function unlock(ctx: AppContext, tag: string, token: string | undefined): Promise<string> {
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.update(unlockTags).set({ usedAt: sql`now()` as never })
      .where(and(eq(unlockTags.tagHash, hashSecret(tag)), sql`${unlockTags.usedAt} IS NULL AND ${unlockTags.expiresAt} > now()`))
      .returning({ userSid: unlockTags.userSid });
    if (!row) throw errors.field('tag', 'This link is invalid, used or expired; sign in from a browser you used before, or reset the password.');
    return trustDevice(tx, row.userSid, token);
  });
}

// Sign-in and its limits (issue 11, point 3). Every attempt first takes a hit on two
// counters, atomically (counting and checking are one statement, so concurrent attempts
// cannot get past a limit together):
//   - this client address with this account (LOGIN_FAILURES_PER_CLIENT, 10 per 15 min),
//   - this client address with any account (LOGIN_FAILURES_PER_ADDRESS, 50 per 15 min).
// A success gives its hits back, so only failures (and attempts in flight) count; the
// owner signing in from another address is not held up by a stranger's failures. Across
// all addresses, an account with LOGIN_FAILURES_ACCOUNT_SLOWDOWN failures (100) in 15
// minutes is slowed down (one attempt every LOGIN_SLOWDOWN_SECONDS), and its owner is
// mailed once, with a reset link. The client address is the peer's, or the one a proxy
// named in TRUSTED_PROXIES forwards (X-Forwarded-For, through Fastify's trustProxy).
import type { AppContext } from '../../context.js';
import { errors } from '../../core/errors.js';
import { clearHits, giveBackHits, slowDown, takeHits } from '../../core/rate-limit.js';
import { enqueueMail } from '../../mail/outbox.js';
import { checkPassword } from './passwords.js';
import { createResetTag, findUserByEmail, issueCredential, publicUser, RESET_MINUTES } from './service.js';
import { failuresMail } from './mails.js';

const WINDOW_SECONDS = 15 * 60;
const UNLIMITED = 2_000_000_000;

/**
 * Signs in with email and password: a new session token, or 406 for wrong credentials;
 * 429 with Retry-After beyond the limits above.
 */
export async function login(ctx: AppContext, username: string, password: string, clientAddress: string) {
  const { db, config } = ctx;
  const who = username.toLowerCase();
  const clientKey = `login:client:${clientAddress}|${who}`;
  const addressKey = `login:address:${clientAddress}`;
  const accountKey = `login:account:${who}`;

  const client = await takeHits(db, clientKey, 1, config.loginFailuresPerClient, WINDOW_SECONDS);
  if (!client.ok) throw errors.tooManyRequests(client.retryAfter);
  const address = await takeHits(db, addressKey, 1, config.loginFailuresPerAddress, WINDOW_SECONDS);
  if (!address.ok) {
    await giveBackHits(db, clientKey);
    throw errors.tooManyRequests(address.retryAfter);
  }
  const wait = await slowDown(db, accountKey, config.loginFailuresAccountSlowdown, config.loginSlowdownSeconds);
  if (wait > 0) {
    await giveBackHits(db, clientKey);
    await giveBackHits(db, addressKey);
    throw errors.tooManyRequests(wait);
  }

  const user = await findUserByEmail(db, username);
  const ok = await checkPassword(user?.passwordHash ?? null, password);
  if (!user || !ok || !user.isActive) {
    const account = await takeHits(db, accountKey, 1, UNLIMITED, WINDOW_SECONDS);
    if (user?.isActive && account.hits === config.loginFailuresAccountSlowdown) await warnOwner(ctx, user, account.hits);
    throw errors.badCredentials();
  }
  await clearHits(db, clientKey);
  await giveBackHits(db, addressKey);
  const { secret } = await issueCredential(db, user.sid, 'session');
  return { token: secret, user: publicUser(user) };
}

/** Mails the owner (a proved address only) that sign-ins are slowed down, with a reset link. */
async function warnOwner(ctx: AppContext, user: { sid: string; email: string; firstName: string }, failures: number) {
  await ctx.db.transaction(async (tx) => {
    const tag = await createResetTag(tx, user.sid, RESET_MINUTES);
    await enqueueMail(tx, failuresMail(ctx.config.mailBaseUrl, user, failures, tag, RESET_MINUTES));
  });
  ctx.mail.kick();
}

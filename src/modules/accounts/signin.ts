// Sign-in and its limits (issue 11, point 3; issue 21, points 4 and 5). The account is
// named by its address's key (core/email.ts), the same for the counters and the lookup,
// so no spelling of an address counts apart from it.
//
// A client the account trusts (its device cookie, devices.ts: it signed in to this account
// before, or followed the mailed unlock or reset link) is limited by its own counter only:
// LOGIN_FAILURES_PER_CLIENT failures per 15 minutes, then 429 for that client alone.
//
// Any other client first takes a hit on two counters, atomically (counting and checking
// are one statement, so concurrent attempts cannot get past a limit together):
//   - this client address with this account (LOGIN_FAILURES_PER_CLIENT, 10 per 15 min),
//   - this client address with any account (LOGIN_FAILURES_PER_ADDRESS, 50 per 15 min).
// A success gives its hits back, so only failures (and attempts in flight) count. Across
// all addresses, an account with LOGIN_FAILURES_ACCOUNT_SLOWDOWN failures (100) in 15
// minutes is slowed down for such clients (one attempt every LOGIN_SLOWDOWN_SECONDS), and
// its owner is mailed once, with an unlock link (it trusts the client that follows it)
// and a reset link (a reset ends the slow-down). The client address is the peer's, or the
// one a proxy named in TRUSTED_PROXIES forwards (X-Forwarded-For, through Fastify's trustProxy).
import type { AppContext } from '../../context.js';
import { errors } from '../../core/errors.js';
import { normalizeEmail } from '../../core/email.js';
import { clearHits, giveBackHits, slowDown, takeHits } from '../../core/rate-limit.js';
import { enqueueMail } from '../../mail/outbox.js';
import { checkPassword } from './passwords.js';
import { createResetTag, findUserByEmail, issueCredential, publicUser, RESET_MINUTES } from './service.js';
import { createUnlockTag, trustDevice, trustedDevice, UNLOCK_HOURS } from './devices.js';
import { failuresMail } from './mails.js';

const WINDOW_SECONDS = 15 * 60;
const UNLIMITED = 2_000_000_000;

/** Who is signing in: the client address, and the device cookie's token if any. */
export interface SignInClient {
  address: string;
  device?: string;
}

/** The account-wide failure counter of the address whose key is `emailKey` (a reset clears it). */
export const accountCounter = (emailKey: string) => `login:account:${emailKey}`;

/**
 * Signs in with email and password: a new session token, and the device token the client
 * is to keep (its cookie); 406 for wrong credentials; 429 with Retry-After beyond the limits above.
 */
export async function login(ctx: AppContext, username: string, password: string, client: SignInClient) {
  const { db, config } = ctx;
  const who = normalizeEmail(username);
  const device = await trustedDevice(db, client.device, who);
  const counters = device
    ? await takeTrustedHit(ctx, device, who)
    : await takeStrangerHits(ctx, client.address, who);

  const user = await findUserByEmail(db, who);
  const ok = await checkPassword(user?.passwordHash ?? null, password);
  if (!user || !ok || !user.isActive) {
    if (!device) {
      const account = await takeHits(db, accountCounter(who), 1, UNLIMITED, WINDOW_SECONDS);
      if (user?.isActive && account.hits === config.loginFailuresAccountSlowdown) await warnOwner(ctx, user, account.hits);
    }
    throw errors.badCredentials();
  }
  await counters.succeeded();
  const { secret } = await issueCredential(db, user.sid, 'session');
  const deviceToken = await trustDevice(db, user.sid, client.device);
  return { token: secret, user: publicUser(user), device: deviceToken };
}

/** A trusted client: one hit on its own counter for this account (429 when spent). */
async function takeTrustedHit(ctx: AppContext, deviceHash: string, who: string) {
  const key = `login:device:${deviceHash}|${who}`;
  const taken = await takeHits(ctx.db, key, 1, ctx.config.loginFailuresPerClient, WINDOW_SECONDS);
  if (!taken.ok) throw errors.tooManyRequests(taken.retryAfter);
  return { succeeded: () => clearHits(ctx.db, key) };
}

/** Any other client: a hit per address and account, one per address, and the account's slow-down. */
async function takeStrangerHits(ctx: AppContext, address: string, who: string) {
  const { db, config } = ctx;
  const clientKey = `login:client:${address}|${who}`;
  const addressKey = `login:address:${address}`;
  const client = await takeHits(db, clientKey, 1, config.loginFailuresPerClient, WINDOW_SECONDS);
  if (!client.ok) throw errors.tooManyRequests(client.retryAfter);
  const perAddress = await takeHits(db, addressKey, 1, config.loginFailuresPerAddress, WINDOW_SECONDS);
  if (!perAddress.ok) {
    await giveBackHits(db, clientKey);
    throw errors.tooManyRequests(perAddress.retryAfter);
  }
  const wait = await slowDown(db, accountCounter(who), config.loginFailuresAccountSlowdown, config.loginSlowdownSeconds);
  if (wait > 0) {
    await giveBackHits(db, clientKey);
    await giveBackHits(db, addressKey);
    throw errors.tooManyRequests(wait);
  }
  return {
    succeeded: async () => {
      await clearHits(db, clientKey);
      await giveBackHits(db, addressKey);
    },
  };
}

/** Mails the owner (a proved address only) that sign-ins are slowed down, with an unlock and a reset link. */
async function warnOwner(ctx: AppContext, user: { sid: string; email: string; firstName: string }, failures: number) {
  await ctx.db.transaction(async (tx) => {
    const reset = await createResetTag(tx, user.sid, RESET_MINUTES);
    const unlockTag = await createUnlockTag(tx, user.sid);
    await enqueueMail(tx, failuresMail(ctx.config.mailBaseUrl, user, failures, { reset, unlock: unlockTag }, { reset: RESET_MINUTES, unlock: UNLOCK_HOURS }));
  });
  ctx.mail.kick();
}

// Proving an email (design: "Proving an email"): a tag mailed to the address, valid 24
// hours and once, proves that the address is its user's. The sign-in email must be proved
// before the account may do anything but prove it; a contact address (a personnel email)
// gets no mail until proved.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { emailProofs } from '../../db/schema.js';
import { newSecret, hashSecret } from '../../core/ids.js';
import { errors } from '../../core/errors.js';
import { normalizeEmail } from '../../core/email.js';
import { enqueueMail, provenAddress } from '../../mail/outbox.js';
import { proofMail } from './mails.js';
import { grantFirstAccount } from '../admin/admins.js';
import type { AppContext } from '../../context.js';

const PROOF_HOURS = 24;

/**
 * A one-time tag that proves `email` for `userSid`. `changesSignin`: opening it also makes
 * `email` the sign-in email of the account, if that is still unproven then.
 */
export async function createProofTag(tx: Db, userSid: string, email: string, options: { changesSignin?: boolean } = {}): Promise<string> {
  const tag = newSecret();
  await tx.insert(emailProofs).values({
    tagHash: hashSecret(tag), userSid, email, expiresAt: sql`now() + make_interval(hours => ${PROOF_HOURS})` as never,
    changesSignin: options.changesSignin ?? false,
  });
  return tag;
}

/**
 * Records that `email` is `userSid`'s; when it is the account's sign-in email, the account
 * is proven (and, the first account of a fresh instance, its administrator).
 */
export async function proveAddress(tx: Db, userSid: string, email: string): Promise<void> {
  const key = normalizeEmail(email);
  await tx.execute(sql`INSERT INTO proven_addresses (user_sid, email) VALUES (${userSid}, ${key}) ON CONFLICT DO NOTHING`);
  const proven = await query<{ sid: string }>(tx, sql`UPDATE users SET email_verified_at = now()
    WHERE sid = ${userSid} AND email_verified_at IS NULL AND email_key = ${key} RETURNING sid`);
  if (proven.length) await grantFirstAccount(tx, userSid);
}

/** Why an invited account keeps its address (takeSigninEmail, changeEmail). */
export const INVITED = 'An organization added this account by its address: prove that address with the link of its invitation.';

/** Whether an organization has added the account as personnel. */
export async function isInvited(db: Db, userSid: string): Promise<boolean> {
  const [row] = await query<{ invited: boolean }>(db, sql`SELECT EXISTS (SELECT 1 FROM personnel WHERE user_sid = ${userSid}) AS invited`);
  return row.invited;
}

/** Whether `userSid` has proved `email`. */
export async function isProven(db: Db, userSid: string, email: string): Promise<boolean> {
  const [row] = await query<{ proven: boolean }>(db, sql`SELECT ${provenAddress(userSid, email)} AS proven`);
  return row.proven;
}

/**
 * POST /accounts/verifyemail/?tag=: proves the address the tag was mailed to (400 for a bad,
 * used or expired tag). A tag an unproven account asked for with a new address (changeEmail)
 * first makes that address its sign-in email, unless another account has it by now (400).
 */
export async function verifyEmail(ctx: AppContext, tag: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const [row] = await query<{ user_sid: string; email: string; changes_signin: boolean }>(tx, sql`
      UPDATE email_proofs SET used_at = now()
       WHERE tag_hash = ${hashSecret(tag)} AND used_at IS NULL AND expires_at > now()
      RETURNING user_sid, email, changes_signin`);
    if (!row) throw errors.field('tag', 'This link is invalid, used or expired; ask for a new one.');
    if (row.changes_signin) await takeSigninEmail(tx, row.user_sid, row.email);
    await proveAddress(tx, row.user_sid, row.email);
  });
}

/**
 * Makes `email` the sign-in email of `userSid` while that account is unproven; 400 when
 * another account has it, or when an organization has added the account by its old address
 * (its invitation proves that one: an account made by signing up first with someone else's
 * address must not keep their invitation under an address of its own).
 */
async function takeSigninEmail(tx: Db, userSid: string, email: string): Promise<void> {
  const key = normalizeEmail(email);
  const [other] = await query<{ sid: string }>(tx, sql`SELECT sid FROM users WHERE email_key = ${key} AND sid <> ${userSid}`);
  if (other) throw errors.field('tag', 'Another account has this address by now: sign in with that one.');
  if (await isInvited(tx, userSid)) throw errors.field('tag', INVITED);
  await tx.execute(sql`UPDATE users SET email = ${email}, email_key = ${key} WHERE sid = ${userSid} AND email_verified_at IS NULL`);
}

/**
 * Mails a new proof of the caller's sign-in email, unless it is proved already. At most
 * a few account mails reach one address an hour (429 beyond).
 */
export async function resendProof(ctx: AppContext, user: { userSid: string; email: string; firstName: string }, mayMail: (db: Db, email: string) => Promise<boolean>) {
  const sent = await ctx.db.transaction(async (tx) => {
    if (await isProven(tx, user.userSid, user.email)) return false;
    if (!(await mayMail(tx, user.email))) throw errors.quotaExceeded('Too many emails went to this address lately.', 3600);
    const tag = await createProofTag(tx, user.userSid, user.email);
    await enqueueMail(tx, proofMail(ctx.config.mailBaseUrl, user.email, user.firstName, tag));
    return true;
  });
  ctx.mail.kick();
  return sent;
}

import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { organizations, personnel } from '../../db/schema.js';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import { loadOrganizationRecord, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { newSid } from '../../core/ids.js';
import { normalizeEmail } from '../../core/email.js';
import { toBool } from '../../core/schemas.js';
import { enqueueMail } from '../../mail/outbox.js';
import { takeHits } from '../../core/rate-limit.js';
import { createResetTag, ensureUser, takeSenderMailQuota, INVITATION_DAYS } from '../accounts/service.js';
import { createProofTag, isProven } from '../accounts/email-proof.js';
import { invitationMail, proofMail } from '../accounts/mails.js';
import { changedFields, logActivities, personnelName, type ActivityLine } from '../activities/log.js';
import { countActiveAdmins, findBySid, findBySids, type PersonnelRow } from './repository.js';

type Flag = boolean | 'true' | 'false';

export interface PersonnelInput {
  email: string; first_name?: string; last_name?: string; title?: string;
  date_start?: string; date_end?: string | null; is_administrator?: Flag; is_archived?: Flag;
}

export type PersonnelChanges = Partial<Omit<PersonnelInput, 'email'>> & {
  email?: string;
  metadata?: unknown[];
  dashboard?: { link: string; note: string }[];
  should_receive_weekly_digest?: Flag;
  should_receive_statement_digest?: Flag;
  should_receive_mention_notification?: Flag;
  should_receive_record_change_notification?: Flag;
  should_receive_notification_email?: Flag;
};

const LAST_ADMIN = 'An organization needs at least one active administrator; make another member an administrator first.';

/** Whether a YYYY-MM-DD string is a real calendar date. */
function isRealDate(value: string): boolean {
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

function checkDates(start: string | undefined, end: string | null | undefined) {
  const problems: Record<string, string> = {};
  if (start !== undefined && !isRealDate(start)) problems.date_start = 'Enter a real date as YYYY-MM-DD.';
  if (end && !isRealDate(end)) problems.date_end = 'Enter a real date as YYYY-MM-DD.';
  if (!Object.keys(problems).length && start && end && end < start) problems.date_end = 'The end date cannot be before the start date.';
  if (Object.keys(problems).length) throw errors.fields(problems);
}

/**
 * Refuses (400 on `dashboard`) a link that is not http(s): a dashboard link is a page to
 * open, and a `javascript:` or `data:` link would run or show what its writer chose when
 * followed. Read with the URL parser browsers use (so `java\tscript:` or ` javascript:`
 * is seen for what it is); a relative link (`/tables/…`) is this service's own page. An
 * empty link (a note alone) is allowed.
 */
function checkDashboard(dashboard: { link: string }[] | undefined) {
  const bad = (dashboard ?? []).findIndex(({ link }) => {
    if (link === '') return false;
    try {
      return !['http:', 'https:'].includes(new URL(link, 'https://relative.invalid/').protocol);
    } catch {
      return true;
    }
  });
  if (bad >= 0) throw errors.field('dashboard', `Link ${bad + 1} is not a web link: use an http:// or https:// address (javascript:, data: and other kinds are refused).`);
}

/** Locks the organization's row: changes that could leave it without an Admin take turns. */
async function lockOrganization(tx: Db, orgSid: string) {
  await tx.select({ sid: organizations.sid }).from(organizations).where(eq(organizations.sid, orgSid)).for('update');
}

/**
 * Adds members to an organization in one transaction. An email without an account gets
 * an account without a password; it, and an existing account whose email is not proved
 * yet, get an invitation whose tag sets the password and proves the email. A record gives
 * access only to an account that has proved its email (core/auth.ts), so whoever signed up
 * with someone else's address first gains nothing. Invitations count against the
 * Admin's mail quota. Refuses (400) an email that is already personnel there.
 */
export async function addPersonnel(ctx: AppContext, membership: Membership, actor: Actor, inputs: PersonnelInput[]): Promise<PersonnelRow[]> {
  const seen = new Set<string>();
  for (const input of inputs) {
    const key = normalizeEmail(input.email);
    if (seen.has(key)) throw errors.field('email', `${input.email} is listed twice.`);
    seen.add(key);
    checkDates(input.date_start, input.date_end);
  }
  const orgSid = membership.organizationSid;
  const inviter = `${actor.firstName} ${actor.lastName}`.trim() || actor.email;
  const sids = await ctx.db.transaction(async (tx) => {
    const created: string[] = [];
    const lines: ActivityLine[] = [];
    let invitations = 0;
    for (const input of inputs) {
      const { user } = await ensureUser(tx, input);
      const [existing] = await tx.select({ sid: personnel.sid }).from(personnel)
        .where(and(eq(personnel.organizationSid, orgSid), eq(personnel.userSid, user.sid)));
      if (existing) throw errors.field('email', `${input.email} is already a member of this organization.`);
      const sid = newSid();
      await tx.insert(personnel).values({
        sid, organizationSid: orgSid, userSid: user.sid, email: input.email, invitedBy: actor.userSid,
        // Not the account's names: the answer must not tell whether the address has an account.
        firstName: input.first_name ?? '', lastName: input.last_name ?? '',
        title: input.title ?? '',
        ...(input.date_start ? { dateStart: input.date_start } : {}),
        dateEnd: input.date_end || null,
        isAdministrator: input.is_administrator === undefined ? false : toBool(input.is_administrator),
        isArchived: input.is_archived === undefined ? false : toBool(input.is_archived),
        updatedBy: actor.userSid,
      });
      // The one invitation: until it is accepted, the organization mails the person nothing else.
      if (!user.emailVerifiedAt) {
        const tag = await createResetTag(tx, user.sid, INVITATION_DAYS * 24 * 60, sid);
        await enqueueMail(tx, invitationMail(ctx.config.mailBaseUrl, user.email, membership.organizationName, inviter, { tag, days: INVITATION_DAYS }));
        invitations += 1;
      } else {
        await enqueueMail(tx, invitationMail(ctx.config.mailBaseUrl, user.email, membership.organizationName, inviter, { personnelSid: sid, userSid: user.sid }));
      }
      created.push(sid);
      lines.push({
        organizationSid: orgSid, userSid: actor.userSid, model: 'personnel', objectSid: sid, action: 'Created',
        target: personnelName({ first_name: input.first_name ?? '', last_name: input.last_name ?? '', email: input.email }),
      });
    }
    await logActivities(tx, lines);
    await takeInvitations(ctx, tx, actor.userSid, inputs.length);
    await takeSenderMailQuota(ctx, tx, actor.userSid, invitations);
    return created;
  });
  ctx.mail.kick();
  const rows = await findBySids(ctx.db, orgSid, sids);
  return sids.map((sid) => rows.find((r) => r.sid === sid)!);
}

/**
 * Takes `n` from the sender's daily invitations (INVITATIONS_PER_USER_PER_DAY): everyone added
 * to an organization gets one invitation mail. 429 beyond; the caller's transaction rolls back.
 */
async function takeInvitations(ctx: AppContext, tx: Db, userSid: string, n: number) {
  const max = ctx.config.invitationsPerUserPerDay;
  const taken = await takeHits(tx, `invite:user:${userSid}`, n, max, 86_400);
  if (!taken.ok) throw errors.quotaExceeded(`You may add at most ${max} people to organizations a day.`, taken.retryAfter);
}

/** The personnel record `sid` and the caller's standing in its organization (404 / 403 otherwise). */
export function loadPersonnel(ctx: AppContext, actor: Actor, sid: string) {
  return loadOrganizationRecord(ctx.db, actor, sid, (found) => findBySid(ctx.db, found));
}

/** A personnel record's fields an activity line names when they change. */
const LOGGED_FIELDS = [
  'first_name', 'last_name', 'email', 'title', 'date_start', 'date_end', 'is_administrator', 'is_archived', 'dashboard', 'metadata',
  'should_receive_weekly_digest', 'should_receive_statement_digest', 'should_receive_mention_notification',
  'should_receive_record_change_notification', 'should_receive_notification_email',
] as const;

/**
 * Changes a personnel record (an activity line names the fields that changed). An Admin changes any field of anyone; a Member only the
 * member fields of their own record (403 otherwise, nothing changed). A change that
 * would leave the organization without an active Admin is refused (400).
 */
export async function changePersonnel(ctx: AppContext, actor: Actor, sid: string, changes: PersonnelChanges) {
  const { row, membership } = await loadPersonnel(ctx, actor, sid);
  const fields = Object.keys(changes);
  if (!permissions.personnel.changeFields(membership, row.sid, fields)) throw errors.forbidden();
  checkDates(changes.date_start ?? row.date_start, changes.date_end === undefined ? row.date_end : changes.date_end);
  checkDashboard(changes.dashboard);

  const flag = (v: Flag | undefined) => (v === undefined ? undefined : toBool(v));
  const values = {
    title: changes.title,
    dateStart: changes.date_start,
    dateEnd: changes.date_end === undefined ? undefined : changes.date_end || null,
    isAdministrator: flag(changes.is_administrator),
    isArchived: flag(changes.is_archived),
    firstName: changes.first_name,
    lastName: changes.last_name,
    email: changes.email,
    metadata: changes.metadata,
    dashboard: changes.dashboard,
    shouldReceiveWeeklyDigest: flag(changes.should_receive_weekly_digest),
    shouldReceiveStatementDigest: flag(changes.should_receive_statement_digest),
    shouldReceiveMentionNotification: flag(changes.should_receive_mention_notification),
    shouldReceiveRecordChangeNotification: flag(changes.should_receive_record_change_notification),
    shouldReceiveNotificationEmail: flag(changes.should_receive_notification_email),
    // The person's own choice wins over a sender's should_email from now on (notifications/send.ts, MAILED).
    notificationEmailChosen: changes.should_receive_notification_email !== undefined && row.sid === membership.personnelSid ? true : undefined,
  };
  const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  // An empty PATCH changes nothing: not even who updated the record last, or when.
  if (!Object.keys(set).length) return { row, membership };
  const touchesAdmins = ['is_administrator', 'is_archived', 'date_end'].some((f) => f in changes);

  const updated = await ctx.db.transaction(async (tx) => {
    if (touchesAdmins) await lockOrganization(tx, row.organization_sid);
    const [changed] = await tx.update(personnel).set({ ...set, updatedBy: actor.userSid, dateUpdated: sql`now()` })
      .where(eq(personnel.sid, sid)).returning({ userSid: personnel.userSid, firstName: personnel.firstName });
    // A new contact address gets no mail until its owner proves it: mail them the proof.
    if (changes.email !== undefined && normalizeEmail(changes.email) !== normalizeEmail(row.email) && !(await isProven(tx, changed.userSid, changes.email))) {
      await takeSenderMailQuota(ctx, tx, actor.userSid, 1);
      const tag = await createProofTag(tx, changed.userSid, changes.email);
      await enqueueMail(tx, proofMail(ctx.config.mailBaseUrl, changes.email, changed.firstName, tag, true));
    }
    if (touchesAdmins && (await countActiveAdmins(tx, row.organization_sid)) === 0) {
      const field = ['is_administrator', 'is_archived', 'date_end'].find((f) => f in changes)!;
      throw errors.field(field, LAST_ADMIN);
    }
    const after = (await findBySid(tx, sid))!;
    const field = changedFields(row, after, LOGGED_FIELDS);
    if (field) {
      await logActivities(tx, [{ organizationSid: row.organization_sid, userSid: actor.userSid, model: 'personnel', objectSid: sid, target: personnelName(after), action: 'Updated', field }]);
    }
    return after;
  });
  if (changes.email !== undefined) ctx.mail.kick();
  return { row: updated, membership };
}

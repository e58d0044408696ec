import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { organizations, personnel } from '../../db/schema.js';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import { loadOrganizationRecord, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { newSid } from '../../core/ids.js';
import { toBool } from '../../core/schemas.js';
import { enqueueMail } from '../../mail/outbox.js';
import { createUser, createResetTag, findUserByEmail, resetLink, INVITATION_DAYS } from '../accounts/service.js';
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

/** Locks the organization's row: changes that could leave it without an Admin take turns. */
async function lockOrganization(tx: Db, orgSid: string) {
  await tx.select({ sid: organizations.sid }).from(organizations).where(eq(organizations.sid, orgSid)).for('update');
}

/**
 * Adds members to an organization in one transaction. An email without an account
 * gets an account without a password and an invitation to set one; an existing
 * account is added as it is. Refuses (400) an email that is already personnel there.
 */
export async function addPersonnel(ctx: AppContext, membership: Membership, actor: Actor, inputs: PersonnelInput[], baseUrl: string): Promise<PersonnelRow[]> {
  const seen = new Set<string>();
  for (const input of inputs) {
    const key = input.email.toLowerCase();
    if (seen.has(key)) throw errors.field('email', `${input.email} is listed twice.`);
    seen.add(key);
    checkDates(input.date_start, input.date_end);
  }
  const orgSid = membership.organizationSid;
  const sids = await ctx.db.transaction(async (tx) => {
    const created: string[] = [];
    for (const input of inputs) {
      let user = await findUserByEmail(tx, input.email);
      let invited = false;
      if (!user) {
        const made = await createUser(tx, { email: input.email, password: null, first_name: input.first_name, last_name: input.last_name });
        user = (await findUserByEmail(tx, made.email))!;
        invited = true;
      }
      const [existing] = await tx.select({ sid: personnel.sid }).from(personnel)
        .where(and(eq(personnel.organizationSid, orgSid), eq(personnel.userSid, user.sid)));
      if (existing) throw errors.field('email', `${input.email} is already a member of this organization.`);
      const sid = newSid();
      await tx.insert(personnel).values({
        sid, organizationSid: orgSid, userSid: user.sid, email: input.email,
        firstName: input.first_name ?? user.firstName, lastName: input.last_name ?? user.lastName,
        title: input.title ?? '',
        ...(input.date_start ? { dateStart: input.date_start } : {}),
        dateEnd: input.date_end || null,
        isAdministrator: input.is_administrator === undefined ? false : toBool(input.is_administrator),
        isArchived: input.is_archived === undefined ? false : toBool(input.is_archived),
        updatedBy: actor.userSid,
      });
      if (invited) {
        const tag = await createResetTag(tx, user.sid, INVITATION_DAYS * 24 * 60);
        await enqueueMail(tx, {
          to: input.email,
          subject: `You are invited to ${membership.organizationName} on the Records Service`,
          body: `Hello,\n\n${`${actor.firstName} ${actor.lastName}`.trim() || actor.email} added you to ${membership.organizationName}.\n`
            + `Choose your password within ${INVITATION_DAYS} days by sending it to:\n\n  POST ${resetLink(baseUrl, tag)}\n  {"password": "<your password>"}\n\n`
            + `Then sign in with POST ${baseUrl}/accounts/auth/ {"username": "${input.email}", "password": "…"}.\n`,
        });
      }
      created.push(sid);
    }
    return created;
  });
  ctx.mail.kick();
  const rows = await findBySids(ctx.db, orgSid, sids);
  return sids.map((sid) => rows.find((r) => r.sid === sid)!);
}

/** The personnel record `sid` and the caller's standing in its organization (404 / 403 otherwise). */
export function loadPersonnel(ctx: AppContext, actor: Actor, sid: string) {
  return loadOrganizationRecord(ctx.db, actor, sid, (found) => findBySid(ctx.db, found));
}

/**
 * Changes a personnel record. An Admin changes any field of anyone; a Member only the
 * member fields of their own record (403 otherwise, nothing changed). A change that
 * would leave the organization without an active Admin is refused (400).
 */
export async function changePersonnel(ctx: AppContext, actor: Actor, sid: string, changes: PersonnelChanges) {
  const { row, membership } = await loadPersonnel(ctx, actor, sid);
  const fields = Object.keys(changes);
  if (!permissions.personnel.changeFields(membership, row.sid, fields)) throw errors.forbidden();
  checkDates(changes.date_start ?? row.date_start, changes.date_end === undefined ? row.date_end : changes.date_end);

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
  };
  const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  // An empty PATCH changes nothing: not even who updated the record last, or when.
  if (!Object.keys(set).length) return { row, membership };
  const touchesAdmins = ['is_administrator', 'is_archived', 'date_end'].some((f) => f in changes);

  await ctx.db.transaction(async (tx) => {
    if (touchesAdmins) await lockOrganization(tx, row.organization_sid);
    await tx.update(personnel).set({ ...set, updatedBy: actor.userSid, dateUpdated: sql`now()` }).where(eq(personnel.sid, sid));
    if (touchesAdmins && (await countActiveAdmins(tx, row.organization_sid)) === 0) {
      const field = ['is_administrator', 'is_archived', 'date_end'].find((f) => f in changes)!;
      throw errors.field(field, LAST_ADMIN);
    }
  });
  return { row: (await findBySid(ctx.db, sid))!, membership };
}

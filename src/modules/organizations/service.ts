import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { organizations, personnel } from '../../db/schema.js';
import { newSid } from '../../core/ids.js';
import { createCreditShards } from '../credits/service.js';
import { createFilesTable } from '../files/files-table.js';
import { logActivities, personnelName } from '../activities/log.js';

/** The account that becomes an organization's first Admin. */
export interface FirstAdmin {
  sid: string;
  email: string;
  firstName: string;
  lastName: string;
}

/**
 * Creates an organization with `admin` as its first Admin personnel and its files table
 * (files/files-table.ts), in the caller's transaction (the HTTP POST and the operator CLI
 * both create organizations here). Returns the new organization's sid.
 */
export async function createOrganization(
  tx: Db,
  input: { name: string; description?: string; credits: string; admin: FirstAdmin } & OrganizationFields,
): Promise<string> {
  const sid = newSid();
  const { admin, name, description, credits: _credits, username, ...fields } = input;
  if (username !== undefined && await usernameTaken(tx, username)) throw usernameTakenError();
  await tx.insert(organizations).values({
    sid, name, description: description ?? '', createdBy: admin.sid, updatedBy: admin.sid,
    username: username ?? await freeUsername(tx, name, sid), ...organizationColumns(fields),
  });
  await createCreditShards(tx, sid, input.credits);
  const personnelSid = newSid();
  await tx.insert(personnel).values({
    sid: personnelSid, organizationSid: sid, userSid: admin.sid, email: admin.email,
    firstName: admin.firstName, lastName: admin.lastName, isAdministrator: true, updatedBy: admin.sid,
    // Whoever creates an organization has accepted it (docs/decisions.md, "Consent before mail").
    dateAccepted: sql`now()` as never, invitedBy: admin.sid,
  });
  await logActivities(tx, [{
    organizationSid: sid, userSid: admin.sid, model: 'personnel', objectSid: personnelSid, action: 'Created',
    target: personnelName({ first_name: admin.firstName, last_name: admin.lastName, email: admin.email }),
  }]);
  await createFilesTable(tx, sid, admin.sid);
  return sid;
}

/**
 * Refuses (403) a user who has already created `limit` organizations (each starts with
 * INITIAL_CREDITS). Locks the user's row first, in the caller's transaction, so
 * concurrent creations by one user take turns and cannot pass the limit together.
 */
export async function checkOrganizationQuota(tx: Db, userSid: string, limit: number): Promise<void> {
  await tx.execute(sql`SELECT 1 FROM users WHERE sid = ${userSid} FOR UPDATE`);
  const [{ n }] = await query<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM organizations WHERE created_by = ${userSid}`);
  if (n >= limit) throw errors.refused(`You may create at most ${limit} organizations (ORGANIZATIONS_PER_USER); ask the operator for more.`);
}

/** The Labii fields an organization takes on creation and change besides its name. */
export interface OrganizationFields {
  username?: string;
  description?: string;
  logo_icon?: string;
  logo_wordmark?: string;
  dashboard?: unknown[];
  metadata?: unknown;
  should_receive_weekly_digest?: boolean;
}

/** The columns of the body's Labii fields (those it has). */
export function organizationColumns(body: OrganizationFields) {
  return {
    ...(body.username !== undefined ? { username: body.username } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.logo_icon !== undefined ? { logoIcon: body.logo_icon } : {}),
    ...(body.logo_wordmark !== undefined ? { logoWordmark: body.logo_wordmark } : {}),
    ...(body.dashboard !== undefined ? { dashboard: body.dashboard } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    ...(body.should_receive_weekly_digest !== undefined ? { shouldReceiveWeeklyDigest: body.should_receive_weekly_digest } : {}),
  };
}

export const usernameTakenError = () => errors.field('username', 'Another organization has this username.');

/** Whether another organization (than `exceptSid`) has this username, ignoring case. */
export async function usernameTaken(db: Db, username: string, exceptSid = ''): Promise<boolean> {
  const [row] = await query<{ sid: string }>(db, sql`
    SELECT sid FROM organizations WHERE lower(username) = lower(${username}) AND sid <> ${exceptSid} LIMIT 1`);
  return !!row;
}

/** A free username from the name ("Acme Labs" -> "acme-labs"), with the sid's start when that is taken. */
export async function freeUsername(db: Db, name: string, sid: string): Promise<string> {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');
  if (slug.length >= 2 && !await usernameTaken(db, slug)) return slug;
  return [slug, sid.toLowerCase().slice(0, 10)].filter(Boolean).join('-');
}

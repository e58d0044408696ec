import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { organizations, personnel } from '../../db/schema.js';
import { newSid } from '../../core/ids.js';
import { createCreditShards } from '../credits/service.js';

/** The account that becomes an organization's first Admin. */
export interface FirstAdmin {
  sid: string;
  email: string;
  firstName: string;
  lastName: string;
}

/**
 * Creates an organization with `admin` as its first Admin personnel, in the caller's
 * transaction (the HTTP POST and the operator CLI both create organizations here).
 * Returns the new organization's sid.
 */
export async function createOrganization(
  tx: Db,
  input: { name: string; description?: string; credits: string; admin: FirstAdmin },
): Promise<string> {
  const sid = newSid();
  const { admin } = input;
  await tx.insert(organizations).values({
    sid, name: input.name, description: input.description ?? '', createdBy: admin.sid,
  });
  await createCreditShards(tx, sid, input.credits);
  await tx.insert(personnel).values({
    sid: newSid(), organizationSid: sid, userSid: admin.sid, email: admin.email,
    firstName: admin.firstName, lastName: admin.lastName, isAdministrator: true, updatedBy: admin.sid,
    // Whoever creates an organization has accepted it (docs/decisions.md, "Consent before mail").
    dateAccepted: sql`now()` as never, invitedBy: admin.sid,
  });
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

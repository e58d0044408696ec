import type { Db } from '../../db/client.js';
import { organizations, personnel } from '../../db/schema.js';
import { newSid } from '../../core/ids.js';

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
    sid, name: input.name, description: input.description ?? '', credits: input.credits, createdBy: admin.sid,
  });
  await tx.insert(personnel).values({
    sid: newSid(), organizationSid: sid, userSid: admin.sid, email: admin.email,
    firstName: admin.firstName, lastName: admin.lastName, isAdministrator: true, updatedBy: admin.sid,
  });
  return sid;
}

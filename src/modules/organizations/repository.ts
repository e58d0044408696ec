import { and, eq, sql, count, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { organizations, personnel } from '../../db/schema.js';
import { isoTimestamp, formatMoney } from '../../core/sql.js';
import type { Serializer } from '../../core/resource.js';
import { activeMember } from '../../core/rules.js';
import { creditsOf } from '../credits/service.js';

const columns = {
  sid: organizations.sid,
  name: organizations.name,
  description: organizations.description,
  credits: creditsOf(organizations.sid),
  date_created: isoTimestamp(organizations.dateCreated),
  date_updated: isoTimestamp(organizations.dateUpdated),
  is_administrator: personnel.isAdministrator,
};

type Row = {
  sid: string; name: string; description: string; credits: string; date_created: string; date_updated: string; is_administrator: boolean;
  /** Only in findForUser: who to contact for credits. */
  credits_contact?: string;
};

/** An organization in a shape, as seen by a caller who is (or is not) its Admin. */
export function serializeOrganization(row: Row, serializer: Serializer) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  const base = { sid: row.sid, name: row.name, description: row.description, credits: formatMoney(row.credits) };
  if (serializer === 'list') return { ...base, change_permission: row.is_administrator };
  return {
    ...base, credits_contact: row.credits_contact ?? '', date_created: row.date_created, date_updated: row.date_updated,
    change_permission: row.is_administrator,
  };
}

// The organizations where the user is active personnel.
const activeFor = (userSid: string): SQL => and(eq(personnel.userSid, userSid), activeMember.sql())!;

export async function countForUser(db: Db, userSid: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(organizations)
    .innerJoin(personnel, eq(personnel.organizationSid, organizations.sid))
    .where(activeFor(userSid));
  return row.n;
}

export async function listForUser(db: Db, userSid: string, limit: number, offset: number): Promise<Row[]> {
  return db.select(columns).from(organizations)
    .innerJoin(personnel, eq(personnel.organizationSid, organizations.sid))
    .where(activeFor(userSid))
    .orderBy(organizations.dateCreated, organizations.sid).limit(limit).offset(offset);
}

/**
 * One organization with the caller's admin flag (false when not personnel) and who to contact
 * for credits: an instance administrator's SALES_CONTACT, else `salesContact` (the environment's).
 */
export async function findForUser(db: Db, sid: string, userSid: string, salesContact: string): Promise<Row | undefined> {
  const [row] = await db.select({
    ...columns,
    is_administrator: sql<boolean>`coalesce(${personnel.isAdministrator}, false)`,
    credits_contact: sql<string>`coalesce((SELECT s.sales_contact FROM instance_settings s WHERE s.id = 1), ${salesContact}::text)`,
  }).from(organizations)
    .leftJoin(personnel, and(eq(personnel.organizationSid, organizations.sid), eq(personnel.userSid, userSid)))
    .where(eq(organizations.sid, sid));
  return row;
}

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
  username: organizations.username,
  description: organizations.description,
  logo_icon: organizations.logoIcon,
  logo_wordmark: organizations.logoWordmark,
  dashboard: organizations.dashboard,
  metadata: organizations.metadata,
  should_receive_weekly_digest: organizations.shouldReceiveWeeklyDigest,
  updated_by_sid: organizations.updatedBy,
  credits: creditsOf(organizations.sid),
  date_created: isoTimestamp(organizations.dateCreated),
  date_updated: isoTimestamp(organizations.dateUpdated),
  is_administrator: personnel.isAdministrator,
};

type Row = {
  sid: string; name: string; username: string; description: string; logo_icon: string; logo_wordmark: string;
  dashboard: unknown; metadata: unknown; should_receive_weekly_digest: boolean; updated_by_sid: string | null;
  credits: string; date_created: string; date_updated: string; is_administrator: boolean;
  /** Only in findForUser: who to contact for credits, the active personnel and who changed it last. */
  credits_contact?: string;
  personnel?: { sid: string; name: string }[];
  updated_by?: { sid: string; name: string } | null;
};

/** An organization in a shape, as seen by a caller who is (or is not) its Admin. */
export function serializeOrganization(row: Row, serializer: Serializer) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  const base = {
    sid: row.sid, name: row.name, username: row.username, description: row.description,
    logo_icon: row.logo_icon, logo_wordmark: row.logo_wordmark, credits: formatMoney(row.credits),
  };
  if (serializer === 'list') return { ...base, change_permission: row.is_administrator };
  return {
    ...base, credits_contact: row.credits_contact ?? '', dashboard: row.dashboard, metadata: row.metadata,
    should_receive_weekly_digest: row.should_receive_weekly_digest, personnel: row.personnel ?? [], updated_by: row.updated_by ?? null,
    date_created: row.date_created, date_updated: row.date_updated, change_permission: row.is_administrator,
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
    // The detail's personnel (the first 100 active, oldest first) and who changed it last, in the same query.
    personnel: sql<{ sid: string; name: string }[]>`coalesce((SELECT json_agg(json_build_object('sid', q.sid, 'name', q.name) ORDER BY q.date_created, q.sid)
      FROM (SELECT p.sid, p.date_created, trim(p.first_name || ' ' || p.last_name) AS name FROM personnel p
             WHERE p.organization_sid = ${organizations.sid} AND ${activeMember.sql('p')}
             ORDER BY p.date_created, p.sid LIMIT 100) q), '[]'::json)`,
    updated_by: sql<{ sid: string; name: string } | null>`(SELECT json_build_object('sid', u.sid, 'name', trim(u.first_name || ' ' || u.last_name))
      FROM users u WHERE u.sid = ${organizations.updatedBy})`,
  }).from(organizations)
    .leftJoin(personnel, and(eq(personnel.organizationSid, organizations.sid), eq(personnel.userSid, userSid)))
    .where(eq(organizations.sid, sid));
  return row;
}

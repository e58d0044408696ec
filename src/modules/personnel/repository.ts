import { and, eq, count, inArray, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { personnel, users } from '../../db/schema.js';
import { containsPattern, isoDate, isoTimestamp, personName } from '../../core/sql.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';
import { activeMember } from '../../core/rules.js';
import { queryBool } from '../../core/schemas.js';
import { runPrepared } from '../../core/prepared.js';
import { named, sizedPage } from '../../core/sized-page.js';

const updater = alias(users, 'updater');

const columns = {
  sid: personnel.sid,
  organization_sid: personnel.organizationSid,
  email: personnel.email,
  first_name: personnel.firstName,
  last_name: personnel.lastName,
  title: personnel.title,
  date_start: isoDate(personnel.dateStart),
  date_end: isoDate(personnel.dateEnd) as SQL<string | null>, // NULL stays NULL
  is_administrator: personnel.isAdministrator,
  is_archived: personnel.isArchived,
  dashboard: personnel.dashboard,
  is_use_single_sign_on: personnel.isUseSingleSignOn,
  should_receive_weekly_digest: personnel.shouldReceiveWeeklyDigest,
  should_receive_statement_digest: personnel.shouldReceiveStatementDigest,
  should_receive_mention_notification: personnel.shouldReceiveMentionNotification,
  should_receive_record_change_notification: personnel.shouldReceiveRecordChangeNotification,
  should_receive_notification_email: personnel.shouldReceiveNotificationEmail,
  metadata: personnel.metadata,
  updated_by: personName(updater),
  date_updated: isoTimestamp(personnel.dateUpdated),
};

export interface PersonnelRow {
  sid: string; organization_sid: string; email: string; first_name: string; last_name: string; title: string;
  date_start: string; date_end: string | null; is_administrator: boolean; is_archived: boolean;
  dashboard: { link: string; note: string }[]; is_use_single_sign_on: boolean;
  should_receive_weekly_digest: boolean; should_receive_statement_digest: boolean;
  should_receive_mention_notification: boolean; should_receive_record_change_notification: boolean;
  should_receive_notification_email: boolean; metadata: unknown[]; updated_by: string; date_updated: string;
}

/** The columns with `extra`; `sub`: as a subquery's (core/sized-page.ts named). */
function select<E extends Record<string, SQL>>(db: Db, where: SQL, extra: E = {} as E, sub = false) {
  const selection = { ...columns, ...extra };
  return db.select(sub ? named(selection) : selection).from(personnel).leftJoin(updater, eq(updater.sid, personnel.updatedBy)).where(where);
}

/** The personnel list's filters. */
export interface PersonnelFilter {
  /** Name ("First Last") or email contains, case-insensitive (trigram indexes, 0010_personnel_search.sql). */
  search?: string;
  /** The record of this account (index personnel_user_idx). */
  user__sid?: string;
  /** Only the Admins ("true"; index personnel_org_admins_idx) or only the others. */
  is_administrator?: string;
}

/** An organization's personnel, those the filter finds (values or placeholders: the same SQL). */
function inOrganization(orgSid: unknown, filter: { search?: unknown; user__sid?: unknown; is_administrator?: unknown }): SQL {
  return and(
    eq(personnel.organizationSid, orgSid as string),
    filter.search !== undefined
      ? sql`((${personnel.firstName} || ' ' || ${personnel.lastName}) ILIKE ${filter.search} OR ${personnel.email} ILIKE ${filter.search})` : undefined,
    filter.user__sid !== undefined ? eq(personnel.userSid, filter.user__sid as string) : undefined,
    filter.is_administrator !== undefined ? eq(personnel.isAdministrator, filter.is_administrator as boolean) : undefined,
  )!;
}

/** The filter's values, by the placeholders of pagePrepared's shape. */
function filterValues(filter: PersonnelFilter) {
  return {
    search: filter.search ? containsPattern(filter.search) : undefined,
    user__sid: filter.user__sid || undefined,
    is_administrator: filter.is_administrator !== undefined ? queryBool(filter.is_administrator) : undefined,
  };
}

/** The count of an organization's personnel (those the filter finds), as a query. */
function countQuery(db: Db, orgSid: unknown, filter: Parameters<typeof inOrganization>[1]) {
  return db.select({ n: count() }).from(personnel).where(inOrganization(orgSid, filter));
}

export async function countInOrganization(db: Db, orgSid: string, filter: PersonnelFilter = {}): Promise<number> {
  const [row] = await countQuery(db, orgSid, filterValues(filter));
  return row.n;
}

/** The most a record is as JSON: its texts and free JSON as JSON, and 4 KiB for the rest (sids, dates, flags, who changed it). */
const recordSize = sql<number>`octet_length(json_build_array(${personnel.email}, ${personnel.firstName}, ${personnel.lastName}, ${personnel.title},
  ${personnel.dashboard}, ${personnel.metadata})::text) + 4096`;

/**
 * The page query with its count, for the filters `shape` names, every value a placeholder
 * (core/prepared.ts). Shape `sized`: only the page's first records whose sizes add up to
 * `max_bytes` (always the first; core/answer-stream.ts), measured in the page itself.
 */
function pageQuery(db: Db, shape: string) {
  const names = shape.split(',').filter(Boolean);
  const filter = Object.fromEntries(names.filter((name) => name !== 'sized').map((name) => [name, sql.placeholder(name)]));
  const where = inOrganization(sql.placeholder('org'), filter);
  const total = totalOf(countQuery(db, sql.placeholder('org'), filter));
  const sized = names.includes('sized');
  const extra: { total: SQL<number> } & Record<string, SQL> = sized ? { total, bytes: recordSize, created: sql`${personnel.dateCreated}` } : { total };
  const page = select(db, where, extra, sized)
    .orderBy(personnel.dateCreated, personnel.sid).limit(sql.placeholder('limit')).offset(sql.placeholder('offset'));
  return sized ? sizedPage<typeof page>(db, page.as('page'), [...Object.keys(columns), 'total'], (f) => [f.created, f.sid]) : page;
}

/**
 * A page of an organization's personnel (those the filter finds), oldest first, with their
 * count. A generic plan but for a search (a pattern's selectivity is its own: planned for it)
 * and for is_administrator (a plan made for any value cannot use personnel_org_admins_idx,
 * which holds the Admins only).
 * `maxBytes`: a sized read (the detail shape; pageQuery).
 */
export async function pageInOrganization(
  db: Db, orgSid: string, limit: number, offset: number, filter: PersonnelFilter = {}, maxBytes?: number,
): Promise<Counted<PersonnelRow>> {
  const values = { ...filterValues(filter), max_bytes: maxBytes };
  const shape = Object.keys(values).filter((name) => values[name as keyof typeof values] !== undefined)
    .map((name) => (name === 'max_bytes' ? 'sized' : name)).join(',');
  return counted(await runPrepared(db, pageQuery, shape, { ...values, org: orgSid, limit, offset }, { generic: values.search === undefined && values.is_administrator === undefined }) as (PersonnelRow & { total: number })[]);
}

export async function findBySid(db: Db, sid: string): Promise<PersonnelRow | undefined> {
  const [row] = await select(db, eq(personnel.sid, sid));
  return row as PersonnelRow | undefined;
}

export async function findBySids(db: Db, orgSid: string, sids: string[]): Promise<PersonnelRow[]> {
  if (!sids.length) return [];
  return (await select(db, and(eq(personnel.organizationSid, orgSid), inArray(personnel.sid, sids))!)) as PersonnelRow[];
}

/** How many personnel of the organization are active Admins today. */
export async function countActiveAdmins(db: Db, orgSid: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(personnel).where(and(
    eq(personnel.organizationSid, orgSid), eq(personnel.isAdministrator, true), activeMember.sql(),
  ));
  return row.n;
}

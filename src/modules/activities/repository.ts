// The activity log: SQL. A page is one query with its count; an export reads keyset batches.
import { and, desc, eq, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { activities, users } from '../../db/schema.js';
import { isoTimestamp } from '../../core/sql.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';
import { dateBound } from '../rows/filters.js';
import type { ActivityFilter, ACTIVITY_MODELS } from './schemas.js';

export interface ActivityRecord {
  id: number; icon: string; user: { sid: string; first_name: string; last_name: string; email: string } | null;
  action: 'Created' | 'Updated' | 'Deleted'; field: string; new_data: string; target: string; model: (typeof ACTIVITY_MODELS)[number];
  object_sid: string; version: number | null; date_created: string;
}

const fields = {
  id: activities.id,
  icon: sql<string>`CASE ${activities.action} WHEN 'Created' THEN 'add' WHEN 'Deleted' THEN 'delete' ELSE 'edit' END`,
  user: sql<ActivityRecord['user']>`CASE WHEN ${users.sid} IS NULL THEN NULL
    ELSE json_build_object('sid', ${users.sid}, 'first_name', ${users.firstName}, 'last_name', ${users.lastName}, 'email', ${users.email}) END`,
  action: activities.action, field: activities.field, new_data: activities.newData, target: activities.target,
  model: activities.model, object_sid: activities.objectSid, version: activities.version, date_created: isoTimestamp(activities.dateCreated),
};

/** The organization's log under the filters (each on an index of activities). */
function where(orgSid: string, filter: ActivityFilter): SQL {
  const at = activities.dateCreated;
  const lte = filter.date_created__lte;
  return and(
    eq(activities.organizationSid, orgSid),
    filter.user__sid !== undefined ? eq(activities.userSid, filter.user__sid) : undefined,
    filter.model !== undefined ? eq(activities.model, filter.model) : undefined,
    filter.object_sid !== undefined ? eq(activities.objectSid, filter.object_sid) : undefined,
    filter.date_created__gte !== undefined ? sql`${at} >= ${dateBound('date_created__gte', filter.date_created__gte, false)}` : undefined,
    filter.date_created__gt !== undefined ? sql`${at} > ${dateBound('date_created__gt', filter.date_created__gt, false)}` : undefined,
    lte === undefined ? undefined
      : /^\d{4}-\d{2}-\d{2}$/.test(lte) ? sql`${at} < ${dateBound('date_created__lte', lte, true)}` : sql`${at} <= ${dateBound('date_created__lte', lte, false)}`,
    filter.date_created__lt !== undefined ? sql`${at} < ${dateBound('date_created__lt', filter.date_created__lt, false)}` : undefined,
  )!;
}

/** Checks the filters' values (400 naming a bad date bound) without reading anything. */
export function checkActivityFilter(filter: ActivityFilter): void {
  where('', filter);
}

const select = (db: Db, extra: Record<string, SQL> = {}) =>
  db.select({ ...fields, ...extra }).from(activities).leftJoin(users, eq(users.sid, activities.userSid));

export async function countActivities(db: Db, orgSid: string, filter: ActivityFilter): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(activities).where(where(orgSid, filter));
  return row.n;
}

/** A page of the log, newest first, with its count. */
export async function pageActivities(db: Db, orgSid: string, filter: ActivityFilter, limit: number, offset: number): Promise<Counted<ActivityRecord>> {
  const condition = where(orgSid, filter);
  const total = totalOf(db.select({ n: sql<number>`count(*)::int` }).from(activities).where(condition));
  return counted(await select(db, { total }).where(condition).orderBy(desc(activities.id)).limit(limit).offset(offset) as (ActivityRecord & { total: number })[]);
}

/** The lines older than `before` (none: the newest), newest first, at most `limit`: an export's next batch. */
export async function activityBatch(db: Db, orgSid: string, filter: ActivityFilter, before: number | null, limit: number): Promise<ActivityRecord[]> {
  const condition = before === null ? where(orgSid, filter) : and(where(orgSid, filter), lt(activities.id, before))!;
  return await select(db).where(condition).orderBy(desc(activities.id)).limit(limit) as ActivityRecord[];
}

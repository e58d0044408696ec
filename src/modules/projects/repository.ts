// Projects: the caller's project role comes along with every row (joined through
// their personnel record in the project's organization), so no query per record.
import { and, count, eq, isNotNull, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { personnel, projectMembers, projects, users } from '../../db/schema.js';
import type { ProjectRole } from '../../core/access.js';
import { isoTimestamp, personName } from '../../core/sql.js';

const creator = alias(users, 'creator');
const updater = alias(users, 'updater');
const parent = alias(projects, 'parent');
const me = alias(personnel, 'me');
const mine = alias(projectMembers, 'mine');

const fields = {
  sid: projects.sid,
  organization_sid: projects.organizationSid,
  name: projects.name,
  description: projects.description,
  created_by: personName(creator),
  updated_by: sql<string>`coalesce(${personName(updater)}, '')`,
  parent_sid: parent.sid,
  parent_name: parent.name,
  date_start: sql<string | null>`${projects.dateStart}::text`,
  date_end: sql<string | null>`${projects.dateEnd}::text`,
  is_archived: projects.isArchived,
  open_to_organization: projects.openToOrganization,
  metadata: projects.metadata,
  date_created: isoTimestamp(projects.dateCreated),
  date_updated: isoTimestamp(projects.dateUpdated),
  // A project open to the organization: View for its members without a role (core/rules.ts, projectRole).
  my_role: sql<ProjectRole | null>`coalesce(${mine.permission}, CASE WHEN ${projects.openToOrganization} AND NOT coalesce(${me.isAdministrator}, false) THEN 'view' END)`,
};

export interface ProjectRow {
  sid: string; organization_sid: string; name: string; description: string; created_by: string; updated_by: string;
  parent_sid: string | null; parent_name: string | null; date_start: string | null; date_end: string | null;
  is_archived: boolean; open_to_organization: boolean; metadata: unknown;
  date_created: string; date_updated: string;
  /** The caller's project role (null: none). */
  my_role: ProjectRole | null;
}

/** Projects with the role of user `userSid` in each. */
function select(db: Db, userSid: string) {
  return db.select(fields).from(projects)
    .leftJoin(creator, eq(creator.sid, projects.createdBy))
    .leftJoin(updater, eq(updater.sid, projects.updatedBy))
    .leftJoin(parent, eq(parent.sid, projects.parentSid))
    .leftJoin(me, and(eq(me.organizationSid, projects.organizationSid), eq(me.userSid, userSid)))
    .leftJoin(mine, and(eq(mine.projectSid, projects.sid), eq(mine.personnelSid, me.sid)));
}

/** The list's filters. */
export interface ProjectFilters { is_archived?: boolean; parent__sid?: string }

function filtered(orgSid: string, filters: ProjectFilters): SQL {
  return and(
    eq(projects.organizationSid, orgSid),
    filters.is_archived !== undefined ? eq(projects.isArchived, filters.is_archived) : undefined,
    filters.parent__sid !== undefined ? eq(projects.parentSid, filters.parent__sid) : undefined,
  )!;
}

/** The projects of an organization a caller sees: all of them, or those where they hold a role and those open to the organization. */
function visible(orgSid: string, all: boolean, filters: ProjectFilters): SQL {
  return all ? filtered(orgSid, filters) : and(filtered(orgSid, filters), or(isNotNull(mine.sid), eq(projects.openToOrganization, true)))!;
}

export async function countVisible(db: Db, orgSid: string, personnelSid: string, all: boolean, filters: ProjectFilters = {}): Promise<number> {
  const base = db.select({ n: count() }).from(projects);
  const [row] = all
    ? await base.where(filtered(orgSid, filters))
    : await base.leftJoin(mine, and(eq(mine.projectSid, projects.sid), eq(mine.personnelSid, personnelSid)))
      .where(and(filtered(orgSid, filters), or(isNotNull(mine.sid), eq(projects.openToOrganization, true))));
  return row.n;
}

/** A page of the projects the caller sees, oldest first. */
export async function pageVisible(db: Db, orgSid: string, userSid: string, all: boolean, limit: number, offset: number,
  filters: ProjectFilters = {}): Promise<ProjectRow[]> {
  return select(db, userSid).where(visible(orgSid, all, filters))
    .orderBy(projects.dateCreated, projects.sid).limit(limit).offset(offset);
}

export async function findBySid(db: Db, sid: string, userSid: string): Promise<ProjectRow | undefined> {
  const [row] = await select(db, userSid).where(eq(projects.sid, sid));
  return row;
}

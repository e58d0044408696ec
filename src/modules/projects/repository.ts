// Projects: the caller's project role comes along with every row (joined through
// their personnel record in the project's organization), so no query per record.
import { and, count, eq, isNotNull, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { personnel, projectMembers, projects, users } from '../../db/schema.js';
import type { ProjectRole } from '../../core/access.js';
import { isoTimestamp, personName } from '../../core/sql.js';

const creator = alias(users, 'creator');
const me = alias(personnel, 'me');
const mine = alias(projectMembers, 'mine');

const fields = {
  sid: projects.sid,
  organization_sid: projects.organizationSid,
  name: projects.name,
  description: projects.description,
  created_by: personName(creator),
  date_created: isoTimestamp(projects.dateCreated),
  date_updated: isoTimestamp(projects.dateUpdated),
  my_role: mine.permission,
};

export interface ProjectRow {
  sid: string; organization_sid: string; name: string; description: string; created_by: string;
  date_created: string; date_updated: string;
  /** The caller's project role (null: none). */
  my_role: ProjectRole | null;
}

/** Projects with the role of user `userSid` in each. */
function select(db: Db, userSid: string) {
  return db.select(fields).from(projects)
    .leftJoin(creator, eq(creator.sid, projects.createdBy))
    .leftJoin(me, and(eq(me.organizationSid, projects.organizationSid), eq(me.userSid, userSid)))
    .leftJoin(mine, and(eq(mine.projectSid, projects.sid), eq(mine.personnelSid, me.sid)));
}

/** The projects of an organization a caller sees: all of them, or only those where they hold a role. */
function visible(orgSid: string, all: boolean): SQL {
  return all ? eq(projects.organizationSid, orgSid) : and(eq(projects.organizationSid, orgSid), isNotNull(mine.sid))!;
}

export async function countVisible(db: Db, orgSid: string, personnelSid: string, all: boolean): Promise<number> {
  const base = db.select({ n: count() }).from(projects);
  const [row] = all
    ? await base.where(eq(projects.organizationSid, orgSid))
    : await base.innerJoin(mine, and(eq(mine.projectSid, projects.sid), eq(mine.personnelSid, personnelSid)))
      .where(eq(projects.organizationSid, orgSid));
  return row.n;
}

/** A page of the projects the caller sees, oldest first. */
export async function pageVisible(db: Db, orgSid: string, userSid: string, all: boolean, limit: number, offset: number): Promise<ProjectRow[]> {
  return select(db, userSid).where(visible(orgSid, all))
    .orderBy(projects.dateCreated, projects.sid).limit(limit).offset(offset);
}

export async function findBySid(db: Db, sid: string, userSid: string): Promise<ProjectRow | undefined> {
  const [row] = await select(db, userSid).where(eq(projects.sid, sid));
  return row;
}

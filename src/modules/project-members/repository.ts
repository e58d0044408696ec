// Project memberships, each with its personnel's name (one join, no query per record).
import { and, count, eq } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { personnel, projectMembers, projects, teams } from '../../db/schema.js';
import type { ProjectRole } from '../../core/access.js';
import { isoTimestamp, personName } from '../../core/sql.js';

const me = alias(personnel, 'me');
const mine = alias(projectMembers, 'mine');

/** A member's display name, as personnelName() computes it: first and last name, else the email. */
const personnelName = personName(personnel);

const fields = {
  sid: projectMembers.sid,
  project_sid: projectMembers.projectSid,
  personnel_sid: personnel.sid,
  personnel_name: personnelName,
  permission: projectMembers.permission,
  project_name: projects.name,
  team_sid: teams.sid,
  team_name: teams.name,
  date_created: isoTimestamp(projectMembers.dateCreated),
  date_updated: isoTimestamp(projectMembers.dateUpdated),
};

export interface ProjectMemberRow {
  sid: string; project_sid: string; personnel_sid: string; personnel_name: string; permission: ProjectRole;
  project_name: string; team_sid: string | null; team_name: string | null;
  date_created: string; date_updated: string;
}

/** A membership with its project's organization and the role of user `userSid` in that project. */
export interface ProjectMemberRecord extends ProjectMemberRow {
  organization_sid: string;
  my_role: ProjectRole | null;
}

export async function countInProject(db: Db, projectSid: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(projectMembers).where(eq(projectMembers.projectSid, projectSid));
  return row.n;
}

/** A page of a project's members, in the order they were added. */
export async function pageInProject(db: Db, projectSid: string, limit: number, offset: number): Promise<ProjectMemberRow[]> {
  return db.select(fields).from(projectMembers)
    .innerJoin(personnel, eq(personnel.sid, projectMembers.personnelSid))
    .innerJoin(projects, eq(projects.sid, projectMembers.projectSid))
    .leftJoin(teams, eq(teams.sid, projectMembers.teamSid))
    .where(eq(projectMembers.projectSid, projectSid))
    .orderBy(projectMembers.dateCreated, projectMembers.sid).limit(limit).offset(offset);
}

export async function findBySid(db: Db, sid: string, userSid: string): Promise<ProjectMemberRecord | undefined> {
  const [row] = await db.select({ ...fields, organization_sid: projects.organizationSid, my_role: mine.permission })
    .from(projectMembers)
    .innerJoin(personnel, eq(personnel.sid, projectMembers.personnelSid))
    .innerJoin(projects, eq(projects.sid, projectMembers.projectSid))
    .leftJoin(teams, eq(teams.sid, projectMembers.teamSid))
    .leftJoin(me, and(eq(me.organizationSid, projects.organizationSid), eq(me.userSid, userSid)))
    .leftJoin(mine, and(eq(mine.projectSid, projects.sid), eq(mine.personnelSid, me.sid)))
    .where(eq(projectMembers.sid, sid));
  return row;
}

/** The personnel record `sid` if it belongs to organization `orgSid`, with its display name. */
export async function findPersonnelOf(db: Db, orgSid: string, sid: string): Promise<{ sid: string; name: string } | undefined> {
  const [row] = await db.select({ sid: personnel.sid, name: personnelName }).from(personnel)
    .where(and(eq(personnel.sid, sid), eq(personnel.organizationSid, orgSid)));
  return row;
}

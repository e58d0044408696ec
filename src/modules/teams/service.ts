// Teams (Labii's): named groups of an organization's personnel. Admins define them; every
// active member reads them. A team is a notification recipient (its active personnel) and
// adds its personnel to a project at once (project-members/service.ts).
import { and, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Serializer } from '../../core/resource.js';
import { loadOrganizationRecord, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { isoTimestamp } from '../../core/sql.js';
import { activeMember } from '../../core/rules.js';
import { personnel, teamMembers, teams } from '../../db/schema.js';

export interface TeamRow {
  sid: string; organization_sid: string; name: string; description: string; is_archived: boolean;
  members: string[]; date_created: string; date_updated: string;
}

const fields = {
  sid: teams.sid, organization_sid: teams.organizationSid, name: teams.name, description: teams.description, is_archived: teams.isArchived,
  // The members in the same query (team_members' primary key starts with team_sid).
  members: sql<string[]>`coalesce((SELECT array_agg(tm.personnel_sid ORDER BY tm.date_created, tm.personnel_sid)
    FROM team_members tm WHERE tm.team_sid = ${teams.sid}), '{}')`,
  date_created: isoTimestamp(teams.dateCreated), date_updated: isoTimestamp(teams.dateUpdated),
};

function where(orgSid: string, isArchived?: boolean): SQL {
  return and(eq(teams.organizationSid, orgSid), isArchived !== undefined ? eq(teams.isArchived, isArchived) : undefined)!;
}

export async function countTeams(db: Db, orgSid: string, isArchived?: boolean): Promise<number> {
  const [row] = await db.select({ n: count() }).from(teams).where(where(orgSid, isArchived));
  return row.n;
}

/** A page of an organization's teams, oldest first. */
export async function pageTeams(db: Db, orgSid: string, limit: number, offset: number, isArchived?: boolean): Promise<TeamRow[]> {
  return db.select(fields).from(teams).where(where(orgSid, isArchived)).orderBy(teams.dateCreated, teams.sid).limit(limit).offset(offset);
}

async function findTeam(db: Db, sid: string): Promise<TeamRow | undefined> {
  const [row] = await db.select(fields).from(teams).where(eq(teams.sid, sid));
  return row;
}

export function serializeTeam(row: TeamRow, serializer: Serializer, membership: Membership) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  const base = {
    sid: row.sid, name: row.name, description: row.description, is_archived: row.is_archived,
    change_permission: permissions.schema.change(membership),
  };
  if (serializer === 'list') return base;
  return { ...base, members: row.members, date_created: row.date_created, date_updated: row.date_updated };
}

type SidOrRef = string | { sid: string };
export interface TeamBody { name?: string; description?: string; is_archived?: boolean | string; members?: SidOrRef[] }

const toBool = (v: boolean | string | undefined) => (v === undefined ? undefined : v === true || v === 'true' || v === 'True');

/** The personnel sids of `members`, each a personnel record of the organization (400 on `members.<i>` otherwise), once each. */
async function checkedMembers(db: Db, orgSid: string, members: SidOrRef[]): Promise<string[]> {
  const sids = [...new Set(members.map((m) => (typeof m === 'string' ? m : m.sid)))];
  const valid = sids.filter(isSid);
  const found = new Set(valid.length ? (await db.select({ sid: personnel.sid }).from(personnel)
    .where(and(eq(personnel.organizationSid, orgSid), inArray(personnel.sid, valid)))).map((r) => r.sid) : []);
  const wrong = members.map((m, i) => [i, typeof m === 'string' ? m : m.sid] as const).filter(([, sid]) => !found.has(sid));
  if (wrong.length) throw errors.fields(Object.fromEntries(wrong.slice(0, 20).map(([i]) => [`members.${i}`, 'Select a personnel record of this organization.'])));
  return sids;
}

/** Creates a team of the caller's organization (Admin). */
export async function createTeam(ctx: AppContext, membership: Membership, actor: Actor, body: TeamBody & { name: string }) {
  const members = await checkedMembers(ctx.db, membership.organizationSid, body.members ?? []);
  return ctx.db.transaction(async (tx) => {
    const sid = newSid();
    await tx.insert(teams).values({
      sid, organizationSid: membership.organizationSid, name: body.name, description: body.description ?? '',
      isArchived: toBool(body.is_archived) ?? false, createdBy: actor.userSid,
    });
    if (members.length) await tx.insert(teamMembers).values(members.map((personnelSid) => ({ teamSid: sid, personnelSid })));
    return (await findTeam(tx, sid))!;
  });
}

/** The team `sid` for an active member of its organization (404 outside their organizations). */
export async function loadTeam(ctx: AppContext, actor: Actor, sid: string) {
  const loaded = await loadOrganizationRecord(ctx.db, actor, sid, (s) => findTeam(ctx.db, s));
  if (!permissions.schema.read(loaded.membership)) throw errors.forbidden();
  return loaded;
}

/** Changes a team (Admin); `members` replaces the whole team. */
export async function changeTeam(ctx: AppContext, actor: Actor, sid: string, body: TeamBody) {
  const { row, membership } = await loadTeam(ctx, actor, sid);
  if (!permissions.schema.change(membership)) throw errors.forbidden();
  const members = body.members ? await checkedMembers(ctx.db, row.organization_sid, body.members) : undefined;
  const updated = await ctx.db.transaction(async (tx) => {
    await tx.update(teams).set({
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.is_archived !== undefined ? { isArchived: toBool(body.is_archived) } : {}),
      dateUpdated: sql`now()`,
    }).where(eq(teams.sid, sid));
    if (members) {
      await tx.delete(teamMembers).where(eq(teamMembers.teamSid, sid));
      if (members.length) await tx.insert(teamMembers).values(members.map((personnelSid) => ({ teamSid: sid, personnelSid })));
    }
    return (await findTeam(tx, sid))!;
  });
  return { row: updated, membership };
}

/** Deletes a team (Admin): the project memberships added through it stay, without their team. */
export async function deleteTeam(ctx: AppContext, actor: Actor, sid: string): Promise<void> {
  const { membership } = await loadTeam(ctx, actor, sid);
  if (!permissions.schema.change(membership)) throw errors.forbidden();
  await ctx.db.transaction(async (tx) => {
    await tx.delete(teams).where(eq(teams.sid, sid));
  });
}

/**
 * Recipients with teams expanded: each of `candidates` (sids of `sids` that are no
 * personnel) that is a team of the organization becomes its active personnel (in the order
 * they joined), every other sid stays; each recipient once, in order. Undefined when none
 * of them is a team; a team without active personnel is a 400 on `to`.
 */
export async function expandTeams(db: Db, orgSid: string, sids: string[], candidates: string[]): Promise<string[] | undefined> {
  const teamSids = [...new Set(candidates.filter(isSid))];
  if (!teamSids.length) return undefined;
  const rows = await query<{ team: string; personnel: string | null }>(db, sql`
    SELECT t.sid AS team, p.sid AS personnel
      FROM teams t
      LEFT JOIN team_members tm ON tm.team_sid = t.sid
      LEFT JOIN personnel p ON p.sid = tm.personnel_sid AND ${activeMember.sql('p')}
     WHERE t.organization_sid = ${orgSid} AND t.sid IN (${sql.join(teamSids.map((s) => sql`${s}`), sql`, `)})
     ORDER BY t.sid, tm.date_created, tm.personnel_sid`);
  if (!rows.length) return undefined;
  const byTeam = new Map<string, string[]>();
  for (const r of rows) {
    const list = byTeam.get(r.team) ?? [];
    if (r.personnel) list.push(r.personnel);
    byTeam.set(r.team, list);
  }
  const empty = [...byTeam].filter(([, list]) => !list.length).map(([team]) => team);
  if (empty.length) throw errors.field('to', `These teams have no active personnel: ${empty.join(', ')}.`);
  return [...new Set(sids.flatMap((sid) => byTeam.get(sid) ?? [sid]))];
}

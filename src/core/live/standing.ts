// What the live machinery re-reads for open streams, for all of them at once: whether
// their credentials still hold, and each viewer's standing (organization role, project
// roles) in every organization where they are personnel. The rules applied to it are
// core/rules.ts's.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { roleOf, type Membership, type OrgRole, type ProjectRole } from '../access.js';
import { currentPersonnel, readsProject, readsRow } from '../rules.js';

/** A viewer's standing in one organization. */
export interface OrgStanding {
  role: OrgRole;
  personnelSid: string;
  /** The projects where they hold a role, with it (View in those open to the organization). */
  projects: Map<string, ProjectRole>;
}

/** A viewer's standing in each organization where they are personnel (absent: not personnel there). */
export type Standing = Map<string, OrgStanding>;

/** Rule (core/rules.ts, readsProject) on a standing: may the viewer read project `projectSid`'s records? */
export function mayReadProject(standing: OrgStanding | undefined, projectSid: string): boolean {
  if (!standing) return false;
  const membership = { role: standing.role, personnelSid: standing.personnelSid } as Membership;
  return readsProject.test(membership, standing.projects.get(projectSid) ?? null);
}

/**
 * Rule (core/rules.ts, readsRow) on a standing: may the viewer read a row whose projects are
 * `projectSids` and whose own open_to_organization is `open`?
 */
export function mayReadRow(standing: OrgStanding | undefined, projectSids: string[], open: boolean): boolean {
  if (!standing) return false;
  const membership = { role: standing.role, personnelSid: standing.personnelSid } as Membership;
  return readsRow.test(membership, projectSids.map((p) => standing.projects.get(p) ?? null), open);
}

/** The organizations where the viewer is an active member (Admin or Member, not Alumni). */
export function activeOrganizations(standing: Standing): Set<string> {
  return new Set([...standing].filter(([, s]) => s.role !== 'alumni').map(([org]) => org));
}

/** Each user's standing, for the users `userSids`, in one query. */
export async function standingsOf(db: Db, userSids: string[]): Promise<Map<string, Standing>> {
  const byUser = new Map<string, Standing>();
  if (!userSids.length) return byUser;
  // Sids are letters and digits: one comma-separated parameter keeps one statement text (prepared once).
  const found = await query<{ user_sid: string; organization_sid: string; personnel_sid: string; is_administrator: boolean; is_archived: boolean; is_current: boolean; projects: string; open: string }>(db, sql`
    SELECT p.user_sid, p.organization_sid, p.sid AS personnel_sid, p.is_administrator, p.is_archived,
           ${currentPersonnel.sql('p')} AS is_current, coalesce(string_agg(pm.project_sid || ':' || pm.permission, ','), '') AS projects,
           (SELECT coalesce(string_agg(op.sid, ','), '') FROM projects op WHERE op.organization_sid = p.organization_sid AND op.open_to_organization) AS open
      FROM personnel p LEFT JOIN project_members pm ON pm.personnel_sid = p.sid
     WHERE p.user_sid = ANY(string_to_array(${userSids.join(',')}, ','))
     GROUP BY p.sid`);
  for (const row of found) {
    let standing = byUser.get(row.user_sid);
    if (!standing) byUser.set(row.user_sid, (standing = new Map()));
    const projects = new Map<string, ProjectRole>();
    for (const pair of row.projects ? row.projects.split(',') : []) {
      const [project, role] = pair.split(':');
      projects.set(project, role as ProjectRole);
    }
    // A project open to the organization: View for those without a role there (rules.ts, projectRole).
    for (const project of row.open ? row.open.split(',') : []) if (!projects.has(project)) projects.set(project, 'view');
    standing.set(row.organization_sid, { role: roleOf(row)!, personnelSid: row.personnel_sid, projects });
  }
  return byUser;
}

/**
 * Of the credentials `credentialSids` (of open streams), those that still hold: not
 * deleted (logout, a deleted API key, a password reset), the account active, a session
 * not idle. An open stream counts as use of its session token (at most once a minute).
 * Reads the database, so it sees revocations made through any server process.
 */
export async function validStreamCredentials(db: Db, tokenIdleMinutes: number, credentialSids: string[]): Promise<Set<string>> {
  if (!credentialSids.length) return new Set();
  const credentials = await query<{ sid: string; stale: boolean }>(db, sql`
    SELECT c.sid, c.kind = 'session' AND c.last_used_at < now() - interval '60 seconds' AS stale
      FROM credentials c JOIN users u ON u.sid = c.user_sid
     WHERE c.sid = ANY(string_to_array(${credentialSids.join(',')}, ',')) AND u.is_active
       AND (c.kind = 'apikey' OR c.last_used_at > now() - make_interval(mins => ${tokenIdleMinutes}))`);
  const stale = credentials.filter((c) => c.stale).map((c) => c.sid);
  if (stale.length) await db.execute(sql`UPDATE credentials SET last_used_at = now() WHERE sid = ANY(string_to_array(${stale.join(',')}, ','))`);
  return new Set(credentials.map((c) => c.sid));
}

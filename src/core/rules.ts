// The access rules, each defined once: the function that decides it for a record read into
// the code, and beside it the SQL fragment that decides it inside a query (lists filter in
// SQL; notifications pick their recipients in SQL). Every module imports them; none types
// a rule out as SQL text of its own (style.md, habit 9). A change of a rule is a change here.
import { sql, type SQL } from 'drizzle-orm';
import type { Membership, ProjectRole } from './roles.js';

/** A column of the personnel row aliased `alias` in the query ("personnel" when not aliased). */
const col = (alias: string, column: string) => sql`${sql.identifier(alias)}.${sql.identifier(column)}`;

/**
 * Rule: a personnel record is current — no date_end, or a date_end today or later.
 * (Archived or not current: the person is Alumni, design: Roles.)
 */
export const currentPersonnel = {
  /** The SQL of the rule, for the personnel row aliased `alias`: the `is_current` a query reads (its test is activeMember.test). */
  sql: (alias = 'personnel'): SQL => sql`(${col(alias, 'date_end')} IS NULL OR ${col(alias, 'date_end')} >= CURRENT_DATE)`,
};

/** Rule: a personnel record grants access today — not archived, and current. */
export const activeMember = {
  test: (p: { is_archived: boolean | null; is_current: boolean | null }) => !p.is_archived && !!p.is_current,
  sql: (alias = 'personnel'): SQL => sql`(NOT ${col(alias, 'is_archived')} AND ${currentPersonnel.sql(alias)})`,
};

const isAdmin = (m: Membership | null | undefined) => m?.role === 'admin';
const isActive = (m: Membership | null | undefined) => m?.role === 'admin' || m?.role === 'member';

/**
 * Rule: a project or a row open to the organization (Labii's `open_to_organization`) is
 * read by every active member of its organization, as if they held the project role View
 * there: reading only, never writing. The SQL, for the project `projectSid` or the row
 * `rowSid` (an SQL expression each).
 */
export const openToOrganization = {
  project: (projectSid: SQL): SQL => sql`EXISTS (SELECT 1 FROM projects op WHERE op.sid = ${projectSid} AND op.open_to_organization)`,
  /**
   * The row itself, its first project `projectSid` or one of its other projects is open;
   * `rowOpen`: the row's own open_to_organization when the query has the row at hand.
   */
  row: (rowSid: SQL, projectSid: SQL, rowOpen?: SQL): SQL => sql`(${rowOpen ?? sql`EXISTS (SELECT 1 FROM record_rows orw WHERE orw.sid = ${rowSid} AND orw.open_to_organization)`}
    OR ${openToOrganization.project(projectSid)}
    OR EXISTS (SELECT 1 FROM record_row_projects orp JOIN projects op ON op.sid = orp.project_sid AND op.open_to_organization WHERE orp.row_sid = ${rowSid}))`,
  /**
   * Whether personnel `personnelSid` is an Admin: an Admin reads everything already, and
   * keeps having no project role where they hold none (so a write tells them to take one).
   */
  isAdministrator: (personnelSid: SQL): SQL => sql`coalesce((SELECT ap.is_administrator FROM personnel ap WHERE ap.sid = ${personnelSid}), false)`,
};

/**
 * Rule: may read the records of a project (its rows, their cells, versions and
 * executions): an active Admin of the organization reads every project; another active
 * member needs a role in the project, or the project open to the organization (whose
 * members then hold View there: see findProjectRole and openToOrganization).
 */
export const readsProject = {
  test: (m: Membership | null | undefined, r: ProjectRole | null | undefined) => isAdmin(m) || (isActive(m) && !!r),
  /**
   * The SQL of the rule for a member known to the code: a condition on `projectSid` (an
   * SQL expression, e.g. record_rows.project_sid) that limits a list to what they may read.
   */
  forMember: (m: Membership, projectSid: SQL): SQL => {
    if (isAdmin(m)) return sql`TRUE`;
    if (!isActive(m)) return sql`FALSE`;
    return sql`(EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_sid = ${projectSid} AND pm.personnel_sid = ${m.personnelSid})
      OR ${openToOrganization.project(projectSid)})`;
  },
  /**
   * The SQL of the rule for the personnel row aliased `alias` in the query (e.g. the
   * recipients of a notification): whether that person may read project `projectSid`.
   */
  forPersonnel: (alias: string, projectSid: SQL): SQL => sql`(${activeMember.sql(alias)} AND (${col(alias, 'is_administrator')}
    OR EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_sid = ${projectSid} AND pm.personnel_sid = ${col(alias, 'sid')})
    OR ${openToOrganization.project(projectSid)}))`,
};

/**
 * Rule: may read a row — a row belongs to its first project (record_rows.project_sid) and
 * to those of record_row_projects, and is read through any of them (readsProject on each),
 * or by every active member when it or one of its projects is open to the organization.
 */
export const readsRow = {
  /**
   * The rule for a member known to the code: `roles`, their role in each of the row's
   * projects (View in a project open to the organization, as projectRole gives it), and
   * `open`, the row's own open_to_organization.
   */
  test: (m: Membership | null | undefined, roles: (ProjectRole | null | undefined)[], open: boolean) =>
    isAdmin(m) || roles.some((r) => readsProject.test(m, r)) || (isActive(m) && open),
  /**
   * The SQL of the rule for a member known to the code, on the row `rowSid` whose first
   * project is `projectSid` (`rowOpen`: the row's open_to_organization, when at hand).
   */
  forMember: (m: Membership, rowSid: SQL, projectSid: SQL, rowOpen?: SQL): SQL => {
    if (isAdmin(m)) return sql`TRUE`;
    if (!isActive(m)) return sql`FALSE`;
    return sql`(${readsProject.forMember(m, projectSid)} OR EXISTS (SELECT 1 FROM record_row_projects rp
      JOIN project_members pm ON pm.project_sid = rp.project_sid AND pm.personnel_sid = ${m.personnelSid} WHERE rp.row_sid = ${rowSid})
      OR ${openToOrganization.row(rowSid, projectSid, rowOpen)})`;
  },
  /** The SQL of the rule for the personnel row aliased `alias` in the query. */
  forPersonnel: (alias: string, rowSid: SQL, projectSid: SQL): SQL => sql`(${readsProject.forPersonnel(alias, projectSid)}
    OR (${activeMember.sql(alias)} AND (EXISTS (SELECT 1 FROM record_row_projects rp
      JOIN project_members pm ON pm.project_sid = rp.project_sid AND pm.personnel_sid = ${col(alias, 'sid')} WHERE rp.row_sid = ${rowSid})
      OR ${openToOrganization.row(rowSid, projectSid)})))`,
};

/**
 * Rule: a person's project role on a row is their strongest role in any of the row's
 * projects (Admin over Edit over View), View when they hold none but the row is open to the
 * organization (openToOrganization; not for an organization Admin), null otherwise. As SQL, for the personnel
 * `personnelSid` and the row `rowSid` whose first project is `projectSid` (`rowOpen`: the
 * row's open_to_organization, when the query has the row at hand).
 */
export const rowRole = {
  sql: (personnelSid: SQL, rowSid: SQL, projectSid: SQL, rowOpen?: SQL): SQL<'admin' | 'edit' | 'view' | null> => sql<'admin' | 'edit' | 'view' | null>`coalesce((
    SELECT pm.permission FROM project_members pm
     WHERE pm.personnel_sid = ${personnelSid}
       AND (pm.project_sid = ${projectSid} OR pm.project_sid IN (SELECT rp.project_sid FROM record_row_projects rp WHERE rp.row_sid = ${rowSid}))
     ORDER BY CASE pm.permission WHEN 'admin' THEN 0 WHEN 'edit' THEN 1 ELSE 2 END LIMIT 1),
    CASE WHEN ${openToOrganization.row(rowSid, projectSid, rowOpen)} AND NOT ${openToOrganization.isAdministrator(personnelSid)} THEN 'view' END)`,
};

/**
 * Rule: a person's role in a project: their membership's, View when they hold none but the
 * project is open to the organization (openToOrganization; not for an organization Admin),
 * null otherwise.
 */
export const projectRole = {
  sql: (personnelSid: SQL, projectSid: SQL): SQL<'admin' | 'edit' | 'view' | null> => sql<'admin' | 'edit' | 'view' | null>`coalesce(
    (SELECT pm.permission FROM project_members pm WHERE pm.project_sid = ${projectSid} AND pm.personnel_sid = ${personnelSid}),
    CASE WHEN ${openToOrganization.project(projectSid)} AND NOT ${openToOrganization.isAdministrator(personnelSid)} THEN 'view' END)`,
};

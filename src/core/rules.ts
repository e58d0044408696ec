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
 * Rule: may read the records of a project (its rows, their cells, versions and
 * executions): an active Admin of the organization reads every project; another active
 * member needs a role in the project.
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
    return sql`EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_sid = ${projectSid} AND pm.personnel_sid = ${m.personnelSid})`;
  },
  /**
   * The SQL of the rule for the personnel row aliased `alias` in the query (e.g. the
   * recipients of a notification): whether that person may read project `projectSid`.
   */
  forPersonnel: (alias: string, projectSid: SQL): SQL => sql`(${activeMember.sql(alias)} AND (${col(alias, 'is_administrator')}
    OR EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_sid = ${projectSid} AND pm.personnel_sid = ${col(alias, 'sid')})))`,
};

// The activity log's lines for the schema and the people (issue 24): tables, columns, project
// members and personnel created, changed and removed. Unlike rows' versions and projects
// (triggers of migration 0039), these are written by their services, in the write's own
// transaction: those records carry no author of their last change, and a removal none at all
// (docs/decisions.md, "The activity log of the schema and the people").
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { activities, personnel } from '../../db/schema.js';
import { personName } from '../../core/sql.js';

/** The kinds of object whose lines the services write. */
export type LoggedModel = 'table' | 'column' | 'member' | 'personnel';

/** One line: who (a user sid) did what to which object. */
export interface ActivityLine {
  organizationSid: string;
  userSid: string;
  model: LoggedModel;
  objectSid: string;
  /** The object's name now (before, for a removal). */
  target: string;
  action: 'Created' | 'Updated' | 'Deleted';
  /** What changed: the names of the fields, ', '-separated ('' for a creation or a removal). */
  field?: string;
  newData?: string;
}

/** Writes the lines in the caller's transaction, in one statement. */
export async function logActivities(tx: Db, lines: ActivityLine[]): Promise<void> {
  if (!lines.length) return;
  await tx.insert(activities).values(lines.map((l) => ({
    organizationSid: l.organizationSid, userSid: l.userSid, model: l.model, objectSid: l.objectSid, target: l.target,
    action: l.action, field: l.field ?? '', newData: l.newData ?? '',
  })));
}

/**
 * The names of `fields` whose values differ between `before` and `after` (as the API shows
 * them: JSON values compared by their text), ', '-separated in the order given; '' for none.
 */
export function changedFields<T extends object>(before: T, after: T, fields: readonly (keyof T & string)[]): string {
  return fields.filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f])).join(', ');
}

/** A project membership as its line names it. */
export interface LoggedMembership { sid: string; personnelSid: string; permission: string }

/**
 * Writes one line for each project membership of `memberships` (created, changed or removed
 * by `userSid`), the person's name as the target and the project role as new_data ('' for a
 * removal), in one statement.
 */
export async function logMemberships(tx: Db, userSid: string, action: ActivityLine['action'], memberships: LoggedMembership[], field = ''): Promise<void> {
  if (!memberships.length) return;
  const values = sql.join(memberships.map((m, i) => sql`(${i}::int, ${m.sid}::text, ${m.personnelSid}::text, ${action === 'Deleted' ? '' : m.permission}::text)`), sql`, `);
  await tx.execute(sql`
    INSERT INTO ${activities} (organization_sid, user_sid, model, object_sid, target, action, field, new_data)
    SELECT ${personnel.organizationSid}, ${userSid}, 'member', m.sid, ${personName(personnel)}, ${action}, ${field}, m.permission
      FROM (VALUES ${values}) AS m (i, sid, personnel_sid, permission) JOIN ${personnel} ON ${personnel.sid} = m.personnel_sid
     ORDER BY m.i`);
}

/** A personnel record's name as the API shows it (core/sql.ts personName): first and last name, else the email. */
export function personnelName(p: { first_name: string; last_name: string; email: string }): string {
  return `${p.first_name} ${p.last_name}`.trim() || p.email;
}

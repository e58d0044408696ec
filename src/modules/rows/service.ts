import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { query, type Db } from '../../db/client.js';
import type { Actor } from '../../core/auth.js';
import type { Membership, ProjectRole } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { rowProjects, rows, tables } from '../../db/schema.js';
import { findColumnsOfTable, insertCellsOfNewRow, putCell } from '../cells/write.js';
import { refuseOversize } from './size.js';
import { withColumnRules } from './column-rules.js';
import { appendVersion } from '../versions/append.js';
import { loadRowAccess, type RowAccess, type RowRef } from './access.js';
import { findRow } from './repository.js';
import { checkRowSize } from './size.js';
import { emitRowChange, type RowChange } from './live.js';

/** A row the caller may read (404 when it does not exist or is not theirs to see; 403 for Alumni). */
export async function readableRow(ctx: AppContext, actor: Actor, sid: string): Promise<RowAccess & { membership: Membership }> {
  const access = await loadRowAccess(ctx.db, actor, sid);
  if (!access || !access.membership) throw errors.notFound();
  if (access.membership.role === 'alumni') throw errors.forbidden();
  if (!permissions.row.read(access.membership, access.projectRole)) throw errors.notFound();
  return access as RowAccess & { membership: Membership };
}

/** The fields of a row's body that are not cell values. */
const ROW_FIELDS = new Set(['name', 'description', 'projects', 'project__sid', 'is_template', 'open_to_organization', 'metadata', 'is_archived', 'is_locked']);

/** A cell value of a row's body as the cell's data: text as it is, a number or boolean as its text; null: no cell. */
function cellText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : String(value);
}

/** The cell values of a row's body: its keys that are not the row's own fields. */
export function cellValuesOf(body: Record<string, unknown>): [string, string | null][] {
  return Object.entries(body).filter(([key]) => !ROW_FIELDS.has(key)).map(([key, value]) => [key, cellText(value)]);
}

export interface RowCreateBody {
  name: string;
  description?: string;
  projects?: { sid: string }[];
  project__sid?: string;
  is_template?: boolean;
  open_to_organization?: boolean;
  metadata?: unknown;
  is_archived?: boolean;
  [column: string]: unknown;
}

/**
 * The projects a row is to be put in, deduplicated in the order given, with the caller's
 * role in each, and the refusal (on `field`) of those not of this organization.
 */
async function findProjects(ctx: { db: Db }, membership: Membership, sids: string[], field: string) {
  const wanted = [...new Set(sids)];
  const valid = wanted.filter(isSid);
  const found = valid.length
    ? await query<{ sid: string; permission: ProjectRole | null }>(ctx.db, sql`
        SELECT p.sid, pm.permission FROM projects p
          LEFT JOIN project_members pm ON pm.project_sid = p.sid AND pm.personnel_sid = ${membership.personnelSid}
         WHERE p.organization_sid = ${membership.organizationSid} AND p.sid IN (${sql.join(valid.map((v) => sql`${v}`), sql`, `)})`)
    : [];
  const roles = new Map(found.map((f) => [f.sid, f.permission]));
  const missing = wanted.filter((sid) => !roles.has(sid));
  const problem = !missing.length ? undefined
    : field === 'projects' ? `No project with this sid in this organization: ${missing.join(', ')}.` : 'No project with this sid in this organization.';
  return { wanted, roles, problem };
}

/** Refuses a row in a project where the caller may not create rows (docs/decisions.md, "Rows in several projects"). */
function checkProjectRoles(membership: Membership, found: { wanted: string[]; roles: Map<string, ProjectRole | null> }): string[] {
  for (const sid of found.wanted) {
    const role = found.roles.get(sid) ?? null;
    if (!permissions.row.create(membership, role)) throw errors.writeRefused(membership, role, sid);
  }
  return found.wanted;
}

/** Checks the projects a row is to be put in (400 on `field` for others than this organization's, 403 without the role); returns them. */
async function projectsToJoin(ctx: { db: Db }, membership: Membership, sids: string[], field: string): Promise<string[]> {
  const found = await findProjects(ctx, membership, sids, field);
  if (found.problem) throw errors.field(field, found.problem);
  return checkProjectRoles(membership, found);
}

/**
 * Creates a row of a table in one or more projects (Project Admin or Edit of each), with
 * its uid, its cells (the body's values keyed by column sid) and its version 1 holding
 * them all, in one transaction.
 */
export async function createRow(
  ctx: AppContext, membership: Membership, actor: Actor,
  query_: { table__sid: string; project__sid?: string }, body: RowCreateBody,
) {
  const orgSid = membership.organizationSid;
  const [table] = isSid(query_.table__sid)
    ? await ctx.db.select({ sid: tables.sid }).from(tables).where(and(eq(tables.sid, query_.table__sid), eq(tables.organizationSid, orgSid)))
    : [];
  const given = [...(body.projects ?? []).map((p) => p.sid), body.project__sid, query_.project__sid].filter((s): s is string => !!s);
  const field = body.projects ? 'projects' : 'project__sid';
  const problems: Record<string, string> = {};
  if (!table) problems.table__sid = 'No table with this sid in this organization.';
  if (!given.length) problems.project__sid = 'Give the row\'s project: ?project__sid= or `projects: [{"sid": …}]` in the body.';
  const found = given.length ? await findProjects(ctx, membership, given, field) : undefined;
  if (found?.problem) problems[field] = found.problem;
  if (Object.keys(problems).length) throw errors.fields(problems);
  const projectSids = checkProjectRoles(membership, found!);
  const values = await withColumnRules(ctx.db, table.sid, cellValuesOf(body));
  const columnsFound = await findColumnsOfTable(ctx.db, table.sid, values.map(([key]) => key));
  const unknown = values.filter(([key]) => !columnsFound.has(key));
  if (unknown.length) throw errors.fields(Object.fromEntries(unknown.map(([key]) => [key, "No column with this sid in the row's table."])));
  const filled = values.filter((v): v is [string, string] => v[1] !== null);
  const bytes = [body.name, body.description ?? '', ...filled.map(([, data]) => data)]
    .reduce((sum, text) => sum + Buffer.byteLength(JSON.stringify(text)), 0);
  refuseOversize(bytes, ctx.config.rowMaxBytes, filled.length ? filled[filled.length - 1][0] : 'description');
  const sid = newSid();
  return ctx.db.transaction(async (tx) => {
    await tx.execute(sql`
      WITH n AS (UPDATE record_tables SET uid_counter = uid_counter + 1 WHERE sid = ${table.sid}
                 RETURNING records_row_uid(coalesce(nullif(unique_code, ''), records_table_code(name)), uid_counter) AS uid)
      INSERT INTO record_rows (sid, organization_sid, table_sid, project_sid, name, description, uid, is_template, open_to_organization,
                               metadata, is_archived, created_by, updated_by)
      SELECT ${sid}, ${orgSid}, ${table.sid}, ${projectSids[0]}, ${body.name}, ${body.description ?? ''}, n.uid,
             ${body.is_template ?? false}, ${body.open_to_organization ?? false}, ${JSON.stringify(body.metadata ?? [])}::jsonb,
             ${body.is_archived ?? false}, ${actor.userSid}, ${actor.userSid}
        FROM n`);
    if (projectSids.length > 1) {
      await tx.insert(rowProjects).values(projectSids.slice(1).map((projectSid) => ({ rowSid: sid, projectSid, organizationSid: orgSid })));
    }
    if (filled.length) {
      const row: RowRef = { sid, name: body.name, organization_sid: orgSid, table_sid: table.sid, project_sid: projectSids[0], is_locked: false, is_archived: false };
      await insertCellsOfNewRow(tx, filled.map(([column, data]) => ({
        organizationSid: orgSid, rowSid: sid, column: columnsFound.get(column)!, data, userSid: actor.userSid,
        salesContact: ctx.config.salesContact, onPost: true, rowMaxBytes: ctx.config.rowMaxBytes,
      })), row);
    }
    const message = filled.length ? `Created the row with ${filled.length} cell${filled.length === 1 ? '' : 's'}` : 'Created the row';
    const version = await appendVersion(tx, sid, actor.userSid, message);
    await emitRowChange(tx, { rowSid: sid, userSid: actor.userSid, version, changes: ['created'] });
    return (await findRow(tx, sid, membership.personnelSid))!;
  });
}

export interface RowChanges {
  name?: string;
  description?: string;
  is_template?: boolean;
  open_to_organization?: boolean;
  metadata?: unknown;
  is_locked?: boolean;
  is_archived?: boolean;
  projects?: { sid: string }[];
  [column: string]: unknown;
}

const STATE_MESSAGES = {
  is_locked: ['Unlocked the row', 'Locked the row'],
  is_archived: ['Unarchived the row', 'Archived the row'],
} as const;
const STATE_CHANGES = {
  is_locked: ['unlocked', 'locked'],
  is_archived: ['unarchived', 'archived'],
} as const;

/**
 * Changes a row: name and description by Project Admin or Edit, is_locked and
 * is_archived by Project Admin. An archived row only takes being unarchived; a locked
 * row keeps its name and description until unlocked. A change appends a version;
 * a PATCH that changes nothing appends none.
 */
export async function changeRow(ctx: AppContext, actor: Actor, sid: string, changes: RowChanges) {
  const { membership, projectRole, row: current } = await readableRow(ctx, actor, sid);
  const wantsState = changes.is_locked !== undefined || changes.is_archived !== undefined;
  const wantsFields = FIELD_KEYS.some((key) => changes[key] !== undefined);
  const cellValues = cellValuesOf(changes);
  if (wantsState && !permissions.row.changeState(membership, projectRole)) throw errors.forbidden();
  if ((wantsFields || cellValues.length) && !permissions.row.change(membership, projectRole)) {
    throw errors.writeRefused(membership, projectRole, current.project_sid);
  }
  // Moving a row between projects: Project Admin of the row, and one who may create rows in each project it joins.
  if (changes.projects !== undefined && !permissions.row.changeState(membership, projectRole)) throw errors.forbidden();
  const columnsFound = cellValues.length ? await findColumnsOfTable(ctx.db, current.table_sid, cellValues.map(([key]) => key)) : new Map();
  const unknown = cellValues.filter(([key]) => !columnsFound.has(key));
  if (unknown.length) throw errors.fields(Object.fromEntries(unknown.map(([key]) => [key, "No column with this sid in the row's table."])));
  const projectSids = changes.projects !== undefined
    ? await projectsToJoin(ctx, membership, changes.projects.map((p) => p.sid), 'projects')
    : undefined;

  // The answer is read in the change's transaction: it shows this change, not a later one.
  const row = await ctx.db.transaction(async (tx) => {
    await applyRowChanges(tx, actor.userSid, sid, changes, undefined, ctx.config.rowMaxBytes);
    if (projectSids) await setRowProjects(tx, actor.userSid, sid, membership.organizationSid, projectSids);
    for (const [column, data] of cellValues) {
      if (data === null) continue;
      await putCell(tx, {
        organizationSid: membership.organizationSid, rowSid: sid, column: columnsFound.get(column)!, data, userSid: actor.userSid,
        salesContact: ctx.config.salesContact, onPost: false, rowMaxBytes: ctx.config.rowMaxBytes,
      });
    }
    return (await findRow(tx, sid, membership.personnelSid))!;
  });
  return { row, membership };
}

/**
 * Puts row `sid` in `projectSids` (the first becomes its first project), in the caller's
 * transaction under the row's lock: a version records the move (an archived row refuses it;
 * a locked row takes it, as Labii's do). The same projects again change nothing.
 */
async function setRowProjects(tx: Db, userSid: string, sid: string, orgSid: string, projectSids: string[]): Promise<void> {
  const locked = await loadRowAccess(tx, { userSid }, sid, { lock: true });
  if (!locked) throw errors.notFound();
  if (locked.row.is_archived) throw errors.badRequest('The row is archived; unarchive it before changing it.');
  const before = await query<{ project_sid: string }>(tx, sql`SELECT project_sid FROM record_row_projects WHERE row_sid = ${sid} ORDER BY date_created, project_sid`);
  const current = [locked.row.project_sid, ...before.map((b) => b.project_sid)];
  if (current.length === projectSids.length && current[0] === projectSids[0] && projectSids.every((p) => current.includes(p))) return;
  await tx.delete(rowProjects).where(eq(rowProjects.rowSid, sid));
  if (current[0] !== projectSids[0]) await tx.update(rows).set({ projectSid: projectSids[0] }).where(eq(rows.sid, sid));
  if (projectSids.length > 1) {
    await tx.insert(rowProjects).values(projectSids.slice(1).map((projectSid) => ({ rowSid: sid, projectSid, organizationSid: orgSid })));
  }
  const version = await appendVersion(tx, sid, userSid, 'Changed the projects');
  await emitRowChange(tx, { rowSid: sid, userSid, version, changes: ['projects'] });
}

/** The fields Project Admin and Edit change (a locked row keeps them until unlocked). */
const FIELD_KEYS = ['name', 'description', 'is_template', 'open_to_organization', 'metadata'] as const;
const FIELD_MESSAGES: Record<(typeof FIELD_KEYS)[number], string> = {
  name: 'Renamed the row', description: 'Changed the description', is_template: 'Changed is_template',
  open_to_organization: 'Changed open_to_organization', metadata: 'Changed the metadata',
};

/**
 * Applies `changes` to row `sid` in the caller's transaction, under the row's lock, with
 * the row rules of changeRow (400 for an archived row, or a locked row's name and
 * description) and one version for the whole change, recorded for `userSid`. Returns
 * what changed ([] when nothing did: no version). Permissions are the caller's business.
 */
export async function applyRowChanges(tx: Db, userSid: string, sid: string, changes: RowChanges, via?: string, rowMaxBytes?: number): Promise<string[]> {
  const wantsFields = FIELD_KEYS.some((key) => changes[key] !== undefined);
  const locked = await loadRowAccess(tx, { userSid }, sid, { lock: true });
  if (!locked) throw errors.notFound();
  const current = locked.row;
  const [full] = await tx.select({
    name: rows.name, description: rows.description, is_template: rows.isTemplate, open_to_organization: rows.openToOrganization, metadata: rows.metadata,
  }).from(rows).where(eq(rows.sid, sid));
  const archivedAfter = changes.is_archived ?? current.is_archived;
  if (current.is_archived && archivedAfter && (wantsFields || changes.is_locked !== undefined)) {
    throw errors.badRequest('The row is archived; unarchive it before changing it.');
  }
  if (current.is_locked && (changes.is_locked ?? true) && wantsFields) {
    throw errors.badRequest('The row is locked; unlock it before changing its name or description.');
  }
  const messages: string[] = [];
  const done: RowChange[] = [];
  const set: Partial<typeof rows.$inferInsert> = {};
  if (changes.name !== undefined && changes.name !== full.name) { set.name = changes.name; messages.push(FIELD_MESSAGES.name); done.push('renamed'); }
  if (changes.description !== undefined && changes.description !== full.description) {
    set.description = changes.description;
    messages.push(FIELD_MESSAGES.description);
    done.push('description');
  }
  for (const flag of ['is_template', 'open_to_organization'] as const) {
    const value = changes[flag];
    if (value !== undefined && value !== full[flag]) {
      set[flag === 'is_template' ? 'isTemplate' : 'openToOrganization'] = value;
      messages.push(FIELD_MESSAGES[flag]);
      done.push('fields');
    }
  }
  if (changes.metadata !== undefined && JSON.stringify(changes.metadata) !== JSON.stringify(full.metadata)) {
    set.metadata = changes.metadata;
    messages.push(FIELD_MESSAGES.metadata);
    done.push('fields');
  }
  for (const flag of ['is_locked', 'is_archived'] as const) {
    const value = changes[flag];
    if (value !== undefined && value !== current[flag]) {
      set[flag === 'is_locked' ? 'isLocked' : 'isArchived'] = value;
      messages.push(STATE_MESSAGES[flag][Number(value)]);
      done.push(STATE_CHANGES[flag][Number(value)]);
    }
  }
  if (!messages.length) return messages;
  if (rowMaxBytes !== undefined && (set.name !== undefined || set.description !== undefined)) {
    await checkRowSize(tx, sid, { name: set.name, description: set.description }, rowMaxBytes, set.description !== undefined ? 'description' : 'name');
  }
  await tx.update(rows).set({ ...set, dateUpdated: sql`now()` }).where(eq(rows.sid, sid));
  const version = await appendVersion(tx, sid, userSid, `${messages.join('; ')}${via ? ` (${via})` : ''}`);
  await emitRowChange(tx, { rowSid: sid, userSid, version, changes: done });
  return messages;
}

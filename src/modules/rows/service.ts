import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { query, type Db } from '../../db/client.js';
import type { Actor } from '../../core/auth.js';
import type { Membership, ProjectRole } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { queryBool } from '../../core/schemas.js';
import { isSid, newSid } from '../../core/ids.js';
import { rowProjects, tables } from '../../db/schema.js';
import { findColumnsOfTable, insertCellsOfNewRow } from '../cells/write.js';
import { refuseOversize } from './size.js';
import { withColumnRules } from './column-rules.js';
import { appendVersion } from '../versions/append.js';
import type { RowAccess } from './access.js';
import { readRow, type RowRef } from '../records/lock.js';
import { findRow } from './repository.js';
import { emitRowChange } from './live.js';

// A row's changes are written by records/ (row-fields.ts; the PATCH is records/commands/row-update.ts).
export { applyRowChanges, type RowChanges } from '../records/row-fields.js';

/** A row the caller may read (404 when it does not exist or is not theirs to see; 403 for Alumni). */
export async function readableRow(ctx: AppContext, actor: Actor, sid: string): Promise<RowAccess & { membership: Membership }> {
  const access = await readRow(ctx.db, actor, { row: sid });
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
export async function projectsToJoin(ctx: { db: Db }, membership: Membership, sids: string[], field: string): Promise<string[]> {
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
  query_: { table__sid: string; project__sid?: string; presigned_post?: string }, body: RowCreateBody,
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
  // presigned_post=true (labii-sdk upload()): a file column's value is the name of the file to come, not a cell (files/labii-upload.ts).
  const presigned = queryBool(query_.presigned_post);
  const filled = values.filter((v): v is [string, string] => v[1] !== null && !(presigned && columnsFound.get(v[0])!.kind === 'file'));
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
      const row: RowRef = { sid, name: body.name, organization_sid: orgSid, table_sid: table.sid, project_sid: projectSids[0], is_locked: false, is_archived: false,
        open_to_organization: body.open_to_organization ?? false };
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


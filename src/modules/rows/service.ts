import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Actor } from '../../core/auth.js';
import type { Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { projects, rows, tables } from '../../db/schema.js';
import { findProjectRole } from '../../core/access.js';
import { appendVersion } from '../versions/append.js';
import { loadRowAccess, type RowAccess } from './access.js';
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

/**
 * Creates a row of a table in a project (Project Admin or Edit of that project), with
 * its version 1, in one transaction.
 */
export async function createRow(
  ctx: AppContext, membership: Membership, actor: Actor,
  query: { table__sid: string; project__sid: string }, body: { name: string; description?: string },
) {
  const orgSid = membership.organizationSid;
  const [table] = isSid(query.table__sid)
    ? await ctx.db.select({ sid: tables.sid }).from(tables).where(and(eq(tables.sid, query.table__sid), eq(tables.organizationSid, orgSid)))
    : [];
  const [project] = isSid(query.project__sid)
    ? await ctx.db.select({ sid: projects.sid }).from(projects).where(and(eq(projects.sid, query.project__sid), eq(projects.organizationSid, orgSid)))
    : [];
  const problems: Record<string, string> = {};
  if (!table) problems.table__sid = 'No table with this sid in this organization.';
  if (!project) problems.project__sid = 'No project with this sid in this organization.';
  if (Object.keys(problems).length) throw errors.fields(problems);
  const role = await findProjectRole(ctx.db, membership.personnelSid, project.sid);
  if (!permissions.row.create(membership, role)) throw errors.writeRefused(membership, role, project.sid);

  const sid = newSid();
  await ctx.db.transaction(async (tx) => {
    await tx.insert(rows).values({
      sid, organizationSid: orgSid, tableSid: table.sid, projectSid: project.sid,
      name: body.name, description: body.description ?? '', createdBy: actor.userSid,
    });
    const version = await appendVersion(tx, sid, actor.userSid, 'Created the row');
    await emitRowChange(tx, { rowSid: sid, userSid: actor.userSid, version, changes: ['created'] });
  });
  return (await findRow(ctx.db, sid, membership.personnelSid))!;
}

export interface RowChanges {
  name?: string;
  description?: string;
  is_locked?: boolean;
  is_archived?: boolean;
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
  const wantsFields = changes.name !== undefined || changes.description !== undefined;
  if (wantsState && !permissions.row.changeState(membership, projectRole)) throw errors.forbidden();
  if (wantsFields && !permissions.row.change(membership, projectRole)) throw errors.writeRefused(membership, projectRole, current.project_sid);

  // The answer is read in the change's transaction: it shows this change, not a later one.
  const row = await ctx.db.transaction(async (tx) => {
    await applyRowChanges(tx, actor.userSid, sid, changes, undefined, ctx.config.rowMaxBytes);
    return (await findRow(tx, sid, membership.personnelSid))!;
  });
  return { row, membership };
}

/**
 * Applies `changes` to row `sid` in the caller's transaction, under the row's lock, with
 * the row rules of changeRow (400 for an archived row, or a locked row's name and
 * description) and one version for the whole change, recorded for `userSid`. Returns
 * what changed ([] when nothing did: no version). Permissions are the caller's business.
 */
export async function applyRowChanges(tx: Db, userSid: string, sid: string, changes: RowChanges, via?: string, rowMaxBytes?: number): Promise<string[]> {
  const wantsFields = changes.name !== undefined || changes.description !== undefined;
  const locked = await loadRowAccess(tx, { userSid }, sid, { lock: true });
  if (!locked) throw errors.notFound();
  const current = locked.row;
  const [full] = await tx.select({ name: rows.name, description: rows.description }).from(rows).where(eq(rows.sid, sid));
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
  if (changes.name !== undefined && changes.name !== full.name) { set.name = changes.name; messages.push('Renamed the row'); done.push('renamed'); }
  if (changes.description !== undefined && changes.description !== full.description) {
    set.description = changes.description;
    messages.push('Changed the description');
    done.push('description');
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

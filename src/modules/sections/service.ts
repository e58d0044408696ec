// Sections: each write locks the row, checks the row's rules and appends the row's version
// (whose data then holds the row's sections), in one transaction.
import { and, eq, gte, isNull, or, sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { sections, widgets } from '../../db/schema.js';
import { appendVersion } from '../versions/append.js';
import { emitRowChange } from '../rows/live.js';
import { loadRowAccess, type RowAccess } from '../rows/access.js';
import { readableRow } from '../rows/service.js';
import { findSection } from './repository.js';
import { checkRowSize } from '../rows/size.js';

export const sectionMessages = {
  missingRow: 'Give the section\'s row: ?row__sid= (or `row` in the body).',
  archived: 'The row is archived; its sections cannot be added or changed.',
  locked: 'The row is locked; only a section whose widget may be added at the read-only stage can be added or changed.',
};

/** The JSON text a section keeps of its content, at most ROW_MAX_BYTES (400 on data). */
function dataText(data: unknown, max: number): string {
  const text = JSON.stringify(data ?? null);
  const bytes = Buffer.byteLength(text);
  if (bytes > max) throw errors.field('data', `The section's content would be ${bytes} bytes; a section holds at most ${max} bytes (ROW_MAX_BYTES).`);
  return text;
}

/** The row's lock, the caller's write permission and the row's state; the row's access. */
async function lockRowForSection(tx: Db, actor: Actor, membership: Membership, rowSid: string, addable: boolean, may = permissions.section.write): Promise<RowAccess> {
  const access = await loadRowAccess(tx, actor, rowSid, { lock: true });
  if (!access || access.row.organization_sid !== membership.organizationSid) {
    throw errors.field('row__sid', 'No row with this sid in this organization.');
  }
  if (!may(membership, access.projectRole)) throw errors.writeRefused(membership, access.projectRole, access.row.project_sid);
  if (access.row.is_archived) throw errors.badRequest(sectionMessages.archived);
  if (access.row.is_locked && !addable) throw errors.badRequest(sectionMessages.locked);
  return access;
}

/** Appends the row's version for a section's change and records it on the section; emits the row's change. */
async function versionFor(tx: Db, actor: Actor, rowSid: string, sectionSid: string, message: string): Promise<void> {
  const version = await appendVersion(tx, rowSid, actor.userSid, message);
  await tx.update(sections).set({ version }).where(eq(sections.sid, sectionSid));
  await emitRowChange(tx, { rowSid, userSid: actor.userSid, version, changes: ['sections'] });
}

export interface SectionCreateBody {
  name: string;
  description?: string;
  widget?: { sid: string } | null;
  widget__sid?: string;
  row?: string;
  order?: number;
  data?: unknown;
}

/**
 * Adds a section to a row (Project Admin, Edit; not to an archived row, nor to a locked
 * one unless its widget may be added at the read-only stage), at `order` (default: last;
 * the sections from there move down one), with the row's next version, in one transaction.
 */
export async function createSection(ctx: AppContext, membership: Membership, actor: Actor, rowSid: string | undefined, body: SectionCreateBody) {
  const row = rowSid ?? body.row;
  if (!row) throw errors.field('row__sid', sectionMessages.missingRow);
  const widgetSid = body.widget?.sid ?? body.widget__sid;
  let addable = false;
  if (widgetSid !== undefined) {
    const [widget] = isSid(widgetSid) ? await ctx.db.select({ addable: widgets.addableAtReadonly }).from(widgets)
      .where(and(eq(widgets.sid, widgetSid), or(isNull(widgets.organizationSid), eq(widgets.organizationSid, membership.organizationSid)))) : [];
    if (!widget) throw errors.field(body.widget ? 'widget' : 'widget__sid', 'No widget with this sid for this organization.');
    addable = widget.addable;
  }
  const data = dataText(body.data, ctx.config.rowMaxBytes);
  return ctx.db.transaction(async (tx) => {
    const access = await lockRowForSection(tx, actor, membership, row, addable);
    const [{ last }] = await query<{ last: number }>(tx, sql`SELECT coalesce(max("order"), 0)::int AS last FROM sections WHERE row_sid = ${row}`);
    const order = body.order === undefined || body.order > last ? last + 1 : body.order;
    if (order <= last) {
      await tx.update(sections).set({ order: sql`${sections.order} + 1` }).where(and(eq(sections.rowSid, row), gte(sections.order, order)));
    }
    const sid = newSid();
    await checkRowSize(tx, row, { section: sid, name: body.name, description: body.description ?? '', data }, ctx.config.rowMaxBytes, 'data');
    await tx.insert(sections).values({
      sid, organizationSid: membership.organizationSid, rowSid: row, tableSid: access.row.table_sid, widgetSid: widgetSid ?? null,
      name: body.name, description: body.description ?? '', order, data, createdBy: actor.userSid, updatedBy: actor.userSid,
    });
    await versionFor(tx, actor, row, sid, `Added the section ${body.name}`);
    return (await findSection(tx, sid, membership.personnelSid))!;
  });
}

/** A section the caller may read (404 otherwise; 403 for Alumni), with their membership. */
export async function readableSection(ctx: AppContext, actor: Actor, sid: string) {
  const [found] = isSid(sid) ? await ctx.db.select({ rowSid: sections.rowSid }).from(sections).where(eq(sections.sid, sid)) : [];
  if (!found) throw errors.notFound();
  const { membership } = await readableRow(ctx, actor, found.rowSid);
  return { section: (await findSection(ctx.db, sid, membership.personnelSid))!, membership };
}

export interface SectionChanges {
  name?: string;
  description?: string;
  order?: number;
  data?: unknown;
  is_archived?: boolean;
}

/**
 * Changes a section (Project Admin, Edit; the row's rules as for adding one): each change
 * is one version of the row; the same values again change nothing and append none. A
 * new `order` moves the section there, the sections in between shifting by one.
 */
export async function changeSection(ctx: AppContext, actor: Actor, sid: string, changes: SectionChanges) {
  const { section: current, membership } = await readableSection(ctx, actor, sid);
  const data = changes.data !== undefined ? dataText(changes.data, ctx.config.rowMaxBytes) : undefined;
  const section = await ctx.db.transaction(async (tx) => {
    await lockRowForSection(tx, actor, membership, current.row.sid, current.addable_at_readonly);
    const [now] = await tx.select({
      name: sections.name, description: sections.description, order: sections.order, data: sections.data, isArchived: sections.isArchived,
    }).from(sections).where(eq(sections.sid, sid)).for('update');
    const set: Partial<typeof sections.$inferInsert> = {};
    const said: string[] = [];
    if (changes.name !== undefined && changes.name !== now.name) { set.name = changes.name; said.push('renamed'); }
    if (changes.description !== undefined && changes.description !== now.description) { set.description = changes.description; said.push('description'); }
    if (data !== undefined && data !== now.data) { set.data = data; said.push('content'); }
    if (changes.is_archived !== undefined && changes.is_archived !== now.isArchived) {
      set.isArchived = changes.is_archived;
      said.push(changes.is_archived ? 'archived' : 'unarchived');
    }
    if (changes.order !== undefined && changes.order !== now.order) {
      const [{ last }] = await query<{ last: number }>(tx, sql`SELECT coalesce(max("order"), 0)::int AS last FROM sections WHERE row_sid = ${current.row.sid}`);
      const to = Math.min(changes.order, last);
      if (to !== now.order) {
        // The sections between the old and the new place move by one towards the old.
        await tx.execute(to < now.order
          ? sql`UPDATE sections SET "order" = "order" + 1 WHERE row_sid = ${current.row.sid} AND "order" >= ${to} AND "order" < ${now.order}`
          : sql`UPDATE sections SET "order" = "order" - 1 WHERE row_sid = ${current.row.sid} AND "order" > ${now.order} AND "order" <= ${to}`);
        set.order = to;
        said.push('moved');
      }
    }
    if (said.length) {
      if (set.name !== undefined || set.description !== undefined || set.data !== undefined) {
        await checkRowSize(tx, current.row.sid, {
          section: sid, name: set.name ?? now.name, description: set.description ?? now.description, data: set.data ?? now.data,
        }, ctx.config.rowMaxBytes, set.data !== undefined ? 'data' : 'name');
      }
      await tx.update(sections).set({ ...set, updatedBy: actor.userSid, dateUpdated: sql`now()` }).where(eq(sections.sid, sid));
      await versionFor(tx, actor, current.row.sid, sid, `Changed the section ${set.name ?? now.name} (${said.join(', ')})`);
    }
    return (await findSection(tx, sid, membership.personnelSid))!;
  });
  return { section, membership };
}

/**
 * Deletes a section (the row's Project Admin; the row's rules as for changing one): the
 * sections after it move up one, and the row gets a version without it, in one transaction.
 */
export async function deleteSection(ctx: AppContext, actor: Actor, sid: string): Promise<void> {
  const { section: current, membership } = await readableSection(ctx, actor, sid);
  await ctx.db.transaction(async (tx) => {
    await lockRowForSection(tx, actor, membership, current.row.sid, current.addable_at_readonly, permissions.section.delete);
    const [gone] = await tx.delete(sections).where(eq(sections.sid, sid)).returning({ order: sections.order, name: sections.name });
    if (!gone) throw errors.notFound();
    await tx.execute(sql`UPDATE sections SET "order" = "order" - 1 WHERE row_sid = ${current.row.sid} AND "order" > ${gone.order}`);
    const version = await appendVersion(tx, current.row.sid, actor.userSid, `Deleted the section ${gone.name}`);
    await emitRowChange(tx, { rowSid: current.row.sid, userSid: actor.userSid, version, changes: ['sections'] });
  });
}

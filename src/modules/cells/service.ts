// Writing cells: the row rules, the credit debit and the version, in one transaction.
import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { cells, columns, widgets } from '../../db/schema.js';
import { loadRowAccess } from '../rows/access.js';
import { appendVersion } from '../versions/append.js';
import { debitCredits } from '../credits/service.js';
import { findCell } from './repository.js';
import { notifyMentions } from '../notifications/mentions.js';

/** The spec's 406 texts (Errors), with POST's "Error: " prefix and PATCH's plain form. */
const messages = {
  missingRow: 'Error: Missing row__sid in the post link.',
  rowNotInOrganization: (row: string, org: string) => `Error: The row (${row}) does not belong to the organization (${org})`,
  noCredits: (contact: string, onPost: boolean) => `${onPost ? 'Error: ' : ''}Your organization does not have enough credits, contact ${contact}!`,
  archived: (row: string, onPost: boolean) => `${onPost ? 'Error: ' : ''}The row (${row}) is archived; its cells cannot be ${onPost ? 'created' : 'changed'}.`,
  locked: (row: string, onPost: boolean) => `${onPost ? 'Error: ' : ''}The row (${row}) is locked; only a widget that may be added at the read-only stage can ${onPost ? 'be added' : 'change'}.`,
};

/** Refuses a write the row's state does not allow (spec: rules about cells). */
function checkRowState(row: { sid: string; is_locked: boolean; is_archived: boolean }, addableAtReadonly: boolean, onPost: boolean) {
  if (row.is_archived) throw errors.notAcceptable(messages.archived(row.sid, onPost));
  if (row.is_locked && !addableAtReadonly) throw errors.notAcceptable(messages.locked(row.sid, onPost));
}

/**
 * Creates the cell of a row in a column (Project Admin, Edit), debits its widget's
 * price, appends the row's version and notifies the members it mentions, in one transaction.
 */
export async function createCell(
  ctx: AppContext, membership: Membership, actor: Actor, rowSid: string | undefined, body: { column: string; data: string },
) {
  const orgSid = membership.organizationSid;
  if (!rowSid) throw errors.notAcceptable(messages.missingRow);
  const access = await loadRowAccess(ctx.db, actor, rowSid);
  if (!access || access.row.organization_sid !== orgSid) throw errors.notAcceptable(messages.rowNotInOrganization(rowSid, orgSid));
  if (!permissions.cell.write(membership, access.projectRole)) throw errors.forbidden();
  const [column] = isSid(body.column)
    ? await ctx.db.select({ sid: columns.sid, name: columns.name, widgetSid: widgets.sid, price: widgets.price, addable: widgets.addableAtReadonly })
      .from(columns).innerJoin(widgets, eq(widgets.sid, columns.widgetSid))
      .where(and(eq(columns.sid, body.column), eq(columns.tableSid, access.row.table_sid)))
    : [];
  if (!column) throw errors.field('column', "No column with this sid in the row's table.");

  const sid = newSid();
  await ctx.db.transaction(async (tx) => {
    const locked = (await loadRowAccess(tx, actor, rowSid, { lock: true }))!;
    checkRowState(locked.row, column.addable, true);
    const [existing] = await tx.select({ sid: cells.sid }).from(cells).where(and(eq(cells.rowSid, rowSid), eq(cells.columnSid, column.sid)));
    if (existing) throw errors.field('column', `The row already has a cell in this column (${existing.sid}); PATCH that cell instead.`);
    await tx.insert(cells).values({
      sid, organizationSid: orgSid, rowSid, columnSid: column.sid, widgetSid: column.widgetSid, data: body.data,
      createdBy: actor.userSid, updatedBy: actor.userSid,
    });
    const paid = await debitCredits(tx, {
      organizationSid: orgSid, amount: column.price, reason: `cell created in column ${column.name}`, cellSid: sid, rowSid, userSid: actor.userSid,
    });
    if (!paid) throw errors.notAcceptable(messages.noCredits(ctx.config.salesContact, true));
    await appendVersion(tx, rowSid, actor.userSid, `Created the cell of ${column.name}`);
    await notifyMentions(tx, {
      organizationSid: orgSid, row: locked.row, columnName: column.name, authorUserSid: actor.userSid, before: '', after: body.data,
    });
  });
  return (await findCell(ctx.db, sid, membership.personnelSid))!;
}

/**
 * Changes a cell's data (Project Admin, Edit), debits its widget's price, appends the
 * row's version and notifies the members newly mentioned, in one transaction. The same data again changes nothing and costs nothing.
 * A sid that is not a cell of the caller's organizations: 406 "Wrong id".
 */
export async function changeCell(ctx: AppContext, actor: Actor, sid: string, body: { data: string }) {
  if (!isSid(sid)) throw errors.wrongId();
  const [found] = await ctx.db.select({ row: cells.rowSid, column: columns.name, price: widgets.price, addable: widgets.addableAtReadonly })
    .from(cells).innerJoin(columns, eq(columns.sid, cells.columnSid)).innerJoin(widgets, eq(widgets.sid, cells.widgetSid))
    .where(eq(cells.sid, sid));
  const access = found && (await loadRowAccess(ctx.db, actor, found.row));
  if (!access || !access.membership) throw errors.wrongId();
  const { membership } = access;
  if (membership.role === 'alumni' || !permissions.cell.write(membership, access.projectRole)) throw errors.forbidden();

  await ctx.db.transaction(async (tx) => {
    const locked = (await loadRowAccess(tx, actor, found.row, { lock: true }))!;
    checkRowState(locked.row, found.addable, false);
    const [current] = await tx.select({ data: cells.data }).from(cells).where(eq(cells.sid, sid));
    if (current.data === body.data) return;
    await tx.update(cells).set({ data: body.data, updatedBy: actor.userSid, dateUpdated: sql`now()` }).where(eq(cells.sid, sid));
    const paid = await debitCredits(tx, {
      organizationSid: membership.organizationSid, amount: found.price, reason: `cell changed in column ${found.column}`,
      cellSid: sid, rowSid: found.row, userSid: actor.userSid,
    });
    if (!paid) throw errors.notAcceptable(messages.noCredits(ctx.config.salesContact, false));
    await appendVersion(tx, found.row, actor.userSid, `Changed the cell of ${found.column}`);
    await notifyMentions(tx, {
      organizationSid: membership.organizationSid, row: locked.row, columnName: found.column, authorUserSid: actor.userSid,
      before: current.data, after: body.data,
    });
  });
  return { cell: (await findCell(ctx.db, sid, membership.personnelSid))!, membership };
}

/** A cell as the caller sees it (406 "Wrong id" when it is not a cell of their organizations). */
export async function readableCell(ctx: AppContext, actor: Actor, sid: string) {
  if (!isSid(sid)) throw errors.wrongId();
  const [found] = await ctx.db.select({ row: cells.rowSid }).from(cells).where(eq(cells.sid, sid));
  const access = found && (await loadRowAccess(ctx.db, actor, found.row));
  if (!access || !access.membership) throw errors.wrongId();
  if (access.membership.role === 'alumni' || !permissions.cell.read(access.membership, access.projectRole)) throw errors.forbidden();
  return { cell: (await findCell(ctx.db, sid, access.membership.personnelSid))!, membership: access.membership };
}

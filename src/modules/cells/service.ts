// Writing cells: the row rules, the credit debit and the version, in one transaction.
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { cells, columns, widgets } from '../../db/schema.js';
import { loadRowAccess } from '../rows/access.js';
import { findCell } from './repository.js';
import { cellMessages as messages, findColumnOfTable, insertCell, updateCell } from './write.js';

/**
 * Creates the cell of a row in a column (Project Admin, Edit), debits its widget's
 * price and appends the row's version, in one transaction.
 */
export async function createCell(
  ctx: AppContext, membership: Membership, actor: Actor, rowSid: string | undefined, body: { column: string; data: string },
) {
  const orgSid = membership.organizationSid;
  if (!rowSid) throw errors.notAcceptable(messages.missingRow);
  const access = await loadRowAccess(ctx.db, actor, rowSid);
  if (!access || access.row.organization_sid !== orgSid) throw errors.notAcceptable(messages.rowNotInOrganization(rowSid, orgSid));
  if (!permissions.cell.write(membership, access.projectRole)) throw errors.forbidden();
  const column = await findColumnOfTable(ctx.db, access.row.table_sid, body.column);
  if (!column) throw errors.field('column', "No column with this sid in the row's table.");

  // The answer is read in the write's transaction: it shows this write, not a later one.
  return ctx.db.transaction(async (tx) => {
    const sid = await insertCell(tx, {
      organizationSid: orgSid, rowSid, column, data: body.data, userSid: actor.userSid, salesContact: ctx.config.salesContact, onPost: true,
    });
    return (await findCell(tx, sid, membership.personnelSid))!;
  });
}

/**
 * Changes a cell's data (Project Admin, Edit), debits its widget's price and appends the
 * row's version, in one transaction. The same data again changes nothing and costs nothing.
 * A sid that is not a cell of the caller's organizations: 406 "Wrong id".
 */
export async function changeCell(ctx: AppContext, actor: Actor, sid: string, body: { data: string }) {
  if (!isSid(sid)) throw errors.wrongId();
  const [found] = await ctx.db.select({
    row: cells.rowSid,
    column: { sid: columns.sid, name: columns.name, widgetSid: widgets.sid, price: widgets.price, addable: widgets.addableAtReadonly },
  }).from(cells).innerJoin(columns, eq(columns.sid, cells.columnSid)).innerJoin(widgets, eq(widgets.sid, cells.widgetSid))
    .where(eq(cells.sid, sid));
  const access = found && (await loadRowAccess(ctx.db, actor, found.row));
  if (!access || !access.membership) throw errors.wrongId();
  const { membership } = access;
  if (membership.role === 'alumni' || !permissions.cell.write(membership, access.projectRole)) throw errors.forbidden();

  // The answer is read in the write's transaction: it shows this write, not a later one.
  const cell = await ctx.db.transaction(async (tx) => {
    await updateCell(tx, {
      organizationSid: membership.organizationSid, rowSid: found.row, column: found.column, data: body.data,
      userSid: actor.userSid, salesContact: ctx.config.salesContact, onPost: false,
    }, sid);
    return (await findCell(tx, sid, membership.personnelSid))!;
  });
  return { cell, membership };
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

// Command: change a cell's data (PATCH /tables/cell/detail/{sid}/; spec: Cell endpoints).
import type { AppContext } from '../../../context.js';
import type { Actor } from '../../../core/auth.js';
import type { Membership } from '../../../core/access.js';
import { permissions } from '../../../core/permissions.js';
import { errors } from '../../../core/errors.js';
import { isSid } from '../../../core/ids.js';
import type { CellRecord } from '../../cells/repository.js';
import { lockRow } from '../lock.js';
import { checkRowState } from '../refusals.js';
import { changeLocked, raisedRefusal } from '../cells.js';
import { ambientTransaction } from '../../../core/record-lock.js';

/**
 * Changes a cell's data (Project Admin, Edit) through the row's door: its row locked with the
 * caller's standing in one statement, the cell and the version in one more, then the
 * consequences (the debit last), in one transaction whose answer is read in it. The same
 * data again changes nothing and costs nothing. 406 "Wrong id" for a sid that is not a
 * cell of the caller's organizations; the row's refusals are RowRefusal codes the route words.
 * The change is the transaction's last write: on PostgreSQL it commits with it when no
 * consequence has more to say (3 round trips in all, with the credential's), unless the
 * transaction is a savepoint of an If-Match PATCH's (core/record-lock.ts), which goes on after it.
 */
export async function cellUpdate(ctx: AppContext, actor: Actor, sid: string, body: { data: string }): Promise<{ cell: CellRecord; membership: Membership }> {
  if (!isSid(sid)) throw errors.wrongId();
  try {
    return await updateIn(ctx, actor, sid, body);
  } catch (err) {
    throw (await raisedRefusal(ctx.db, err, ctx.config)) ?? err;
  }
}

function updateIn(ctx: AppContext, actor: Actor, sid: string, body: { data: string }): Promise<{ cell: CellRecord; membership: Membership }> {
  return ctx.db.transaction(async (tx) => {
    const found = await lockRow(tx, actor, { cell: sid });
    if (!found?.membership || !found.cell) throw errors.wrongId();
    const { row, membership, projectRole, cell: locked } = found;
    if (membership.role === 'alumni') throw errors.forbidden();
    if (!permissions.cell.write(membership, projectRole)) throw errors.writeRefused(membership, projectRole, row.project_sid);
    checkRowState(row, locked.column.addable);
    const change = await changeLocked(tx, {
      organizationSid: row.organization_sid, rowSid: row.sid, column: locked.column, data: body.data, userSid: actor.userSid,
      salesContact: ctx.config.salesContact, rowMaxBytes: ctx.config.rowMaxBytes,
    }, row, sid, found.createdBy, !ambientTransaction());
    const cell: CellRecord = {
      sid, data: change.data, organization_sid: row.organization_sid, row: { sid: row.sid, name: row.name },
      column: { sid: locked.column.sid, name: locked.column.name }, widget: { sid: locked.column.widgetSid, name: locked.widget_name },
      price: locked.column.price, addable_at_readonly: locked.column.addable, is_locked: row.is_locked, is_archived: row.is_archived,
      date_created: locked.date_created, date_updated: change.dateUpdated, permission: projectRole,
    };
    return { cell, membership };
  });
}

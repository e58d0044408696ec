// Command: create the cell of a row in a column (POST /tables/cell/list/…?row__sid=; spec: Cell endpoints).
import type { AppContext } from '../../../context.js';
import type { Actor } from '../../../core/auth.js';
import type { Membership } from '../../../core/access.js';
import { permissions } from '../../../core/permissions.js';
import { errors } from '../../../core/errors.js';
import type { CellRecord } from '../../cells/repository.js';
import { lockRow } from '../lock.js';
import { checkRowState, RowRefusal } from '../refusals.js';
import { createLocked, raisedRefusal } from '../cells.js';
import { ambientTransaction } from '../../../core/record-lock.js';

/**
 * Creates the cell of a row in a column (Project Admin, Edit) through the row's door: the
 * row locked with the caller's standing, every check made on it, the cell and the version,
 * then the consequences (the debit last), in one transaction whose answer is read in it
 * (it shows this write, not a later one). The row's refusals are RowRefusal codes the route words.
 * The cell is the transaction's last write (as cellUpdate's).
 */
export async function cellCreate(
  ctx: AppContext, membership: Membership, actor: Actor, rowSid: string | undefined, body: { column: string; data: string },
): Promise<CellRecord> {
  if (!rowSid) throw new RowRefusal('row_missing', '');
  try {
    return await createIn(ctx, membership, actor, rowSid, body);
  } catch (err) {
    throw (await raisedRefusal(ctx.db, err, ctx.config)) ?? err;
  }
}

function createIn(ctx: AppContext, membership: Membership, actor: Actor, rowSid: string, body: { column: string; data: string }): Promise<CellRecord> {
  const orgSid = membership.organizationSid;
  return ctx.db.transaction(async (tx) => {
    // The row locked with the caller's standing and the column the body names, in one statement.
    const access = await lockRow(tx, actor, { row: rowSid }, { column: body.column });
    if (!access || access.row.organization_sid !== orgSid) throw new RowRefusal('row_elsewhere', rowSid, orgSid);
    const { row, projectRole } = access;
    if (!permissions.cell.write(membership, projectRole)) throw errors.writeRefused(membership, projectRole, row.project_sid);
    const { column } = access;
    if (!column) throw errors.field('column', "No column with this sid in the row's table.");
    checkRowState(row, column.addable);
    const created = await createLocked(tx, {
      organizationSid: orgSid, rowSid, column, data: body.data, userSid: actor.userSid, salesContact: ctx.config.salesContact,
      rowMaxBytes: ctx.config.rowMaxBytes,
    }, row, access.createdBy, !ambientTransaction());
    return {
      sid: created.cell, data: created.data, organization_sid: orgSid, row: { sid: row.sid, name: row.name },
      column: { sid: column.sid, name: column.name }, widget: { sid: column.widgetSid, name: column.widgetName! },
      price: column.price, addable_at_readonly: column.addable, is_locked: row.is_locked, is_archived: row.is_archived,
      date_created: created.date_updated, date_updated: created.date_updated, permission: projectRole,
    };
  });
}

// Reading a cell with its row's rules. Its writes are commands of records/ (commands/cell-create.ts, cell-update.ts).
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { readRow, type RowStanding } from '../records/lock.js';
import type { CellRecord } from './repository.js';

/** The cell a {cell} read found (records/lock.ts readRow: the cell, its column, widget and row, and the caller's role), as a CellRecord. */
function recordOf({ row, cell, projectRole }: RowStanding): CellRecord {
  const c = cell!;
  return {
    sid: c.sid, data: c.data, organization_sid: row.organization_sid, row: { sid: row.sid, name: row.name },
    column: { sid: c.column.sid, name: c.column.name }, widget: { sid: c.column.widgetSid, name: c.widget_name }, price: c.column.price,
    addable_at_readonly: c.column.addable, is_locked: row.is_locked, is_archived: row.is_archived,
    date_created: c.date_created, date_updated: c.date_updated, permission: projectRole,
  };
}

/**
 * A cell for its GET, with the rules of reading its row (rows/service.ts readableRow):
 * 404 when there is no such cell or the caller cannot read its row, 403 for an Alumni.
 */
export async function cellOfReader(ctx: AppContext, actor: Actor, sid: string) {
  const access = await readRow(ctx.db, actor, { cell: sid });
  if (!access || !access.membership) throw errors.notFound();
  if (access.membership.role === 'alumni') throw errors.forbidden();
  if (!permissions.cell.read(access.membership, access.projectRole)) throw errors.notFound();
  return { cell: recordOf(access), membership: access.membership };
}

/** A cell as the caller sees it, for If-Match on its PATCH (406 "Wrong id" when it is not a cell of their organizations). */
export async function readableCell(ctx: AppContext, actor: Actor, sid: string) {
  if (!isSid(sid)) throw errors.wrongId();
  const access = await readRow(ctx.db, actor, { cell: sid });
  if (!access || !access.membership) throw errors.wrongId();
  if (access.membership.role === 'alumni' || !permissions.cell.read(access.membership, access.projectRole)) throw errors.forbidden();
  return { cell: recordOf(access), membership: access.membership };
}

// Writing cells: the row rules, the credit debit and the version, in one transaction.
import { eq, sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import { roleOf, type Membership, type ProjectRole } from '../../core/access.js';
import { isoTimestamp } from '../../core/sql.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { cells } from '../../db/schema.js';
import { loadRowAccess, type RowRef } from '../rows/access.js';
import { findCell, type CellRecord } from './repository.js';
import { cellMessages as messages, changeLocked, checkRowState, findColumnOfTable, insertCell } from './write.js';
import { currentPersonnel } from '../../core/rules.js';

/**
 * Creates the cell of a row in a column (Project Admin, Edit), debits its widget's
 * price and appends the row's version, in one transaction.
 */
export async function createCell(
  ctx: AppContext, membership: Membership, actor: Actor, rowSid: string | undefined, body: { column: string; data: string },
) {
  const orgSid = membership.organizationSid;
  if (!rowSid) throw errors.notAcceptable(messages.missingRow);
  // The row is locked by the first statement and every check is made on it; the answer is
  // read in the write's transaction: it shows this write, not a later one.
  return ctx.db.transaction(async (tx) => {
    const access = await loadRowAccess(tx, actor, rowSid, { lock: true });
    if (!access || access.row.organization_sid !== orgSid) throw errors.notAcceptable(messages.rowNotInOrganization(rowSid, orgSid));
    if (!permissions.cell.write(membership, access.projectRole)) throw errors.writeRefused(membership, access.projectRole, access.row.project_sid);
    const column = await findColumnOfTable(tx, access.row.table_sid, body.column);
    if (!column) throw errors.field('column', "No column with this sid in the row's table.");
    checkRowState(access.row, column.addable, true);
    const sid = await insertCell(tx, {
      organizationSid: orgSid, rowSid, column, data: body.data, userSid: actor.userSid, salesContact: ctx.config.salesContact, onPost: true,
      rowMaxBytes: ctx.config.rowMaxBytes,
    }, access.row);
    return (await findCell(tx, sid, membership.personnelSid))!;
  });
}

interface LockedCell {
  sid: string; data: string; date_created: string; date_updated: string;
  column_sid: string; column_name: string; widget_sid: string; widget_name: string; price: string; addable_at_readonly: boolean;
  widget_kind: string; column_settings: Record<string, unknown>;
  row_sid: string; row_name: string; organization_sid: string; table_sid: string; project_sid: string;
  is_locked: boolean; is_archived: boolean; row_created_by: string;
  organization_name: string; personnel_sid: string | null; is_administrator: boolean | null;
  personnel_archived: boolean | null; is_current: boolean | null; permission: ProjectRole | null;
}

/**
 * Cell `sid`, its column, widget and row, and the caller's standing towards the row, in
 * one query that locks the row (FOR UPDATE) until the transaction ends. The cell's data
 * read here may be older than the lock: records_set_cell reads it again.
 */
async function lockCell(tx: Db, userSid: string, sid: string): Promise<LockedCell | undefined> {
  const [found] = await query<LockedCell>(tx, sql`
    SELECT c.sid, c.data, ${isoTimestamp(sql`c.date_created`)} AS date_created, ${isoTimestamp(sql`c.date_updated`)} AS date_updated,
           col.sid AS column_sid, col.name AS column_name, w.sid AS widget_sid, w.name AS widget_name, w.price, w.addable_at_readonly,
           w.kind AS widget_kind, col.settings AS column_settings,
           r.sid AS row_sid, r.name AS row_name, r.organization_sid, r.table_sid, r.project_sid, r.is_locked, r.is_archived,
           r.created_by AS row_created_by, o.name AS organization_name,
           p.sid AS personnel_sid, p.is_administrator, p.is_archived AS personnel_archived,
           ${currentPersonnel.sql('p')} AS is_current, pm.permission
      FROM cells c
      JOIN record_columns col ON col.sid = c.column_sid
      JOIN widgets w ON w.sid = c.widget_sid
      JOIN record_rows r ON r.sid = c.row_sid
      JOIN organizations o ON o.sid = r.organization_sid
      LEFT JOIN personnel p ON p.organization_sid = r.organization_sid AND p.user_sid = ${userSid}
      LEFT JOIN project_members pm ON pm.project_sid = r.project_sid AND pm.personnel_sid = p.sid
     WHERE c.sid = ${sid}
       FOR UPDATE OF r`);
  return found;
}

/**
 * Changes a cell's data (Project Admin, Edit), appends the row's version and debits its
 * widget's price, in one transaction whose answer is read in it (it shows this write,
 * not a later one). The same data again changes nothing and costs nothing. A sid that is
 * not a cell of the caller's organizations: 406 "Wrong id".
 */
export async function changeCell(ctx: AppContext, actor: Actor, sid: string, body: { data: string }) {
  if (!isSid(sid)) throw errors.wrongId();
  return ctx.db.transaction(async (tx) => {
    const found = await lockCell(tx, actor.userSid, sid);
    const role = found && roleOf({
      personnel_sid: found.personnel_sid, is_administrator: found.is_administrator, is_archived: found.personnel_archived, is_current: found.is_current,
    });
    if (!found || !role) throw errors.wrongId();
    const membership: Membership = {
      organizationSid: found.organization_sid, organizationName: found.organization_name, personnelSid: found.personnel_sid!, role,
    };
    if (role === 'alumni') throw errors.forbidden();
    if (!permissions.cell.write(membership, found.permission)) throw errors.writeRefused(membership, found.permission, found.project_sid);
    const row: RowRef = {
      sid: found.row_sid, name: found.row_name, organization_sid: found.organization_sid, table_sid: found.table_sid,
      project_sid: found.project_sid, is_locked: found.is_locked, is_archived: found.is_archived,
    };
    checkRowState(row, found.addable_at_readonly, false);
    const change = await changeLocked(tx, {
      organizationSid: found.organization_sid, rowSid: row.sid,
      column: {
        sid: found.column_sid, name: found.column_name, widgetSid: found.widget_sid, price: found.price, addable: found.addable_at_readonly,
        kind: found.widget_kind, settings: found.column_settings,
      },
      data: body.data, userSid: actor.userSid, salesContact: ctx.config.salesContact, onPost: false, rowMaxBytes: ctx.config.rowMaxBytes,
    }, row, sid, found.row_created_by);
    const cell: CellRecord = {
      sid, data: change.data, organization_sid: found.organization_sid,
      row: { sid: row.sid, name: row.name }, column: { sid: found.column_sid, name: found.column_name },
      widget: { sid: found.widget_sid, name: found.widget_name }, price: found.price, addable_at_readonly: found.addable_at_readonly,
      is_locked: row.is_locked, is_archived: row.is_archived, date_created: found.date_created, date_updated: change.dateUpdated,
      permission: found.permission,
    };
    return { cell, membership };
  });
}

/**
 * A cell for its GET, with the rules of reading its row (rows/service.ts readableRow):
 * 404 when there is no such cell or the caller cannot read its row, 403 for an Alumni.
 */
export async function cellOfReader(ctx: AppContext, actor: Actor, sid: string) {
  const [found] = isSid(sid) ? await ctx.db.select({ row: cells.rowSid }).from(cells).where(eq(cells.sid, sid)) : [];
  const access = found && (await loadRowAccess(ctx.db, actor, found.row));
  if (!access || !access.membership) throw errors.notFound();
  if (access.membership.role === 'alumni') throw errors.forbidden();
  if (!permissions.cell.read(access.membership, access.projectRole)) throw errors.notFound();
  const cell = await findCell(ctx.db, sid, access.membership.personnelSid);
  if (!cell) throw errors.notFound();
  return { cell, membership: access.membership };
}

/** A cell as the caller sees it, for If-Match on its PATCH (406 "Wrong id" when it is not a cell of their organizations). */
export async function readableCell(ctx: AppContext, actor: Actor, sid: string) {
  if (!isSid(sid)) throw errors.wrongId();
  const [found] = await ctx.db.select({ row: cells.rowSid }).from(cells).where(eq(cells.sid, sid));
  const access = found && (await loadRowAccess(ctx.db, actor, found.row));
  if (!access || !access.membership) throw errors.wrongId();
  if (access.membership.role === 'alumni' || !permissions.cell.read(access.membership, access.projectRole)) throw errors.forbidden();
  return { cell: (await findCell(ctx.db, sid, access.membership.personnelSid))!, membership: access.membership };
}

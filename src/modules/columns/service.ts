import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Serializer } from '../../core/resource.js';
import { loadOrganizationRecord, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { columns } from '../../db/schema.js';
import { findInOrganization } from '../tables/repository.js';
import { findUsable } from '../widgets/repository.js';
import { findBySid, lockTableForColumns, type ColumnRow } from './repository.js';

const TABLE_REQUIRED = 'This query parameter is required.';
const NOT_A_TABLE = 'Select a table of this organization.';
const NOT_A_WIDGET = "Select a built-in widget or one of this organization's widgets.";

/** A column in a shape, for a caller. */
export function serializeColumn(row: ColumnRow, serializer: Serializer, membership: Membership) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  const record = {
    sid: row.sid, name: row.name, order: row.order,
    table: { sid: row.table_sid, name: row.table_name },
    widget: { sid: row.widget_sid, name: row.widget_name },
    change_permission: permissions.schema.change(membership),
  };
  if (serializer === 'list') return record;
  return { ...record, date_created: row.date_created, date_updated: row.date_updated };
}

/** Checks a `table__sid` filter: a table of the organization, or a 400 that says nothing about any other. */
export async function checkTableFilter(ctx: AppContext, orgSid: string, tableSid: string | undefined): Promise<void> {
  if (tableSid === undefined) return;
  if (!isSid(tableSid) || !(await findInOrganization(ctx.db, orgSid, tableSid))) throw errors.field('table__sid', NOT_A_TABLE);
}

/**
 * Adds a column to table `tableSid` of the caller's organization, edited through a
 * built-in widget or one of the organization's. Without an order, it goes after the last.
 */
export async function createColumn(ctx: AppContext, membership: Membership, tableSid: string | undefined,
  body: { name: string; widget: string; order?: number }): Promise<ColumnRow> {
  const orgSid = membership.organizationSid;
  if (tableSid === undefined) throw errors.field('table__sid', TABLE_REQUIRED);
  if (!isSid(tableSid)) throw errors.field('table__sid', NOT_A_TABLE);
  if (!isSid(body.widget) || !(await findUsable(ctx.db, orgSid, body.widget))) throw errors.field('widget', NOT_A_WIDGET);
  return ctx.db.transaction(async (tx) => {
    const next = await lockTableForColumns(tx, orgSid, tableSid);
    if (next === undefined) throw errors.field('table__sid', NOT_A_TABLE);
    const sid = newSid();
    await tx.insert(columns).values({
      sid, organizationSid: orgSid, tableSid, widgetSid: body.widget, name: body.name, order: body.order ?? next,
    });
    return (await findBySid(tx, sid))!;
  });
}

/** The column `sid` for an active member of its organization (404 outside their organizations, 403 for Alumni). */
export async function loadColumn(ctx: AppContext, actor: Actor, sid: string) {
  return loadOrganizationRecord(ctx.db, actor, sid, (s) => findBySid(ctx.db, s));
}

/** Changes a column's name or order (Admin). Its widget stays: the cells already written were written through it. */
export async function changeColumn(ctx: AppContext, actor: Actor, sid: string, body: { name?: string; order?: number }) {
  const { row, membership } = await loadColumn(ctx, actor, sid);
  if (!permissions.schema.change(membership)) throw errors.forbidden();
  if (!Object.keys(body).length) return { row, membership };
  const updated = await ctx.db.transaction(async (tx) => {
    await tx.update(columns).set({ ...body, dateUpdated: sql`now()` }).where(eq(columns.sid, sid));
    return (await findBySid(tx, sid))!;
  });
  return { row: updated, membership };
}

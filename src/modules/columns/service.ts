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
import { changedFields, logActivities } from '../activities/log.js';
import { findBySid, lockTableForColumns, type ColumnRow } from './repository.js';
import { checkCellData, checkColumnSettings, type ColumnSettingsValue } from '../widgets/kinds.js';

const TABLE_REQUIRED = 'This query parameter is required.';
const NOT_A_TABLE = 'Select a table of this organization.';
const NOT_A_WIDGET = "Select a built-in widget or one of this organization's widgets.";

/** A column in a shape, for a caller. */
export function serializeColumn(row: ColumnRow, serializer: Serializer, membership: Membership) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  const record = {
    sid: row.sid, name: row.name, order: row.order,
    table: { sid: row.table_sid, name: row.table_name },
    widget: { sid: row.widget_sid, name: row.widget_name, documentation_url: row.widget_documentation_url },
    description: row.description, default_value: row.default_value, is_required: row.is_required, is_hidden: row.is_hidden,
    is_archived: row.is_archived, name_system: row.name_system,
    change_permission: permissions.schema.change(membership),
  };
  if (serializer === 'list') return record;
  return { ...record, metadata: row.metadata, settings: row.settings, date_created: row.date_created, date_updated: row.date_updated };
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
export async function createColumn(ctx: AppContext, membership: Membership, actor: Actor, tableSid: string | undefined,
  body: { name: string; widget: string } & ColumnFields): Promise<ColumnRow> {
  const orgSid = membership.organizationSid;
  if (tableSid === undefined) throw errors.field('table__sid', TABLE_REQUIRED);
  if (!isSid(tableSid)) throw errors.field('table__sid', NOT_A_TABLE);
  const widget = isSid(body.widget) ? await findUsable(ctx.db, orgSid, body.widget) : undefined;
  if (!widget) throw errors.field('widget', NOT_A_WIDGET);
  await checkColumnSettings(ctx.db, orgSid, widget.kind, body.settings ?? {});
  if (body.default_value) await checkCellData(ctx.db, orgSid, { kind: widget.kind, settings: body.settings ?? {} }, body.default_value, 'default_value');
  return ctx.db.transaction(async (tx) => {
    const next = await lockTableForColumns(tx, orgSid, tableSid);
    if (next === undefined) throw errors.field('table__sid', NOT_A_TABLE);
    const sid = newSid();
    await tx.insert(columns).values({
      sid, organizationSid: orgSid, tableSid, widgetSid: body.widget, name: body.name, ...columnValues(body), order: body.order ?? next,
    });
    await logActivities(tx, [{ organizationSid: orgSid, userSid: actor.userSid, model: 'column', objectSid: sid, target: body.name, action: 'Created' }]);
    return (await findBySid(tx, sid))!;
  });
}

/** The column `sid` for an active member of its organization (404 outside their organizations, 403 for Alumni). */
export async function loadColumn(ctx: AppContext, actor: Actor, sid: string) {
  return loadOrganizationRecord(ctx.db, actor, sid, (s) => findBySid(ctx.db, s));
}

/** A column's fields an activity line names when they change. */
const LOGGED_FIELDS = ['name', 'order', 'description', 'default_value', 'is_required', 'is_hidden', 'is_archived', 'name_system', 'metadata', 'settings'] as const;

/**
 * Changes a column (Admin); an activity line names the fields that changed. Its widget stays:
 * the cells already written were written through it.
 */
export async function changeColumn(ctx: AppContext, actor: Actor, sid: string, body: { name?: string } & ColumnFields) {
  const { row, membership } = await loadColumn(ctx, actor, sid);
  if (!permissions.schema.change(membership)) throw errors.forbidden();
  if (!Object.keys(body).length) return { row, membership };
  const settings = body.settings ?? row.settings;
  if (body.settings) await checkColumnSettings(ctx.db, row.organization_sid, row.widget_kind, body.settings);
  if (body.default_value) await checkCellData(ctx.db, row.organization_sid, { kind: row.widget_kind, settings }, body.default_value, 'default_value');
  const updated = await ctx.db.transaction(async (tx) => {
    await tx.update(columns).set({
      ...(body.name !== undefined ? { name: body.name } : {}), ...columnValues(body), dateUpdated: sql`now()`,
    }).where(eq(columns.sid, sid));
    const after = (await findBySid(tx, sid))!;
    const field = changedFields(row, after, LOGGED_FIELDS);
    if (field) {
      await logActivities(tx, [{ organizationSid: row.organization_sid, userSid: actor.userSid, model: 'column', objectSid: sid, target: after.name, action: 'Updated', field }]);
    }
    return after;
  });
  return { row: updated, membership };
}

/** The body fields a column takes besides its name and widget. */
export interface ColumnFields {
  order?: number; description?: string; default_value?: string; is_required?: boolean; is_hidden?: boolean; is_archived?: boolean;
  name_system?: string; metadata?: unknown; settings?: ColumnSettingsValue;
}

/** The columns of the body's fields (those it has). */
function columnValues(body: ColumnFields) {
  return {
    ...(body.order !== undefined ? { order: body.order } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.default_value !== undefined ? { defaultValue: body.default_value } : {}),
    ...(body.is_required !== undefined ? { isRequired: body.is_required } : {}),
    ...(body.is_hidden !== undefined ? { isHidden: body.is_hidden } : {}),
    ...(body.is_archived !== undefined ? { isArchived: body.is_archived } : {}),
    ...(body.name_system !== undefined ? { nameSystem: body.name_system } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    ...(body.settings !== undefined ? { settings: body.settings } : {}),
  };
}

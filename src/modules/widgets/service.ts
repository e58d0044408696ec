import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Serializer } from '../../core/resource.js';
import { requireRecordAccess, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { formatMoney } from '../../core/sql.js';
import { widgets } from '../../db/schema.js';
import { findBySid, type WidgetRow } from './repository.js';

// numeric(12, 2): at most 10 digits before the point and 2 after; no sign, no exponent.
const PRICE_RE = /^\d{1,10}(\.\d{1,2})?$/;
const BAD_PRICE = 'Enter an amount of at least 0 with at most 2 decimals and 10 digits before the point, such as "0.50".';

export interface WidgetInput {
  name?: string; description?: string; price?: string; addable_at_readonly?: boolean; kind?: string;
  icon?: string; notes?: string; usecase?: string; documentation_url?: string; allow_multiple?: boolean; is_readonly?: boolean; is_public?: boolean;
}

/** A widget in a shape, for a caller (null membership: a built-in widget read outside any organization). */
export function serializeWidget(row: WidgetRow, serializer: Serializer, membership: Membership | null) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  const is_builtin = row.organization_sid === null;
  const record = {
    sid: row.sid, name: row.name, description: row.description, price: formatMoney(row.price),
    addable_at_readonly: row.addable_at_readonly, kind: row.kind,
    icon: row.icon, notes: row.notes, usecase: row.usecase, documentation_url: row.documentation_url,
    allow_multiple: row.allow_multiple, is_readonly: row.is_readonly, is_public: row.is_public, is_builtin,
    change_permission: permissions.widget.change(membership, is_builtin),
  };
  if (serializer === 'list') return record;
  return { ...record, date_created: row.date_created, date_updated: row.date_updated };
}

/** The columns a widget body sets, the price checked exactly (400 on `price` otherwise). */
function valuesOf(body: WidgetInput) {
  if (body.price !== undefined && !PRICE_RE.test(body.price)) throw errors.field('price', BAD_PRICE);
  const values = {
    name: body.name, description: body.description, price: body.price, addableAtReadonly: body.addable_at_readonly, kind: body.kind,
    icon: body.icon, notes: body.notes, usecase: body.usecase, documentationUrl: body.documentation_url,
    allowMultiple: body.allow_multiple, isReadonly: body.is_readonly, isPublic: body.is_public,
  };
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

/** Creates a widget of the caller's organization. */
export async function createWidget(ctx: AppContext, membership: Membership, body: WidgetInput & { name: string }) {
  const values = valuesOf(body);
  return ctx.db.transaction(async (tx) => {
    const sid = newSid();
    await tx.insert(widgets).values({ ...values, sid, name: body.name, organizationSid: membership.organizationSid });
    return (await findBySid(tx, sid))!;
  });
}

/**
 * The widget `sid` for a caller: a built-in widget for anyone signed in; an
 * organization's widget for its active members (404 outside their organizations, 403 for Alumni).
 */
export async function loadWidget(ctx: AppContext, actor: Actor, sid: string): Promise<{ row: WidgetRow; membership: Membership | null }> {
  if (!isSid(sid)) throw errors.notFound();
  const row = await findBySid(ctx.db, sid);
  if (!row) throw errors.notFound();
  if (row.organization_sid === null) return { row, membership: null };
  return { row, membership: await requireRecordAccess(ctx.db, actor, row.organization_sid) };
}

/** Changes an organization's widget (Admin); built-in widgets are read-only (403). */
export async function changeWidget(ctx: AppContext, actor: Actor, sid: string, body: WidgetInput) {
  const { row, membership } = await loadWidget(ctx, actor, sid);
  if (!permissions.widget.change(membership, row.organization_sid === null)) throw errors.forbidden();
  const values = valuesOf(body);
  if (!Object.keys(values).length) return { row, membership };
  const updated = await ctx.db.transaction(async (tx) => {
    await tx.update(widgets).set({ ...values, dateUpdated: sql`now()` }).where(eq(widgets.sid, sid));
    return (await findBySid(tx, sid))!;
  });
  return { row: updated, membership };
}

// Command: add a section to a row (POST /tables/section/list/…; Labii's notebook pages).
import { and, eq, gte, isNull, or, sql } from 'drizzle-orm';
import { query } from '../../../db/client.js';
import type { AppContext } from '../../../context.js';
import type { Actor } from '../../../core/auth.js';
import type { Membership } from '../../../core/access.js';
import { errors } from '../../../core/errors.js';
import { isSid, newSid } from '../../../core/ids.js';
import { sections, widgets } from '../../../db/schema.js';
import { findSection } from '../../sections/repository.js';
import { checkRowSize } from '../size.js';
import { RowRefusal } from '../refusals.js';
import { dataText, lockRowForSection, sectionWrite } from '../sections.js';

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
export async function sectionCreate(ctx: AppContext, membership: Membership, actor: Actor, rowSid: string | undefined, body: SectionCreateBody) {
  const row = rowSid ?? body.row;
  if (!row) throw new RowRefusal('row_missing', '');
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
    const sid = newSid();
    await sectionWrite(tx, actor, access, async () => {
      const [{ last }] = await query<{ last: number }>(tx, sql`SELECT coalesce(max("order"), 0)::int AS last FROM sections WHERE row_sid = ${row}`);
      const order = body.order === undefined || body.order > last ? last + 1 : body.order;
      if (order <= last) {
        await tx.update(sections).set({ order: sql`${sections.order} + 1` }).where(and(eq(sections.rowSid, row), gte(sections.order, order)));
      }
      await checkRowSize(tx, row, { section: sid, name: body.name, description: body.description ?? '', data }, ctx.config.rowMaxBytes, 'data');
      await tx.insert(sections).values({
        sid, organizationSid: membership.organizationSid, rowSid: row, tableSid: access.row.table_sid, widgetSid: widgetSid ?? null,
        name: body.name, description: body.description ?? '', order, data, createdBy: actor.userSid, updatedBy: actor.userSid,
      });
      return { section: sid, activity: `Added the section ${body.name}` };
    });
    return (await findSection(tx, sid, membership.personnelSid))!;
  });
}

// Command: change a section (PATCH /tables/section/detail/{sid}/).
import { eq, sql } from 'drizzle-orm';
import { query } from '../../../db/client.js';
import type { AppContext } from '../../../context.js';
import type { Actor } from '../../../core/auth.js';
import { sections } from '../../../db/schema.js';
import { findSection } from '../../sections/repository.js';
import { readableSection } from '../../sections/service.js';
import { checkRowSize } from '../size.js';
import { dataText, lockRowForSection, sectionWrite } from '../sections.js';

export interface SectionChanges {
  name?: string;
  description?: string;
  order?: number;
  data?: unknown;
  is_archived?: boolean;
}

/**
 * Changes a section (Project Admin, Edit; the row's rules as for adding one): each change
 * is one version of the row; the same values again change nothing and append none. A
 * new `order` moves the section there, the sections in between shifting by one.
 */
export async function sectionUpdate(ctx: AppContext, actor: Actor, sid: string, changes: SectionChanges) {
  const { section: current, membership } = await readableSection(ctx, actor, sid);
  const data = changes.data !== undefined ? dataText(changes.data, ctx.config.rowMaxBytes) : undefined;
  const section = await ctx.db.transaction(async (tx) => {
    const locked = await lockRowForSection(tx, actor, membership, current.row.sid, current.addable_at_readonly);
    await sectionWrite(tx, actor, locked, async () => {
      const [now] = await tx.select({
        name: sections.name, description: sections.description, order: sections.order, data: sections.data, isArchived: sections.isArchived,
      }).from(sections).where(eq(sections.sid, sid)).for('update');
      const set: Partial<typeof sections.$inferInsert> = {};
      const said: string[] = [];
      if (changes.name !== undefined && changes.name !== now.name) { set.name = changes.name; said.push('renamed'); }
      if (changes.description !== undefined && changes.description !== now.description) { set.description = changes.description; said.push('description'); }
      if (data !== undefined && data !== now.data) { set.data = data; said.push('content'); }
      if (changes.is_archived !== undefined && changes.is_archived !== now.isArchived) {
        set.isArchived = changes.is_archived;
        said.push(changes.is_archived ? 'archived' : 'unarchived');
      }
      if (changes.order !== undefined && changes.order !== now.order) {
        const [{ last }] = await query<{ last: number }>(tx, sql`SELECT coalesce(max("order"), 0)::int AS last FROM sections WHERE row_sid = ${current.row.sid}`);
        const to = Math.min(changes.order, last);
        if (to !== now.order) {
          // The sections between the old and the new place move by one towards the old.
          await tx.execute(to < now.order
            ? sql`UPDATE sections SET "order" = "order" + 1 WHERE row_sid = ${current.row.sid} AND "order" >= ${to} AND "order" < ${now.order}`
            : sql`UPDATE sections SET "order" = "order" - 1 WHERE row_sid = ${current.row.sid} AND "order" > ${now.order} AND "order" <= ${to}`);
          set.order = to;
          said.push('moved');
        }
      }
      if (!said.length) return null;
      if (set.name !== undefined || set.description !== undefined || set.data !== undefined) {
        await checkRowSize(tx, current.row.sid, {
          section: sid, name: set.name ?? now.name, description: set.description ?? now.description, data: set.data ?? now.data,
        }, ctx.config.rowMaxBytes, set.data !== undefined ? 'data' : 'name');
      }
      await tx.update(sections).set({ ...set, updatedBy: actor.userSid, dateUpdated: sql`now()` }).where(eq(sections.sid, sid));
      return { section: sid, activity: `Changed the section ${set.name ?? now.name} (${said.join(', ')})` };
    });
    return (await findSection(tx, sid, membership.personnelSid))!;
  });
  return { section, membership };
}

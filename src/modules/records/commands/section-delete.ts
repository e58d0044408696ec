// Command: delete a section (DELETE /tables/section/detail/{sid}/).
import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../../context.js';
import type { Actor } from '../../../core/auth.js';
import { errors } from '../../../core/errors.js';
import { permissions } from '../../../core/permissions.js';
import { sections } from '../../../db/schema.js';
import { readableSection } from '../../sections/service.js';
import { lockRowForSection, sectionWrite } from '../sections.js';

/**
 * Deletes a section (the row's Project Admin; the row's rules as for changing one): the
 * sections after it move up one, and the row gets a version without it, in one transaction.
 */
export async function sectionDelete(ctx: AppContext, actor: Actor, sid: string): Promise<void> {
  const { section: current, membership } = await readableSection(ctx, actor, sid);
  await ctx.db.transaction(async (tx) => {
    const locked = await lockRowForSection(tx, actor, membership, current.row.sid, current.addable_at_readonly, permissions.section.delete);
    await sectionWrite(tx, actor, locked, async () => {
      const [gone] = await tx.delete(sections).where(eq(sections.sid, sid)).returning({ order: sections.order, name: sections.name });
      if (!gone) throw errors.notFound();
      await tx.execute(sql`UPDATE sections SET "order" = "order" - 1 WHERE row_sid = ${current.row.sid} AND "order" > ${gone.order}`);
      return { section: sid, activity: `Deleted the section ${gone.name}` };
    });
  });
}

// Sections: reading one with its row's rules, and the sections endpoints' words for a
// write's refusals. The writes are commands of records/ (commands/section-create.ts,
// section-update.ts): each locks the row, checks its rules and appends the row's version
// (whose data then holds the row's sections), in one transaction.
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { sections } from '../../db/schema.js';
import { readableRow } from '../rows/service.js';
import { RowRefusal } from '../records/refusals.js';
import { findSection } from './repository.js';

export const sectionMessages = {
  missingRow: 'Give the section\'s row: ?row__sid= (or `row` in the body).',
  archived: 'The row is archived; its sections cannot be added or changed.',
  locked: 'The row is locked; only a section whose widget may be added at the read-only stage can be added or changed.',
};

/** Runs a section's write, its refusals in the sections endpoints' words. */
export async function sectionWords<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof RowRefusal)) throw err;
    if (err.code === 'row_missing') throw errors.field('row__sid', sectionMessages.missingRow);
    if (err.code === 'row_archived') throw errors.badRequest(sectionMessages.archived);
    if (err.code === 'row_locked') throw errors.badRequest(sectionMessages.locked);
    throw err;
  }
}

/** A section the caller may read (404 otherwise; 403 for Alumni), with their membership. */
export async function readableSection(ctx: AppContext, actor: Actor, sid: string) {
  const [found] = isSid(sid) ? await ctx.db.select({ rowSid: sections.rowSid }).from(sections).where(eq(sections.sid, sid)) : [];
  if (!found) throw errors.notFound();
  const { membership } = await readableRow(ctx, actor, found.rowSid);
  return { section: (await findSection(ctx.db, sid, membership.personnelSid))!, membership };
}

// A row's sections written through the row's one door (write.ts writeRow): the row locked
// with the caller's standing (lock.ts lockRow), the row's state checked (refusals.ts), the
// section written, then the row's version with its live event, then the creator's notice.
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { Actor } from '../../core/auth.js';
import type { Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { sections } from '../../db/schema.js';
import { appendVersionAndEvent } from './version.js';
import { writeRow, type Written } from './write.js';
import { creatorNotice } from './consequences/creator-notice.js';
import { lockRow, type RowStanding } from './lock.js';
import { checkRowState } from './refusals.js';

/** The JSON text a section keeps of its content, at most ROW_MAX_BYTES (400 on data). */
export function dataText(data: unknown, max: number): string {
  const text = JSON.stringify(data ?? null);
  const bytes = Buffer.byteLength(text);
  if (bytes > max) throw errors.field('data', `The section's content would be ${bytes} bytes; a section holds at most ${max} bytes (ROW_MAX_BYTES).`);
  return text;
}

/** The row's lock, the caller's write permission and the row's state; the row's access. */
export async function lockRowForSection(tx: Db, actor: Actor, membership: Membership, rowSid: string, addable: boolean, may = permissions.section.write): Promise<RowStanding> {
  const access = await lockRow(tx, actor, { row: rowSid });
  if (!access || access.row.organization_sid !== membership.organizationSid) {
    throw errors.field('row__sid', 'No row with this sid in this organization.');
  }
  if (!may(membership, access.projectRole)) throw errors.writeRefused(membership, access.projectRole, access.row.project_sid);
  checkRowState(access.row, addable);
  return access;
}

/**
 * A section's change through the row's door (records/write.ts): `change` writes the section
 * and says what it did (null: nothing changed), then the row's version is appended with its
 * live event and recorded on the section, then the consequences (the creator's notice).
 */
export async function sectionWrite(tx: Db, actor: Actor, locked: RowStanding, change: () => Promise<{ section: string; activity: string } | null>) {
  await writeRow<Written & { createdBy: string }>({
    apply: async () => {
      const done = await change();
      if (!done) return null;
      const version = await appendVersionAndEvent(tx, locked.row.sid, actor.userSid, done.activity, ['sections']);
      await tx.update(sections).set({ version }).where(eq(sections.sid, done.section));
      return { tx, row: locked.row, userSid: actor.userSid, version, activity: done.activity, createdBy: locked.createdBy };
    },
    consequences: [creatorNotice],
  });
}

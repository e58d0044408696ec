// A row's own fields and its projects written through the row's one door (write.ts
// writeRow), in the caller's transaction: the row locked (lock.ts lockRow), its rules
// checked, the change and the row's version with its live event, then the creator's notice.
import { eq, sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { rowProjects, rows } from '../../db/schema.js';
import { checkRowSize } from './size.js';
import type { RowChange } from './events.js';
import { lockRow, type RowRef } from './lock.js';
import { writeRow, type Written } from './write.js';
import { appendVersionAndEvent } from './version.js';
import { creatorNotice } from './consequences/creator-notice.js';

/** A row change's consequences, in their order. */
const CONSEQUENCES = [creatorNotice] as const;

export interface RowChanges {
  name?: string;
  description?: string;
  is_template?: boolean;
  open_to_organization?: boolean;
  metadata?: unknown;
  is_locked?: boolean;
  is_archived?: boolean;
  projects?: { sid: string }[];
  [column: string]: unknown;
}

export const STATE_MESSAGES = {
  is_locked: ['Unlocked the row', 'Locked the row'],
  is_archived: ['Unarchived the row', 'Archived the row'],
} as const;
export const STATE_CHANGES = {
  is_locked: ['unlocked', 'locked'],
  is_archived: ['unarchived', 'archived'],
} as const;

/**
 * Puts row `sid` in `projectSids` (the first becomes its first project), in the caller's
 * transaction under the row's lock: a version records the move (an archived row refuses it;
 * a locked row takes it, as Labii's do). The same projects again change nothing.
 */
export async function setRowProjects(tx: Db, userSid: string, sid: string, orgSid: string, projectSids: string[]): Promise<void> {
  const locked = await lockRow(tx, { userSid }, { row: sid });
  if (!locked) throw errors.notFound();
  await writeRow<Written & { createdBy: string }>({
    checks: [() => { if (locked.row.is_archived) throw errors.badRequest('The row is archived; unarchive it before changing it.'); }],
    apply: async () => {
      const before = await query<{ project_sid: string }>(tx, sql`SELECT project_sid FROM record_row_projects WHERE row_sid = ${sid} ORDER BY date_created, project_sid`);
      const current = [locked.row.project_sid, ...before.map((b) => b.project_sid)];
      if (current.length === projectSids.length && current[0] === projectSids[0] && projectSids.every((p) => current.includes(p))) return null;
      await tx.delete(rowProjects).where(eq(rowProjects.rowSid, sid));
      if (current[0] !== projectSids[0]) await tx.update(rows).set({ projectSid: projectSids[0] }).where(eq(rows.sid, sid));
      if (projectSids.length > 1) {
        await tx.insert(rowProjects).values(projectSids.slice(1).map((projectSid) => ({ rowSid: sid, projectSid, organizationSid: orgSid })));
      }
      const activity = 'Changed the projects';
      const version = await appendVersionAndEvent(tx, sid, userSid, activity, ['projects']);
      return { tx, row: locked.row, userSid, version, activity, createdBy: locked.createdBy };
    },
    consequences: CONSEQUENCES,
  });
}

/** The fields Project Admin and Edit change (a locked row keeps them until unlocked). */
export const FIELD_KEYS = ['name', 'description', 'is_template', 'open_to_organization', 'metadata'] as const;
const FIELD_MESSAGES: Record<(typeof FIELD_KEYS)[number], string> = {
  name: 'Renamed the row', description: 'Changed the description', is_template: 'Changed is_template',
  open_to_organization: 'Changed open_to_organization', metadata: 'Changed the metadata',
};

/**
 * Applies `changes` to row `sid` in the caller's transaction, under the row's lock, with
 * the row rules of changeRow (400 for an archived row, or a locked row's name and
 * description) and one version for the whole change, recorded for `userSid`. Returns
 * what changed ([] when nothing did: no version). Permissions are the caller's business.
 */
export async function applyRowChanges(tx: Db, userSid: string, sid: string, changes: RowChanges, via?: string, rowMaxBytes?: number): Promise<string[]> {
  const wantsFields = FIELD_KEYS.some((key) => changes[key] !== undefined);
  const locked = await lockRow(tx, { userSid }, { row: sid });
  if (!locked) throw errors.notFound();
  const current = locked.row;
  const [full] = await tx.select({
    name: rows.name, description: rows.description, is_template: rows.isTemplate, open_to_organization: rows.openToOrganization, metadata: rows.metadata,
  }).from(rows).where(eq(rows.sid, sid));
  const archivedAfter = changes.is_archived ?? current.is_archived;
  const messages: string[] = [];
  await writeRow<Written & { createdBy: string }>({
    checks: [
      () => {
        if (current.is_archived && archivedAfter && (wantsFields || changes.is_locked !== undefined)) {
          throw errors.badRequest('The row is archived; unarchive it before changing it.');
        }
      },
      () => {
        if (current.is_locked && (changes.is_locked ?? true) && wantsFields) {
          throw errors.badRequest('The row is locked; unlock it before changing its name or description.');
        }
      },
    ],
    apply: async () => {
      const set = changedFields(changes, full, current, messages);
      if (!messages.length) return null;
      if (rowMaxBytes !== undefined && (set.fields.name !== undefined || set.fields.description !== undefined)) {
        const field = set.fields.description !== undefined ? 'description' : 'name';
        await checkRowSize(tx, sid, { name: set.fields.name, description: set.fields.description }, rowMaxBytes, field);
      }
      await tx.update(rows).set({ ...set.fields, dateUpdated: sql`now()` }).where(eq(rows.sid, sid));
      const activity = `${messages.join('; ')}${via ? ` (${via})` : ''}`;
      const version = await appendVersionAndEvent(tx, sid, userSid, activity, set.done);
      return { tx, row: current, userSid, version, activity, createdBy: locked.createdBy };
    },
    consequences: CONSEQUENCES,
  });
  return messages;
}

type FullRow = { name: string; description: string; is_template: boolean; open_to_organization: boolean; metadata: unknown };

/** The row's fields `changes` changes (and what it says of each, pushed on `messages`), with the live event's change names. */
function changedFields(changes: RowChanges, full: FullRow, current: RowRef, messages: string[]) {
  const done: RowChange[] = [];
  const set: Partial<typeof rows.$inferInsert> = {};
  if (changes.name !== undefined && changes.name !== full.name) { set.name = changes.name; messages.push(FIELD_MESSAGES.name); done.push('renamed'); }
  if (changes.description !== undefined && changes.description !== full.description) {
    set.description = changes.description;
    messages.push(FIELD_MESSAGES.description);
    done.push('description');
  }
  for (const flag of ['is_template', 'open_to_organization'] as const) {
    const value = changes[flag];
    if (value !== undefined && value !== full[flag]) {
      set[flag === 'is_template' ? 'isTemplate' : 'openToOrganization'] = value;
      messages.push(FIELD_MESSAGES[flag]);
      done.push('fields');
    }
  }
  if (changes.metadata !== undefined && JSON.stringify(changes.metadata) !== JSON.stringify(full.metadata)) {
    set.metadata = changes.metadata;
    messages.push(FIELD_MESSAGES.metadata);
    done.push('fields');
  }
  for (const flag of ['is_locked', 'is_archived'] as const) {
    const value = changes[flag];
    if (value !== undefined && value !== current[flag]) {
      set[flag === 'is_locked' ? 'isLocked' : 'isArchived'] = value;
      messages.push(STATE_MESSAGES[flag][Number(value)]);
      done.push(STATE_CHANGES[flag][Number(value)]);
    }
  }
  return { fields: set, done };
}

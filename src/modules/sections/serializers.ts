import type { Serializer } from '../../core/resource.js';
import type { Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import type { SectionRecord } from './repository.js';

/** Whether the viewer may change the section now: their role on its row, and the row's state (as a cell's). */
export function sectionWritable(s: Pick<SectionRecord, 'permission' | 'is_locked' | 'row_archived' | 'addable_at_readonly'>, viewer: Membership): boolean {
  return permissions.section.write(viewer, s.permission) && !s.row_archived && (!s.is_locked || s.addable_at_readonly);
}

/** The content as the API shows it: the JSON value written (stored as its text). */
export function sectionData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function serializeSection(s: SectionRecord, serializer: Serializer, viewer: Membership) {
  if (serializer === 'name') return { sid: s.sid, name: s.name };
  const change_permission = sectionWritable(s, viewer);
  if (serializer === 'list') {
    return {
      sid: s.sid, name: s.name, description: s.description, widget: s.widget, row: s.row, table: s.table,
      order: s.order, is_archived: s.is_archived, change_permission,
    };
  }
  return {
    sid: s.sid, name: s.name, description: s.description, widget: s.widget, row: s.row, table: s.table,
    table__name_plural: s.table__name_plural, row__sid: s.row.sid, order: s.order, data: sectionData(s.data),
    is_archived: s.is_archived, version: s.version, updated_by: s.updated_by,
    date_created: s.date_created, date_updated: s.date_updated, change_permission,
  };
}

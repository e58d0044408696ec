import type { Serializer } from '../../core/resource.js';
import type { Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import type { PersonnelRow } from './repository.js';

/** The display name of a member: first and last name, or the email when both are empty. */
export function personnelName(row: { first_name: string; last_name: string; email: string }): string {
  return `${row.first_name} ${row.last_name}`.trim() || row.email;
}

/** A personnel record in the spec's `name`, `list` or `detail` shape, for the caller's membership. */
export function serializePersonnel(row: PersonnelRow, serializer: Serializer, viewer: Membership) {
  const name = personnelName(row);
  if (serializer === 'name') return { sid: row.sid, name };
  const change_permission = permissions.personnel.change(viewer, row.sid);
  if (serializer === 'list') {
    return {
      sid: row.sid, name, email: row.email, title: row.title, date_start: row.date_start, date_end: row.date_end,
      is_administrator: row.is_administrator, is_archived: row.is_archived, change_permission,
    };
  }
  const { organization_sid: _org, ...fields } = row;
  return { ...fields, name, change_permission };
}

import type { Serializer } from '../../core/resource.js';
import { permissions } from '../../core/permissions.js';
import type { NotificationRow } from './repository.js';

type Shaped = Pick<NotificationRow, 'sid' | 'name' | 'sender_sid' | 'sender_name' | 'is_read' | 'recipient_sid'>;

/** `From`: the sender's personnel record {sid, name}, or null when the service sent it on its own. */
function fromOf(row: Pick<NotificationRow, 'sender_sid' | 'sender_name'>) {
  return row.sender_sid && row.sender_name !== null ? { sid: row.sender_sid, name: row.sender_name } : null;
}

/** A notification in the list shape, as its recipient sees it (also the data of a live event). */
export function notificationListItem(row: Shaped, viewerPersonnelSid: string) {
  return {
    sid: row.sid, name: row.name, From: fromOf(row), is_read: row.is_read,
    change_permission: permissions.notification.change(viewerPersonnelSid, row),
  };
}

/** A notification in the spec's name, list or detail shape, for the member `viewerPersonnelSid` (its recipient or sender). */
export function serializeNotification(row: NotificationRow, serializer: Serializer, viewerPersonnelSid: string) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  if (serializer === 'list') return notificationListItem(row, viewerPersonnelSid);
  return {
    sid: row.sid,
    name: row.name,
    From: fromOf(row),
    parent: row.parent_sid && row.parent_name !== null ? { sid: row.parent_sid, name: row.parent_name } : null,
    body: row.body,
    rows: row.rows,
    is_read: row.is_read,
    updated_by: row.updated_by,
    date_updated: row.date_updated,
    date_created: row.date_created,
    change_permission: permissions.notification.change(viewerPersonnelSid, row),
  };
}

// Consequence: the members a cell's new data mentions, and its old data did not, are
// notified (docs/notifications.md, Mentions).
import { notifyMentions } from '../../notifications/mentions.js';
import type { Consequence } from '../write.js';
import type { CellWritten } from '../cells.js';

/** Notifies the members mentioned in the cell's data after the change and not before. */
export const mentionNotices: Consequence<CellWritten> = async (done) => {
  await notifyMentions(done.tx, {
    organizationSid: done.organizationSid, row: done.row, columnName: done.column.name, authorUserSid: done.userSid,
    before: done.before, after: done.data,
  });
};

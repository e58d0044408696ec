// Consequence: the row's creator is told of a change by someone else (docs/notifications.md,
// Record changes), when they want it.
import { notifyRecordChange } from '../../notifications/record-change.js';
import type { Consequence, Written } from '../write.js';

/** Notifies the row's creator of the change; `createdBy`, when known, spares the lookup for their own writes. */
export const creatorNotice: Consequence<Written & { createdBy?: string }> = async (done) => {
  if (done.createdBy === done.userSid) return;
  await notifyRecordChange(done.tx, { rowSid: done.row.sid, userSid: done.userSid, version: done.version, activityMessage: done.activity });
};

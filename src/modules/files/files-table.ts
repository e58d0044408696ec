// Labii's files table (issue 25): each organization has one from its creation, with
// name_system "file" and two columns whose widgets carry Labii's sids — the file path (a
// file cell) and the file size (a number) — so labii-sdk's upload() finds it as it finds
// Labii's (GET /tables/table/list/organization/{org}/detail/?name_system=file, then the
// columns' widget.sid). Organizations made before it got theirs from migration 0040.
import type { Db } from '../../db/client.js';
import { columns, tables } from '../../db/schema.js';
import { newSid } from '../../core/ids.js';
import { logActivities } from '../activities/log.js';

/** Labii's widget sids the SDK looks for: a file path (our file kind) and a file size (a number). */
export const FILE_PATH_WIDGET = 'JMPS0a40x5eLQV16afk';
export const FILE_SIZE_WIDGET = 'KNQT0a40x5fMRW27bgl';
/** The files table's name_system. */
export const FILES_TABLE_SYSTEM_NAME = 'file';

/** Creates a new organization's files table (its first table: its code is FIL) and its two columns, logged as `createdBy`'s, in the caller's transaction. */
export async function createFilesTable(tx: Db, organizationSid: string, createdBy: string): Promise<string> {
  const sid = newSid();
  await tx.insert(tables).values({
    sid, organizationSid, name: 'Files', nameSingular: 'File', uniqueCode: 'FIL',
    description: 'Files uploaded to the organization (labii-sdk upload()).', icon: 'file', nameSystem: FILES_TABLE_SYSTEM_NAME, createdBy,
  });
  const made = [
    { sid: newSid(), organizationSid, tableSid: sid, widgetSid: FILE_PATH_WIDGET, name: 'File', nameSystem: 'file_path', order: 0 },
    { sid: newSid(), organizationSid, tableSid: sid, widgetSid: FILE_SIZE_WIDGET, name: 'Size', nameSystem: 'file_size', order: 1 },
  ];
  await tx.insert(columns).values(made);
  await logActivities(tx, [
    { organizationSid, userSid: createdBy, model: 'table', objectSid: sid, target: 'Files', action: 'Created' },
    ...made.map((c) => ({ organizationSid, userSid: createdBy, model: 'column' as const, objectSid: c.sid, target: c.name, action: 'Created' as const })),
  ]);
  return sid;
}

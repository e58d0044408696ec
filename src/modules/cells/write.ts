// Writing one cell inside the caller's transaction: the row's lock and rules (spec: States,
// rules about cells), the credit debit, the row's version and the mentions it notifies. The cell endpoints and the
// workflow engine's set_cell step both write cells through these functions.
import { and, eq, or, sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { cells, columns, widgets } from '../../db/schema.js';
import { loadRowAccess } from '../rows/access.js';
import { debitCredits } from '../credits/service.js';
import { currentSalesContact } from '../admin/settings.js';
import { notifyMentions } from '../notifications/mentions.js';
import { notifyRecordChange } from '../notifications/record-change.js';
import type { RowRef } from '../rows/access.js';
import { checkRowSize, refuseOversize, rowSize } from '../rows/size.js';
import { cellEvent } from '../rows/live.js';
import { isoTimestamp } from '../../core/sql.js';
import { checkCellData, kindOfColumn } from '../widgets/kinds.js';
import { FILE_KIND, resolveFileCell } from '../files/cells.js';

/**
 * The write with the data it stores, in the caller's transaction once the row is locked: a
 * file column's data becomes its files' descriptors, the files named for the first time
 * attached to the row (files/cells.ts); any other column's data as sent.
 */
async function stored(tx: Db, w: CellWrite): Promise<CellWrite> {
  if (w.column.kind !== FILE_KIND) return w;
  return { ...w, data: await resolveFileCell(tx, w.organizationSid, w.rowSid, w.data) };
}

/** The spec's 406 texts (Errors), with POST's "Error: " prefix and PATCH's plain form. */
export const cellMessages = {
  missingRow: 'Error: Missing row__sid in the post link.',
  rowNotInOrganization: (row: string, org: string) => `Error: The row (${row}) does not belong to the organization (${org})`,
  noCredits: (contact: string, onPost: boolean) => `${onPost ? 'Error: ' : ''}Your organization does not have enough credits, contact ${contact}!`,
  archived: (row: string, onPost: boolean) => `${onPost ? 'Error: ' : ''}The row (${row}) is archived; its cells cannot be ${onPost ? 'created' : 'changed'}.`,
  locked: (row: string, onPost: boolean) => `${onPost ? 'Error: ' : ''}The row (${row}) is locked; only a widget that may be added at the read-only stage can ${onPost ? 'be added' : 'change'}.`,
};

/** A column as a cell write needs it: its widget, the widget's price and whether it may be added to a locked row. */
export interface CellColumn {
  sid: string;
  name: string;
  widgetSid: string;
  price: string;
  addable: boolean;
  /** The widget's kind (`file` columns hold files, files/cells.ts; value kinds are checked, widgets/kinds.ts) and the column's settings, when known (else looked up). */
  kind?: string;
  settings?: Record<string, unknown>;
}

/** One cell write: where, what, by whom, and how its refusals are worded. */
export interface CellWrite {
  organizationSid: string;
  rowSid: string;
  column: CellColumn;
  data: string;
  /** The user the cell, the ledger entry and the version are recorded for. */
  userSid: string;
  /** SALES_CONTACT from the environment: the refusal names an administrator's replacement when one is stored. */
  salesContact: string;
  /** ROW_MAX_BYTES: the write is refused (400 on data) when the row would hold more. */
  rowMaxBytes: number;
  /** The POST wording of the spec's 406 messages ("Error: " prefix); otherwise PATCH's. */
  onPost: boolean;
  /** Said after the version's activity message and the debit's reason, e.g. 'workflow "Review", step 2'. */
  via?: string;
}

/**
 * The column of table `tableSid` with sid `column` (or, with `byName`, else the first
 * column by order with that name) and its widget; undefined when the table has no such column.
 */
export async function findColumnOfTable(db: Db, tableSid: string, column: string, options: { byName?: boolean } = {}): Promise<CellColumn | undefined> {
  const bySid = isSid(column) ? eq(columns.sid, column) : undefined;
  const match = options.byName ? or(bySid, eq(columns.name, column)) : bySid;
  if (!match) return undefined;
  const [found] = await db.select({
    sid: columns.sid, name: columns.name, widgetSid: widgets.sid, price: widgets.price, addable: widgets.addableAtReadonly,
    kind: widgets.kind, settings: sql<Record<string, unknown>>`${columns.settings}`,
  }).from(columns).innerJoin(widgets, eq(widgets.sid, columns.widgetSid))
    .where(and(eq(columns.tableSid, tableSid), match))
    // a sid match before a name match, then the first column by order
    .orderBy(sql`${columns.sid} <> ${column}`, columns.order, columns.sid)
    .limit(1);
  return found;
}

/** Refuses a write the row's state does not allow (spec: rules about cells). */
export function checkRowState(row: { sid: string; is_locked: boolean; is_archived: boolean }, addableAtReadonly: boolean, onPost: boolean) {
  if (row.is_archived) throw errors.notAcceptable(cellMessages.archived(row.sid, onPost));
  if (row.is_locked && !addableAtReadonly) throw errors.notAcceptable(cellMessages.locked(row.sid, onPost));
}

/** Locks the write's row for the rest of the transaction and checks its state; returns the row. */
async function lockRowFor(tx: Db, w: CellWrite): Promise<RowRef> {
  const access = await loadRowAccess(tx, { userSid: w.userSid }, w.rowSid, { lock: true });
  if (!access) throw errors.notFound();
  checkRowState(access.row, w.column.addable, w.onPost);
  return access.row;
}

/** Notifies the members the new data mentions and the old did not (docs/notifications.md, Mentions). */
function mentions(tx: Db, w: CellWrite, row: RowRef, before: string) {
  return notifyMentions(tx, {
    organizationSid: w.organizationSid, row, columnName: w.column.name, authorUserSid: w.userSid, before, after: w.data,
  });
}

/** Refuses (400 on `data`) data that is not a value of the column's widget kind (widgets/kinds.ts). */
async function checkKind(tx: Db, w: CellWrite): Promise<void> {
  const column = w.column.kind !== undefined ? { kind: w.column.kind, settings: w.column.settings ?? {} } : await kindOfColumn(tx, w.column.sid);
  await checkCellData(tx, w.organizationSid, column, w.data);
}

const suffix = (w: CellWrite) => (w.via ? ` (${w.via})` : '');

async function debit(tx: Db, w: CellWrite, cellSid: string, what: 'created' | 'changed') {
  const paid = await debitCredits(tx, {
    organizationSid: w.organizationSid, amount: w.column.price, reason: `cell ${what} in column ${w.column.name}${suffix(w)}`,
    cellSid, rowSid: w.rowSid, userSid: w.userSid,
  });
  if (!paid) throw errors.notAcceptable(cellMessages.noCredits(await currentSalesContact(tx, w.salesContact), w.onPost));
}

/**
 * Inserts the cell of a locked row, debits its price, appends the version and notifies
 * mentions; returns its sid. `sized`: the caller has checked the row's size already.
 */
async function insertLocked(tx: Db, w: CellWrite, row: RowRef, options: { sized?: boolean } = {}): Promise<string> {
  await checkKind(tx, w);
  if (!options.sized) await checkRowSize(tx, w.rowSid, { column: w.column.sid, data: w.data }, w.rowMaxBytes, 'data');
  const sid = newSid();
  await tx.insert(cells).values({
    sid, organizationSid: w.organizationSid, rowSid: w.rowSid, columnSid: w.column.sid, widgetSid: w.column.widgetSid, data: w.data,
    createdBy: w.userSid, updatedBy: w.userSid,
  });
  // The row's version and the cell's live event in one round trip (the cell's date_updated is the transaction's now()).
  const activity = `Created the cell of ${w.column.name}${suffix(w)}`;
  const [appended] = await query<{ version: number }>(tx, sql`
    SELECT v.version, ${cellEvent({
      organization: row.organization_sid, table: row.table_sid, project: row.project_sid, row: row.sid, version: sql`v.version`,
      userSid: w.userSid, dateUpdated: isoTimestamp(sql`now()`), cell: sid, column: w.column.sid, created: true, data: w.data,
    })} AS notified
      FROM records_append_version(${newSid()}, ${w.rowSid}, ${w.userSid}, ${activity}) v`);
  const version = appended.version;
  await notifyRecordChange(tx, { rowSid: w.rowSid, userSid: w.userSid, version, activityMessage: activity });
  await mentions(tx, w, row, '');
  // Last: the debit locks a credit shard until commit (docs/credits.md), and the writes
  // of the organization on the same shard wait for it; holding it for the fewest statements matters.
  await debit(tx, w, sid, 'created');
  return sid;
}

/** What changing a cell did: the version it appended (null: the same data, nothing changed), the data before and after, date_updated. */
export interface CellChange {
  version: number | null;
  before: string;
  data: string;
  dateUpdated: string;
}

/**
 * Changes the cell of a locked row (records_set_cell: the cell, then the row's version,
 * in one round trip), notifies the row's creator and the mentions, and debits the price
 * last. The same data again changes nothing and costs nothing. `rowCreatedBy`, when
 * known, spares the record-change lookup for a row's own creator.
 */
export async function changeLocked(tx: Db, sent: CellWrite, row: RowRef, cellSid: string, rowCreatedBy?: string): Promise<CellChange> {
  await checkKind(tx, sent);
  const w = await stored(tx, sent);
  const activity = `Changed the cell of ${w.column.name}${suffix(w)}`;
  // One round trip: the row's size with the new data; only when it is within ROW_MAX_BYTES,
  // records_set_cell (the cell, then the row's version) and, when it changed, the live event.
  const [set] = await query<{ bytes: number; new_version: number | null; previous_data: string | null; updated_at: string | null }>(tx, sql`
    WITH size AS (${rowSize(w.rowSid, { column: w.column.sid, data: w.data })})
    SELECT size.bytes, s.new_version, s.previous_data, s.updated_at
      FROM size LEFT JOIN LATERAL (
        SELECT s.*, CASE WHEN s.new_version IS NOT NULL THEN ${cellEvent({
          organization: row.organization_sid, table: row.table_sid, project: row.project_sid, row: row.sid, version: sql`s.new_version`,
          userSid: w.userSid, dateUpdated: sql`s.updated_at`, cell: cellSid, column: w.column.sid, created: false, data: w.data,
        })} END AS notified
          FROM records_set_cell(${cellSid}, ${w.data}, ${w.userSid}, ${newSid()}, ${activity}) s
         WHERE size.bytes <= ${w.rowMaxBytes}) s ON true`);
  refuseOversize(set.bytes, w.rowMaxBytes, 'data');
  const change = { version: set.new_version, before: set.previous_data!, data: w.data, dateUpdated: set.updated_at! };
  if (change.version === null) return change;
  if (rowCreatedBy !== w.userSid) {
    await notifyRecordChange(tx, { rowSid: w.rowSid, userSid: w.userSid, version: change.version, activityMessage: activity });
  }
  await mentions(tx, w, row, change.before);
  await debit(tx, w, cellSid, 'changed'); // last: see insertLocked
  return change;
}

/** Changes the cell of a locked row; the same data again changes nothing and costs nothing. Whether it changed. */
async function updateLocked(tx: Db, w: CellWrite, row: RowRef, cellSid: string): Promise<boolean> {
  return (await changeLocked(tx, w, row, cellSid)).version !== null;
}

async function existingCell(tx: Db, w: CellWrite): Promise<string | undefined> {
  const [found] = await tx.select({ sid: cells.sid }).from(cells).where(and(eq(cells.rowSid, w.rowSid), eq(cells.columnSid, w.column.sid)));
  return found?.sid;
}

/** The row's cell in the column, if it has one, and the row's size with `w.data` in that column: one round trip. */
async function existingAndSize(tx: Db, w: CellWrite): Promise<{ existing: string | null; bytes: number }> {
  const [found] = await query<{ existing: string | null; bytes: number }>(tx, sql`
    SELECT (SELECT sid FROM cells WHERE row_sid = ${w.rowSid} AND column_sid = ${w.column.sid}) AS existing, size.bytes
      FROM (${rowSize(w.rowSid, { column: w.column.sid, data: w.data })}) size`);
  return found;
}

/**
 * Creates the row's cell in the column, in the caller's transaction: 406 when the row's
 * state or the credits refuse it, 400 on `column` when the row already has that cell, 400
 * on `data` past ROW_MAX_BYTES. `locked`: the row, already locked and its state checked
 * by the caller.
 */
export async function insertCell(tx: Db, sent: CellWrite, locked?: RowRef): Promise<string> {
  const row = locked ?? await lockRowFor(tx, sent);
  const w = await stored(tx, sent);
  const { existing, bytes } = await existingAndSize(tx, w);
  if (existing) throw errors.field('column', `The row already has a cell in this column (${existing}); PATCH that cell instead.`);
  refuseOversize(bytes, w.rowMaxBytes, 'data');
  return insertLocked(tx, w, row, { sized: true });
}

/**
 * Sets the row's cell in the column, creating it when the row has none yet, in the
 * caller's transaction (the workflow engine's set_cell step).
 */
export async function putCell(tx: Db, sent: CellWrite): Promise<{ sid: string; created: boolean; changed: boolean }> {
  const row = await lockRowFor(tx, sent);
  const existing = await existingCell(tx, sent);
  if (existing) return { sid: existing, created: false, changed: await updateLocked(tx, sent, row, existing) };
  return { sid: await insertLocked(tx, await stored(tx, sent), row), created: true, changed: true };
}

/**
 * Sets the cell of a row the caller has locked (and checked) to `data`, creating it when the
 * row has none in the column: the version it appended, and the cell. For a file upload
 * straight to a cell (files/row-upload.ts).
 */
export async function setLockedCell(tx: Db, w: CellWrite, row: RowRef): Promise<{ cell: string; version: number | null; data: string }> {
  const existing = await existingCell(tx, w);
  if (existing) {
    const change = await changeLocked(tx, w, row, existing);
    return { cell: existing, version: change.version, data: change.data };
  }
  const prepared = await stored(tx, w);
  const cell = await insertLocked(tx, prepared, row);
  const [head] = await query<{ version: number }>(tx, sql`SELECT version FROM record_rows WHERE sid = ${w.rowSid}`);
  return { cell, version: head.version, data: prepared.data };
}

/** The data of the row's cell in the column ('' when it has none). */
export async function cellData(tx: Db, rowSid: string, columnSid: string): Promise<string> {
  const [found] = await tx.select({ data: cells.data }).from(cells).where(and(eq(cells.rowSid, rowSid), eq(cells.columnSid, columnSid)));
  return found?.data ?? '';
}

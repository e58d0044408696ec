// Writing one cell inside the caller's transaction, for the callers outside the cell
// endpoints (a row's PATCH and creation, the workflow engine's set_cell step, a file upload
// to a cell): the row's lock (records/lock.ts), the write through the row's one door
// (records/cells.ts), and its refusals in the cell endpoints' words (messages.ts).
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { newSid } from '../../core/ids.js';
import { cells } from '../../db/schema.js';
import { findColumnOfTable, findColumnsOfTable } from '../records/columns.js';
import { lockRow, type RowRef } from '../records/lock.js';
import { checkRowState as refuseRowState } from '../records/refusals.js';
import {
  changeLocked as changeLockedCell, checkKind, createLocked, existingCell, insertLocked, stored,
  type CellChange, type CellColumn, type CellSet, type CellWritten,
} from '../records/cells.js';
import { mentionNotices } from '../records/consequences/mentions.js';
import { debit } from '../records/consequences/debit.js';
import { cellMessages, cellWords, inCellWords } from './messages.js';

export { cellMessages, findColumnOfTable, findColumnsOfTable };
export type { CellChange, CellColumn };

/** One cell write: where, what, by whom, and how its refusals are worded. */
export interface CellWrite extends CellSet {
  /** The POST wording of the spec's 406 messages ("Error: " prefix); otherwise PATCH's. */
  onPost: boolean;
}

/** Refuses a write the row's state does not allow (spec: rules about cells), in POST's or PATCH's words. */
export function checkRowState(row: { sid: string; is_locked: boolean; is_archived: boolean }, addableAtReadonly: boolean, onPost: boolean) {
  try {
    refuseRowState(row, addableAtReadonly);
  } catch (err) {
    throw inCellWords(err, onPost);
  }
}

/** Locks the write's row for the rest of the transaction and checks its state; returns the row. */
async function lockRowFor(tx: Db, w: CellWrite): Promise<RowRef> {
  const access = await lockRow(tx, { userSid: w.userSid }, { row: w.rowSid });
  if (!access) throw errors.notFound();
  checkRowState(access.row, w.column.addable, w.onPost);
  return access.row;
}

/**
 * Changes the cell of a locked row (records/cells.ts changeLocked), its refusals in the
 * write's words. The same data again changes nothing and costs nothing.
 */
export function changeLocked(tx: Db, w: CellWrite, row: RowRef, cellSid: string, rowCreatedBy?: string): Promise<CellChange> {
  return cellWords(w.onPost, () => changeLockedCell(tx, w, row, cellSid, rowCreatedBy));
}

/**
 * Creates the row's cell in the column, in the caller's transaction: 406 when the row's
 * state or the credits refuse it, 400 on `column` when the row already has that cell, 400
 * on `data` past ROW_MAX_BYTES. `locked`: the row, already locked and its state checked
 * by the caller.
 */
export function insertCell(tx: Db, sent: CellWrite, locked?: RowRef): Promise<string> {
  return cellWords(sent.onPost, async () => (await createLocked(tx, sent, locked ?? await lockRowFor(tx, sent))).cell);
}

/**
 * Sets the row's cell in the column, creating it when the row has none yet, in the
 * caller's transaction (the workflow engine's set_cell step, a row's PATCH).
 */
export function putCell(tx: Db, sent: CellWrite): Promise<{ sid: string; created: boolean; changed: boolean }> {
  return cellWords(sent.onPost, async () => {
    const row = await lockRowFor(tx, sent);
    const existing = await existingCell(tx, sent);
    if (existing) return { sid: existing, created: false, changed: (await changeLockedCell(tx, sent, row, existing)).version !== null };
    return { sid: (await insertLocked(tx, await stored(tx, sent), row)).cell, created: true, changed: true };
  });
}

/**
 * Sets the cell of a row the caller has locked (and checked) to `data`, creating it when the
 * row has none in the column: the version it appended, and the cell. For a file upload
 * straight to a cell (files/row-upload.ts).
 */
export function setLockedCell(tx: Db, w: CellWrite, row: RowRef): Promise<{ cell: string; version: number | null; data: string }> {
  return cellWords(w.onPost, async () => {
    const existing = await existingCell(tx, w);
    if (existing) {
      const change = await changeLockedCell(tx, w, row, existing);
      return { cell: existing, version: change.version, data: change.data };
    }
    const prepared = await stored(tx, w);
    const created = await insertLocked(tx, prepared, row);
    return { cell: created.cell, version: created.version, data: prepared.data };
  });
}

/** The data of the row's cell in the column ('' when it has none). */
export async function cellData(tx: Db, rowSid: string, columnSid: string): Promise<string> {
  const [found] = await tx.select({ data: cells.data }).from(cells).where(and(eq(cells.rowSid, rowSid), eq(cells.columnSid, columnSid)));
  return found?.data ?? '';
}

/**
 * The cells of a row being created (its body's values keyed by column sid), in the
 * creation's transaction and without a version of their own: the row's version 1, appended
 * by the caller afterwards, holds them. Each is a cell write otherwise: the row's rules
 * (checked by the caller), its mentions, and its widget's price debited (last, as every
 * write's debit). The caller has checked the row's size with all of them.
 */
export function insertCellsOfNewRow(tx: Db, writes: CellWrite[], row: RowRef): Promise<string[]> {
  return cellWords(writes[0]?.onPost ?? false, async () => {
    const done: CellWritten[] = [];
    for (const sent of writes) {
      await checkKind(tx, sent);
      const w = await stored(tx, sent);
      const sid = newSid();
      await tx.insert(cells).values({
        sid, organizationSid: w.organizationSid, rowSid: w.rowSid, columnSid: w.column.sid, widgetSid: w.column.widgetSid, data: w.data,
        createdBy: w.userSid, updatedBy: w.userSid,
      });
      const written: CellWritten = { ...w, tx, row, cell: sid, created: true, before: '', version: 1, activity: '', date_updated: '' };
      await mentionNotices(written);
      done.push(written);
    }
    for (const written of done) await debit(written);
    return done.map((w) => w.cell);
  });
}

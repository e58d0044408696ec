// A row's cells written through the row's one door (write.ts writeRow), in the caller's
// transaction on a row it has locked (lock.ts lockRow): the checks, the cell and the row's
// version with its live event in one statement, then the consequences in order — the
// creator's notice, the mentions' notices, the debit last (a cell write makes its debit in
// the statement of its version, one round trip fewer, and the debit consequence refuses the write
// when it was not paid: the shard is then locked from that statement). Refusals are RowRefusal codes
// (refusals.ts) or field errors; the routes word them.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { runBuilt } from '../../core/built-sql.js';
import { errors } from '../../core/errors.js';
import { newSid } from '../../core/ids.js';
import { cells } from '../../db/schema.js';
import { refuseOversize, rowSize } from './size.js';
import { cellEvent, sendAfterCommit } from './events.js';
import { checkCellData, kindOfColumn } from '../widgets/kinds.js';
import { FILE_KIND, resolveFileCell } from '../files/cells.js';
import { writeRow, type Written } from './write.js';
import { creatorNotice } from './consequences/creator-notice.js';
import { mentionNotices } from './consequences/mentions.js';
import { cellDebit, debit } from './consequences/debit.js';
import { debitCall } from '../credits/service.js';
import { currentSalesContact } from '../admin/settings.js';
import { mentionsIn } from '../notifications/mentions.js';
import { COMMIT_WITH } from '../../db/pipelined.js';
import { RowRefusal } from './refusals.js';
import { sqlErrorOf } from '../../core/sql-error.js';
import type { RowRef } from './lock.js';

/** A column as a cell write needs it: its widget, the widget's price and whether it may be added to a locked row. */
export interface CellColumn {
  sid: string;
  name: string;
  widgetSid: string;
  price: string;
  addable: boolean;
  /** The widget's name, when known. */
  widgetName?: string;
  /** The widget's kind (`file` columns hold files, files/cells.ts; value kinds are checked, widgets/kinds.ts) and the column's settings, when known (else looked up). */
  kind?: string;
  settings?: Record<string, unknown>;
}

/** One cell write: where, what, by whom. */
export interface CellSet {
  organizationSid: string;
  rowSid: string;
  column: CellColumn;
  data: string;
  /** The user the cell, the ledger entry and the version are recorded for. */
  userSid: string;
  /** SALES_CONTACT from the environment: a no_credits refusal names an administrator's replacement when one is stored. */
  salesContact: string;
  /** ROW_MAX_BYTES: the write is refused (400 on data) when the row would hold more. */
  rowMaxBytes: number;
  /** Said after the version's activity message and the debit's reason, e.g. 'workflow "Review", step 2'. */
  via?: string;
}

/** What a cell write did, for its consequences. */
export interface CellWritten extends Written, Pick<CellSet, 'organizationSid' | 'column' | 'data' | 'salesContact' | 'via'> {
  cell: string;
  created: boolean;
  /** The cell's data before ('' for a new cell). */
  before: string;
  date_updated: string;
  createdBy?: string;
  /** The debit, when the change made it in its own statement: whether it was paid. */
  paid?: boolean;
}

/** A cell write's consequences, in their order. */
const CONSEQUENCES = [creatorNotice, mentionNotices, debit] as const;

const suffix = (w: CellSet) => (w.via ? ` (${w.via})` : '');

/** The write with the data it stores: a file column's data becomes its files' descriptors (files/cells.ts), any other as sent. */
export async function stored<W extends CellSet>(tx: Db, w: W): Promise<W> {
  if (w.column.kind !== FILE_KIND) return w;
  return { ...w, data: await resolveFileCell(tx, w.organizationSid, w.rowSid, w.data) };
}

/** Refuses (400 on `data`) data that is not a value of the column's widget kind (widgets/kinds.ts). */
export async function checkKind(tx: Db, w: CellSet): Promise<void> {
  const column = w.column.kind !== undefined ? { kind: w.column.kind, settings: w.column.settings ?? {} } : await kindOfColumn(tx, w.column.sid);
  await checkCellData(tx, w.organizationSid, column, w.data);
}

/** A value of a statement built once (core/built-sql.ts): its placeholder. */
const ph = (name: string) => sql`${sql.placeholder(name)}`;

/** A cell write's debit in the statements below: its values are debitValues'. */
const debitSql = () => debitCall({ organizationSid: ph('org'), amount: ph('price'), reason: ph('reason'), cellSid: ph('cell'), rowSid: ph('row'), userSid: ph('user') }, ph('ledger'));

/** The values of debitSql's placeholders for a priced write (none for a free one). */
function debitValues(w: CellSet, row: RowRef, cell: string, created: boolean): Record<string, unknown> {
  if (Number(w.column.price) === 0) return {};
  return { price: w.column.price, reason: cellDebit({ ...w, row, cell, created }).reason, ledger: newSid() };
}

/**
 * insertLocked's one statement (built once a process, core/built-sql.ts): the row's size
 * with the new cell and the row's cell in the column if it has one; only when it has none
 * and the size is within ROW_MAX_BYTES, records_create_cell (the cell, then the row's
 * version), the cell's live event and (`priced`) the debit. `last` and `commit` as
 * changeSql's. The conditions gate the function because its subquery is planned on its
 * own (OFFSET 0): pulled up into the join, the function would run before them.
 */
function createSql(priced: boolean, last: boolean, commit: boolean): SQL {
  const debit = last ? sql`records_refuse_unless(${debitSql()} IS NOT NULL, ${RAISED.noCredits}, ${ph('row')})` : sql`${debitSql()} IS NOT NULL`;
  const statement = sql`
    WITH size AS (${rowSize(ph('row'), { column: ph('column'), data: ph('data') })}),
         found AS (SELECT (SELECT sid FROM cells WHERE row_sid = ${ph('row')} AND column_sid = ${ph('column')}) AS existing)
    SELECT size.bytes, found.existing, s.new_version, s.updated_at, s.event,
           ${priced ? sql`CASE WHEN s.new_version IS NOT NULL THEN ${debit} END` : sql`NULL::boolean`} AS paid
           ${last ? sql`, records_refuse_unless(size.bytes <= ${ph('max')} OR found.existing IS NOT NULL, ${RAISED.oversize}, size.bytes::text) AS sized` : sql``}
      FROM size CROSS JOIN found LEFT JOIN LATERAL (
        SELECT s.*, ${cellEvent({
          organization: ph('org'), table: ph('table'), project: ph('project'), row: ph('row'), open: ph('open'), version: sql`s.new_version`,
          userSid: ph('user'), dateUpdated: sql`s.updated_at`, cell: ph('cell'), column: ph('column'), created: true, data: ph('data'),
        })} AS event
          FROM records_create_cell(${ph('cell')}, ${ph('org')}, ${ph('row')}, ${ph('column')}, ${ph('widget')}, ${ph('data')}, ${ph('user')}, ${ph('version')}, ${ph('activity')}) s
         WHERE size.bytes <= ${ph('max')} AND found.existing IS NULL OFFSET 0) s ON true`;
  return commit ? sql`${statement}${sql.raw(COMMIT_WITH)}` : statement;
}

/**
 * Inserts the cell of a locked row, with the version and the cell's live event, in one
 * statement (createSql), then the consequences: 400 on `column` when the row has a cell
 * in the column already, 400 on `data` past ROW_MAX_BYTES. `last`: as changeLocked's.
 * What it wrote.
 */
export async function insertLocked(tx: Db, w: CellSet, row: RowRef, options: { createdBy?: string; last?: boolean } = {}): Promise<CellWritten> {
  const sid = newSid();
  const done = await writeRow<CellWritten>({
    checks: [() => checkKind(tx, w)],
    apply: async () => {
      const activity = `Created the cell of ${w.column.name}${suffix(w)}`;
      const priced = Number(w.column.price) !== 0;
      const last = options.last === true;
      const commit = last && quietConsequences(w, options.createdBy);
      const [made] = await runBuilt<{ bytes: number; existing: string | null; new_version: number | null; updated_at: string | null; event: string | null; paid: boolean | null }>(
        tx, `records/cells:create:${priced}:${last}:${commit}`, () => createSql(priced, last, commit), {
          cell: sid, org: w.organizationSid, row: w.rowSid, column: w.column.sid, widget: w.column.widgetSid, data: w.data, user: w.userSid,
          max: w.rowMaxBytes, version: newSid(), activity, table: row.table_sid, project: row.project_sid, open: row.open_to_organization,
          ...debitValues(w, row, sid, true),
        });
      sendAfterCommit(tx, [made.event]);
      if (made.existing) throw errors.field('column', `The row already has a cell in this column (${made.existing}); PATCH that cell instead.`);
      refuseOversize(made.bytes, w.rowMaxBytes, 'data');
      return {
        ...w, tx, row, cell: sid, created: true, before: '', version: made.new_version!, activity, date_updated: made.updated_at!,
        createdBy: options.createdBy, paid: priced ? made.paid! : true,
      };
    },
    consequences: CONSEQUENCES,
  });
  return done!;
}

/** What changing a cell did: the version it appended (null: the same data, nothing changed), the data before and after, date_updated. */
export interface CellChange {
  version: number | null;
  before: string;
  data: string;
  dateUpdated: string;
}

/** The SQLSTATEs of the refusals a last write's statement raises (records_refuse_unless). */
const RAISED = { oversize: 'RS101', noCredits: 'RS102' } as const;

/**
 * changeLocked's one statement (built once a process, core/built-sql.ts): the row's size
 * with the new data; only when it is within ROW_MAX_BYTES, records_set_cell (the cell,
 * then the row's version) and, when it changed, the live event and (`priced`) the debit.
 * `last`: the write's refusals (past ROW_MAX_BYTES, unpaid) are raised by the statement
 * (RAISED), and `commit` sends the transaction's COMMIT with it (db/pipelined.ts). The
 * size gates records_set_cell as in createSql (OFFSET 0).
 */
function changeSql(priced: boolean, last: boolean, commit: boolean): SQL {
  const debit = last
    ? sql`records_refuse_unless(${debitSql()} IS NOT NULL, ${RAISED.noCredits}, ${ph('row')})`
    : sql`${debitSql()} IS NOT NULL`;
  const statement = sql`
    WITH size AS (${rowSize(ph('row'), { column: ph('column'), data: ph('data') })})
    SELECT size.bytes, s.new_version, s.previous_data, s.updated_at, s.event,
           ${priced ? sql`CASE WHEN s.new_version IS NOT NULL THEN ${debit} END` : sql`NULL::boolean`} AS paid
           ${last ? sql`, records_refuse_unless(size.bytes <= ${ph('max')}, ${RAISED.oversize}, size.bytes::text) AS sized` : sql``}
      FROM size LEFT JOIN LATERAL (
        SELECT s.*, CASE WHEN s.new_version IS NOT NULL THEN ${cellEvent({
          organization: ph('org'), table: ph('table'), project: ph('project'), row: ph('row'), open: ph('open'), version: sql`s.new_version`,
          userSid: ph('user'), dateUpdated: sql`s.updated_at`, cell: ph('cell'), column: ph('column'), created: false, data: ph('data'),
        })} END AS event
          FROM records_set_cell(${ph('cell')}, ${ph('data')}, ${ph('user')}, ${ph('version')}, ${ph('activity')}) s
         WHERE size.bytes <= ${ph('max')} OFFSET 0) s ON true`;
  return commit ? sql`${statement}${sql.raw(COMMIT_WITH)}` : statement;
}

/** The refusal a last write's statement raised (changeSql), in the write's terms; undefined for any other error. Read after the transaction failed. */
export async function raisedRefusal(db: Db, error: unknown, w: Pick<CellSet, 'salesContact' | 'rowMaxBytes'>): Promise<Error | undefined> {
  const e = sqlErrorOf(error);
  if (e?.code === RAISED.oversize) {
    try {
      refuseOversize(e.detail, w.rowMaxBytes, 'data');
    } catch (refusal) {
      return refusal as Error;
    }
  }
  if (e?.code === RAISED.noCredits) return new RowRefusal('no_credits', e.detail ?? '', await currentSalesContact(db, w.salesContact));
  return undefined;
}

/** Whether the consequences of a change of a cell to `data` send no statement (db/pipelined.ts COMMIT_WITH may follow it). */
function quietConsequences(w: CellSet, rowCreatedBy: string | undefined): boolean {
  const mentioned = mentionsIn(w.data);
  return rowCreatedBy === w.userSid && !mentioned.sids.size && !mentioned.emails.size;
}

/**
 * Changes the cell of a locked row (records_set_cell: the cell, then the row's version,
 * in one round trip), then the consequences. The same data again changes nothing and
 * costs nothing. `rowCreatedBy`, when known, spares the creator's notice its lookup.
 * `last`: the caller writes nothing more in the transaction; its refusals are then raised
 * by the statement (read them with raisedRefusal once the transaction failed), and when no
 * consequence sends a statement the transaction commits with it.
 */
export async function changeLocked(tx: Db, sent: CellSet, row: RowRef, cellSid: string, rowCreatedBy?: string, last = false): Promise<CellChange> {
  let unchanged: CellChange | undefined;
  const done = await writeRow<CellWritten>({
    checks: [() => checkKind(tx, sent)],
    apply: async () => {
      const w = await stored(tx, sent);
      const activity = `Changed the cell of ${w.column.name}${suffix(w)}`;
      // One round trip: the row's size with the new data; only when it is within ROW_MAX_BYTES,
      // records_set_cell (the cell, then the row's version) and, when it changed, the live
      // event and the debit (the debit consequence refuses the write when it was not paid).
      const priced = Number(w.column.price) !== 0;
      const commit = last && quietConsequences(w, rowCreatedBy);
      const [set] = await runBuilt<{ bytes: number; new_version: number | null; previous_data: string | null; updated_at: string | null; event: string | null; paid: boolean | null }>(
        tx, `records/cells:change:${priced}:${last}:${commit}`, () => changeSql(priced, last, commit), {
          row: row.sid, column: w.column.sid, data: w.data, user: w.userSid, cell: cellSid, max: w.rowMaxBytes, version: newSid(), activity,
          org: row.organization_sid, table: row.table_sid, project: row.project_sid, open: row.open_to_organization,
          ...debitValues(w, row, cellSid, false),
        });
      sendAfterCommit(tx, [set.event]);
      refuseOversize(set.bytes, w.rowMaxBytes, 'data');
      if (set.new_version === null) {
        unchanged = { version: null, before: set.previous_data!, data: w.data, dateUpdated: set.updated_at! };
        return null;
      }
      return {
        ...w, tx, row, cell: cellSid, created: false, before: set.previous_data!, version: set.new_version, activity,
        date_updated: set.updated_at!, createdBy: rowCreatedBy, paid: priced ? set.paid! : true,
      };
    },
    consequences: CONSEQUENCES,
  });
  if (!done) return unchanged!;
  return { version: done.version, before: done.before, data: done.data, dateUpdated: done.date_updated };
}

/** The row's cell in the column, if it has one. */
export async function existingCell(tx: Db, w: CellSet): Promise<string | undefined> {
  const [found] = await tx.select({ sid: cells.sid }).from(cells).where(and(eq(cells.rowSid, w.rowSid), eq(cells.columnSid, w.column.sid)));
  return found?.sid;
}

/**
 * Creates the row's cell in the column on a row the caller has locked and checked: 400 on
 * `column` when the row already has that cell, 400 on `data` past ROW_MAX_BYTES, then the
 * write (insertLocked; `last` as changeLocked's). What it wrote.
 */
export async function createLocked(tx: Db, sent: CellSet, row: RowRef, createdBy?: string, last = false): Promise<CellWritten> {
  return insertLocked(tx, await stored(tx, sent), row, { createdBy, last });
}

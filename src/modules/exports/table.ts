// A table's rows as CSV, XLSX or NDJSON (issue 26), streamed: rows are read in keyset
// batches only as fast as the socket takes them (a Readable pulls its next batch when the
// consumer asks), so memory holds about one batch whatever the table's size.
import { PassThrough, Readable, pipeline } from 'node:stream';
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import type { Db } from '../../db/client.js';
import type { Membership } from '../../core/access.js';
import type { GridFilter } from '../rows/grid.js';
import { exportBatch, tableColumns, type Cursor, type ExportColumn, type ExportRow } from './repository.js';

export const EXPORT_FORMATS = ['csv', 'xlsx', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const MEDIA_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** The fixed fields before the columns in CSV and XLSX: what an import matches a row by, and the row's own fields. */
export const ROW_FIELDS = ['sid', 'name', 'description'] as const;

const BATCH = 500;

export interface ExportSource {
  db: Db;
  organizationSid: string;
  tableSid: string;
  membership: Membership;
  filter: GridFilter;
}

/** The rows of the export, batch after batch, each batch read when the one before is consumed. */
export async function* exportRows(source: ExportSource): AsyncGenerator<ExportRow> {
  let after: Cursor | null = null;
  for (;;) {
    const batch = await exportBatch(source.db, source.organizationSid, source.tableSid, source.membership, source.filter, after, BATCH);
    yield* batch;
    if (batch.length < BATCH) return;
    const last = batch[batch.length - 1];
    after = { at: last.at, sid: last.sid };
  }
}

/** A row as a line of a sheet: sid, name, description, then each column's data ('' without a cell). */
function sheetLine(row: ExportRow, columns: ExportColumn[]): string[] {
  return [row.sid, row.name, row.description, ...columns.map((c) => row.cells[c.sid] ?? '')];
}

/** The header of a sheet: the fixed fields, then the columns' names. */
export function sheetHeader(columns: ExportColumn[]): string[] {
  return [...ROW_FIELDS, ...columns.map((c) => c.name)];
}

/** A row as an NDJSON line (without its newline): the row's fields and its cells by column sid. */
function ndjsonLine(row: ExportRow): string {
  const { at: _at, ...fields } = row;
  return JSON.stringify(fields);
}

/** The export's body as a stream; errors after the first byte end the stream (the answer is cut). */
export async function exportStream(source: ExportSource, format: ExportFormat, sheetName: string): Promise<Readable> {
  const columns = await tableColumns(source.db, source.tableSid);
  if (format === 'ndjson') {
    return Readable.from((async function* lines() {
      for await (const row of exportRows(source)) yield `${ndjsonLine(row)}\n`;
    })(), { objectMode: false });
  }
  if (format === 'csv') {
    const out = stringify({ header: true, columns: sheetHeader(columns).map((name, i) => ({ key: String(i), header: name })), bom: false });
    const lines = Readable.from((async function* csvLines() {
      for await (const row of exportRows(source)) yield sheetLine(row, columns);
    })());
    pipeline(lines, out, () => undefined);
    return out;
  }
  return xlsxStream(source, columns, sheetName);
}

/** Worksheet names: at most 31 characters, none of []:*?/\ (Excel refuses them). */
export function worksheetName(name: string): string {
  const cleaned = name.replace(/[[\]:*?/\\]/g, ' ').trim().slice(0, 31);
  return cleaned || 'Rows';
}

/**
 * XLSX through exceljs's streaming WorkbookWriter (each row committed as written, no
 * shared strings, so nothing accumulates); the next batch waits while the answer's buffer is full.
 */
function xlsxStream(source: ExportSource, columns: ExportColumn[], sheetName: string): Readable {
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  void (async () => {
    try {
      // Imported on first use: exceljs is ~0.2 s of CPU to load, at every start otherwise.
      const { default: ExcelJS } = await import('exceljs');
      const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
      const sheet = workbook.addWorksheet(worksheetName(sheetName));
      sheet.addRow(sheetHeader(columns)).commit();
      let n = 0;
      for await (const row of exportRows(source)) {
        sheet.addRow(sheetLine(row, columns)).commit();
        n += 1;
        if (n % BATCH === 0 && out.writableNeedDrain) await Promise.race([once(out, 'drain'), once(out, 'close')]);
        if (out.destroyed) return;
      }
      sheet.commit();
      await workbook.commit();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return out;
}

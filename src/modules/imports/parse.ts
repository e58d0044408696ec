// Reading an import's file as it streams (issue 26): CSV through csv-parse, XLSX through
// exceljs's streaming WorkbookReader (its first worksheet). Each yields lines of text
// fields with their line number in the file (the first line of a CSV record; the sheet's row).
import fs from 'node:fs';
import { parse } from 'csv-parse';
import type ExcelJS from 'exceljs';

export const IMPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface Line {
  line: number;
  fields: string[];
}

/** A file that cannot be read as its format: said on line `line`. */
export class UnreadableFile extends Error {
  constructor(message: string, readonly line: number | null = null) {
    super(message);
  }
}

async function* csvLines(file: string): AsyncGenerator<Line> {
  const parser = fs.createReadStream(file).pipe(parse({ bom: true, info: true, relax_column_count: true, relax_quotes: false }));
  let previousEnd = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const line = previousEnd + 1;
      previousEnd = info.lines;
      if (record.length === 1 && record[0] === '') continue; // an empty line
      yield { line, fields: record };
    }
  } catch (err) {
    const e = err as Error & { lines?: number };
    throw new UnreadableFile(`The file cannot be read as CSV: ${e.message}`, e.lines ?? null);
  }
}

/** A sheet cell as text: strings as they are, numbers and booleans as written, dates in ISO 8601, a formula's result. */
function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    if ('richText' in value) return value.richText.map((r) => r.text).join('');
    if ('text' in value && typeof value.text === 'string') return value.text;
    if ('result' in value) return cellText(value.result as ExcelJS.CellValue);
    if ('error' in value) return String(value.error);
  }
  return String(value);
}

async function* xlsxLines(file: string): AsyncGenerator<Line> {
  // Imported on first use: exceljs is ~0.2 s of CPU to load, at every start otherwise.
  const { default: ExcelJS } = await import('exceljs');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(fs.createReadStream(file), {
    worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'ignore', entries: 'emit',
  });
  try {
    for await (const sheet of reader) {
      for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
        const values = row.values as ExcelJS.CellValue[];
        const fields = Array.from({ length: Math.max(values.length - 1, 0) }, (_, i) => cellText(values[i + 1]));
        while (fields.length && fields[fields.length - 1] === '') fields.pop();
        if (!fields.length) continue;
        yield { line: row.number, fields };
      }
      return; // the first worksheet only
    }
  } catch (err) {
    if (err instanceof UnreadableFile) throw err;
    throw new UnreadableFile(`The file cannot be read as XLSX: ${(err as Error).message}`);
  }
}

/** The file's lines, the header first. */
export function lines(file: string, format: ImportFormat): AsyncGenerator<Line> {
  return format === 'csv' ? csvLines(file) : xlsxLines(file);
}

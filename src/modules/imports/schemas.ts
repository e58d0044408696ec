import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../core/schemas.js';
import { IMPORT_FORMATS } from './parse.js';

export const ImportQuery = Type.Object({
  project__sid: Type.String({ maxLength: 64, description: 'the project of the rows (required)' }),
  format: Type.Optional(StringEnum(IMPORT_FORMATS, { description: 'csv or xlsx (default: from the Content-Type)' })),
  dry_run: Type.Optional(Type.String({ maxLength: 5, description: 'true: check every line, write nothing', 'x-document': 'boolean' })),
  key: Type.Optional(Type.String({ maxLength: 255, description: 'what names an existing row: sid (the default when the header maps a field to sid) or a column\'s name' })),
  mapping: Type.Optional(Type.String({ maxLength: 100_000, description: 'JSON: header field → sid, name, description, a column\'s name or sid, or "" to leave it out' })),
});

const Problem = Type.Object({
  line: Nullable(Type.Integer(), 'the line of the file (1: the header); null for the import as a whole'),
  column: Nullable(Type.String(), 'the header field'),
  problem: Type.String(),
}, { title: 'ImportProblem' });

export const ImportSummary = Type.Object({
  dry_run: Type.Boolean(),
  rows: Type.Integer({ description: 'lines after the header' }),
  created: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer({ description: 'lines that change nothing (no version)' }),
  cells: Type.Integer({ description: 'cells written (created or changed)' }),
  price: Type.String({ description: 'what the written cells cost' }),
  balance: Type.String({ description: "the organization's credits before the import" }),
  problem_count: Type.Integer(),
  problems: Type.Array(Problem, { description: 'every problem, by line and column (at most 10,000)' }),
  header: Type.Array(Type.Object({
    field: Type.String({ description: 'the header field, as in the file' }),
    to: Nullable(Type.String(), 'sid, name, description or a column\'s sid; null: left out (by the mapping, or unknown)'),
  }), { description: "the file's header and where each field goes: the mapping the import used" }),
}, { title: 'ImportSummary' });

export const ImportProgress = Type.Object({
  phase: StringEnum(['checking', 'writing', 'done'] as const),
  rows_done: Type.Integer(),
  rows_total: Nullable(Type.Integer(), 'known once the check has counted the lines'),
}, { title: 'ImportProgress' });

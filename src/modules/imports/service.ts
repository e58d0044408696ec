// An import (issue 26; docs/eln.md, "Imports"): the file, spooled to a temporary file as it
// arrives, is read twice as a stream — a check of every line (the dry run's whole answer),
// then, when nothing is wrong and the credits cover the price, the writes in ONE transaction,
// every line's row locked and checked again. All or nothing: a problem found while writing
// rolls everything back.
import type { Db } from '../../db/client.js';
import { ApiError, errors } from '../../core/errors.js';
import { formatMoney } from '../../core/sql.js';
import { debitCredits } from '../credits/service.js';
import { cellMessages } from '../cells/write.js';
import { currentSalesContact } from '../admin/settings.js';
import { lines, type ImportFormat, type Line } from './parse.js';
import { keyOf, mapHeader, planLine, type Mapping, type Plan, type Problem } from './plan.js';
import { balanceCents, existingRows, importColumns, refreshStatistics } from './repository.js';
import { cellDataProblem } from '../widgets/kinds.js';
import { createRows, updateRow, UidReservation, type WriteContext } from './write.js';
import { copyConnectionOf } from './copy.js';

const BATCH = 500;
/** At most this many problems are listed (all are counted). */
export const MAX_PROBLEMS = 10_000;

export interface ImportJob {
  db: Db;
  organizationSid: string;
  tableSid: string;
  projectSid: string;
  userSid: string;
  file: string;
  format: ImportFormat;
  mapping: Record<string, string>;
  key: string | undefined;
  dryRun: boolean;
  rowMaxBytes: number;
  salesContact: string;
  /** Rows done of the total (null until the check has counted them). */
  progress: (done: number, total: number | null, phase: 'checking' | 'writing') => Promise<void>;
}

export interface ImportSummary {
  dry_run: boolean;
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  cells: number;
  price: string;
  balance: string;
  problem_count: number;
  problems: Problem[];
  /** Where each header field went: a row field, a column's sid, or null (left out). */
  header: { field: string; to: string | null }[];
}

/** The file's lines in batches, after its header. */
async function* batches(file: string, format: ImportFormat, onHeader: (header: string[]) => void): AsyncGenerator<Line[]> {
  let batch: Line[] = [];
  let header = true;
  for await (const line of lines(file, format)) {
    if (header) {
      onHeader(line.fields);
      header = false;
      continue;
    }
    batch.push(line);
    if (batch.length === BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (header) onHeader([]);
  if (batch.length) yield batch;
}

/** Plans a batch against the rows it names (locked when `lock`). */
async function planBatch(db: Db, job: ImportJob, mapping: Mapping, batch: Line[], seen: Map<string, number>, problems: Problem[], lock: boolean): Promise<Plan[]> {
  const keys = [...new Set(batch.map((l) => keyOf(mapping, l.fields)).filter(Boolean))];
  const existing = mapping.key ? await existingRows(db, job.tableSid, job.projectSid, keys, mapping.key.kind === 'column' ? mapping.key.column.sid : null, lock) : new Map();
  const plans: Plan[] = [];
  // Line by line, so each line's problems come in the file's order.
  for (const l of batch) {
    const plan = planLine(mapping, l.line, l.fields, existing.get(keyOf(mapping, l.fields)), seen, job.rowMaxBytes, problems);
    plans.push(await checkKinds(db, job, mapping, plan, problems));
  }
  return plans;
}

/**
 * Each value a line writes, checked against its column's widget kind (a number, a date, a
 * choice …) as a cell edit checks it (widgets/kinds.ts): a refused value is a problem of its
 * line and column, and the line writes nothing.
 */
async function checkKinds(db: Db, job: ImportJob, mapping: Mapping, plan: Plan, problems: Problem[]): Promise<Plan> {
  if (plan.kind !== 'create' && plan.kind !== 'update') return plan;
  const headerOf = (columnSid: string) => mapping.header[mapping.targets.findIndex((t) => t !== null && 'column' in t && t.column.sid === columnSid)] ?? null;
  let refused = false;
  for (const cell of plan.cells) {
    const problem = await cellDataProblem(db, job.organizationSid, { kind: cell.column.kind ?? 'text', settings: cell.column.settings ?? {} }, cell.data);
    if (!problem) continue;
    problems.push({ line: plan.line, column: headerOf(cell.column.sid), problem });
    refused = true;
  }
  return refused ? { kind: 'refused', line: plan.line } : plan;
}

/** Checks every line (and, unless a dry run, writes them when all is well); the summary. */
export async function runImport(job: ImportJob): Promise<ImportSummary> {
  const columns = await importColumns(job.db, job.tableSid);
  const problems: Problem[] = [];
  const summary: ImportSummary = {
    dry_run: job.dryRun, rows: 0, created: 0, updated: 0, unchanged: 0, cells: 0, price: '$0.00', balance: '$0.00', problem_count: 0, problems: [], header: [],
  };
  let mapping: Mapping | null = null;
  const onHeader = (header: string[]) => {
    if (!header.length) problems.push({ line: 1, column: null, problem: 'The file has no header line.' });
    mapping = mapHeader(header, columns, job.mapping, job.key, problems);
  };
  let cents = 0;
  const seen = new Map<string, number>();
  for await (const batch of batches(job.file, job.format, onHeader)) {
    for (const plan of await planBatch(job.db, job, mapping!, batch, seen, problems, false)) {
      summary.rows += 1;
      if (plan.kind === 'create') { summary.created += 1; summary.cells += plan.cells.length; cents += plan.cents; }
      if (plan.kind === 'update') { summary.updated += 1; summary.cells += plan.cells.length; cents += plan.cents; }
      if (plan.kind === 'unchanged') summary.unchanged += 1;
    }
    if (problems.length > MAX_PROBLEMS) problems.splice(MAX_PROBLEMS, problems.length - MAX_PROBLEMS, { line: null, column: null, problem: '…' });
    await job.progress(summary.rows, null, 'checking');
  }
  if (!mapping) onHeader([]);
  const mapped: Mapping = mapping!;
  summary.header = mapped.header.map((field, i) => {
    const target = mapped.targets[i];
    return { field, to: !target ? null : 'field' in target ? target.field : target.column.sid };
  });
  const balance = await balanceCents(job.db, job.organizationSid);
  summary.price = formatMoney((cents / 100).toFixed(2));
  summary.balance = formatMoney((balance / 100).toFixed(2));
  if (cents > balance) {
    problems.push({ line: null, column: null, problem: `Not enough credits: the import costs ${summary.price} and the organization has ${summary.balance}.` });
  }
  summary.problems = problems.filter((p) => p.problem !== '…');
  summary.problem_count = summary.problems.length;
  if (job.dryRun || problems.length) return summary;

  const total = summary.rows;
  await job.progress(0, total, 'writing');
  await job.db.transaction(async (tx) => {
    // On PostgreSQL new rows are written by COPY on the transaction's connection (imports/copy.ts);
    // the uids of all the rows the check counted are reserved at once (write.ts, UidReservation).
    const w: WriteContext = {
      tx, organizationSid: job.organizationSid, tableSid: job.tableSid, projectSid: job.projectSid, userSid: job.userSid,
      copy: copyConnectionOf(tx), uids: new UidReservation(summary.created),
    };
    const again: Problem[] = [];
    const seenAgain = new Map<string, number>();
    let done = 0;
    for await (const batch of batches(job.file, job.format, () => undefined)) {
      const plans = await planBatch(tx, job, mapping!, batch, seenAgain, again, true);
      if (again.length) throw refusal(again);
      await createRows(w, plans.filter((p): p is Extract<Plan, { kind: 'create' }> => p.kind === 'create'));
      let batchCents = 0;
      for (const plan of plans) {
        if (plan.kind === 'update') await updateRow(w, plan);
        if (plan.kind === 'create' || plan.kind === 'update') batchCents += plan.cents;
      }
      if (batchCents > 0) {
        const paid = await debitCredits(tx, {
          organizationSid: job.organizationSid, amount: (batchCents / 100).toFixed(2), reason: `import: lines ${batch[0].line}–${batch[batch.length - 1].line}`,
          userSid: job.userSid,
        });
        if (!paid) throw errors.notAcceptable(cellMessages.noCredits(await currentSalesContact(tx, job.salesContact), false));
      }
      done += batch.length;
      await job.progress(done, total, 'writing');
    }
  });
  await refreshStatistics(job.db, summary.created + summary.updated);
  return summary;
}

/** A run that found problems while writing (the rows changed since the check): 400, nothing written. */
export function refusal(problems: Problem[]): ApiError {
  const where = (p: Problem) => [p.line !== null ? `line ${p.line}` : null, p.column !== null ? `column "${p.column}"` : null].filter(Boolean).join(', ');
  return errors.fields({ file: problems.slice(0, 100).map((p) => (where(p) ? `${where(p)}: ${p.problem}` : p.problem)) });
}

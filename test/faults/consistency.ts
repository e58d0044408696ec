// After a fault: what a burst of cell writes left in the database must be whole. Every
// acknowledged write is there; every change of a cell is one version and one debit, and
// nothing else is; every chain verifies (the service's report and a recomputation); the
// credits equal the opening balance minus the ledger.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Api } from '../helpers/http.ts';
import {
  assertIntactChain, cents, listCells, recordPaths, listLedger, listVersions, readCredits, recomputeHash, verifyRow,
} from '../helpers/records.ts';
import { attempt, type Attempt, type PricedWorkspace } from './lib.ts';

/** One cell write of a burst; `seq` orders the writes of one row (a row's writer is sequential). */
export interface Write {
  row: string;
  column: string;
  data: string;
  op: 'POST' | 'PATCH';
  seq: number;
  /** What came back; null while in flight. */
  outcome: Attempt | null;
}

/** Whether the write got a 2xx answer. */
export function acknowledged(w: Write): boolean {
  const status = w.outcome?.status;
  return typeof status === 'number' && status >= 200 && status < 300;
}

/**
 * One row's writer, one request at a time, each with data of its own: every other write
 * creates (POST) the row's next cell while some column has none, the others change
 * (PATCH) a cell it has, in turn. Runs until `stop()` says so or a write gets no answer
 * (the server is gone). `cells` (column sid → cell sid) are cells the row has already.
 */
export async function writeRow(ws: PricedWorkspace, rowIndex: number, writes: Write[], options: {
  baseUrl: string; stop: () => boolean; onAnswer?: (w: Write) => void; cells?: Map<string, string>;
}): Promise<void> {
  const row = ws.rows[rowIndex];
  const cellOf = new Map(options.cells ?? []);
  for (let seq = 0; !options.stop(); seq += 1) {
    const missing = ws.priced.find((c) => !cellOf.has(c.sid));
    const created = ws.priced.filter((c) => cellOf.has(c.sid));
    const column = missing && (seq % 2 === 0 || !created.length) ? missing.sid : created[seq % created.length].sid;
    const cell = cellOf.get(column);
    const data = `row ${rowIndex} write ${seq}`;
    const write: Write = { row: row.sid, column, data, op: cell ? 'PATCH' : 'POST', seq, outcome: null };
    writes.push(write);
    write.outcome = cell
      ? await attempt('PATCH', options.baseUrl + recordPaths.cellDetail(cell), { token: ws.user.token, body: { data } })
      : await attempt('POST', options.baseUrl + recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), { token: ws.user.token, body: { column, data } });
    if (write.op === 'POST' && write.outcome.status === 201) cellOf.set(column, write.outcome.json.sid);
    options.onAnswer?.(write);
    if (write.outcome.status === null) return;
    if (!acknowledged(write)) await sleep(50); // refused (a 503 while the database is away): do not spin
  }
}

export interface Findings {
  acknowledged: number;
  unanswered: number;
  /** Writes without an answer that committed all the same (their answer was lost). */
  unansweredCommitted: number;
  versions: number;
  debits: number;
}

/**
 * Asserts the database (read through `api`, an Admin of the workspace's organization)
 * holds exactly whole writes of `writes`, and that the credits add up from `openingCents`.
 * `ordered`: a cell's writes were sent one after another, so its versions follow `seq`
 * (false when they were sent at once).
 */
export async function assertWholeWrites(
  api: Api, ws: PricedWorkspace, writes: Write[], openingCents: number, priceCents: number, options: { ordered?: boolean } = {},
): Promise<Findings> {
  const org = ws.org.sid;
  const changes: { row: string; column: string; cell: string; data: string }[] = [];
  let versionCount = 0;
  for (const row of ws.rows) {
    const where = `row ${row.sid}`;
    const [versions, cells, report] = await Promise.all([listVersions(api, org, row.sid), listCells(api, org, row.sid), verifyRow(api, row.sid)]);
    versionCount += versions.length;

    // The chain: intact, verified by the service, and every hash recomputed here.
    assertIntactChain(versions, where);
    assert.deepEqual([report.is_valid, report.versions, report.head_version, report.problems], [true, versions.length, versions.length, []], `${where}: the service verifies its chain`);
    for (const v of versions) assert.equal(recomputeHash(row.sid, v, ws.user.sid), v.hash, `${where}: version ${v.version}'s hash recomputed`);

    // No cell change without a version: the cells are exactly the last version's.
    const now = Object.fromEntries(cells.map((c) => [c.column.sid, c.data]));
    assert.deepEqual(versions[versions.length - 1].data.cells, now, `${where}: the cells are exactly what the last version says`);
    const cellOf = new Map<string, string>(cells.map((c) => [c.column.sid, c.sid]));

    // Each version after the first changes exactly one cell, to the data of one write of the row.
    const mine = writes.filter((w) => w.row === row.sid);
    const byData = new Map(mine.map((w) => [`${w.column}\u0000${w.data}`, w]));
    const lastSeq = new Map<string, number>();
    for (let i = 1; i < versions.length; i += 1) {
      const before = versions[i - 1].data.cells as Record<string, string>;
      const after = versions[i].data.cells as Record<string, string>;
      const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((c) => before[c] !== after[c]);
      assert.equal(changed.length, 1, `${where}: version ${versions[i].version} changes exactly one cell (changed: ${changed.join(', ')})`);
      const column = changed[0];
      const write = byData.get(`${column}\u0000${after[column]}`);
      assert.ok(write, `${where}: version ${versions[i].version}'s value ${JSON.stringify(after[column])} is one of the writes sent`);
      if (options.ordered !== false) assert.ok((lastSeq.get(column) ?? -Infinity) < write.seq, `${where}: the cell's versions follow the order its writes were sent in`);
      assert.ok(!changes.some((c) => c.row === row.sid && c.column === column && c.data === after[column]), `${where}: ${JSON.stringify(after[column])} is written once`);
      lastSeq.set(column, write.seq);
      changes.push({ row: row.sid, column, cell: cellOf.get(column)!, data: after[column] });
    }

    // Every acknowledged write is there: its value is in a version (and so was the cell's, in order).
    for (const w of mine.filter(acknowledged)) {
      assert.ok(changes.some((c) => c.row === row.sid && c.column === w.column && c.data === w.data),
        `${where}: the acknowledged ${w.op} ${JSON.stringify(w.data)} (HTTP ${w.outcome!.status}) is in a version`);
    }
  }

  // No debit without a version, no version without a debit: the ledger is one debit of the
  // price per cell change, of that cell and row.
  const ledger = await listLedger(api, org);
  for (const e of ledger) assert.equal(cents(e.amount), -priceCents, `ledger entry ${e.sid} is one debit of the price: ${JSON.stringify(e)}`);
  const key = (row: string, cell: string) => `${row}/${cell}`;
  const debited = ledger.map((e) => key(e.row, e.cell)).sort();
  const versioned = changes.map((c) => key(c.row, c.cell)).sort();
  assert.deepEqual(debited, versioned, 'each cell change has exactly one debit of its cell and row, and each debit a cell change');

  // The ledger adds up: the credits are the opening balance minus the ledger. Each entry's
  // balance_after counts its own debit and every one committed before it, and may leave out
  // debits of other credit shards not committed yet (docs/credits.md, "The ledger's
  // balance_after"): never below the exact balance after it, never above the opening
  // balance minus its own debit.
  const oldestFirst = [...ledger].reverse();
  oldestFirst.forEach((e, i) => {
    const balance = cents(e.balance_after);
    assert.ok(balance >= openingCents - (i + 1) * priceCents && balance <= openingCents - priceCents,
      `ledger entry ${i + 1}'s balance_after ${balance} is between the exact ${openingCents - (i + 1) * priceCents} and ${openingCents - priceCents}`);
  });
  const spent = ledger.reduce((sum, e) => sum - cents(e.amount), 0);
  assert.equal(cents(await readCredits(api, org)), openingCents - spent, 'credits = opening balance - the sum of the ledger');

  const unanswered = writes.filter((w) => w.outcome?.status === null);
  return {
    acknowledged: writes.filter(acknowledged).length,
    unanswered: unanswered.length,
    unansweredCommitted: unanswered.filter((w) => changes.some((c) => c.row === w.row && c.column === w.column && c.data === w.data)).length,
    versions: versionCount,
    debits: ledger.length,
  };
}

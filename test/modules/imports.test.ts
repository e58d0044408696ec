// Imports (issue 26): POST /tables/row/import/table/{sid}/?project__sid= — CSV and XLSX lines
// into rows through a cell edit's rules, a dry run that writes nothing and reports every
// problem by line and column (50 planted problems of 10 kinds, exactly), upsert by sid or a
// column, one version a changed line and none for an unchanged one, all or nothing, the price
// and the credits, Idempotency-Key and progress; and the round trip with the export.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, DB_KIND } from '../helpers/env.ts';
import { behindTheApi } from '../helpers/behind.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { withQuery, type Api, type Query } from '../helpers/http.ts';
import { MESSAGES, expectDetail, expectStatus } from '../helpers/assertions.ts';
import { inbox } from '../helpers/notifications.ts';
import { createCell, createRow, newWorkspace, readCredits, recordPaths, setRowState, type Workspace } from '../helpers/records.ts';

const importPath = (tableSid: string, query: Query) => withQuery(`/tables/row/import/table/${encodeURIComponent(tableSid)}/`, query);
const exportPath = (tableSid: string, query: Query = {}) => withQuery(`/tables/row/export/table/${encodeURIComponent(tableSid)}/`, query);

let ws: Workspace;

function postFile(api: Api, ws: Workspace, body: string | Buffer, query: Query = {}, headers: Record<string, string> = {}, contentType = 'text/csv') {
  return api.request('POST', importPath(ws.table.sid, { project__sid: ws.project.sid, ...query }), { rawBody: body, contentType, headers });
}

/** The project's rows in the export's NDJSON: what an import may have changed. */
async function state(w: Workspace = ws): Promise<string> {
  return expectStatus(await w.admin.api.get(exportPath(w.table.sid, { format: 'ndjson', project__sid: w.project.sid })), 200).text;
}

/** A CSV text of lines of fields (quoted where needed). */
const csv = (lines: string[][]) => lines.map((l) => l.map((f) => (/[",\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(',')).join('\n') + '\n';

before(async () => {
  ws = await newWorkspace({ label: 'imp', columns: { a: 'builtinWidgetTxt', b: 'builtinWidgetTxt' }, rows: 0 });
});

describe('a first import', () => {
  test('the dry run writes nothing and says what would happen; the run creates one row a line, each with one version', async () => {
    const body = csv([['name', 'description', 'Column a', 'Column b'], ['one', 'first', 'a1', ''], ['two', '', 'a2, "quoted"', 'b2\nnext']]);
    const before = await state();
    const dry = expectStatus(await postFile(ws.projectEdit.api, ws, body, { dry_run: 'true' }), 200).json;
    assert.deepEqual(dry, { dry_run: true, rows: 2, created: 2, updated: 0, unchanged: 0, cells: 3, price: '$0.00', balance: dry.balance, problem_count: 0, problems: [],
      header: [{ field: 'name', to: 'name' }, { field: 'description', to: 'description' }, { field: 'Column a', to: ws.columns.a.sid }, { field: 'Column b', to: ws.columns.b.sid }],
    });
    assert.equal(await state(), before, 'the dry run wrote nothing');
    const run = expectStatus(await postFile(ws.projectEdit.api, ws, body), 200).json;
    assert.deepEqual({ ...run, balance: undefined }, { ...dry, dry_run: false, balance: undefined });
    const lines = (await state()).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((r) => [r.name, r.description, r.version, r.cells]), [
      ['one', 'first', 1, { [ws.columns.a.sid]: 'a1' }],
      ['two', '', 1, { [ws.columns.a.sid]: 'a2, "quoted"', [ws.columns.b.sid]: 'b2\nnext' }],
    ]);
    const verified = expectStatus(await ws.admin.api.get(recordPaths.rowVerify(lines[1].sid)), 200).json;
    assert.equal(verified.is_valid, true);
    // Imported rows get their table's next uids, in the file's order, as rows created one by one do.
    const uids = [];
    for (const line of lines) uids.push(expectStatus(await ws.admin.api.get(recordPaths.rowDetail(line.sid)), 200).json.uid as string);
    assert.match(uids[0], /^[A-Z0-9]+-\d{6}$/);
    const number = (uid: string) => Number(uid.split('-').pop());
    assert.equal(number(uids[1]), number(uids[0]) + 1, `${uids}`);
  });

  test('roles: a Project View, a Member, another organization may not import; an Admin without a project role is told to take one', async () => {
    const body = csv([['name'], ['x']]);
    expectDetail(await postFile(ws.projectView.api, ws, body), 403, MESSAGES.forbidden);
    expectDetail(await postFile(ws.member.api, ws, body), 403, MESSAGES.forbidden);
    expectStatus(await postFile(ws.outsider.api, ws, body), 403);
    const admin = await postFile(ws.admin.api, ws, body);
    assert.equal(admin.status, 403);
    assert.match(admin.json.detail, /^You are not a member of this project\./);
  });
});

describe('mentions', () => {
  test('a mention in an imported value notifies as a cell edit\'s does: once, when it first appears, never the author; a dry run notifies no one', async () => {
    const w = await newWorkspace({ label: 'impm', columns: { a: 'builtinWidgetTxt', b: 'builtinWidgetTxt' }, rows: 0, allRoles: true });
    const mentionsOf = async (api: Api) => (await inbox(api, w.org.sid)).filter((n) => / mentioned you in /.test(n.name));
    const first = csv([['name', 'Column a'], ['Mentioned', `Look, @${w.projectView.personnel.sid} and @${w.projectAdmin.personnel.sid} (me)`]]);
    expectStatus(await postFile(w.projectAdmin.api, w, first, { dry_run: 'true' }), 200);
    assert.equal((await mentionsOf(w.projectView.api)).length, 0, 'a dry run notifies no one');
    expectStatus(await postFile(w.projectAdmin.api, w, first), 200);
    const [row] = (await state(w)).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const viewed = await mentionsOf(w.projectView.api);
    assert.deepEqual(viewed.map((n) => [n.name, n.rows, n.From.sid]), [[`${w.projectAdmin.personnel.name} mentioned you in Mentioned`, [{ sid: row.sid, name: 'Mentioned' }], w.projectAdmin.personnel.sid]]);
    assert.match(viewed[0].body, /^In the cell of Column a of Mentioned:\n\nLook, @/);
    assert.equal((await mentionsOf(w.projectAdmin.api)).length, 0, 'never the author');
    // The row again by its sid: the old mention stays, a new one in another cell notifies its member alone.
    const second = csv([['sid', 'name', 'Column a', 'Column b'], [row.sid, 'Mentioned', row.cells[w.columns.a.sid], `and @${w.projectEdit.email}`]]);
    expectStatus(await postFile(w.projectAdmin.api, w, second), 200);
    assert.equal((await mentionsOf(w.projectView.api)).length, 1, 'an old mention does not notify again');
    assert.equal((await mentionsOf(w.projectEdit.api)).length, 1, 'the new one does');
  });
});

describe('round trips', () => {
  test('the CSV export re-imports unchanged: no line writes, no version; one changed cell makes one version of its row', async () => {
    const exported = expectStatus(await ws.projectEdit.api.get(exportPath(ws.table.sid, { project__sid: ws.project.sid })), 200).text;
    const before = await state();
    const same = expectStatus(await postFile(ws.projectEdit.api, ws, exported), 200).json;
    assert.deepEqual([same.rows, same.created, same.updated, same.unchanged, same.cells], [2, 0, 0, 2, 0]);
    assert.equal(await state(), before, 'nothing changed, no version');
    const changed = exported.replace(',a1,', ',a1 changed,');
    const run = expectStatus(await postFile(ws.projectEdit.api, ws, changed), 200).json;
    assert.deepEqual([run.updated, run.unchanged, run.cells], [1, 1, 1]);
    const rows = (await state()).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(rows.map((r) => [r.version, r.cells[ws.columns.a.sid]]), [[2, 'a1 changed'], [1, 'a2, "quoted"']]);
  });

  test('the export of one project imports into another as the same cells (XLSX too)', async () => {
    for (const format of ['csv', 'xlsx'] as const) {
      const other = { ...ws, project: expectStatus(await ws.admin.api.post(recordPaths.projectList(ws.org.sid), { name: `Copy ${format}` }), 201).json };
      expectStatus(await ws.admin.api.post(recordPaths.memberList(other.project.sid), { personnel: ws.projectEdit.personnel.sid, permission: 'edit' }), 201);
      const res = await fetch(`${BASE_URL}${exportPath(ws.table.sid, { project__sid: ws.project.sid, format })}`, { headers: { token: ws.projectEdit.api.token! } });
      const file = Buffer.from(await res.arrayBuffer());
      const run = expectStatus(await postFile(ws.projectEdit.api, other, file, { mapping: JSON.stringify({ sid: '' }), format }, {}, 'application/octet-stream'), 200).json;
      assert.equal(run.created, 2, format);
      const cellsOf = (text: string) => text.split('\n').filter(Boolean).map((l) => { const r = JSON.parse(l); return [r.name, r.description, r.cells]; });
      assert.deepEqual(cellsOf(await state(other)), cellsOf(await state()), format);
    }
  });
});

describe('problems', () => {
  test('50 planted problems of 10 kinds: the dry run reports exactly those, by line and column, and writes nothing', async () => {
    const w = await newWorkspace({ label: 'imp50', columns: { a: 'builtinWidgetTxt', b: 'builtinWidgetTxt' }, rows: 0, allRoles: false });
    const valid = await createRow(w, { name: 'valid' });
    await createCell(w.projectAdmin.api, w.org.sid, valid.sid, w.columns.a.sid, 'kept');
    const archived: any[] = [];
    const locked: any[] = [];
    for (let i = 0; i < 5; i += 1) {
      archived.push(await createRow(w, { name: `archived ${i}` }));
      await setRowState(w, archived[i].sid, 'archived');
      locked.push(await createRow(w, { name: `locked ${i}` }));
      await setRowState(w, locked[i].sid, 'locked');
    }
    const lines: string[][] = [['sid', 'name', 'description', 'Column a', 'Column b', 'Bogus']];
    const expected: { line: number; column: string | null; problem: string }[] = [
      { line: 1, column: 'Bogus', problem: 'No column of the table is named "Bogus": map it to a column, or to "" to leave it out.' },
    ];
    const add = (fields: string[], column?: string | null, problem?: string) => {
      lines.push(fields);
      if (problem !== undefined) expected.push({ line: lines.length, column: column ?? null, problem });
    };
    add([valid.sid, 'valid', '', 'kept', '', 'ignored']);
    add(['', 'a new row', 'fine', 'x', 'y', '']);
    for (let i = 0; i < 5; i += 1) add(['', `extra ${i}`, '', '', '', '', 'seventh'], null, 'The line has 7 fields; the header has 6.');
    for (let i = 0; i < 6; i += 1) add(['', '', `no name ${i}`, '', '', ''], 'name', 'A new row needs a name.');
    for (let i = 0; i < 6; i += 1) add(['', 'n'.repeat(256 + i), '', '', '', ''], 'name', `The name has ${256 + i} characters; at most 255.`);
    for (let i = 0; i < 5; i += 1) add(['', `long description ${i}`, 'd'.repeat(10_001), '', '', ''], 'description', 'The description has 10001 characters; at most 10000.');
    for (let i = 0; i < 5; i += 1) add(['', `long value ${i}`, '', '', 'v'.repeat(100_001), ''], 'Column b', 'The value has 100001 characters; a cell holds at most 100,000.');
    for (let i = 0; i < 7; i += 1) add([`NoSuchRow${String(i).padStart(7, '0')}`, `ghost ${i}`, '', '', '', ''], 'sid', `No row with sid NoSuchRow${String(i).padStart(7, '0')} in this table and project.`);
    for (const row of archived) add([row.sid, row.name, '', '', '', ''], 'sid', `The row (${row.sid}) is archived; unarchive it before importing into it.`);
    for (const row of locked) add([row.sid, row.name, '', 'changed', '', ''], 'Column a', `The row (${row.sid}) is locked; only a widget that may be added at the read-only stage can change.`);
    const validLine = 2;
    for (let i = 0; i < 5; i += 1) add([valid.sid, 'valid', '', 'kept', '', ''], 'sid', `Line ${validLine} names the same row (${valid.sid}): a row is imported once.`);
    assert.equal(expected.length, 50);
    const before = await state(w);
    const credits = await readCredits(w.admin.api, w.org.sid);
    const dry = expectStatus(await postFile(w.projectAdmin.api, w, csv(lines), { dry_run: 'true' }), 200).json;
    assert.equal(dry.problem_count, 50);
    assert.deepEqual(dry.problems, expected);
    assert.deepEqual([dry.rows, dry.created, dry.updated, dry.unchanged], [lines.length - 1, 1, 0, 1]);
    const run = await postFile(w.projectAdmin.api, w, csv(lines));
    assert.equal(run.status, 400);
    assert.equal(run.json.file.length, 50);
    assert.equal(run.json.file[0], 'line 1, column "Bogus": No column of the table is named "Bogus": map it to a column, or to "" to leave it out.');
    assert.equal(await state(w), before, 'neither the dry run nor the refused run wrote anything');
    assert.equal(await readCredits(w.admin.api, w.org.sid), credits);
  });

  test('values are checked as a cell edit checks them: a number column takes numbers, a date column dates; a file column is not imported', async () => {
    const w = await newWorkspace({ label: 'impkind', columns: { n: 'builtinWidgetNum', d: 'builtinWidgetDat', f: 'builtinWidgetFil' }, rows: 0, allRoles: false });
    const body = csv([['name', 'Column n', 'Column d', 'Column f'], ['fine', '12.5', '2024-01-15', ''], ['bad number', 'twelve', '', ''], ['bad date', '', '15/01/2024', '']]);
    const before = await state(w);
    const dry = expectStatus(await postFile(w.projectAdmin.api, w, body, { dry_run: 'true' }), 200).json;
    assert.deepEqual(dry.problems, [
      { line: 1, column: 'Column f', problem: '"Column f" is a file column: its files are uploaded to the cell (POST /files/file/list/row/{sid}/detail/?column=…), not imported; map "Column f" to "" to leave it out.' },
      { line: 3, column: 'Column n', problem: 'Enter a number (such as 12, -0.5 or 1.2e3).' },
      { line: 4, column: 'Column d', problem: 'Enter a date as YYYY-MM-DD (such as 2024-01-15).' },
    ]);
    assert.equal(expectStatus(await postFile(w.projectAdmin.api, w, body), 400).json.file.length, 3);
    assert.equal(await state(w), before, 'nothing written');
    // Without the file column and the refused values, the line imports.
    const good = csv([['name', 'Column n', 'Column d'], ['fine', '12.5', '2024-01-15']]);
    const run = expectStatus(await postFile(w.projectAdmin.api, w, good), 200).json;
    assert.deepEqual([run.created, run.problem_count], [1, 0]);
  });

  test('a column\'s rules as on a row\'s creation: a left-out column gets its default; a required column left empty is a problem of its line and column in the row create\'s words, for a new row and for one updated by key; the run writes nothing', async () => {
    const w = await newWorkspace({ label: 'impreq', columns: { code: 'builtinWidgetTxt', lot: 'builtinWidgetTxt', status: 'builtinWidgetTxt' }, rows: 0, allRoles: false });
    expectStatus(await w.admin.api.patch(recordPaths.columnDetail(w.columns.lot.sid), { is_required: true }), 200);
    expectStatus(await w.admin.api.patch(recordPaths.columnDetail(w.columns.status.sid), { is_required: true, default_value: 'new' }), 200);
    const required = (name: string) => `This column is required: give "${name}" a value.`;
    // The row create's words, the same.
    const refusedRow = await w.projectAdmin.api.post(recordPaths.rowList(w.org.sid, 'detail', { table__sid: w.table.sid, project__sid: w.project.sid }), { name: 'no lot' });
    assert.deepEqual([refusedRow.status, refusedRow.json], [400, { [w.columns.lot.sid]: [required('Column lot')] }]);
    // Column status is left out of the header: the new row gets its default, as a row created alone does.
    const first = csv([['Column code', 'name', 'Column lot'], ['S-1', 'one', 'L1']]);
    assert.deepEqual(expectStatus(await postFile(w.projectAdmin.api, w, first, { key: 'Column code' }), 200).json.cells, 3);
    const before = await state(w);
    assert.deepEqual(before.split('\n').filter(Boolean).map((l) => JSON.parse(l).cells),
      [{ [w.columns.code.sid]: 'S-1', [w.columns.lot.sid]: 'L1', [w.columns.status.sid]: 'new' }]);

    const body = csv([
      ['Column code', 'name', 'Column lot', 'Column status'],
      ['S-1', 'one', '', 'new'], // an existing row's required cell emptied
      ['S-2', 'two', '', 'ok'], // a new row without its required lot
      ['S-3', 'three', 'L3', ''], // a new row whose required status is given empty (no default then)
      ['S-4', 'four', 'L4', 'fine'],
      ['S-5', 'five'], // a line shorter than the header
    ]);
    const dry = expectStatus(await postFile(w.projectAdmin.api, w, body, { key: 'Column code', dry_run: 'true' }), 200).json;
    assert.deepEqual(dry.problems, [
      { line: 2, column: 'Column lot', problem: required('Column lot') },
      { line: 3, column: 'Column lot', problem: required('Column lot') },
      { line: 4, column: 'Column status', problem: required('Column status') },
      { line: 6, column: 'Column lot', problem: required('Column lot') },
      { line: 6, column: 'Column status', problem: required('Column status') },
    ]);
    assert.deepEqual([dry.created, dry.updated, dry.problem_count], [1, 0, 5]);
    const run = await postFile(w.projectAdmin.api, w, body, { key: 'Column code' });
    assert.deepEqual([run.status, run.json], [400, { file: [
      `line 2, column "Column lot": ${required('Column lot')}`,
      `line 3, column "Column lot": ${required('Column lot')}`,
      `line 4, column "Column status": ${required('Column status')}`,
      `line 6, column "Column lot": ${required('Column lot')}`,
      `line 6, column "Column status": ${required('Column status')}`,
    ] }]);
    assert.equal(await state(w), before, 'all or nothing: not even line 5 was written');
    // A required column the header leaves out, without a default: each new row's problem, named by the column.
    const unmapped = expectStatus(await postFile(w.projectAdmin.api, w, csv([['name', 'Column code'], ['six', 'S-6']]), { key: 'Column code', dry_run: 'true' }), 200).json;
    assert.deepEqual(unmapped.problems, [{ line: 2, column: 'Column lot', problem: required('Column lot') }]);
    // An update that leaves the required cells as they are is fine.
    const fine = expectStatus(await postFile(w.projectAdmin.api, w, csv([['Column code', 'name'], ['S-1', 'one renamed']]), { key: 'Column code' }), 200).json;
    assert.deepEqual([fine.updated, fine.problem_count], [1, 0]);
  });

  test('not enough credits for the whole import: the dry run says the price; the run writes nothing', async () => {
    const w = await newWorkspace({ label: 'impcr', widgets: { dear: { price: '999999.00' } }, columns: { dear: 'dear' }, rows: 0, allRoles: false });
    const balance = await readCredits(w.admin.api, w.org.sid);
    const body = csv([['name', 'Column dear'], ['a', '1'], ['b', '2'], ['c', '']]);
    const dry = expectStatus(await postFile(w.projectAdmin.api, w, body, { dry_run: 'true' }), 200).json;
    assert.equal(dry.price, '$1999998.00');
    assert.deepEqual(dry.problems, [{ line: null, column: null, problem: `Not enough credits: the import costs $1999998.00 and the organization has ${balance}.` }]);
    const before = await state(w);
    const run = await postFile(w.projectAdmin.api, w, body);
    assert.deepEqual([run.status, run.json], [400, { file: [`Not enough credits: the import costs $1999998.00 and the organization has ${balance}.`] }]);
    assert.equal(await state(w), before);
  });

  test('bad input: no project, an unknown format, a mapping that is no JSON object, a file that is no CSV', async () => {
    const res = await ws.projectEdit.api.request('POST', importPath(ws.table.sid, {}), { rawBody: 'name\nx\n', contentType: 'text/csv' });
    assert.equal(res.status, 400);
    const noFormat = await postFile(ws.projectEdit.api, ws, 'name\nx\n', {}, {}, 'application/octet-stream');
    assert.deepEqual([noFormat.status, Object.keys(noFormat.json)], [400, ['format']]);
    const mapping = await postFile(ws.projectEdit.api, ws, 'name\nx\n', { mapping: '[1]' });
    assert.deepEqual([mapping.status, Object.keys(mapping.json)], [400, ['mapping']]);
    const broken = await postFile(ws.projectEdit.api, ws, 'name\n"unclosed\n', { dry_run: 'true' });
    assert.equal(broken.status, 400);
    assert.match(broken.json.file[0], /cannot be read as CSV/);
  });
});

describe('upsert, idempotency, progress', () => {
  test('upsert by a column: a matching line updates its row, the rest are created', async () => {
    const w = await newWorkspace({ label: 'impkey', columns: { code: 'builtinWidgetTxt', v: 'builtinWidgetTxt' }, rows: 0, allRoles: false });
    const first = csv([['Column code', 'name', 'Column v'], ['S-1', 'one', '1'], ['S-2', 'two', '2']]);
    expectStatus(await postFile(w.projectAdmin.api, w, first, { key: 'Column code' }), 200);
    const second = csv([['Column code', 'name', 'Column v'], ['S-2', 'two', '2 again'], ['S-3', 'three', '3']]);
    const run = expectStatus(await postFile(w.projectAdmin.api, w, second, { key: 'Column code' }), 200).json;
    assert.deepEqual([run.created, run.updated, run.unchanged], [1, 1, 0]);
    const rows = (await state(w)).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(rows.map((r) => [r.name, r.version, r.cells[w.columns.v.sid]]), [['one', 1, '1'], ['two', 2, '2 again'], ['three', 1, '3']]);
  });

  test('rows in several projects: a row whose other project is the import\'s is matched (by sid and by a column); a row of another project alone is not', async () => {
    const w = await newWorkspace({ label: 'impmp', columns: { code: 'builtinWidgetTxt', v: 'builtinWidgetTxt' }, rows: 0, allRoles: false });
    const elsewhere = expectStatus(await w.admin.api.post(recordPaths.projectList(w.org.sid), { name: 'Elsewhere' }), 201).json;
    expectStatus(await w.admin.api.post(recordPaths.memberList(elsewhere.sid), { personnel: w.projectAdmin.personnel.sid, permission: 'admin' }), 201);
    const post = (projects: string[], name: string) => w.projectAdmin.api.post(recordPaths.rowList(w.org.sid, 'detail', { table__sid: w.table.sid }), {
      name, projects: projects.map((sid) => ({ sid })),
    });
    // Both first in another project; `shared` is in the import's project too.
    const shared = expectStatus(await post([elsewhere.sid, w.project.sid], 'shared'), 201).json;
    const alone = expectStatus(await post([elsewhere.sid], 'alone'), 201).json;
    for (const [row, code] of [[shared, 'K-1'], [alone, 'K-2']] as const) await createCell(w.projectAdmin.api, w.org.sid, row.sid, w.columns.code.sid, code);
    const bySid = await postFile(w.projectAdmin.api, w, csv([['sid', 'name', 'Column v'], [shared.sid, 'shared', 'by sid'], [alone.sid, 'alone', 'no']]), { dry_run: 'true' });
    assert.deepEqual(expectStatus(bySid, 200).json.problems, [{ line: 3, column: 'sid', problem: `No row with sid ${alone.sid} in this table and project.` }]);
    const byCode = expectStatus(await postFile(w.projectAdmin.api, w, csv([['Column code', 'name', 'Column v'], ['K-1', 'shared', 'by code'], ['K-2', 'new', 'new']]), { key: 'Column code' }), 200).json;
    assert.deepEqual([byCode.updated, byCode.created], [1, 1]);
    const rows = (await state(w)).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(rows.map((r) => [r.sid === shared.sid ? 'shared' : r.sid === alone.sid ? 'alone' : 'made', r.name, r.version, r.cells[w.columns.v.sid]]), [
      ['shared', 'shared', 3, 'by code'],
      ['made', 'new', 1, 'new'],
    ], 'the row of the other project alone is neither listed nor changed');
  });

  test('Idempotency-Key: a retry gets the first answer and writes nothing more; the progress says done', async () => {
    const w = await newWorkspace({ label: 'impidem', rows: 0, allRoles: false });
    const body = csv([['name'], ['once']]);
    const headers = { 'Idempotency-Key': 'import-once-1' };
    const first = expectStatus(await postFile(w.projectAdmin.api, w, body, {}, headers), 200);
    const again = expectStatus(await postFile(w.projectAdmin.api, w, body, {}, headers), 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.json, first.json);
    assert.equal((await state(w)).split('\n').filter(Boolean).length, 1);
    const progress = expectStatus(await w.projectAdmin.api.get('/tables/row/import/progress/?key=import-once-1'), 200).json;
    assert.deepEqual(progress, { phase: 'done', rows_done: 1, rows_total: 1 });
    expectDetail(await w.admin.api.get('/tables/row/import/progress/?key=import-once-1'), 404, MESSAGES.notFound);
  });
});

describe('across batches', () => {
  test('1,203 lines (three batches of 500 and a rest) import in order; every export streams them all once, in that order', async () => {
    const w = await newWorkspace({ label: 'impbig', columns: { a: 'builtinWidgetTxt' }, rows: 0, allRoles: false });
    const lines = [['name', 'Column a'], ...Array.from({ length: 1203 }, (_, i) => [`row ${i}`, `value ${i}`])];
    const run = expectStatus(await postFile(w.projectAdmin.api, w, csv(lines)), 200).json;
    assert.deepEqual([run.rows, run.created, run.cells], [1203, 1203, 1203]);
    const rows = (await state(w)).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(rows.map((r) => [r.name, r.cells[w.columns.a.sid], r.version]), lines.slice(1).map(([name, a]) => [name, a, 1]));
    const exported = expectStatus(await w.admin.api.get(exportPath(w.table.sid)), 200).text.split('\n');
    assert.equal(exported.pop(), '');
    assert.deepEqual(exported.slice(1).map((l) => l.split(',').slice(1)), lines.slice(1).map(([name, a]) => [name, '', a]));
    // Re-imported onto its rows: every line unchanged, across the batches too.
    const again = expectStatus(await postFile(w.projectAdmin.api, w, `${exported.join('\n')}\n`), 200).json;
    assert.deepEqual([again.unchanged, again.updated, again.created], [1203, 0, 0]);
    if (DB_KIND === 'postgres') {
      // An import of 1,000 rows or more refreshed the planner's statistics of the rows (imports/repository.ts,
      // refreshStatistics): PostgreSQL's own figure of record_rows' size counts them (never analyzed, it is -1).
      await behindTheApi(null, async (run) => {
        const [{ reltuples }] = (await run(`SELECT reltuples::float8 AS reltuples FROM pg_class WHERE oid = 'record_rows'::regclass`)).rows;
        assert.ok(reltuples >= 1203, `record_rows' statistics count ${reltuples} rows`);
      });
    }
  });
});

describe('an index behind the key', () => {
  let own: RunningServer | null = null;
  let dataDir = '';
  before(async () => {
    if (DB_KIND !== 'pglite') return;
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-import-key-'));
    own = await startServer({ databaseUrl: null, dataDir });
  });
  after(async () => {
    await own?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test("a key column's values find their cells through cells_column_data_md5_idx, not by reading the column", async () => {
    let plan = '';
    own = await behindTheApi(own, async (run) => {
      // A key column of 5,000 cells (planted without their rows: the foreign keys' triggers are
      // off for this transaction, which is rolled back), so the planner weighs real figures.
      await run('BEGIN');
      try {
        await run('SET LOCAL session_replication_role = replica');
        await run(`INSERT INTO cells (sid, organization_sid, row_sid, column_sid, widget_sid, data)
                   SELECT 'keycell' || lpad(i::text, 9, '0'), 'someOrgSid000000', 'someRowSid' || i, 'someColumnSid000', 'builtinWidgetTxt', 'K-' || i
                     FROM generate_series(1, 5000) i`);
        await run('ANALYZE cells');
        // The key's condition as imports/repository.ts writes it.
        const explained = await run(
          'EXPLAIN SELECT c.row_sid FROM cells c WHERE c.column_sid = $1 AND md5(c.data) IN (md5($2), md5($3)) AND c.data IN ($2, $3)',
          ['someColumnSid000', 'K-1', 'K-2'],
        );
        plan = explained.rows.map((r: any) => r['QUERY PLAN']).join('\n');
      } finally {
        await run('ROLLBACK');
      }
    });
    assert.match(plan, /cells_column_data_md5_idx/, plan);
  });
});

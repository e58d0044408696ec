// Exports (issue 26): GET /tables/row/export/table/{sid}/?format=csv|xlsx|ndjson — a
// table's rows, oldest first, as the caller may read them (the grid's rules), with the
// columns' names as the header, filtered as the grid filters; exact bodies.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import { BASE_URL } from '../helpers/env.ts';
import { anonymous, withQuery, type Api, type Query } from '../helpers/http.ts';
import { MESSAGES, expectDetail, expectFieldErrors, expectPlainText, expectStatus } from '../helpers/assertions.ts';
import { createCell, createRow, newWorkspace, recordPaths, setRowState, type Workspace } from '../helpers/records.ts';

const exportPath = (tableSid: string, query?: Query) => withQuery(`/tables/row/export/table/${encodeURIComponent(tableSid)}/`, query);

let ws: Workspace;
let project2: any;
const rows: Record<string, any> = {};
/** Values a CSV must quote: a comma, quotes, a newline, leading spaces, a formula-like text, non-ASCII. */
const TRICKY = 'a, "quoted"\nsecond line';

before(async () => {
  ws = await newWorkspace({ label: 'exp', columns: { a: 'builtinWidgetTxt', b: 'builtinWidgetTxt' }, rows: 0 });
  const api = ws.projectAdmin.api;
  rows.alpha = await createRow(ws, { name: 'alpha', description: 'first' });
  await createCell(api, ws.org.sid, rows.alpha.sid, ws.columns.a.sid, TRICKY);
  await createCell(api, ws.org.sid, rows.alpha.sid, ws.columns.b.sid, '=1+1');
  rows.beta = await createRow(ws, { name: 'beta, the second' });
  await createCell(api, ws.org.sid, rows.beta.sid, ws.columns.b.sid, '  ünïcödé ✓ 🧪');
  rows.gamma = await createRow(ws, { name: 'gamma' });
  await setRowState(ws, rows.gamma.sid, 'archived');
  project2 = expectStatus(await ws.admin.api.post(recordPaths.projectList(ws.org.sid), { name: 'Second project' }), 201).json;
  expectStatus(await ws.admin.api.post(recordPaths.memberList(project2.sid), { personnel: ws.admin.personnel.sid, permission: 'edit' }), 201);
  rows.delta = await createRow({ ...ws, project: project2 }, { name: 'delta' }, ws.admin.api);
});

const header = () => `sid,name,description,Column a,Column b\n`;

describe('CSV', () => {
  test('a header of sid, name, description and the columns\' names; one line a row, oldest first, quoted as RFC 4180 quotes', async () => {
    const res = expectStatus(await ws.admin.api.get(exportPath(ws.table.sid)), 200);
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="${ws.table.name}.csv"`);
    assert.equal(res.text, header()
      + `${rows.alpha.sid},alpha,first,"a, ""quoted""\nsecond line",=1+1\n`
      + `${rows.beta.sid},"beta, the second",,,  ünïcödé ✓ 🧪\n`
      + `${rows.gamma.sid},gamma,,,\n`
      + `${rows.delta.sid},delta,,,\n`);
  });

  test('the grid\'s filters: project__sid, is_archived, search', async () => {
    const inProject = expectStatus(await ws.admin.api.get(exportPath(ws.table.sid, { project__sid: project2.sid })), 200);
    assert.equal(inProject.text, `${header()}${rows.delta.sid},delta,,,\n`);
    const archived = expectStatus(await ws.admin.api.get(exportPath(ws.table.sid, { is_archived: true })), 200);
    assert.equal(archived.text, `${header()}${rows.gamma.sid},gamma,,,\n`);
    const search = expectStatus(await ws.admin.api.get(exportPath(ws.table.sid, { search: 'ALPH', format: 'csv' })), 200);
    assert.equal(search.text.split('\n')[1].slice(0, 40), `${rows.alpha.sid},alpha,first,"a, ""quoted""`.slice(0, 40));
    assert.equal(search.text.split(/\n(?=\w{16},)/).length, 2, 'the header and one row');
  });

  test('roles: an Admin reads every row; project members the rows of their projects; a Member without a project none', async () => {
    const sids = async (api: Api) => expectStatus(await api.get(exportPath(ws.table.sid, { format: 'ndjson' })), 200).text
      .split('\n').filter(Boolean).map((line) => JSON.parse(line).sid);
    assert.deepEqual(await sids(ws.admin.api), [rows.alpha.sid, rows.beta.sid, rows.gamma.sid, rows.delta.sid]);
    for (const api of [ws.projectAdmin.api, ws.projectEdit.api, ws.projectView.api]) {
      assert.deepEqual(await sids(api), [rows.alpha.sid, rows.beta.sid, rows.gamma.sid]);
    }
    assert.deepEqual(await sids(ws.member.api), []);
    assert.equal(expectStatus(await ws.member.api.get(exportPath(ws.table.sid)), 200).text, header(), 'the header alone');
    expectDetail(await ws.alumni.api.get(exportPath(ws.table.sid)), 403, MESSAGES.forbidden);
    expectStatus(await ws.outsider.api.get(exportPath(ws.table.sid)), 403);
    expectDetail(await anonymous.get(exportPath(ws.table.sid)), 401, MESSAGES.notAuthenticated);
  });

  test('bad input: an unknown format (400), a malformed table sid (406), another method (405)', async () => {
    expectFieldErrors(await ws.admin.api.get(exportPath(ws.table.sid, { format: 'pdf' })), ['format']);
    expectPlainText(await ws.admin.api.get(exportPath('nope')), 406, MESSAGES.wrongId);
    expectStatus(await ws.admin.api.post(exportPath(ws.table.sid), {}), 405);
  });
});

describe('NDJSON', () => {
  test('one object a line: the row\'s fields and its cells by column sid', async () => {
    const res = expectStatus(await ws.projectView.api.get(exportPath(ws.table.sid, { format: 'ndjson' })), 200);
    assert.equal(res.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
    const grid = expectStatus(await ws.projectView.api.get(withQuery(`/tables/row/list/table/${ws.table.sid}/grid/`, { page_size: 100 })), 200).json.results;
    const expected = grid.map((r: any) => JSON.stringify({
      sid: r.sid, name: r.name, description: r.description, project: r.project, is_locked: r.is_locked, is_archived: r.is_archived,
      version: r.version, hash: r.hash, date_created: r.date_created, date_updated: r.date_updated,
      cells: Object.fromEntries(Object.entries(r.cells).map(([column, cell]: [string, any]) => [column, cell.data])),
    }));
    assert.equal(res.text, expected.map((line: string) => `${line}\n`).join(''));
    assert.equal(expected.length, 3);
  });
});

describe('XLSX', () => {
  test('one worksheet: the same header and lines as the CSV, every value a string', async () => {
    const res = await fetch(`${BASE_URL}${exportPath(ws.table.sid, { format: 'xlsx' })}`, { headers: { token: ws.admin.api.token! } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await res.arrayBuffer());
    assert.equal(workbook.worksheets.length, 1);
    const sheet = workbook.worksheets[0];
    const lines: unknown[][] = [];
    // An empty value is an empty cell (absent from the sheet's XML): read as ''.
    sheet.eachRow({ includeEmpty: true }, (row) => lines.push([1, 2, 3, 4, 5].map((i) => {
      const value = row.getCell(i).value;
      assert.ok(value === null || typeof value === 'string', `a string or nothing: ${String(value)}`);
      return value ?? '';
    })));
    assert.deepEqual(lines, [
      ['sid', 'name', 'description', 'Column a', 'Column b'],
      [rows.alpha.sid, 'alpha', 'first', TRICKY, '=1+1'],
      [rows.beta.sid, 'beta, the second', '', '', '  ünïcödé ✓ 🧪'],
      [rows.gamma.sid, 'gamma', '', '', ''],
      [rows.delta.sid, 'delta', '', '', ''],
    ]);
  });
});

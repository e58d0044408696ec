// The grid's Export menu (issue 26): a person opens it and downloads the rows as XLSX and
// CSV; the files hold the table's header and the rows as the grid shows them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import ExcelJS from 'exceljs';
import type { Browser } from 'playwright-core';
import { expectStatus } from '../helpers/assertions.ts';
import { recordPaths } from '../helpers/records.ts';
import { launchBrowser, newPerson, newWorkspaceAt, pageProblems, screenshot, signInContext, type Workspace } from './lib.ts';
import { BASE_URL } from '../helpers/env.ts';

let browser: Browser;
let ws: Workspace;
let row: any;

before(async () => {
  ws = await newWorkspaceAt(BASE_URL, 'export');
  const api = ws.admin.api;
  row = expectStatus(await api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name: 'Specimen 1' }), 201).json;
  expectStatus(await api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), { column: ws.columns[0].sid, data: 'blood, 5 ml' }), 201);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
});

test('Export on the grid: the rows download as XLSX and as CSV', async () => {
  const { context, page } = await newPerson(browser);
  await signInContext(context, ws.admin);
  await page.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}/rows?project=${ws.project.sid}`);
  await page.getByRole('rowheader', { name: 'Specimen 1' }).waitFor();
  await page.getByRole('button', { name: 'Export' }).click();
  const [xlsx] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Rows as XLSX' }).click()]);
  assert.equal(xlsx.suggestedFilename(), `${ws.table.name}.xlsx`);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile((await xlsx.path())!);
  const lines: unknown[][] = [];
  workbook.worksheets[0].eachRow((r) => lines.push([1, 2, 3, 4, 5].map((i) => r.getCell(i).value ?? '')));
  assert.deepEqual(lines, [['sid', 'name', 'description', 'Sample', 'Note'], [row.sid, 'Specimen 1', '', 'blood, 5 ml', '']]);
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Rows as CSV' }).click()]);
  assert.equal(fs.readFileSync((await csv.path())!, 'utf8'), `sid,name,description,Sample,Note\n${row.sid},Specimen 1,,"blood, 5 ml",\n`);
  await context.close();
});

test('Import on the grid: a CSV is checked (problems by line and column, the price), mapped, checked again and imported; the rows export as XLSX', async () => {
  const w = await newWorkspaceAt(BASE_URL, 'import');
  const { context, page } = await newPerson(browser);
  await signInContext(context, w.admin);
  await page.goto(`/o/${w.org.sid}/tables/${w.table.sid}/rows?project=${w.project.sid}`);
  await page.getByRole('button', { name: 'Import' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import rows from a file' });
  // Specimen and Remarks are no column's names (so no line has a name); line 4's Specimen is empty.
  const first = 'Specimen,Sample,Remarks\nS-1,"blood, 5 ml",fresh\nS-2,plasma,\n,serum,no name\n';
  await dialog.getByLabel('File to import (CSV or XLSX)').setInputFiles({ name: 'specimens.csv', mimeType: 'text/csv', buffer: Buffer.from(first) });
  const problems = dialog.getByRole('table');
  await problems.getByText('5 problems').waitFor();
  const rowsOf = async () => (await problems.getByRole('row').allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim()));
  assert.deepEqual(await rowsOf(), [
    ['Line', 'Column', 'Problem'],
    ['1', 'Specimen', 'No column of the table is named "Specimen": map it to a column, or to "" to leave it out.'],
    ['1', 'Remarks', 'No column of the table is named "Remarks": map it to a column, or to "" to leave it out.'],
    ['2', 'name', 'A new row needs a name.'],
    ['3', 'name', 'A new row needs a name.'],
    ['4', 'name', 'A new row needs a name.'],
  ]);
  assert.equal(await dialog.getByLabel('Sample').inputValue(), w.columns[0].sid, 'Sample maps to its column by name');
  await screenshot(page, 'import-check');
  assert.equal(await dialog.getByRole('button', { name: 'Import 3 lines' }).isDisabled(), true);
  // The mapping: Specimen is the row's name, Remarks goes to Note.
  await dialog.getByLabel('Specimen').selectOption({ label: 'Row name' });
  await dialog.getByLabel('Remarks').selectOption({ label: 'Column Note' });
  assert.equal(await dialog.getByRole('button', { name: 'Import 3 lines' }).isDisabled(), true, 'a changed mapping is checked first');
  await dialog.getByRole('button', { name: 'Check again' }).click();
  await problems.getByText('1 problem:').waitFor();
  assert.deepEqual((await rowsOf()).slice(1), [['4', 'Specimen', 'A new row needs a name.']]);
  // The corrected file keeps the mapping.
  const fixed = 'Specimen,Sample,Remarks\nS-1,"blood, 5 ml",fresh\nS-2,plasma,\nS-3,serum,no name\n';
  await dialog.getByLabel('File to import (CSV or XLSX)').setInputFiles({ name: 'specimens-fixed.csv', mimeType: 'text/csv', buffer: Buffer.from(fixed) });
  await dialog.getByText('3 lines: 3 new rows, 0 updated, 0 unchanged. Price $0.00').waitFor();
  assert.equal(await problems.count(), 0);
  assert.equal(await dialog.getByLabel('Remarks').inputValue(), w.columns[1].sid);
  await screenshot(page, 'import-mapped');
  await dialog.getByRole('button', { name: 'Import 3 lines' }).click();
  await dialog.getByText('Imported 3 lines: 3 new rows, 0 updated, 0 unchanged; 5 cells written for $0.00.').waitFor();
  await screenshot(page, 'import-done');
  await dialog.getByRole('button', { name: 'Close' }).click();
  for (const name of ['S-1', 'S-2', 'S-3']) await page.getByRole('rowheader', { name }).waitFor();
  assert.deepEqual(pageProblems(page), []);

  await page.getByRole('button', { name: 'Export' }).click();
  const [xlsx] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Rows as XLSX' }).click()]);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile((await xlsx.path())!);
  const lines: unknown[][] = [];
  workbook.worksheets[0].eachRow((r) => lines.push([2, 3, 4, 5].map((i) => r.getCell(i).value ?? '')));
  assert.deepEqual(lines, [
    ['name', 'description', 'Sample', 'Note'],
    ['S-1', '', 'blood, 5 ml', 'fresh'],
    ['S-2', '', 'plasma', ''],
    ['S-3', '', 'serum', 'no name'],
  ]);
  await context.close();
});

test('Export on a project: the whole project downloads as .eln', async () => {
  const { context, page } = await newPerson(browser);
  await signInContext(context, ws.admin);
  await page.goto(`/o/${ws.org.sid}/projects/${ws.project.sid}`);
  const [eln] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export the project as .eln' }).click()]);
  assert.match(eln.suggestedFilename(), /\.eln$/);
  const bytes = fs.readFileSync((await eln.path())!);
  assert.equal(bytes.subarray(0, 2).toString('latin1'), 'PK', 'a zip');
  assert.ok(bytes.includes(Buffer.from('ro-crate-metadata.json')));
  await context.close();
});

// The grid's Export menu (issue 26): a person opens it and downloads the rows as XLSX and
// CSV; the files hold the table's header and the rows as the grid shows them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import ExcelJS from 'exceljs';
import type { Browser } from 'playwright-core';
import { expectStatus } from '../helpers/assertions.ts';
import { recordPaths } from '../helpers/records.ts';
import { launchBrowser, newPerson, newWorkspaceAt, signInContext, type Workspace } from './lib.ts';
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

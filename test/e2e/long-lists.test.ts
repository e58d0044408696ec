// Lists longer than one page of the API (100) are offered whole where the app offers a
// choice or a table's make-up: a table's columns on its screen and in the grid, the
// widgets behind them, and the workflows the grid's "Run workflow" offers. Before, each
// of these asked for the first 100 and quietly left the rest out.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { BASE_URL } from '../helpers/env.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { recordPaths } from '../helpers/records.ts';
import { launchBrowser, newPerson, newWorkspaceAt, pageProblems, signInContext, type Workspace } from './lib.ts';

const COLUMNS = 105;
const WORKFLOWS = 103;
const name = (n: number) => `Column ${String(n).padStart(3, '0')}`;
let browser: Browser;
let ws: Workspace;
let rowSid = '';

before(async () => {
  browser = await launchBrowser();
  ws = await newWorkspaceAt(BASE_URL, 'long', [name(1)]);
  const api = ws.admin.api;
  // The rest of the columns, the last through a widget of the organization's own (made after the 100th).
  for (let n = 2; n < COLUMNS; n += 1) {
    expectStatus(await api.post(recordPaths.columnList(ws.org.sid, 'detail', { table__sid: ws.table.sid }), { name: name(n), widget: 'builtinWidgetTxt', order: n - 1 }), 201);
  }
  for (let n = 1; n <= 100; n += 1) {
    expectStatus(await api.post(`/widgets/widget/list/organization/${ws.org.sid}/detail/`, { name: `Widget ${String(n).padStart(3, '0')}`, price: '0.50' }), 201);
  }
  expectStatus(await api.post(recordPaths.columnList(ws.org.sid, 'detail', { table__sid: ws.table.sid }), {
    name: name(COLUMNS), widget: expectStatus(await api.get(`/widgets/widget/list/organization/${ws.org.sid}/list/?page=2&page_size=100`), 200).json.results.at(-1).sid, order: COLUMNS - 1,
  }), 201);
  for (let n = 1; n <= WORKFLOWS; n += 1) {
    expectStatus(await api.post(`/tables/workflow/list/organization/${ws.org.sid}/detail/`, { name: `Workflow ${String(n).padStart(3, '0')}` }), 201);
  }
  rowSid = expectStatus(await api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name: 'Plate 1' }), 201).json.sid;
});

after(async () => {
  await browser?.close();
});

test('a table of 105 columns: its screen lists every column with its price, and the grid has them all', async () => {
  const { context, page } = await newPerson(browser);
  await signInContext(context, ws.admin);
  await page.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}`);
  const columns = page.getByRole('table', { name: /^Columns of/ });
  await columns.waitFor();
  const names = await columns.locator('tbody th').allTextContents();
  assert.deepEqual(names, Array.from({ length: COLUMNS }, (_v, i) => name(i + 1)));
  // The last column's widget is on the widgets' second page: its price is known, not "…".
  assert.deepEqual(await columns.getByRole('row', { name: new RegExp(`^${COLUMNS - 1} ${name(COLUMNS)} `) }).locator('td').allTextContents(), [String(COLUMNS - 1), 'Widget 100', '$0.50']);

  await page.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}/rows?project=${ws.project.sid}`);
  const grid = page.getByRole('grid', { name: /Rows of/ });
  await page.getByRole('rowheader', { name: 'Plate 1' }).waitFor();
  assert.equal(await grid.getAttribute('aria-colcount'), String(COLUMNS + 1));
  assert.equal(await grid.getByRole('columnheader').count(), COLUMNS + 1);
  await grid.getByRole('columnheader', { name: `${name(COLUMNS)} · $0.50 a write` }).waitFor();
  assert.deepEqual(pageProblems(page), []);
  await context.close();
});

test('103 workflows for any table: "Run workflow" offers every one of them', async () => {
  const { context, page } = await newPerson(browser);
  await signInContext(context, ws.admin);
  await page.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}/rows?project=${ws.project.sid}`);
  await page.getByRole('rowheader', { name: 'Plate 1' }).click();
  await page.getByRole('button', { name: 'Run workflow' }).click();
  const dialog = page.getByRole('dialog', { name: 'Run a workflow on Plate 1' });
  const options = await dialog.getByLabel('Workflow').locator('option').allTextContents();
  assert.deepEqual(options, Array.from({ length: WORKFLOWS }, (_v, i) => `Workflow ${String(i + 1).padStart(3, '0')}`));
  await dialog.getByLabel('Workflow').selectOption({ label: `Workflow ${WORKFLOWS}` });
  await dialog.getByRole('button', { name: 'Run' }).click();
  await page.getByRole('heading', { name: `Workflow ${WORKFLOWS} on Plate 1` }).waitFor();
  assert.match(page.url(), /\/executions\/[^/?]+/);
  const executions = expectStatus(await ws.admin.api.get(`/tables/execution/list/organization/${ws.org.sid}/list/?row__sid=${rowSid}`), 200).json;
  assert.equal(executions.count, 1, 'the run started one execution');
  assert.deepEqual(pageProblems(page), []);
  await context.close();
});

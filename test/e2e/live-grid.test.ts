// Two people in two browser contexts open the same grid (issue 14, point 2). One edits a
// cell, renames and locks a row: the other's grid shows it live (a locked row read-only),
// and the other's open history of that row shows the new version live. On PostgreSQL the
// two people talk to different server processes (the second person to a second server on
// the same database). A cell the other is editing is not overwritten: the change is shown
// with who made it, and they keep theirs or take the new one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { expectStatus } from '../helpers/assertions.ts';
import pg from 'pg';
import { BASE_URL, DB_KIND, TEST_DATABASE_URL } from '../helpers/env.ts';
import { listVersions, recordPaths } from '../helpers/records.ts';
import { groupListensOn, startServer, type RunningServer } from '../helpers/server.ts';
import {
  assertAccessible, launchBrowser, newAccount, newPerson, newWorkspaceAt, pageProblems, screenshot, signInContext, type Account, type Workspace,
} from './lib.ts';

/**
 * Live, not timed: a change shows on the other screen without a reload, waited for up to
 * SHOWN_MS on a shared machine (how fast is the bench's: `npm run bench -- --live`).
 */
const SHOWN_MS = 15_000;

let browser: Browser;
let second: RunningServer | null = null;
let ws: Workspace;
let grace: Account;
let ada: Page;
let gracePage: Page;
let rowSid = '';
let rowName = 'Sample 1';

const cell = (page: Page, row: string, column: string) => page.getByRole('gridcell', { name: `${column} of ${row}` });
const valueOf = (page: Page, row: string, column: string) => cell(page, row, column).locator('.cell-value');

/** Waits until `page` shows `text` in the cell, within `ms`; returns how long it took. */
async function shows(page: Page, row: string, column: string, text: string, ms = SHOWN_MS): Promise<number> {
  const started = Date.now();
  await page.waitForFunction(
    ({ name, text }) => document.querySelector(`[role=gridcell][aria-label="${name}"] .cell-value`)?.textContent === text,
    { name: `${column} of ${row}`, text },
    { timeout: ms },
  );
  return Date.now() - started;
}

/** Ada edits a cell in her grid with the keyboard; resolves when the API has answered the write. */
async function adaWrites(row: string, column: string, text: string) {
  await cell(ada, row, column).click();
  await ada.keyboard.press('Enter');
  await ada.getByRole('textbox', { name: `${column} of ${row}` }).fill(text);
  const answered = ada.waitForResponse((res) => /\/tables\/cell\//.test(res.url()) && ['PATCH', 'POST'].includes(res.request().method()));
  await ada.keyboard.press('Enter');
  const res = await answered;
  assert.ok(res.status() < 300, `Ada's write answered ${res.status()}`);
}

before(async () => {
  browser = await launchBrowser();
  // PostgreSQL: Grace's browser talks to a second server on the same database, so her
  // stream and her writes are served by other processes than Ada's. PGlite: one process.
  if (DB_KIND === 'postgres') second = await startServer();
  ws = await newWorkspaceAt(BASE_URL, 'livegrid', ['Sample', 'Note']);
  grace = await newAccount(BASE_URL, 'livegrace', 'Grace', 'Hopper');
  const api = ws.admin.api;
  const personnel = expectStatus(await api.post(`/organizations/personnel/list/organization/${ws.org.sid}/detail/`, { email: grace.email }), 201).json;
  expectStatus(await api.post(recordPaths.memberList(ws.project.sid), { personnel: personnel.sid, permission: 'edit' }), 201, 'Grace: Project Edit');
  const row = expectStatus(await api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name: rowName }), 201).json;
  rowSid = row.sid;
  expectStatus(await api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), { column: ws.columns[1].sid, data: 'first note' }), 201);

  const a = await newPerson(browser, BASE_URL);
  await signInContext(a.context, ws.admin);
  ada = a.page;
  const g = await newPerson(browser, second?.baseUrl ?? BASE_URL);
  await signInContext(g.context, grace);
  gracePage = g.page;
  const grid = `/o/${ws.org.sid}/tables/${ws.table.sid}/rows?project=${ws.project.sid}`;
  for (const page of [ada, gracePage]) {
    await page.goto(grid);
    await page.getByRole('status').filter({ hasText: 'Live: changes by others show here as they happen.' }).waitFor();
    await cell(page, rowName, 'Note').waitFor();
  }
});

after(async () => {
  await browser?.close();
  await second?.stop();
});

describe('two people on the same grid', () => {
  // Two processes share a database only on PostgreSQL: registered in that pass alone.
  if (DB_KIND === 'postgres') test('the two browsers are served by different server processes (PostgreSQL)', async () => {
    assert.notEqual(new URL(ada.url()).port, new URL(gracePage.url()).port, 'different servers');
    assert.equal(new URL(gracePage.url()).port, String(second!.port));
    // The second server is a process group of its own, listening on Grace's port (and not on Ada's).
    assert.equal(groupListensOn(second!.pid, second!.port), true, "the second server's processes serve Grace's port");
    assert.equal(groupListensOn(second!.pid, Number(new URL(ada.url()).port)), false, "and not Ada's");
  });

  test("a cell Ada edits shows in Grace's grid without a reload", async (t) => {
    const url = gracePage.url();
    await adaWrites(rowName, 'Sample', 'Alpha');
    t.diagnostic(`shown ${await shows(gracePage, rowName, 'Sample', 'Alpha')} ms after Ada's write was answered`);
    assert.equal(gracePage.url(), url, 'no navigation');
  });

  test("a row Ada renames and locks shows live in Grace's grid; locked, it is read-only there", async () => {
    await cell(ada, rowName, 'Sample').click();
    await ada.getByRole('button', { name: 'Rename row' }).click();
    await ada.getByLabel('Row name').fill('Sample 1b');
    await ada.getByRole('dialog').getByRole('button', { name: 'Rename' }).click();
    rowName = 'Sample 1b';
    await gracePage.getByRole('rowheader', { name: rowName }).waitFor({ timeout: SHOWN_MS });

    await cell(ada, rowName, 'Sample').click();
    await ada.getByRole('button', { name: 'Lock row' }).click();
    const lockedBadge = gracePage.getByRole('rowheader', { name: rowName }).locator('.badge', { hasText: 'Locked' });
    await lockedBadge.waitFor({ timeout: SHOWN_MS });
    assert.equal(await cell(gracePage, rowName, 'Note').getAttribute('aria-readonly'), 'true', 'the locked row is read-only for Grace');
    await cell(gracePage, rowName, 'Note').click();
    await gracePage.keyboard.press('Enter');
    await gracePage.getByRole('status').filter({ hasText: 'This row is locked: its cells cannot change.' }).waitFor();
    assert.equal(await gracePage.getByRole('textbox', { name: `Note of ${rowName}` }).count(), 0, 'no editor opens');
    assert.ok(await gracePage.getByRole('button', { name: 'Rename row' }).isDisabled(), 'Rename is disabled for the locked row');

    await ada.getByRole('button', { name: 'Unlock row' }).click();
    await lockedBadge.waitFor({ state: 'detached', timeout: SHOWN_MS });
    assert.equal(await cell(gracePage, rowName, 'Note').getAttribute('aria-readonly'), null, 'unlocked: editable again');
  });

  test("Grace's open history of the row shows Ada's new version live", async () => {
    const history = await gracePage.context().newPage();
    await history.goto(`/o/${ws.org.sid}/rows/${rowSid}`);
    await history.getByRole('heading', { name: `History of ${rowName}` }).waitFor();
    await history.getByRole('status').filter({ hasText: 'Live: changes by others show here as they happen.' }).waitFor();
    const before = (await listVersions(ws.admin.api, ws.org.sid, rowSid)).length;
    await adaWrites(rowName, 'Note', 'second note');
    await history.getByRole('rowheader', { name: String(before + 1), exact: true }).waitFor({ timeout: SHOWN_MS });
    await history.getByRole('status').filter({ hasText: `Version ${before + 1}, just now: Ada Tester changed Note.` }).waitFor();
    const newest = history.locator('tr', { has: history.getByRole('rowheader', { name: String(before + 1), exact: true }) });
    assert.match((await newest.textContent()) ?? '', /Changed the cell of Note/);
    await assertAccessible(history, 'the history with a live change');
    await history.close();
  });

  test("a cell Grace is editing is not overwritten: she sees Ada's value and who, and keeps hers", async () => {
    await cell(gracePage, rowName, 'Note').click();
    await gracePage.keyboard.press('Enter');
    const editor = gracePage.getByRole('textbox', { name: `Note of ${rowName}` });
    await editor.fill('grace draft');
    await adaWrites(rowName, 'Note', 'ada meanwhile');
    const conflict = cell(gracePage, rowName, 'Note').getByRole('alert');
    await conflict.waitFor({ timeout: SHOWN_MS });
    assert.equal(await conflict.locator('span').first().textContent(), 'Ada Tester changed this cell meanwhile to “ada meanwhile”. Yours is “grace draft”.');
    assert.equal(await editor.inputValue(), 'grace draft', 'her draft is untouched');
    assert.equal(await gracePage.evaluate(() => document.activeElement?.getAttribute('aria-label')), `Note of ${rowName}`, 'the cursor stays in her editor');
    await gracePage.setViewportSize({ width: 1280, height: 800 });
    await screenshot(gracePage, 'grid-live-conflict');
    await assertAccessible(gracePage, 'the grid with a cell changed meanwhile');
    // Enter keeps hers and saves it; Ada's grid shows it live.
    await gracePage.keyboard.press('Enter');
    await shows(gracePage, rowName, 'Note', 'grace draft');
    await shows(ada, rowName, 'Note', 'grace draft');
    const latest = (await listVersions(ws.admin.api, ws.org.sid, rowSid)).at(-1);
    assert.equal(latest.data.cells[ws.columns[1].sid], 'grace draft');
  });

  test("leaving the grid closes its stream; the history opened instead has its own", async () => {
    const streams = new Map<string, 'open' | 'closed'>();
    const watch = (request: { url(): string }) => request.url().includes('/tables/row/stream/');
    gracePage.on('request', (request) => watch(request) && streams.set(request.url(), 'open'));
    gracePage.on('requestfailed', (request) => watch(request) && streams.set(request.url(), 'closed'));
    gracePage.on('requestfinished', (request) => watch(request) && streams.set(request.url(), 'closed'));
    // The grid's stream is already open: reload it so its request is seen.
    await gracePage.reload();
    await gracePage.getByRole('status').filter({ hasText: 'Live: changes by others show here as they happen.' }).waitFor();
    const gridStream = [...streams.keys()].find((url) => !url.includes('row__sid'));
    assert.ok(gridStream, 'the grid opened its stream');
    await cell(gracePage, rowName, 'Sample').click();
    await gracePage.getByRole('link', { name: `History of ${rowName}` }).click();
    await gracePage.getByRole('status').filter({ hasText: 'Live: changes by others show here as they happen.' }).waitFor();
    for (let i = 0; i < 50 && streams.get(gridStream) !== 'closed'; i += 1) await gracePage.waitForTimeout(100);
    assert.equal(streams.get(gridStream), 'closed', 'the grid\'s stream was closed');
    const historyStream = [...streams.entries()].find(([url]) => url.includes(`row__sid=${rowSid}`));
    assert.deepEqual(historyStream?.[1], 'open', 'the history\'s stream is open');
    await gracePage.goBack();
    await cell(gracePage, rowName, 'Note').waitFor();
    await gracePage.getByRole('status').filter({ hasText: 'Live: changes by others show here as they happen.' }).waitFor();
  });

  test('or she takes the new value: Escape leaves Ada\'s, and nothing of hers is written', async () => {
    await cell(gracePage, rowName, 'Note').click();
    await gracePage.keyboard.press('Enter');
    await gracePage.getByRole('textbox', { name: `Note of ${rowName}` }).fill('grace again');
    await adaWrites(rowName, 'Note', 'ada wins');
    await cell(gracePage, rowName, 'Note').getByRole('alert').filter({ hasText: 'Ada Tester changed this cell meanwhile to “ada wins”.' }).waitFor({ timeout: SHOWN_MS });
    const versions = (await listVersions(ws.admin.api, ws.org.sid, rowSid)).length;
    await gracePage.getByRole('button', { name: 'Take theirs (Escape)' }).click();
    await shows(gracePage, rowName, 'Note', 'ada wins');
    await gracePage.waitForTimeout(500);
    assert.equal((await listVersions(ws.admin.api, ws.org.sid, rowSid)).length, versions, 'no write of hers');
    assert.equal(await valueOf(ada, rowName, 'Note').textContent(), 'ada wins');
    assert.deepEqual([...pageProblems(ada), ...pageProblems(gracePage)], [], 'no page errors');
  });

  // Each process sends the events of its committed writes itself (db/after-commit.ts), so two
  // processes' events of one row may arrive out of order: an event older than what a cell
  // shows is left out. The events are sent here as a process would, on the run's database.
  if (DB_KIND === 'postgres') test('a change older than what a cell shows is left out; a newer one shows', async () => {
    const row = expectStatus(await ws.admin.api.get(recordPaths.rowDetail(rowSid)), 200).json;
    const [sample, note] = [ws.columns[0].sid, ws.columns[1].sid].map((column) => row.column_set.find((c: any) => c.column.sid === column));
    assert.equal(sample.data, 'Alpha');
    const event = (cell: any, version: number, data: string) => JSON.stringify({
      kind: 'cell', organization: ws.org.sid, table: ws.table.sid, project: ws.project.sid, projects: [ws.project.sid], row: rowSid, open: false,
      version, by: null, date_updated: new Date().toISOString(), cell: cell.sid, column: cell.column.sid, created: false, data, data_omitted: false,
    });
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL! });
    await client.connect();
    try {
      // Version 2 is the row's first cell ('first note'): every page the grid read since is of a later version.
      await client.query("SELECT pg_notify('records_rows', $1)", [event(sample, 2, 'stale value')]);
      await client.query("SELECT pg_notify('records_rows', $1)", [event(note, row.version + 1, 'newer value')]);
    } finally {
      await client.end();
    }
    await shows(gracePage, rowName, 'Note', 'newer value');
    assert.equal(await valueOf(gracePage, rowName, 'Sample').textContent(), 'Alpha', 'the older change was left out');
  });
});

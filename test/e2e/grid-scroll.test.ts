// The grid scrolls a 100,000-row table without loading it whole: the rows are inserted
// behind the API (one statement, not 100,000 requests), the grid shows the first and the
// last rows and the middle, and only the pages in view are requested, 100 rows each.
//
// PostgreSQL: the harness's server, the rows inserted with `pg`. PGlite (in the server's
// process): a server of this file's own, stopped for the insert and started again.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Request } from 'playwright-core';
import { behindTheApi } from '../helpers/behind.ts';
import { BASE_URL, DB_KIND } from '../helpers/env.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { assertAccessible, launchBrowser, newPerson, newWorkspaceAt, pageProblems, signInContext, type Workspace } from './lib.ts';

const ROWS = 100_000;
let server: RunningServer | null = null;
let dataDir = '';
let browser: Browser;
let ws: Workspace;

before(async () => {
  if (DB_KIND === 'pglite') {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-e2e-scroll-'));
    server = await startServer({ databaseUrl: null, dataDir });
  }
  ws = await newWorkspaceAt(server?.baseUrl ?? BASE_URL, 'scroll', undefined, server?.dataDir);
  const prefix = randomBytes(3).toString('hex').slice(0, 4);
  server = await behindTheApi(server, async (run) => {
    await run(
      `INSERT INTO record_rows (sid, organization_sid, table_sid, project_sid, name, description, created_by, date_created, date_updated)
       SELECT $1 || lpad(n::text, 12, '0'), $2, $3, $4, 'Row ' || lpad(n::text, 6, '0'), '', $5,
              now() + n * interval '1 microsecond', now() + n * interval '1 microsecond'
         FROM generate_series(1, $6::int) n`,
      [prefix, ws.org.sid, ws.table.sid, ws.project.sid, ws.admin.sid, ROWS],
    );
    await run(
      `INSERT INTO cells (sid, organization_sid, row_sid, column_sid, widget_sid, data, created_by, updated_by)
       SELECT $1 || 'c' || lpad(n::text, 11, '0'), $2, $1 || lpad(n::text, 12, '0'), $3, 'builtinWidgetTxt', 'value ' || n, $4, $4
         FROM generate_series(1, $5::int) n`,
      [prefix, ws.org.sid, ws.columns[0].sid, ws.admin.sid, ROWS],
    );
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test('the grid scrolls 100,000 rows, requesting only the pages in view', async () => {
  const { context, page } = await newPerson(browser, server?.baseUrl ?? BASE_URL);
  await signInContext(context, ws.admin);
  const rowRequests: URL[] = [];
  page.on('request', (request: Request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/tables/row/list/')) rowRequests.push(url);
  });
  await page.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}/rows?project=${ws.project.sid}`);
  const grid = page.getByRole('grid', { name: /Rows of/ });
  await grid.waitFor();
  assert.equal(await grid.getAttribute('aria-rowcount'), String(ROWS + 1));
  await page.getByRole('rowheader', { name: 'Row 000001' }).waitFor();
  await assertAccessible(page, 'grid of 100,000 rows');

  // To the end with the keyboard (Ctrl+End), then to the middle with the scrollbar.
  await page.getByRole('gridcell', { name: 'Sample of Row 000001' }).click();
  await page.keyboard.press('Control+End');
  await page.getByRole('rowheader', { name: 'Row 100000' }).waitFor();
  await page.getByRole('gridcell', { name: 'Note of Row 100000' }).waitFor();
  await grid.evaluate((element) => {
    element.scrollTop = element.scrollHeight / 2;
  });
  await page.getByRole('rowheader', { name: /Row 0500\d\d/ }).first().waitFor();
  assert.equal(await page.getByRole('gridcell', { name: /Sample of Row 0500\d\d/ }).first().textContent().then((t) => /^value 500\d\d$/.test(t ?? '')), true);
  // A few steps with the wheel, as a person scrolls.
  for (let i = 0; i < 5; i += 1) await page.mouse.wheel(0, 2_000);
  await page.waitForTimeout(300);

  const rendered = await page.getByRole('row').count();
  assert.ok(rendered < 80, `only the rows in view are in the page (${rendered})`);
  const pages = new Set(rowRequests.map((url) => url.searchParams.get('page')));
  assert.ok(rowRequests.every((url) => Number(url.searchParams.get('page_size')) <= 100), 'pages of at most 100 rows');
  assert.ok(rowRequests.length <= 12, `${rowRequests.length} row requests for 100,000 rows (pages ${[...pages].join(', ')})`);
  assert.ok(pages.has('1') && pages.has(String(ROWS / 100)), `the first and the last page were fetched (${[...pages].join(', ')})`);

  // Search by name: the server filters, the grid shows the 10 matching rows.
  await page.getByLabel('Search rows by name').fill('Row 09999');
  // A search over 100,000 names (and its count, row by row): on the embedded database of a
  // busy machine it has taken over 15 s (the context's default).
  await page.getByRole('rowheader', { name: 'Row 099995' }).waitFor({ timeout: 45_000 });
  await page.waitForFunction(() => document.querySelector('[role=grid]')?.getAttribute('aria-rowcount') === '11');
  const searched = rowRequests.filter((url) => url.searchParams.get('search') === 'Row 09999');
  assert.ok(searched.length >= 1 && searched.length <= 2, `one page of search results (${searched.length} requests)`);
  assert.deepEqual(pageProblems(page), []);
  await context.close();
});

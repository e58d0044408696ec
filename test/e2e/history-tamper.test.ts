// A chain changed behind the API (a version's data rewritten in the database) shows as
// broken in the history screen, at the right version, after one click on "Verify chain".
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { behindTheApi } from '../helpers/behind.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { BASE_URL, DB_KIND } from '../helpers/env.ts';
import { patchCell, postCell, recordPaths } from '../helpers/records.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { assertAccessible, launchBrowser, newPerson, newWorkspaceAt, signInContext, type Workspace } from './lib.ts';

let server: RunningServer | null = null;
let dataDir = '';
let browser: Browser;
let ws: Workspace;
let rowSid = '';

before(async () => {
  if (DB_KIND === 'pglite') {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-e2e-tamper-'));
    server = await startServer({ databaseUrl: null, dataDir });
  }
  ws = await newWorkspaceAt(server?.baseUrl ?? BASE_URL, 'tamper', undefined, server?.dataDir);
  const api = ws.admin.api;
  const row = expectStatus(
    await api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name: 'Tampered' }),
    201,
  ).json;
  rowSid = row.sid;
  const cell = expectStatus(await postCell(api, ws.org.sid, row.sid, ws.columns[0].sid, 'reading 2'), 201).json;
  for (let v = 3; v <= 5; v += 1) expectStatus(await patchCell(api, cell.sid, `reading ${v}`), 200);
  server = await behindTheApi(server, async (run) => {
    const changed = await run(
      `UPDATE versions SET data = jsonb_set(data, ARRAY['cells', $2::text], to_jsonb('forged'::text)) WHERE row_sid = $1 AND version = 3 RETURNING sid`,
      [row.sid, ws.columns[0].sid],
    );
    assert.equal(changed.rows.length, 1, 'version 3 was rewritten');
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test('the history screen marks the first broken version of a chain changed behind the API', async () => {
  const { context, page } = await newPerson(browser, server?.baseUrl ?? BASE_URL);
  await signInContext(context, ws.admin);
  await page.goto(`/o/${ws.org.sid}/rows/${rowSid}`);
  await page.getByRole('heading', { name: 'History of Tampered' }).waitFor();
  await page.getByRole('button', { name: 'Verify chain' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Chain broken' });
  await alert.waitFor();
  assert.match((await alert.textContent()) ?? '', /version 3 is the first that does not verify/);
  const versions = page.getByRole('table', { name: /Versions of Tampered/ });
  await versions.getByRole('row', { name: /^3\s*First broken version/ }).waitFor();
  assert.equal(await versions.getByText('First broken version').count(), 1);
  // Versions 1 and 2 still verify.
  for (const v of [1, 2]) assert.equal(await versions.getByRole('row', { name: new RegExp(`^${v}\\s*(Does not verify|First broken)`) }).count(), 0);
  await assertAccessible(page, 'history of a broken chain');
  await context.close();
});

test('a verification the server turns away while busy (503, Retry-After) is asked again after the wait, and its answer shown', async () => {
  const { context, page } = await newPerson(browser, server?.baseUrl ?? BASE_URL);
  await signInContext(context, ws.admin);
  // The first verification meets the server's answer when its budget of large answers is
  // taken (core/heavy-work.ts); the next goes through to the server.
  let asked = 0;
  await page.route(/\/tables\/row\/detail\/[^/]+\/verify\/$/, async (route) => {
    asked += 1;
    if (asked > 1) return route.continue();
    await route.fulfill({
      status: 503, headers: { 'Retry-After': '1', 'Content-Type': 'application/json' },
      body: JSON.stringify({ detail: 'The server is answering too many large requests at once; try again in 1 second.' }),
    });
  });
  await page.goto(`/o/${ws.org.sid}/rows/${rowSid}`);
  await page.getByRole('heading', { name: 'History of Tampered' }).waitFor();
  await page.getByRole('button', { name: 'Verify chain' }).click();
  await page.getByRole('alert').filter({ hasText: 'Chain broken' }).waitFor();
  assert.equal(asked, 2, 'asked once more after the 503');
  await context.close();
});

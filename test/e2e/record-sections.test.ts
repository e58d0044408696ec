// A record with three sections opened as a page in two browsers (issue 24): each person
// edits a section in its rich-text editor (TipTap) and saves it; the other's page shows
// it live, without a reload; each save is one version of the row, and the chain verifies.
// On PostgreSQL the second person talks to a second server process on the same database.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { expectStatus } from '../helpers/assertions.ts';
import { BASE_URL, DB_KIND } from '../helpers/env.ts';
import { listVersions, recordPaths } from '../helpers/records.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { assertAccessible, launchBrowser, newAccount, newPerson, newWorkspaceAt, pageProblems, signInContext, type Account, type Workspace } from './lib.ts';

let browser: Browser;
let second: RunningServer | null = null;
let ws: Workspace;
let grace: Account;
let ada: Page;
let gracePage: Page;
let rowSid = '';

const editorOf = (page: Page, section: string) => page.getByRole('textbox', { name: `Content of ${section}` });

/** Types `text` at the end of the section's editor and saves it; resolves once the API has answered. */
async function writes(page: Page, section: string, text: string) {
  const editor = editorOf(page, section);
  await editor.click();
  await page.keyboard.press('End');
  await page.keyboard.type(text);
  const answered = page.waitForResponse((res) => /\/tables\/section\/detail\//.test(res.url()) && res.request().method() === 'PATCH');
  await page.getByRole('button', { name: `Save ${section}` }).click();
  const res = await answered;
  assert.equal(res.status(), 200, `the save answered ${res.status()}`);
}

/** Waits until the page's editor of `section` contains `text`. */
async function shows(page: Page, section: string, text: string) {
  await page.waitForFunction(
    ({ label, text }) => document.querySelector(`[aria-label="${label}"]`)?.textContent?.includes(text) ?? false,
    { label: `Content of ${section}`, text },
    { timeout: 10_000 },
  );
}

before(async () => {
  browser = await launchBrowser();
  if (DB_KIND === 'postgres') second = await startServer();
  ws = await newWorkspaceAt(BASE_URL, 'notebook', ['Sample']);
  grace = await newAccount(BASE_URL, 'notegrace', 'Grace', 'Hopper');
  const api = ws.admin.api;
  const personnel = expectStatus(await api.post(`/organizations/personnel/list/organization/${ws.org.sid}/detail/`, { email: grace.email }), 201).json;
  expectStatus(await api.post(recordPaths.memberList(ws.project.sid), { personnel: personnel.sid, permission: 'edit' }), 201, 'Grace: Project Edit');
  const row = expectStatus(await api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid }), {
    name: 'Experiment 1', projects: [{ sid: ws.project.sid }], [ws.columns[0].sid]: 'S-1',
  }), 201).json;
  rowSid = row.sid;
  for (const name of ['Aim', 'Method', 'Results']) {
    const doc = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: `${name}:` }] }] };
    expectStatus(await api.post(`/tables/section/list/organization/${ws.org.sid}/detail/?row__sid=${row.sid}`, { name, data: doc }), 201, name);
  }
  const a = await newPerson(browser, BASE_URL);
  await signInContext(a.context, ws.admin);
  ada = a.page;
  const g = await newPerson(browser, second?.baseUrl ?? BASE_URL);
  await signInContext(g.context, grace);
  gracePage = g.page;
  for (const page of [ada, gracePage]) {
    await page.goto(`/o/${ws.org.sid}/rows/${row.sid}/record`);
    await page.getByRole('status').filter({ hasText: 'Live: changes by others show here as they happen.' }).waitFor();
    await editorOf(page, 'Results').waitFor();
  }
});

after(async () => {
  await browser?.close();
  await second?.stop();
});

describe('a record\'s sections, edited in two browsers', () => {
  test('the page: uid, cells, three sections in order; accessible', async () => {
    await ada.getByRole('heading', { level: 1, name: /Experiment 1 TAB-\d{6}/ }).waitFor();
    assert.deepEqual(await ada.getByRole('heading', { level: 3 }).allTextContents(), ['1. Aim', '2. Method', '3. Results']);
    assert.equal(await ada.locator('.record-cells dd').first().textContent(), 'S-1');
    await assertAccessible(ada, 'record');
  });

  test('Ada saves Method: Grace sees it live; Grace saves Results: Ada sees it live', async () => {
    await writes(ada, 'Method', ' mix and wait');
    await shows(gracePage, 'Method', 'Method: mix and wait');
    await writes(gracePage, 'Results', ' it turned blue');
    await shows(ada, 'Results', 'Results: it turned blue');
    // Grace's own unsaved edit is not overwritten by Ada's save of the same section: she is told.
    await editorOf(gracePage, 'Aim').click();
    await gracePage.keyboard.press('End');
    await gracePage.keyboard.type(' (draft)');
    await writes(ada, 'Aim', ' find the colour');
    await gracePage.getByRole('alert').filter({ hasText: 'saved this section meanwhile' }).waitFor();
    assert.match((await editorOf(gracePage, 'Aim').textContent()) ?? '', /\(draft\)/);
    await gracePage.getByRole('button', { name: 'Show theirs' }).click();
    await shows(gracePage, 'Aim', 'Aim: find the colour');
    assert.deepEqual(pageProblems(ada), []);
    assert.deepEqual(pageProblems(gracePage), []);
  });

  test('each save is one version of the row, and the chain verifies', async () => {
    const versions = await listVersions(ws.admin.api, ws.org.sid, rowSid);
    assert.deepEqual(versions.map((v: any) => v.activity_message), [
      'Created the row with 1 cell', 'Added the section Aim', 'Added the section Method', 'Added the section Results',
      'Changed the section Method (content)', 'Changed the section Results (content)', 'Changed the section Aim (content)',
    ]);
    const last = versions[versions.length - 1].data.sections.map((s: any) => JSON.parse(s.data).content[0].content[0].text);
    assert.deepEqual(last, ['Aim: find the colour', 'Method: mix and wait', 'Results: it turned blue']);
    const verified = expectStatus(await ws.admin.api.get(recordPaths.rowVerify(rowSid)), 200).json;
    assert.deepEqual([verified.is_valid, verified.versions], [true, 7]);
  });
});

// Roles take effect at once (issue 22, points 4 and 5). An Admin whose grid says she needs
// a project role gives herself Project Admin in another tab: the open grid's "Add row"
// enables without a reload. An invitee looking at the organization's overview, with no
// project yet, sees a project appear the moment he is added to it. Both ride on the
// notification stream the frame keeps open (`event: access`, app/live-access.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { expectStatus } from '../helpers/assertions.ts';
import { BASE_URL } from '../helpers/env.ts';
import { unique } from '../helpers/factories.ts';
import { recordPaths } from '../helpers/records.ts';
import { launchBrowser, newAccount, newPerson, newWorkspaceAt, pageProblems, signInContext, type Account, type Workspace } from './lib.ts';

/** Generous for a busy machine, and still far below what a reload-free wait would need without the live event (never). */
const LIVE_TIMEOUT_MS = 10_000;
const LIVE = 'Live: changes by others show here as they happen.';

let browser: Browser;
let ws: Workspace;
let project: { sid: string; name: string };
let bob: Account;
let bobPersonnel = '';

/** Marks the page's document, so a reload (a new document) would show: the mark is gone. */
const markDocument = (page: Page) => page.evaluate(() => ((window as unknown as { unreloaded: boolean }).unreloaded = true));
const stillSameDocument = (page: Page) => page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded === true);

before(async () => {
  browser = await launchBrowser();
  ws = await newWorkspaceAt(BASE_URL, 'liveroles', ['Sample']);
  // A second project where Ada, the organization's Admin, holds no role yet.
  project = expectStatus(await ws.admin.api.post(recordPaths.projectList(ws.org.sid), { name: `Second ${unique('p')}` }), 201).json;
  bob = await newAccount(BASE_URL, 'liverolesbob', 'Bob', 'Invitee');
  bobPersonnel = expectStatus(await ws.admin.api.post(`/organizations/personnel/list/organization/${ws.org.sid}/detail/`, { email: bob.email }), 201).json.sid;
});

after(async () => {
  await browser?.close();
});

describe('roles take effect at once', () => {
  test('Ada gives herself Project Admin in another tab: her open grid\'s "Add row" enables without a reload', async () => {
    const { context, page: grid } = await newPerson(browser);
    await signInContext(context, ws.admin);
    await grid.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}/rows?project=${project.sid}`);
    await grid.getByRole('status').filter({ hasText: LIVE }).waitFor();
    const addRow = grid.getByRole('toolbar', { name: 'Rows' }).getByRole('button', { name: 'Add row' });
    await addRow.waitFor();
    assert.equal(await addRow.isDisabled(), true, 'without a project role, Add row is disabled');
    await markDocument(grid);

    const members = await context.newPage();
    await members.goto(`/o/${ws.org.sid}/projects/${project.sid}`);
    const form = members.getByRole('form', { name: 'Add project member' });
    await form.getByLabel('Person').selectOption({ label: 'Ada Tester' });
    await form.getByLabel('Role').selectOption({ label: 'Project Admin' });
    const added = members.waitForResponse((res) => res.url().includes(`/projects/member/list/project/${project.sid}/`) && res.request().method() === 'POST');
    await form.getByRole('button', { name: 'Add member' }).click();
    assert.equal((await added).status(), 201, 'the role is given');

    await grid.waitForFunction(
      () => [...document.querySelectorAll('[role=toolbar] button')].some((b) => b.textContent?.trim() === 'Add row' && !(b as HTMLButtonElement).disabled),
      undefined,
      { timeout: LIVE_TIMEOUT_MS },
    );
    assert.equal(await stillSameDocument(grid), true, 'no reload');
    // And it works: Ada adds a row from the grid she had open.
    await addRow.click();
    await grid.getByLabel('Row name').fill('Added at once');
    await grid.getByRole('dialog').getByRole('button', { name: 'Add row' }).click();
    await grid.getByRole('rowheader', { name: 'Added at once' }).waitFor();
    assert.deepEqual([...pageProblems(grid), ...pageProblems(members)], [], 'no page errors');
    await context.close();
  });

  test("the invitee's overview shows a project the moment he is added to it", async () => {
    const { context, page } = await newPerson(browser);
    await signInContext(context, bob);
    await page.goto(`/o/${ws.org.sid}`);
    await page.getByText('You have no role in any project of', { exact: false }).waitFor();
    await markDocument(page);
    expectStatus(await ws.admin.api.post(recordPaths.memberList(project.sid), { personnel: bobPersonnel, permission: 'view' }), 201, 'Bob: Project View');
    await page.getByRole('link', { name: project.name }).waitFor({ timeout: LIVE_TIMEOUT_MS });
    assert.equal(await stillSameDocument(page), true, 'no reload');
    assert.deepEqual(pageProblems(page), [], 'no page errors');
    await context.close();
  });
});

// An Admin adds a member by email in the personnel screen and gives them a role in a
// project; the member signs in and sees only what their role allows: the controls they may
// not use are disabled with the reason, never a button that earns a 403. A member changes
// their own notification settings. A forgotten password is reset through the emailed link.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { expectStatus } from '../helpers/assertions.ts';
import { readMail } from '../helpers/mail.ts';
import { recordPaths } from '../helpers/records.ts';
import { assertAccessible, launchBrowser, newAccount, newPerson, newWorkspaceAt, pageProblems, signInContext, type Account, type Workspace } from './lib.ts';
import { BASE_URL } from '../helpers/env.ts';

let browser: Browser;
let ws: Workspace;
let member: Account;
let rowName = '';

before(async () => {
  browser = await launchBrowser();
  ws = await newWorkspaceAt(BASE_URL, 'members');
  member = await newAccount(BASE_URL, 'member', 'Grace', 'Hopper');
  rowName = 'Plate 7';
  expectStatus(
    await ws.admin.api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name: rowName }),
    201,
  );
});

after(async () => {
  await browser?.close();
});

/** Signs in through the sign-in screen. */
async function signIn(page: Page, account: { email: string; password: string }) {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('an Admin adds a member, who sees only what their role allows', () => {
  test('the Admin adds the member by email and gives them Project View', async () => {
    const { context, page } = await newPerson(browser);
    await signIn(page, ws.admin);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Personnel' }).click();
    await page.getByRole('heading', { name: 'Personnel' }).waitFor();
    await assertAccessible(page, 'personnel (Admin)');
    const form = page.getByRole('form', { name: 'Add a member' });
    await form.getByLabel('Email').fill(member.email);
    await form.getByLabel('First name').fill('Grace');
    await form.getByLabel('Last name').fill('Hopper');
    await form.getByLabel('Title').fill('Rear admiral');
    await form.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('status').filter({ hasText: `${member.email} was added.` }).waitFor();
    await page.getByRole('row', { name: /Grace Hopper/ }).getByRole('cell', { name: 'Rear admiral' }).waitFor();
    // The Admin changes an administrative field.
    await page.getByRole('button', { name: 'Edit Grace Hopper' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit member' });
    await dialog.getByLabel('Title').fill('Commodore');
    await assertAccessible(page, 'edit member (Admin)');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /Grace Hopper/ }).getByRole('cell', { name: 'Commodore' }).waitFor();
    // Archive and un-archive.
    await page.getByRole('button', { name: 'Archive Grace Hopper' }).click();
    await page.getByRole('row', { name: /Grace Hopper/ }).getByRole('cell', { name: 'Archived' }).waitFor();
    await page.getByRole('button', { name: 'Un-archive Grace Hopper' }).click();
    await page.getByRole('row', { name: /Grace Hopper/ }).getByRole('cell', { name: 'Active' }).waitFor();
    // Project View in the project.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('link', { name: ws.project.name }).click();
    await page.getByLabel('Person').selectOption({ label: 'Grace Hopper' });
    await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Project View' });
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByLabel('Role of Grace Hopper').waitFor();
    assert.deepEqual(pageProblems(page), []);
    await context.close();
  });

  test('the member signs in and sees only what Project View allows', async () => {
    const { context, page } = await newPerson(browser);
    await signIn(page, member);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // The organization's credits are shown to its members.
    assert.equal(await page.getByLabel('Credits').textContent(), '$1.00');
    // No project or table to create: the reason instead of the form.
    await page.getByText("Only the organization's Admins create projects.").waitFor();
    await page.getByText("Only the organization's Admins create tables.").waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add project' }).count(), 0);
    await assertAccessible(page, 'overview (member)');
    // The project: members are listed, not managed.
    await page.getByRole('link', { name: ws.project.name }).click();
    await page.getByText("Only the organization's Admins and the project's Admins manage its members.").first().waitFor();
    assert.ok(await page.getByLabel('Role of Grace Hopper').isDisabled());
    await assertAccessible(page, 'project (member)');
    // The grid: read-only, and each control says why.
    await page.getByRole('link', { name: ws.table.name }).click();
    await page.getByRole('rowheader', { name: rowName }).waitFor();
    const addRow = page.getByRole('button', { name: 'Add row' });
    assert.ok(await addRow.isDisabled(), 'Add row is disabled');
    assert.match((await addRow.getAttribute('aria-describedby')) ?? '', /.+/);
    await page.getByText('You need the Project Admin or Project Edit role in this project to change its rows.').first().waitFor();
    const cell = page.getByRole('gridcell', { name: `Sample of ${rowName}` });
    assert.equal(await cell.getAttribute('aria-readonly'), 'true');
    await cell.click();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'You need the Project Admin or Project Edit role' }).waitFor();
    assert.equal(await page.getByRole('textbox', { name: `Sample of ${rowName}` }).count(), 0);
    assert.ok(await page.getByRole('button', { name: 'Lock row' }).isDisabled());
    await page.getByText("Only the project's Admins lock and archive rows.").first().waitFor();
    await assertAccessible(page, 'grid (Project View)');
    // History: readable, commit messages not editable.
    await page.getByRole('link', { name: `History of ${rowName}` }).click();
    await page.getByRole('heading', { name: `History of ${rowName}` }).waitFor();
    assert.ok(await page.getByRole('button', { name: 'Edit the commit message of version 1' }).isDisabled());
    await assertAccessible(page, 'history (Project View)');
    // Personnel: their own record only, with the member's fields.
    await page.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Personnel' }).click();
    await page.getByRole('heading', { name: 'Personnel' }).waitFor();
    assert.ok(await page.getByRole('button', { name: 'Archive Grace Hopper' }).isDisabled());
    assert.equal(await page.getByRole('form', { name: 'Add a member' }).count(), 0);
    await page.getByRole('button', { name: 'Edit Grace Hopper' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit member' });
    assert.equal(await dialog.getByLabel('Title').count(), 0, 'a member does not change their title');
    const digest = dialog.getByRole('checkbox', { name: 'Weekly digest' });
    const before = await digest.isChecked();
    await digest.setChecked(!before);
    await assertAccessible(page, 'edit own record (member)');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Edit Grace Hopper' }).click();
    assert.equal(await page.getByRole('dialog', { name: 'Edit member' }).getByRole('checkbox', { name: 'Weekly digest' }).isChecked(), !before);
    // In two organizations: the switcher goes from one to the other.
    const own = expectStatus(await member.api.post(`/organizations/organization/list/user/${member.sid}/detail/`, { name: 'Hopper Lab' }), 201).json;
    await page.goto('/');
    const switcher = page.getByRole('combobox', { name: 'Organization' });
    await switcher.waitFor();
    await switcher.selectOption({ label: 'Hopper Lab' });
    await page.waitForURL(`**/o/${own.sid}`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    assert.equal(await switcher.inputValue(), own.sid);
    await assertAccessible(page, 'organization switcher');
    assert.deepEqual(pageProblems(page), []);
    await context.close();
  });
});

test('a forgotten password is reset through the emailed link, which opens the app', async () => {
  const account = await newAccount(BASE_URL, 'forgot', 'Alan', 'Turing');
  const { context, page } = await newPerson(browser);
  await page.goto('/signin');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByLabel('Email').fill(account.email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await page.getByRole('status').filter({ hasText: 'a link to reset its password is on its way' }).waitFor();
  await assertAccessible(page, 'forgot password');
  const mail = await readMail(account.email, { subject: /password/i });
  const link = /(https?:\/\/\S+\/accounts\/resetpassword\/\?tag=[A-Za-z0-9_%-]+)/.exec(mail.body)?.[1];
  assert.ok(link, `a reset link in the mail: ${mail.body}`);
  const url = new URL(link);
  await page.goto(`${url.pathname}${url.search}`);
  await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  await assertAccessible(page, 'reset password');
  const fresh = 'a brand new password 42';
  await page.getByLabel('New password').fill(fresh);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByRole('status').filter({ hasText: 'Your password is changed.' }).waitFor();
  await signIn(page, { email: account.email, password: fresh });
  await page.getByRole('heading', { name: 'Create your organization' }).waitFor();
  await signInContext(context, { email: account.email, password: fresh });
  assert.deepEqual(pageProblems(page), []);
  await context.close();
});

test('in an organization of more than 100 people, the project member picker finds anyone by name, on the server', async () => {
  const big = await newWorkspaceAt(BASE_URL, 'bigorg');
  const people = Array.from({ length: 120 }, (_, i) => ({
    email: `person${i}.${big.org.sid.toLowerCase()}@lab.example`, first_name: `Person${String(i).padStart(3, '0')}`, last_name: 'Bench',
  }));
  for (const batch of [people.slice(0, 100), people.slice(100)]) {
    expectStatus(await big.admin.api.post(`/organizations/personnel/list/organization/${big.org.sid}/detail/`, batch), 201);
  }
  const { context, page } = await newPerson(browser);
  await signInContext(context, big.admin);
  await page.goto(`/o/${big.org.sid}/projects/${big.project.sid}`);
  const find = page.getByRole('searchbox', { name: 'Find a person' });
  await find.waitFor();
  await page.getByText('121 people: the first 100 are listed; type a name or email to find others.').waitFor();
  // Person119 was added last: not among the first 100.
  assert.equal(await page.getByLabel('Person', { exact: true }).locator('option', { hasText: 'Person119 Bench' }).count(), 0);
  const searched = page.waitForRequest((r) => new URL(r.url()).searchParams.get('search') === 'person119');
  await find.fill('person119');
  await searched;
  await page.getByText('1 found.').waitFor();
  await page.getByLabel('Person', { exact: true }).selectOption({ label: 'Person119 Bench' });
  await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Project View' });
  await page.getByRole('button', { name: 'Add member' }).click();
  await page.getByLabel('Role of Person119 Bench').waitFor();
  await assertAccessible(page, 'project member picker in a large organization');
  assert.deepEqual(pageProblems(page), []);
  await context.close();
});

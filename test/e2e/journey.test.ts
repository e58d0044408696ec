// A person who has never seen the app, in real Chromium: signs up, creates an
// organization, a project, a table with a priced widget and columns; adds rows, edits
// cells with the keyboard, sees the credits go down and is refused with the spec's message
// when they run out; locks a row; opens its history, edits a commit message, compares two
// versions and verifies the chain. Every screen passes an accessibility scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BASE_URL, SALES_CONTACT } from '../helpers/env.ts';
import { readMail } from '../helpers/mail.ts';
import { unique } from '../helpers/factories.ts';
import { assertAccessible, assertKeyboardReachable, launchBrowser, linkIn, newPerson, pageProblems, screenshot } from './lib.ts';

let browser: Browser;
let context: BrowserContext;
let page: Page;
const email = `${unique('journey')}@records.test`;
const password = 'correct horse battery staple';
const orgName = `Lovelace Lab ${unique('o')}`;

before(async () => {
  browser = await launchBrowser();
  ({ context, page } = await newPerson(browser));
});

after(async () => {
  await browser?.close();
});

/** The grid cell of `column` in row `row`. */
const cell = (row: string, column: string) => page.getByRole('gridcell', { name: `${column} of ${row}` });

/** Waits until the keyboard focus is on the grid cell of `column` in row `row`. */
const focusIsOn = (row: string, column: string) =>
  page.waitForFunction((name) => document.activeElement?.getAttribute('aria-label') === name, `${column} of ${row}`);
const credits = () => page.getByLabel('Credits');

describe('a new person, from sign-up to a verified chain', () => {
  test('signs up and proves their email', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await assertAccessible(page, 'sign in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await assertAccessible(page, 'sign up');
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    const checkMail = page.getByRole('heading', { name: 'Check your email' });
    const firstRun = page.getByRole('heading', { name: 'Create your organization' });
    await checkMail.or(firstRun).waitFor();
    if (await checkMail.isVisible()) {
      await assertAccessible(page, 'check your email');
      const mail = await readMail(email, { subject: /verif|confirm|prove/i });
      const link = linkIn(mail.body, '/accounts/verifyemail/');
      assert.ok(link, `the proof link in the mail: ${mail.body}`);
      const url = new URL(link);
      await page.goto(`${url.pathname}${url.search}`);
      await page.getByRole('status').filter({ hasText: 'Email verified.' }).waitFor();
      await assertAccessible(page, 'email proved');
      await page.getByRole('link', { name: 'Continue' }).click();
    }
    await firstRun.waitFor();
  });

  test('creates an organization on first run and sees its credits', async () => {
    await assertAccessible(page, 'first run');
    await page.getByLabel('Organization name').fill(orgName);
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    assert.equal(await page.getByLabel('Credits').textContent(), '$1.00');
    await assertAccessible(page, 'organization overview');
    await assertKeyboardReachable(page, 'organization overview');
  });

  test('creates a project and a table', async () => {
    await page.getByLabel('Project name').fill('Enzyme kinetics');
    await page.getByRole('button', { name: 'Add project' }).click();
    await page.getByRole('link', { name: 'Enzyme kinetics' }).waitFor();
    await page.getByLabel('Table name').fill('Samples');
    await page.getByRole('button', { name: 'Add table' }).click();
    await page.getByRole('link', { name: 'Samples' }).waitFor();
  });

  test('adds a priced widget', async () => {
    await page.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Widgets' }).click();
    await page.getByRole('heading', { name: 'Widgets', exact: true }).waitFor();
    await page.getByLabel('Widget name').fill('Absorbance');
    await page.getByLabel('Price per cell write').fill('0.50');
    await page.getByRole('button', { name: 'Add widget' }).click();
    await page.getByRole('row', { name: /Absorbance/ }).getByRole('cell', { name: '$0.50' }).waitFor();
    await assertAccessible(page, 'widgets');
    await assertKeyboardReachable(page, 'widgets');
  });

  test('adds columns to the table, one through the priced widget', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('link', { name: 'Samples' }).click();
    await page.getByRole('heading', { name: 'Samples' }).waitFor();
    await page.getByLabel('Column name').fill('Sample name');
    await page.getByRole('button', { name: 'Add column' }).click();
    await page.getByRole('row', { name: /Sample name/ }).waitFor();
    await page.getByLabel('Column name').fill('Absorbance');
    await page.getByLabel('Widget').selectOption({ label: 'Absorbance ($0.50 a write)' });
    await page.getByRole('button', { name: 'Add column' }).click();
    await page.getByRole('row', { name: /Absorbance.*\$0\.50/ }).waitFor();
    await assertAccessible(page, 'table and columns');
    await assertKeyboardReachable(page, 'table and columns');
  });

  test('makes themself Project Admin of the project (an Admin writes rows only with a project role)', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('link', { name: 'Enzyme kinetics' }).click();
    await page.getByRole('heading', { name: 'Enzyme kinetics' }).waitFor();
    await page.getByLabel('Person').selectOption({ label: 'Ada Lovelace' });
    await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Project Admin' });
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByLabel('Role of Ada Lovelace').waitFor();
    assert.equal(await page.getByLabel('Role of Ada Lovelace').inputValue(), 'admin');
    await assertAccessible(page, 'project and members');
    await assertKeyboardReachable(page, 'project and members');
  });

  test('adds rows', async () => {
    await page.getByRole('link', { name: 'Samples' }).click();
    await page.getByRole('heading', { name: 'Samples' }).waitFor();
    for (const name of ['Sample 1', 'Sample 2']) {
      await page.getByRole('button', { name: 'Add row' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add a row' });
      await dialog.getByLabel('Row name').fill(name);
      await dialog.getByRole('button', { name: 'Add row' }).click();
      await page.getByRole('rowheader', { name: name }).waitFor();
      // The row may show (its live event) before the dialog has the POST's answer and closes.
      await dialog.waitFor({ state: 'hidden' });
    }
    await assertAccessible(page, 'records grid');
    await assertKeyboardReachable(page, 'records grid');
  });

  test('edits cells with the keyboard; the price shows before a priced write; credits go down', async () => {
    await cell('Sample 1', 'Sample name').click();
    await page.keyboard.type('Alpha');
    await page.keyboard.press('Tab');
    await page.getByText('A write to Absorbance costs $0.50.').waitFor();
    await cell('Sample 1', 'Absorbance').waitFor();
    // The value shows (a refetch of the page started by the rows just added may land first).
    await cell('Sample 1', 'Sample name').filter({ hasText: /^Alpha$/ }).waitFor();
    assert.equal(await cell('Sample 1', 'Sample name').textContent(), 'Alpha');
    await page.keyboard.press('Enter');
    const editor = page.getByRole('textbox', { name: 'Absorbance of Sample 1' });
    await editor.waitFor();
    await page.getByRole('note').filter({ hasText: 'Saving costs $0.50' }).waitFor();
    await editor.fill('0.412');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('output[aria-label="Credits"]')?.textContent === '$0.50');
    // Enter moved the focus down: Sample 2's Absorbance.
    await page.keyboard.press('Enter');
    await page.getByRole('textbox', { name: 'Absorbance of Sample 2' }).fill('0.398');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('output[aria-label="Credits"]')?.textContent === '$0.00');
    // Escape leaves a cell as it was.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.getByRole('textbox', { name: 'Absorbance of Sample 1' }).fill('9.999');
    await page.keyboard.press('Escape');
    await focusIsOn('Sample 1', 'Absorbance');
    assert.equal(await cell('Sample 1', 'Absorbance').textContent(), '0.412');
    assert.equal(await cell('Sample 2', 'Absorbance').textContent(), '0.398');
    assert.equal(await credits().textContent(), '$0.00');
  });

  test("out of credits, a priced write is refused at the cell with the spec's message and rolled back", async () => {
    await focusIsOn('Sample 1', 'Absorbance');
    await page.keyboard.press('Enter');
    await page.getByRole('textbox', { name: 'Absorbance of Sample 1' }).fill('0.5');
    await page.keyboard.press('Enter');
    const refusal = cell('Sample 1', 'Absorbance').getByRole('alert');
    await refusal.waitFor();
    assert.equal(await refusal.textContent(), `Your organization does not have enough credits, contact ${SALES_CONTACT}!`);
    assert.equal(await cell('Sample 1', 'Absorbance').locator('.cell-value').textContent(), '0.412');
    await screenshot(page, 'grid');
    await assertAccessible(page, 'records grid with a refused write');
    // A free column still takes writes.
    await cell('Sample 2', 'Sample name').click();
    await page.keyboard.type('Beta');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => [...document.querySelectorAll('[role=gridcell]')].some((c) => c.textContent === 'Beta'));
  });

  test('locks a row: its cells turn read-only and say why', async () => {
    await cell('Sample 1', 'Sample name').click();
    await page.getByRole('button', { name: 'Lock row' }).click();
    await page.getByRole('rowheader', { name: /Sample 1.*Locked/ }).waitFor();
    assert.equal(await cell('Sample 1', 'Sample name').getAttribute('aria-readonly'), 'true');
    await cell('Sample 1', 'Sample name').click();
    await page.keyboard.press('Enter');
    await page.getByText('This row is locked: its cells cannot change.').waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Sample name of Sample 1' }).count(), 0);
    assert.ok(await page.getByRole('button', { name: 'Rename row' }).isDisabled(), 'a locked row cannot be renamed');
    await page.getByRole('button', { name: 'Unlock row' }).waitFor();
  });

  test('renames a row, archives it (read-only) and un-archives it', async () => {
    await cell('Sample 2', 'Sample name').click();
    await page.getByRole('button', { name: 'Rename row' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rename the row' });
    await dialog.getByLabel('Row name').fill('Sample 2b');
    await assertAccessible(page, 'rename a row');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('rowheader', { name: 'Sample 2b' }).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Archive row' }).click();
    await page.getByRole('rowheader', { name: /Sample 2b.*Archived/ }).waitFor();
    assert.equal(await cell('Sample 2b', 'Absorbance').getAttribute('aria-readonly'), 'true');
    assert.ok(await page.getByRole('button', { name: 'Rename row' }).isDisabled(), 'an archived row cannot be renamed');
    assert.ok(await page.getByRole('button', { name: 'Lock row' }).isDisabled(), 'an archived row cannot be locked');
    await page.getByText('Un-archive the row first.').waitFor();
    await page.getByRole('button', { name: 'Un-archive row' }).click();
    await page.getByRole('rowheader', { name: 'Sample 2b', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Archive row' }).waitFor();
    assert.equal(await cell('Sample 2b', 'Absorbance').getAttribute('aria-readonly'), null);
  });

  test("opens the row's history, edits a commit message, compares two versions and verifies the chain", async () => {
    await cell('Sample 1', 'Sample name').click();
    await page.getByRole('link', { name: 'History of Sample 1' }).click();
    await page.getByRole('heading', { name: 'History of Sample 1' }).waitFor();
    const versions = page.getByRole('table', { name: /Versions of Sample 1/ });
    // 1 created, 2 Sample name, 3 Absorbance, 4 locked.
    assert.equal(await versions.getByRole('row').count(), 5);
    await assertAccessible(page, 'row history');
    await page.getByRole('button', { name: 'Edit the commit message of version 3' }).click();
    await page.getByLabel('Commit message of version 3').fill('First absorbance reading');
    await page.getByRole('button', { name: 'Save' }).click();
    await versions.getByRole('row', { name: /^3 / }).getByText('First absorbance reading').waitFor();
    await page.getByRole('checkbox', { name: 'Compare version 1' }).check();
    await page.getByRole('checkbox', { name: 'Compare version 3' }).check();
    const diff = page.getByRole('table', { name: 'Changes from version 1 to version 3' });
    await diff.waitFor();
    await diff.getByRole('row', { name: /Cell Absorbance.*0\.412/ }).waitFor();
    await diff.getByRole('row', { name: /Cell Sample name.*Alpha/ }).waitFor();
    await page.getByRole('button', { name: 'Verify chain' }).click();
    await page.getByRole('status').filter({ hasText: 'Chain valid: all 4 versions verified.' }).waitFor();
    await assertAccessible(page, 'row history, compared and verified');
    await screenshot(page, 'history');
    await assertKeyboardReachable(page, 'row history');
  });

  test('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.deepEqual(pageProblems(page), []);
    assert.ok(BASE_URL);
    await context.close();
  });
});

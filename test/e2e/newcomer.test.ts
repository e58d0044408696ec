// The first hour (issue 22, "Done when"): a newcomer on a fresh instance, as a first
// `npm start` leaves it (no account, INITIAL_CREDITS 0.00), in real Chromium. She signs up
// with a mistyped address, names the right one on the screen that waits for the proof, and
// that screen turns into the app when the mailed link is opened in another tab; being the
// first account she administers the instance. She makes an organization, a table and a
// priced widget (warned that there are no credits and how to get them), grants credits on
// the Administration screen, finds from the grid where project roles are given, adds rows,
// edits cells (a refused write's message covers no other cell), reads a history; invites
// Grace, who works beside her live in a second browser; builds a workflow whose notify step
// picks Grace by name; makes and revokes an API key (after a confirmation); both sign out.
// No page is reloaded after the first load, and every screen passes axe.
//
// The mailed links are followed as a person would: the button of the HTML mail is opened,
// and the page it leads to does the POST itself and says what happened and where to go next
// (issue 22, point 1): "Email verified.", and for Grace, "Ada Lovelace invited you to Lovelace
// Lab" before she chooses her password, then that organization's overview.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { linksIn, readMail } from '../helpers/mail.ts';
import { PROOF_SUBJECT, unique } from '../helpers/factories.ts';
import { startFreshServer, type RunningServer } from '../helpers/server.ts';
import { assertAccessible, launchBrowser, newPerson, pageProblems, screenshot } from './lib.ts';

let browser: Browser;
let server: RunningServer;
let ada: { context: BrowserContext; page: Page };
let grace: { context: BrowserContext; page: Page };
const typo = `${unique('ada')}@lovelace.tset`;
const adaEmail = typo.replace('.tset', '.test');
const graceEmail = `${unique('grace')}@hopper.test`;
const adaPassword = `Analytical-Engine-${unique('pw')}-1843!`;
const gracePassword = `Compiler-A0-${unique('pw')}-1952!`;
const requested: string[] = [];
let orgPath = '';

before(async () => {
  browser = await launchBrowser();
  // As the service starts by default: new organizations get no credits.
  server = await startFreshServer({ INITIAL_CREDITS: '0.00' });
  ada = await newPerson(browser, server.baseUrl);
  ada.page.on('request', (request) => requested.push(request.url()));
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const page = () => ada.page;
const cell = (p: Page, row: string, column: string) => p.getByRole('gridcell', { name: `${column} of ${row}` });
/** Waits until the frame shows these credits (a cached value is replaced once read again). */
const creditsAre = (p: Page, amount: string) =>
  p.waitForFunction((want) => document.querySelector('output[aria-label="Credits"]')?.textContent === want, amount);

/**
 * The path and query of the button `label` in the HTML of the next mail to `to` (as a person
 * clicks it); the text alternative carries the same address, and the API form in a footnote.
 */
async function mailedButton(to: string, label: string, subject?: RegExp): Promise<string> {
  const mail = await readMail(to, { dataDir: server.dataDir, ...(subject ? { subject } : {}) });
  assert.ok(mail.html, `an HTML alternative in the mail to ${to}`);
  const button = linksIn(mail.html).find((l) => l.text === label);
  assert.ok(button, `a "${label}" button in the mail to ${to}: ${JSON.stringify(linksIn(mail.html))}`);
  assert.ok(mail.body.includes(`${label}:\n${button.href}`), `the text alternative has the same link:\n${mail.body}`);
  assert.match(mail.body, /For scripts \(the API\):\n  POST /, 'the API form in a footnote');
  const url = new URL(button.href);
  assert.equal(url.origin, server.baseUrl, 'a page of this service');
  return `${url.pathname}${url.search}`;
}

/** Ada writes `text` into a cell with the keyboard and waits for the API's answer. */
async function write(p: Page, row: string, column: string, text: string): Promise<number> {
  await cell(p, row, column).click();
  await p.keyboard.press('Enter');
  await p.getByRole('textbox', { name: `${column} of ${row}` }).fill(text);
  const answered = p.waitForResponse((res) => /\/tables\/cell\//.test(res.url()) && ['PATCH', 'POST'].includes(res.request().method()));
  await p.keyboard.press('Enter');
  return (await answered).status();
}

describe('a newcomer on a fresh instance, and the colleague she invites', () => {
  test('signs up with a mistyped address; the waiting screen sends the link again, takes the right address, and carries on by itself', async () => {
    const p = page();
    await p.goto('/');
    await p.getByRole('heading', { name: 'Sign in' }).waitFor();
    await p.getByRole('link', { name: 'Create an account' }).click();
    await p.getByLabel('First name').fill('Ada');
    await p.getByLabel('Last name').fill('Lovelace');
    await p.getByLabel('Email').fill(typo);
    await p.getByLabel('Password').fill(adaPassword);
    await p.getByRole('button', { name: 'Create account' }).click();

    // In the app's frame: the address, resend, change, sign out.
    await p.getByRole('heading', { name: 'Check your email' }).waitFor();
    await p.getByText(typo).first().waitFor();
    await p.getByRole('button', { name: 'Sign out' }).waitFor();
    await assertAccessible(p, 'waiting for the proof');
    await p.getByRole('button', { name: 'Send the link again' }).click();
    await p.getByRole('status').filter({ hasText: `A new link is on its way to ${typo}.` }).waitFor();
    await p.getByRole('button', { name: 'Change the address' }).click();
    await p.getByLabel('Your email address').fill(adaEmail);
    await p.getByRole('button', { name: 'Send the link there' }).click();
    await p.getByRole('status').filter({ hasText: `opening it makes ${adaEmail} your sign-in address` }).first().waitFor();
    await screenshot(p, 'unproven');

    // The link, opened in another tab (as from a mail program): this tab turns into the app.
    const link = await mailedButton(adaEmail, 'Prove my email address', PROOF_SUBJECT);
    const tab = await ada.context.newPage();
    await tab.goto(link);
    await tab.getByRole('status').filter({ hasText: 'Email verified.' }).waitFor();
    await tab.getByRole('link', { name: 'Continue' }).waitFor();
    await assertAccessible(tab, 'the proof link\'s page');
    await tab.close();
    await p.getByRole('heading', { name: 'Create your organization' }).waitFor();
    // The first account of the instance administers it.
    await p.getByRole('link', { name: 'Administration' }).waitFor();
  });

  test('creates an organization (no credits), a project and a table', async () => {
    const p = page();
    await p.getByLabel('Organization name').fill('Lovelace Lab');
    await p.getByRole('button', { name: 'Create organization' }).click();
    await p.getByRole('heading', { name: 'Overview' }).waitFor();
    orgPath = new URL(p.url()).pathname.replace(/\/$/, '');
    await creditsAre(p, '$0.00');
    await p.getByLabel('Project name').fill('Enzyme kinetics');
    await p.getByRole('button', { name: 'Add project' }).click();
    await p.getByRole('link', { name: 'Enzyme kinetics' }).waitFor();
    await p.getByLabel('Table name').fill('Samples');
    await p.getByRole('button', { name: 'Add table' }).click();
    await p.getByRole('link', { name: 'Samples' }).waitFor();
  });

  test('a priced widget and a column through it: warned that there are no credits, and how to get them', async () => {
    const p = page();
    const warning = "Lovelace Lab has $0.00 of credits: every write through this widget ($0.50 each) will be refused until it has more. "
      + 'You administer this Records Service: grant credits on the Administration screen.';
    await p.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Widgets' }).click();
    await p.getByLabel('Widget name').fill('Absorbance');
    await p.getByLabel('Price per cell write').fill('0.50');
    await p.getByRole('note').filter({ hasText: warning }).waitFor();
    await screenshot(p, 'credits-warning');
    await assertAccessible(p, 'a priced widget without credits');
    await p.getByRole('button', { name: 'Add widget' }).click();
    await p.getByRole('row', { name: /Absorbance/ }).getByRole('cell', { name: '$0.50' }).waitFor();

    await p.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Overview' }).click();
    await p.getByRole('link', { name: 'Samples' }).click();
    await p.getByRole('heading', { name: 'Samples' }).waitFor();
    // Only widgets that edit a cell are offered: no workflow step's.
    const offered = await p.getByLabel('Widget').locator('option').allTextContents();
    assert.deepEqual(offered.filter((o) => /notification|Set cell|Lock row|Wait for event/.test(o)), [], `offered: ${offered.join(', ')}`);
    await p.getByLabel('Column name').fill('Sample name');
    await p.getByRole('button', { name: 'Add column' }).click();
    await p.getByRole('row', { name: /Sample name/ }).waitFor();
    await p.getByLabel('Column name').fill('Absorbance');
    await p.getByLabel('Widget').selectOption({ label: 'Absorbance ($0.50 a write)' });
    await p.getByRole('note').filter({ hasText: 'every write through the Absorbance widget ($0.50 each) will be refused' }).waitFor();
    await p.getByRole('button', { name: 'Add column' }).click();
    await p.getByRole('row', { name: /Absorbance.*\$0\.50/ }).waitFor();
  });

  test('grants the organization credits on the Administration screen, where INITIAL_CREDITS is explained', async () => {
    const p = page();
    await p.getByRole('link', { name: 'Administration' }).click();
    await p.getByRole('heading', { name: 'Administration' }).waitFor();
    await p.getByRole('button', { name: 'Grant credits to Lovelace Lab' }).click();
    const dialog = p.getByRole('dialog', { name: 'Grant credits to Lovelace Lab' });
    await dialog.getByLabel('Credits to add').fill('1.00');
    await dialog.getByLabel('Note for the ledger').fill('first samples');
    await assertAccessible(p, 'granting credits');
    await dialog.getByRole('button', { name: 'Grant' }).click();
    await p.getByRole('status').filter({ hasText: 'Granted $1.00 to Lovelace Lab: its credits are now $1.00.' }).waitFor();
    await p.getByRole('row', { name: /Lovelace Lab/ }).getByRole('cell', { name: '$1.00' }).waitFor();
    await screenshot(p, 'admin-organizations');
    await assertAccessible(p, 'administration: organizations');

    await p.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Settings' }).click();
    await p.getByLabel('Initial credits of a new organization').waitFor();
    await p.getByText('INITIAL_CREDITS').waitFor();
    await p.getByText('The credits a new organization starts with', { exact: false }).waitFor();
    assert.equal(await p.getByLabel('Initial credits of a new organization').inputValue(), '0.00');
    await screenshot(p, 'admin-settings');
    await assertAccessible(p, 'administration: settings');

    await p.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Accounts' }).click();
    await p.getByRole('row', { name: /Ada Lovelace/ }).getByText('Administrator').waitFor();
    await assertAccessible(p, 'administration: accounts');
    await p.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Mail' }).click();
    await p.getByText('Sent in the last hour').waitFor();
    await assertAccessible(p, 'administration: mail');
  });

  test('the grid says a project role is needed and links to where it is given; she gives herself one and adds rows', async () => {
    const p = page();
    await p.getByRole('link', { name: 'Records' }).click();
    await p.getByRole('heading', { name: 'Overview' }).waitFor();
    await creditsAre(p, '$1.00');
    await p.getByRole('link', { name: 'Samples' }).click();
    await p.getByRole('link', { name: 'Rows of Enzyme kinetics' }).click();
    const note = p.getByRole('note').filter({ hasText: 'You need the Project Admin or Project Edit role in Enzyme kinetics to add or change its rows.' });
    await note.waitFor();
    assert.ok(await p.getByRole('button', { name: 'Add row' }).isDisabled());
    await note.getByRole('link', { name: 'Members of Enzyme kinetics' }).click();
    await p.getByRole('heading', { name: 'Members' }).waitFor();
    await p.getByLabel('Person').selectOption({ label: 'Ada Lovelace' });
    await p.getByLabel('Role', { exact: true }).selectOption({ label: 'Project Admin' });
    await p.getByRole('button', { name: 'Add member' }).click();
    await p.getByLabel('Role of Ada Lovelace').waitFor();
    // Back to the grid: rows may be added now.
    await p.getByRole('link', { name: 'Samples' }).click();
    await p.getByRole('button', { name: 'Add row' }).and(p.locator(':enabled')).waitFor();
    assert.equal(await note.count(), 0);
    for (const name of ['Sample 1', 'Sample 2']) {
      await p.getByRole('button', { name: 'Add row' }).click();
      const dialog = p.getByRole('dialog', { name: 'Add a row' });
      await dialog.getByLabel('Row name').fill(name);
      await dialog.getByRole('button', { name: 'Add row' }).click();
      await p.getByRole('rowheader', { name }).waitFor();
      // The row may show (its live event) before the dialog has the POST's answer and closes.
      await dialog.waitFor({ state: 'hidden' });
    }
    await assertAccessible(p, 'records grid');
  });


  test('edits cells until the credits run out: the refusal shows in its cell, over no other cell; a grant lets the write through', async () => {
    const p = page();
    assert.equal(await write(p, 'Sample 1', 'Sample name', 'Alpha'), 201);
    assert.equal(await write(p, 'Sample 1', 'Absorbance', '0.412'), 201);
    assert.equal(await write(p, 'Sample 2', 'Absorbance', '0.398'), 201);
    await creditsAre(p, '$0.00');
    assert.equal(await write(p, 'Sample 1', 'Absorbance', '0.5'), 406);
    const refusal = cell(p, 'Sample 1', 'Absorbance').getByRole('alert');
    await refusal.waitFor();
    assert.equal(await refusal.textContent(), 'Your organization does not have enough credits, contact sales@example.test!');
    // The message is inside its cell (its row grew), above the next row's cell, not over it.
    const message = (await refusal.boundingBox())!;
    const own = (await cell(p, 'Sample 1', 'Absorbance').boundingBox())!;
    const next = (await cell(p, 'Sample 2', 'Absorbance').boundingBox())!;
    assert.ok(message.y + message.height <= own.y + own.height + 0.5, `the message (bottom ${message.y + message.height}) stays in its cell (bottom ${own.y + own.height})`);
    assert.ok(own.y + own.height <= next.y + 0.5, 'the next row starts below the refused cell');
    // No empty band under the rows: the grid is as tall as they are.
    const band = await p.evaluate(() => {
      const scroll = document.querySelector<HTMLElement>('[role=grid]')!;
      const rows = [...scroll.querySelectorAll<HTMLElement>('[role=row]')];
      const last = rows[rows.length - 1]!.getBoundingClientRect();
      return {
        gap: scroll.getBoundingClientRect().bottom - last.bottom,
        overflow: scroll.scrollHeight - scroll.clientHeight,
        sideways: scroll.scrollWidth - scroll.clientWidth,
      };
    });
    assert.ok(band.gap <= 2 && band.overflow <= 1, `no band under the grid: ${JSON.stringify(band)}`);
    assert.ok(band.sideways <= 1, `the message does not widen its column: ${JSON.stringify(band)}`);
    await assertAccessible(p, 'grid with a refused write');

    // The way out the refusal names: more credits, from the Administration screen.
    await p.getByRole('link', { name: 'Administration' }).click();
    await p.getByRole('button', { name: 'Grant credits to Lovelace Lab' }).click();
    const dialog = p.getByRole('dialog', { name: 'Grant credits to Lovelace Lab' });
    await dialog.getByLabel('Credits to add').fill('5.00');
    await dialog.getByRole('button', { name: 'Grant' }).click();
    await p.getByRole('status').filter({ hasText: 'its credits are now $5.00' }).waitFor();
    await p.goBack();
    await cell(p, 'Sample 1', 'Absorbance').waitFor();
    await creditsAre(p, '$5.00');
    assert.equal(await write(p, 'Sample 1', 'Absorbance', '0.5'), 200);
    await creditsAre(p, '$4.50');
    assert.equal(await cell(p, 'Sample 1', 'Absorbance').getByRole('alert').count(), 0);
  });

  test("reads a row's history and verifies it; no history asks for a table without a sid", async () => {
    const p = page();
    await cell(p, 'Sample 1', 'Sample name').click();
    await p.getByRole('link', { name: 'History of Sample 1' }).click();
    await p.getByRole('heading', { name: 'History of Sample 1' }).waitFor();
    // 1 created, 2 Sample name, 3 and 4 Absorbance.
    assert.equal(await p.getByRole('table', { name: /Versions of Sample 1/ }).getByRole('row').count(), 5);
    await p.getByRole('button', { name: 'Verify chain' }).click();
    await p.getByRole('status').filter({ hasText: 'Chain valid: all 4 versions verified.' }).waitFor();
    await assertAccessible(p, 'row history');
    assert.deepEqual(requested.filter((url) => /\/detail\/\/$/.test(new URL(url).pathname)), [], 'a request with an empty sid');
    await p.getByRole('link', { name: 'Back to the rows of Samples' }).click();
    await cell(p, 'Sample 1', 'Sample name').waitFor();
  });

  test('invites Grace: she sets her password from the mailed link and is told why no project is listed, and who can add her', async () => {
    const p = page();
    await p.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Personnel' }).click();
    const form = p.getByRole('form', { name: 'Add a member' });
    await form.getByLabel('Email').fill(graceEmail);
    await form.getByLabel('First name').fill('Grace');
    await form.getByLabel('Last name').fill('Hopper');
    await form.getByRole('button', { name: 'Add member' }).click();
    await p.getByRole('status').filter({ hasText: `${graceEmail} was added.` }).waitFor();

    grace = await newPerson(browser, server.baseUrl);
    const g = grace.page;
    await g.goto(await mailedButton(graceEmail, 'Accept and choose a password', /invited to Lovelace Lab/));
    // The names come from the server (GET /accounts/invitation/?tag=…), not from the link.
    await g.getByRole('heading', { name: 'Ada Lovelace invited you to Lovelace Lab' }).waitFor();
    await screenshot(g, 'invitation');
    await assertAccessible(g, 'the invitation\'s password page');
    await g.getByLabel('New password').fill(gracePassword);
    await g.getByRole('button', { name: 'Set password' }).click();
    await g.getByRole('status').filter({ hasText: 'Your password is set and you joined Lovelace Lab.' }).waitFor();
    await g.getByRole('link', { name: 'Sign in' }).click();
    await g.getByLabel('Email').fill(graceEmail);
    await g.getByLabel('Password').fill(gracePassword);
    await g.getByRole('button', { name: 'Sign in' }).click();
    await g.getByRole('heading', { name: 'Overview' }).waitFor();
    const why = g.getByRole('note').filter({ hasText: 'You have no role in any project of Lovelace Lab yet' });
    await why.waitFor();
    await why.getByText(`Admins of Lovelace Lab: Ada Lovelace (${adaEmail}).`).waitFor();
    assert.equal(await g.getByText('No projects yet').count(), 0);
    await g.getByRole('link', { name: 'Samples' }).waitFor();
    await screenshot(g, 'invitee-overview');
    await assertAccessible(g, "the invitee's overview");

    // Ada gives her a role; the project is listed for her.
    await p.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Overview' }).click();
    await p.getByRole('link', { name: 'Enzyme kinetics' }).click();
    await p.getByLabel('Person').selectOption({ label: 'Grace Hopper' });
    await p.getByLabel('Role', { exact: true }).selectOption({ label: 'Project Edit' });
    await p.getByRole('button', { name: 'Add member' }).click();
    await p.getByLabel('Role of Grace Hopper').waitFor();
    // Roles take effect at once: the project appears on her open overview by itself.
    await g.getByRole('link', { name: 'Enzyme kinetics' }).waitFor();
  });

  test('Grace works beside Ada: each sees the other\'s edits live', async () => {
    const p = page();
    const g = grace.page;
    await p.getByRole('link', { name: 'Samples' }).click();
    await g.getByRole('link', { name: 'Enzyme kinetics' }).click();
    await g.getByRole('link', { name: 'Samples' }).click();
    for (const who of [p, g]) await who.getByRole('status').filter({ hasText: 'Live: changes by others show here as they happen.' }).waitFor();
    assert.equal(await write(p, 'Sample 2', 'Sample name', 'Beta'), 201);
    await g.waitForFunction(() => document.querySelector('[role=gridcell][aria-label="Sample name of Sample 2"] .cell-value')?.textContent === 'Beta');
    assert.equal(await write(g, 'Sample 1', 'Sample name', 'Alpha prime'), 200);
    await p.waitForFunction(() => document.querySelector('[role=gridcell][aria-label="Sample name of Sample 1"] .cell-value')?.textContent === 'Alpha prime');
  });

  test('builds a workflow whose notify step picks Grace by name, runs it on a row, and Grace hears of it at once', async () => {
    const p = page();
    const g = grace.page;
    await p.getByRole('link', { name: 'Workflows of Samples' }).click();
    await p.getByLabel('Workflow name').fill('Review');
    await p.getByRole('button', { name: 'Add workflow' }).click();
    await p.getByRole('heading', { name: 'Review', exact: true }).waitFor();
    const form = p.getByRole('form', { name: 'Add step' });
    await form.getByLabel('Widget').selectOption({ label: 'Send notification (sends a notification)' });
    await form.getByLabel('Step name').fill('Tell Grace');
    await form.getByRole('group', { name: 'People of the organization' }).getByRole('checkbox', { name: 'Grace Hopper' }).check();
    await form.getByRole('list', { name: 'Chosen recipients' }).getByText('Grace Hopper').waitFor();
    assert.equal(await form.getByText(/sids/i).count(), 0, 'no field asks for sids');
    await form.getByLabel('Notification title').fill('{{row.name}} is ready for review');
    await assertAccessible(p, 'a notify step picking its recipients');
    await form.getByRole('button', { name: 'Add step' }).click();
    await p.getByRole('button', { name: 'Move step 1: Tell Grace' }).waitFor();
    await p.getByText('To: Grace Hopper', { exact: false }).or(p.getByRole('definition').filter({ hasText: 'Grace Hopper' })).first().waitFor();

    await p.goBack();
    await p.goBack();
    await cell(p, 'Sample 1', 'Sample name').click();
    await p.getByRole('button', { name: 'Run workflow' }).click();
    const dialog = p.getByRole('dialog', { name: 'Run a workflow on Sample 1' });
    await dialog.getByLabel('Workflow').selectOption({ label: 'Review' });
    await dialog.getByRole('button', { name: 'Run' }).click();
    await p.getByRole('heading', { name: 'Review on Sample 1' }).waitFor();
    await g.getByRole('link', { name: 'Inbox, 1 unread' }).waitFor();
    await g.getByRole('link', { name: 'Inbox, 1 unread' }).click();
    await g.getByRole('link', { name: /Sample 1 is ready for review/ }).waitFor();
  });

  test('makes an API key, shown once, and revokes it after a confirmation', async () => {
    const p = page();
    await p.getByRole('link', { name: 'Your account (Ada Lovelace)' }).click();
    await p.getByLabel('Key name').fill('nightly import');
    await p.getByRole('button', { name: 'Create key' }).click();
    await p.getByRole('region', { name: 'Your new API key' }).waitFor();
    await p.getByRole('button', { name: 'I have copied it' }).click();
    await p.getByRole('button', { name: 'Revoke nightly import' }).click();
    const confirm = p.getByRole('dialog', { name: 'Revoke the key “nightly import”?' });
    await confirm.getByRole('button', { name: 'Revoke the key' }).click();
    await p.getByRole('status').filter({ hasText: 'The key “nightly import” is revoked: it no longer works.' }).waitFor();
    await p.getByText('You have no API key.').waitFor();
  });

  test('both sign out; no page raised an error', async () => {
    for (const who of [ada, grace]) {
      await who.page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await who.page.getByRole('heading', { name: 'Sign in' }).waitFor();
      assert.deepEqual(pageProblems(who.page), []);
    }
  });
});

describe('an unproven account, reloaded', () => {
  test('still sees its screen in the frame (not an error page), and signs out from it', async () => {
    const { context, page: p } = await newPerson(browser, server.baseUrl);
    await p.goto('/signup');
    const email = `${unique('later')}@records.test`;
    await p.getByLabel('First name').fill('Charles');
    await p.getByLabel('Last name').fill('Babbage');
    await p.getByLabel('Email').fill(email);
    await p.getByLabel('Password').fill(`Difference-Engine-${unique('pw')}-1822!`);
    await p.getByRole('button', { name: 'Create account' }).click();
    await p.getByRole('heading', { name: 'Check your email' }).waitFor();
    await p.reload();
    await p.getByRole('heading', { name: 'Check your email' }).waitFor();
    await p.getByText(email).first().waitFor();
    assert.equal(await p.getByText(/Something went wrong/).count(), 0);
    await p.goto('/o/nosuchorganiz/personnel');
    await p.getByRole('heading', { name: 'Check your email' }).waitFor();
    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.deepEqual(pageProblems(p), []);
    await context.close();
  });
});

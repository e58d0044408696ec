// The account screen (issue 14), as a member without the Admin role: their email and
// digest settings; an API key created in the app is shown once, copied, works as
// `Authorization: Bearer <key>` against the API, and once revoked in the app is refused
// (401); the password is changed (the old one is refused afterwards, other sessions end);
// signing out everywhere ends every session. Axe scans and screenshots at 1280×800 and 390×844.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { MESSAGES, expectDetail, expectStatus } from '../helpers/assertions.ts';
import { BASE_URL } from '../helpers/env.ts';
import { assertAccessible, assertKeyboardReachable, launchBrowser, newAccount, newPerson, newWorkspaceAt, pageProblems, screenshot, signInContext, type Account, type Workspace } from './lib.ts';
import { Api, anonymous } from '../helpers/http.ts';

let browser: Browser;
let ws: Workspace;
let member: Account;
let memberPersonnel = '';
let context: BrowserContext;
let page: Page;

before(async () => {
  browser = await launchBrowser();
  ws = await newWorkspaceAt(BASE_URL, 'account');
  member = await newAccount(BASE_URL, 'accountmember', 'Grace', 'Hopper');
  memberPersonnel = expectStatus(
    await ws.admin.api.post(`/organizations/personnel/list/organization/${ws.org.sid}/detail/`, { email: member.email, first_name: 'Grace', last_name: 'Hopper' }),
    201,
  ).json.sid;
  ({ context, page } = await newPerson(browser));
  await page.setViewportSize({ width: 1280, height: 800 });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
  await signInContext(context, member);
});

after(async () => {
  await context?.close();
  await browser?.close();
});

/** `GET path` with the API key as a Bearer credential, from the test (not the browser). */
async function withKey(key: string, path: string): Promise<number> {
  return (await fetch(`${BASE_URL}${path}`, { headers: { Authorization: `Bearer ${key}` } })).status;
}

describe('the account screen of a member', () => {
  test('is reached from the frame; shows only the person\'s own things, every control usable', async () => {
    await page.goto(`/o/${ws.org.sid}`);
    await page.getByRole('link', { name: 'Your account (Grace Hopper)' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByRole('button', { name: 'Save settings' }).waitFor();
    await page.getByText('You have no API key.').waitFor();
    // A member without the Admin role: nothing here needs a role, so nothing is disabled or refused.
    const disabled = await page.getByRole('main').getByRole('button').evaluateAll((els) => els.filter((el) => (el as HTMLButtonElement).disabled).length);
    assert.equal(disabled, 0);
    await assertAccessible(page, 'account');
    await assertKeyboardReachable(page, 'account');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await screenshot(page, 'account');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'phone/account-keys');
    await assertAccessible(page, 'account (phone)');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `nothing is cut off at 390 px (the page is ${overflow} px too wide)`);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('email and digest settings are saved on the member\'s personnel record', async () => {
    const settings = page.getByRole('form', { name: 'Notification settings' });
    const digest = settings.getByRole('checkbox', { name: 'Weekly digest of unread notifications' });
    const email = settings.getByRole('checkbox', { name: 'Email me every notification' });
    const wasDigest = await digest.isChecked();
    await digest.setChecked(!wasDigest);
    await email.setChecked(true);
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Your settings are saved.' }).waitFor();
    const record = expectStatus(await member.api.get(`/organizations/personnel/detail/${memberPersonnel}/`), 200).json;
    assert.equal(record.should_receive_weekly_digest, !wasDigest);
    assert.equal(record.should_receive_notification_email, true);
  });

  test('an API key created in the app is shown once with a copy button, works as Bearer, and stops working once revoked', async () => {
    const form = page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('Key name').fill('nightly import');
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: 'Your new API key' });
    await shown.waitFor();
    const key = (await shown.getByLabel('The new key').textContent())!.trim();
    assert.ok(key.length >= 32, `a key: ${key}`);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    await shown.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key, 'the copy button copies the key');
    await page.getByRole('row', { name: /nightly import/ }).waitFor();
    await assertAccessible(page, 'account with a new key');

    assert.equal(await withKey(key, '/accounts/checktoken/'), 200, 'the key authenticates');
    assert.equal(await withKey(key, `/organizations/personnel/list/organization/${ws.org.sid}/name/`), 200, 'and reaches the organization');

    // Shown once: after a reload only its name is listed.
    await page.reload();
    await page.getByRole('row', { name: /nightly import/ }).waitFor();
    assert.equal(await page.getByRole('region', { name: 'Your new API key' }).count(), 0);
    assert.equal(await page.getByText(key).count(), 0);

    // Revoked only after a confirmation: "Keep it" leaves it working.
    await page.getByRole('button', { name: 'Revoke nightly import' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke the key “nightly import”?' });
    await confirm.waitFor();
    await assertAccessible(page, 'revoking an API key');
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    await confirm.waitFor({ state: 'hidden' });
    assert.equal(await withKey(key, '/accounts/checktoken/'), 200, 'a key kept still works');
    await page.getByRole('button', { name: 'Revoke nightly import' }).click();
    await confirm.getByRole('button', { name: 'Revoke the key' }).click();
    await page.getByRole('status').filter({ hasText: 'The key “nightly import” is revoked: it no longer works.' }).waitFor();
    await page.getByText('You have no API key.').waitFor();
    assert.equal(await withKey(key, '/accounts/checktoken/'), 401, 'a revoked key is refused');
  });

  test('changing the password: a wrong current one is refused; afterwards the old one is, other sessions end, this one stays', async () => {
    const other = new Api(expectStatus(await anonymous.post('/accounts/auth/', { username: member.email, password: member.password }), 200).json.token, 'token');
    const form = page.getByRole('form', { name: 'Change your password' });
    const next = 'a fresh password for Grace 1906';
    await form.getByLabel('Current password').fill('not the password');
    await form.getByLabel('New password', { exact: true }).fill(next);
    await form.getByLabel('New password again').fill(next);
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('This is not your current password.').waitFor();
    await form.getByLabel('Current password').fill(member.password);
    await form.getByLabel('New password again').fill(`${next}!`);
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('The two new passwords differ: type the same one twice.').waitFor();
    await form.getByLabel('New password again').fill(next);
    await form.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password is changed.' }).waitFor();
    await assertAccessible(page, 'account after a password change');

    expectDetail(await anonymous.post('/accounts/auth/', { username: member.email, password: member.password }), 406, MESSAGES.badCredentials, 'the old password');
    expectStatus(await anonymous.post('/accounts/auth/', { username: member.email, password: next }), 200, 'the new password');
    expectDetail(await other.get('/accounts/checktoken/'), 401, MESSAGES.invalidToken, 'another session ended');
    // This browser's session stays signed in.
    await page.reload();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    member.password = next;
  });

  test('signing out everywhere ends every session of the account, this browser\'s too', async () => {
    const other = new Api(expectStatus(await anonymous.post('/accounts/auth/', { username: member.email, password: member.password }), 200).json.token, 'token');
    // Another browser of the same person, with the inbox open (and its live stream).
    const elsewhere = await newPerson(browser);
    await signInContext(elsewhere.context, member);
    await elsewhere.page.goto(`/o/${ws.org.sid}/notifications`);
    await elsewhere.page.locator('[data-live-state="live"]').waitFor();
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL('**/signin');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expectDetail(await other.get('/accounts/checktoken/'), 401, MESSAGES.invalidToken);
    // The other browser hears it on its stream (ended: "Invalid token.") and shows the sign-in page by itself.
    await elsewhere.page.waitForURL('**/signin**', { timeout: 10_000 });
    await elsewhere.context.close();
    assert.equal((await context.request.get('/accounts/session/')).status(), 401, 'the browser\'s session ended');
    await page.goto(`/o/${ws.org.sid}/account`);
    await page.waitForURL('**/signin**');
    assert.deepEqual(pageProblems(page), []);
  });
});

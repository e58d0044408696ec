// The mailed unlock link in the app (issue 21, point 5): while strangers' failures slow an
// account down, a browser the account has never seen is refused with the wait, and the
// owner opening the unlock link from the warning mail in a browser can sign in there at
// once. On a server of its own whose slow-down starts after 3 failures.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { readMail } from '../helpers/mail.ts';
import { newPeerAddress, signInFrom } from '../helpers/peer.ts';
import { assertAccessible, launchBrowser, linkIn, newAccount, newPerson, pageProblems, type Account } from './lib.ts';

let browser: Browser;
let server: RunningServer;
let owner: Account;

before(async () => {
  server = await startServer({ env: { LOGIN_FAILURES_ACCOUNT_SLOWDOWN: '3', LOGIN_SLOWDOWN_SECONDS: '900' } });
  browser = await launchBrowser();
  owner = await newAccount(server.baseUrl, 'unlocked', 'Ada', 'Lovelace', server.dataDir);
  // Three strangers, one failure each, then one more: slowed down, and the owner is mailed.
  for (let i = 0; i < 3; i += 1) assert.equal((await signInFrom(newPeerAddress(), owner.email, `guess-${i}`, { baseUrl: server.baseUrl })).status, 406);
  assert.equal((await signInFrom(newPeerAddress(), owner.email, 'guess-3', { baseUrl: server.baseUrl })).status, 406, 'the one attempt let through');
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function signInWith(page: import('playwright-core').Page, account: Account) {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('the unlock link', () => {
  test('a new browser waits; the owner\'s browser that opened the mailed link signs in at once', async () => {
    const stranger = await newPerson(browser, server.baseUrl);
    await signInWith(stranger.page, owner);
    await stranger.page.getByRole('alert').filter({ hasText: /^Too many failed attempts\. Try again in \d+ seconds\.$/ }).waitFor();
    await stranger.context.close();

    const warning = await readMail(owner.email, { dataDir: server.dataDir, subject: /^Many failed sign-ins/ });
    const link = linkIn(warning.body, '/accounts/unlock/');
    assert.ok(link, `an unlock link in:\n${warning.body}`);
    const { context, page } = await newPerson(browser, server.baseUrl);
    const url = new URL(link);
    await page.goto(`${url.pathname}${url.search}`);
    await page.getByText('This browser may sign in to your account now, whatever others try.').waitFor();
    await assertAccessible(page, 'unlock');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((at) => !at.pathname.startsWith('/signin') && !at.pathname.startsWith('/accounts/'));
    assert.equal((await context.request.get('/accounts/session/')).status(), 200, 'signed in');
    assert.deepEqual(pageProblems(page), []);
    await context.close();
  });
});

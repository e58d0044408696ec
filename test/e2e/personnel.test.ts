// The personnel screen: people are found by name or email (searched on the server, the
// search kept in the URL), and a member edits their own record: names, their email in
// the organization (mailed a proof link), dashboard links and metadata, which the API
// then holds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { expectStatus } from '../helpers/assertions.ts';
import { BASE_URL } from '../helpers/env.ts';
import { PROOF_SUBJECT, getPersonnel, paths, unique } from '../helpers/factories.ts';
import { readMail } from '../helpers/mail.ts';
import { assertAccessible, launchBrowser, newAccount, newPerson, newWorkspaceAt, pageProblems, signInContext, type Account, type Workspace } from './lib.ts';

let browser: Browser;
let ws: Workspace;
let member: Account;
let memberSid = '';
let tag = '';

before(async () => {
  browser = await launchBrowser();
  ws = await newWorkspaceAt(BASE_URL, 'people');
  member = await newAccount(BASE_URL, 'kj', 'Katherine', 'Johnson');
  tag = unique('p').replace(/[^a-z0-9]/g, '');
  const added = expectStatus(await ws.admin.api.post(paths.personnelList(ws.org.sid, 'detail'), [
    { email: member.email, first_name: 'Katherine', last_name: 'Johnson' },
    { email: `dorothy.${tag}@nasa.example`, first_name: 'Dorothy', last_name: 'Vaughan' },
    { email: `mary.${tag}@nasa.example`, first_name: 'Mary', last_name: 'Jackson' },
  ]), 201).json as { sid: string; email: string }[];
  memberSid = added.find((p) => p.email === member.email)!.sid;
});

after(async () => {
  await browser?.close();
});

/** The names in the personnel table, as shown. */
async function shownNames(page: import('playwright-core').Page): Promise<string[]> {
  return (await page.locator('table.data tbody th[scope="row"]').allTextContents()).sort();
}

describe('personnel', () => {
  test('people are found by part of their name or email, on the server, and the search stays in the URL', async () => {
    const { context, page } = await newPerson(browser);
    await signInContext(context, ws.admin);
    await page.goto(`/o/${ws.org.sid}/personnel`);
    await page.getByRole('heading', { name: 'Personnel' }).waitFor();
    await page.getByRole('table').getByText('Mary Jackson').waitFor();
    const box = page.getByRole('searchbox', { name: 'Search people by name or email' });

    const searched = page.waitForRequest((request) => new URL(request.url()).searchParams.get('search') === 'VAUG');
    await box.fill('VAUG');
    await searched;
    await page.getByRole('table', { name: 'People whose name or email contains "VAUG" (1)' }).waitFor();
    assert.deepEqual(await shownNames(page), ['Dorothy Vaughan']);
    assert.equal(new URL(page.url()).searchParams.get('q'), 'VAUG');

    await box.fill(`${tag}@nasa`);
    await page.getByRole('table', { name: `People whose name or email contains "${tag}@nasa" (2)` }).waitFor();
    assert.deepEqual(await shownNames(page), ['Dorothy Vaughan', 'Mary Jackson']);
    await assertAccessible(page, 'personnel searched');

    // A reload keeps the search; a search that finds nobody says so.
    await page.reload();
    await page.getByRole('table', { name: `People whose name or email contains "${tag}@nasa" (2)` }).waitFor();
    assert.equal(await box.inputValue(), `${tag}@nasa`);
    await box.fill('nobody by this name');
    await page.getByRole('status').filter({ hasText: 'No one\'s name or email contains "nobody by this name".' }).waitFor();
    assert.deepEqual(await shownNames(page), []);

    // Emptying the box shows everyone again.
    await box.fill('');
    await page.getByRole('table', { name: 'People of the organization (4)' }).waitFor();
    assert.equal(new URL(page.url()).searchParams.get('q'), null);
    assert.deepEqual(pageProblems(page), []);
    await context.close();
  });

  test('a member changes their own email, dashboard links and metadata; a wrong metadata says what is wrong', async () => {
    const { context, page } = await newPerson(browser);
    await signInContext(context, member);
    await page.goto(`/o/${ws.org.sid}/personnel`);
    await page.getByRole('button', { name: 'Edit Katherine Johnson' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit member' });
    const newEmail = `katherine.${tag}@nasa.example`;
    await dialog.getByLabel('Email in this organization').fill(newEmail);
    await dialog.getByRole('button', { name: 'Add a link' }).click();
    await dialog.getByLabel('Link 1', { exact: true }).fill('https://orbit.example/trajectories');
    await dialog.getByLabel('Note 1', { exact: true }).fill('Trajectories');
    await dialog.getByLabel('Metadata (a JSON list)').fill('{"orcid": "0000"}');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Metadata must be a JSON list').waitFor();
    // Nothing was sent: the record is as it was.
    const unchanged = await getPersonnel(member.api, memberSid);
    assert.deepEqual([unchanged.email, unchanged.dashboard, unchanged.metadata], [member.email, [], []]);
    await assertAccessible(page, 'edit own record with an error (member)');

    await dialog.getByLabel('Metadata (a JSON list)').fill('[{"orcid": "0000-0002-1825-0097"}]');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('row', { name: /Katherine Johnson/ }).getByRole('cell', { name: newEmail }).waitFor();

    const saved = await getPersonnel(member.api, memberSid);
    assert.equal(saved.email, newEmail);
    assert.deepEqual(saved.dashboard, [{ link: 'https://orbit.example/trajectories', note: 'Trajectories' }]);
    assert.deepEqual(saved.metadata, [{ orcid: '0000-0002-1825-0097' }]);
    const proof = await readMail(newEmail, { subject: PROOF_SUBJECT });
    assert.match(proof.body, /made .* their contact address/);

    // The dialog opens with what was saved, and a link is removed again.
    await page.getByRole('button', { name: 'Edit Katherine Johnson' }).click();
    assert.equal(await dialog.getByLabel('Note 1', { exact: true }).inputValue(), 'Trajectories');
    await dialog.getByRole('button', { name: 'Remove link 1' }).click();
    await dialog.getByText('No links yet').waitFor();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual((await getPersonnel(member.api, memberSid)).dashboard, []);
    assert.deepEqual(pageProblems(page), []);
    await context.close();
  });
});

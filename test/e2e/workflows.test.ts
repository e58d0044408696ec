// Workflows in the app, in real Chromium: an Admin creates a workflow for a table with
// steps edited through their widgets' settings (one waits for an event), reorders the
// steps by keyboard (the order the API then returns), archives and un-archives it,
// deletes another after confirming; runs it on a row from the grid, sees it wait,
// resumes it with an event typed in the app, and the log shows each step. A Member sees
// the workflows, steps and the execution but none of the controls they may not use.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { BASE_URL } from '../helpers/env.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { addMember, type TestMember, type TestUser } from '../helpers/factories.ts';
import { recordPaths } from '../helpers/records.ts';
import { assertAccessible, assertKeyboardReachable, launchBrowser, newPerson, newWorkspaceAt, pageProblems, screenshot, signInContext, type Workspace } from './lib.ts';

let browser: Browser;
let ws: Workspace;
let member: TestMember;
let rowSid = '';
let workflowSid = '';
let executionSid = '';
const rowName = 'Plate 1';

/** The steps as created, and the order after the keyboard move (Wait for approval from 4th to 2nd). */
const CREATED = ['Mark pending', 'Record approval', 'Lock the sample', 'Wait for approval', 'Tell the admin'];
const REORDERED = ['Mark pending', 'Wait for approval', 'Record approval', 'Lock the sample', 'Tell the admin'];

before(async () => {
  browser = await launchBrowser();
  ws = await newWorkspaceAt(BASE_URL, 'flows', ['Sample', 'Note']);
  rowSid = expectStatus(
    await ws.admin.api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name: rowName }),
    201,
  ).json.sid;
  // A workflow for no table in particular (made through the API) runs on this table's rows too.
  expectStatus(await ws.admin.api.post(`/tables/workflow/list/organization/${ws.org.sid}/detail/`, { name: 'Weekly check' }), 201);
  member = await addMember(ws.admin as unknown as TestUser, ws.org, {}, 'flowmember');
  expectStatus(await ws.admin.api.post(recordPaths.memberList(ws.project.sid), { personnel: member.personnel.sid, permission: 'view' }), 201);
});

after(async () => {
  await browser?.close();
});

/** The step names in the order the API gives them. */
async function apiStepOrder(): Promise<string[]> {
  const answer = expectStatus(await ws.admin.api.get(`/tables/step/list/organization/${ws.org.sid}/list/?workflow__sid=${workflowSid}&page_size=100`), 200).json;
  return answer.results.map((step: { name: string; order: number }, i: number) => {
    assert.equal(step.order, i + 1, 'orders are the positions 1, 2, 3 …');
    return step.name;
  });
}

/** The step names in the order the screen lists them. */
const screenStepOrder = (page: Page) =>
  page.getByRole('list', { name: 'Steps, in the order they run' }).locator(':scope > li strong').allTextContents();

/** No focus ring or hover, scrolled to the top: for a screenshot. */
async function toTop(page: Page) {
  await page.mouse.move(0, 0);
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
}

/** Drags the step whose handle is `from` with the mouse onto the place of the step whose handle is `to`. */
async function dragStep(page: Page, from: string, to: string) {
  // Both handles in the window (a mouse acts only there): the lower one scrolled into view.
  await page.getByRole('button', { name: from }).scrollIntoViewIfNeeded();
  await page.getByRole('button', { name: to }).scrollIntoViewIfNeeded();
  const source = (await page.getByRole('button', { name: from }).boundingBox())!;
  const target = (await page.getByRole('button', { name: to }).boundingBox())!;
  await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
  await page.mouse.down();
  const steps = 8;
  for (let i = 1; i <= steps; i += 1) {
    await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2 + ((target.y - source.y) * i) / steps);
  }
  await page.mouse.up();
}

async function addStep(page: Page, name: string, widget: string, settings: (form: ReturnType<Page['getByRole']>) => Promise<void>) {
  const form = page.getByRole('form', { name: 'Add step' });
  await form.getByLabel('Widget').selectOption({ label: widget });
  await form.getByLabel('Step name').fill(name);
  await settings(form);
  await form.getByRole('button', { name: 'Add step' }).click();
  await page.getByRole('button', { name: new RegExp(`^Move step \\d+: ${name}$`) }).waitFor();
}

describe('an Admin builds a workflow, runs it on a row, and resumes it with an event', () => {
  test('creates a workflow for the table from its workflows screen', async () => {
    const { context, page } = await newPerson(browser);
    await signInContext(context, ws.admin);
    await page.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}`);
    await page.getByRole('link', { name: `Workflows of ${ws.table.name}` }).click();
    await page.getByRole('heading', { name: `Workflows of ${ws.table.name}` }).waitFor();
    await page.getByText('No workflows for this table yet.').waitFor();
    await assertAccessible(page, 'workflows of a table (empty)');
    await page.getByLabel('Workflow name').fill('Review');
    await page.getByLabel('Description').fill('Mark a sample for review, wait for approval, record it and lock the sample.');
    await page.getByRole('button', { name: 'Add workflow' }).click();
    await page.getByRole('heading', { name: 'Review', exact: true }).waitFor();
    workflowSid = /\/workflows\/([^/?]+)/.exec(page.url())![1];
    // A second one, deleted after a confirmation.
    await page.getByRole('link', { name: `Workflows of ${ws.table.name}` }).click();
    await page.getByRole('link', { name: 'Review' }).waitFor();
    await page.getByRole('region', { name: 'Workflows for any table' }).getByRole('link', { name: 'Weekly check' }).waitFor();
    await assertAccessible(page, 'workflows of a table');
    await assertKeyboardReachable(page, 'workflows of a table');
    await page.getByLabel('Workflow name').fill('Scratch');
    await page.getByRole('button', { name: 'Add workflow' }).click();
    await page.getByRole('heading', { name: 'Scratch', exact: true }).waitFor();
    const scratch = /\/workflows\/([^/?]+)/.exec(page.url())![1];
    await page.getByRole('button', { name: 'Delete workflow' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the workflow?' });
    await confirm.getByText('This cannot be undone.', { exact: false }).waitFor();
    await assertAccessible(page, 'delete a workflow (confirmation)');
    await confirm.getByRole('button', { name: 'Delete workflow' }).click();
    await page.getByRole('heading', { name: `Workflows of ${ws.table.name}` }).waitFor();
    await page.getByRole('link', { name: 'Review' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Scratch' }).count(), 0);
    expectStatus(await ws.admin.api.get(`/tables/workflow/detail/${scratch}/`), 404);
    assert.deepEqual(pageProblems(page), []);
    await context.close();
  });

  test('adds steps through their widgets\' settings, reorders them by keyboard, edits one, archives and un-archives', async () => {
    const { context, page } = await newPerson(browser);
    await signInContext(context, ws.admin);
    await page.goto(`/o/${ws.org.sid}/workflows/${workflowSid}`);
    await page.getByRole('heading', { name: 'Review', exact: true }).waitFor();
    await page.getByText('No steps yet.').waitFor();
    await assertAccessible(page, 'workflow without steps');

    await addStep(page, 'Mark pending', 'Set cell (sets a cell of the row)', async (form) => {
      await form.getByLabel('Column').selectOption({ label: 'Note' });
      await form.getByLabel('Value').fill('pending review');
    });
    // A setting the engine refuses comes back at its field.
    const form = page.getByRole('form', { name: 'Add step' });
    await form.getByLabel('Widget').selectOption({ label: 'Wait for event (waits for an event)' });
    await form.getByLabel('Step name').fill('Wait for approval');
    await form.getByLabel('Event name').fill('   ');
    await form.getByRole('button', { name: 'Add step' }).click();
    await form.getByText('This setting may not be blank.').waitFor();
    await form.getByLabel('Widget').selectOption({ label: 'Set cell (sets a cell of the row)' });
    await form.getByLabel('Step name').fill('Record approval');
    await form.getByLabel('Column').selectOption({ label: 'Note' });
    await form.getByLabel('Value').fill('approved');
    await form.getByRole('button', { name: 'Add step' }).click();
    await page.getByRole('button', { name: 'Move step 2: Record approval' }).waitFor();
    await addStep(page, 'Lock the sample', 'Lock row (locks the row)', async () => {});
    await addStep(page, 'Wait for approval', 'Wait for event (waits for an event)', async (f) => {
      await f.getByLabel('Event name').fill('approved');
    });
    await addStep(page, 'Tell the admin', 'Send notification (sends a notification)', async (f) => {
      await f.getByRole('checkbox', { name: 'Ada Tester' }).check();
      await f.getByLabel('Notification title').fill('{{row.name}} is approved and locked');
      await f.getByLabel('Message').fill('Approved by {{variables.reviewer}}.');
    });
    assert.deepEqual(await screenStepOrder(page), CREATED);
    assert.deepEqual(await apiStepOrder(), CREATED);
    await assertAccessible(page, 'workflow with steps');

    // By keyboard: the handle of step 4, Space to pick it up, up twice, Space to drop.
    const handle = page.getByRole('button', { name: 'Move step 4: Wait for approval' });
    await handle.focus();
    await page.keyboard.press('Space');
    await page.getByText('Picked up step Wait for approval, at position 4 of 5.').waitFor({ state: 'attached' });
    await page.keyboard.press('ArrowUp');
    await page.getByText('Step Wait for approval is over position 3 of 5.').waitFor({ state: 'attached' });
    await page.keyboard.press('ArrowUp');
    await page.getByText('Step Wait for approval is over position 2 of 5.').waitFor({ state: 'attached' });
    await page.keyboard.press('Space');
    await page.getByText('Step Wait for approval dropped at position 2 of 5.').waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Move step 2: Wait for approval' }).waitFor();
    assert.deepEqual(await screenStepOrder(page), REORDERED);
    // The API stores the new order (the PATCH of the step's order has returned once nothing is saving).
    await page.getByText('Saving the new order…').waitFor({ state: 'detached' });
    assert.deepEqual(await apiStepOrder(), REORDERED);
    // The focus stays on the moved step's handle.
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Move step 2: Wait for approval');
    // After a reload, the same order.
    await page.reload();
    await page.getByRole('button', { name: 'Move step 2: Wait for approval' }).waitFor();
    assert.deepEqual(await screenStepOrder(page), REORDERED);

    // By mouse: the last step dragged by its handle above the one before it, and back.
    await dragStep(page, 'Move step 5: Tell the admin', 'Move step 4: Lock the sample');
    await page.getByRole('button', { name: 'Move step 4: Tell the admin' }).waitFor();
    await page.getByText('Saving the new order…').waitFor({ state: 'detached' });
    const dragged = [...REORDERED.slice(0, 3), 'Tell the admin', 'Lock the sample'];
    assert.deepEqual(await screenStepOrder(page), dragged);
    assert.deepEqual(await apiStepOrder(), dragged);
    await dragStep(page, 'Move step 4: Tell the admin', 'Move step 5: Lock the sample');
    await page.getByRole('button', { name: 'Move step 5: Tell the admin' }).waitFor();
    await page.getByText('Saving the new order…').waitFor({ state: 'detached' });
    assert.deepEqual(await apiStepOrder(), REORDERED);

    // A step edited through its widget's settings.
    await page.getByRole('button', { name: 'Edit step Record approval' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit the step' });
    assert.equal(await dialog.getByLabel('Value').inputValue(), 'approved');
    await dialog.getByLabel('Value').fill('approved by {{variables.reviewer}}');
    await assertAccessible(page, 'edit a step');
    await dialog.getByRole('button', { name: 'Save step' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('approved by {{variables.reviewer}}', { exact: true }).waitFor();
    const edited = expectStatus(await ws.admin.api.get(`/tables/step/list/organization/${ws.org.sid}/detail/?workflow__sid=${workflowSid}`), 200).json.results[2];
    assert.deepEqual(edited.data, { column: ws.columns[1].sid, value: 'approved by {{variables.reviewer}}' });

    // Name and description.
    await page.getByRole('button', { name: 'Edit name and description' }).click();
    const details = page.getByRole('dialog', { name: 'Edit the workflow' });
    await details.getByLabel('Workflow name').fill('Sample review');
    await details.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Sample review', exact: true }).waitFor();

    // Archived, it says it cannot run; un-archived again.
    await page.getByRole('button', { name: 'Archive workflow', exact: true }).click();
    await page.getByText('Archived: it cannot be run until it is un-archived.', { exact: false }).waitFor();
    assert.equal(expectStatus(await ws.admin.api.get(`/tables/workflow/detail/${workflowSid}/`), 200).json.is_archived, true);
    await page.getByRole('button', { name: 'Un-archive workflow' }).click();
    await page.getByRole('button', { name: 'Archive workflow', exact: true }).waitFor();
    assert.equal(expectStatus(await ws.admin.api.get(`/tables/workflow/detail/${workflowSid}/`), 200).json.is_archived, false);

    await assertAccessible(page, 'workflow');
    await assertKeyboardReachable(page, 'workflow');
    await page.setViewportSize({ width: 1280, height: 800 });
    await toTop(page);
    await screenshot(page, 'workflow');
    await page.setViewportSize({ width: 390, height: 844 });
    await assertAccessible(page, 'workflow (phone)');
    await toTop(page);
    await screenshot(page, 'phone/workflow-steps');
    assert.deepEqual(pageProblems(page), []);
    await context.close();
  });

  test('runs the workflow on a row from the grid; it waits; an event typed in the app resumes it; the log shows each step', async () => {
    const { context, page } = await newPerson(browser);
    await signInContext(context, ws.admin);
    await page.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}/rows?project=${ws.project.sid}`);
    await page.getByRole('rowheader', { name: rowName }).click();
    await page.getByRole('button', { name: 'Run workflow' }).click();
    const dialog = page.getByRole('dialog', { name: `Run a workflow on ${rowName}` });
    await dialog.getByLabel('Workflow').selectOption({ label: 'Sample review' });
    await dialog.getByLabel('Variables (optional)').fill('{"reviewer": "Ada"');
    await dialog.getByRole('button', { name: 'Run' }).click();
    await dialog.getByText('Variables must be a JSON object').waitFor();
    await dialog.getByLabel('Variables (optional)').fill('{"reviewer": "Ada"}');
    await assertAccessible(page, 'run a workflow on a row');
    await dialog.getByRole('button', { name: 'Run' }).click();

    await page.getByRole('heading', { name: `Sample review on ${rowName}` }).waitFor();
    executionSid = /\/executions\/([^/?]+)/.exec(page.url())![1];
    const state = page.getByRole('definition').filter({ hasText: 'Waiting for "approved"' });
    await state.waitFor();
    const log = page.getByRole('table', { name: /Log of the execution/ });
    const events = async () => (await log.locator('tbody tr th').allTextContents());
    assert.deepEqual(await events(), ['started', 'updated', 'step_completed', 'waiting']);
    await log.getByRole('row', { name: /step_completed.*Mark pending.*pending review/ }).waitFor();
    await page.getByRole('region', { name: 'Variables' }).getByText('"reviewer": "Ada"').waitFor();
    // The row changed: the first step set its Note.
    const cells = expectStatus(await ws.admin.api.get(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: rowSid })), 200).json.results;
    assert.deepEqual(cells.map((c: { data: string }) => c.data), ['pending review']);
    await assertAccessible(page, 'execution (waiting)');
    await assertKeyboardReachable(page, 'execution (waiting)');
    await page.setViewportSize({ width: 1280, height: 800 });
    await toTop(page);
    await screenshot(page, 'execution');
    await page.setViewportSize({ width: 390, height: 844 });
    await assertAccessible(page, 'execution (phone)');
    await toTop(page);
    await screenshot(page, 'phone/execution-waiting');
    await page.setViewportSize({ width: 1280, height: 860 });

    // The event the execution waits for, typed in the app.
    const send = page.getByRole('form', { name: 'Send an event' });
    assert.equal(await send.getByLabel('Event').inputValue(), 'approved');
    await send.getByRole('button', { name: 'Send event' }).click();
    await page.getByRole('definition').filter({ hasText: 'Completed' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'The event "approved" was sent; the execution is now completed.' }).waitFor();
    assert.deepEqual(await events(), [
      'started', 'updated', 'step_completed', 'waiting',
      'triggered', 'approved', 'resumed', 'step_completed', 'step_completed', 'step_completed', 'completed',
    ]);
    // Each step has its entry in the log, in the order they ran.
    const stepColumn = await log.locator('tbody tr').evaluateAll((rows) =>
      rows.filter((r) => ['step_completed', 'waiting'].includes(r.querySelector('th')?.textContent ?? '')).map((r) => r.children[3]?.textContent));
    assert.deepEqual(stepColumn, REORDERED);
    await log.getByRole('row', { name: /step_completed.*Record approval.*approved by Ada/ }).waitFor();
    await log.getByRole('row', { name: /step_completed.*Lock the sample.*Locked the row/ }).waitFor();
    await log.getByRole('row', { name: /step_completed.*Tell the admin.*Sent the notification "Plate 1 is approved and locked"/ }).waitFor();
    assert.equal(await page.getByRole('form', { name: 'Send an event' }).count(), 0, 'an ended execution takes no event');
    await assertAccessible(page, 'execution (completed)');

    // The API agrees: the execution completed, the row is locked and its Note set.
    const execution = expectStatus(await ws.admin.api.get(`/tables/execution/detail/${executionSid}/`), 200).json;
    assert.equal(execution.status, 'completed');
    assert.deepEqual(execution.variables, { reviewer: 'Ada' });
    const row = expectStatus(await ws.admin.api.get(recordPaths.rowDetail(rowSid)), 200).json;
    assert.equal(row.is_locked, true);
    const after = expectStatus(await ws.admin.api.get(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: rowSid })), 200).json.results;
    assert.deepEqual(after.map((c: { data: string }) => c.data), ['approved by Ada']);

    // The workflow screen lists the execution.
    await page.getByRole('link', { name: 'Workflow Sample review' }).click();
    await page.getByRole('table', { name: /Executions of this workflow/ }).getByRole('link', { name: rowName }).waitFor();
    assert.deepEqual(pageProblems(page), []);
    await context.close();
  });
});

describe('a Member sees the workflows but none of the controls they may not use', () => {
  test('no create, edit, reorder, delete, run or event control; each says why', async () => {
    const { context, page } = await newPerson(browser);
    await signInContext(context, member);
    await page.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}/workflows`);
    await page.getByRole('link', { name: 'Sample review' }).waitFor();
    await page.getByText("Only the organization's Admins create workflows.").waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add workflow' }).count(), 0);
    await assertAccessible(page, 'workflows of a table (member)');

    await page.getByRole('link', { name: 'Sample review' }).click();
    await page.getByRole('heading', { name: 'Sample review', exact: true }).waitFor();
    await page.getByRole('list', { name: 'Steps, in the order they run' }).getByText('Tell the admin').waitFor();
    assert.deepEqual(await screenStepOrder(page), REORDERED);
    assert.equal(await page.getByRole('button', { name: /^Move step/ }).count(), 0, 'no reorder handles');
    for (const name of ['Edit name and description', 'Archive workflow', 'Delete workflow', 'Edit step Mark pending', 'Delete step Mark pending']) {
      const control = page.getByRole('button', { name, exact: true });
      assert.ok(await control.isDisabled(), `${name} is disabled`);
      assert.match((await control.getAttribute('aria-describedby')) ?? '', /.+/, `${name} says why`);
    }
    await page.getByText("Only the organization's Admins change workflows and their steps.").first().waitFor();
    assert.equal(await page.getByRole('form', { name: 'Add step' }).count(), 0);
    await assertAccessible(page, 'workflow (member)');

    // The execution of a row of their project: readable, but no event to send.
    await page.getByRole('table', { name: /Executions of this workflow/ }).getByRole('link', { name: rowName }).click();
    await page.getByRole('heading', { name: `Sample review on ${rowName}` }).waitFor();
    await page.getByText("Only the organization's Admins send events to an execution.").waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send event' }).count(), 0);
    await assertAccessible(page, 'execution (member)');

    // The grid: no Run workflow.
    await page.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}/rows?project=${ws.project.sid}`);
    await page.getByRole('rowheader', { name: new RegExp(rowName) }).click();
    await page.getByRole('button', { name: /Lock row|Unlock row/ }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Run workflow' }).count(), 0);
    assert.deepEqual(pageProblems(page), []);
    await context.close();
  });
});

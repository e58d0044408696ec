// Every screen of the app at a laptop's window (1280×800) and a phone's (390×844): it
// shows without a sideways scroll of the page (the grid scrolls sideways inside its own
// frame), an axe-core scan finds no serious or critical violation, Tab reaches every
// control (at the laptop's size), and a screenshot of
// each is written to docs/screenshots/{desktop,phone}/ (the README shows the main ones).
// A new person's empty screens say what to do next.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { expectStatus } from '../helpers/assertions.ts';
import { BASE_URL } from '../helpers/env.ts';
import { sendNotification } from '../helpers/notifications.ts';
import { recordPaths } from '../helpers/records.ts';
import { assertAccessible, assertKeyboardReachable, launchBrowser, newAccount, newWorkspaceAt, pageProblems, screenshot, signInContext, type Workspace } from './lib.ts';

const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
] as const;

let browser: Browser;
let ws: Workspace;
let rowSid = '';
let notificationSid = '';
let workflowSid = '';

before(async () => {
  browser = await launchBrowser();
  ws = await newWorkspaceAt(BASE_URL, 'screens', ['Sample', 'Concentration', 'Operator', 'Note']);
  const api = ws.admin.api;
  const rows = [];
  for (const name of ['Plate 1', 'Plate 2', 'Plate 3']) {
    rows.push(expectStatus(await api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name }), 201).json);
  }
  rowSid = rows[0].sid;
  for (const [i, column] of ws.columns.entries()) {
    expectStatus(await api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: rowSid }), { column: column.sid, data: `value ${i + 1}` }), 201);
  }
  const me = { sid: ws.adminPersonnel, name: 'Ada Tester' };
  notificationSid = (await sendNotification(api, ws.org.sid, [me], { name: 'Plates ready', body: 'Plate 1 to 3 are in the cold room.' })).sid;
  workflowSid = expectStatus(await api.post(`/tables/workflow/list/organization/${ws.org.sid}/detail/?table__sid=${ws.table.sid}`, { name: 'Weekly check' }), 201).json.sid;
});

after(async () => {
  await browser?.close();
});

/**
 * Nothing sticks out of a `width`-pixel window: the page does not scroll sideways and no
 * element ends right of the window, unless it is inside a frame that scrolls sideways
 * itself (the grid, a wide table's wrapper).
 */
async function assertFitsWidth(page: Page, width: number, screen: string): Promise<void> {
  // (No named inner function: tsx would wrap it in a `__name` helper the page lacks.)
  const outside = await page.evaluate((limit) => {
    const found: string[] = [];
    if (document.documentElement.scrollWidth > limit) found.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= limit + 1) continue;
      let inScroller = false;
      for (let at = el.parentElement; at && at !== document.body && !inScroller; at = at.parentElement) {
        inScroller = ['auto', 'scroll'].includes(getComputedStyle(at).overflowX) && at.clientWidth <= limit;
      }
      if (inScroller) continue;
      found.push(`${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ')[0]}` : ''} "${(el.textContent ?? '').trim().slice(0, 24)}" ends at ${Math.round(r.right)} px`);
    }
    return found.slice(0, 8);
  }, width);
  assert.deepEqual(outside, [], `${screen}: cut off or scrolling sideways in a ${width} px window`);
}

for (const size of SIZES) {
  describe(`every screen at ${size.viewport.width}×${size.viewport.height} (${size.name})`, () => {
    /** Opens `path`, waits for its heading, and checks and photographs the screen. */
    async function visit(page: Page, path: string, heading: string | RegExp, shot: string): Promise<void> {
      await page.goto(path);
      await page.getByRole('heading', { name: heading, exact: typeof heading === 'string' }).first().waitFor();
      await page.waitForLoadState('networkidle');
      await assertFitsWidth(page, size.viewport.width, `${shot} (${size.name})`);
      await assertAccessible(page, `${shot} (${size.name})`);
      await screenshot(page, `${size.name}/${shot}`);
      if (size.name === 'desktop') await assertKeyboardReachable(page, shot);
    }

    async function person() {
      const context = await browser.newContext({ baseURL: BASE_URL, viewport: size.viewport, locale: 'en-US', timezoneId: 'UTC', isMobile: size.name === 'phone', hasTouch: size.name === 'phone' });
      context.setDefaultTimeout(15_000);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      (page as Page & { problems?: string[] }).problems = problems;
      return { context, page };
    }

    test('signed out: sign in, sign up, forgot password', async () => {
      const { context, page } = await person();
      await visit(page, '/signin', 'Sign in', 'sign-in');
      await visit(page, '/signup', 'Create an account', 'sign-up');
      await visit(page, '/forgot-password', /Forgot|Reset/, 'forgot-password');
      assert.deepEqual(pageProblems(page), []);
      await context.close();
    });

    test('a newcomer without an organization is asked to create one; its empty screens say what to do next', async () => {
      const newcomer = await newAccount(BASE_URL, `newcomer-${size.name}`, 'Rosalind', 'Franklin');
      const { context, page } = await person();
      await signInContext(context, newcomer);
      await visit(page, '/', 'Create your organization', 'first-run');
      const org = expectStatus(await newcomer.api.post(`/organizations/organization/list/user/${newcomer.sid}/detail/`, { name: `Franklin Lab ${size.name}` }), 201).json;
      await visit(page, `/o/${org.sid}`, 'Overview', 'overview-empty');
      await page.getByText('No projects yet. A project holds records and says who may change them').waitFor();
      await page.getByText('Create the first one below.').waitFor();
      await page.getByText('Create one below, then add its columns.').waitFor();
      await visit(page, `/o/${org.sid}/notifications`, 'Inbox', 'inbox-empty');
      await page.getByText('Nothing here yet.').waitFor();
      assert.deepEqual(pageProblems(page), []);
      await context.close();
    });

    test('an Admin: overview, personnel, widgets, project, table, grid, history, workflows, a workflow, inbox, a notification, account', async () => {
      const { context, page } = await person();
      await signInContext(context, ws.admin);
      const org = `/o/${ws.org.sid}`;
      await visit(page, org, 'Overview', 'overview');
      await visit(page, `${org}/personnel`, 'Personnel', 'personnel');
      await visit(page, `${org}/widgets`, 'Widgets', 'widgets');
      await visit(page, `${org}/projects/${ws.project.sid}`, ws.project.name, 'project');
      await visit(page, `${org}/tables/${ws.table.sid}`, ws.table.name, 'table');
      await visit(page, `${org}/tables/${ws.table.sid}/rows?project=${ws.project.sid}`, ws.table.name, 'grid');
      await page.getByRole('rowheader', { name: 'Plate 1' }).waitFor();
      await visit(page, `${org}/rows/${rowSid}`, 'History of Plate 1', 'history');
      await visit(page, `${org}/tables/${ws.table.sid}/workflows`, `Workflows of ${ws.table.name}`, 'workflows');
      await visit(page, `${org}/workflows/${workflowSid}`, /Weekly check/, 'workflow');
      await visit(page, `${org}/notifications`, 'Inbox', 'inbox');
      await visit(page, `${org}/notifications/${notificationSid}`, 'Plates ready', 'notification');
      await visit(page, `${org}/account`, 'Your account', 'account');
      assert.deepEqual(pageProblems(page), []);
      await context.close();
    });
  });
}

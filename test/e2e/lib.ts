// End-to-end helpers: one headless Chromium per test file (Debian's /usr/bin/chromium driven
// by playwright-core, never a downloaded browser), pages on the server under test, an
// accessibility scan (axe-core) of every screen, and screenshots for the README.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { BASE_URL, DB_KIND, PROJECT_ROOT } from '../helpers/env.ts';
import { Api } from '../helpers/http.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { unique } from '../helpers/factories.ts';
import { recordPaths } from '../helpers/records.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run',
];

/** Where the e2e tests write the screenshots the README shows. */
export const SCREENSHOTS = path.join(PROJECT_ROOT, 'docs', 'screenshots');

/** Starts the browser (one per test file). */
export async function launchBrowser(): Promise<Browser> {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is needed (apt-get install chromium; .ci/run installs it)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}

/** A fresh browser context (its own cookies: one person) on `baseUrl`, and a page in it. */
export async function newPerson(browser: Browser, baseUrl = BASE_URL): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 860 }, locale: 'en-US', timezoneId: 'UTC' });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const problems: string[] = [];
  // A read the server turned away while busy (503 with Retry-After: the heavy-work budget)
  // is asked again by the app (lib/api/client.ts); the browser still logs the 503. It is a
  // problem only if that address was not answered after it.
  let seen = 0;
  const lastAnswered = new Map<string, number>();
  const lastBusy = new Map<string, number>();
  const busyLogged = new Set<string>();
  page.on('response', (response) => {
    seen += 1;
    if (response.ok()) lastAnswered.set(response.url(), seen);
    else if (response.status() === 503) lastBusy.set(response.url(), seen);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error' || /status of 4\d\d/.test(message.text())) return;
    if (/status of 503/.test(message.text()) && message.location().url) busyLogged.add(message.location().url);
    else problems.push(`console error: ${message.text()}`);
  });
  // The page's own array (a test may empty it), with each 503 not answered after added once.
  const reported = new Set<string>();
  Object.defineProperty(page, 'problems', {
    get: () => {
      for (const url of new Set([...busyLogged, ...lastBusy.keys()])) {
        const at = lastBusy.get(url) ?? Infinity;
        if ((lastAnswered.get(url) ?? 0) >= at || reported.has(`${url} ${at}`)) continue;
        reported.add(`${url} ${at}`);
        problems.push(`503 for ${url}, not answered after`);
      }
      return problems;
    },
  });
  return { context, page };
}

/** JavaScript errors the page raised so far (none expected). */
export function pageProblems(page: Page): string[] {
  return (page as Page & { problems?: string[] }).problems ?? [];
}

/** Scans the page with axe-core: no serious or critical violation (WCAG 2.x A and AA rules). */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`),
    [],
    `accessibility of ${screen}`,
  );
}

/** Writes a screenshot for the README (from the PostgreSQL run only, so both runs agree). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const file = path.join(SCREENSHOTS, `${name}.png`);
  if (DB_KIND !== 'postgres' && fs.existsSync(file)) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file });
}

// ------------------------------------------------------------------ data --


export interface Account {
  sid: string;
  email: string;
  password: string;
  first_name: string;
  last_name: string;
  api: Api;
}

/** The tag of an emailed link to `path` (e.g. /accounts/verifyemail/) in a mail body. */
export function linkIn(body: string, linkPath: string): string | null {
  const match = new RegExp(`(https?://[^\\s]*${linkPath.replace(/[/?]/g, '\\$&')}\\?tag=[A-Za-z0-9_%-]+)`).exec(body);
  return match ? match[1] : null;
}

/** Signs up an account through the API (and proves its email when signup asks for that). */
export async function newAccount(baseUrl: string, label: string, first_name = 'Ada', last_name = 'Tester', dataDir?: string): Promise<Account> {
  const guest = new Api(null, 'token', baseUrl);
  const email = `${unique(label)}@records.test`;
  const password = `Pw-${randomBytes(9).toString('base64url')}-9!`;
  const signed = expectStatus(await guest.post('/accounts/signup/', { email, password, first_name, last_name }), 201, 'signup').json;
  if (signed.is_email_verified === false) await proveEmail(baseUrl, email, dataDir);
  const token = expectStatus(await guest.post('/accounts/auth/', { username: email, password }), 200, 'login').json.token as string;
  return { sid: signed.sid, email, password, first_name, last_name, api: new Api(token, 'token', baseUrl) };
}

/** Proves `email` with the link mailed to it (design.md "Proving an email"). */
export async function proveEmail(baseUrl: string, email: string, dataDir?: string): Promise<void> {
  const { readMail } = await import('../helpers/mail.ts');
  const mail = await readMail(email, { subject: /verif|confirm|prove/i, ...(dataDir ? { dataDir } : {}) });
  const link = linkIn(mail.body, '/accounts/verifyemail/');
  assert.ok(link, `a verification link in ${mail.body}`);
  const url = new URL(link);
  expectStatus(await new Api(null, 'token', baseUrl).post(`${url.pathname}${url.search}`), 200, 'proving the email');
}

/** Signs the browser context in as `account` through the session endpoint (the cookie lands in the context). */
export async function signInContext(context: BrowserContext, account: { email: string; password: string }): Promise<void> {
  const answer = await context.request.post('/accounts/session/', {
    data: { username: account.email, password: account.password },
    headers: { 'X-Requested-With': 'records-web' },
  });
  assert.equal(answer.status(), 200, `session sign-in: ${await answer.text()}`);
}

async function created(res: { status: number; json: any; text: string }, what: string) {
  expectStatus(res as never, 201, what);
  return res.json;
}

export interface Workspace {
  admin: Account;
  org: { sid: string; name: string; credits: string };
  adminPersonnel: string;
  project: { sid: string; name: string };
  table: { sid: string; name: string };
  columns: Array<{ sid: string; name: string }>;
}

/**
 * Through the API: an account that is Admin of a new organization and Project Admin of its
 * project, a table and text columns.
 */
/** (`dataDir`: the server's DATA_DIR when it is not the harness's, where its proof mail lands.) */
export async function newWorkspaceAt(baseUrl: string, label: string, columnNames = ['Sample', 'Note'], dataDir?: string): Promise<Workspace> {
  const admin = await newAccount(baseUrl, label, 'Ada', 'Tester', dataDir);
  const api = admin.api;
  const org = await created(await api.post(`/organizations/organization/list/user/${admin.sid}/detail/`, { name: `Lab ${unique('o')}` }), 'organization');
  const personnel = expectStatus(await api.get(`/organizations/personnel/list/organization/${org.sid}/name/`), 200).json.results[0];
  const project = await created(await api.post(recordPaths.projectList(org.sid), { name: `Project ${unique('p')}` }), 'project');
  await created(await api.post(recordPaths.memberList(project.sid), { personnel: personnel.sid, permission: 'admin' }), 'project role');
  const table = await created(await api.post(recordPaths.tableList(org.sid), { name: `Table ${unique('t')}` }), 'table');
  const columns: Array<{ sid: string; name: string }> = [];
  for (const [order, name] of columnNames.entries()) {
    columns.push(await created(await api.post(recordPaths.columnList(org.sid, 'detail', { table__sid: table.sid }), { name, widget: 'builtinWidgetTxt', order }), 'column'));
  }
  return { admin, org, adminPersonnel: personnel.sid, project, table, columns };
}

/**
 * Every enabled control on the page is reached with Tab (a grid counts as one stop: inside
 * it the arrows move), in a number of presses close to the number of controls.
 */
export async function assertKeyboardReachable(page: Page, screen: string): Promise<void> {
  const count = await page.evaluate(() => {
    const controls = [...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')].filter(
      (el) =>
        !(el as HTMLButtonElement).disabled &&
        el.tabIndex >= 0 &&
        el.getClientRects().length > 0 &&
        !el.closest('[role=grid]') &&
        !el.closest('dialog:not([open])'),
    );
    controls.forEach((el, i) => (el.dataset.kbd = String(i)));
    (document.activeElement as HTMLElement | null)?.blur();
    return controls.length;
  });
  const hasGrid = (await page.getByRole('grid').count()) > 0;
  const reached = new Set<string>();
  let gridReached = false;
  for (let i = 0; i < count + 8; i += 1) {
    await page.keyboard.press('Tab');
    const where = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return { kbd: el?.dataset.kbd ?? null, inGrid: Boolean(el?.closest('[role=grid]')) };
    });
    if (where.kbd !== null) reached.add(where.kbd);
    if (where.inGrid) {
      gridReached = true;
      // Arrows, not Tab, move inside the grid; Tab leaves it.
    }
  }
  const missing = [...Array(count).keys()].map(String).filter((i) => !reached.has(i));
  const names = await page.evaluate(
    (ids) => ids.map((id) => {
      const el = document.querySelector<HTMLElement>(`[data-kbd="${id}"]`);
      return `${el?.tagName.toLowerCase()} "${(el?.getAttribute('aria-label') ?? el?.textContent ?? '').trim().slice(0, 40)}"`;
    }),
    missing,
  );
  assert.deepEqual(names, [], `controls of ${screen} that Tab does not reach`);
  if (hasGrid) assert.ok(gridReached, `Tab reaches the grid of ${screen}`);
}

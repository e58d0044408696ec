// Notifications in the app (issue 14): two people in two browser contexts. One sends the
// other a message, which appears in the other's open inbox and unread count within a
// second without a reload (on PostgreSQL the sender's browser uses a second server process
// of its own, so the notification crosses processes); opening it marks it read; a reply is threaded through `parent`; a
// mention in a cell of the grid notifies the person mentioned; after a dropped connection
// the browser reconnects with Last-Event-ID and the inbox and count catch up. The member
// (no Admin role) sees no control they may not use. Axe scans and screenshots of the
// inbox and of one notification.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expectStatus } from '../helpers/assertions.ts';
import { BASE_URL, DATA_DIR, DB_KIND } from '../helpers/env.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { readMail } from '../helpers/mail.ts';
import { inbox } from '../helpers/notifications.ts';
import { recordPaths } from '../helpers/records.ts';
import {
  assertAccessible, assertKeyboardReachable, launchBrowser, newAccount, newPerson, newWorkspaceAt, pageProblems, screenshot,
  signInContext, type Account, type Workspace,
} from './lib.ts';

/**
 * A TCP proxy in front of the server for the member's browser, so the test can drop its
 * connections (the live stream's among them) and refuse new ones for a while, as a
 * network that goes away does. (Chromium's offline emulation leaves an open stream alone.)
 */
class Cable {
  private readonly sockets = new Set<net.Socket>();
  private down = false;
  private readonly server = net.createServer((client) => {
    if (this.down) return void client.destroy();
    const target = new URL(BASE_URL);
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }
  /** Drops every open connection and refuses new ones until `restore`. */
  cut() {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
  }
  restore() {
    this.down = false;
  }
  close() {
    this.cut();
    this.server.close();
  }
}

const cable = new Cable();
let browser: Browser;
/** On PostgreSQL the sender's browser talks to a server process of its own, the recipient's to the run's server. */
let second: RunningServer | null = null;
let senderBase = BASE_URL;
let ws: Workspace;
let member: Account;
let memberPersonnel = '';
const ROW = 'Plate 7';
const people: Array<{ context: BrowserContext; page: Page }> = [];

before(async () => {
  browser = await launchBrowser();
  if (DB_KIND === 'postgres') {
    second = await startServer({ dataDir: DATA_DIR });
    senderBase = second.baseUrl;
  }
  ws = await newWorkspaceAt(BASE_URL, 'notif');
  member = await newAccount(BASE_URL, 'notifmember', 'Grace', 'Hopper');
  const added = expectStatus(
    await ws.admin.api.post(`/organizations/personnel/list/organization/${ws.org.sid}/detail/`, {
      email: member.email, first_name: 'Grace', last_name: 'Hopper',
    }),
    201,
    'adding the member',
  ).json;
  memberPersonnel = added.sid;
  // Grace accepts the organization (otherwise it mails her nothing; docs/decisions.md, "Consent before mail").
  expectStatus(await member.api.post(`/organizations/personnel/detail/${memberPersonnel}/accept/`), 200);
  // Project View: the member may read the project's rows, so a mention there reaches them.
  expectStatus(await ws.admin.api.post(recordPaths.memberList(ws.project.sid), { personnel: memberPersonnel, permission: 'view' }), 201);
  expectStatus(
    await ws.admin.api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name: ROW }),
    201,
  );
});

after(async () => {
  cable.close();
  for (const { context } of people) await context.close().catch(() => {});
  await browser?.close();
  await second?.stop();
});

/** A person signed in (session cookie) with the inbox open. */
async function openInbox(account: Account, baseUrl = BASE_URL): Promise<Page> {
  const person = await newPerson(browser, baseUrl);
  people.push(person);
  await person.page.setViewportSize({ width: 1280, height: 800 });
  await signInContext(person.context, account);
  await person.page.goto(`/o/${ws.org.sid}/notifications`);
  await person.page.getByRole('heading', { name: 'Inbox' }).waitFor();
  await liveIs(person.page, 'live');
  return person.page;
}

async function liveIs(page: Page, state: 'live' | 'reconnecting') {
  await page.locator(`[data-live-state="${state}"]`).waitFor();
}

const inboxLink = (page: Page) => page.getByRole('link', { name: /^Inbox, \d+ unread$/ });

async function unreadShown(page: Page): Promise<number> {
  const name = await inboxLink(page).getAttribute('aria-label');
  return Number(/Inbox, (\d+) unread/.exec(name ?? '')?.[1]);
}

/** Waits until the inbox link says `count` unread; returns how long it took. */
async function waitForUnread(page: Page, count: number, timeout = 15_000): Promise<number> {
  const started = Date.now();
  await page.getByRole('link', { name: `Inbox, ${count} unread` }).waitFor({ timeout });
  return Date.now() - started;
}

let adminPage: Page;
let memberPage: Page;

describe('two people, two browsers: notifications arrive live', () => {
  test('a message sent from one browser appears in the other\'s open inbox and unread count without a reload', async (t) => {
    adminPage = await openInbox(ws.admin, senderBase);
    memberPage = await openInbox(member, await cable.start());
    assert.equal(await unreadShown(memberPage), 0);
    await memberPage.getByText('Nothing here yet.').waitFor();
    await assertAccessible(memberPage, 'inbox, empty (member)');
    const memberUrl = memberPage.url();

    await adminPage.getByRole('button', { name: 'New message' }).click();
    const dialog = adminPage.getByRole('dialog', { name: 'New message' });
    const recipient = dialog.getByLabel('Add a recipient by name');
    await dialog.getByText('Type a name; Enter adds the suggestion.').waitFor();
    await recipient.fill('Grace');
    await recipient.press('Enter');
    await dialog.getByRole('list', { name: 'Recipients' }).getByText('Grace Hopper').waitFor();
    await dialog.getByLabel('Subject').fill('Plate 7 is ready');
    await dialog.getByLabel('Message', { exact: true }).fill('Please weigh it twice.');
    await dialog.getByRole('checkbox', { name: 'Also send it by email' }).check();
    await assertAccessible(adminPage, 'compose a message');
    const posted = adminPage.waitForResponse((r) => r.url().includes('/notifications/notification/list/') && r.request().method() === 'POST');
    await dialog.getByRole('button', { name: 'Send' }).click();
    assert.equal((await posted).status(), 201);
    const sentAt = Date.now();
    await memberPage.getByRole('link', { name: /Plate 7 is ready/ }).waitFor({ timeout: 15_000 });
    await waitForUnread(memberPage, 1);
    const took = Date.now() - sentAt;
    t.diagnostic(`sent → shown in the other browser's inbox and count: ${took} ms`);
    assert.equal(memberPage.url(), memberUrl, 'no navigation, no reload');
    await adminPage.getByRole('status').filter({ hasText: 'Sent “Plate 7 is ready”.' }).waitFor();
    // should_email: the member is mailed too.
    const mail = await readMail(member.email, { subject: /Plate 7 is ready/ });
    assert.match(mail.body, /Please weigh it twice\./);

    await memberPage.getByRole('link', { name: /Plate 7 is ready/ }).getByText('Unread').waitFor();
    await assertAccessible(memberPage, 'inbox (member)');
    await assertKeyboardReachable(memberPage, 'inbox (member)');
    await memberPage.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await screenshot(memberPage, 'inbox');
    await memberPage.setViewportSize({ width: 390, height: 844 });
    await screenshot(memberPage, 'phone/inbox-live');
    await assertAccessible(memberPage, 'inbox (member, phone)');
    await memberPage.setViewportSize({ width: 1280, height: 800 });
  });

  test('opening it marks it read (the count goes down); a reply is threaded through parent and arrives live', async () => {
    await memberPage.getByRole('link', { name: /Plate 7 is ready/ }).click();
    await memberPage.getByRole('heading', { name: 'Plate 7 is ready', level: 1 }).waitFor();
    await memberPage.getByText('Please weigh it twice.').waitFor();
    await memberPage.getByText('From Ada Tester').first().waitFor();
    await waitForUnread(memberPage, 0);
    await memberPage.getByText('Read.', { exact: true }).waitFor();
    const original = expectStatus(await member.api.get(`/notifications/notification/list/organization/${ws.org.sid}/detail/`), 200).json.results[0];
    assert.deepEqual([original.name, original.is_read], ['Plate 7 is ready', true], 'read on the server too');
    await assertAccessible(memberPage, 'a notification (member)');
    await assertKeyboardReachable(memberPage, 'a notification (member)');

    // Mark unread and read again: the count follows.
    await memberPage.getByRole('button', { name: 'Mark as unread' }).click();
    await waitForUnread(memberPage, 1);
    await memberPage.getByRole('button', { name: 'Mark as read' }).click();
    await waitForUnread(memberPage, 0);

    await memberPage.getByRole('button', { name: 'Reply' }).click();
    const reply = memberPage.getByRole('form', { name: 'Reply' });
    await reply.getByRole('list', { name: 'Recipients' }).getByText('Ada Tester').waitFor();
    assert.equal(await reply.getByLabel('Subject').inputValue(), 'Re: Plate 7 is ready');
    await reply.getByLabel('Message', { exact: true }).fill('Weighed: 12.6 g both times.');
    await assertAccessible(memberPage, 'reply (member)');
    await screenshot(memberPage, 'notification');
    await reply.getByRole('button', { name: 'Send' }).click();
    await memberPage.getByRole('status').filter({ hasText: 'Reply “Re: Plate 7 is ready” sent.' }).waitFor();

    // It arrives live in the sender's inbox, marked as a reply, and the thread shows what it answers.
    await adminPage.getByRole('link', { name: /Re: Plate 7 is ready/ }).waitFor({ timeout: 5_000 });
    await adminPage.getByRole('link', { name: /Re: Plate 7 is ready/ }).getByText('reply to “Plate 7 is ready”').waitFor();
    await waitForUnread(adminPage, 1);
    const adminCopy = expectStatus(await ws.admin.api.get(`/notifications/notification/list/organization/${ws.org.sid}/detail/`), 200).json.results[0];
    assert.deepEqual(adminCopy.parent, { sid: original.sid, name: 'Plate 7 is ready' }, 'the reply\'s parent is the message answered');
    await adminPage.getByRole('link', { name: /Re: Plate 7 is ready/ }).click();
    await adminPage.getByRole('heading', { name: 'Re: Plate 7 is ready', level: 1 }).waitFor();
    const thread = adminPage.getByRole('region', { name: 'Thread' });
    await thread.getByRole('article', { name: 'Earlier message: Plate 7 is ready' }).getByText('Please weigh it twice.').waitFor();
    await adminPage.getByRole('article', { name: 'Message: Re: Plate 7 is ready' }).getByText('Weighed: 12.6 g both times.').waitFor();
    await waitForUnread(adminPage, 0);
    await assertAccessible(adminPage, 'a reply in its thread');

    // Delete: gone from the inbox (and 404 for its recipient).
    const replySid = adminPage.url().split('/').filter(Boolean).at(-1)!;
    await adminPage.getByRole('button', { name: 'Delete' }).click();
    await adminPage.getByRole('heading', { name: 'Inbox' }).waitFor();
    await adminPage.getByRole('link', { name: /Re: Plate 7 is ready/ }).waitFor({ state: 'detached', timeout: 5_000 });
    expectStatus(await ws.admin.api.get(`/notifications/notification/detail/${replySid}/`), 404);
    // The sender of the original reads it, but only its recipient marks or deletes it: disabled, with why.
    await adminPage.goto(`/o/${ws.org.sid}/notifications/${adminCopy.parent.sid}`);
    await adminPage.getByRole('heading', { name: 'Plate 7 is ready', level: 1 }).waitFor();
    await adminPage.getByText('You sent this notification.').waitFor();
    assert.ok(await adminPage.getByRole('button', { name: 'Delete' }).isDisabled());
    await adminPage.getByText('Only its recipient marks or deletes a notification; you sent this one.').first().waitFor();
    assert.deepEqual([...pageProblems(memberPage), ...pageProblems(adminPage)], []);
  });

  test('a mention in a cell of the grid notifies the person mentioned, live in their inbox', async () => {
    await memberPage.goto(`/o/${ws.org.sid}/notifications`);
    await liveIs(memberPage, 'live');
    const before = await unreadShown(memberPage);
    await adminPage.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}/rows?project=${ws.project.sid}`);
    const cell = adminPage.getByRole('gridcell', { name: `Note of ${ROW}` });
    await cell.click();
    await adminPage.keyboard.press('Enter');
    // The service's mention syntax: "@" and the member's email (or personnel sid).
    await adminPage.getByRole('textbox', { name: `Note of ${ROW}` }).fill(`Ask @${member.email} to weigh it`);
    await adminPage.keyboard.press('Enter');
    await adminPage.waitForFunction(
      ([name, text]) => [...document.querySelectorAll('[role=gridcell]')].some((c) => c.getAttribute('aria-label') === name && c.textContent?.includes(text)),
      [`Note of ${ROW}`, 'to weigh it'] as const,
    ).catch(() => {});
    const mention = memberPage.getByRole('link', { name: new RegExp(`Ada Tester mentioned you in ${ROW}`) });
    await mention.waitFor({ timeout: 5_000 });
    await waitForUnread(memberPage, before + 1);
    await mention.click();
    await memberPage.getByRole('heading', { name: `Ada Tester mentioned you in ${ROW}`, level: 1 }).waitFor();
    await memberPage.getByText(`Ask @${member.email} to weigh it`, { exact: false }).waitFor();
    // The row it is about links to its history.
    await memberPage.getByRole('link', { name: ROW }).waitFor();
    await waitForUnread(memberPage, before);
  });

  test('after a dropped connection the browser reconnects with Last-Event-ID and the inbox and count catch up', async () => {
    await memberPage.goto(`/o/${ws.org.sid}/notifications`);
    await liveIs(memberPage, 'live');
    const send = async (name: string) =>
      expectStatus(
        await ws.admin.api.post(`/notifications/notification/list/organization/${ws.org.sid}/detail/`, { to: [{ sid: memberPersonnel }], name, body: '' }),
        201,
      ).json;
    // An event on this page's stream: its id is what the browser sends back as Last-Event-ID.
    const seen = await send('Before the cut');
    await memberPage.getByRole('link', { name: /Before the cut/ }).waitFor({ timeout: 5_000 });
    const before = await unreadShown(memberPage);
    const seenByRecipient = expectStatus(await member.api.get(`/notifications/notification/list/organization/${ws.org.sid}/name/`), 200).json.results[0];
    assert.equal(seenByRecipient.name, 'Before the cut');
    const streams: Array<Record<string, string>> = [];
    memberPage.on('request', (request) => {
      if (request.url().includes('/notifications/notification/stream/')) void request.allHeaders().then((h) => streams.push(h));
    });
    cable.cut();
    await liveIs(memberPage, 'reconnecting');
    await send('Sent while you were away');
    assert.equal(await memberPage.getByRole('link', { name: /Sent while you were away/ }).count(), 0, 'not shown while offline');
    cable.restore();
    await memberPage.getByRole('link', { name: /Sent while you were away/ }).waitFor({ timeout: 15_000 });
    await waitForUnread(memberPage, before + 1);
    await liveIs(memberPage, 'live');
    // The browser reconnected with the id of the last event it had, the recipient's copy of "Before the cut".
    assert.deepEqual(streams.map((h) => h['last-event-id'] ?? null).filter(Boolean).slice(0, 1), [seenByRecipient.sid], JSON.stringify(streams));
    assert.ok(seen.sid);
    // The dropped connection is the only problem the page saw.
    assert.deepEqual(pageProblems(memberPage).filter((p) => !/ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION|ERR_EMPTY_RESPONSE/.test(p)), []);
    pageProblems(memberPage).length = 0;
  });
});

describe('a member without the Admin role', () => {
  test('sees on the inbox and a notification only controls they may use', async () => {
    await memberPage.goto(`/o/${ws.org.sid}/notifications`);
    await memberPage.getByRole('heading', { name: 'Inbox' }).waitFor();
    // Every enabled button on the inbox is one a member may use (sending, opening their own notifications).
    const buttons = await memberPage.getByRole('main').getByRole('button').evaluateAll((els) =>
      els.filter((el) => !(el as HTMLButtonElement).disabled).map((el) => el.textContent?.trim()),
    );
    assert.deepEqual(buttons.filter((b) => b !== 'New message' && !/page$/.test(b ?? '')), []);
    await memberPage.getByRole('button', { name: 'New message' }).click();
    const dialog = memberPage.getByRole('dialog', { name: 'New message' });
    const recipient = dialog.getByLabel('Add a recipient by name');
    await dialog.getByText('Type a name; Enter adds the suggestion.').waitFor();
    await recipient.fill('Ada');
    await recipient.press('Enter');
    await dialog.getByLabel('Subject').fill('From a member');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await memberPage.getByRole('status').filter({ hasText: 'Sent “From a member”.' }).waitFor();
    await adminPage.goto(`/o/${ws.org.sid}/notifications`);
    await adminPage.getByRole('link', { name: /From a member/ }).waitFor();
    assert.deepEqual(pageProblems(memberPage), []);
  });

  test('a name typed but not added (Send without Enter) is a recipient: what the field shows is who gets it', async () => {
    await memberPage.goto(`/o/${ws.org.sid}/notifications`);
    await memberPage.getByRole('button', { name: 'New message' }).click();
    const dialog = memberPage.getByRole('dialog', { name: 'New message' });
    await dialog.getByLabel('Add a recipient by name').fill('Ada');
    await dialog.getByLabel('Subject').fill('Typed, not added');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await memberPage.getByRole('status').filter({ hasText: 'Sent “Typed, not added”.' }).waitFor();
    const received = (await inbox(ws.admin.api, ws.org.sid)).filter((n) => n.name === 'Typed, not added');
    assert.equal(received.length, 1, 'Ada received it once');
    assert.deepEqual(pageProblems(memberPage), []);
  });
});

test('recipients are searched on the server as one types, and a member @mentioned in the message receives it too', async () => {
  const third = await newAccount(BASE_URL, 'notifthird', 'Katalin', 'Karikó');
  expectStatus(await ws.admin.api.post(`/organizations/personnel/list/organization/${ws.org.sid}/detail/`, {
    email: third.email, first_name: 'Katalin', last_name: 'Karikó',
  }), 201);
  const { context, page } = await newPerson(browser);
  await signInContext(context, ws.admin);
  await page.goto(`/o/${ws.org.sid}/notifications`);
  await page.getByRole('button', { name: 'New message' }).click();
  const dialog = page.getByRole('dialog', { name: 'New message' });
  // Typing asks the server (the personnel list's search), not a list loaded whole.
  const searched = page.waitForRequest((r) => new URL(r.url()).searchParams.get('search') === 'hopp');
  await dialog.getByLabel('Add a recipient by name').fill('hopp');
  await searched;
  await dialog.getByLabel('Add a recipient by name').press('Enter');
  await dialog.getByRole('list', { name: 'Recipients' }).getByText('Grace Hopper').waitFor();
  await dialog.getByLabel('Subject').fill('mRNA plates');
  await dialog.getByLabel('Message', { exact: true }).fill(`Grace, and @${third.email} too: the plates are in.`);
  await dialog.getByText('Also to the members mentioned: Katalin Karikó.').waitFor();
  await dialog.getByRole('button', { name: 'Send' }).click();
  await page.getByRole('status').filter({ hasText: 'Sent “mRNA plates”.' }).waitFor();
  const theirs = (await inbox(third.api, ws.org.sid)).filter((n) => n.name === 'mRNA plates');
  assert.equal(theirs.length, 1, 'the member mentioned received it');
  assert.deepEqual(pageProblems(page), []);
  await context.close();
});

// The instance's administrators (issue 22, point 3; docs/decisions.md, "The instance's
// administrators"): the one the operator's CLI named before the harness started the server
// (test/run.ts) lists every organization and account, grants credits (a ledger entry names
// them), disables and enables accounts, mails a new proof. On a fresh instance of its own:
// the first account becomes the administrator once it proves its email, nobody after it;
// the settings it changes while the service runs reach every request at once; the outbox's
// health says what waits and why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Api, anonymous, type Answer } from '../helpers/http.ts';
import { MESSAGES, SESSION_ONLY, assertPage, expectDetail, expectFieldErrors, expectInvalidToken, expectPlainText, expectStatus } from '../helpers/assertions.ts';
import {
  PATHS, PROOF_SUBJECT, authenticate, createOrganization, login, newUser, paths, signup, strongPassword, unique, uniqueEmail, type TestUser,
} from '../helpers/factories.ts';
import { readMail } from '../helpers/mail.ts';
import { INSTANCE_ADMIN } from '../helpers/env.ts';
import { recordPaths } from '../helpers/records.ts';
import { startFreshServer, type RunningServer } from '../helpers/server.ts';
import { TestSmtpServer } from '../helpers/smtp.ts';
import { proofFromSmtp } from '../helpers/notifications.ts';

const A = {
  organizations: (userSid: string, query = '') => `/admin/organization/list/user/${userSid}/list/${query}`,
  credits: (orgSid: string, serializer = 'detail') => `/admin/credit/list/organization/${orgSid}/${serializer}/`,
  accounts: (userSid: string, query = '') => `/admin/account/list/user/${userSid}/list/${query}`,
  account: (sid: string) => `/admin/account/detail/${sid}/`,
  resend: (sid: string) => `/admin/account/detail/${sid}/resendproof/`,
  settings: '/admin/settings/',
  outbox: '/admin/outbox/',
};
const search = (text: string) => `?${new URLSearchParams({ search: text })}`;

describe('the administrator the CLI named', () => {
  let admin: { sid: string; api: Api };
  let owner: TestUser;
  let org: { sid: string; name: string };

  before(async () => {
    assert.ok(INSTANCE_ADMIN.email, 'the harness names an instance administrator (test/run.ts)');
    const signedIn = expectStatus(await authenticate(INSTANCE_ADMIN.email, INSTANCE_ADMIN.password), 200, 'the administrator signs in');
    admin = { sid: signedIn.json.user.sid, api: new Api(signedIn.json.token) };
    owner = await newUser('orgowner');
    org = await createOrganization(owner, `Admin Lab ${unique('o')}`);
  });

  test('their session says so; nobody else\'s does, and everyone else gets 403', async () => {
    assert.equal(expectStatus(await admin.api.get('/accounts/session/'), 200).json.user.is_instance_admin, true);
    assert.equal(expectStatus(await owner.api.get('/accounts/session/'), 200).json.user.is_instance_admin, false);
    for (const path of [A.organizations(owner.sid), A.accounts(owner.sid), A.credits(org.sid), A.settings, A.outbox, A.account(owner.sid)]) {
      expectDetail(await owner.api.get(path), 403, MESSAGES.forbidden, `${path} for an organization's Admin`);
    }
    expectDetail(await admin.api.get(A.organizations(owner.sid)), 403, MESSAGES.forbidden, "an administrator names their own user sid");
  });

  test('every organization, searched by name, with its credits and who created it', async () => {
    const page = assertPage(await admin.api.get(A.organizations(admin.sid, search(org.name))));
    assert.equal(page.count, 1);
    assert.deepEqual(page.results[0], {
      sid: org.sid, name: org.name, description: '', credits: '$1.00',
      created_by: { sid: owner.sid, name: `${owner.first_name} ${owner.last_name}` },
      date_created: page.results[0].date_created, change_permission: true,
    });
    assert.equal(page.add_permission, false);
  });

  test('grants credits: the ledger entry names the administrator; bad amounts change nothing', async () => {
    const granted = expectStatus(await admin.api.post(A.credits(org.sid), { amount: '2.50', note: 'invoice 17' }), 201).json;
    assert.deepEqual(granted, {
      sid: granted.sid, name: 'credits granted by Instance Admin: invoice 17', amount: '$2.50', balance_after: '$3.50',
      cell: null, row: null, user: { sid: admin.sid, name: 'Instance Admin' }, date_created: granted.date_created,
    });
    assert.equal(expectStatus(await owner.api.get(recordPaths.organizationDetail(org.sid)), 200).json.credits, '$3.50');
    // The organization's Admin sees who granted them, first in the ledger.
    const seen = assertPage(await owner.api.get(recordPaths.creditList(org.sid, 'list')));
    assert.deepEqual(seen.results[0], granted);

    for (const amount of ['0', '0.00', '-1.00', '1.234', 'ten', '', '1e3']) {
      expectFieldErrors(await admin.api.post(A.credits(org.sid), { amount }), { amount: ['Enter an amount above 0 like 25.00 (at most 2 decimals).'] }, `amount ${amount}`);
    }
    expectFieldErrors(await admin.api.post(A.credits(org.sid), { amount: '999999999999.00' }), { amount: ['The balance would pass 999999999999.99.'] });
    expectFieldErrors(await admin.api.post(A.credits(org.sid), { amount: '1.00', sid: 'x' }), ['sid'], 'an unknown field');
    expectPlainText(await admin.api.post(A.credits('a1B2c3D4e5F6g7H8'), { amount: '1.00' }), 406, MESSAGES.wrongId);
    expectDetail(await owner.api.post(A.credits(org.sid), { amount: '100.00' }), 403, MESSAGES.forbidden, 'an Admin of the organization');
    assert.equal(expectStatus(await owner.api.get(recordPaths.organizationDetail(org.sid)), 200).json.credits, '$3.50', 'nothing changed');
    assert.equal(assertPage(await admin.api.get(A.credits(org.sid, 'name'))).count, seen.count, 'no entry more');
  });

  test('an administrator\'s API key administers nothing: 403 naming the session it needs, and nothing changes', async () => {
    const key = expectStatus(await admin.api.post(paths.apikeyList(admin.sid, 'detail'), { name: 'admin script' }), 201).json.key as string;
    const script = new Api(key, 'Bearer');
    const refused = SESSION_ONLY('administer the instance');
    for (const path of [A.organizations(admin.sid), A.accounts(admin.sid), A.credits(org.sid), A.settings, A.outbox, A.account(owner.sid)]) {
      expectDetail(await script.get(path), 403, refused, path);
    }
    const before = expectStatus(await owner.api.get(recordPaths.organizationDetail(org.sid)), 200).json.credits;
    expectDetail(await script.post(A.credits(org.sid), { amount: '100.00' }), 403, refused, 'a credit grant');
    expectDetail(await script.patch(A.account(owner.sid), { is_active: false }), 403, refused, 'disabling an account');
    assert.equal(expectStatus(await owner.api.get(recordPaths.organizationDetail(org.sid)), 200).json.credits, before, 'no credits granted');
    expectStatus(await owner.api.get('/accounts/session/'), 200, 'the account is still enabled');
    // The same key still does what any key of the account may.
    assert.equal(expectStatus(await script.get('/accounts/session/'), 200).json.user.sid, admin.sid);
  });

  test('disables an account (its sessions end, its keys stop) and enables it again', async () => {
    const user = await newUser('disabled');
    const key = expectStatus(await user.api.post(paths.apikeyList(user.sid, 'detail'), { name: 'script' }), 201).json.key as string;
    const found = assertPage(await admin.api.get(A.accounts(admin.sid, search(user.email))));
    assert.equal(found.count, 1);
    assert.deepEqual(found.results[0], {
      sid: user.sid, name: `${user.first_name} ${user.last_name}`, email: user.email, first_name: user.first_name, last_name: user.last_name,
      is_active: true, is_email_verified: true, is_instance_admin: false, date_joined: found.results[0].date_joined, change_permission: true,
    });

    const disabled = expectStatus(await admin.api.patch(A.account(user.sid), { is_active: false }), 200).json;
    assert.equal(disabled.is_active, false);
    expectInvalidToken(await user.api.get(PATHS.checktoken), 'its session ended');
    expectInvalidToken(await new Api(key, 'Bearer').get(PATHS.checktoken), 'its API key does not work');
    expectDetail(await authenticate(user.email, user.password), 406, MESSAGES.badCredentials, 'it cannot sign in');

    assert.equal(expectStatus(await admin.api.patch(A.account(user.sid), { is_active: true }), 200).json.is_active, true);
    expectInvalidToken(await user.api.get(PATHS.checktoken), 'the ended session stays ended');
    expectStatus(await new Api(key, 'Bearer').get(PATHS.checktoken), 200, 'the key works again');
    expectStatus(await new Api(await login(user)).get(PATHS.checktoken), 200, 'it signs in again');

    expectFieldErrors(await admin.api.patch(A.account(admin.sid), { is_active: false }), { is_active: ['You cannot disable your own account.'] });
    assert.equal(expectStatus(await admin.api.get(A.account(admin.sid)), 200).json.change_permission, false);
    expectDetail(await owner.api.patch(A.account(user.sid), { is_active: false }), 403, MESSAGES.forbidden);
    expectDetail(await admin.api.get(A.account('a1B2c3D4e5F6g7H8')), 404, MESSAGES.notFound);
    expectStatus(await user.api.get(PATHS.checktoken), 401, 'the old token is still gone');
  });

  test('finds an account by its address however it is spelled: the address\'s key (core/email.ts), not lower()', async () => {
    const user = await newUser('strasse');
    for (const spelling of [user.email.toUpperCase(), user.email.replace('strasse', 'STRAßE'), user.email.replace('strasse', 'straße')]) {
      const page = assertPage(await admin.api.get(A.accounts(admin.sid, search(spelling))));
      assert.deepEqual(page.results.map((r) => r.sid), [user.sid], spelling);
    }
  });

  test('mails an unproven account a new proof; a proven one is told it is proved', async () => {
    const email = uniqueEmail('unproven');
    expectStatus(await signup({ email, password: strongPassword() }), 201);
    const first = await readMail(email, { subject: PROOF_SUBJECT });
    // The signup's answer carries a fresh sid of no account (it answers the same for a taken email): find the account.
    const account = assertPage(await admin.api.get(A.accounts(admin.sid, search(email)))).results[0];
    assert.notEqual(account, undefined);
    assert.equal(account.is_email_verified, false);
    expectDetail(await admin.api.post(A.resend(account.sid)), 200, 'Verification e-mail has been sent.');
    const second = await readMail(email, { subject: PROOF_SUBJECT });
    assert.ok(second.verifyTag && second.verifyTag !== first.verifyTag, 'a new link');
    expectDetail(await anonymous.post(PATHS.verifyemail, undefined, { query: { tag: second.verifyTag } }), 200, 'Email verified.');
    expectDetail(await admin.api.post(A.resend(account.sid)), 200, 'Email already verified.');
    expectDetail(await owner.api.post(A.resend(account.sid)), 403, MESSAGES.forbidden);
  });
});

describe('a fresh instance', () => {
  let mailbox: TestSmtpServer;
  let server: RunningServer;
  let at: typeof anonymous;
  const proof = () => proofFromSmtp(mailbox);

  before(async () => {
    mailbox = await TestSmtpServer.start();
    // As a first `npm start`: no account, no administrator, no credits for a new organization.
    server = await startFreshServer({ SMTP_URL: mailbox.url, MAIL_RETRY_SECONDS: '1', INITIAL_CREDITS: '0.00' });
    at = anonymous.at(server.baseUrl);
  });
  after(async () => {
    await server?.stop();
    await mailbox?.stop();
  });

  async function account(label: string, prove = true) {
    const email = uniqueEmail(label);
    const password = strongPassword();
    expectStatus(await at.post(PATHS.signup, { email, password, first_name: label, last_name: 'Fresh' }), 201);
    if (prove) expectStatus(await at.post(PATHS.verifyemail, undefined, { query: { tag: await proof()(email) } }), 200);
    const signedIn = expectStatus(await at.post(PATHS.auth, { username: email, password }), 200);
    return { email, password, sid: signedIn.json.user.sid as string, api: new Api(signedIn.json.token, 'token', server.baseUrl) };
  }
  const isAdmin = async (api: Api) => expectStatus(await api.get('/accounts/session/'), 200).json.user.is_instance_admin as boolean;

  test('the first account becomes its administrator when it proves its email, the second never does', async () => {
    const first = await account('First', false);
    const second = await account('Second');
    assert.equal(await isAdmin(second.api), false, 'the second account, proved first, is not the first account');
    assert.equal(await isAdmin(first.api), false, 'not before the proof');
    expectStatus(await at.post(PATHS.verifyemail, undefined, { query: { tag: await proof()(first.email) } }), 200);
    assert.equal(await isAdmin(first.api), true);
    adminAccount = first;
    const third = await account('Third');
    assert.equal(await isAdmin(third.api), false);
    expectStatus(await first.api.get(A.settings), 200);
    expectDetail(await second.api.get(A.settings), 403, MESSAGES.forbidden);
  });

  test('settings changed while it runs reach the next request; null goes back to the environment', async () => {
    const admin = await adminOf();
    const settings = expectStatus(await admin.api.get(A.settings), 200).json;
    assert.deepEqual(settings.initial_credits, {
      value: '0.00', environment_value: '0.00', replaced: false, variable: 'INITIAL_CREDITS', description: settings.initial_credits.description,
    });
    assert.match(settings.initial_credits.description, /credits a new organization starts with/);
    assert.equal(settings.updated_by, null);

    const changed = expectStatus(await admin.api.patch(A.settings, { initial_credits: '5.00', sales_contact: 'billing@lab.test' }), 200).json;
    assert.equal(changed.initial_credits.value, '5.00');
    assert.equal(changed.initial_credits.replaced, true);
    assert.equal(changed.sales_contact.value, 'billing@lab.test');
    assert.equal(changed.signup_enabled.replaced, false, 'a setting left out stays');
    assert.equal(changed.updated_by.sid, admin.sid);

    const user = await account('Buyer');
    const org = expectStatus(await user.api.post(paths.organizationList(user.sid, 'detail'), { name: 'Priced Lab' }), 201).json;
    assert.equal(org.credits, '$5.00', 'a new organization starts with the new value');
    assert.equal(org.credits_contact, 'billing@lab.test');
    // A write the credits do not cover names the new contact.
    const refused = await pricedWrite(user.api, org.sid, '6.00');
    expectPlainText(refused.answer, 406, 'Error: Your organization does not have enough credits, contact billing@lab.test!');
    // …until an administrator grants credits.
    expectStatus(await admin.api.post(A.credits(org.sid), { amount: '10.00' }), 201);
    expectStatus(await user.api.post(recordPaths.cellList(org.sid, 'detail', { row__sid: refused.rowSid }), { column: refused.columnSid, data: 'paid' }), 201);
    assert.equal(expectStatus(await user.api.get(recordPaths.organizationDetail(org.sid)), 200).json.credits, '$9.00');

    expectStatus(await admin.api.patch(A.settings, { signup_enabled: false }), 200);
    expectDetail(await at.post(PATHS.signup, { email: uniqueEmail('late'), password: strongPassword() }), 403, MESSAGES.forbidden, 'signup is off');
    expectStatus(await admin.api.patch(A.settings, { signup_enabled: null, organizations_per_user: 1 }), 200);
    expectStatus(await at.post(PATHS.signup, { email: uniqueEmail('back'), password: strongPassword() }), 201, 'signup is on again');
    expectStatus(await user.api.post(paths.organizationList(user.sid, 'detail'), { name: 'Second Lab' }), 403, 'one organization per account now');

    for (const [body, field] of [[{ initial_credits: '1.234' }, 'initial_credits'], [{ initial_credits: '-1' }, 'initial_credits'],
      [{ organizations_per_user: 0 }, 'organizations_per_user'], [{ signup_enabled: 'maybe' }, 'signup_enabled'], [{ port: 80 }, 'port']] as const) {
      expectFieldErrors(await admin.api.patch(A.settings, body), [field], JSON.stringify(body));
    }
    const back = expectStatus(await admin.api.patch(A.settings, { initial_credits: null, sales_contact: null, organizations_per_user: null }), 200).json;
    for (const name of ['initial_credits', 'sales_contact', 'signup_enabled', 'organizations_per_user']) {
      assert.equal(back[name].replaced, false, name);
      assert.deepEqual(back[name].value, back[name].environment_value, name);
    }
  });

  test("the outbox's health: mail the server refuses waits and says why, then goes out", async () => {
    const admin = await adminOf();
    const waiting = await account('Waiting', false);
    const accountSid = assertPage(await admin.api.get(A.accounts(admin.sid, search(waiting.email)))).results[0].sid as string;
    mailbox.refuseNext(1_000_000);
    expectDetail(await admin.api.post(A.resend(accountSid)), 200, 'Verification e-mail has been sent.');
    const health = await until(admin.api, (h) => h.retrying >= 1, 'a message being retried');
    assert.ok(health.pending >= 1);
    assert.ok(health.oldest_pending_seconds >= 0);
    assert.match(health.last_failure.error, /Try again later/);
    mailbox.refuseNext(0);
    const after = await until(admin.api, (h) => h.pending === 0, 'the outbox emptied');
    assert.equal(after.retrying, 0);
    assert.equal(after.failed, 0);
    assert.equal(after.oldest_pending_seconds, 0);
    assert.ok(after.sent_last_hour >= 5, `${after.sent_last_hour} sent`);
  });

  /** The instance's administrator: the first account, made by the first test. */
  let adminAccount: { sid: string; api: Api } | undefined;
  async function adminOf() {
    if (!adminAccount) throw new Error('the first test makes the administrator');
    return adminAccount;
  }

  /** A table with a column through a widget priced `price`, a row, and a POST of its cell. */
  async function pricedWrite(api: Api, orgSid: string, price: string): Promise<{ answer: Answer; rowSid: string; columnSid: string }> {
    const personnel = assertPage(await api.get(paths.personnelList(orgSid, 'name'))).results[0].sid;
    const project = expectStatus(await api.post(recordPaths.projectList(orgSid, 'detail'), { name: 'P' }), 201).json;
    expectStatus(await api.post(recordPaths.memberList(project.sid), { personnel, permission: 'edit' }), 201);
    const table = expectStatus(await api.post(recordPaths.tableList(orgSid, 'detail'), { name: 'T' }), 201).json;
    const widget = expectStatus(await api.post(recordPaths.widgetList(orgSid, 'detail'), { name: 'Assay', price }), 201).json;
    const column = expectStatus(await api.post(recordPaths.columnList(orgSid, 'detail', { table__sid: table.sid }), { name: 'Result', widget: widget.sid }), 201).json;
    const row = expectStatus(await api.post(recordPaths.rowList(orgSid, 'detail', { table__sid: table.sid, project__sid: project.sid }), { name: 'R1' }), 201).json;
    const answer = await api.post(recordPaths.cellList(orgSid, 'detail', { row__sid: row.sid }), { column: column.sid, data: 'x' });
    return { answer, rowSid: row.sid, columnSid: column.sid };
  }
});

/** Reads the outbox's health until `done` holds (the mail worker retries every second). */
async function until(api: Api, done: (health: any) => boolean, what: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const health = expectStatus(await api.get(A.outbox), 200).json;
    if (done(health)) return health;
    if (Date.now() > deadline) throw new Error(`${what}: the outbox's health stayed ${JSON.stringify(health)}`);
    await sleep(200);
  }
}

// Consent before mail (issue 21, point 6; docs/decisions.md, "Consent before mail"), and the
// mail files (point 7). A stranger with a verified account adds another verified account to an
// organization of their own: the victim is a member at once (as the spec has it) but gets no
// mail but the one invitation until accepting, can see and refuse it, and can leave; a
// member's own choice of notification email wins over should_email; names others chose are
// quoted only as plain text that no mail program shows as a link; invitations are limited per
// sender. Mail files are 0600 and the retention job deletes them after SENT_MAIL_HOURS.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expectStatus } from '../helpers/assertions.ts';
import { Api, http } from '../helpers/http.ts';
import { BASE_URL } from '../helpers/env.ts';
import { linksIn, mailTo, readMail, type Mail } from '../helpers/mail.ts';
import { addMember, newOrganization, newUser, postPersonnel, strongPassword, uniqueEmail, type TestMember, type TestUser, PROOF_SUBJECT } from '../helpers/factories.ts';
import { sendNotification } from '../helpers/notifications.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const accept = (api: Api, sid: string) => api.post(`/organizations/personnel/detail/${sid}/accept/`);
const leave = (api: Api, sid: string) => api.post(`/organizations/personnel/detail/${sid}/leave/`);
const anonymous = new Api(null);

/**
 * Waits until the mail worker has delivered everything queued before now: a notification to
 * `witness` (who accepted and wants mail) is sent and awaited twice, in two rounds.
 */
async function mailSettled(admin: TestUser, orgSid: string, witness: TestMember) {
  for (let i = 0; i < 2; i += 1) {
    const name = `Witness ${Date.now()}-${i}`;
    await sendNotification(admin.api, orgSid, [witness.personnel], { name, should_email: true });
    await readMail(witness.email, { subject: new RegExp(name) });
  }
}

describe('an account added to a stranger\'s organization', () => {
  let stranger: TestMember;
  let org: { sid: string; name: string };
  let witness: TestMember;
  let victim: TestUser;
  let victimRecord: { sid: string; name: string };

  before(async () => {
    ({ admin: stranger, org } = await newOrganization('stranger'));
    witness = await addMember(stranger, org, {}, 'witness');
    expectStatus(await witness.api.patch(`/organizations/personnel/detail/${witness.personnel.sid}/`, { should_receive_notification_email: true }), 200);
    victim = await newUser('victim');
    victimRecord = expectStatus(await postPersonnel(stranger.api, org.sid, { email: victim.email, first_name: 'Vic', last_name: 'Tim' }), 201).json;
  });

  test('is a member at once, and gets one invitation mail: text and HTML, a button to accept in the app, the API in a footnote', async () => {
    const mail = await readMail(victim.email);
    assert.equal(mail.subject, `You are invited to ${org.name} on the Records Service`);
    const acceptUrl = `${BASE_URL}/organizations/personnel/detail/${victimRecord.sid}/accept/`;
    assert.ok(mail.body.includes(`${stranger.first_name} ${stranger.last_name} invited you to ${org.name} on the Records Service.`), mail.body);
    assert.ok(mail.body.includes(`Accept the invitation:\n${acceptUrl}`), mail.body);
    assert.ok(mail.body.includes(`For scripts (the API):\n  POST ${acceptUrl} (signed in) accepts;`), mail.body);
    assert.ok(mail.body.includes(`Until you accept, ${org.name} sends you no other mail.`), mail.body);
    assert.ok(mail.html, 'an HTML alternative');
    assert.deepEqual(linksIn(mail.html!), [{ text: 'Accept the invitation', href: acceptUrl }]);
    // A member at once: the organization is listed, its records readable.
    expectStatus(await victim.api.get(`/organizations/personnel/detail/${victimRecord.sid}/`), 200);
  });

  test('gets no notification mail until accepting, should_email or not; the app lists what waits for an answer', async () => {
    await sendNotification(stranger.api, org.sid, [victimRecord], { name: 'WIN BIG now', body: 'Claim it.', should_email: true });
    expectStatus(await stranger.api.patch(`/organizations/personnel/detail/${victimRecord.sid}/`, { should_receive_notification_email: true }), 200,
      'even an Admin turning the setting on');
    await sendNotification(stranger.api, org.sid, [victimRecord], { name: 'WIN BIG again', body: 'Claim it.' });
    await mailSettled(stranger, org.sid, witness);
    assert.deepEqual(mailTo(victim.email).filter((m) => !PROOF_SUBJECT.test(m.subject)).map((m) => m.subject), [`You are invited to ${org.name} on the Records Service`]);
    // Still in the inbox of the app: the notifications were written.
    const invitations = expectStatus(await victim.api.get('/accounts/invitations/'), 200).json;
    assert.deepEqual(invitations, { results: [{
      personnel_sid: victimRecord.sid, organization: { sid: org.sid, name: org.name }, invited_by: `${stranger.first_name} ${stranger.last_name}`,
    }] });
  });

  test('can leave: archived, out of the organization, mailed nothing even when an Admin makes the record active again', async () => {
    expectStatus(await leave(stranger.api, victimRecord.sid), 404, 'only one\'s own record');
    assert.deepEqual(expectStatus(await leave(victim.api, victimRecord.sid), 200).json, { detail: `You left ${org.name}.`, organization: { sid: org.sid, name: org.name } });
    expectStatus(await victim.api.get(`/organizations/personnel/detail/${victimRecord.sid}/`), 403);
    assert.deepEqual(expectStatus(await victim.api.get('/accounts/invitations/'), 200).json, { results: [] });
    const record = expectStatus(await stranger.api.get(`/organizations/personnel/detail/${victimRecord.sid}/`), 200).json;
    assert.equal(record.is_archived, true);
    expectStatus(await stranger.api.patch(`/organizations/personnel/detail/${victimRecord.sid}/`, { is_archived: false }), 200);
    await sendNotification(stranger.api, org.sid, [victimRecord], { name: 'WIN BIG a third time', should_email: true });
    await mailSettled(stranger, org.sid, witness);
    assert.equal(mailTo(victim.email).filter((m) => !PROOF_SUBJECT.test(m.subject)).length, 1, 'still only the invitation');
  });

  test('the last active Admin cannot leave (400); another Admin can', async () => {
    expectStatus(await leave(stranger.api, stranger.personnel.sid), 400);
    assert.deepEqual((await leave(stranger.api, stranger.personnel.sid)).json,
      { sid: ['You are the last active administrator of this organization: make another member an administrator before you leave.'] });
    const second = await addMember(stranger, org, { is_administrator: 'true' }, 'second');
    expectStatus(await leave(second.api, second.personnel.sid), 200);
    expectStatus(await stranger.api.get(`/organizations/personnel/detail/${stranger.personnel.sid}/`), 200, 'the last Admin stays');
  });
});

describe('after accepting', () => {
  test('should_email mails a member who never chose; once they turn notification email off, nothing is mailed whatever the sender asks', async () => {
    const { admin, org } = await newOrganization('sender');
    const member = await addMember(admin, org, {}, 'reader', { accept: false });
    const witness = await addMember(admin, org, {}, 'witness');
    await readMail(member.email, { subject: /invited/ });
    assert.deepEqual(expectStatus(await accept(member.api, member.personnel.sid), 200).json,
      { detail: `You joined ${org.name}.`, organization: { sid: org.sid, name: org.name } });
    assert.deepEqual(expectStatus(await member.api.get('/accounts/invitations/'), 200).json, { results: [] });
    await sendNotification(admin.api, org.sid, [member.personnel], { name: 'Asked to mail', should_email: true });
    await readMail(member.email, { subject: /Asked to mail/ });

    expectStatus(await member.api.patch(`/organizations/personnel/detail/${member.personnel.sid}/`, { should_receive_notification_email: false }), 200);
    await sendNotification(admin.api, org.sid, [member.personnel], { name: 'Asked again', should_email: true });
    await mailSettled(admin, org.sid, witness);
    assert.deepEqual(mailTo(member.email).filter((m) => /Asked/.test(m.subject)).map((m) => m.subject), ['Asked to mail']);
  });

  test('an invitee without an account accepts by choosing the password: the page names the organization and inviter first', async () => {
    const { admin, org } = await newOrganization('inviter');
    const email = uniqueEmail('newcomer');
    const record = expectStatus(await postPersonnel(admin.api, org.sid, { email }), 201).json;
    const mail = await readMail(email);
    assert.ok(mail.tag);
    assert.deepEqual(linksIn(mail.html!).map((l) => l.text), ['Accept and choose a password']);
    assert.deepEqual(expectStatus(await http('GET', '/accounts/invitation/', { query: { tag: mail.tag } }), 200).json,
      { email, organization: { sid: org.sid, name: org.name }, invited_by: `${admin.first_name} ${admin.last_name}` });
    assert.deepEqual(expectStatus(await http('GET', '/accounts/invitation/', { query: { tag: 'not-a-tag' } }), 400).json,
      { tag: ['No open invitation has this tag: it was used, has expired, or is a password reset.'] });
    const password = strongPassword();
    expectStatus(await anonymous.post('/accounts/resetpassword/', { password }, { query: { tag: mail.tag } }), 200);
    expectStatus(await http('GET', '/accounts/invitation/', { query: { tag: mail.tag } }), 400, 'a used tag names nothing');
    const token = expectStatus(await anonymous.post('/accounts/auth/', { username: email, password }), 200).json.token;
    assert.deepEqual(expectStatus(await new Api(token).get('/accounts/invitations/'), 200).json, { results: [] }, 'accepted');
    await sendNotification(admin.api, org.sid, [record], { name: 'Welcome aboard', should_email: true });
    await readMail(email, { subject: /Welcome aboard/ });
  });
});

describe('names others chose cannot pass for a link in a mail', () => {
  const bait = 'WIN BIG at http://win.example/now';
  // Invisible and look-alike characters, odd spaces, and more than 80 characters.
  const orgName = `Prizes\u200b at www\uff0ewin.example\u00a0\u00a0claim @ once ${'x'.repeat(90)}`;
  const noLink = (text: string, where: string) => assert.doesNotMatch(text, /https?:\/\/|win\.example|www\.|\S@\S/i, `${where}:\n${text}`);

  test('in an invitation (inviter, organization) and a notification mail (sender, organization, subject, body), JavaScript and SQL alike', async () => {
    const email = uniqueEmail('scammer');
    const password = strongPassword();
    expectStatus(await anonymous.post('/accounts/signup/', { email, password, first_name: bait, last_name: '' }), 201);
    const proof = await readMail(email, { subject: /^Prove/ });
    expectStatus(await anonymous.post('/accounts/verifyemail/', undefined, { query: { tag: proof.verifyTag! } }), 200);
    const auth = expectStatus(await anonymous.post('/accounts/auth/', { username: email, password }), 200).json;
    const scammer = new Api(auth.token);
    const org = expectStatus(await scammer.post(`/organizations/organization/list/user/${auth.user.sid}/detail/`, { name: orgName }), 201).json;

    const target = await newUser('target');
    const record = expectStatus(await postPersonnel(scammer, org.sid, { email: target.email, first_name: bait }), 201).json;
    const invitation: Mail = await readMail(target.email, { subject: /invited/ });
    // 79 characters and "…" (NAME_MAX 80), then the dots and the "@" broken.
    const quotedOrg = `Prizes at www[.]win[.]example claim @ once ${'x'.repeat(40)}…`;
    assert.equal(invitation.subject, `You are invited to ${quotedOrg} on the Records Service`);
    assert.ok(invitation.body.includes(`WIN BIG at http[:]//win[.]example/now invited you to ${quotedOrg} on the Records Service.`), invitation.body);
    for (const [where, text] of [['subject', invitation.subject], ['text', invitation.body.replace(/https?:\/\/127\.0\.0\.1:\d+\/organizations\/personnel\/detail\/\w+\/(accept|leave)\//g, '')]]) noLink(text, where);
    assert.deepEqual(linksIn(invitation.html!).map((l) => new URL(l.href).origin), [BASE_URL], 'the one link is the service\'s own');

    // The notification mail's names are quoted by the statement that queues it (SQL): the same words.
    expectStatus(await target.api.post(`/organizations/personnel/detail/${record.sid}/accept/`), 200);
    await sendNotification(scammer, org.sid, [record], { name: bait, body: `${bait}\nor www.win.example, ask me@win.example`, should_email: true });
    const notice = await readMail(target.email, { subject: /WIN BIG/ });
    assert.equal(notice.subject, 'WIN BIG at http[:]//win[.]example/now');
    assert.ok(notice.body.startsWith(`WIN BIG at http[:]//win[.]example/now sent you a notification in ${quotedOrg}:`), notice.body);
    assert.ok(notice.body.includes('WIN BIG at http[:]//win[.]example/now\nor www[.]win[.]example, ask me[at]win[.]example'), notice.body);
    noLink(notice.subject, 'subject');
    noLink(notice.body, 'text');
    assert.deepEqual(linksIn(notice.html!), [], 'no link in the HTML');
  });
});

describe('limits and mail files (a server of its own)', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ databaseUrl: null, env: { INVITATIONS_PER_USER_PER_DAY: '2', RETENTION_CHECK_SECONDS: '1' } });
  });
  after(async () => server?.stop());

  test('invitations are limited per sender a day (429 beyond, nothing written); mail files are 0600 and deleted after 24 hours', async () => {
    const at = { baseUrl: server.baseUrl, dataDir: server.dataDir };
    const admin = await newUser('limited', at);
    const org = expectStatus(await admin.api.post(`/organizations/organization/list/user/${admin.sid}/detail/`, { name: 'Limited' }), 201).json;
    const people = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')];
    expectStatus(await admin.api.post(`/organizations/personnel/list/organization/${org.sid}/detail/`, people.slice(0, 2).map((email) => ({ email }))), 201);
    const refused = await admin.api.post(`/organizations/personnel/list/organization/${org.sid}/detail/`, { email: people[2] });
    expectStatus(refused, 429);
    assert.match(refused.json.detail, /^You may add at most 2 people to organizations a day\. Try again in \d+ seconds\.$/);
    const listed = expectStatus(await admin.api.get(`/organizations/personnel/list/organization/${org.sid}/name/`), 200).json;
    assert.equal(listed.count, 3, 'the Admin and the two invited');

    const mail = await readMail(people[0], { dataDir: server.dataDir });
    const dir = path.dirname(mail.file);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700, 'the folder');
    for (const name of fs.readdirSync(dir)) assert.equal(fs.statSync(path.join(dir, name)).mode & 0o777, 0o600, name);
    // One file 25 hours old (as if sent then) goes; the others, younger, stay.
    const old = new Date(Date.now() - 25 * 3_600_000);
    fs.utimesSync(mail.file, old, old);
    const others = fs.readdirSync(dir).filter((name) => path.join(dir, name) !== mail.file);
    for (let i = 0; fs.existsSync(mail.file); i += 1) {
      assert.ok(i < 600, 'the retention job deleted the old mail file within a minute');
      await sleep(100);
    }
    for (const name of others) assert.ok(fs.existsSync(path.join(dir, name)), `${name} is younger and stays`);
  });
});

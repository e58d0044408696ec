// What a notification POST costs (issue 15, target 5): after the credential's query, one
// statement checks the recipients, the parent and the sender's mail quota, writes the
// copies, their mail and their live events, and returns the answer. These tests show from
// outside that it is that cheap (Server-Timing, SERVER_TIMING=true) and that it still
// does exactly what the checks said before: the answer as GET detail reads it, the mail
// as it was worded, and nothing written (nor any quota taken) by a refused POST.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectDetail, expectFieldErrors, expectStatus } from '../helpers/assertions.ts';
import { newUser, paths, type TestUser } from '../helpers/factories.ts';
import { readMail, mailTo } from '../helpers/mail.ts';
import { notificationPaths } from '../helpers/notifications.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const QUOTA = 4;
let server: RunningServer;
before(async () => {
  server = await startServer({ env: { SERVER_TIMING: 'true', MAIL_PER_USER_PER_HOUR: String(QUOTA) } });
});
after(async () => server?.stop());

interface Member { user: TestUser; sid: string; name: string }

/** A fresh organization on this file's server: its Admin and `n` proven members. */
async function smallOrg(n: number): Promise<{ admin: Member; org: { sid: string; name: string }; members: Member[] }> {
  const admin = await newUser('costadmin', server);
  const org = await admin.api.post(paths.organizationList(admin.sid, 'detail'), { name: 'Cost lab' });
  expectStatus(org, 201);
  const members: Member[] = [];
  for (let i = 0; i < n; i += 1) {
    const user = await newUser(`costmember${i}`, server);
    const added = await admin.api.post(paths.personnelList(org.json.sid, 'detail'), { email: user.email });
    expectStatus(added, 201);
    // As the person would: accepting the organization lets it mail them (docs/decisions.md, "Consent before mail").
    expectStatus(await user.api.post(`/organizations/personnel/detail/${added.json.sid}/accept/`), 200, `${user.email} accepts`);
    members.push({ user, sid: added.json.sid, name: `${added.json.first_name} ${added.json.last_name}`.trim() });
  }
  const people = await admin.api.get(paths.personnelList(org.json.sid, 'detail'));
  const me = people.json.results.find((p: { email: string }) => p.email === admin.email);
  return { admin: { user: admin, sid: me.sid, name: `${me.first_name} ${me.last_name}` }, org: org.json, members };
}

const queriesOf = (res: { headers: Headers }) => {
  const timing = res.headers.get('server-timing') ?? '';
  const match = /db;desc="(\d+) queries"/.exec(timing);
  assert.ok(match, `Server-Timing names the queries: "${timing}"`);
  return Number(match[1]);
};

describe('notification POST: one statement after the credential', () => {
  test('to two recipients with should_email and a parent: 2 queries; the answer is what GET detail reads; each recipient is mailed once, worded as before', async () => {
    const { admin, org, members: [ann, ben] } = await smallOrg(2);
    const first = await admin.user.api.post(notificationPaths.list(org.sid), { to: [{ sid: ann.sid }], name: 'Opening', body: 'First.' });
    expectStatus(first, 201);
    // A read first, so the credential's once-a-minute "last used" write cannot land in the POST.
    expectStatus(await admin.user.api.get(notificationPaths.list(org.sid, 'name')), 200);
    const subject = 'Readings of week 12';
    const res = await admin.user.api.post(notificationPaths.list(org.sid), {
      to: [{ sid: ben.sid }, { sid: ann.sid, name: 'ignored' }, { sid: ben.sid }], name: subject, body: 'Please review.\nThanks.',
      parent: { sid: first.json.sid }, should_email: true,
    });
    expectStatus(res, 201);
    assert.equal(queriesOf(res), 2, 'the credential and the one statement that sends');
    const detail = await admin.user.api.get(notificationPaths.detail(res.json.sid));
    expectStatus(detail, 200);
    assert.deepEqual(res.json, detail.json, 'the answer is the first recipient\'s copy as the sender reads it');
    assert.deepEqual(res.json.From, { sid: admin.sid, name: admin.name });
    assert.deepEqual(res.json.parent, { sid: first.json.sid, name: 'Opening' });
    const bens = await ben.user.api.get(notificationPaths.list(org.sid, 'detail'));
    assert.deepEqual(bens.json.results.map((n: { sid: string }) => n.sid), [res.json.sid], 'the first recipient named is Ben; one copy for a recipient named twice');
    const anns = await ann.user.api.get(notificationPaths.list(org.sid, 'detail'));
    const annCopy = anns.json.results.find((n: { name: string }) => n.name === subject);
    for (const [who, sid] of [[ben, res.json.sid], [ann, annCopy.sid]] as const) {
      const mail = await readMail(who.user.email, { dataDir: server.dataDir, subject: new RegExp(subject) });
      assert.equal(mail.body.replace(/\r\n/g, '\n').trimEnd(), [
        `${admin.name} sent you a notification in Cost lab:`, '', subject, '', 'Please review.\nThanks.', '',
        `Read it in the Records Service: GET /notifications/notification/detail/${sid}/`, '',
        'You receive this email because you accepted this organization and your settings (should_receive_notification_email) or the sender asked for it; '
          + 'turn should_receive_notification_email off on your member record (the Account page) and no notification is mailed to you.',
      ].join('\n'));
    }
  });

  test('a refused POST writes nothing and takes no mail quota: a recipient who is not an active member, a parent the sender may not read; beyond the quota 429', async () => {
    const { admin, org, members: [ann, ben, cat, dan, eve] } = await smallOrg(5);
    const post = (body: Record<string, unknown>) => admin.user.api.post(notificationPaths.list(org.sid), { name: 'Quota', should_email: true, ...body });
    const outsider = await smallOrg(0);
    const foreign = await outsider.admin.user.api.post(notificationPaths.list(outsider.org.sid), { to: [{ sid: outsider.admin.sid }], name: 'Elsewhere' });
    expectStatus(foreign, 201);
    expectStatus(await admin.user.api.patch(paths.personnelDetail(cat.sid), { is_archived: true }), 200);

    expectFieldErrors(await post({ to: [{ sid: ann.sid }, { sid: cat.sid }, { sid: 'nobody' }, { sid: cat.sid }] }), {
      to: [`${cat.sid} is not an active member of this organization.`, 'nobody is not an active member of this organization.'],
    }, 'an archived member and a stranger, each named once');
    expectFieldErrors(await post({ to: [{ sid: ann.sid }, { sid: ben.sid }], parent: { sid: foreign.json.sid } }), {
      parent: ['No notification with this sid that you received or sent in this organization.'],
    }, 'a notification of another organization');
    expectFieldErrors(await post({ to: [{ sid: 'nobody' }], parent: { sid: foreign.json.sid } }), ['to'], 'the recipients are checked first');
    const five = [ann, ben, dan, eve, admin].map((m) => ({ sid: m.sid }));
    expectDetail(await post({ to: five }), 429, `You may send at most ${QUOTA} emails an hour. Try again in 3600 seconds.`, 'more recipients than the quota');
    for (const who of [ann, ben]) {
      const inbox = await who.user.api.get(notificationPaths.list(org.sid, 'name'));
      assert.equal(inbox.json.count, 0, 'nothing was written');
    }

    // None of that took from the quota: QUOTA mails still go, then one more is refused.
    expectStatus(await post({ to: [{ sid: ann.sid }, { sid: ben.sid }] }), 201);
    expectStatus(await post({ to: [{ sid: ann.sid }, { sid: ben.sid }, { sid: ann.sid }], name: 'Second' }), 201, 'a recipient named twice counts once');
    const beyond = await post({ to: [{ sid: ann.sid }], name: 'Beyond' });
    expectStatus(beyond, 429);
    assert.match(beyond.json.detail, /^You may send at most 4 emails an hour\. Try again in \d+ seconds\.$/);
    assert.ok(Number(beyond.headers.get('retry-after')) > 0);
    for (const who of [ann, ben]) {
      const inbox = await who.user.api.get(notificationPaths.list(org.sid, 'name'));
      assert.deepEqual(inbox.json.results.map((n: { name: string }) => n.name).sort(), ['Quota', 'Second'], 'the refused ones were not written');
    }
    // Without should_email nothing is counted.
    expectStatus(await post({ to: [{ sid: ann.sid }], name: 'Quiet', should_email: false }), 201);
    assert.equal(mailTo(ann.user.email, server.dataDir).filter((m) => m.subject === 'Beyond' || m.subject === 'Quiet').length, 0);
  });
});

// Personnel by role (spec: Personnel; design: Roles). Every endpoint for Admin, Member,
// Alumni (archived, and past date_end), an outsider (member of another organization
// only) and a caller without a token; every refused write is followed by a re-read
// that proves nothing changed.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Api, anonymous, type Answer } from '../helpers/http.ts';
import {
  MESSAGES, assertPage, assertShape, expectFieldErrors, expectForbidden, expectNotAuthenticated, expectNotFound,
  expectStatus, shapeKeys,
} from '../helpers/assertions.ts';
import {
  addMember, authenticate, getPersonnel, isoDay, listPersonnel, newOrganization, newUser, paths, postPersonnel,
  expectNoAccount, signup, strongPassword, uniqueEmail, type TestMember,
} from '../helpers/factories.ts';
import { readMail } from '../helpers/mail.ts';

const SERIALIZERS = ['name', 'list', 'detail'] as const;

/** Organization A with one of each role, and organization B whose people are outsiders to A. */
interface World {
  org: { sid: string; name: string };
  admin: TestMember;
  member: TestMember;
  archived: TestMember;
  ended: TestMember;
  outsider: TestMember;
  otherOrg: { sid: string; name: string };
  otherMember: TestMember;
}

async function makeWorld(): Promise<World> {
  const { admin, org } = await newOrganization('admin');
  const member = await addMember(admin, org, {}, 'member');
  const archived = await addMember(admin, org, { is_archived: 'true' }, 'archived');
  const ended = await addMember(admin, org, { date_start: '2020-01-01', date_end: isoDay(-30) }, 'ended');
  const { admin: outsider, org: otherOrg } = await newOrganization('outsider');
  const otherMember = await addMember(outsider, otherOrg, {}, 'othermember');
  return { org, admin, member, archived, ended, outsider, otherOrg, otherMember };
}

function newPerson(label = 'new') {
  return { email: uniqueEmail(label), first_name: 'New', last_name: 'Person', title: 'Technician', date_start: '2024-02-01' };
}

/** The email has no account: signing up with it works (so a refused POST made none). */
async function assertNoAccount(email: string) {
  await expectNoAccount(email);
}

describe('personnel by role', () => {
  let w: World;
  before(async () => {
    w = await makeWorld();
  });

  test('GET list, Admin: 200 in each shape, add_permission true, change_permission true on every record', async () => {
    for (const serializer of SERIALIZERS) {
      const page = assertPage(await w.admin.api.get(paths.personnelList(w.org.sid, serializer)), `personnel.${serializer}`, serializer);
      assert.equal(page.count, 4);
      assert.equal(page.add_permission, true);
      assert.deepEqual(page.results.map((p) => p.sid),
        [w.admin.personnel.sid, w.member.personnel.sid, w.archived.personnel.sid, w.ended.personnel.sid], 'oldest first');
      if (serializer !== 'name') assert.ok(page.results.every((p) => p.change_permission === true));
    }
  });

  test('GET list, Member: 200 in each shape, add_permission false, change_permission only on their own record', async () => {
    for (const serializer of SERIALIZERS) {
      const page = assertPage(await w.member.api.get(paths.personnelList(w.org.sid, serializer)), `personnel.${serializer}`, serializer);
      assert.equal(page.count, 4);
      assert.equal(page.add_permission, false);
      if (serializer !== 'name') {
        assert.deepEqual(page.results.filter((p) => p.change_permission).map((p) => p.sid), [w.member.personnel.sid]);
      }
    }
  });

  test('GET list: archived member, member past date_end and outsider get 403; no token gets 401', async () => {
    for (const serializer of SERIALIZERS) {
      expectForbidden(await w.archived.api.get(paths.personnelList(w.org.sid, serializer)), `archived, ${serializer}`);
      expectForbidden(await w.ended.api.get(paths.personnelList(w.org.sid, serializer)), `ended, ${serializer}`);
      expectForbidden(await w.outsider.api.get(paths.personnelList(w.org.sid, serializer)), `outsider, ${serializer}`);
      expectNotAuthenticated(await anonymous.get(paths.personnelList(w.org.sid, serializer)), `no token, ${serializer}`);
    }
  });

  test('the shapes carry exactly the spec\'s fields, with the values the Admin set', async () => {
    const [name, list, detail] = await Promise.all(SERIALIZERS.map(async (s) =>
      (await w.admin.api.get(paths.personnelList(w.org.sid, s))).json.results.find((p: { sid: string }) => p.sid === w.member.personnel.sid)));
    assert.deepEqual(Object.keys(name).sort(), ['name', 'sid']);
    assert.deepEqual(name, { sid: w.member.personnel.sid, name: `${w.member.first_name} ${w.member.last_name}` });
    assert.deepEqual(list, {
      sid: w.member.personnel.sid, name: name.name, email: w.member.email, title: 'Research scientist',
      date_start: '2024-01-15', date_end: null, is_administrator: false, is_archived: false, change_permission: true,
    });
    assert.deepEqual(Object.keys(detail).sort(), shapeKeys('personnel.detail').sort());
    for (const [key, value] of Object.entries(list as Record<string, unknown>)) {
      assert.deepEqual(detail[key], value, `detail.${key} agrees with the list shape`);
    }
    assert.equal(detail.first_name, w.member.first_name);
    assert.equal(detail.last_name, w.member.last_name);
    assert.deepEqual(detail.dashboard, []);
    assert.deepEqual(detail.metadata, []);
    assert.equal(detail.updated_by, `${w.admin.first_name} ${w.admin.last_name}`);
  });

  test('POST by Admin, one object: 201 detail shape; "true"/"false" strings come back as booleans', async () => {
    const user = await newUser('posted');
    const res = await postPersonnel(w.admin.api, w.org.sid, {
      email: user.email, first_name: 'Posted', last_name: 'Person', title: 'Chemist',
      date_start: '2023-03-01', date_end: '2099-12-31', is_administrator: 'true', is_archived: 'false',
    });
    expectStatus(res, 201);
    assertShape(res.json, 'personnel.detail');
    assert.equal(res.json.is_administrator, true);
    assert.equal(res.json.is_archived, false);
    assert.equal(res.json.name, 'Posted Person');
    assert.equal(res.json.email, user.email);
    assert.equal(res.json.title, 'Chemist');
    assert.equal(res.json.date_start, '2023-03-01');
    assert.equal(res.json.date_end, '2099-12-31');
    assert.equal(res.json.change_permission, true);
    assert.equal(res.json.updated_by, `${w.admin.first_name} ${w.admin.last_name}`);
    assert.deepEqual(await getPersonnel(w.admin.api, res.json.sid), res.json, 'the record reads back as answered');
    // The new Admin acts as one.
    const page = assertPage(await user.api.get(paths.personnelList(w.org.sid, 'list')));
    assert.equal(page.add_permission, true);
  });

  test('POST by Admin accepts JSON booleans too, and defaults what is left out', async () => {
    const user = await newUser('defaults');
    const res = await postPersonnel(w.admin.api, w.org.sid, { email: user.email, is_administrator: false, is_archived: false });
    expectStatus(res, 201);
    assertShape(res.json, 'personnel.detail');
    // Not the account's names: the answer is the same whether or not the address has an account.
    assert.equal(res.json.first_name, '', 'names left out stay empty');
    assert.equal(res.json.last_name, '');
    assert.equal(res.json.name, user.email, 'the name falls back to the email');
    const stranger = await postPersonnel(w.admin.api, w.org.sid, { email: uniqueEmail('noaccount'), is_administrator: false, is_archived: false });
    expectStatus(stranger, 201);
    const strip = (r: Record<string, unknown>) => ({ ...r, sid: '', email: '', name: '', date_updated: '' });
    assert.deepEqual(strip(stranger.json), strip(res.json), 'an address without an account answers alike');
    assert.equal(res.json.title, '');
    assert.equal(res.json.date_end, null);
    assert.equal(res.json.is_administrator, false);
  });

  test('POST by Admin with an array: 201 with an array of detail records, in order', async () => {
    const people = [newPerson('arr1'), newPerson('arr2'), newPerson('arr3')];
    const res = await postPersonnel(w.admin.api, w.org.sid, people.map((p, i) => ({ ...p, is_administrator: i === 0 ? 'true' : 'false' })));
    expectStatus(res, 201);
    assert.ok(Array.isArray(res.json));
    assert.equal(res.json.length, 3);
    res.json.forEach((record: unknown, i: number) => assertShape(record, 'personnel.detail', `item ${i}`));
    assert.deepEqual(res.json.map((p: { email: string }) => p.email), people.map((p) => p.email));
    assert.deepEqual(res.json.map((p: { is_administrator: boolean }) => p.is_administrator), [true, false, false]);
    for (const record of res.json) assert.deepEqual(await getPersonnel(w.admin.api, record.sid), record);
  });

  test('POST answers the detail shape whatever the serializer in the path (spec: "one member record in the detail shape")', async () => {
    const named = await postPersonnel(w.admin.api, w.org.sid, newPerson('named'), 'name');
    expectStatus(named, 201);
    assertShape(named.json, 'personnel.detail');
    const listed = await postPersonnel(w.admin.api, w.org.sid, [newPerson('listed')], 'list');
    expectStatus(listed, 201);
    assertShape(listed.json[0], 'personnel.detail');
  });

  test('POST of an email without an account: an account without a password, and an invitation whose tag sets one', async () => {
    const person = newPerson('invited');
    const res = await postPersonnel(w.admin.api, w.org.sid, person);
    expectStatus(res, 201);
    assert.equal(res.json.email, person.email);
    assert.equal(res.json.name, 'New Person');

    const mail = await readMail(person.email);
    assert.equal(mail.subject, `You are invited to ${w.org.name} on the Records Service`);
    assert.ok(mail.tag, `the invitation carries a link with a tag:\n${mail.body}`);
    assert.ok(mail.body.includes(`${w.admin.first_name} ${w.admin.last_name} invited you to ${w.org.name}`), mail.body);

    const invited = await authenticate(person.email, 'any password at all');
    expectStatus(invited, 406, 'the invited account has no password yet');
    const password = strongPassword();
    expectStatus(await anonymous.post('/accounts/resetpassword/', { password }, { query: { tag: mail.tag } }), 200);
    const auth = await authenticate(person.email, password);
    expectStatus(auth, 200);
    assert.equal(auth.json.user.first_name, 'New');
    const invitee = new Api(auth.json.token);
    const page = assertPage(await invitee.get(paths.organizationList(auth.json.user.sid, 'name')));
    assert.deepEqual(page.results.map((o) => o.sid), [w.org.sid], 'the invitee is a member of the organization');
  });

  test('POST of an email that is already personnel: 400, nothing written', async () => {
    const before = await listPersonnel(w.admin.api, w.org.sid);
    expectFieldErrors(await postPersonnel(w.admin.api, w.org.sid, { email: w.member.email }),
      { email: [`${w.member.email} is already a member of this organization.`] });
    expectFieldErrors(await postPersonnel(w.admin.api, w.org.sid, { email: w.member.email.toUpperCase() }), ['email'], 'in another case');
    expectFieldErrors(await postPersonnel(w.admin.api, w.org.sid, { email: w.archived.email }), ['email'], 'an archived member');
    // An array whose last item is a member writes none of the others.
    const fresh = newPerson('batch');
    expectFieldErrors(await postPersonnel(w.admin.api, w.org.sid, [fresh, { email: w.member.email }]), ['email']);
    expectFieldErrors(await postPersonnel(w.admin.api, w.org.sid, [fresh, { ...fresh }]), { email: [`${fresh.email} is listed twice.`] });
    assert.deepEqual(await listPersonnel(w.admin.api, w.org.sid), before);
    await assertNoAccount(fresh.email);
  });

  test('POST by Member, archived, ended or outsider: 403; no token: 401; nothing written, no account made', async () => {
    const before = await listPersonnel(w.admin.api, w.org.sid);
    const person = newPerson('refused');
    for (const [who, user] of [['member', w.member], ['archived', w.archived], ['ended', w.ended], ['outsider', w.outsider]] as const) {
      for (const serializer of SERIALIZERS) {
        expectForbidden(await postPersonnel(user.api, w.org.sid, person, serializer), `${who}, ${serializer}`);
      }
      expectForbidden(await postPersonnel(user.api, w.org.sid, [person]), `${who}, array`);
      expectForbidden(await postPersonnel(user.api, w.org.sid, { nonsense: true }), `${who}, a bad body is still 403`);
    }
    expectNotAuthenticated(await postPersonnel(anonymous, w.org.sid, person));
    assert.deepEqual(await listPersonnel(w.admin.api, w.org.sid), before);
    await assertNoAccount(person.email);
  });

  test('GET detail: Admin and Member 200; archived and ended 403; outsider 404; no token 401', async () => {
    const sid = w.admin.personnel.sid;
    const byAdmin = await w.admin.api.get(paths.personnelDetail(sid));
    expectStatus(byAdmin, 200);
    assertShape(byAdmin.json, 'personnel.detail');
    assert.equal(byAdmin.json.change_permission, true);
    const byMember = await w.member.api.get(paths.personnelDetail(sid));
    expectStatus(byMember, 200);
    assert.deepEqual(byMember.json, { ...byAdmin.json, change_permission: false });
    const own = await w.member.api.get(paths.personnelDetail(w.member.personnel.sid));
    expectStatus(own, 200);
    assert.equal(own.json.change_permission, true);

    expectForbidden(await w.archived.api.get(paths.personnelDetail(sid)));
    expectForbidden(await w.archived.api.get(paths.personnelDetail(w.archived.personnel.sid)), 'not even their own record');
    expectForbidden(await w.ended.api.get(paths.personnelDetail(sid)));
    expectNotFound(await w.outsider.api.get(paths.personnelDetail(sid)));
    expectNotAuthenticated(await anonymous.get(paths.personnelDetail(sid)));
    expectNotFound(await w.admin.api.get(paths.personnelDetail('0000000000000000')), 'a sid that does not exist');
  });

  test('PATCH by Admin of title, date_start, date_end, is_administrator, is_archived with string flags', async () => {
    const target = await addMember(w.admin, w.org, {}, 'patched');
    const before = await getPersonnel(w.admin.api, target.personnel.sid);
    const res = await w.admin.api.patch(paths.personnelDetail(target.personnel.sid), {
      title: 'Lab manager', date_start: '2022-05-01', date_end: '2099-01-31', is_administrator: 'true', is_archived: 'false',
    });
    expectStatus(res, 200);
    assertShape(res.json, 'personnel.detail');
    assert.deepEqual(
      { ...res.json, date_updated: before.date_updated },
      { ...before, title: 'Lab manager', date_start: '2022-05-01', date_end: '2099-01-31', is_administrator: true, is_archived: false },
      'exactly the sent fields changed',
    );
    assert.ok(res.json.date_updated > before.date_updated, 'date_updated moves');
    assert.deepEqual(await getPersonnel(w.admin.api, target.personnel.sid), res.json);

    const cleared = await w.admin.api.patch(paths.personnelDetail(target.personnel.sid), { date_end: '', is_administrator: 'false' });
    expectStatus(cleared, 200);
    assert.equal(cleared.json.date_end, null, 'an empty date_end clears it');
    assert.equal(cleared.json.is_administrator, false);
    const nulled = await w.admin.api.patch(paths.personnelDetail(target.personnel.sid), { date_end: null, is_archived: false });
    expectStatus(nulled, 200);
    assert.equal(nulled.json.date_end, null);
  });

  test('PATCH is_archived by Admin: the member loses access at once, and gets it back when unarchived', async () => {
    const target = await addMember(w.admin, w.org, {}, 'toggled');
    assertPage(await target.api.get(paths.personnelList(w.org.sid, 'name')));
    const archived = await w.admin.api.patch(paths.personnelDetail(target.personnel.sid), { is_archived: 'true' });
    expectStatus(archived, 200);
    assert.equal(archived.json.is_archived, true);
    expectForbidden(await target.api.get(paths.personnelList(w.org.sid, 'name')));
    expectForbidden(await target.api.get(paths.personnelDetail(target.personnel.sid)));
    expectStatus(await w.admin.api.patch(paths.personnelDetail(target.personnel.sid), { is_archived: 'false' }), 200);
    assertPage(await target.api.get(paths.personnelList(w.org.sid, 'name')));
  });

  test('PATCH by a Member of their own member fields: 200', async () => {
    const me = await addMember(w.admin, w.org, {}, 'selfedit');
    const before = await getPersonnel(me.api, me.personnel.sid);
    const changes = {
      first_name: 'Grace', last_name: 'Hopper',
      metadata: [{ orcid: '0000-0002-1825-0097' }, 'note', 3],
      dashboard: [{ link: 'https://example.test/board', note: 'My board' }],
      should_receive_weekly_digest: 'true', should_receive_statement_digest: true,
      should_receive_mention_notification: 'false', should_receive_record_change_notification: false,
      should_receive_notification_email: 'true',
    };
    const res = await me.api.patch(paths.personnelDetail(me.personnel.sid), changes);
    expectStatus(res, 200);
    assertShape(res.json, 'personnel.detail');
    assert.deepEqual({ ...res.json, date_updated: before.date_updated }, {
      ...before,
      first_name: 'Grace', last_name: 'Hopper', name: 'Grace Hopper',
      metadata: changes.metadata, dashboard: changes.dashboard,
      should_receive_weekly_digest: true, should_receive_statement_digest: true,
      should_receive_mention_notification: false, should_receive_record_change_notification: false,
      should_receive_notification_email: true,
      updated_by: `${me.first_name} ${me.last_name}`,
    });
    assert.deepEqual(await getPersonnel(w.admin.api, me.personnel.sid), { ...res.json, change_permission: true });
    const email = uniqueEmail('newaddress');
    const moved = await me.api.patch(paths.personnelDetail(me.personnel.sid), { email });
    expectStatus(moved, 200);
    assert.equal(moved.json.email, email);
  });

  test('PATCH by a Member of an admin field of their own record: 403 and nothing changes', async () => {
    const me = await addMember(w.admin, w.org, {}, 'overreach');
    const before = await getPersonnel(w.admin.api, me.personnel.sid);
    for (const body of [
      { title: 'Director' }, { date_start: '2020-01-01' }, { date_end: '2099-01-01' },
      { is_administrator: 'true' }, { is_administrator: true }, { is_archived: 'true' },
      { first_name: 'Sneaky', is_administrator: 'true' },
    ]) {
      expectForbidden(await me.api.patch(paths.personnelDetail(me.personnel.sid), body), JSON.stringify(body));
    }
    assert.deepEqual(await getPersonnel(w.admin.api, me.personnel.sid), before);
    assert.equal(assertPage(await me.api.get(paths.personnelList(w.org.sid, 'name'))).add_permission, false, 'still a Member');
  });

  test('PATCH by a Member of someone else\'s record: 403 and nothing changes', async () => {
    for (const target of [w.admin, w.archived]) {
      const before = await getPersonnel(w.admin.api, target.personnel.sid);
      expectForbidden(await w.member.api.patch(paths.personnelDetail(target.personnel.sid), { first_name: 'Changed' }));
      expectForbidden(await w.member.api.patch(paths.personnelDetail(target.personnel.sid), { is_archived: 'true' }));
      assert.deepEqual(await getPersonnel(w.admin.api, target.personnel.sid), before);
    }
  });

  test('PATCH by archived or ended (even of their own record): 403; outsider: 404; no token: 401; nothing changes', async () => {
    const records = [w.admin, w.member, w.archived, w.ended].map((u) => u.personnel.sid);
    const before = await Promise.all(records.map((sid) => getPersonnel(w.admin.api, sid)));
    expectForbidden(await w.archived.api.patch(paths.personnelDetail(w.archived.personnel.sid), { first_name: 'Back', is_archived: 'false' }));
    expectForbidden(await w.archived.api.patch(paths.personnelDetail(w.archived.personnel.sid), { first_name: 'Back' }));
    expectForbidden(await w.ended.api.patch(paths.personnelDetail(w.ended.personnel.sid), { date_end: '' }));
    expectForbidden(await w.ended.api.patch(paths.personnelDetail(w.member.personnel.sid), { first_name: 'X' }));
    expectNotFound(await w.outsider.api.patch(paths.personnelDetail(w.member.personnel.sid), { title: 'Hijacked' }));
    expectNotFound(await w.outsider.api.patch(paths.personnelDetail(w.admin.personnel.sid), { is_administrator: 'false' }));
    expectNotAuthenticated(await anonymous.patch(paths.personnelDetail(w.member.personnel.sid), { title: 'Anon' }));
    assert.deepEqual(await Promise.all(records.map((sid) => getPersonnel(w.admin.api, sid))), before);
  });

  test('a member of organization A reads and changes nothing of organization B', async () => {
    const bPeople = await listPersonnel(w.outsider.api, w.otherOrg.sid);
    for (const serializer of SERIALIZERS) {
      expectForbidden(await w.member.api.get(paths.personnelList(w.otherOrg.sid, serializer)));
      expectForbidden(await w.admin.api.get(paths.personnelList(w.otherOrg.sid, serializer)), 'not even A\'s Admin');
    }
    expectForbidden(await postPersonnel(w.admin.api, w.otherOrg.sid, newPerson('crossorg')));
    for (const record of bPeople) {
      expectNotFound(await w.member.api.get(paths.personnelDetail(record.sid)));
      expectNotFound(await w.admin.api.get(paths.personnelDetail(record.sid)));
      expectNotFound(await w.admin.api.patch(paths.personnelDetail(record.sid), { is_archived: 'true' }));
      expectNotFound(await w.admin.api.patch(paths.personnelDetail(record.sid), { first_name: 'Mine' }));
    }
    assert.deepEqual(await listPersonnel(w.outsider.api, w.otherOrg.sid), bPeople);
    // And the other way round.
    expectNotFound(await w.otherMember.api.get(paths.personnelDetail(w.member.personnel.sid)));
  });
});

describe('the last active Admin', () => {
  test('cannot be demoted, archived or given a past date_end (400, nothing changes) until another Admin exists', async () => {
    const { admin, org } = await newOrganization('lastadmin');
    const member = await addMember(admin, org);
    const self = paths.personnelDetail(admin.personnel.sid);
    // A date_end in the past needs a date_start before it.
    expectStatus(await admin.api.patch(self, { date_start: '2020-01-01' }), 200);
    const before = await getPersonnel(admin.api, admin.personnel.sid);
    const refused = (res: Answer, field: string) => expectFieldErrors(res, { [field]: [MESSAGES.lastAdmin] }, field);
    refused(await admin.api.patch(self, { is_administrator: 'false' }), 'is_administrator');
    refused(await admin.api.patch(self, { is_administrator: false }), 'is_administrator');
    refused(await admin.api.patch(self, { is_archived: 'true' }), 'is_archived');
    refused(await admin.api.patch(self, { date_end: '2021-06-30' }), 'date_end');
    refused(await admin.api.patch(self, { date_end: isoDay(-2) }), 'date_end');
    refused(await admin.api.patch(self, { title: 'Leaving', is_archived: 'true' }), 'is_archived');
    assert.deepEqual(await getPersonnel(admin.api, admin.personnel.sid), before, 'nothing changed, not even the title');
    assertPage(await admin.api.get(paths.personnelList(org.sid, 'name')));

    // A future date_end keeps them active, so it is allowed.
    const future = await admin.api.patch(self, { date_end: '2099-12-31' });
    expectStatus(future, 200);
    assert.equal(future.json.date_end, '2099-12-31');

    // Promote the member; now the first Admin may step down.
    const promoted = await admin.api.patch(paths.personnelDetail(member.personnel.sid), { is_administrator: 'true' });
    expectStatus(promoted, 200);
    assert.equal(promoted.json.is_administrator, true);
    const demoted = await admin.api.patch(self, { is_administrator: 'false' });
    expectStatus(demoted, 200);
    assert.equal(demoted.json.is_administrator, false);
    assert.equal(assertPage(await admin.api.get(paths.personnelList(org.sid, 'name'))).add_permission, false, 'now a Member');
    expectForbidden(await postPersonnel(admin.api, org.sid, newPerson('afterdemotion')));

    // The new Admin is now the last one.
    const last = paths.personnelDetail(member.personnel.sid);
    const lastBefore = await getPersonnel(member.api, member.personnel.sid);
    refused(await member.api.patch(last, { is_archived: 'true' }), 'is_archived');
    refused(await member.api.patch(last, { is_administrator: 'false' }), 'is_administrator');
    assert.deepEqual(await getPersonnel(member.api, member.personnel.sid), lastBefore);

    // With two Admins again, one may archive the other.
    expectStatus(await member.api.patch(self, { is_administrator: 'true' }), 200);
    const archived = await member.api.patch(self, { is_archived: 'true' });
    expectStatus(archived, 200);
    assert.equal(archived.json.is_archived, true);
    expectForbidden(await admin.api.get(paths.personnelList(org.sid, 'name')), 'an archived Admin has no access');
  });

  test('a member with a future date_end is still a Member', async () => {
    const { admin, org } = await newOrganization('futureend');
    const leaving = await addMember(admin, org, { date_end: isoDay(30) }, 'leaving');
    const page = assertPage(await leaving.api.get(paths.personnelList(org.sid, 'list')), 'personnel.list');
    assert.equal(page.count, 2);
  });
});

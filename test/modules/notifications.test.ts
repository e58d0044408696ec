// Notifications through HTTP (spec: Notification, its endpoints and the is_read
// transition; docs/notifications.md): every endpoint by every role, one copy and one
// read state per recipient, PATCH and DELETE semantics, the email rules, mentions in
// cells and record-change notifications.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Api } from '../helpers/http.ts';
import { expectFieldErrors, expectForbidden, expectNotFound, expectNotAuthenticated, expectStatus, assertPage } from '../helpers/assertions.ts';
import { addMember, getPersonnel, paths, unique } from '../helpers/factories.ts';
import { mailTo, readMail } from '../helpers/mail.ts';
import { createCell, createRow, newWorkspace, patchCell, recordPaths, ROLES, type Role, type Workspace } from '../helpers/records.ts';
import {
  assertNotification, copiesOf, copyOf, inbox, notificationPaths, postNotification, ref, sendNotification,
} from '../helpers/notifications.ts';

const ACTIVE: Role[] = ['admin', 'projectAdmin', 'projectEdit', 'projectView', 'member'];

let ws: Workspace;

before(async () => {
  ws = await newWorkspace({ label: 'ntf' });
});

/** The personnel record of a role's caller (the Admin's is the creator's). */
const personnelOf = (role: Exclude<Role, 'anonymous'>) => (ws as any)[role].personnel as { sid: string; name: string };

describe('POST: sending', () => {
  test('answers 201 with the first recipient\'s copy in the detail shape (the spec), on every serializer\'s URL; From is the sender\'s personnel record', async () => {
    for (const serializer of ['name', 'list', 'detail'] as const) {
      const name = `Shape ${unique('s')}`;
      const res = await postNotification(ws.admin.api, ws.org.sid, [personnelOf('projectEdit'), personnelOf('member')],
        { name, body: 'Please review row 42.' }, serializer);
      expectStatus(res, 201, `POST (${serializer})`);
      const n = assertNotification(res.json, 'detail', `POST answer (${serializer} URL)`);
      assert.equal(n.name, name);
      assert.deepEqual(n.From, { sid: ws.admin.personnel.sid, name: ws.admin.personnel.name }, 'From is {sid, name} of the sender');
      assert.equal(n.is_read, false);
      assert.equal(n.change_permission, false, 'the sender may not change a recipient\'s copy');
      if (serializer === 'detail') {
        assert.equal(n.body, 'Please review row 42.');
        assert.equal(n.parent, null);
        assert.deepEqual(n.rows, [], 'a message from a member is about no rows');
        assert.equal(n.updated_by, null);
        const mine = await copyOf(ws.projectEdit.api, ws.org.sid, name, 'the first recipient');
        assert.equal(mine.sid, n.sid, 'the answer is the first recipient\'s copy');
      }
    }
  });

  test('every active member may send (201); Alumni and an outsider get 403; no token 401; only the sent ones arrive', async () => {
    const name = `Roles ${unique('r')}`;
    for (const role of ROLES) {
      const res = await postNotification(ws.api[role], ws.org.sid, [personnelOf('projectAdmin')], { name: `${name} ${role}` });
      if (ACTIVE.includes(role)) expectStatus(res, 201, `${role} sends`);
      else if (role === 'anonymous') expectNotAuthenticated(res, 'no token');
      else expectForbidden(res, `${role} sends`);
    }
    const arrived = (await inbox(ws.projectAdmin.api, ws.org.sid)).filter((n) => n.name.startsWith(name)).map((n) => n.name.slice(name.length + 1));
    assert.deepEqual(arrived.sort(), [...ACTIVE].sort(), 'exactly the active members\' notifications arrived');
  });

  test('each distinct recipient gets their own copy, with its own sid', async () => {
    const name = `Copies ${unique('c')}`;
    await sendNotification(ws.admin.api, ws.org.sid, [personnelOf('projectEdit'), personnelOf('member'), personnelOf('projectEdit')], { name });
    const edit = await copiesOf(ws.projectEdit.api, ws.org.sid, name);
    const member = await copiesOf(ws.member.api, ws.org.sid, name);
    assert.equal(edit.length, 1, 'a recipient listed twice gets one copy');
    assert.equal(member.length, 1);
    assert.notEqual(edit[0].sid, member[0].sid, 'one notification per recipient');
    assert.equal((await copiesOf(ws.projectView.api, ws.org.sid, name)).length, 0, 'a member who is not a recipient gets nothing');
    assert.equal((await copiesOf(ws.admin.api, ws.org.sid, name)).length, 0, 'the sender\'s list holds only what was sent to them');
  });

  test('refuses a body that does not fit (400, field errors) and sends nothing', async () => {
    const name = `Refused ${unique('x')}`;
    const good = ref(personnelOf('member'));
    const post = (body: unknown) => ws.admin.api.post(notificationPaths.list(ws.org.sid), body);
    expectFieldErrors(await post({ to: [], name, body: 'x' }), ['to'], 'no recipient');
    expectFieldErrors(await post({ to: [good, ref(ws.outsider.personnel)], name }), ['to'], 'personnel of another organization');
    expectFieldErrors(await post({ to: [good, ref(personnelOf('alumni'))], name }), ['to'], 'an archived member');
    expectFieldErrors(await post({ to: [good, { sid: 'not-a-sid' }], name }), ['to'], 'not a sid');
    expectFieldErrors(await post({ to: [good], body: 'no subject' }), ['name'], 'no subject');
    expectFieldErrors(await post({ to: [good], name: '' }), ['name'], 'empty subject');
    expectFieldErrors(await post({ to: [good], name, priority: 'high' }), ['priority'], 'unknown field');
    expectFieldErrors(await post({ to: [{ ...good, extra: 1 }], name }), ['to.0.extra'], 'unknown field in a recipient');
    expectFieldErrors(await post({ to: [good], name, should_email: 'yes' }), ['should_email'], 'should_email is a boolean');
    expectFieldErrors(await post({ to: [good], name, parent: { sid: 'AAAAAAAAAAAAAAAA', name: 'x' } }), ['parent'], 'an unknown parent');
    assert.equal((await copiesOf(ws.member.api, ws.org.sid, name)).length, 0, 'nothing was sent');
  });

  test('parent links a reply to a notification the sender received or sent; any other parent is 400', async () => {
    const name = `Question ${unique('q')}`;
    const sent = await sendNotification(ws.admin.api, ws.org.sid, [personnelOf('member'), personnelOf('projectView')], { name });
    const received = await copyOf(ws.member.api, ws.org.sid, name, 'member');
    const reply = await sendNotification(ws.member.api, ws.org.sid, [ws.admin.personnel], {
      name: `Re: ${name}`, parent: { sid: received.sid, name: received.name },
    });
    assert.deepEqual(reply.parent, { sid: received.sid, name }, 'the reply names its parent');
    const adminCopy = await copyOf(ws.admin.api, ws.org.sid, `Re: ${name}`, 'admin');
    assert.deepEqual(adminCopy.parent, { sid: received.sid, name });
    expectStatus(await ws.admin.api.get(notificationPaths.detail(received.sid)), 200, 'the original sender can open the parent (they sent it)');
    // The sender may name what they sent as a parent too.
    await sendNotification(ws.admin.api, ws.org.sid, [personnelOf('member')], { name: `Follow-up ${name}`, parent: { sid: sent.sid, name } });
    // Someone else's copy, or a notification of another organization, is not a parent for this caller.
    const viewCopy = await copyOf(ws.projectView.api, ws.org.sid, name, 'projectView');
    expectFieldErrors(await postNotification(ws.member.api, ws.org.sid, [ws.admin.personnel], { parent: { sid: viewCopy.sid, name } }),
      ['parent'], "another recipient's copy");
    const foreign = await addMember(ws.outsider, ws.outsiderOrg, {}, 'foreign');
    expectFieldErrors(await postNotification(ws.outsider.api, ws.outsiderOrg.sid, [foreign.personnel], { parent: { sid: sent.sid, name } }),
      ['parent'], 'a notification of another organization');
  });
});

describe('GET list: the caller\'s inbox', () => {
  test('by role: active members 200 with add_permission; Alumni and outsiders 403; no token 401; unknown organization or level 406', async () => {
    for (const role of ROLES) {
      const res = await ws.api[role].get(notificationPaths.list(ws.org.sid, 'list'));
      if (ACTIVE.includes(role)) assert.equal(assertPage(res, undefined, role).add_permission, true, `${role} may send`);
      else if (role === 'anonymous') expectNotAuthenticated(res, 'no token');
      else expectForbidden(res, role);
    }
    expectStatus(await ws.admin.api.get(notificationPaths.list('AAAAAAAAAAAAAAAA', 'list')), 406, 'unknown organization');
    expectStatus(await ws.admin.api.get(notificationPaths.list(ws.org.sid, 'list', undefined, 'project')), 406, 'wrong level');
    expectStatus(await ws.admin.api.get(notificationPaths.list(ws.org.sid, 'full')), 406, 'unknown serializer');
  });

  test('holds only what was sent to the caller, newest first, in the name, list and detail shapes, paged', async () => {
    const fresh = await addMember(ws.admin, ws.org, {}, 'inbox');
    const names = [];
    for (let i = 0; i < 3; i += 1) {
      names.push(`Inbox ${i} ${unique('i')}`);
      await sendNotification(i === 1 ? ws.member.api : ws.admin.api, ws.org.sid, [fresh.personnel], { name: names[i] });
    }
    await sendNotification(ws.admin.api, ws.org.sid, [personnelOf('member')], { name: `Not for ${unique('n')}` });
    for (const serializer of ['name', 'list', 'detail'] as const) {
      const page = assertPage(await fresh.api.get(notificationPaths.list(ws.org.sid, serializer)));
      assert.equal(page.count, 3, `${serializer}: exactly the three sent to them`);
      page.results.forEach((n, i) => assertNotification(n, serializer, `${serializer}[${i}]`));
      assert.deepEqual(page.results.map((n) => n.name), [...names].reverse(), `${serializer}: newest first`);
    }
    const list = assertPage(await fresh.api.get(notificationPaths.list(ws.org.sid, 'list'))).results;
    assert.equal(list[1].From.sid, personnelOf('member').sid, 'From of each is its sender');
    assert.ok(list.every((n) => n.change_permission === true && n.is_read === false), 'the recipient may change their unread copies');
    const first = assertPage(await fresh.api.get(notificationPaths.list(ws.org.sid, 'list', { page_size: 2 })));
    assert.equal(first.page_count, 2);
    const second = assertPage(await fresh.api.get(first.next!));
    assert.deepEqual([...first.results, ...second.results].map((n) => n.name), [...names].reverse(), 'pages follow each other');
  });
});

describe('GET detail: reading marks read, per recipient', () => {
  test('the sender reads without marking; each recipient\'s read marks only their own copy', async () => {
    const name = `Read ${unique('r')}`;
    const sent = await sendNotification(ws.admin.api, ws.org.sid, [personnelOf('member'), personnelOf('projectEdit')], { name });
    const bySender = await ws.admin.api.get(notificationPaths.detail(sent.sid));
    expectStatus(bySender, 200, 'the sender reads what they sent');
    assertNotification(bySender.json, 'detail', 'sender\'s view');
    assert.equal(bySender.json.is_read, false, 'the sender\'s read does not mark it read');
    assert.equal(bySender.json.change_permission, false);
    assert.equal((await copyOf(ws.member.api, ws.org.sid, name, 'member')).is_read, false, 'still unread for the recipient');

    const read = await ws.member.api.get(notificationPaths.detail(sent.sid));
    expectStatus(read, 200, 'the recipient reads it');
    assertNotification(read.json, 'detail', 'recipient\'s view');
    assert.equal(read.json.is_read, true, 'spec: GET detail sets is_read');
    assert.equal(read.json.change_permission, true);
    assert.equal(read.json.updated_by, null, 'reading does not set updated_by');
    assert.equal((await copyOf(ws.member.api, ws.org.sid, name, 'member')).is_read, true, 'the list shows it read');
    assert.equal((await copyOf(ws.projectEdit.api, ws.org.sid, name, 'projectEdit')).is_read, false, 'the other recipient\'s copy is still unread');
  });

  test('by role: recipient 200, sender 200, every other caller 404 and nothing changes; no token 401', async () => {
    const name = `Private ${unique('p')}`;
    const copy = await sendNotification(ws.admin.api, ws.org.sid, [personnelOf('projectEdit')], { name });
    for (const role of ROLES) {
      if (role === 'projectEdit') continue;
      const res = await ws.api[role].get(notificationPaths.detail(copy.sid));
      if (role === 'admin') expectStatus(res, 200, 'the sender');
      else if (role === 'anonymous') expectNotAuthenticated(res, 'no token');
      else {
        expectNotFound(res, `${role} reads someone else's notification`);
        assert.ok(!res.text.includes(name), 'the refusal does not reveal the subject');
      }
    }
    assert.equal((await copyOf(ws.projectEdit.api, ws.org.sid, name, 'projectEdit')).is_read, false, 'nobody else marked it read');
    expectStatus(await ws.projectEdit.api.get(notificationPaths.detail(copy.sid)), 200, 'the recipient');
    expectNotFound(await ws.admin.api.get(notificationPaths.detail('AAAAAAAAAAAAAAAA')), 'an unknown sid');
    expectNotFound(await ws.admin.api.get(notificationPaths.detail('not a sid')), 'a malformed sid');
  });

  test('a recipient who has left the organization is refused (403)', async () => {
    const leaving = await addMember(ws.admin, ws.org, {}, 'leaving');
    const copy = await sendNotification(ws.admin.api, ws.org.sid, [leaving.personnel]);
    expectStatus(await ws.admin.api.patch(paths.personnelDetail(leaving.personnel.sid), { is_archived: 'true' }), 200, 'archiving');
    expectForbidden(await leaving.api.get(notificationPaths.detail(copy.sid)), 'a former member reads their old notification');
    expectForbidden(await leaving.api.get(notificationPaths.list(ws.org.sid, 'list')), 'a former member lists');
  });
});

describe('PATCH: the recipient marks read or unread', () => {
  test('is_read back to false and to true again; updated_by names the recipient; other fields are refused', async () => {
    const name = `Mark ${unique('m')}`;
    const copy = await sendNotification(ws.admin.api, ws.org.sid, [personnelOf('projectView')], { name });
    const api = ws.projectView.api;
    expectStatus(await api.get(notificationPaths.detail(copy.sid)), 200, 'read');
    const unread = await api.patch(notificationPaths.detail(copy.sid), { is_read: false });
    expectStatus(unread, 200, 'mark unread');
    assertNotification(unread.json, 'detail', 'PATCH answer');
    assert.equal(unread.json.is_read, false);
    assert.equal(unread.json.updated_by, `${ws.projectView.first_name} ${ws.projectView.last_name}`, 'updated_by names who changed it');
    assert.equal((await copyOf(api, ws.org.sid, name, 'projectView')).is_read, false, 'the list shows it unread again');
    const again = await api.patch(notificationPaths.detail(copy.sid), { is_read: true });
    assert.equal(again.json.is_read, true);
    expectStatus(await api.patch(notificationPaths.detail(copy.sid), {}), 200, 'an empty PATCH changes nothing');
    for (const body of [{ name: 'changed' }, { body: 'changed' }, { is_read: 'no' }, { From: { sid: 'x', name: 'y' } }]) {
      expectStatus(await api.patch(notificationPaths.detail(copy.sid), body), 400, `PATCH ${JSON.stringify(body)}`);
    }
    const after = (await api.get(notificationPaths.detail(copy.sid))).json;
    assert.equal(after.name, name, 'the subject never changes');
    assert.equal(after.body, 'A message');
  });

  test('by role: the sender 403, every other caller 404, no token 401, and nothing changes', async () => {
    const name = `Patch ${unique('p')}`;
    const copy = await sendNotification(ws.admin.api, ws.org.sid, [personnelOf('projectEdit')], { name });
    for (const role of ROLES) {
      if (role === 'projectEdit') continue;
      const res = await ws.api[role].patch(notificationPaths.detail(copy.sid), { is_read: true });
      if (role === 'admin') expectForbidden(res, 'the sender');
      else if (role === 'anonymous') expectNotAuthenticated(res, 'no token');
      else expectNotFound(res, role);
    }
    assert.equal((await copyOf(ws.projectEdit.api, ws.org.sid, name, 'projectEdit')).is_read, false, 'still unread');
  });
});

describe('DELETE: the recipient removes it from their own inbox', () => {
  test('answers {}; gone for them; the other recipient keeps theirs; the sender still reads it', async () => {
    const name = `Delete ${unique('d')}`;
    const sent = await sendNotification(ws.admin.api, ws.org.sid, [personnelOf('member'), personnelOf('projectView')], { name });
    const res = await ws.member.api.delete(notificationPaths.detail(sent.sid));
    expectStatus(res, 200, 'the recipient deletes');
    assert.deepEqual(res.json, {}, 'spec: DELETE returns an empty object');
    assert.equal((await copiesOf(ws.member.api, ws.org.sid, name)).length, 0, 'no longer listed');
    expectNotFound(await ws.member.api.get(notificationPaths.detail(sent.sid)), 'no longer readable');
    expectNotFound(await ws.member.api.patch(notificationPaths.detail(sent.sid), { is_read: true }), 'no longer changeable');
    expectNotFound(await ws.member.api.delete(notificationPaths.detail(sent.sid)), 'deleting twice');
    assert.equal((await copiesOf(ws.projectView.api, ws.org.sid, name)).length, 1, 'the other recipient keeps their copy');
    expectStatus(await ws.admin.api.get(notificationPaths.detail(sent.sid)), 200, 'the sender still reads what they sent');
  });

  test('by role: the sender 403, every other caller 404, no token 401, and the copy stays', async () => {
    const name = `Keep ${unique('k')}`;
    const copy = await sendNotification(ws.admin.api, ws.org.sid, [personnelOf('projectEdit')], { name });
    for (const role of ROLES) {
      if (role === 'projectEdit') continue;
      const res = await ws.api[role].delete(notificationPaths.detail(copy.sid));
      if (role === 'admin') expectForbidden(res, 'the sender');
      else if (role === 'anonymous') expectNotAuthenticated(res, 'no token');
      else expectNotFound(res, role);
    }
    assert.equal((await copiesOf(ws.projectEdit.api, ws.org.sid, name)).length, 1, 'the copy is still there');
    const put = await ws.projectEdit.api.put(notificationPaths.detail(copy.sid), { is_read: true });
    expectStatus(put, 405, 'PUT is not offered');
    assert.match(put.headers.get('allow') ?? '', /DELETE/);
  });
});

describe('email', () => {
  test('should_email: every recipient gets one email; without it only those whose should_receive_notification_email is on', async () => {
    const wants = await addMember(ws.admin, ws.org, {}, 'wantsmail');
    const quiet = await addMember(ws.admin, ws.org, {}, 'quiet');
    expectStatus(await wants.api.patch(paths.personnelDetail(wants.personnel.sid), { should_receive_notification_email: true }), 200, 'opting in');
    assert.equal((await getPersonnel(ws.admin.api, quiet.personnel.sid)).should_receive_notification_email, false, 'off by default');

    const loud = `Loud ${unique('l')}`;
    await sendNotification(ws.admin.api, ws.org.sid, [wants.personnel, quiet.personnel], { name: loud, body: 'Read this.', should_email: true });
    const subject = new RegExp(loud);
    for (const who of [wants, quiet]) {
      const mail = await readMail(who.email, { subject });
      assert.match(mail.subject, subject);
      assert.match(mail.body, /Read this\./, 'the email carries the message');
      assert.match(mail.body, new RegExp(ws.admin.personnel.name), 'and names the sender');
    }

    const soft = `Soft ${unique('s')}`;
    await sendNotification(ws.admin.api, ws.org.sid, [wants.personnel, quiet.personnel], { name: soft, should_email: false });
    await readMail(wants.email, { subject: new RegExp(soft) });
    await sleep(2_000);
    assert.equal(mailTo(quiet.email).filter((m) => m.subject.includes(soft)).length, 0, 'no email for a recipient who did not ask for it');
    for (const who of [wants, quiet]) {
      assert.equal(mailTo(who.email).filter((m) => m.subject.includes(loud)).length, 1, 'exactly one email per recipient');
    }
    assert.equal(mailTo(ws.admin.email).filter((m) => m.subject.includes(loud)).length, 0, 'the sender gets none');
  });
});

describe('mentions in cells and changes to rows', () => {
  let rs: Workspace;
  before(async () => {
    rs = await newWorkspace({ label: 'mnt' });
  });

  const mentionsOf = async (api: Api, rowSid: string) =>
    (await inbox(api, rs.org.sid)).filter((n) => / mentioned you in /.test(n.name) && n.rows[0]?.sid === rowSid);
  const changesOf = async (api: Api, rowSid: string) =>
    (await inbox(api, rs.org.sid)).filter((n) => / changed /.test(n.name) && n.rows[0]?.sid === rowSid);

  test('@sid and @email notify members who may read the row, once, never the author; a plain email mentions no one', async () => {
    const row = await createRow(rs);
    const text = `Check @${rs.projectEdit.personnel.sid}, @${rs.projectView.email.toUpperCase()}, `
      + `@${rs.projectAdmin.personnel.sid} (me), @${rs.member.personnel.sid} (no project role), @${rs.alumni.personnel.sid} (left), `
      + `${rs.admin.email} (no @) and @${rs.outsider.personnel.sid} (another organization).`;
    const cell = await createCell(rs.projectAdmin.api, rs.org.sid, row.sid, rs.columns.text.sid, text);
    for (const role of ['projectEdit', 'projectView'] as const) {
      const found = await mentionsOf(rs.api[role], row.sid);
      assert.equal(found.length, 1, `${role} is mentioned once`);
      assertNotification(found[0], 'detail', role);
      assert.deepEqual(found[0].From, { sid: rs.projectAdmin.personnel.sid, name: rs.projectAdmin.personnel.name }, 'From the author');
      assert.deepEqual(found[0].rows, [{ sid: row.sid, name: row.name }], 'rows: the row');
      assert.match(found[0].body, /Check @/, 'the body quotes the cell');
    }
    for (const role of ['projectAdmin', 'member', 'admin'] as const) {
      assert.equal((await mentionsOf(rs.api[role], row.sid)).length, 0, `${role} is not notified`);
    }
    // The same mentions again, and one new: only the new one notifies.
    expectStatus(await patchCell(rs.projectAdmin.api, cell.sid, `${text} Also @${rs.admin.email}`), 200, 'changing the cell');
    assert.equal((await mentionsOf(rs.projectEdit.api, row.sid)).length, 1, 'an old mention does not notify again');
    assert.equal((await mentionsOf(rs.admin.api, row.sid)).length, 1, 'the org Admin (may read every row) is newly mentioned');
  });

  test('a member whose should_receive_mention_notification is off is not notified', async () => {
    const row = await createRow(rs);
    expectStatus(await rs.projectView.api.patch(paths.personnelDetail(rs.projectView.personnel.sid), { should_receive_mention_notification: false }), 200, 'opting out');
    try {
      await createCell(rs.projectAdmin.api, rs.org.sid, row.sid, rs.columns.text.sid, `Hi @${rs.projectView.personnel.sid} and @${rs.projectEdit.personnel.sid}`);
      assert.equal((await mentionsOf(rs.projectEdit.api, row.sid)).length, 1);
      assert.equal((await mentionsOf(rs.projectView.api, row.sid)).length, 0, 'opted out');
    } finally {
      await rs.projectView.api.patch(paths.personnelDetail(rs.projectView.personnel.sid), { should_receive_mention_notification: true });
    }
  });

  test('a change by someone else notifies the row\'s creator; their own changes do not; the setting turns it off', async () => {
    const row = await createRow(rs); // created by the Project Admin
    const cell = await createCell(rs.projectAdmin.api, rs.org.sid, row.sid, rs.columns.text.sid, 'v1');
    assert.equal((await changesOf(rs.projectAdmin.api, row.sid)).length, 0, 'the creator\'s own changes notify no one');
    expectStatus(await patchCell(rs.projectEdit.api, cell.sid, 'v2 by the editor'), 200, 'the editor changes the cell');
    const [change, ...more] = await changesOf(rs.projectAdmin.api, row.sid);
    assert.ok(change && !more.length, 'one notification for one change');
    assertNotification(change, 'detail', 'record change');
    assert.deepEqual(change.From, { sid: rs.projectEdit.personnel.sid, name: rs.projectEdit.personnel.name }, 'From who changed it');
    assert.deepEqual(change.rows, [{ sid: row.sid, name: row.name }]);
    expectStatus(await rs.projectEdit.api.patch(recordPaths.rowDetail(row.sid), { description: 'edited' }), 200, 'the editor changes the row');
    assert.equal((await changesOf(rs.projectAdmin.api, row.sid)).length, 2, 'row changes notify too');
    assert.equal((await changesOf(rs.projectEdit.api, row.sid)).length, 0, 'the one who changed it is not notified');

    expectStatus(await rs.projectAdmin.api.patch(paths.personnelDetail(rs.projectAdmin.personnel.sid), { should_receive_record_change_notification: false }), 200, 'opting out');
    try {
      expectStatus(await patchCell(rs.projectEdit.api, cell.sid, 'v3'), 200);
      assert.equal((await changesOf(rs.projectAdmin.api, row.sid)).length, 2, 'no notification once opted out');
    } finally {
      await rs.projectAdmin.api.patch(paths.personnelDetail(rs.projectAdmin.personnel.sid), { should_receive_record_change_notification: true });
    }
  });

  test('a refused change notifies no one (the notification is in the change\'s transaction)', async () => {
    const row = await createRow(rs);
    const cell = await createCell(rs.projectAdmin.api, rs.org.sid, row.sid, rs.columns.text.sid, 'v1');
    expectStatus(await rs.projectAdmin.api.patch(recordPaths.rowDetail(row.sid), { is_locked: true }), 200, 'locking the row');
    expectStatus(await patchCell(rs.projectEdit.api, cell.sid, `locked @${rs.projectView.personnel.sid}`), 406, 'a locked row refuses');
    assert.equal((await mentionsOf(rs.projectView.api, row.sid)).length, 0, 'no mention from a refused change');
    assert.equal((await changesOf(rs.projectAdmin.api, row.sid)).length, 0, 'no record change from a refused change');
  });
});

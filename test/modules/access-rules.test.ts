// Each access rule walked through every route that applies it (issue 12, point 7;
// src/core/rules.ts holds each rule once, its function beside its SQL):
//   - "an active member": not archived and not past date_end. An Alumni by date_end (a
//     Project Edit whose date_end passed) is refused wherever an archived member is.
//   - "may read a project's records": an active Admin, or an active member with a role in
//     the project. Row detail, row / cell / version lists, version detail, verification,
//     mentions and record-change notifications all follow it, for every kind of caller.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectForbidden, expectNotFound, expectStatus, expectFieldErrors } from '../helpers/assertions.ts';
import { addMember, isoDay, paths, type TestMember } from '../helpers/factories.ts';
import { inbox, notificationPaths, openStream, postNotification } from '../helpers/notifications.ts';
import { createCell, createRow, newWorkspace, readAll, recordPaths, type Workspace } from '../helpers/records.ts';
import type { Api } from '../helpers/http.ts';

let ws: Workspace;
/** A Project Edit who created a row, then passed their date_end (yesterday). */
let expired: TestMember;
/** A Project Edit who created a row, then lost their project role. */
let leaver: TestMember;
let row: any;
let expiredRow: any;
let leaverRow: any;
let version: any;

async function projectEditor(label: string): Promise<TestMember> {
  const person = await addMember(ws.admin, ws.org, {}, label);
  expectStatus(await ws.admin.api.post(recordPaths.memberList(ws.project.sid), { personnel: person.personnel.sid, permission: 'edit' }), 201);
  return person;
}

before(async () => {
  ws = await newWorkspace({ label: 'rules', columns: { text: 'builtinWidgetTxt' } });
  [expired, leaver] = await Promise.all([projectEditor('expired'), projectEditor('leaver')]);
  row = await createRow(ws, { name: 'The row' }, ws.projectEdit.api);
  await createCell(ws.projectEdit.api, ws.org.sid, row.sid, ws.columns.text.sid, 'first');
  expiredRow = await createRow(ws, { name: 'Expired row' }, expired.api);
  leaverRow = await createRow(ws, { name: 'Leaver row' }, leaver.api);
  expectStatus(await ws.admin.api.patch(paths.personnelDetail(expired.personnel.sid), { date_end: isoDay(-1) }), 200, 'date_end yesterday');
  const membership = (await readAll(ws.admin.api, (q) => recordPaths.memberList(ws.project.sid, 'detail', q))).find((m) => m.personnel.sid === leaver.personnel.sid);
  expectStatus(await ws.admin.api.delete(recordPaths.memberDetail(membership.sid)), 200, 'the leaver loses their project role');
  const versions = expectStatus(await ws.admin.api.get(recordPaths.versionList(ws.org.sid, 'detail', { row__sid: row.sid })), 200).json.results;
  version = versions[versions.length - 1];
});

type Reader = 'admin' | 'projectAdmin' | 'projectEdit' | 'projectView' | 'member' | 'leaver' | 'alumni' | 'expired';
const READS: Reader[] = ['admin', 'projectAdmin', 'projectEdit', 'projectView'];
const NO_ROLE: Reader[] = ['member', 'leaver'];
const NOT_ACTIVE: Reader[] = ['alumni', 'expired'];
const apiOf = (who: Reader): Api => (who === 'expired' ? expired.api : who === 'leaver' ? leaver.api : ws.api[who]);

describe('"may read a project\'s records" through every route that applies it', () => {
  test('row detail: readers 200; members without a project role 404; former members 403', async () => {
    for (const who of READS) expectStatus(await apiOf(who).get(recordPaths.rowDetail(row.sid)), 200, who);
    for (const who of NO_ROLE) expectNotFound(await apiOf(who).get(recordPaths.rowDetail(row.sid)), who);
    for (const who of NOT_ACTIVE) expectForbidden(await apiOf(who).get(recordPaths.rowDetail(row.sid)), who);
  });

  test('row verification: the same', async () => {
    for (const who of READS) expectStatus(await apiOf(who).get(recordPaths.rowVerify(row.sid)), 200, who);
    for (const who of NO_ROLE) expectNotFound(await apiOf(who).get(recordPaths.rowVerify(row.sid)), who);
    for (const who of NOT_ACTIVE) expectForbidden(await apiOf(who).get(recordPaths.rowVerify(row.sid)), who);
  });

  test('row, cell and version lists: readers see the row\'s records; members without a role an empty list; former members 403', async () => {
    const lists = {
      rows: (q: any) => recordPaths.rowList(ws.org.sid, 'list', { table__sid: ws.table.sid, ...q }),
      cells: (q: any) => recordPaths.cellList(ws.org.sid, 'list', { row__sid: row.sid, ...q }),
      versions: (q: any) => recordPaths.versionList(ws.org.sid, 'list', { row__sid: row.sid, ...q }),
    };
    for (const [name, list] of Object.entries(lists)) {
      for (const who of READS) {
        const found = await readAll(apiOf(who), list);
        assert.ok(name === 'rows' ? found.some((r) => r.sid === row.sid) : found.length > 0, `${who} reads the ${name}`);
      }
      for (const who of NO_ROLE) {
        const found = await readAll(apiOf(who), list);
        assert.deepEqual(name === 'rows' ? found.filter((r) => r.sid === row.sid) : found, [], `${who} reads no ${name}`);
      }
      for (const who of NOT_ACTIVE) expectForbidden(await apiOf(who).get(list({})), `${who}: ${name}`);
    }
  });

  test('version detail: readers 200; members without a project role 404; former members 403', async () => {
    for (const who of READS) expectStatus(await apiOf(who).get(recordPaths.versionDetail(version.sid)), 200, who);
    for (const who of NO_ROLE) expectNotFound(await apiOf(who).get(recordPaths.versionDetail(version.sid)), who);
    for (const who of NOT_ACTIVE) expectForbidden(await apiOf(who).get(recordPaths.versionDetail(version.sid)), who);
  });

  test('mentions: of everyone mentioned in a cell, only those who may read the row are notified', async () => {
    const everyone: Record<Reader, string> = {
      admin: ws.admin.personnel.sid, projectAdmin: ws.projectAdmin.personnel.sid, projectEdit: ws.projectEdit.personnel.sid,
      projectView: ws.projectView.personnel.sid, member: ws.member.personnel.sid, leaver: leaver.personnel.sid,
      alumni: ws.alumni.personnel.sid, expired: expired.personnel.sid,
    };
    const mentioned = await createRow(ws, { name: 'Mentioning row' }, ws.projectAdmin.api);
    const text = `Look: ${Object.values(everyone).map((s) => `@${s}`).join(' ')}`;
    await createCell(ws.projectAdmin.api, ws.org.sid, mentioned.sid, ws.columns.text.sid, text);
    // The former members are made active again to read their inboxes: what was sent while they were not stays unsent.
    await reactivate();
    for (const who of Object.keys(everyone) as Reader[]) {
      const got = (await inbox(apiOf(who), ws.org.sid)).filter((n) => n.name.endsWith(`mentioned you in ${mentioned.name}`));
      const expected = who === 'projectAdmin' ? 0 : READS.includes(who) ? 1 : 0; // the author is never notified
      assert.equal(got.length, expected, `${who}: ${expected} mention notification`);
    }
  });

  test("record changes: a row's creator is notified of another's change only while they may read it", async () => {
    await deactivate();
    const changed: [string, any, Api][] = [['projectEdit', row, ws.projectEdit.api], ['expired', expiredRow, expired.api], ['leaver', leaverRow, leaver.api]];
    for (const [, r] of changed) expectStatus(await ws.projectAdmin.api.patch(recordPaths.rowDetail(r.sid), { description: `changed ${r.name}` }), 200);
    await reactivate();
    for (const [who, r, api] of changed) {
      const got = (await inbox(api, ws.org.sid)).filter((n) => n.name.endsWith(`changed ${r.name}`));
      assert.equal(got.length, who === 'projectEdit' ? 1 : 0, `${who}: record-change notification`);
    }
  });
});

/** The two former members active again (the Alumni unarchived, date_end cleared), and the reverse. */
async function reactivate() {
  expectStatus(await ws.admin.api.patch(paths.personnelDetail(ws.alumni.personnel.sid), { is_archived: 'false' }), 200);
  expectStatus(await ws.admin.api.patch(paths.personnelDetail(expired.personnel.sid), { date_end: null }), 200);
}
async function deactivate() {
  expectStatus(await ws.admin.api.patch(paths.personnelDetail(ws.alumni.personnel.sid), { is_archived: 'true' }), 200);
  expectStatus(await ws.admin.api.patch(paths.personnelDetail(expired.personnel.sid), { date_end: isoDay(-1) }), 200);
}

describe('"an active member" through every route that applies it', () => {
  before(deactivate);

  test('organization lists, the organization itself and the stream refuse a member past date_end as they refuse an archived one', async () => {
    for (const who of NOT_ACTIVE) {
      const api = apiOf(who);
      expectForbidden(await api.get(paths.personnelList(ws.org.sid)), `${who}: personnel`);
      expectForbidden(await api.get(recordPaths.tableList(ws.org.sid)), `${who}: tables`);
      expectForbidden(await api.get(notificationPaths.list(ws.org.sid)), `${who}: notifications`);
      expectForbidden(await api.get(paths.organizationDetail(ws.org.sid)), `${who}: organization`);
      const mine = await readAll(api, (q) => paths.organizationList((who === 'expired' ? expired : ws.alumni).sid, 'list', q));
      assert.deepEqual(mine.filter((o) => o.sid === ws.org.sid), [], `${who}: the organization is not among theirs`);
      const stream = await openStream(api, { organization__sid: ws.org.sid });
      stream.close();
      assert.equal(stream.status, 403, `${who}: the stream`);
    }
  });

  test('a notification to a member past date_end is refused like one to an archived member', async () => {
    for (const who of NOT_ACTIVE) {
      const person = who === 'expired' ? expired.personnel : ws.alumni.personnel;
      expectFieldErrors(await postNotification(ws.admin.api, ws.org.sid, [{ sid: person.sid, name: 'x' }]),
        { to: [`${person.sid} is not an active member of this organization.`] }, who);
    }
  });

  test('the last active Admin cannot leave by date_end, as by archiving', async () => {
    const { admin, org } = { admin: ws.admin, org: ws.org };
    const other = await addMember(admin, org, { is_administrator: 'true' }, 'admin2');
    expectStatus(await admin.api.patch(paths.personnelDetail(other.personnel.sid), { date_end: isoDay(-1) }), 200, 'a second Admin leaves');
    const byDate = await admin.api.patch(paths.personnelDetail(admin.personnel.sid), { date_end: isoDay(-1) });
    const byArchive = await admin.api.patch(paths.personnelDetail(admin.personnel.sid), { is_archived: 'true' });
    assert.equal(byDate.status, 400, byDate.text);
    assert.equal(byArchive.status, 400, byArchive.text);
    assert.deepEqual(Object.keys(byDate.json), ['date_end']);
  });
});

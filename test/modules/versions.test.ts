// Versions (spec: Version, Version endpoints, Versioning; docs/versions.md): the three list
// shapes and dataonly, the detail with updated_by as an object, the hash recomputed
// independently, PATCH of commit only (Project Admin and Edit), 405 for POST/PUT/DELETE,
// and the chain-verify endpoint; every caller's rights on open, locked and archived rows.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous } from '../helpers/http.ts';
import {
  expectDetail, expectFieldErrors, expectForbidden, expectMethodNotAllowed, expectNotAuthenticated, expectNotFound, expectPlainText,
  expectStatus, MESSAGES,
} from '../helpers/assertions.ts';
import {
  assertIntactChain, assertRecordPage, assertRecordShape, createCell, createRow, foreignRecords, listVersions, newWorkspace, patchCell,
  readAll, recomputeHash, recordPaths, ROLE_NAMES, ROLES, ROW_STATES, setRowState, verifyRow,
  type Role, type Workspace,
} from '../helpers/records.ts';

let ws: Workspace;
let row: any; // a row with seven versions: created, 2 cells created, a cell changed, renamed, locked, unlocked
let versions: any[]; // its versions, in the list's detail shape

const versionList = (query: Record<string, string | number | boolean> = {}, serializer = 'list') =>
  recordPaths.versionList(ws.org.sid, serializer, { page_size: 100, ...query });
/** Text a canonical JSON must escape exactly as JSON.stringify does: quotes, backslash, controls, non-ASCII, astral, U+2028. */
const SIGNED = 'signed "quoted" \\ / ünïcödé ✓ 🧪 \t\u0001\u001f\u007f\u2028 end';
const fullName = (who: { first_name: string; last_name: string }) => `${who.first_name} ${who.last_name}`;

before(async () => {
  ws = await newWorkspace({ label: 'ver', rows: 0, widgets: { sign: { addable_at_readonly: true } }, columns: { text: 'builtinWidgetTxt', sign: 'sign' } });
  row = await createRow(ws, { name: 'Specimen', description: 'blood' });
  const cell = await createCell(ws.projectEdit.api, ws.org.sid, row.sid, ws.columns.text.sid, 'first');
  await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.sign.sid, SIGNED);
  expectStatus(await patchCell(ws.projectEdit.api, cell.sid, 'second\nline'), 200);
  expectStatus(await ws.projectEdit.api.patch(recordPaths.rowDetail(row.sid), { name: 'Specimen A' }), 200);
  await setRowState(ws, row.sid, 'locked');
  await setRowState(ws, row.sid, 'open');
  versions = await listVersions(ws.projectView.api, ws.org.sid, row.sid);
});

describe('version list', () => {
  test('a version per change, numbered 1..n, chained, valid, named "<row name> (n)", each holding the row\'s data', () => {
    assertIntactChain(versions, 'the row');
    const { text, sign } = ws.columns;
    assert.deepEqual(versions.map((v) => [v.name, v.activity_message, v.updated_by]), [
      ['Specimen (1)', 'Created the row', fullName(ws.projectAdmin)],
      ['Specimen (2)', 'Created the cell of Column text', fullName(ws.projectEdit)],
      ['Specimen (3)', 'Created the cell of Column sign', fullName(ws.projectAdmin)],
      ['Specimen (4)', 'Changed the cell of Column text', fullName(ws.projectEdit)],
      ['Specimen A (5)', 'Renamed the row', fullName(ws.projectEdit)],
      ['Specimen A (6)', 'Locked the row', fullName(ws.projectAdmin)],
      ['Specimen A (7)', 'Unlocked the row', fullName(ws.projectAdmin)],
    ]);
    const signed = SIGNED;
    assert.deepEqual(versions[3].data, { name: 'Specimen', description: 'blood', is_locked: false, is_archived: false, cells: { [text.sid]: 'second\nline', [sign.sid]: signed } });
    assert.deepEqual(versions[5].data, { name: 'Specimen A', description: 'blood', is_locked: true, is_archived: false, cells: { [text.sid]: 'second\nline', [sign.sid]: signed } });
    assert.ok(versions.every((v) => v.commit === null), 'no commit message yet');
    for (let i = 1; i < versions.length; i += 1) assert.ok(versions[i].date_created >= versions[i - 1].date_created, 'date_created never goes back');
  });

  test('each hash is SHA-256 of the canonical JSON of {row, version, previousHash, data, updated_by, date_created} (docs/versions.md)', async () => {
    for (const v of versions) {
      const detail = expectStatus(await ws.projectView.api.get(recordPaths.versionDetail(v.sid)), 200).json;
      assert.equal(recomputeHash(row.sid, v, detail.updated_by.sid), v.hash, `version ${v.version}: the hash recomputed by a client`);
    }
  });

  test('the name, list and detail shapes, exactly; dataonly=true gives the data objects in every serializer', async () => {
    const name = assertRecordPage(await ws.projectView.api.get(versionList({ row__sid: row.sid }, 'name')), 'version.name', 'name');
    assert.deepEqual(name.results, versions.map((v) => ({ sid: v.sid, name: v.name })));
    const list = assertRecordPage(await ws.projectView.api.get(versionList({ row__sid: row.sid }, 'list')), 'version.list', 'list');
    assert.deepEqual(list.results, versions.map(({ data: _data, ...rest }) => rest));
    const detail = assertRecordPage(await ws.projectView.api.get(versionList({ row__sid: row.sid }, 'detail')), 'version.detail', 'detail');
    assert.deepEqual(detail.results, versions);
    assert.equal(detail.add_permission, false, 'versions are never added');
    for (const serializer of ['name', 'list', 'detail']) {
      const only = expectStatus(await ws.projectView.api.get(versionList({ row__sid: row.sid, dataonly: true }, serializer)), 200, `dataonly ${serializer}`).json;
      assert.equal(only.count, versions.length);
      assert.deepEqual(only.results, versions.map((v) => v.data), `dataonly=true, ${serializer}: only the data objects`);
      const not = assertRecordPage(await ws.projectView.api.get(versionList({ row__sid: row.sid, dataonly: false }, serializer)), `version.${serializer}` as 'version.name', `dataonly=false ${serializer}`);
      assert.equal(not.count, versions.length);
    }
    expectFieldErrors(await ws.projectView.api.get(versionList({ row__sid: row.sid, dataonly: 'maybe' })), ['dataonly']);
  });

  test('pages keep row__sid; without row__sid every readable version; another organization\'s row gives an empty page', async () => {
    const first = assertRecordPage(await ws.projectView.api.get(recordPaths.versionList(ws.org.sid, 'name', { row__sid: row.sid, page_size: 3 })), 'version.name', 'page 1');
    assert.equal(first.count, 7);
    assert.equal(first.page_count, 3);
    const all: any[] = [...first.results];
    for (let link = first.next; link; ) {
      const page = assertRecordPage(await ws.projectView.api.get(link), 'version.name', link);
      all.push(...page.results);
      link = page.next;
    }
    assert.deepEqual(all.map((v) => v.sid), versions.map((v) => v.sid), 'next links walk the row\'s versions in order');
    const everything = await readAll(ws.admin.api, (q) => recordPaths.versionList(ws.org.sid, 'name', q));
    assert.ok(versions.every((v) => everything.some((e) => e.sid === v.sid)), 'the org Admin lists them without a filter');
    const theirs = await foreignRecords(ws);
    for (const rowSid of [theirs.row.sid, '0000000000000000', 'nonsense']) {
      const page = assertRecordPage(await ws.admin.api.get(versionList({ row__sid: rowSid })), 'version.list', rowSid);
      assert.equal(page.count, 0, `row__sid=${rowSid}: nothing`);
    }
    // A far page of a row's versions is past the last (its start passes an integer's range: was a 500 on PostgreSQL).
    for (const query of <Record<string, string | number>[]>[{ row__sid: row.sid, page: 1_000_000_000, page_size: 100 }, { row__sid: row.sid, page: 21_474_837, page_size: 100 }, { page: 1_000_000_000 }]) {
      expectDetail(await ws.admin.api.get(versionList(query)), 404, MESSAGES.invalidPage, JSON.stringify(query));
    }
    expectPlainText(await ws.admin.api.get(versionList({}, 'full')), 406, MESSAGES.wrongSerializer);
    expectPlainText(await ws.admin.api.get(recordPaths.versionList(ws.org.sid, 'list', {}, 'row')), 406, MESSAGES.wrongLevel);
    expectPlainText(await ws.admin.api.get(recordPaths.versionList('0000000000000000', 'list')), 406, MESSAGES.wrongId);
  });

  for (const role of ROLES) {
    test(`read by the ${ROLE_NAMES[role]}, on open, locked and archived rows (list, detail, verify)`, async () => {
      for (const state of ROW_STATES) {
        const r = await createRow(ws, { name: `Read by ${role}` });
        await createCell(ws.projectAdmin.api, ws.org.sid, r.sid, ws.columns.text.sid, state);
        if (state !== 'open') await setRowState(ws, r.sid, state);
        const expected = await listVersions(ws.admin.api, ws.org.sid, r.sid);
        const context = `${ROLE_NAMES[role]}, ${state} row`;
        const api = ws.api[role];
        const listed = await api.get(versionList({ row__sid: r.sid }, 'detail'));
        const detail = await api.get(recordPaths.versionDetail(expected[1].sid));
        const verified = await api.get(recordPaths.rowVerify(r.sid));
        if (role === 'anonymous') {
          for (const res of [listed, detail, verified]) expectNotAuthenticated(res, context);
          continue;
        }
        if (role === 'alumni') {
          for (const res of [listed, detail, verified]) expectForbidden(res, context);
          continue;
        }
        if (role === 'outsider') {
          expectForbidden(listed, `${context}: a list of another organization`);
          expectNotFound(detail, `${context}: a version of another organization`);
          expectNotFound(verified, `${context}: a row of another organization`);
          continue;
        }
        const page = assertRecordPage(listed, 'version.detail', context);
        if (role === 'member') {
          assert.equal(page.count, 0, `${context}: a Member without a project role reads no version`);
          expectNotFound(detail, context);
          expectNotFound(verified, context);
          continue;
        }
        const writes = role === 'projectAdmin' || role === 'projectEdit';
        assert.equal(page.add_permission, false, `${context}: add_permission`);
        assert.deepEqual(page.results, expected.map((v) => ({ ...v, change_permission: writes })), `${context}: the versions`);
        const shown = assertRecordShape(expectStatus(detail, 200, context).json, 'version.record', context);
        assert.equal(shown.change_permission, writes, `${context}: detail change_permission`);
        const report = assertRecordShape(expectStatus(verified, 200, context).json, 'verify', context);
        assert.equal(report.is_valid, true, `${context}: verified`);
        assert.equal(report.versions, expected.length);
      }
    });
  }
});

describe('version detail', () => {
  test('the spec\'s detail: data, updated_by as {sid, first_name, last_name, email}, no commit or is_valid', async () => {
    for (const v of [versions[0], versions[3]]) {
      const res = await ws.projectView.api.get(recordPaths.versionDetail(v.sid));
      const detail = assertRecordShape(expectStatus(res, 200).json, 'version.record', `version ${v.version}`);
      const author = v.version === 1 ? ws.projectAdmin : ws.projectEdit;
      assert.deepEqual(detail, {
        sid: v.sid, name: v.name, hash: v.hash, previousHash: v.previousHash, version: v.version, data: v.data,
        activity_message: v.activity_message,
        updated_by: { sid: author.sid, first_name: author.first_name, last_name: author.last_name, email: author.email },
        date_created: v.date_created, date_updated: v.date_created, change_permission: false,
      });
    }
    expectNotFound(await ws.admin.api.get(recordPaths.versionDetail('0000000000000000')), 'unknown sid');
    expectNotFound(await ws.admin.api.get(recordPaths.versionDetail('nonsense')), 'malformed sid');
    expectNotFound(await ws.admin.api.get(recordPaths.versionDetail(row.sid)), 'a row sid is not a version');
  });

  test('POST, PUT and DELETE are not offered: 405 with Allow, before authentication, and nothing changes', async () => {
    const v = versions[1];
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const options = method === 'DELETE' ? {} : { body: { commit: 'x', data: {} } };
      expectMethodNotAllowed(await ws.projectAdmin.api.request(method, recordPaths.versionDetail(v.sid), options), ['GET', 'PATCH'], `${method} detail`);
      expectMethodNotAllowed(await anonymous.request(method, recordPaths.versionDetail(v.sid), options), ['GET', 'PATCH'], `${method} detail, no token`);
      for (const serializer of ['name', 'list', 'detail']) {
        expectMethodNotAllowed(await ws.projectAdmin.api.request(method, recordPaths.versionList(ws.org.sid, serializer, { row__sid: row.sid }), options), ['GET'], `${method} list ${serializer}`);
      }
    }
    expectMethodNotAllowed(await ws.projectAdmin.api.request('PATCH', versionList({ row__sid: row.sid }), { body: { commit: 'x' } }), ['GET'], 'PATCH on the list');
    assert.deepEqual(await listVersions(ws.admin.api, ws.org.sid, row.sid), versions.map((v) => ({ ...v, change_permission: false })), 'nothing changed');
  });
});

describe('version PATCH (commit only)', () => {
  test('the commit message changes, nothing else: not the hash, not the chain; the list shapes show it', async () => {
    const r = await createRow(ws, { name: 'Committed' });
    await createCell(ws.projectEdit.api, ws.org.sid, r.sid, ws.columns.text.sid, 'v2');
    const [v1, v2] = await listVersions(ws.admin.api, ws.org.sid, r.sid);
    const res = await ws.projectEdit.api.patch(recordPaths.versionDetail(v2.sid), { commit: 'Checked by the lab lead' });
    // The PATCH answer is the detail shape and the commit it set (issue 12).
    const { commit, ...record } = expectStatus(res, 200).json;
    assert.equal(commit, 'Checked by the lab lead', 'the PATCH answer carries its commit');
    const answered = assertRecordShape(record, 'version.record', 'PATCH answer');
    assert.equal(answered.hash, v2.hash);
    assert.equal(answered.change_permission, true);
    assert.ok(answered.date_updated > v2.date_created, 'date_updated moves on');
    assert.equal(answered.date_created, v2.date_created);
    const after = await listVersions(ws.admin.api, ws.org.sid, r.sid);
    assert.deepEqual(after, [v1, { ...v2, commit: 'Checked by the lab lead' }], 'only the commit changed');
    assertIntactChain(after, 'after the commit');
    const list = assertRecordPage(await ws.admin.api.get(versionList({ row__sid: r.sid }, 'list')), 'version.list', 'list');
    assert.equal(list.results[1].commit, 'Checked by the lab lead');
    assert.equal((await verifyRow(ws.admin.api, r.sid)).is_valid, true);
    expectStatus(await ws.projectAdmin.api.patch(recordPaths.versionDetail(v2.sid), { commit: null }), 200, 'null clears it');
    assert.equal((await listVersions(ws.admin.api, ws.org.sid, r.sid))[1].commit, null);
  });

  test('any other field is 400 and changes nothing', async () => {
    const r = await createRow(ws, { name: 'Immutable' });
    const [v1] = await listVersions(ws.admin.api, ws.org.sid, r.sid);
    const patch = (body: unknown) => ws.projectAdmin.api.patch(recordPaths.versionDetail(v1.sid), body);
    expectFieldErrors(await patch({}), { commit: ['This field is required.'] });
    for (const field of ['data', 'hash', 'previousHash', 'version', 'activity_message', 'updated_by', 'date_created', 'name', 'is_valid']) {
      const value = field === 'data' ? { name: 'forged' } : field === 'version' ? 9 : 'forged';
      expectFieldErrors(await patch({ commit: 'x', [field]: value }), { [field]: ['Unknown field.'] }, field);
    }
    expectFieldErrors(await patch({ commit: 42 }), ['commit']);
    expectFieldErrors(await patch({ commit: 'x'.repeat(2001) }), ['commit']);
    assert.deepEqual(await listVersions(ws.admin.api, ws.org.sid, r.sid), [v1], 'nothing changed');
  });

  for (const role of ROLES) {
    test(`${ROLE_NAMES[role]}: commit on open, locked and archived rows`, async () => {
      for (const state of ROW_STATES) {
        const r = await createRow(ws, { name: `Commit by ${role}` });
        if (state !== 'open') await setRowState(ws, r.sid, state);
        const before = await listVersions(ws.admin.api, ws.org.sid, r.sid);
        const target = before[before.length - 1];
        const context = `${ROLE_NAMES[role]}, ${state} row`;
        const res = await ws.api[role].patch(recordPaths.versionDetail(target.sid), { commit: `by ${role}` });
        const writes = role === 'projectAdmin' || role === 'projectEdit';
        if (writes) {
          // Commit messages are annotations outside the hash: they may be added to a locked or archived row's versions.
          expectStatus(res, 200, context);
          const after = await listVersions(ws.admin.api, ws.org.sid, r.sid);
          assert.deepEqual(after, [...before.slice(0, -1), { ...target, commit: `by ${role}` }], `${context}: only the commit changed`);
          continue;
        }
        const expected: Record<Exclude<Role, 'projectAdmin' | 'projectEdit'>, [number, string]> = {
          admin: [403, MESSAGES.forbidden], projectView: [403, MESSAGES.forbidden], alumni: [403, MESSAGES.forbidden],
          member: [404, MESSAGES.notFound], outsider: [404, MESSAGES.notFound], anonymous: [401, MESSAGES.notAuthenticated],
        };
        const [status, detail] = expected[role as keyof typeof expected];
        expectDetail(res, status, detail, context);
        assert.deepEqual(await listVersions(ws.admin.api, ws.org.sid, r.sid), before, `${context}: nothing changed`);
      }
    });
  }
});

describe('chain verification: GET /tables/row/detail/{sid}/verify/', () => {
  test('reports the whole chain: its length, its head, valid, no problems', async () => {
    const report = await verifyRow(ws.projectView.api, row.sid);
    assert.deepEqual({ ...report, date_verified: 'now' }, {
      row: { sid: row.sid, name: 'Specimen A' }, versions: 7, head_version: 7, is_valid: true, first_invalid_version: null, problems: [], date_verified: 'now',
    });
  });

  test('only GET: other methods are 405 with Allow; unknown rows 404', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expectMethodNotAllowed(await ws.projectAdmin.api.request(method, recordPaths.rowVerify(row.sid), method === 'DELETE' ? {} : { body: {} }), ['GET'], method);
    }
    expectNotFound(await ws.admin.api.get(recordPaths.rowVerify('0000000000000000')));
    expectNotFound(await ws.admin.api.get(recordPaths.rowVerify(versions[0].sid)), 'a version sid is not a row');
  });
});

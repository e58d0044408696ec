// What real clients send, and what they need to hear back (issue 12, point 10): the Python
// SDK's `Content-Type: application/json` on a DELETE without a body, a body-less workflow
// trigger, `dataonly=True`/`1`, the spec's detail shape from personnel, cell and
// notification POSTs, the commit in a version PATCH answer, an empty personnel PATCH that
// changes nothing, and a 403 that tells an Admin what to do.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { expectDetail, expectFieldErrors, expectStatus, needsProjectRole, shapeKeys } from '../helpers/assertions.ts';
import { paths, postPersonnel, unique, uniqueEmail } from '../helpers/factories.ts';
import { RECORD_SHAPES, assertRecordShape, createCell, createRow, newWorkspace, postCell, recordPaths, type Workspace } from '../helpers/records.ts';
import { assertNotification, notificationPaths, postNotification, ref } from '../helpers/notifications.ts';

let ws: Workspace;

before(async () => {
  ws = await newWorkspace({ label: 'clients' });
});

/** What the Python SDK sends for a DELETE: the JSON Content-Type, no body (Content-Length: 0). */
const sdkDelete = (api: Workspace['admin']['api'], path: string) => api.request('DELETE', path, { rawBody: '', contentType: 'application/json' });

describe('DELETE with Content-Type: application/json and no body', () => {
  test('a notification, an API key and a workflow are deleted: 200 {} and gone', async () => {
    const sent = expectStatus(await postNotification(ws.admin.api, ws.org.sid, [ref(ws.projectEdit.personnel)], { name: `Del ${unique('n')}`, body: 'x' }), 201).json;
    const copy = (await ws.projectEdit.api.get(notificationPaths.list(ws.org.sid, 'name'))).json.results.find((n: any) => n.name === sent.name);
    assert.ok(copy, 'the recipient has the notification');
    const deleted = expectStatus(await sdkDelete(ws.projectEdit.api, notificationPaths.detail(copy.sid)), 200, 'notification DELETE');
    assert.deepEqual(deleted.json, {});
    expectStatus(await ws.projectEdit.api.get(notificationPaths.detail(copy.sid)), 404, 'the notification is gone');

    const key = expectStatus(await ws.admin.api.post(paths.apikeyList(ws.admin.sid), { name: `sdk ${unique('k')}` }), 201).json;
    assert.deepEqual(expectStatus(await sdkDelete(ws.admin.api, paths.apikeyDetail(key.sid)), 200, 'API key DELETE').json, {});
    expectStatus(await ws.admin.api.get(paths.apikeyDetail(key.sid)), 404, 'the key is gone');

    const workflow = expectStatus(await ws.admin.api.post(`/tables/workflow/list/organization/${ws.org.sid}/detail/`, { name: `Wf ${unique('w')}` }), 201).json;
    // Without Content-Length at all, as some clients send it.
    assert.deepEqual(expectStatus(await ws.admin.api.request('DELETE', `/tables/workflow/detail/${workflow.sid}/`, { headers: { 'content-type': 'application/json' } }), 200).json, {});
    expectStatus(await ws.admin.api.get(`/tables/workflow/detail/${workflow.sid}/`), 404, 'the workflow is gone');
  });

  test('a route that needs a body still says the body is empty (400), and nothing changes', async () => {
    const before = expectStatus(await ws.admin.api.get(paths.personnelDetail(ws.member.personnel.sid)), 200).json;
    expectDetail(await ws.admin.api.request('PATCH', paths.personnelDetail(ws.member.personnel.sid), { rawBody: '', contentType: 'application/json' }),
      400, 'The request body is empty; send a JSON object.');
    expectDetail(await ws.admin.api.request('POST', recordPaths.tableList(ws.org.sid), { rawBody: '', contentType: 'application/json' }),
      400, 'The request body is empty; send a JSON object.');
    assert.deepEqual(expectStatus(await ws.admin.api.get(paths.personnelDetail(ws.member.personnel.sid)), 200).json, before);
  });
});

describe('a workflow trigger without a body', () => {
  test('PATCH ?trigger__sid= with no body (with or without the JSON Content-Type) runs the workflow', async () => {
    const workflow = expectStatus(await ws.admin.api.post(`/tables/workflow/list/organization/${ws.org.sid}/detail/`, { name: `Trigger ${unique('w')}` }), 201).json;
    const row = ws.rows[0];
    const url = `/tables/workflow/detail/${workflow.sid}/?trigger__sid=${row.sid}`;
    const first = expectStatus(await ws.admin.api.request('PATCH', url, { rawBody: '', contentType: 'application/json' }), 200, 'SDK-style trigger');
    assert.equal(first.json.sid, workflow.sid);
    assert.ok(first.json.execution, 'the answer carries the execution');
    const second = expectStatus(await ws.admin.api.request('PATCH', url), 200, 'no Content-Type, no body');
    assert.ok(second.json.execution, 'the answer carries the execution');
    // Without trigger__sid an empty body is still refused.
    expectDetail(await ws.admin.api.request('PATCH', `/tables/workflow/detail/${workflow.sid}/`, { rawBody: '', contentType: 'application/json' }),
      400, 'The request body is empty; send a JSON object.');
  });
});

describe('dataonly as Python and browsers spell it', () => {
  test('True, true and 1 give the data objects; False, false and 0 the records; anything else is a 400', async () => {
    const row = ws.rows[0];
    const list = (value: string) => ws.admin.api.get(recordPaths.versionList(ws.org.sid, 'detail', { row__sid: row.sid, dataonly: value }));
    for (const value of ['True', 'true', '1', 'TRUE']) {
      const page = expectStatus(await list(value), 200, `dataonly=${value}`).json;
      assert.ok(page.results.length >= 1);
      for (const data of page.results) assert.deepEqual(Object.keys(data).sort(), ['cells', 'description', 'is_archived', 'is_locked', 'name'], `dataonly=${value}: the data object`);
    }
    for (const value of ['False', 'false', '0']) {
      const page = expectStatus(await list(value), 200, `dataonly=${value}`).json;
      for (const version of page.results) assertRecordShape(version, 'version.detail', `dataonly=${value}`);
    }
    expectFieldErrors(await list('maybe'), ['dataonly']);
  });
});

describe('POSTs answer the detail shape, as the spec says', () => {
  test('personnel, on the name and list URLs, one or an array', async () => {
    for (const serializer of ['name', 'list'] as const) {
      const one = expectStatus(await postPersonnel(ws.admin.api, ws.org.sid, { email: uniqueEmail('shape') }, serializer), 201, serializer).json;
      assert.deepEqual(Object.keys(one).sort(), shapeKeys('personnel.detail').sort(), `${serializer} URL: the detail shape`);
      const many = expectStatus(await postPersonnel(ws.admin.api, ws.org.sid, [{ email: uniqueEmail('shape') }, { email: uniqueEmail('shape') }], serializer), 201).json;
      assert.equal(many.length, 2);
      for (const record of many) assert.deepEqual(Object.keys(record).sort(), shapeKeys('personnel.detail').sort(), `${serializer} URL, array`);
    }
  });

  test('a cell and a notification, on the name and list URLs', async () => {
    for (const serializer of ['name', 'list'] as const) {
      const row = await createRow(ws);
      const cell = expectStatus(await postCell(ws.projectEdit.api, ws.org.sid, row.sid, ws.columns.text.sid, 'x', serializer), 201, `cell ${serializer}`).json;
      assertRecordShape(cell, 'cell.detail', `cell POST on the ${serializer} URL`);
      const sent = expectStatus(await postNotification(ws.admin.api, ws.org.sid, [ref(ws.projectEdit.personnel)], { name: `S ${unique('n')}`, body: 'b' }, serializer), 201).json;
      assertNotification(sent, 'detail', `notification POST on the ${serializer} URL`);
    }
  });
});

describe('a version PATCH answers the commit it set', () => {
  test('the answer is the detail shape with commit; its ETag is the one a GET then gives', async () => {
    const row = await createRow(ws);
    await createCell(ws.projectEdit.api, ws.org.sid, row.sid, ws.columns.text.sid, 'v');
    const version = (await ws.projectEdit.api.get(recordPaths.versionList(ws.org.sid, 'list', { row__sid: row.sid }))).json.results[1];
    const patched = expectStatus(await ws.projectEdit.api.patch(recordPaths.versionDetail(version.sid), { commit: 'Checked against the lab book' }), 200);
    assert.equal(patched.json.commit, 'Checked against the lab book');
    assert.deepEqual(Object.keys(patched.json).sort(), [...Object.keys(RECORD_SHAPES['version.record']), 'commit'].sort());
    const read = expectStatus(await ws.projectEdit.api.get(recordPaths.versionDetail(version.sid)), 200);
    const { commit: _commit, ...detail } = patched.json;
    assert.deepEqual(read.json, detail, 'a GET shows the same version');
    assert.equal(patched.headers.get('etag'), read.headers.get('etag'), 'the PATCH answer\'s ETag is the record\'s');
    expectStatus(await ws.projectEdit.api.patch(recordPaths.versionDetail(version.sid), { commit: null }, { headers: { 'if-match': patched.headers.get('etag')! } }),
      200, 'If-Match with the PATCH answer\'s ETag is accepted');
  });
});

describe('an empty personnel PATCH changes nothing', () => {
  test('{} leaves updated_by and date_updated as they were', async () => {
    const target = ws.projectView.personnel.sid;
    expectStatus(await ws.admin.api.patch(paths.personnelDetail(target), { title: `Set ${unique('t')}` }), 200);
    const before = expectStatus(await ws.admin.api.get(paths.personnelDetail(target)), 200).json;
    await sleep(20);
    // By someone else than the last editor: the record's own member.
    const answer = expectStatus(await ws.projectView.api.patch(paths.personnelDetail(target), {}), 200, 'an empty PATCH by the member').json;
    assert.equal(answer.updated_by, before.updated_by, 'the answer shows the record as it was');
    assert.equal(answer.date_updated, before.date_updated);
    const after = expectStatus(await ws.admin.api.get(paths.personnelDetail(target)), 200).json;
    assert.deepEqual(after, before, 'nothing changed');
  });
});

describe('an Admin writing a project they are not a member of', () => {
  test('gets a 403 that says why and what to do; doing it lets them write', async () => {
    const body = { name: `Row ${unique('r')}` };
    const url = recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid });
    const refused = expectStatus(await ws.admin.api.post(url, body), 403, 'row POST without a project role');
    const fix = `POST /projects/member/list/project/${ws.project.sid}/detail/`;
    assert.deepEqual(refused.json, {
      detail: 'You are not a member of this project. An organization Admin reads every project but writes its rows and cells only with a project role: '
        + `add yourself to the project first (${fix} with {"personnel": "${ws.admin.personnel.sid}", "permission": "edit"}).`,
    });
    assert.equal(refused.json.detail, needsProjectRole(ws));
    const cellRefused = expectStatus(await postCell(ws.admin.api, ws.org.sid, ws.rows[0].sid, ws.columns.text.sid, 'x'), 403, 'cell POST');
    assert.deepEqual(cellRefused.json, refused.json, 'the cell POST says the same');
    // Other callers without the role get the design's plain 403.
    expectDetail(await ws.member.api.post(url, body), 403, 'You do not have permission to perform this action.');
    // Following the advice works.
    expectStatus(await ws.admin.api.post(fix.slice('POST '.length), { personnel: ws.admin.personnel.sid, permission: 'edit' }), 201, 'the Admin adds themself');
    expectStatus(await ws.admin.api.post(url, body), 201, 'then the row POST succeeds');
  });
});

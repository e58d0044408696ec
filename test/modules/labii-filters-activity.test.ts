// Labii's model, the rest of issue 24 (docs/labii-compatibility.md): a column's
// `is_required` and `default_value` on a new row, `open_to_organization` as read access,
// the grid refusing unknown parameters, deleting a section, saved filters
// (/tables/filter/) and the activity log (/activities/activity/, and labii-sdk 1.13.14's
// /tables/activity/). The requests for sections, filters and the activity log are made as
// the SDK's LabiiObject makes them (test/helpers/labii.ts).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectFieldErrors, expectStatus } from '../helpers/assertions.ts';
import { addMember, unique, type TestMember } from '../helpers/factories.ts';
import { LabiiClient } from '../helpers/labii.ts';
import { createRow, listVersions, newWorkspace, recordPaths, type Workspace } from '../helpers/records.ts';

let ws: Workspace;
let sdk: LabiiClient;
let admin: LabiiClient;

before(async () => {
  ws = await newWorkspace({ label: 'labiimore', columns: { text: 'builtinWidgetTxt' } });
  sdk = new LabiiClient(ws.org.sid);
  await sdk.login(ws.projectEdit.email, ws.projectEdit.password);
  admin = new LabiiClient(ws.org.sid);
  await admin.login(ws.admin.email, ws.admin.password);
});

const rowCount = async (query: Record<string, string> = {}) =>
  expectStatus(await ws.admin.api.get(recordPaths.rowList(ws.org.sid, 'name', { page_size: 1, ...query })), 200).json.count as number;

describe('columns: is_required and default_value on a new row', () => {
  let table: any;
  let required: any;
  let defaulted: any;

  before(async () => {
    table = expectStatus(await ws.admin.api.post(recordPaths.tableList(ws.org.sid), { name: `Ruled ${unique('t')}` }), 201).json;
    const column = (body: object) => ws.admin.api.post(recordPaths.columnList(ws.org.sid, 'detail', { table__sid: table.sid }), { widget: 'builtinWidgetTxt', ...body });
    required = expectStatus(await column({ name: 'Lot', is_required: true, order: 1 }), 201).json;
    defaulted = expectStatus(await column({ name: 'Status', default_value: 'new', order: 2 }), 201).json;
    expectStatus(await column({ name: 'Old', default_value: 'gone', is_archived: true, order: 3 }), 201);
  });

  test('a row without a required column\'s value is a 400 naming the column, and nothing is created', async () => {
    const before = await rowCount({ table__sid: table.sid });
    const message = [`This column is required: give "Lot" a value.`];
    expectFieldErrors(await sdk.Record.create({ name: 'No lot', projects: [{ sid: ws.project.sid }] }, `table__sid=${table.sid}`), { [required.sid]: message });
    expectFieldErrors(await sdk.Record.create({ name: 'Null lot', projects: [{ sid: ws.project.sid }], [required.sid]: null }, `table__sid=${table.sid}`), { [required.sid]: message });
    expectFieldErrors(await sdk.Record.create({ name: 'Empty lot', projects: [{ sid: ws.project.sid }], [required.sid]: '' }, `table__sid=${table.sid}`), { [required.sid]: message });
    assert.equal(await rowCount({ table__sid: table.sid }), before, 'no row was created');
  });

  test('a column\'s default_value fills the cell the body leaves out (not an archived column\'s); a value given wins', async () => {
    const row = expectStatus(await sdk.Record.create({ name: 'Lot 1', projects: [{ sid: ws.project.sid }], [required.sid]: 'L-1' }, `table__sid=${table.sid}`), 201).json;
    assert.deepEqual(row.column_set.map((c: any) => [c.column.sid, c.data]), [[required.sid, 'L-1'], [defaulted.sid, 'new']]);
    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assert.deepEqual([versions.length, versions[0].activity_message], [1, 'Created the row with 2 cells'], 'the default is in version 1');
    const given = expectStatus(await sdk.Record.create({ name: 'Lot 2', projects: [{ sid: ws.project.sid }], [required.sid]: 'L-2', [defaulted.sid]: 'done' }, `table__sid=${table.sid}`), 201).json;
    assert.deepEqual(given.column_set.map((c: any) => c.data), ['L-2', 'done']);
    const cleared = expectStatus(await sdk.Record.create({ name: 'Lot 3', projects: [{ sid: ws.project.sid }], [required.sid]: 'L-3', [defaulted.sid]: null }, `table__sid=${table.sid}`), 201).json;
    assert.deepEqual(cleared.column_set.map((c: any) => c.data), ['L-3'], 'null: no cell, as the body asks');
  });
});

describe('open_to_organization: every active member reads, nobody writes through it', () => {
  let other: any;
  let closed: any;
  let open: any;

  before(async () => {
    // A project the Member holds no role in, with a closed row and an open one.
    other = expectStatus(await ws.admin.api.post(recordPaths.projectList(ws.org.sid), { name: `Other ${unique('p')}` }), 201).json;
    expectStatus(await ws.admin.api.post(recordPaths.memberList(other.sid), { personnel: ws.projectAdmin.personnel.sid, permission: 'admin' }), 201);
    const make = async (name: string, openToOrganization: boolean) => expectStatus(await ws.projectAdmin.api.post(
      recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: other.sid }),
      { name, open_to_organization: openToOrganization, [ws.columns.text.sid]: `${name} text` },
    ), 201).json;
    closed = await make('Closed row', false);
    open = await make('Open row', true);
  });

  test('a row open to the organization: the Member reads it, its cells and versions, and may not change it', async () => {
    const seen = expectStatus(await ws.member.api.get(recordPaths.rowDetail(open.sid)), 200, 'the open row').json;
    assert.equal(seen.change_permission, false);
    expectStatus(await ws.member.api.get(recordPaths.rowDetail(closed.sid)), 404, 'the closed row stays unseen');
    expectStatus(await ws.member.api.patch(recordPaths.rowDetail(open.sid), { description: 'no' }), 403);
    expectStatus(await ws.member.api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: open.sid }), { column: ws.columns.text.sid, data: 'x' }), 403);
    const cells = expectStatus(await ws.member.api.get(recordPaths.cellList(ws.org.sid, 'list', { row__sid: open.sid })), 200).json;
    assert.equal(cells.count, 1);
    assert.equal((await listVersions(ws.member.api, ws.org.sid, open.sid)).length, 1);
    const listed = expectStatus(await ws.member.api.get(recordPaths.rowList(ws.org.sid, 'name', { project__sid: other.sid })), 200).json;
    assert.deepEqual([listed.count, listed.results.map((r: any) => r.sid)], [1, [open.sid]], 'listed and counted, alone of its project');
    const all = expectStatus(await ws.member.api.get(recordPaths.rowList(ws.org.sid, 'name', { page_size: 100 })), 200).json;
    assert.equal(all.count, all.results.length, 'the count matches the rows listed');
    assert.ok(all.results.some((r: any) => r.sid === open.sid));
    expectStatus(await ws.alumni.api.get(recordPaths.rowDetail(open.sid)), 403, 'an Alumni is not a member');
    expectStatus(await ws.outsider.api.get(recordPaths.rowDetail(open.sid)), 404, 'another organization does not see it');
  });

  test('a project open to the organization: listed for the Member, its rows read as Project View, none created', async () => {
    const before = expectStatus(await ws.member.api.get(recordPaths.projectList(ws.org.sid, 'name')), 200).json;
    assert.ok(!before.results.some((p: any) => p.sid === other.sid));
    expectStatus(await ws.admin.api.patch(recordPaths.projectDetail(other.sid), { open_to_organization: true }), 200);
    const after = expectStatus(await ws.member.api.get(recordPaths.projectList(ws.org.sid, 'list')), 200).json;
    assert.ok(after.results.some((p: any) => p.sid === other.sid), 'listed');
    assert.equal(after.count, after.results.length);
    const project = expectStatus(await ws.member.api.get(recordPaths.projectDetail(other.sid)), 200).json;
    assert.equal(project.change_permission, false);
    expectStatus(await ws.member.api.get(recordPaths.rowDetail(closed.sid)), 200, 'every row of the project is read');
    const rows = expectStatus(await ws.member.api.get(recordPaths.rowList(ws.org.sid, 'name', { project__sid: other.sid })), 200).json;
    assert.deepEqual([rows.count, rows.add_permission], [2, false]);
    expectStatus(await ws.member.api.patch(recordPaths.rowDetail(closed.sid), { description: 'no' }), 403);
    expectStatus(await ws.member.api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: other.sid }), { name: 'no' }), 403);
    expectStatus(await ws.admin.api.patch(recordPaths.projectDetail(other.sid), { open_to_organization: false }), 200);
    expectStatus(await ws.member.api.get(recordPaths.rowDetail(closed.sid)), 404, 'closed again: unseen again');
  });
});

describe('the grid refuses a parameter it does not take', () => {
  test('an unknown parameter is a 400 naming it and the ones the grid takes; an outsider is refused first', async () => {
    const grid = `/tables/row/list/table/${ws.table.sid}/grid/`;
    const res = await ws.projectEdit.api.get(`${grid}?is_archvied=false`);
    expectFieldErrors(res, { is_archvied: ['Unknown query parameter; this list takes only: page, page_size, project__sid, search, is_archived, is_locked, ordering.'] });
    expectStatus(await ws.outsider.api.get(`${grid}?is_archvied=false`), 403);
    expectStatus(await ws.projectEdit.api.get(`${grid}?is_archived=false`), 200);
  });
});

describe('sections: Section.delete', () => {
  test('deleting the middle of three sections: the others close up, the row gets a version that verifies', async () => {
    const row = await createRow(ws, { name: `Notebook ${unique('r')}` });
    const made: any[] = [];
    for (const name of ['Aim', 'Method', 'Result']) {
      made.push(expectStatus(await sdk.Section.create({ name, data: { type: 'doc', content: [] } }, `row__sid=${row.sid}`), 201).json);
    }
    expectStatus(await ws.projectEdit.api.delete(`/tables/section/detail/${made[1].sid}/`), 403, 'Project Edit may not delete one');
    expectStatus(await ws.member.api.delete(`/tables/section/detail/${made[1].sid}/`), 404, 'who cannot read the row does not find it');
    const projectAdmin = new LabiiClient(ws.org.sid);
    await projectAdmin.login(ws.projectAdmin.email, ws.projectAdmin.password);
    const res = expectStatus(await projectAdmin.Section.delete(made[1].sid), 200, 'Section.delete');
    assert.deepEqual(res.json, {});
    expectStatus(await sdk.Section.retrieve(made[1].sid), 404);
    const left = await sdk.Section.listAll('list', `row__sid=${row.sid}`);
    assert.deepEqual(left.results.map((s: any) => [s.name, s.order]), [['Aim', 1], ['Result', 2]]);
    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    const last = versions[versions.length - 1];
    assert.deepEqual([last.version, last.activity_message], [5, 'Deleted the section Method']);
    assert.deepEqual(last.data.sections.map((s: any) => s.name), ['Aim', 'Result']);
    assert.equal(expectStatus(await ws.admin.api.get(recordPaths.rowVerify(row.sid)), 200).json.is_valid, true);
  });
});

describe('saved filters (/tables/filter/) as the SDK sends them', () => {
  let table: any;
  let filter: any;
  let alphaOpen: any;
  let viewer: TestMember;

  before(async () => {
    table = expectStatus(await ws.admin.api.post(recordPaths.tableList(ws.org.sid), { name: `Filtered ${unique('t')}` }), 201).json;
    const make = async (name: string) => expectStatus(await sdk.Record.create({ name, projects: [{ sid: ws.project.sid }] }, `table__sid=${table.sid}`), 201).json;
    alphaOpen = await make('Alpha one');
    const alphaArchived = await make('Alpha two');
    await make('Beta');
    expectStatus(await ws.projectAdmin.api.patch(recordPaths.rowDetail(alphaArchived.sid), { is_archived: true }), 200);
    viewer = ws.projectView;
  });

  test('Filter.create with Labii\'s {field__expr: value} query; Filter.list and retrieve; the shape', async () => {
    const res = await sdk.Filter.create({
      name: 'Open alphas', description: 'not archived', query: { is_archived: false, name__icontains: 'Alpha' }, users: [viewer.personnel.sid],
    }, `table__sid=${table.sid}`);
    filter = expectStatus(res, 201, 'Filter.create').json;
    assert.deepEqual(Object.keys(filter).sort(), ['change_permission', 'date_created', 'date_updated', 'description', 'is_archived', 'name', 'owner', 'query', 'sid', 'table', 'users']);
    assert.deepEqual([filter.query, filter.users, filter.table.sid, filter.is_archived, filter.change_permission],
      ['is_archived=false&search=Alpha', [viewer.personnel.sid], table.sid, false, true]);
    const page = expectStatus(await sdk.Filter.list({ query: `table__sid=${table.sid}` }), 200).json;
    assert.deepEqual([page.count, page.results.map((f: any) => f.sid), page.add_permission], [1, [filter.sid], true]);
    assert.deepEqual(expectStatus(await sdk.Filter.retrieve(filter.sid), 200).json, filter);
  });

  test('?filter__sid= on the row list applies it: exactly the matching rows, counted; a parameter given wins', async () => {
    const applied = await sdk.Record.listAll('list', `filter__sid=${filter.sid}`);
    assert.deepEqual([applied.count, applied.results.map((r: any) => r.sid)], [1, [alphaOpen.sid]]);
    const overridden = await sdk.Record.listAll('name', `filter__sid=${filter.sid}&is_archived=true`);
    assert.deepEqual(overridden.results.map((r: any) => r.name), ['Alpha two']);
    const shared = new LabiiClient(ws.org.sid);
    await shared.login(viewer.email, viewer.password);
    assert.deepEqual((await shared.Record.listAll('name', `filter__sid=${filter.sid}`)).results.map((r: any) => r.sid), [alphaOpen.sid], 'shared with them');
    const stranger = new LabiiClient(ws.org.sid);
    await stranger.login(ws.member.email, ws.member.password);
    expectFieldErrors(await stranger.Record.list({ query: `filter__sid=${filter.sid}` }), { filter__sid: ['No saved filter with this sid that you may use in this organization.'] });
    expectStatus(await stranger.Filter.retrieve(filter.sid), 404, 'not shared with them');
    assert.equal(expectStatus(await stranger.Filter.list(), 200).json.count, 0);
    expectStatus(await shared.Filter.modify(filter.sid, { name: 'mine now' }), 403, 'shared is not owned');
  });

  test('a query the row list does not take is a 400 on query; Filter.modify with a query string; Filter.delete', async () => {
    expectFieldErrors(await sdk.Filter.create({ name: 'Bad', query: { colour: 'red' } }, `table__sid=${table.sid}`),
      { query: ['Unknown filter colour; a saved filter takes only: project__sid, is_archived, uid, owner__sid, search, date_created__gte, date_created__gt, '
        + 'date_created__lte, date_created__lt, date_updated__gte, date_updated__gt, date_updated__lte, date_updated__lt, name__icontains.'] });
    expectFieldErrors(await sdk.Filter.create({ name: 'Bad date', query: 'date_created__gte=yesterday' }, `table__sid=${table.sid}`),
      { query: ['Not a date (YYYY-MM-DD) or an ISO 8601 timestamp.'] });
    // PATCH takes a string (Labii: "different to POST"): its `name__icontains=…___[…]` form too.
    const changed = expectStatus(await sdk.Filter.modify(filter.sid, { query: 'name__icontains=Beta___[{"field": "name", "expr": "icontains", "value": "Beta"}]' }), 200).json;
    assert.equal(changed.query, 'search=Beta');
    assert.deepEqual((await sdk.Record.listAll('name', `filter__sid=${filter.sid}`)).results.map((r: any) => r.name), ['Beta']);
    assert.deepEqual(expectStatus(await sdk.Filter.delete(filter.sid), 200, 'Filter.delete').json, {});
    expectStatus(await sdk.Filter.retrieve(filter.sid), 404);
  });
});

describe('the activity log', () => {
  let row: any;
  let project: any;
  let started: string;

  before(async () => {
    started = new Date(Date.now() - 1000).toISOString();
    project = expectStatus(await ws.admin.api.post(recordPaths.projectList(ws.org.sid), { name: `Logged ${unique('p')}` }), 201).json;
    expectStatus(await ws.admin.api.patch(recordPaths.projectDetail(project.sid), { description: 'now described', is_archived: true }), 200);
    row = expectStatus(await sdk.Record.create({ name: 'Logged row', projects: [{ sid: ws.project.sid }], [ws.columns.text.sid]: 'first' }, `table__sid=${ws.table.sid}`), 201).json;
    expectStatus(await sdk.Record.modify(row.sid, { [ws.columns.text.sid]: 'second' }), 200);
  });

  test('Activity.list (the SDK\'s /tables/activity/) and /activities/activity/: who did what to which object, newest first', async () => {
    const page = expectStatus(await admin.Activity.list({ query: `date_created__gte=${encodeURIComponent(started)}` }), 200, 'Activity.list').json;
    const mine = page.results.filter((a: any) => [row.sid, project.sid].includes(a.object_sid));
    assert.deepEqual(mine.map((a: any) => [a.model, a.action, a.field, a.target, a.version]), [
      ['row', 'Updated', 'Changed the cell of Column text', 'Logged row', 2],
      ['row', 'Created', 'Created the row with 1 cell', 'Logged row', 1],
      ['project', 'Updated', 'description, is_archived', project.name, null],
      ['project', 'Created', '', project.name, null],
    ]);
    assert.deepEqual(mine[0].user, { sid: ws.projectEdit.sid, first_name: ws.projectEdit.first_name, last_name: ws.projectEdit.last_name, email: ws.projectEdit.email });
    assert.deepEqual([mine[0].icon, mine[1].icon], ['edit', 'add']);
    assert.deepEqual(mine[3].user.sid, ws.admin.sid);
    const atV3 = expectStatus(await ws.admin.api.get(`/activities/activity/list/organization/${ws.org.sid}/list/?object_sid=${row.sid}`), 200).json;
    assert.deepEqual(atV3.results, mine.slice(0, 2), 'the same log at the v3 docs\' path');
  });

  test('filters: user__sid, model, object_sid, the date range; an unknown parameter is a 400', async () => {
    const byUser = await admin.Activity.listAll('list', `user__sid=${ws.projectEdit.sid}&object_sid=${row.sid}`);
    assert.equal(byUser.count, 2);
    const projects = await admin.Activity.listAll('list', `model=project&object_sid=${project.sid}`);
    assert.deepEqual(projects.results.map((a: any) => a.action), ['Updated', 'Created']);
    const none = expectStatus(await admin.Activity.list({ query: `object_sid=${row.sid}&date_created__lt=${encodeURIComponent(started)}` }), 200).json;
    assert.equal(none.count, 0);
    expectFieldErrors(await admin.Activity.list({ query: 'who=me' }), {
      who: ['Unknown query parameter; this list takes only: page, page_size, user__sid, model, object_sid, date_created__gte, date_created__gt, date_created__lte, date_created__lt.'],
    });
    expectFieldErrors(await admin.Activity.list({ query: 'date_created__gte=soon' }), { date_created__gte: ['Not a date (YYYY-MM-DD) or an ISO 8601 timestamp.'] });
  });

  test('Admins only; a refused write leaves no line', async () => {
    for (const who of [ws.projectAdmin, ws.projectEdit, ws.member]) {
      expectStatus(await who.api.get(`/activities/activity/list/organization/${ws.org.sid}/list/`), 403);
    }
    expectStatus(await ws.outsider.api.get(`/tables/activity/list/organization/${ws.org.sid}/list/`), 403);
    const before = (await admin.Activity.listAll('list', `object_sid=${row.sid}`)).count;
    expectStatus(await sdk.Record.modify(row.sid, { is_locked: true }), 403, 'Project Edit may not lock');
    expectFieldErrors(await sdk.Record.modify(row.sid, { ABCDEFGHIJKLMNOP: 'x' }), { ABCDEFGHIJKLMNOP: ["No column with this sid in the row's table."] });
    assert.equal((await admin.Activity.listAll('list', `object_sid=${row.sid}`)).count, before);
  });

  test('the export streams the same lines as NDJSON and as CSV', async () => {
    const base = `/activities/activity/export/organization/${ws.org.sid}/?object_sid=${row.sid}`;
    const listed = (await admin.Activity.listAll('list', `object_sid=${row.sid}`)).results;
    const ndjson = expectStatus(await ws.admin.api.get(base), 200);
    assert.match(ndjson.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    assert.deepEqual(ndjson.text.trim().split('\n').map((line) => JSON.parse(line)), listed);
    const csv = expectStatus(await ws.admin.api.get(`${base}&format=csv`), 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    const lines = csv.text.trim().split('\n');
    assert.equal(lines[0], 'date_created,user_sid,user_email,user_name,action,model,object_sid,target,field,new_data,version');
    assert.equal(lines.length, listed.length + 1);
    assert.ok(lines[1].startsWith(`${listed[0].date_created},${ws.projectEdit.sid},${ws.projectEdit.email},`));
    expectStatus(await ws.member.api.get(base), 403);
    expectFieldErrors(await ws.admin.api.get(`${base}&colour=red`), {
      colour: ['Unknown query parameter; this list takes only: format, user__sid, model, object_sid, date_created__gte, date_created__gt, date_created__lte, date_created__lt.'],
    });
  });
});

// Labii's rows, cells and sections (issue 24, the rows side; docs/labii-compatibility.md,
// "Rows, cells and sections"): requests made exactly as labii-sdk 1.13.14's LabiiObject
// makes them — its paths (`/{app}/{model}/list/organization/{org}/{serializer}/`, the
// detail path), its headers (`X-Forwarded-For: batch`, `Content-Type: application/json`,
// `Authorization: Token …` or `Bearer …`), its compact JSON bodies and its paging
// (`page=1&page_size=10` before the query; `all_pages` walking pages of 10) — create and
// read rows in several projects with their cells as `column_set`, cells with Labii's
// filters, and sections, each change a version of the row that verifies. The SDK is not
// used (nor copied): this client writes the same requests.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectFieldErrors, expectStatus } from '../helpers/assertions.ts';
import { addMember, unique, type TestMember } from '../helpers/factories.ts';
import { assertRecordShape, listVersions, newWorkspace, readCredits, recordPaths, type Workspace } from '../helpers/records.ts';
import { LabiiClient } from '../helpers/labii.ts';

let ws: Workspace;
let second: any;
let onlySecond: TestMember;
let viewSecond: TestMember;
let sdk: LabiiClient;

before(async () => {
  ws = await newWorkspace({
    label: 'labii',
    widgets: { priced: { price: '0.25' } },
    columns: { text: 'builtinWidgetTxt', size: 'builtinWidgetTxt', priced: 'priced' },
  });
  // A second project: the Project Edit of the first is Project Edit here too; others only here.
  second = expectStatus(await ws.admin.api.post(recordPaths.projectList(ws.org.sid), { name: `Second ${unique('p')}` }), 201).json;
  [onlySecond, viewSecond] = await Promise.all([addMember(ws.admin, ws.org, {}, 'labiisecond'), addMember(ws.admin, ws.org, {}, 'labiiview')]);
  for (const [who, permission] of [[ws.projectEdit, 'edit'], [onlySecond, 'edit'], [viewSecond, 'view']] as const) {
    expectStatus(await ws.admin.api.post(recordPaths.memberList(second.sid), { personnel: who.personnel.sid, permission }), 201, `role in the second project`);
  }
  sdk = new LabiiClient(ws.org.sid);
  await sdk.login(ws.projectEdit.email, ws.projectEdit.password);
});

const col = (key: string) => ws.columns[key].sid as string;

describe('rows as the SDK creates and reads them', () => {
  let row: any;

  test('Record.create with projects and cell values keyed by column sid: one row, its cells, one version, credits debited', async () => {
    const creditsBefore = await readCredits(ws.admin.api, ws.org.sid);
    const res = await sdk.Record.create({
      name: 'Sample – 1', description: 'made by the SDK', projects: [{ sid: ws.project.sid }, { sid: second.sid }],
      [col('text')]: 'hello', [col('size')]: 1234, [col('priced')]: 'paid',
    }, `table__sid=${ws.table.sid}`);
    row = assertRecordShape(expectStatus(res, 201, 'Record.create').json, 'row.detail', 'created');
    assert.equal(row.name, 'Sample – 1', 'the \\u escapes of Python\'s JSON are read');
    assert.match(row.uid, /^TAB-\d{6}$/, 'uid: the table\'s prefix (from its name "Table …") and a six-digit number');
    assert.deepEqual(row.projects, [{ sid: ws.project.sid, name: ws.project.name }, { sid: second.sid, name: second.name }]);
    assert.deepEqual(row.project, { sid: ws.project.sid, name: ws.project.name }, 'the first project is `project`');
    assert.equal(row.version, 1, 'the cells are in version 1');
    assert.deepEqual(row.column_set.map((c: any) => [c.column.sid, c.data]), [[col('text'), 'hello'], [col('size'), '1234'], [col('priced'), 'paid']]);
    assert.deepEqual(row.column_set[0].column.widget, { sid: 'builtinWidgetTxt', name: row.column_set[0].column.widget.name });
    assert.deepEqual(row.cells.map((c: any) => c.sid), row.column_set.map((c: any) => c.sid), 'column_set lists the same cells');
    assert.equal(row.owner, row.created_by);
    assert.equal(row.updated_by, row.created_by);
    assert.deepEqual([row.is_template, row.open_to_organization, row.metadata, row.section_set], [false, false, [], []]);
    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assert.equal(versions.length, 1, 'one version');
    assert.deepEqual(versions[0].data.cells, { [col('text')]: 'hello', [col('size')]: '1234', [col('priced')]: 'paid' });
    assert.equal(versions[0].activity_message, 'Created the row with 3 cells');
    const creditsAfter = await readCredits(ws.admin.api, ws.org.sid);
    assert.equal(Number(creditsBefore.slice(1)) - Number(creditsAfter.slice(1)), 0.25, 'the priced cell is paid for');
    const verified = expectStatus(await ws.projectView.api.get(recordPaths.rowVerify(row.sid)), 200).json;
    assert.equal(verified.is_valid, true);
  });

  test('Record.retrieve and Record.list (page=1&page_size=10 before the query): the Labii fields in each shape', async () => {
    const detail = assertRecordShape(expectStatus(await sdk.Record.retrieve(row.sid), 200).json, 'row.detail', 'retrieve');
    assert.deepEqual(detail, row);
    const page = expectStatus(await sdk.Record.list({ query: `project__sid=${second.sid}` }), 200).json;
    const listed = page.results.find((r: any) => r.sid === row.sid);
    assertRecordShape(listed, 'row.list', 'list');
    assert.deepEqual([listed.uid, listed.projects, listed.column_set], [row.uid, row.projects, row.column_set]);
    const byUid = await sdk.Record.listAll('list', `uid=${row.uid}`);
    assert.deepEqual(byUid.results.map((r: any) => r.sid), [row.sid], '?uid= finds exactly the row');
    const searched = await sdk.Record.listAll('name', `search=${row.uid.slice(-6)}&table__sid=${ws.table.sid}`);
    assert.deepEqual(searched.results.map((r: any) => r.sid), [row.sid], 'search matches the uid');
  });

  test('uids count up per table, are unique and never change', async () => {
    const made: any[] = [];
    for (let i = 0; i < 3; i += 1) {
      made.push(expectStatus(await sdk.Record.create({ name: `Numbered ${i}`, projects: [{ sid: ws.project.sid }] }, `table__sid=${ws.table.sid}`), 201).json);
    }
    const numbers = made.map((r) => Number(r.uid.split('-')[1]));
    assert.deepEqual(numbers, [numbers[0], numbers[0] + 1, numbers[0] + 2]);
    assert.ok(numbers[0] > Number(row.uid.split('-')[1]));
    expectStatus(await ws.projectEdit.api.patch(recordPaths.rowDetail(made[0].sid), { name: 'Renamed' }), 200);
    assert.equal(expectStatus(await sdk.Record.retrieve(made[0].sid), 200).json.uid, made[0].uid, 'a rename keeps the uid');
  });

  test('Record.modify with a column sid (as the SDK\'s upload does): the cell changes, one version', async () => {
    const res = expectStatus(await sdk.Record.modify(row.sid, { [col('size')]: 2048 }), 200, 'Record.modify').json;
    assert.equal(res.column_set.find((c: any) => c.column.sid === col('size')).data, '2048');
    assert.equal(res.version, 2);
    expectFieldErrors(await sdk.Record.modify(row.sid, { ABCDEFGHIJKLMNOP: 'x' }), { ABCDEFGHIJKLMNOP: ["No column with this sid in the row's table."] });
    assert.equal(expectStatus(await sdk.Record.retrieve(row.sid), 200).json.version, 2, 'the refused change made no version');
  });

  test('a row in two projects: read through either; written per the strongest role in any of them', async () => {
    const onlyHere = new LabiiClient(ws.org.sid);
    await onlyHere.login(onlySecond.email, onlySecond.password);
    assertRecordShape(expectStatus(await onlyHere.Record.retrieve(row.sid), 200, 'Edit of the second project reads it').json, 'row.detail');
    const renamed = expectStatus(await onlyHere.Record.modify(row.sid, { description: 'through the second project' }), 200, 'and writes it').json;
    assert.equal(renamed.change_permission, true);
    const viewer = new LabiiClient(ws.org.sid);
    await viewer.login(viewSecond.email, viewSecond.password);
    const seen = expectStatus(await viewer.Record.retrieve(row.sid), 200, 'View of the second project reads it').json;
    assert.equal(seen.change_permission, false);
    expectStatus(await viewer.Record.modify(row.sid, { description: 'no' }), 403, 'View of the second project may not write');
    expectStatus(await ws.member.api.get(recordPaths.rowDetail(row.sid)), 404, 'a member of neither project does not see it');
    // Counted in each project's list, once in the organization's.
    const inSecond = await viewer.Record.listAll('name', `project__sid=${second.sid}`);
    assert.ok(inSecond.results.some((r: any) => r.sid === row.sid), 'listed under the second project');
    assert.equal(inSecond.count, inSecond.results.length, 'the count matches what the pages list');
    const everything = await viewer.Record.listAll('name', '');
    assert.equal(everything.count, everything.results.length);
    assert.equal(new Set(everything.results.map((r: any) => r.sid)).size, everything.results.length, 'no row twice');
    const cells = await viewer.Cell.listAll('list', `row__sid=${row.sid}`);
    assert.equal(cells.count, 3, 'its cells are readable through the second project too');
  });

  test('creating in a project where the caller may not create rows is refused, and nothing is created', async () => {
    const viewer = new LabiiClient(ws.org.sid);
    await viewer.login(viewSecond.email, viewSecond.password);
    const before = (await ws.admin.api.get(recordPaths.rowList(ws.org.sid, 'name', { page_size: 1 }))).json.count;
    expectStatus(await viewer.Record.create({ name: 'Nope', projects: [{ sid: second.sid }] }, `table__sid=${ws.table.sid}`), 403);
    const edit = new LabiiClient(ws.org.sid);
    await edit.login(onlySecond.email, onlySecond.password);
    expectStatus(await edit.Record.create({ name: 'Nope', projects: [{ sid: second.sid }, { sid: ws.project.sid }] }, `table__sid=${ws.table.sid}`), 403,
      'a role in every project named is needed');
    expectFieldErrors(await sdk.Record.create({ name: 'Nope', projects: [{ sid: 'ABCDEFGHIJKLMNOP' }] }, `table__sid=${ws.table.sid}`),
      { projects: ['No project with this sid in this organization: ABCDEFGHIJKLMNOP.'] });
    expectFieldErrors(await sdk.Record.create({ name: 'Nope', projects: [{ sid: ws.project.sid }], ZZZZZZZZZZZZZZZZ: 'x' }, `table__sid=${ws.table.sid}`),
      { ZZZZZZZZZZZZZZZZ: ["No column with this sid in the row's table."] });
    expectStatus(await sdk.Record.create({ name: 'Nope', projects: [{ sid: ws.project.sid }], not_a_field: 1 }, `table__sid=${ws.table.sid}`), 400,
      'an unknown field that is not a column sid is refused');
    assert.equal((await ws.admin.api.get(recordPaths.rowList(ws.org.sid, 'name', { page_size: 1 }))).json.count, before, 'no row was added');
  });

  test('PATCH projects: Project Admin moves the row; a version records it', async () => {
    const made = expectStatus(await sdk.Record.create({ name: 'Mover', projects: [{ sid: ws.project.sid }] }, `table__sid=${ws.table.sid}`), 201).json;
    expectStatus(await sdk.Record.modify(made.sid, { projects: [{ sid: ws.project.sid }, { sid: second.sid }] }), 403, 'Project Edit may not move it');
    const admin = new LabiiClient(ws.org.sid);
    await admin.login(ws.projectAdmin.email, ws.projectAdmin.password);
    expectStatus(await admin.Record.modify(made.sid, { projects: [{ sid: ws.project.sid }, { sid: second.sid }] }), 403,
      'nor may a Project Admin put it in a project where they have no role');
    expectStatus(await ws.admin.api.post(recordPaths.memberList(second.sid), { personnel: ws.projectAdmin.personnel.sid, permission: 'admin' }), 201);
    const moved = expectStatus(await admin.Record.modify(made.sid, { projects: [{ sid: second.sid }, { sid: ws.project.sid }] }), 200).json;
    assert.deepEqual(moved.projects.map((p: any) => p.sid), [second.sid, ws.project.sid]);
    assert.equal(moved.project.sid, second.sid);
    assert.equal(moved.version, 2);
    const versions = await listVersions(ws.admin.api, ws.org.sid, made.sid);
    assert.equal(versions[1].activity_message, 'Changed the projects');
  });
});

describe('Labii\'s filters on rows and cells', () => {
  let filled: any[];
  let empty: any;

  before(async () => {
    filled = [];
    for (const data of ['a', 'b']) {
      filled.push(expectStatus(await sdk.Record.create({ name: `Filled ${data}`, projects: [{ sid: ws.project.sid }], [col('text')]: data, [col('size')]: '' }, `table__sid=${ws.table.sid}`), 201).json);
    }
    empty = expectStatus(await sdk.Record.create({ name: 'Empty', projects: [{ sid: ws.project.sid }], [col('text')]: '' }, `table__sid=${ws.table.sid}`), 201).json;
  });

  test('cells with column__sid=…&data__isnull=false: exactly the filled cells of that column', async () => {
    const found = await sdk.Cell.listAll('detail', `column__sid=${col('text')}&data__isnull=false`);
    const ours = new Set([...filled, empty].map((r) => r.sid));
    const all = found.results;
    assert.ok(all.every((c: any) => c.column.sid === col('text') && c.data !== ''), 'only filled cells of the column');
    assert.deepEqual(all.filter((c: any) => ours.has(c.row.sid)).map((c: any) => c.data).sort(), ['a', 'b']);
    // Every filled cell of the column the caller reads, and nothing else: compared with the whole list read unfiltered.
    const everything = await sdk.Cell.listAll('detail', '');
    const expected = everything.results.filter((c: any) => c.column.sid === col('text') && c.data !== '').map((c: any) => c.sid).sort();
    assert.deepEqual(all.map((c: any) => c.sid).sort(), expected);
    assert.equal(found.count, expected.length);
    const nulls = await sdk.Cell.listAll('list', `column__sid=${col('text')}&data__isnull=true`);
    assert.deepEqual(nulls.results.map((c: any) => c.row.sid), [empty.sid]);
    const both = await sdk.Cell.listAll('list', `column__sid__in=${col('text')},${col('size')}&row__sid=${filled[0].sid}`);
    assert.equal(both.count, 2);
    const none = await sdk.Cell.listAll('list', `column__sid__in=${col('priced')}&row__sid=${filled[0].sid}`);
    assert.equal(none.count, 0);
  });

  test('rows: is_archived, owner__sid, date ranges; a bad date is a 400 naming it', async () => {
    const admin = new LabiiClient(ws.org.sid);
    await admin.login(ws.projectAdmin.email, ws.projectAdmin.password);
    expectStatus(await admin.Record.modify(empty.sid, { is_archived: true }), 200);
    const active = await sdk.Record.listAll('name', `is_archived=false&table__sid=${ws.table.sid}`);
    assert.ok(!active.results.some((r: any) => r.sid === empty.sid));
    assert.ok(active.results.some((r: any) => r.sid === filled[0].sid));
    const archived = await sdk.Record.listAll('name', `is_archived=true&table__sid=${ws.table.sid}`);
    assert.deepEqual(archived.results.map((r: any) => r.sid), [empty.sid]);
    assert.equal(archived.count, 1);
    const mine = await sdk.Record.listAll('name', `owner__sid=${ws.projectEdit.personnel.sid}`);
    assert.ok(mine.results.length >= 3 && mine.count === mine.results.length);
    const theirs = await sdk.Record.listAll('name', `owner__sid=${ws.projectAdmin.personnel.sid}&table__sid=${ws.table.sid}`);
    assert.ok(!theirs.results.some((r: any) => mine.results.some((m: any) => m.sid === r.sid)), 'owner__sid separates the owners');
    const today = new Date().toISOString().slice(0, 10);
    const fromToday = await sdk.Record.listAll('name', `date_created__gte=${today}&date_created__lte=${today}&table__sid=${ws.table.sid}`);
    assert.ok(fromToday.results.some((r: any) => r.sid === empty.sid), 'a date bound covers its whole day');
    const future = await sdk.Record.listAll('name', `date_created__gt=2999-01-01T00:00:00Z`);
    assert.equal(future.count, 0);
    const after = await sdk.Record.listAll('name', `date_updated__gte=${encodeURIComponent(empty.date_updated)}&table__sid=${ws.table.sid}`);
    assert.ok(after.results.some((r: any) => r.sid === empty.sid));
    expectFieldErrors(await sdk.Record.list({ query: 'date_created__gte=yesterday' }), { date_created__gte: ['Not a date (YYYY-MM-DD) or an ISO 8601 timestamp.'] });
  });
});

describe('sections as the SDK writes them', () => {
  let row: any;
  const sections: any[] = [];

  before(async () => {
    row = expectStatus(await sdk.Record.create({ name: 'Notebook', projects: [{ sid: ws.project.sid }] }, `table__sid=${ws.table.sid}`), 201).json;
  });

  test('Section.create ×3 on ?row__sid=: in order, each a version; section_set on the row', async () => {
    for (const [i, name] of ['Aim', 'Method', 'Results'].entries()) {
      const doc = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: `${name} text` }] }] };
      const res = expectStatus(await sdk.Section.create({ name, description: `${name} of the experiment`, data: doc }, `row__sid=${row.sid}`), 201, name).json;
      assert.deepEqual([res.name, res.order, res.data, res.row, res.version, res.change_permission], [name, i + 1, doc, { sid: row.sid, name: row.name }, i + 2, true]);
      sections.push(res);
    }
    const listed = await sdk.Section.listAll('list', `row__sid=${row.sid}`);
    assert.deepEqual(listed.results.map((s: any) => s.name), ['Aim', 'Method', 'Results']);
    const detail = expectStatus(await sdk.Record.retrieve(row.sid), 200).json;
    assert.deepEqual(detail.section_set.map((s: any) => [s.sid, s.order]), sections.map((s, i) => [s.sid, i + 1]));
    assert.equal(detail.version, 4);
    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assert.deepEqual(versions.map((v: any) => v.activity_message), ['Created the row', 'Added the section Aim', 'Added the section Method', 'Added the section Results']);
    assert.deepEqual(versions[3].data.sections.map((s: any) => s.name), ['Aim', 'Method', 'Results']);
    assert.equal(versions[3].data.sections[0].data, JSON.stringify(sections[0].data), 'a version keeps each section\'s content as its JSON text');
  });

  test('Section.modify: data, name, order, is_archived — each change a version; the same again none; the chain verifies', async () => {
    const doc = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Ünïcode edit' }] }] };
    const changed = expectStatus(await sdk.Section.modify(sections[1].sid, { data: doc }), 200).json;
    assert.deepEqual([changed.data, changed.version], [doc, 5]);
    const same = expectStatus(await sdk.Section.modify(sections[1].sid, { data: doc }), 200).json;
    assert.equal(same.version, 5, 'the same content again is no version');
    const moved = expectStatus(await sdk.Section.modify(sections[2].sid, { order: 1 }), 200).json;
    assert.equal(moved.order, 1);
    const listed = await sdk.Section.listAll('name', `row__sid=${row.sid}`);
    assert.deepEqual(listed.results.map((s: any) => s.name), ['Results', 'Aim', 'Method']);
    expectStatus(await sdk.Section.modify(sections[0].sid, { is_archived: true }), 200);
    const verified = expectStatus(await ws.admin.api.get(recordPaths.rowVerify(row.sid)), 200).json;
    assert.deepEqual([verified.is_valid, verified.versions, verified.problems], [true, 7, []]);
    const section = expectStatus(await sdk.Section.retrieve(sections[1].sid), 200).json;
    assert.deepEqual(section.data, doc);
  });

  test('refusals: View may not write; a locked or archived row takes no section change; bad input is a 400', async () => {
    const viewer = new LabiiClient(ws.org.sid);
    await viewer.login(ws.projectView.email, ws.projectView.password);
    assert.equal(expectStatus(await viewer.Section.retrieve(sections[1].sid), 200).json.change_permission, false);
    expectStatus(await viewer.Section.modify(sections[1].sid, { name: 'x' }), 403);
    expectStatus(await viewer.Section.create({ name: 'x' }, `row__sid=${row.sid}`), 403);
    expectStatus(await ws.member.api.get(`/tables/section/detail/${sections[1].sid}/`), 404, 'a member without a role does not see it');
    expectFieldErrors(await sdk.Section.create({ name: 'x' }), { row__sid: ['Give the section\'s row: ?row__sid= (or `row` in the body).'] });
    expectFieldErrors(await sdk.Section.create({ name: 'x', widget: { sid: 'ABCDEFGHIJKLMNOP' } }, `row__sid=${row.sid}`), { widget: ['No widget with this sid for this organization.'] });
    expectStatus(await sdk.Section.create({ name: '' }, `row__sid=${row.sid}`), 400, 'a blank name');
    const admin = new LabiiClient(ws.org.sid);
    await admin.login(ws.projectAdmin.email, ws.projectAdmin.password);
    expectStatus(await admin.Record.modify(row.sid, { is_locked: true }), 200);
    const locked = await sdk.Section.modify(sections[1].sid, { name: 'Locked?' });
    assert.deepEqual([locked.status, locked.json], [400, { detail: 'The row is locked; only a section whose widget may be added at the read-only stage can be added or changed.' }]);
    expectStatus(await admin.Record.modify(row.sid, { is_locked: false, is_archived: true }), 200);
    const archived = await sdk.Section.create({ name: 'Archived?' }, `row__sid=${row.sid}`);
    assert.deepEqual([archived.status, archived.json], [400, { detail: 'The row is archived; its sections cannot be added or changed.' }]);
    assert.equal((await sdk.Section.listAll('name', `row__sid=${row.sid}`)).count, 3, 'no section was added');
  });
});

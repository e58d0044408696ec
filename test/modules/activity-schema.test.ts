// The activity log's lines for the schema and the people (issue 24, docs/labii-compatibility.md
// "Activity"): tables, columns, personnel and project members created, changed (archiving
// included) and removed, each line with who, the action, the model, the object, its name and
// the fields that changed; filtered by model. Each test reads the log of an organization of
// its own, so every line is known.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectStatus } from '../helpers/assertions.ts';
import { addMember, newOrganization, paths, unique, type TestMember } from '../helpers/factories.ts';
import { recordPaths } from '../helpers/records.ts';

let admin: TestMember;
let org: { sid: string; name: string };

/** The organization's whole log, newest first (pages of 100), as [user sid, action, model, object sid, target, field, new_data]. */
async function log(query = ''): Promise<string[][]> {
  const lines: any[] = [];
  for (let page = 1; ; page += 1) {
    const res = expectStatus(await admin.api.get(`/activities/activity/list/organization/${org.sid}/list/?page=${page}&page_size=100${query}`), 200, 'the log').json;
    lines.push(...res.results);
    if (!res.next) break;
  }
  return lines.map((a) => [a.user?.sid ?? null, a.action, a.model, a.object_sid, a.target, a.field, a.new_data]);
}

/** The lines written since `before` lines were there (the log is newest first). */
async function since(count: number): Promise<string[][]> {
  const all = await log();
  return all.slice(0, all.length - count);
}

before(async () => {
  ({ admin, org } = await newOrganization('actlog'));
});

describe('the activity log of tables, columns, personnel and project members', () => {
  test('a new organization logs its creator\'s personnel record and its files table with its columns', async () => {
    const tables = expectStatus(await admin.api.get(recordPaths.tableList(org.sid, 'detail', { name_system: 'file' })), 200).json.results;
    const [files] = tables;
    const [file, size] = files.columns;
    assert.deepEqual(await log(), [
      [admin.sid, 'Created', 'column', size.sid, 'Size', '', ''],
      [admin.sid, 'Created', 'column', file.sid, 'File', '', ''],
      [admin.sid, 'Created', 'table', files.sid, 'Files', '', ''],
      [admin.sid, 'Created', 'personnel', admin.personnel.sid, `${admin.first_name} ${admin.last_name}`, '', ''],
    ]);
  });

  test('a table created, changed and archived; a column created, made required and archived; a change that changes nothing logs nothing', async () => {
    const start = (await log()).length;
    const name = `Samples ${unique('t')}`;
    const table = expectStatus(await admin.api.post(recordPaths.tableList(org.sid), { name, description: 'first' }), 201).json;
    expectStatus(await admin.api.patch(recordPaths.tableDetail(table.sid), { name_plural: `${name} 2`, description: 'first', icon: 'flask' }), 200);
    expectStatus(await admin.api.patch(recordPaths.tableDetail(table.sid), { description: 'first' }), 200);
    expectStatus(await admin.api.patch(recordPaths.tableDetail(table.sid), { is_archived: true }), 200);
    const column = expectStatus(await admin.api.post(recordPaths.columnList(org.sid, 'detail', { table__sid: table.sid }),
      { name: 'Lot', widget: 'builtinWidgetTxt' }), 201).json;
    expectStatus(await admin.api.patch(recordPaths.columnDetail(column.sid), { is_required: true, name: 'Lot', default_value: 'L1' }), 200);
    expectStatus(await admin.api.patch(recordPaths.columnDetail(column.sid), { is_required: true }), 200);
    expectStatus(await admin.api.patch(recordPaths.columnDetail(column.sid), { name: 'Lot number', is_archived: true }), 200);
    assert.deepEqual(await since(start), [
      [admin.sid, 'Updated', 'column', column.sid, 'Lot number', 'name, is_archived', ''],
      [admin.sid, 'Updated', 'column', column.sid, 'Lot', 'default_value, is_required', ''],
      [admin.sid, 'Created', 'column', column.sid, 'Lot', '', ''],
      [admin.sid, 'Updated', 'table', table.sid, `${name} 2`, 'is_archived', ''],
      [admin.sid, 'Updated', 'table', table.sid, `${name} 2`, 'name, icon', ''],
      [admin.sid, 'Created', 'table', table.sid, name, '', ''],
    ]);
    // A refused change leaves no line.
    expectStatus(await admin.api.patch(recordPaths.columnDetail(column.sid), { default_value: 'x', settings: { bogus: 1 } }), 400);
    assert.equal((await log()).length, start + 6);
  });

  test('personnel added, changed, archived, and leaving; project members added, changed and removed (Deleted)', async () => {
    const start = (await log()).length;
    const member = await addMember(admin, org, { first_name: 'Rosalind', last_name: 'Franklin' }, 'actlogm');
    const name = 'Rosalind Franklin';
    expectStatus(await admin.api.patch(paths.personnelDetail(member.personnel.sid), { title: 'Chemist', is_administrator: 'false' }), 200);
    const project = expectStatus(await admin.api.post(recordPaths.projectList(org.sid), { name: `Logged ${unique('p')}` }), 201).json;
    const membership = expectStatus(await admin.api.post(recordPaths.memberList(project.sid), { personnel: member.personnel.sid, permission: 'edit' }), 201).json;
    expectStatus(await admin.api.patch(recordPaths.memberDetail(membership.sid), { permission: 'View' }), 200);
    expectStatus(await admin.api.patch(recordPaths.memberDetail(membership.sid), { permission: 'view' }), 200);
    expectStatus(await admin.api.delete(recordPaths.memberDetail(membership.sid)), 200);
    const other = await addMember(admin, org, { first_name: 'Ada', last_name: 'Byron' }, 'actlogo');
    expectStatus(await admin.api.patch(paths.personnelDetail(other.personnel.sid), { is_archived: 'true' }), 200);
    expectStatus(await member.api.post(`/organizations/personnel/detail/${member.personnel.sid}/leave/`), 200);
    const lines = await since(start);
    assert.deepEqual(lines, [
      [member.sid, 'Updated', 'personnel', member.personnel.sid, name, 'is_archived', ''],
      [admin.sid, 'Updated', 'personnel', other.personnel.sid, 'Ada Byron', 'is_archived', ''],
      [admin.sid, 'Created', 'personnel', other.personnel.sid, 'Ada Byron', '', ''],
      [admin.sid, 'Deleted', 'member', membership.sid, name, '', ''],
      [admin.sid, 'Updated', 'member', membership.sid, name, 'permission', 'view'],
      [admin.sid, 'Created', 'member', membership.sid, name, '', 'edit'],
      [admin.sid, 'Created', 'project', project.sid, project.name, '', ''],
      [admin.sid, 'Updated', 'personnel', member.personnel.sid, name, 'title', ''],
      [admin.sid, 'Created', 'personnel', member.personnel.sid, name, '', ''],
    ]);
    const deleted = expectStatus(await admin.api.get(`/tables/activity/list/organization/${org.sid}/list/?object_sid=${membership.sid}`), 200).json.results;
    assert.deepEqual(deleted.map((a: any) => [a.icon, a.action]), [['delete', 'Deleted'], ['edit', 'Updated'], ['add', 'Created']]);
    assert.deepEqual(deleted[0].user, { sid: admin.sid, first_name: admin.first_name, last_name: admin.last_name, email: admin.email });
  });

  test('filtering by model lists exactly that kind\'s lines, counted; the export carries them', async () => {
    const all = await log();
    for (const model of ['table', 'column', 'member', 'personnel', 'project']) {
      const listed = await log(`&model=${model}`);
      assert.deepEqual(listed, all.filter((line) => line[2] === model), model);
      const count = expectStatus(await admin.api.get(`/activities/activity/list/organization/${org.sid}/list/?model=${model}&page_size=1`), 200).json.count;
      assert.equal(count, listed.length, `${model}: counted`);
    }
    assert.deepEqual((await log('&model=member')).map((line) => line[1]), ['Deleted', 'Updated', 'Created']);
    const csv = expectStatus(await admin.api.get(`/activities/activity/export/organization/${org.sid}/?format=csv&model=member`), 200).text.trim().split('\n');
    assert.equal(csv.length, 4);
    assert.match(csv[1], /,Deleted,member,/);
    const bad = expectStatus(await admin.api.get(`/activities/activity/list/organization/${org.sid}/list/?model=widget`), 400).json;
    assert.deepEqual(Object.keys(bad), ['model']);
  });
});

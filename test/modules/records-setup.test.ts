// The supporting resources of the records area (design: "Resources the spec relies on
// but does not list"): projects, project members, tables, widgets and columns.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Api, Answer, Query } from '../helpers/http.ts';
import {
  assertKeys, assertPage, expectFieldErrors, expectForbidden, expectMethodNotAllowed, expectNotFound, expectPlainText,
  expectStatus, MESSAGES, MONEY_RE, SID_RE, TIMESTAMP_RE,
} from '../helpers/assertions.ts';
import { addMember, newOrganization, unique, type Serializer, type TestMember } from '../helpers/factories.ts';
import { listPath, recordPaths } from '../helpers/records.ts';

// ------------------------------------------------------------------ paths --

const list = listPath;
const {
  projectList, projectDetail, memberList, memberDetail, tableList, tableDetail, widgetList, widgetDetail, columnList, columnDetail,
} = recordPaths;

// ----------------------------------------------------------------- shapes --

const isTimestamp = (v: unknown) => typeof v === 'string' && TIMESTAMP_RE.test(v);
const isRef = (v: any) => v && typeof v === 'object' && SID_RE.test(v.sid) && typeof v.name === 'string' && Object.keys(v).length === 2;

const KEYS = {
  project: {
    name: ['sid', 'name'],
    list: ['sid', 'name', 'description', 'parent', 'date_start', 'date_end', 'is_archived', 'open_to_organization', 'change_permission'],
    detail: ['sid', 'name', 'description', 'parent', 'date_start', 'date_end', 'is_archived', 'open_to_organization', 'metadata',
      'created_by', 'updated_by', 'date_created', 'date_updated', 'change_permission'],
  },
  member: {
    name: ['sid', 'name'],
    list: ['sid', 'name', 'personnel', 'team', 'project', 'permission', 'is_archived', 'change_permission'],
    detail: ['sid', 'name', 'personnel', 'team', 'project', 'permission', 'is_archived', 'date_created', 'date_updated', 'change_permission'],
  },
  table: {
    name: ['sid', 'name'],
    list: ['sid', 'name', 'name_singular', 'name_plural', 'unique_code', 'icon', 'table_type', 'order', 'is_archived', 'name_system',
      'description', 'number_of_records', 'number_of_columns', 'number_of_workflows', 'change_permission'],
    detail: ['sid', 'name', 'name_singular', 'name_plural', 'unique_code', 'icon', 'table_type', 'order', 'is_archived', 'name_system',
      'description', 'number_of_records', 'number_of_columns', 'number_of_workflows', 'metadata', 'columns', 'date_created', 'date_updated',
      'change_permission'],
  },
  widget: {
    name: ['sid', 'name'],
    list: ['sid', 'name', 'description', 'price', 'addable_at_readonly', 'kind', 'icon', 'notes', 'usecase', 'documentation_url',
      'allow_multiple', 'is_readonly', 'is_public', 'is_builtin', 'change_permission'],
    detail: ['sid', 'name', 'description', 'price', 'addable_at_readonly', 'kind', 'icon', 'notes', 'usecase', 'documentation_url',
      'allow_multiple', 'is_readonly', 'is_public', 'is_builtin', 'date_created', 'date_updated', 'change_permission'],
  },
  column: {
    name: ['sid', 'name'],
    list: ['sid', 'name', 'order', 'table', 'widget', 'description', 'default_value', 'is_required', 'is_hidden', 'is_archived',
      'name_system', 'change_permission'],
    detail: ['sid', 'name', 'order', 'table', 'widget', 'description', 'default_value', 'is_required', 'is_hidden', 'is_archived',
      'name_system', 'change_permission', 'metadata', 'settings', 'date_created', 'date_updated'],
  },
} as const;

type Resource = keyof typeof KEYS;

/** The record has exactly the keys of its shape, with sids, timestamps, refs and money in their forms. */
function assertRecord(record: any, resource: Resource, serializer: Serializer, context = '') {
  assertKeys(record, KEYS[resource][serializer], `${context} ${resource}.${serializer}`);
  assert.match(record.sid, SID_RE, `${context}: sid`);
  if ((KEYS[resource][serializer] as readonly string[]).includes('name')) assert.equal(typeof record.name, 'string', `${context}: name`);
  if (serializer !== 'name') assert.equal(typeof record.change_permission, 'boolean', `${context}: change_permission`);
  if (serializer === 'detail') {
    assert.ok(isTimestamp(record.date_created) && isTimestamp(record.date_updated), `${context}: timestamps ${record.date_created} ${record.date_updated}`);
  }
  for (const ref of ['personnel', 'table', 'project']) {
    if (ref in record) assert.ok(isRef(record[ref]), `${context}: ${ref} is {sid, name}: ${JSON.stringify(record[ref])}`);
  }
  // A column's widget also carries its documentation_url (Labii's).
  if ('widget' in record) {
    const { documentation_url: url, ...ref } = record.widget;
    assert.ok(isRef(ref) && typeof url === 'string', `${context}: widget is {sid, name, documentation_url}: ${JSON.stringify(record.widget)}`);
  }
  if ('price' in record) assert.match(record.price, MONEY_RE, `${context}: price`);
}

/** A 200 page whose results all have the resource's shape; returns it. */
function page(res: Answer, resource: Resource, serializer: Serializer, context = '') {
  const body = assertPage(res, undefined, context);
  body.results.forEach((r, i) => assertRecord(r, resource, serializer, `${context} results[${i}]`));
  return body;
}

const sids = (body: { results: { sid: string }[] }) => body.results.map((r) => r.sid);

async function created(res: Answer, resource: Resource, context: string) {
  expectStatus(res, 201, context);
  assertRecord(res.json, resource, 'detail', context);
  return res.json;
}

// ------------------------------------------------------------------ setup --

let admin: TestMember;
let org: { sid: string; name: string };
let member: TestMember; // a Member of the organization
let viewer: TestMember; // a Member who is Project View on `project`
let outsider: TestMember; // Admin of another organization
let otherOrg: { sid: string; name: string };
let project: any;

before(async () => {
  ({ admin, org } = await newOrganization('rsadmin'));
  member = await addMember(admin, org, {}, 'rsmember');
  viewer = await addMember(admin, org, {}, 'rsviewer');
  ({ admin: outsider, org: otherOrg } = await newOrganization('rsoutsider'));
  project = await created(await admin.api.post(projectList(org.sid), { name: `Project ${unique('p')}`, description: 'first' }), 'project', 'project');
  await created(await admin.api.post(memberList(project.sid), { personnel: viewer.personnel.sid, permission: 'view' }), 'member', 'viewer');
});

// --------------------------------------------------------------- projects --

describe('projects', () => {
  test('an Admin creates a project (201, detail shape, created_by the creator); a Member cannot (403)', async () => {
    assert.equal(project.description, 'first');
    assert.equal(project.created_by, `${admin.first_name} ${admin.last_name}`);
    assert.equal(project.change_permission, true);
    expectForbidden(await member.api.post(projectList(org.sid), { name: 'nope' }), 'Member POST');
    const short = await admin.api.post(projectList(org.sid, 'name'), { name: `P ${unique('n')}` });
    expectStatus(short, 201, 'POST answering the name shape');
    assertRecord(short.json, 'project', 'name');
  });

  test('a project body is validated: name required and not blank, limits, no unknown fields', async () => {
    const post = (body: unknown) => admin.api.post(projectList(org.sid), body);
    expectFieldErrors(await post({}), { name: ['This field is required.'] });
    expectFieldErrors(await post({ name: '' }), { name: ['This field may not be blank.'] });
    expectFieldErrors(await post({ name: 'x'.repeat(256) }), ['name']);
    expectFieldErrors(await post({ name: 'ok', description: 'x'.repeat(10_001) }), ['description']);
    expectFieldErrors(await post({ name: 'ok', owner: 'me' }), { owner: ['Unknown field.'] });
  });

  test('an Admin lists every project; a Member only those where they hold a project role', async () => {
    const hidden = await created(await admin.api.post(projectList(org.sid), { name: `Hidden ${unique('p')}` }), 'project', 'hidden');
    for (const serializer of ['name', 'list', 'detail'] as const) {
      const all = page(await admin.api.get(projectList(org.sid, serializer, { page_size: 100 })), 'project', serializer, `admin ${serializer}`);
      assert.equal(all.add_permission, true);
      assert.ok(sids(all).includes(project.sid) && sids(all).includes(hidden.sid));
    }
    const seen = page(await viewer.api.get(projectList(org.sid, 'list', { page_size: 100 })), 'project', 'list', 'viewer');
    assert.deepEqual(sids(seen), [project.sid]);
    assert.equal(seen.add_permission, false);
    assert.equal(seen.results[0].change_permission, false, 'Project View cannot change the project');
    const none = page(await member.api.get(projectList(org.sid, 'list')), 'project', 'list', 'member without roles');
    assert.equal(none.count, 0);
  });

  test('detail: 404 outside the organization, 403 without a project role, 200 with one', async () => {
    expectNotFound(await outsider.api.get(projectDetail(project.sid)), 'another organization');
    expectNotFound(await admin.api.get(projectDetail('0000000000000000')), 'unknown sid');
    expectForbidden(await member.api.get(projectDetail(project.sid)), 'Member without a project role');
    const seen = expectStatus(await viewer.api.get(projectDetail(project.sid)), 200, 'Project View');
    assertRecord(seen.json, 'project', 'detail');
    assert.equal(seen.json.change_permission, false);
  });

  test('PATCH by the organization Admin and by a Project Admin; not by Project View; DELETE is 405', async () => {
    const p = await created(await admin.api.post(projectList(org.sid), { name: `Patch ${unique('p')}` }), 'project', 'p');
    const patched = expectStatus(await admin.api.patch(projectDetail(p.sid), { name: 'Renamed' }), 200, 'Admin PATCH');
    assert.equal(patched.json.name, 'Renamed');
    const membership = await created(await admin.api.post(memberList(p.sid), { personnel: member.personnel.sid, permission: 'view' }), 'member', 'add');
    expectForbidden(await member.api.patch(projectDetail(p.sid), { name: 'By viewer' }), 'Project View PATCH');
    expectStatus(await admin.api.patch(memberDetail(membership.sid), { permission: 'admin' }), 200, 'promote');
    const byProjectAdmin = expectStatus(await member.api.patch(projectDetail(p.sid), { description: 'by the Project Admin' }), 200);
    assert.equal(byProjectAdmin.json.description, 'by the Project Admin');
    assert.equal(byProjectAdmin.json.change_permission, true);
    expectNotFound(await outsider.api.patch(projectDetail(p.sid), { name: 'x' }), 'outsider PATCH');
    expectMethodNotAllowed(await admin.api.delete(projectDetail(p.sid)), ['GET', 'PATCH']);
  });
});

// -------------------------------------------------------- project members --

describe('project members', () => {
  test('listed by the organization Admin and any project member, in the three shapes', async () => {
    for (const [who, api] of [['admin', admin.api], ['viewer', viewer.api]] as const) {
      for (const serializer of ['name', 'list', 'detail'] as const) {
        const body = page(await api.get(memberList(project.sid, serializer)), 'member', serializer, `${who} ${serializer}`);
        assert.equal(body.add_permission, who === 'admin');
        const mine = body.results.find((r) => (serializer === 'name' ? r.name === `${viewer.first_name} ${viewer.last_name}` : r.personnel.sid === viewer.personnel.sid));
        assert.ok(mine, `${who} sees the viewer's membership`);
      }
    }
    expectForbidden(await member.api.get(memberList(project.sid, 'list')), 'a Member without a role in the project');
    expectForbidden(await outsider.api.get(memberList(project.sid, 'list')), 'another organization');
    expectPlainText(await admin.api.get(memberList('0000000000000000', 'list')), 406, MESSAGES.wrongId);
    expectPlainText(await admin.api.get(list('projects', 'member')(project.sid, 'list', undefined, 'table')), 406, MESSAGES.wrongLevel);
  });

  test('adding: the same personnel twice, another organization\'s personnel and unknown sids are field errors', async () => {
    const p = await created(await admin.api.post(projectList(org.sid), { name: `Members ${unique('p')}` }), 'project', 'p');
    const first = await created(await admin.api.post(memberList(p.sid), { personnel: member.personnel.sid, permission: 'edit' }), 'member', 'add');
    assert.deepEqual(first.personnel, { sid: member.personnel.sid, name: `${member.first_name} ${member.last_name}` });
    assert.equal(first.permission, 'edit');
    expectFieldErrors(await admin.api.post(memberList(p.sid), { personnel: member.personnel.sid, permission: 'view' }),
      { personnel: [`${member.first_name} ${member.last_name} is already a member of this project.`] });
    const foreign = await admin.api.post(memberList(p.sid), { personnel: outsider.personnel.sid, permission: 'view' });
    expectFieldErrors(foreign, ['personnel']);
    assert.ok(!foreign.text.includes(outsider.first_name) && !foreign.text.includes(outsider.email), 'nothing about the other organization');
    expectFieldErrors(await admin.api.post(memberList(p.sid), { personnel: 'not-a-sid', permission: 'view' }), ['personnel']);
    expectFieldErrors(await admin.api.post(memberList(p.sid), { personnel: admin.personnel.sid, permission: 'owner' }), ['permission']);
    expectFieldErrors(await admin.api.post(memberList(p.sid), { personnel: admin.personnel.sid }), { permission: ['This field is required.'] });
  });

  test('managed by the organization Admin and Project Admins only; DELETE answers {}', async () => {
    const p = await created(await admin.api.post(projectList(org.sid), { name: `Managed ${unique('p')}` }), 'project', 'p');
    const m = await created(await admin.api.post(memberList(p.sid), { personnel: member.personnel.sid, permission: 'view' }), 'member', 'member');
    expectForbidden(await member.api.post(memberList(p.sid), { personnel: viewer.personnel.sid, permission: 'view' }), 'Project View adds');
    expectForbidden(await member.api.patch(memberDetail(m.sid), { permission: 'admin' }), 'Project View promotes themself');
    expectForbidden(await member.api.delete(memberDetail(m.sid)), 'Project View removes');
    expectStatus(await admin.api.patch(memberDetail(m.sid), { permission: 'admin' }), 200);
    const added = await created(await member.api.post(memberList(p.sid), { personnel: viewer.personnel.sid, permission: 'view' }), 'member', 'by a Project Admin');
    expectFieldErrors(await member.api.patch(memberDetail(added.sid), { personnel: admin.personnel.sid, permission: 'view' }),
      { personnel: ['Unknown field.'] });
    expectNotFound(await outsider.api.get(memberDetail(added.sid)), 'another organization');
    const gone = expectStatus(await member.api.delete(memberDetail(added.sid)), 200, 'DELETE');
    assert.deepEqual(gone.json, {});
    expectNotFound(await admin.api.get(memberDetail(added.sid)), 'after DELETE');
    expectMethodNotAllowed(await admin.api.put(memberDetail(m.sid), {}), ['GET', 'PATCH', 'DELETE']);
  });
});

// ----------------------------------------------------------------- tables --

describe('tables, widgets and columns', () => {
  let table: any;
  let widget: any;

  before(async () => {
    table = await created(await admin.api.post(tableList(org.sid), { name: `Table ${unique('t')}`, description: 'samples' }), 'table', 'table');
    widget = await created(await admin.api.post(widgetList(org.sid), { name: `Widget ${unique('w')}`, description: 'w', price: '0.5', addable_at_readonly: true }), 'widget', 'widget');
  });

  test('tables: an Admin creates and changes them; every member reads them; outsiders get 404', async () => {
    assert.deepEqual(table.columns, []);
    expectForbidden(await member.api.post(tableList(org.sid), { name: 'nope' }), 'Member POST');
    for (const serializer of ['name', 'list', 'detail'] as const) {
      const body = page(await member.api.get(tableList(org.sid, serializer, { page_size: 100 })), 'table', serializer, serializer);
      assert.equal(body.add_permission, false);
      assert.ok(sids(body).includes(table.sid));
    }
    expectForbidden(await member.api.patch(tableDetail(table.sid), { name: 'x' }), 'Member PATCH');
    const patched = expectStatus(await admin.api.patch(tableDetail(table.sid), { description: 'changed' }), 200);
    assert.equal(patched.json.description, 'changed');
    expectNotFound(await outsider.api.get(tableDetail(table.sid)), 'outsider');
    expectMethodNotAllowed(await admin.api.delete(tableDetail(table.sid)), ['GET', 'PATCH']);
  });

  test('widgets: the built-in ones are listed, read-only, with the organization\'s own', async () => {
    assert.equal(widget.price, '$0.50');
    assert.equal(widget.kind, 'text');
    assert.equal(widget.is_builtin, false);
    const body = page(await member.api.get(widgetList(org.sid, 'list', { page_size: 100 })), 'widget', 'list', 'list');
    const builtin = body.results.find((w) => w.sid === 'builtinWidgetTxt');
    assert.ok(builtin, 'the built-in text widget is listed');
    assert.equal(builtin.is_builtin, true);
    assert.equal(builtin.change_permission, false);
    assert.ok(sids(body).includes(widget.sid));
    const theirs = await created(await outsider.api.post(widgetList(otherOrg.sid), { name: 'Theirs' }), 'widget', 'theirs');
    assert.ok(!sids(body).includes(theirs.sid), 'another organization\'s widget is not listed');
    expectForbidden(await admin.api.patch(widgetDetail('builtinWidgetTxt'), { name: 'Mine' }), 'PATCH a built-in widget');
    expectStatus(await outsider.api.get(widgetDetail('builtinWidgetTxt')), 200, 'anyone reads a built-in widget');
    expectNotFound(await outsider.api.get(widgetDetail(widget.sid)), 'outsider');
    expectForbidden(await member.api.post(widgetList(org.sid), { name: 'nope' }), 'Member POST');
    const patched = expectStatus(await admin.api.patch(widgetDetail(widget.sid), { price: '12.25', kind: 'signature' }), 200);
    assert.equal(patched.json.price, '$12.25');
    assert.equal(patched.json.kind, 'signature');
  });

  test('widget prices are exact decimal strings: at least 0, at most 2 decimals and 10 digits', async () => {
    const post = (price: unknown) => admin.api.post(widgetList(org.sid), { name: `Priced ${unique('w')}`, price });
    for (const bad of ['-1', '0.123', '12345678901', '1e3', '', 'abc']) expectFieldErrors(await post(bad), ['price'], `price ${bad}`);
    expectFieldErrors(await post(0.5), ['price'], 'a JSON number');
    const max = await created(await post('9999999999.99'), 'widget', 'the largest price');
    assert.equal(max.price, '$9999999999.99');
    expectFieldErrors(await admin.api.post(widgetList(org.sid), { name: 'k', kind: 'rocket' }), ['kind']);
  });

  test('columns: table__sid is required and must be a table of the organization; the widget too', async () => {
    const post = (query: Query | undefined, body: unknown) => admin.api.post(columnList(org.sid, 'detail', query), body);
    expectFieldErrors(await post(undefined, { name: 'c', widget: widget.sid }), { table__sid: ['This query parameter is required.'] });
    const theirTable = await created(await outsider.api.post(tableList(otherOrg.sid), { name: `Secret ${unique('t')}` }), 'table', 'theirs');
    const foreign = await post({ table__sid: theirTable.sid }, { name: 'c', widget: widget.sid });
    expectFieldErrors(foreign, ['table__sid']);
    assert.ok(!foreign.text.includes(theirTable.name), 'nothing about the other organization\'s table');
    expectFieldErrors(await post({ table__sid: 'nonsense' }, { name: 'c', widget: widget.sid }), ['table__sid']);
    const theirWidget = await created(await outsider.api.post(widgetList(otherOrg.sid), { name: 'Theirs' }), 'widget', 'their widget');
    expectFieldErrors(await post({ table__sid: table.sid }, { name: 'c', widget: theirWidget.sid }), ['widget']);
    expectFieldErrors(await post({ table__sid: table.sid }, { name: 'c', widget: widget.sid, order: -1 }), ['order']);
    expectForbidden(await member.api.post(columnList(org.sid, 'detail', { table__sid: table.sid }), { name: 'c', widget: widget.sid }), 'Member POST');
    expectFieldErrors(await member.api.get(columnList(org.sid, 'list', { table__sid: theirTable.sid })), ['table__sid'], 'GET filter');
  });

  test('columns: default order after the last; listed by order; the table detail carries them', async () => {
    const t = await created(await admin.api.post(tableList(org.sid), { name: `Ordered ${unique('t')}` }), 'table', 'table');
    const add = async (body: Record<string, unknown>) =>
      created(await admin.api.post(columnList(org.sid, 'detail', { table__sid: t.sid }), body), 'column', 'column');
    const a = await add({ name: 'A', widget: widget.sid });
    const b = await add({ name: 'B', widget: 'builtinWidgetTxt' });
    const c = await add({ name: 'C', widget: widget.sid, order: 10 });
    const d = await add({ name: 'D', widget: widget.sid });
    assert.deepEqual([a.order, b.order, c.order, d.order], [0, 1, 10, 11]);
    assert.deepEqual(a.table, { sid: t.sid, name: t.name });
    assert.deepEqual(b.widget, { sid: 'builtinWidgetTxt', name: 'Text', documentation_url: '' });
    expectStatus(await admin.api.patch(columnDetail(a.sid), { order: 20, name: 'A last' }), 200);
    expectFieldErrors(await admin.api.patch(columnDetail(a.sid), { widget: 'builtinWidgetTxt' }), { widget: ['Unknown field.'] });
    expectForbidden(await member.api.patch(columnDetail(a.sid), { name: 'x' }), 'Member PATCH');
    for (const serializer of ['name', 'list', 'detail'] as const) {
      const body = page(await member.api.get(columnList(org.sid, serializer, { table__sid: t.sid })), 'column', serializer, serializer);
      assert.deepEqual(sids(body), [b.sid, c.sid, d.sid, a.sid], `${serializer}: by order`);
    }
    const shown = expectStatus(await member.api.get(tableDetail(t.sid)), 200).json;
    assert.deepEqual(shown.columns.map((col: any) => [col.name, col.order]), [['B', 1], ['C', 10], ['D', 11], ['A last', 20]]);
    for (const col of shown.columns) assertKeys(col, ['sid', 'name', 'order', 'widget'], 'a table\'s column');
    const listed = page(await member.api.get(tableList(org.sid, 'detail', { page_size: 100 })), 'table', 'detail', 'tables');
    assert.deepEqual(listed.results.find((r) => r.sid === t.sid).columns, shown.columns, 'the list carries the same columns');
    expectNotFound(await outsider.api.get(columnDetail(a.sid)), 'outsider');
  });
});

// ----------------------------------------------------------------- alumni --

describe('a former member (Alumni)', () => {
  test('gets 403 on the records of their former organization', async () => {
    const alum = await addMember(admin, org, {}, 'rsalum');
    const t = await created(await admin.api.post(tableList(org.sid), { name: `Alum ${unique('t')}` }), 'table', 'table');
    const col = await created(await admin.api.post(columnList(org.sid, 'detail', { table__sid: t.sid }), { name: 'c', widget: 'builtinWidgetTxt' }), 'column', 'column');
    const m = await created(await admin.api.post(memberList(project.sid), { personnel: alum.personnel.sid, permission: 'edit' }), 'member', 'member');
    expectStatus(await admin.api.patch(`/organizations/personnel/detail/${alum.personnel.sid}/`, { is_archived: 'true' }), 200, 'archive');
    const api: Api = alum.api;
    expectForbidden(await api.get(projectDetail(project.sid)), 'project');
    expectForbidden(await api.get(memberDetail(m.sid)), 'membership');
    expectForbidden(await api.get(tableDetail(t.sid)), 'table');
    expectForbidden(await api.get(columnDetail(col.sid)), 'column');
    expectForbidden(await api.get(projectList(org.sid, 'list')), 'project list');
    expectForbidden(await api.get(memberList(project.sid, 'list')), 'member list');
  });
});

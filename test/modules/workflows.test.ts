// Workflows, steps and their executions (spec: Workflow, Step; docs/workflows.md). Every
// endpoint for Admin, Member, Alumni, an outsider (another organization's Admin) and no
// token; a three-step workflow run end to end (set a cell, wait for an event, lock the
// row) with its versions and log; failing steps that leave the row as it was; bad input;
// concurrent triggers that must not run a step twice.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeAnswer, withQuery, type Answer, type Query } from '../helpers/http.ts';
import {
  SID_RE, TIMESTAMP_RE, assertKeys, assertPage, expectDetail, expectFieldErrors,
  expectForbidden, expectMethodNotAllowed, expectNotAuthenticated, expectNotFound, expectStatus,
} from '../helpers/assertions.ts';
import { unique, type Serializer, type TestMember } from '../helpers/factories.ts';
import {
  assertIntactChain, assertRowUnchanged, foreignRecords, listVersions, newWorkspace, readCredits, readRow, recordPaths, snapshotRow,
  verifyRow, type Workspace,
} from '../helpers/records.ts';
import { readMail } from '../helpers/mail.ts';
import { openEventStream } from '../helpers/notifications.ts';

// ------------------------------------------------------------------ paths --

const list = (model: string, orgSid: string, serializer: Serializer = 'detail', query?: Query) =>
  withQuery(`/tables/${model}/list/organization/${orgSid}/${serializer}/`, query);
const detail = (model: string, sid: string, query?: Query) => withQuery(`/tables/${model}/detail/${sid}/`, query);
const workflowList = (orgSid: string, serializer: Serializer = 'detail', query?: Query) => list('workflow', orgSid, serializer, query);
const stepList = (orgSid: string, serializer: Serializer = 'detail', query?: Query) => list('step', orgSid, serializer, query);
const executionList = (orgSid: string, serializer: Serializer = 'detail', query?: Query) => list('execution', orgSid, serializer, query);

const BUILTIN = { text: 'builtinWidgetTxt', notify: 'builtinWidgetNtf', setCell: 'builtinWidgetSet', lockRow: 'builtinWidgetLck', waitEvent: 'builtinWidgetWai' };

// ----------------------------------------------------------------- shapes --

const WORKFLOW_LIST_KEYS = ['sid', 'name', 'description', 'parent', 'table', 'is_archived', 'number_of_steps', 'change_permission'];
const WORKFLOW_DETAIL_KEYS = [...WORKFLOW_LIST_KEYS, 'steps', 'created_by', 'date_created', 'date_updated'];
const STEP_LIST_KEYS = ['sid', 'name', 'workflow', 'widget', 'kind', 'order', 'parent', 'redirect_to', 'color', 'change_permission'];
const STEP_DETAIL_KEYS = [...STEP_LIST_KEYS, 'description', 'data', 'date_created', 'date_updated'];
const EXECUTION_LIST_KEYS = ['sid', 'name', 'workflow', 'row', 'status', 'current_step', 'waiting_for', 'error', 'started_by',
  'date_created', 'date_updated', 'change_permission'];
const EXECUTION_DETAIL_KEYS = [...EXECUTION_LIST_KEYS, 'variables', 'data', 'log'];
const KEYS: Record<string, Record<Serializer, string[]>> = {
  workflow: { name: ['sid', 'name'], list: WORKFLOW_LIST_KEYS, detail: WORKFLOW_DETAIL_KEYS },
  step: { name: ['sid', 'name'], list: STEP_LIST_KEYS, detail: STEP_DETAIL_KEYS },
  execution: { name: ['sid', 'name'], list: EXECUTION_LIST_KEYS, detail: EXECUTION_DETAIL_KEYS },
};

function assertRecord(record: any, model: 'workflow' | 'step' | 'execution', serializer: Serializer, context = '') {
  assertKeys(record, KEYS[model][serializer], `${context} ${model}.${serializer}`);
  assert.match(record.sid, SID_RE);
  for (const key of ['date_created', 'date_updated']) if (key in record) assert.match(record[key], TIMESTAMP_RE, `${context} ${key}`);
}

// -------------------------------------------------------------- factories --

interface World {
  ws: Workspace;
  org: { sid: string; name: string };
  /** The organization's creator: an org Admin without a project role (steps act with the workflow's authority). */
  admin: TestMember;
  /** A Member with the Project View role in the project of the rows. */
  member: TestMember;
  /** A Member without any project role. */
  stranger: TestMember;
  alumni: TestMember;
  outsider: TestMember;
  otherOrg: { sid: string; name: string };
  table: any;
  otherTable: any;
  /** Widget of price 0.10 for the Result column; the Note column is the free built-in text widget. */
  paidWidget: any;
  result: any;
  note: any;
}

async function created(res: Answer, context: string) {
  expectStatus(res, 201, context);
  return res.json;
}

async function makeWorld(): Promise<World> {
  const ws = await newWorkspace({ label: 'wf', widgets: { paid: { price: '0.10' } }, columns: {}, rows: 0 });
  const { admin, org, table } = ws;
  const otherTable = await created(await admin.api.post(recordPaths.tableList(org.sid), { name: `T2 ${unique('t')}` }), 'table');
  const column = async (name: string, widget: string, order: number) =>
    created(await admin.api.post(recordPaths.columnList(org.sid, 'detail', { table__sid: table.sid }), { name, widget, order }), `column ${name}`);
  const result = await column('Result', ws.widgets.paid.sid, 1);
  const note = await column('Note', BUILTIN.text, 2);
  return {
    ws, org, admin, member: ws.projectView, stranger: ws.member, alumni: ws.alumni, outsider: ws.outsider, otherOrg: ws.outsiderOrg,
    table, otherTable, paidWidget: ws.widgets.paid, result, note,
  };
}

/** A row of the table (or `table`), created by the Project Admin. */
async function newRow(w: World, table = w.table) {
  return created(await w.ws.projectAdmin.api.post(recordPaths.rowList(w.org.sid, 'detail', { table__sid: table.sid, project__sid: w.ws.project.sid }),
    { name: `Row ${unique('r')}` }), 'row');
}

async function newWorkflow(w: World, query?: Query, name = `Workflow ${unique('wf')}`) {
  return created(await w.admin.api.post(workflowList(w.org.sid, 'detail', query), { name, description: 'test workflow' }), 'workflow');
}

async function newStep(w: World, workflowSid: string, body: Record<string, unknown>) {
  return created(await w.admin.api.post(stepList(w.org.sid), { name: `Step ${unique('s')}`, workflow: workflowSid, ...body }), 'step');
}

function trigger(api: TestMember['api'], workflowSid: string, query: Query, body: unknown = {}) {
  return api.patch(detail('workflow', workflowSid, query), body);
}

const getRow = (w: World, sid: string) => readRow(w.admin.api, sid);
const credits = (w: World) => readCredits(w.admin.api, w.org.sid);

async function versionsOf(w: World, rowSid: string) {
  const versions = (await listVersions(w.admin.api, w.org.sid, rowSid)).sort((a: any, b: any) => a.version - b.version);
  assertIntactChain(versions, `versions of ${rowSid}`);
  return versions;
}

const cellOf = (row: any, column: any) => row.cells.find((c: any) => c.column.sid === column.sid)?.data;
const events = (execution: any) => execution.log.map((e: any) => `${e.event}/${e.status}`);

// ------------------------------------------------------------------ tests --

describe('workflows', () => {
  let w: World;
  before(async () => {
    w = await makeWorld();
  });

  test('POST by Admin: 201 in each shape; parent, table__sid; defaults', async () => {
    const res = await w.admin.api.post(workflowList(w.org.sid, 'detail', { table__sid: w.table.sid }), { name: 'Review', description: 'd', parent: 7 });
    expectStatus(res, 201);
    assertRecord(res.json, 'workflow', 'detail');
    assert.deepEqual(
      { ...res.json, sid: undefined, date_created: undefined, date_updated: undefined },
      {
        sid: undefined, name: 'Review', description: 'd', parent: 7, table: { sid: w.table.sid, name: w.table.name }, is_archived: false, number_of_steps: 0,
        change_permission: true, steps: [], created_by: `${w.admin.first_name} ${w.admin.last_name}`, date_created: undefined, date_updated: undefined,
      },
    );
    for (const serializer of ['name', 'list'] as const) {
      const answer = expectStatus(await w.admin.api.post(workflowList(w.org.sid, serializer), { name: `Other ${serializer}` }), 201);
      assertRecord(answer.json, 'workflow', serializer);
    }
    const plain = expectStatus(await w.admin.api.post(workflowList(w.org.sid), { name: 'No table' }), 201).json;
    assert.equal(plain.table, null);
    assert.equal(plain.parent, null);
    assert.equal(plain.description, '');
  });

  test('POST refused: Member, Alumni, outsider 403; no token 401; nothing is created', async () => {
    const name = `Refused ${unique('wf')}`;
    for (const [who, caller] of [['Member', w.member], ['Alumni', w.alumni], ['outsider', w.outsider]] as const) {
      expectForbidden(await caller.api.post(workflowList(w.org.sid), { name }), who);
    }
    expectNotAuthenticated(await anonymous.post(workflowList(w.org.sid), { name }));
    const page = assertPage(await w.admin.api.get(workflowList(w.org.sid, 'name', { page_size: 100 })));
    assert.ok(!page.results.some((r) => r.name === name));
  });

  test('POST bad input: 400 field errors', async () => {
    expectFieldErrors(await w.admin.api.post(workflowList(w.org.sid), { description: 'x' }), ['name']);
    expectFieldErrors(await w.admin.api.post(workflowList(w.org.sid), { name: '' }), ['name']);
    expectFieldErrors(await w.admin.api.post(workflowList(w.org.sid), { name: 'x', colour: 'red' }), ['colour']);
    expectFieldErrors(await w.admin.api.post(workflowList(w.org.sid), { name: 'x', parent: 'one' }), ['parent']);
    expectFieldErrors(await w.admin.api.post(workflowList(w.org.sid), { name: 'x', parent: 3_000_000_000 }), ['parent']);
    const foreign = (await foreignRecords(w.ws)).table;
    expectFieldErrors(await w.admin.api.post(workflowList(w.org.sid, 'detail', { table__sid: foreign.sid }), { name: 'x' }), ['table__sid']);
    expectFieldErrors(await w.admin.api.post(workflowList(w.org.sid, 'detail', { table__sid: 'nonsense' }), { name: 'x' }), ['table__sid']);
  });

  test('GET list: Admin and Member in each shape (add_permission, change_permission); table__sid filters; others refused', async () => {
    const forTable = await newWorkflow(w, { table__sid: w.otherTable.sid });
    const general = await newWorkflow(w);
    const step = await newStep(w, general.sid, { widget: BUILTIN.text });
    for (const [caller, canWrite] of [[w.admin, true], [w.member, false]] as const) {
      for (const serializer of ['name', 'list', 'detail'] as const) {
        const page = assertPage(await caller.api.get(workflowList(w.org.sid, serializer, { page_size: 100 })));
        assert.equal(page.add_permission, canWrite);
        page.results.forEach((r) => assertRecord(r, 'workflow', serializer));
        if (serializer !== 'name') assert.ok(page.results.every((r) => r.change_permission === canWrite));
        if (serializer === 'detail') {
          assert.deepEqual(page.results.find((r) => r.sid === general.sid).steps,
            [{ sid: step.sid, name: step.name, order: 1, widget: { sid: BUILTIN.text, name: 'Text' }, kind: 'text' }]);
        }
      }
      const filtered = assertPage(await caller.api.get(workflowList(w.org.sid, 'name', { table__sid: w.otherTable.sid, page_size: 100 })));
      assert.deepEqual(filtered.results.map((r) => r.sid), [forTable.sid], 'table__sid keeps only the workflows of that table');
    }
    expectForbidden(await w.alumni.api.get(workflowList(w.org.sid)));
    expectForbidden(await w.outsider.api.get(workflowList(w.org.sid)));
    expectNotAuthenticated(await anonymous.get(workflowList(w.org.sid)));
    expectFieldErrors(await w.admin.api.get(workflowList(w.org.sid, 'list', { table__sid: 'AAAAAAAAAAAAAAAA' })), ['table__sid']);
  });

  test('GET detail: Admin and Member; Alumni 403; outsider and unknown sid 404; no token 401', async () => {
    const wf = await newWorkflow(w);
    for (const [caller, canChange] of [[w.admin, true], [w.member, false]] as const) {
      const res = expectStatus(await caller.api.get(detail('workflow', wf.sid)), 200);
      assertRecord(res.json, 'workflow', 'detail');
      assert.equal(res.json.change_permission, canChange);
    }
    expectForbidden(await w.alumni.api.get(detail('workflow', wf.sid)));
    expectNotFound(await w.outsider.api.get(detail('workflow', wf.sid)));
    expectNotFound(await w.admin.api.get(detail('workflow', 'AAAAAAAAAAAAAAAA')));
    expectNotAuthenticated(await anonymous.get(detail('workflow', wf.sid)));
    expectMethodNotAllowed(await w.admin.api.put(detail('workflow', wf.sid), { name: 'x' }), ['GET', 'PATCH', 'DELETE']);
  });

  test('PATCH: Admin changes name, description, parent and is_archived; others refused and nothing changes', async () => {
    const wf = await newWorkflow(w);
    const res = expectStatus(await w.admin.api.patch(detail('workflow', wf.sid), { name: 'Renamed', description: 'new', parent: 3 }), 200);
    assertRecord(res.json, 'workflow', 'detail');
    assert.deepEqual([res.json.name, res.json.description, res.json.parent], ['Renamed', 'new', 3]);
    assert.equal(expectStatus(await w.admin.api.patch(detail('workflow', wf.sid), { is_archived: true }), 200).json.is_archived, true);
    assert.equal(expectStatus(await w.member.api.get(detail('workflow', wf.sid)), 200).json.is_archived, true);
    assert.equal(expectStatus(await w.admin.api.patch(detail('workflow', wf.sid), { is_archived: false }), 200).json.is_archived, false);
    for (const body of [{ name: 'hijacked' }, { is_archived: true }]) {
      expectForbidden(await w.member.api.patch(detail('workflow', wf.sid), body));
      expectForbidden(await w.alumni.api.patch(detail('workflow', wf.sid), body));
      expectNotFound(await w.outsider.api.patch(detail('workflow', wf.sid), body));
      expectNotAuthenticated(await anonymous.patch(detail('workflow', wf.sid), body));
    }
    const after = expectStatus(await w.admin.api.get(detail('workflow', wf.sid)), 200).json;
    assert.deepEqual([after.name, after.is_archived], ['Renamed', false]);
    expectFieldErrors(await w.admin.api.patch(detail('workflow', wf.sid), { is_archived: 'yes' }), ['is_archived']);
    expectFieldErrors(await w.admin.api.patch(detail('workflow', wf.sid), { steps: [] }), ['steps']);
  });

  test('DELETE: Member, Alumni 403, outsider 404, no token 401; Admin deletes it with its steps', async () => {
    const wf = await newWorkflow(w);
    const step = await newStep(w, wf.sid, { widget: BUILTIN.text });
    expectForbidden(await w.member.api.delete(detail('workflow', wf.sid)));
    expectForbidden(await w.alumni.api.delete(detail('workflow', wf.sid)));
    expectNotFound(await w.outsider.api.delete(detail('workflow', wf.sid)));
    expectNotAuthenticated(await anonymous.delete(detail('workflow', wf.sid)));
    expectStatus(await w.admin.api.get(detail('workflow', wf.sid)), 200);
    const res = expectStatus(await w.admin.api.delete(detail('workflow', wf.sid)), 200);
    assert.deepEqual(res.json, {});
    expectNotFound(await w.admin.api.get(detail('workflow', wf.sid)));
    expectNotFound(await w.admin.api.get(detail('step', step.sid)));
  });
});

describe('steps', () => {
  let w: World;
  let wf: any;
  before(async () => {
    w = await makeWorld();
    wf = await newWorkflow(w);
  });

  test('POST by Admin: 201 in each shape; the widget from the body or widget__sid', async () => {
    const body = { name: 'Set result', description: 'sets it', workflow: wf.sid, widget: BUILTIN.setCell, order: 1, data: { column: 'Result', value: '{{variables.x}}' } };
    const res = expectStatus(await w.admin.api.post(stepList(w.org.sid), body), 201);
    assertRecord(res.json, 'step', 'detail');
    assert.deepEqual({ ...res.json, sid: undefined, date_created: undefined, date_updated: undefined }, {
      sid: undefined, name: 'Set result', description: 'sets it', workflow: { sid: wf.sid, name: wf.name }, widget: { sid: BUILTIN.setCell, name: 'Set cell' },
      kind: 'set_cell', order: 1, data: { column: 'Result', value: '{{variables.x}}' }, parent: null, redirect_to: null, color: '',
      change_permission: true, date_created: undefined, date_updated: undefined,
    });
    const viaQuery = expectStatus(await w.admin.api.post(stepList(w.org.sid, 'list', { widget__sid: w.paidWidget.sid }), { name: 'q', workflow: wf.sid }), 201);
    assertRecord(viaQuery.json, 'step', 'list');
    assert.deepEqual(viaQuery.json.widget, { sid: w.paidWidget.sid, name: w.paidWidget.name });
    assert.equal(viaQuery.json.order, 2);
    assertRecord(expectStatus(await w.admin.api.post(stepList(w.org.sid, 'name'), { name: 'n', workflow: wf.sid, widget: BUILTIN.text }), 201).json, 'step', 'name');
  });

  test('POST refused: Member, Alumni, outsider 403; no token 401', async () => {
    const body = { name: 'x', workflow: wf.sid, widget: BUILTIN.text };
    for (const caller of [w.member, w.alumni, w.outsider]) expectForbidden(await caller.api.post(stepList(w.org.sid), body));
    expectNotAuthenticated(await anonymous.post(stepList(w.org.sid), body));
  });

  test('POST bad input: 400 on the field, on data.<setting>, and for widgets and workflows of other organizations', async () => {
    const foreignWorkflow = await created(await w.outsider.api.post(workflowList(w.otherOrg.sid), { name: 'Foreign' }), 'foreign workflow');
    const foreignWidget = await created(await w.outsider.api.post(recordPaths.widgetList(w.otherOrg.sid), { name: 'Foreign' }), 'foreign widget');
    const post = (body: Record<string, unknown>, query?: Query) => w.admin.api.post(stepList(w.org.sid, 'detail', query), { name: 'Bad', workflow: wf.sid, ...body });
    expectFieldErrors(await post({ widget: BUILTIN.text, workflow: foreignWorkflow.sid }), ['workflow']);
    expectFieldErrors(await post({ widget: foreignWidget.sid }), ['widget']);
    expectFieldErrors(await post({}), ['widget']);
    expectFieldErrors(await post({ widget: BUILTIN.text }, { widget__sid: BUILTIN.notify }), ['widget']);
    expectFieldErrors(await post({ widget: BUILTIN.text, order: 0 }), ['order']);
    expectFieldErrors(await post({ widget: BUILTIN.text, data: 'x' }), ['data']);
    expectFieldErrors(await post({ widget: BUILTIN.text, colour: 1 }), ['colour']);
    expectFieldErrors(await post({ widget: BUILTIN.setCell, data: { colum: 'Result' } }), ['data.colum', 'data.column', 'data.value']);
    expectFieldErrors(await post({ widget: BUILTIN.notify, data: { to: 5, name: '' } }), ['data.to', 'data.name']);
    expectFieldErrors(await post({ widget: BUILTIN.waitEvent, data: {} }), { 'data.event': ['This setting is required.'] });
    expectFieldErrors(await post({ widget: BUILTIN.lockRow, data: { now: true } }), ['data.now']);
  });

  test('GET list: Admin and Member in each shape; widget__sid and workflow__sid filter; others refused', async () => {
    const other = await newWorkflow(w);
    const a = await newStep(w, other.sid, { widget: BUILTIN.lockRow });
    const b = await newStep(w, other.sid, { widget: BUILTIN.waitEvent, data: { event: 'go' }, order: 1 });
    for (const [caller, canWrite] of [[w.admin, true], [w.member, false]] as const) {
      for (const serializer of ['name', 'list', 'detail'] as const) {
        const page = assertPage(await caller.api.get(stepList(w.org.sid, serializer, { page_size: 100 })));
        assert.equal(page.add_permission, canWrite);
        page.results.forEach((r) => assertRecord(r, 'step', serializer));
        if (serializer !== 'name') assert.ok(page.results.every((r) => r.change_permission === canWrite));
      }
      const ofWorkflow = assertPage(await caller.api.get(stepList(w.org.sid, 'list', { workflow__sid: other.sid })));
      assert.deepEqual(ofWorkflow.results.map((s) => [s.sid, s.order]), [[b.sid, 1], [a.sid, 2]], 'workflow__sid: its steps in order');
      const ofWidget = assertPage(await caller.api.get(stepList(w.org.sid, 'name', { widget__sid: BUILTIN.lockRow, page_size: 100 })));
      assert.deepEqual(ofWidget.results.map((s) => s.sid), [a.sid], 'widget__sid: the steps of that widget');
    }
    expectForbidden(await w.alumni.api.get(stepList(w.org.sid)));
    expectForbidden(await w.outsider.api.get(stepList(w.org.sid)));
    expectNotAuthenticated(await anonymous.get(stepList(w.org.sid)));
    expectFieldErrors(await w.admin.api.get(stepList(w.org.sid, 'list', { widget__sid: 'AAAAAAAAAAAAAAAA' })), ['widget__sid']);
    expectFieldErrors(await w.admin.api.get(stepList(w.org.sid, 'list', { workflow__sid: 'AAAAAAAAAAAAAAAA' })), ['workflow__sid']);
  });

  test('GET detail, PATCH and DELETE follow the roles', async () => {
    const other = await newWorkflow(w);
    const step = await newStep(w, other.sid, { widget: BUILTIN.text });
    for (const [caller, canChange] of [[w.admin, true], [w.member, false]] as const) {
      const res = expectStatus(await caller.api.get(detail('step', step.sid)), 200);
      assertRecord(res.json, 'step', 'detail');
      assert.equal(res.json.change_permission, canChange);
    }
    expectForbidden(await w.alumni.api.get(detail('step', step.sid)));
    expectNotFound(await w.outsider.api.get(detail('step', step.sid)));
    expectNotAuthenticated(await anonymous.get(detail('step', step.sid)));
    for (const caller of [w.member, w.alumni]) {
      expectForbidden(await caller.api.patch(detail('step', step.sid), { name: 'hijacked' }));
      expectForbidden(await caller.api.delete(detail('step', step.sid)));
    }
    expectNotFound(await w.outsider.api.patch(detail('step', step.sid), { name: 'hijacked' }));
    expectNotFound(await w.outsider.api.delete(detail('step', step.sid)));
    expectNotAuthenticated(await anonymous.patch(detail('step', step.sid), { name: 'hijacked' }));
    expectNotAuthenticated(await anonymous.delete(detail('step', step.sid)));
    assert.equal(expectStatus(await w.admin.api.get(detail('step', step.sid)), 200).json.name, step.name, 'unchanged');

    const changed = expectStatus(await w.admin.api.patch(detail('step', step.sid), {
      name: 'Notify', description: 'tell them', widget: BUILTIN.notify, data: { to: [w.member.personnel.sid], name: 'Hello' },
    }), 200).json;
    assertRecord(changed, 'step', 'detail');
    assert.deepEqual([changed.name, changed.kind, changed.data], ['Notify', 'notify', { to: [w.member.personnel.sid], name: 'Hello' }]);
    expectFieldErrors(await w.admin.api.patch(detail('step', step.sid), { widget: BUILTIN.setCell }), ['data.to', 'data.name', 'data.column', 'data.value']);
    expectFieldErrors(await w.admin.api.patch(detail('step', step.sid), { workflow: wf.sid }), ['workflow']);
    assert.deepEqual(expectStatus(await w.admin.api.delete(detail('step', step.sid)), 200).json, {});
    expectNotFound(await w.admin.api.get(detail('step', step.sid)));
  });

  test('inserting, moving and deleting steps keeps the orders 1..n, unique', async () => {
    const other = await newWorkflow(w);
    const add = async (name: string, order?: number) => newStep(w, other.sid, { name, widget: BUILTIN.text, ...(order ? { order } : {}) });
    const orders = async () => (expectStatus(await w.admin.api.get(detail('workflow', other.sid)), 200).json.steps as any[]).map((s) => `${s.order}:${s.name}`).join(' ');
    const a = await add('a');
    await add('b');
    const c = await add('c', 1);
    const d = await add('d', 50);
    assert.equal(await orders(), '1:c 2:a 3:b 4:d');
    expectStatus(await w.admin.api.patch(detail('step', c.sid), { order: 3 }), 200);
    assert.equal(await orders(), '1:a 2:b 3:c 4:d');
    expectStatus(await w.admin.api.patch(detail('step', d.sid), { order: 1 }), 200);
    assert.equal(await orders(), '1:d 2:a 3:b 4:c');
    expectStatus(await w.admin.api.patch(detail('step', d.sid), { order: 99 }), 200);
    assert.equal(await orders(), '1:a 2:b 3:c 4:d');
    expectStatus(await w.admin.api.delete(detail('step', a.sid)), 200);
    assert.equal(await orders(), '1:b 2:c 3:d');
    // Concurrent inserts at the same place all land, each at its own order.
    await Promise.all(['e', 'f', 'g'].map((name) => add(name, 1)));
    const after = (await orders()).split(' ');
    assert.deepEqual(after.map((s) => Number(s.split(':')[0])), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(after.slice(3), ['4:b', '5:c', '6:d']);
  });

  test('the detail shape reads steps by their real sizes: large and small settings, every step once, whole, in order', async () => {
    const flow = await newWorkflow(w);
    // 10 steps of about 900 KB of settings and 2 small ones, each added last: 9 MB, three
    // reads of the embedded server's ANSWER_MAX_BYTES (4 MB: four large steps a read), one of
    // PostgreSQL's (10 MB).
    const isLarge = (i: number) => i % 6 !== 5;
    const settings = (i: number) => (isLarge(i) ? { note: `${i}:`.padEnd(900_000, String.fromCharCode(97 + i)) } : { note: `small ${i}` });
    const added: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      added.push(expectStatus(await w.admin.api.post(stepList(w.org.sid, 'name'), { name: `Step ${i}`, workflow: flow.sid, widget: BUILTIN.text, data: settings(i) }), 201).json.sid);
    }
    for (const query of [{ workflow__sid: flow.sid, page_size: 12 }, { widget__sid: BUILTIN.text, page_size: 100 }]) {
      const page = expectStatus(await w.admin.api.get(stepList(w.org.sid, 'detail', query)), 200).json;
      const mine = page.results.filter((step: any) => step.workflow.sid === flow.sid);
      assert.deepEqual(mine.map((step: any) => step.sid), added, `every step once, in order (${Object.keys(query)[0]})`);
      mine.forEach((step: any, i: number) => assert.deepEqual(step.data, settings(i), `the settings of step ${i}`));
      assert.equal(page.results.length, Math.min(page.count, query.page_size));
    }
  });
});

describe('the engine', () => {
  let w: World;
  before(async () => {
    w = await makeWorld();
  });

  /** set Result, wait for "approve", lock the row. */
  async function threeSteps(query?: Query) {
    const wf = await newWorkflow(w, query);
    const set = await newStep(w, wf.sid, { name: 'Set result', widget: BUILTIN.setCell, data: { column: 'Result', value: '{{variables.verdict}} by {{variables.who}} for {{row.name}}' } });
    const wait = await newStep(w, wf.sid, { name: 'Wait for approval', widget: BUILTIN.waitEvent, data: { event: 'approve' } });
    const lock = await newStep(w, wf.sid, { name: 'Lock', widget: BUILTIN.lockRow });
    return { wf, set, wait, lock };
  }

  test('a three-step workflow runs, pauses, resumes on its event and ends with the cell set, the row locked, versions and a complete log', async () => {
    const { wf, set, wait, lock } = await threeSteps({ table__sid: w.table.sid });
    const row = await newRow(w);
    const before = await credits(w);

    // Run: the first step sets the cell, the second pauses.
    const first = expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }, { variables: { verdict: 'Pass', who: 'Ada' }, workflow_data: { batch: 7 } }), 200);
    assertKeys(first.json, [...WORKFLOW_DETAIL_KEYS, 'execution']);
    const execution = first.json.execution;
    assertRecord(execution, 'execution', 'detail');
    assert.equal(execution.status, 'waiting');
    assert.equal(execution.waiting_for, 'approve');
    assert.deepEqual(execution.current_step, { sid: wait.sid, name: wait.name });
    assert.deepEqual(execution.variables, { verdict: 'Pass', who: 'Ada' });
    assert.deepEqual(execution.data, { batch: 7 });
    assert.deepEqual([execution.workflow, execution.row], [{ sid: wf.sid, name: wf.name }, { sid: row.sid, name: row.name }]);
    assert.equal(execution.error, null);
    let current = await getRow(w, row.sid);
    assert.equal(cellOf(current, w.result), `Pass by Ada for ${row.name}`);
    assert.equal(current.is_locked, false, 'not locked before the event');
    assert.equal(current.version, 2);
    assert.notEqual(await credits(w), before, 'the Result widget\'s price was debited');

    // An event the execution does not wait for is only logged.
    const other = expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid, event: 'reject' }), 200).json.execution;
    assert.equal(other.sid, execution.sid, 'the same execution goes on');
    assert.equal(other.status, 'waiting');
    assert.equal((await getRow(w, row.sid)).version, 2);

    // The awaited event resumes it: the row is locked and the execution completes.
    const done = expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid, event: 'approve' }), 200).json.execution;
    assert.equal(done.sid, execution.sid);
    assert.equal(done.status, 'completed');
    assert.equal(done.waiting_for, null);
    assert.deepEqual(done.current_step, { sid: lock.sid, name: lock.name });
    current = await getRow(w, row.sid);
    assert.equal(current.is_locked, true);
    assert.equal(cellOf(current, w.result), `Pass by Ada for ${row.name}`);

    const versions = await versionsOf(w, row.sid);
    assert.deepEqual(versions.map((v: any) => v.version), [1, 2, 3]);
    assert.deepEqual(versions.map((v: any) => v.activity_message), [
      'Created the row',
      `Created the cell of Result (workflow "${wf.name}", step 1)`,
      `Locked the row (workflow "${wf.name}", step 3)`,
    ]);
    const adminName = `${w.admin.first_name} ${w.admin.last_name}`;
    assert.deepEqual(versions.map((v: any) => v.updated_by),
      [`${w.ws.projectAdmin.first_name} ${w.ws.projectAdmin.last_name}`, adminName, adminName], 'the steps\' versions carry the triggering user');
    assert.equal((await verifyRow(w.admin.api, row.sid)).is_valid, true);

    assert.deepEqual(events(done), [
      'started/info', 'updated/info', 'step_completed/ok', 'waiting/info',
      'triggered/info', 'reject/received',
      'triggered/info', 'approve/received', 'resumed/info', 'step_completed/ok', 'completed/ok',
    ]);
    for (const entry of done.log) {
      assertKeys(entry, ['date_created', 'user', 'event', 'status', 'message', 'step']);
      assert.match(entry.date_created, TIMESTAMP_RE);
      assert.deepEqual(entry.user, { sid: w.admin.sid, name: adminName });
    }
    assert.deepEqual(done.log.filter((e: any) => e.step).map((e: any) => e.step.sid), [set.sid, wait.sid, lock.sid]);
    assert.match(done.log[2].message, /Created the cell of Result with "Pass by Ada/);
    assert.match(done.log[5].message, /waits for "approve"/);
  });

  test('executions are read per workflow and per row, by the roles that read the row', async () => {
    const { wf } = await threeSteps();
    const row = await newRow(w);
    const otherRow = await newRow(w);
    const mine = expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }, { variables: { verdict: 'x', who: 'y' } }), 200).json.execution;
    const theirs = expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: otherRow.sid }), 200).json.execution;
    for (const caller of [w.admin, w.member]) {
      for (const serializer of ['name', 'list', 'detail'] as const) {
        const page = assertPage(await caller.api.get(executionList(w.org.sid, serializer, { workflow__sid: wf.sid })));
        assert.deepEqual(page.results.map((e) => e.sid), [mine.sid, theirs.sid]);
        assert.equal(page.add_permission, false);
        page.results.forEach((e) => assertRecord(e, 'execution', serializer));
      }
      const ofRow = assertPage(await caller.api.get(executionList(w.org.sid, 'list', { row__sid: row.sid })));
      assert.deepEqual(ofRow.results.map((e) => e.sid), [mine.sid]);
      const one = expectStatus(await caller.api.get(detail('execution', mine.sid)), 200).json;
      assertRecord(one, 'execution', 'detail');
      assert.deepEqual(one.log, mine.log);
      assert.equal(one.change_permission, caller === w.admin);
    }
    // A Member without a role in the row's project does not see its executions.
    assert.equal(assertPage(await w.stranger.api.get(executionList(w.org.sid, 'list', { workflow__sid: wf.sid }))).count, 0);
    expectNotFound(await w.stranger.api.get(detail('execution', mine.sid)));
    expectForbidden(await w.alumni.api.get(executionList(w.org.sid)));
    expectForbidden(await w.alumni.api.get(detail('execution', mine.sid)));
    expectForbidden(await w.outsider.api.get(executionList(w.org.sid)));
    expectNotFound(await w.outsider.api.get(detail('execution', mine.sid)));
    expectNotAuthenticated(await anonymous.get(detail('execution', mine.sid)));
    expectFieldErrors(await w.admin.api.get(executionList(w.org.sid, 'list', { workflow__sid: 'AAAAAAAAAAAAAAAA' })), ['workflow__sid']);
    expectMethodNotAllowed(await w.admin.api.post(executionList(w.org.sid), {}), ['GET']);
    expectMethodNotAllowed(await w.admin.api.patch(detail('execution', mine.sid), {}), ['GET']);
  });

  test('a failing step stops the execution, says why, and leaves the row as it was before that step', async () => {
    const wf = await newWorkflow(w);
    await newStep(w, wf.sid, { name: 'Note', widget: BUILTIN.setCell, data: { column: 'Note', value: 'noted' } });
    await newStep(w, wf.sid, { name: 'Lock', widget: BUILTIN.lockRow });
    const failing = await newStep(w, wf.sid, { name: 'Late note', widget: BUILTIN.setCell, data: { column: 'Note', value: 'too late' } });
    await newStep(w, wf.sid, { name: 'Never', widget: BUILTIN.setCell, data: { column: 'Result', value: 'never' } });
    const row = await newRow(w);
    const execution = expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }), 200).json.execution;
    assert.equal(execution.status, 'failed');
    assert.deepEqual(execution.current_step, { sid: failing.sid, name: failing.name });
    assert.equal(execution.error, `Step 3 "Late note" failed: The row (${row.sid}) is locked; only a widget that may be added at the read-only stage can change.`);
    assert.deepEqual(events(execution).slice(-3), ['step_completed/ok', 'step_failed/error', 'failed/error']);
    const after = await getRow(w, row.sid);
    assert.equal(cellOf(after, w.note), 'noted');
    assert.equal(cellOf(after, w.result), undefined, 'the steps after the failing one did not run');
    assert.equal(after.version, 3, 'versions of the two steps that ran, none of the failing one');

    // Triggering a failed execution starts a new one (which fails at once on the locked row).
    const before = await snapshotRow(w.ws, row.sid);
    const again = expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }), 200).json.execution;
    await assertRowUnchanged(w.ws, row.sid, before, 'a failing first step');
    assert.notEqual(again.sid, execution.sid);
    assert.equal(again.status, 'failed');
    assert.match(again.error, /^Step 1 "Note" failed: The row .* is locked/);
  });

  test('credits: a set_cell step is debited like any cell write and fails with the spec\'s message when they run out', async () => {
    const ws = await newWorkspace({ label: 'wfcredits', widgets: { costly: { price: '0.40' } }, columns: { value: 'costly' }, allRoles: false });
    const { admin, org } = ws;
    const row = ws.rows[0];
    const wf = await created(await admin.api.post(workflowList(org.sid), { name: 'Spend' }), 'workflow');
    for (const value of ['one', 'two', 'three']) {
      await created(await admin.api.post(stepList(org.sid), { name: value, workflow: wf.sid, widget: BUILTIN.setCell, data: { column: ws.columns.value.name, value } }), 'step');
    }
    const execution = expectStatus(await trigger(admin.api, wf.sid, { trigger__sid: row.sid }), 200).json.execution;
    assert.equal(execution.status, 'failed');
    assert.equal(execution.error, 'Step 3 "three" failed: Your organization does not have enough credits, contact sales@example.test!');
    const detailAfter = await readRow(admin.api, row.sid);
    assert.equal(detailAfter.cells[0].data, 'two', 'the row as it was before the failing step');
    assert.equal(detailAfter.version, 3);
    assert.equal(await readCredits(admin.api, org.sid), '$0.20');
    // Again: a new execution whose first step fails leaves everything as it was.
    const before = await snapshotRow(ws, row.sid);
    const again = expectStatus(await trigger(admin.api, wf.sid, { trigger__sid: row.sid }), 200).json.execution;
    assert.equal(again.error, 'Step 1 "one" failed: Your organization does not have enough credits, contact sales@example.test!');
    await assertRowUnchanged(ws, row.sid, before, 'a failing first step');
  });

  test('live events: the cell changes of the steps that ran are heard, not the failed step\'s, whose write was rolled back after it had built its event', async () => {
    // Each step runs in a savepoint of the execution's transaction: step 3's statement
    // writes the cell and builds its event, its debit finds no credits, the savepoint rolls
    // back and the execution commits as failed (db/after-commit.ts drops that step's event).
    const ws = await newWorkspace({ label: 'wflive', widgets: { costly: { price: '0.40' } }, columns: { value: 'costly' }, allRoles: false });
    const { admin, org } = ws;
    const row = ws.rows[0];
    const stream = await openEventStream(admin.api, withQuery('/tables/row/stream/', { table__sid: ws.table.sid }));
    try {
      const wf = await created(await admin.api.post(workflowList(org.sid), { name: 'Spend live' }), 'workflow');
      for (const value of ['one', 'two', 'three']) {
        await created(await admin.api.post(stepList(org.sid), { name: value, workflow: wf.sid, widget: BUILTIN.setCell, data: { column: ws.columns.value.name, value } }), 'step');
      }
      const execution = expectStatus(await trigger(admin.api, wf.sid, { trigger__sid: row.sid }), 200).json.execution;
      assert.equal(execution.error, 'Step 3 "three" failed: Your organization does not have enough credits, contact sales@example.test!');
      await stream.waitFor((e) => e.event === 'cell' && e.data.data === 'two', 'the second step');
      // The failed step's event would have gone out with the others (one transaction); a later write's comes after.
      expectStatus(await ws.projectAdmin.api.patch(recordPaths.rowDetail(row.sid), { name: 'After the workflow' }), 200);
      await stream.waitFor((e) => e.event === 'row' && e.data.name === 'After the workflow', 'a later write');
      assert.deepEqual(stream.events.filter((e) => e.event === 'cell' && e.data.row === row.sid).map((e) => [e.data.data, e.data.version]), [['one', 2], ['two', 3]]);
    } finally {
      stream.close();
    }
  });

  test('templating: row, cells, variables and data; unknown references render empty and are logged; no prototype access', async () => {
    const wf = await newWorkflow(w);
    await newStep(w, wf.sid, { name: 'Note', widget: BUILTIN.setCell, data: { column: 'Note', value: 'n={{ row.name }}' } });
    await newStep(w, wf.sid, {
      name: 'Result', widget: BUILTIN.setCell,
      data: { column: '{{variables.column}}', value: '{{row.cells.Note}}|{{variables.nested.list.1}}|{{data.n}}|{{variables.missing}}|{{variables.__proto__}}|{{row.sid}}' },
    });
    const row = await newRow(w);
    const execution = expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid },
      { variables: { column: 'Result', nested: { list: ['a', 'b'] } }, workflow_data: { n: 42 } }), 200).json.execution;
    assert.equal(execution.status, 'completed', JSON.stringify(execution.log));
    assert.equal(cellOf(await getRow(w, row.sid), w.result), `n=${row.name}|b|42|||${row.sid}`);
    const warning = execution.log.find((e: any) => e.event === 'template');
    assert.equal(warning.status, 'warning');
    assert.match(warning.message, /\{\{variables\.missing\}\}, \{\{variables\.__proto__\}\}/);
  });

  test('notify sends a notification (and its email) to personnel; someone else fails the step; other widgets do nothing', async () => {
    const wf = await newWorkflow(w);
    const subject = `Done ${unique('n')}`;
    await newStep(w, wf.sid, { name: 'Tell', widget: BUILTIN.notify, data: { to: '{{variables.to}}', name: `${subject} {{row.name}}`, body: 'Result: {{row.cells.Result}}', should_email: true } });
    await newStep(w, wf.sid, { name: 'Text', widget: BUILTIN.text, data: { anything: 1 } });
    const row = await newRow(w);
    const failed = expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }, { variables: { to: [w.outsider.sid] } }), 200).json.execution;
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /^Step 1 "Tell" failed: to: Not personnel of this organization/);
    const done = expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }, { variables: { to: [w.member.personnel.sid] } }), 200).json.execution;
    assert.equal(done.status, 'completed');
    assert.match(done.log.find((e: any) => e.event === 'step_completed').message, new RegExp(`to 1 personnel: ${w.member.personnel.sid}`));
    assert.match(done.log.filter((e: any) => e.event === 'step_completed')[1].message, /No action: the widget "Text" \(text\)/);
    const mail = await readMail(w.member.email, { subject: new RegExp(subject) });
    assert.equal(mail.subject, `${subject} ${row.name}`);
  });

  test('refused triggers: archived workflow, rows of another organization or table, Member, bad input — 4xx and nothing changes', async () => {
    const { wf } = await threeSteps({ table__sid: w.table.sid });
    const row = await newRow(w);
    const rowOfOtherTable = await newRow(w, w.otherTable);
    const foreignRow = (await foreignRecords(w.ws)).row;
    const before = await snapshotRow(w.ws, row.sid);
    expectStatus(await w.admin.api.patch(detail('workflow', wf.sid), { is_archived: true }), 200);
    expectDetail(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }), 400, 'The workflow is archived; an archived workflow cannot be triggered.');
    // Archiving and triggering in one PATCH is refused whole: the name stays too.
    expectStatus(await w.admin.api.patch(detail('workflow', wf.sid), { is_archived: false }), 200);
    expectDetail(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }, { is_archived: true, name: 'Changed' }), 400,
      'The workflow is archived; an archived workflow cannot be triggered.');
    assert.equal(expectStatus(await w.admin.api.get(detail('workflow', wf.sid)), 200).json.name, wf.name);

    expectFieldErrors(await trigger(w.admin.api, wf.sid, { trigger__sid: foreignRow.sid }), {
      trigger__sid: [`The row (${foreignRow.sid}) does not belong to the organization (${w.org.sid}).`],
    });
    expectFieldErrors(await trigger(w.admin.api, wf.sid, { trigger__sid: 'AAAAAAAAAAAAAAAA' }), ['trigger__sid']);
    expectFieldErrors(await trigger(w.admin.api, wf.sid, { trigger__sid: rowOfOtherTable.sid }), {
      trigger__sid: [`The row (${rowOfOtherTable.sid}) is not a row of the table this workflow is specific to (${w.table.name}).`],
    });
    expectFieldErrors(await trigger(w.admin.api, wf.sid, { event: 'approve' }), ['trigger__sid']);
    expectFieldErrors(await trigger(w.admin.api, wf.sid, {}, { variables: { a: 1 } }), ['trigger__sid']);
    expectFieldErrors(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }, { variables: ['a'] }), ['variables']);
    expectFieldErrors(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }, { workflow_data: 'x' }), ['workflow_data']);
    expectFieldErrors(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid, event: '' }), ['event']);
    expectForbidden(await trigger(w.member.api, wf.sid, { trigger__sid: row.sid }));
    expectForbidden(await trigger(w.alumni.api, wf.sid, { trigger__sid: row.sid }));
    expectNotFound(await trigger(w.outsider.api, wf.sid, { trigger__sid: foreignRow.sid }));
    expectNotAuthenticated(await trigger(anonymous, wf.sid, { trigger__sid: row.sid }));

    assert.equal(assertPage(await w.admin.api.get(executionList(w.org.sid, 'list', { workflow__sid: wf.sid }))).count, 0, 'no execution started');
    await assertRowUnchanged(w.ws, row.sid, before, 'refused triggers');
  });

  test('deleting the step an execution waits at: it goes on with the step that followed', async () => {
    const { wf, wait } = await threeSteps();
    const row = await newRow(w);
    expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }, { variables: { verdict: 'v', who: 'w' } }), 200);
    expectStatus(await w.admin.api.delete(detail('step', wait.sid)), 200);
    const done = expectStatus(await trigger(w.admin.api, wf.sid, { trigger__sid: row.sid, event: 'approve' }), 200).json.execution;
    assert.equal(done.status, 'completed');
    assert.equal((await getRow(w, row.sid)).is_locked, true);
  });

  test('concurrent triggers never run a step twice', async () => {
    const { wf } = await threeSteps();
    const row = await newRow(w);
    // Starting: five triggers at once make one execution, whose first step runs once.
    const starts = await Promise.all(Array.from({ length: 5 }, () => trigger(w.admin.api, wf.sid, { trigger__sid: row.sid }, { variables: { verdict: 'v', who: 'w' } })));
    starts.forEach((res) => expectStatus(res, 200, describeAnswer(res)));
    assert.equal(new Set(starts.map((res) => res.json.execution.sid)).size, 1, 'one execution');
    // Resuming: five deliveries of the awaited event at once resume it once and lock the row once
    // (a delivery that comes after it completed starts a new execution, which the locked row fails).
    const resumes = await Promise.all(Array.from({ length: 5 }, () => trigger(w.admin.api, wf.sid, { trigger__sid: row.sid, event: 'approve' })));
    resumes.forEach((res) => expectStatus(res, 200, describeAnswer(res)));
    const execution = expectStatus(await w.admin.api.get(detail('execution', starts[0].json.execution.sid)), 200).json;
    assert.equal(execution.status, 'completed', JSON.stringify(execution.log.map((e: any) => `${e.event}: ${e.message}`), null, 1));
    assert.equal(execution.log.filter((e: any) => e.event === 'step_completed').length, 2, 'each of the two acting steps ran once');
    assert.equal(execution.log.filter((e: any) => e.event === 'resumed').length, 1, 'resumed once');
    const versions = await versionsOf(w, row.sid);
    assert.deepEqual(versions.map((v: any) => v.version), [1, 2, 3], 'one version per change, none twice');
  });
});

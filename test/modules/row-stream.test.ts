// The live stream of record changes (GET /tables/row/stream/, docs/decisions.md "The live
// grid"): Server-Sent Events authorized like the rows themselves; a change of a cell or a
// row made by one client reaches another's stream (how fast: the bench), also through another
// server process (PostgreSQL); a viewer without access to the project gets 403/404 and
// hears nothing of it; a revoked credential or a removed role ends the stream.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { DB_KIND } from '../helpers/env.ts';
import { expectNotAuthenticated, expectStatus } from '../helpers/assertions.ts';
import { addMember, PATHS, type TestMember } from '../helpers/factories.ts';
import { anonymous, withQuery, type Api } from '../helpers/http.ts';
import { openEventStream, type Stream, type StreamEvent } from '../helpers/notifications.ts';
import { createCell, createRow, newWorkspace, patchCell, recordPaths, type Workspace } from '../helpers/records.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

/** The role check runs every 2 s: a stream must end well within this. */
const END_MS = 6_000;

const STREAM = '/tables/row/stream/';
let ws: Workspace;
const streams: Stream[] = [];

async function open(api: Api, query: Record<string, string>, headers: Record<string, string> = {}): Promise<Stream> {
  const s = await openEventStream(api, withQuery(STREAM, query), headers);
  streams.push(s);
  return s;
}

const ofRow = (rowSid: string, kind: string) => (e: StreamEvent) => e.event === kind && e.data.row === rowSid;

before(async () => {
  ws = await newWorkspace({ label: 'rstream' });
});

after(() => {
  for (const s of streams) s.close();
});

describe('the stream is authorized like the rows', () => {
  test('no credential 401; POST 405; table__sid is required (400), an unknown table 406', async () => {
    expectNotAuthenticated(await anonymous.get(withQuery(STREAM, { table__sid: ws.table.sid })), 'no token');
    expectStatus(await ws.admin.api.post(withQuery(STREAM, { table__sid: ws.table.sid }), {}), 405, 'POST');
    expectStatus(await ws.admin.api.get(STREAM), 400, 'no table__sid');
    expectStatus(await ws.admin.api.get(withQuery(STREAM, { table__sid: 'AAAAAAAAAAAAAAAA' })), 406, 'no such table');
  });

  test('another organization\'s Admin 403 on the table, 404 on its row; an Alumni 403', async () => {
    const row = ws.rows[0];
    expectStatus(await ws.outsider.api.get(withQuery(STREAM, { table__sid: ws.table.sid })), 403, 'outsider, table');
    expectStatus(await ws.alumni.api.get(withQuery(STREAM, { table__sid: ws.table.sid })), 403, 'alumni, table');
    expectStatus(await ws.member.api.get(withQuery(STREAM, { table__sid: ws.table.sid, row__sid: row.sid })), 404, 'member without a project role, row');
  });

  test('a member without a role in the project: 403 for project__sid, and a stream of the table hears nothing of the project', async () => {
    const refused = await ws.member.api.get(withQuery(STREAM, { table__sid: ws.table.sid, project__sid: ws.project.sid }));
    expectStatus(refused, 403, 'project__sid of a project they may not read');
    const outsiderView = await open(ws.member.api, { table__sid: ws.table.sid });
    const viewer = await open(ws.projectView.api, { table__sid: ws.table.sid });
    assert.equal(outsiderView.status, 200);
    const row = await createRow(ws, { name: 'Unseen by the member' });
    await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'secret');
    await viewer.waitFor(ofRow(row.sid, 'cell'), 'the Project View member hears the cell');
    await sleep(300);
    assert.deepEqual(outsiderView.events, [], 'the member without a project role hears nothing');
    assert.equal(outsiderView.ended, false);
  });
});

describe('live changes', () => {
  test('cells and rows: created, changed, renamed, locked, unlocked, archived — each once, with its version and who', async () => {
    const s = await open(ws.projectView.api, { table__sid: ws.table.sid, project__sid: ws.project.sid });
    assert.equal(s.status, 200);
    assert.match(s.headers.get('content-type') ?? '', /^text\/event-stream/);
    const row = await createRow(ws, { name: 'Live row' }, ws.projectEdit.api);
    const { event: created } = await s.waitFor(ofRow(row.sid, 'row'), 'row created');
    const by = { sid: ws.projectEdit.personnel.sid, name: ws.projectEdit.personnel.name };
    assert.deepEqual({ ...created.data, date_updated: typeof created.data.date_updated }, {
      kind: 'row', organization: ws.org.sid, table: ws.table.sid, project: ws.project.sid, projects: [ws.project.sid], row: row.sid, open: false, version: 1, by,
      changes: ['created'], name: 'Live row', is_locked: false, is_archived: false, date_updated: 'string',
    });
    assert.equal(created.id, null, 'events carry no id');

    const cell = await createCell(ws.projectEdit.api, ws.org.sid, row.sid, ws.columns.text.sid, 'first');
    const { event: made } = await s.waitFor((e) => ofRow(row.sid, 'cell')(e) && e.data.created, 'cell created');
    assert.deepEqual({ ...made.data, date_updated: typeof made.data.date_updated }, {
      kind: 'cell', organization: ws.org.sid, table: ws.table.sid, project: ws.project.sid, projects: [ws.project.sid], row: row.sid, open: false, version: 2, by,
      cell: cell.sid, column: ws.columns.text.sid, created: true, data: 'first', data_omitted: false, date_updated: 'string',
    });
    expectStatus(await patchCell(ws.projectAdmin.api, cell.sid, 'second'), 200);
    const { event: changed } = await s.waitFor((e) => ofRow(row.sid, 'cell')(e) && e.data.data === 'second', 'cell changed');
    assert.equal(changed.data.version, 3);
    assert.equal(changed.data.created, false);
    assert.deepEqual(changed.data.by, { sid: ws.projectAdmin.personnel.sid, name: ws.projectAdmin.personnel.name });
    expectStatus(await patchCell(ws.projectAdmin.api, cell.sid, 'second'), 200, 'the same data again changes nothing');

    const patchRow = async (body: Record<string, unknown>) => expectStatus(await ws.projectAdmin.api.patch(recordPaths.rowDetail(row.sid), body), 200);
    await patchRow({ name: 'Live row renamed' });
    await patchRow({ is_locked: true });
    await patchRow({ is_locked: false, is_archived: true });
    await patchRow({ is_archived: false });
    await s.waitFor((e) => ofRow(row.sid, 'row')(e) && e.data.version === 7, 'the last row change');
    const rowEvents = s.events.filter((e) => e.data.row === row.sid).map((e) => [e.event, e.data.version, e.data.changes ?? e.data.data, e.data.name, e.data.is_locked, e.data.is_archived]);
    assert.deepEqual(rowEvents, [
      ['row', 1, ['created'], 'Live row', false, false],
      ['cell', 2, 'first', undefined, undefined, undefined],
      ['cell', 3, 'second', undefined, undefined, undefined],
      ['row', 4, ['renamed'], 'Live row renamed', false, false],
      ['row', 5, ['locked'], 'Live row renamed', true, false],
      ['row', 6, ['unlocked', 'archived'], 'Live row renamed', false, true],
      ['row', 7, ['unarchived'], 'Live row renamed', false, false],
    ], 'every change once, in order, and nothing for a write that changed nothing');
  });

  test('a row in two projects: a member of only the second hears its changes (its own stream and one limited to that project)', async () => {
    const second = expectStatus(await ws.admin.api.post(recordPaths.projectList(ws.org.sid), { name: 'Second stream project' }), 201).json;
    expectStatus(await ws.admin.api.post(recordPaths.memberList(second.sid), { personnel: ws.member.personnel.sid, permission: 'view' }), 201);
    expectStatus(await ws.admin.api.post(recordPaths.memberList(second.sid), { personnel: ws.projectEdit.personnel.sid, permission: 'edit' }), 201);
    const table = await open(ws.member.api, { table__sid: ws.table.sid });
    const limited = await open(ws.member.api, { table__sid: ws.table.sid, project__sid: second.sid });
    const alone = await createRow(ws, { name: 'Only the first project' }, ws.projectEdit.api);
    const shared = expectStatus(await ws.projectEdit.api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid }), {
      name: 'Both projects', projects: [{ sid: ws.project.sid }, { sid: second.sid }],
    }), 201).json;
    await createCell(ws.projectEdit.api, ws.org.sid, shared.sid, ws.columns.text.sid, 'heard');
    for (const [s, name] of [[table, 'the table\'s stream'], [limited, 'the stream of the second project']] as const) {
      const { event } = await s.waitFor((e) => ofRow(shared.sid, 'cell')(e), `${name}: the shared row's cell`);
      assert.deepEqual(event.data.projects, [ws.project.sid, second.sid]);
      assert.ok(s.events.some((e) => ofRow(shared.sid, 'row')(e)), `${name}: the shared row's creation`);
    }
    // The row of the first project alone was committed before the shared one, and changes arrive in commit order: by now it would have.
    assert.ok(!table.events.some((e) => e.data.row === alone.sid) && !limited.events.some((e) => e.data.row === alone.sid),
      'nothing of the row the member may not read');
  });

  test('a row open to the organization: a member without a project role hears it (the table\'s stream, and one of that row), not a row that is not open, nor the row once closed', async () => {
    const table = await open(ws.member.api, { table__sid: ws.table.sid });
    assert.equal(table.status, 200);
    const closed = await createRow(ws, { name: 'Not open' });
    const closedCell = await createCell(ws.projectAdmin.api, ws.org.sid, closed.sid, ws.columns.text.sid, 'unheard');
    const opened = await createRow(ws, { name: 'Open to all', open_to_organization: true });
    const { event: created } = await table.waitFor(ofRow(opened.sid, 'row'), 'the open row\'s creation');
    assert.deepEqual([created.data.open, created.data.changes, created.data.projects], [true, ['created'], [ws.project.sid]]);
    const one = await open(ws.member.api, { table__sid: ws.table.sid, row__sid: opened.sid });
    assert.equal(one.status, 200, 'a stream of the open row alone');
    const cell = await createCell(ws.projectAdmin.api, ws.org.sid, opened.sid, ws.columns.text.sid, 'heard');
    for (const [s, name] of [[table, 'the table\'s stream'], [one, 'the row\'s stream']] as const) {
      const { event } = await s.waitFor(ofRow(opened.sid, 'cell'), `${name}: the open row's cell`);
      assert.deepEqual([event.data.open, event.data.data, event.data.cell], [true, 'heard', cell.sid]);
    }
    // Closed again: neither that change nor the next is heard (a later open row marks the end of what was sent).
    expectStatus(await ws.projectAdmin.api.patch(recordPaths.rowDetail(opened.sid), { open_to_organization: false }), 200);
    expectStatus(await patchCell(ws.projectAdmin.api, cell.sid, 'unheard now'), 200);
    expectStatus(await patchCell(ws.projectAdmin.api, closedCell.sid, 'still unheard'), 200);
    const marker = await createRow(ws, { name: 'Open marker', open_to_organization: true });
    await table.waitFor(ofRow(marker.sid, 'row'), 'the marker');
    assert.deepEqual(table.events.map((e) => [e.event, e.data.row]), [['row', opened.sid], ['cell', opened.sid], ['row', marker.sid]],
      'the open row while it was open, and nothing of the rows that are not');
    assert.deepEqual(one.events.map((e) => [e.event, e.data.row]), [['cell', opened.sid]]);
    assert.equal(one.ended, false);
  });

  test('a refused write sends nothing; long data is left out (data_omitted)', async () => {
    const s = await open(ws.projectAdmin.api, { table__sid: ws.table.sid });
    const row = await createRow(ws, { name: 'Refusals' });
    await s.waitFor(ofRow(row.sid, 'row'), 'created');
    expectStatus(await ws.projectView.api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), { column: ws.columns.text.sid, data: 'no' }), 403, 'Project View may not write');
    const long = 'x'.repeat(7_000);
    await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, long);
    const { event } = await s.waitFor(ofRow(row.sid, 'cell'), 'the long cell');
    assert.equal(event.data.data, null);
    assert.equal(event.data.data_omitted, true);
    assert.equal(s.events.filter((e) => e.data.row === row.sid).length, 2, 'the refused write sent nothing');
  });

  test('an event is sent once its write has committed: a PATCH refused after its statement wrote (If-Match, out of credits) sends nothing, the next one its own', async () => {
    // Under If-Match the cell's statement writes the cell and the version and builds the
    // event; the debit after it finds no credits and the transaction rolls back.
    const paid = await newWorkspace({ label: 'rsafter', rows: 0, allRoles: false, widgets: { dear: { price: '0.40' }, free: { price: '0' } }, columns: { dear: 'dear', free: 'free' } });
    const api = paid.projectAdmin.api;
    const s = await open(api, { table__sid: paid.table.sid });
    const row = await createRow(paid, { name: 'After commit' });
    const dear = await createCell(api, paid.org.sid, row.sid, paid.columns.dear.sid, 'd1');
    expectStatus(await patchCell(api, dear.sid, 'd2'), 200, '$0.20 left');
    await s.waitFor((e) => ofRow(row.sid, 'cell')(e) && e.data.data === 'd2', 'the paid change');
    const etag = (await api.get(recordPaths.cellDetail(dear.sid))).headers.get('etag')!;
    const refused = await api.patch(recordPaths.cellDetail(dear.sid), { data: 'd3' }, { headers: { 'if-match': etag } });
    assert.equal(refused.status, 406, refused.text);
    const free = await createCell(api, paid.org.sid, row.sid, paid.columns.free.sid, 'f1');
    const { event } = await s.waitFor((e) => ofRow(row.sid, 'cell')(e) && e.data.cell === free.sid, 'the next write');
    assert.equal(event.data.version, 4, 'created, d1, d2, then the free cell: the refused write made no version');
    assert.deepEqual(s.events.filter((e) => e.data.row === row.sid).map((e) => [e.event, e.data.data ?? null, e.data.version]),
      [['row', null, 1], ['cell', 'd1', 2], ['cell', 'd2', 3], ['cell', 'f1', 4]], 'nothing of the refused write');
  });

  test('row__sid: only that row; the session cookie alone opens the stream', async () => {
    const [mine, other] = [await createRow(ws, { name: 'Mine' }), await createRow(ws, { name: 'Other' })];
    const session = await anonymous.post('/accounts/session/', { username: ws.projectView.email, password: ws.projectView.password });
    expectStatus(session, 200, 'session sign-in');
    const cookie = /records_session=([^;]+)/.exec(session.headers.get('set-cookie') ?? '')![1];
    const s = await open(anonymous, { table__sid: ws.table.sid, row__sid: mine.sid }, { cookie: `records_session=${cookie}` });
    assert.equal(s.status, 200, 'opened with the cookie');
    await createCell(ws.projectAdmin.api, ws.org.sid, other.sid, ws.columns.text.sid, 'other');
    await createCell(ws.projectAdmin.api, ws.org.sid, mine.sid, ws.columns.text.sid, 'mine');
    await s.waitFor(ofRow(mine.sid, 'cell'), 'the row\'s own change');
    assert.deepEqual(s.events.map((e) => e.data.row), [mine.sid], 'nothing of the other row');
  });
});

// Several processes share a database only on PostgreSQL (PGlite serves one process): this
// suite belongs to the PostgreSQL pass and is not registered in the PGlite one.
if (DB_KIND === 'postgres') describe('several server processes (PostgreSQL)', () => {
  let second: RunningServer;
  before(async () => {
    second = await startServer();
  });
  after(async () => {
    await second?.stop();
  });

  test('a change written through one process reaches a stream held by the other, both ways', async () => {
    const onSecond = await open(ws.projectView.api.at(second.baseUrl), { table__sid: ws.table.sid });
    const onFirst = await open(ws.projectView.api, { table__sid: ws.table.sid });
    const row = await createRow(ws, { name: 'Across' });
    const cell = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'start');
    for (const [via, label] of [[ws.projectAdmin.api, 'first'], [ws.projectAdmin.api.at(second.baseUrl), 'second']] as const) {
      const data = `through the ${label}`;
      expectStatus(await patchCell(via, cell.sid, data), 200);
      // Reached, not timed: the machine is shared (how fast is the bench's business, docs/benchmarks.md).
      await onSecond.waitFor((e) => e.event === 'cell' && e.data.data === data, `on the second process, written through the ${label}`, 30_000);
      await onFirst.waitFor((e) => e.event === 'cell' && e.data.data === data, `on the first process, written through the ${label}`, 30_000);
    }
  });
});

describe('revocation ends the stream', () => {
  async function assertEnds(s: Stream, reason: string) {
    await s.waitForEnd(END_MS);
    assert.deepEqual(s.events[s.events.length - 1], { id: null, event: 'end', data: { detail: reason } }, 'an end event says why');
  }

  test('logout', async () => {
    const who = await addMember(ws.admin, ws.org, {}, 'rslogout');
    expectStatus(await ws.admin.api.post(recordPaths.memberList(ws.project.sid), { personnel: who.personnel.sid, permission: 'view' }), 201);
    const s = await open(who.api, { table__sid: ws.table.sid, project__sid: ws.project.sid });
    assert.equal(s.status, 200);
    expectStatus(await who.api.get(PATHS.logout), 200, 'logout');
    await assertEnds(s, 'Invalid token.');
  });

  test('the project role removed: a stream of that project ends; a stream of the table stays open and hears nothing more of it', async () => {
    const who: TestMember = await addMember(ws.admin, ws.org, {}, 'rsrole');
    const role = expectStatus(await ws.admin.api.post(recordPaths.memberList(ws.project.sid), { personnel: who.personnel.sid, permission: 'view' }), 201).json;
    const ofProject = await open(who.api, { table__sid: ws.table.sid, project__sid: ws.project.sid });
    const ofTable = await open(who.api, { table__sid: ws.table.sid });
    const row = await createRow(ws, { name: 'Before the removal' });
    await ofTable.waitFor(ofRow(row.sid, 'row'), 'heard before the removal');
    expectStatus(await ws.admin.api.delete(recordPaths.memberDetail(role.sid)), 200, 'the project role removed');
    await assertEnds(ofProject, 'You may no longer read the rows of this project.');
    // The table's stream may be held by another worker process, whose check runs on its own 2 s timer.
    await sleep(2_500);
    const count = ofTable.events.length;
    await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'after the removal');
    await sleep(500);
    assert.equal(ofTable.events.length, count, 'nothing more of the project');
    assert.equal(ofTable.ended, false, 'the table\'s stream stays open');
  });

  test('the member archived', async () => {
    const who = await addMember(ws.admin, ws.org, {}, 'rsarchive');
    expectStatus(await ws.admin.api.post(recordPaths.memberList(ws.project.sid), { personnel: who.personnel.sid, permission: 'edit' }), 201);
    const s = await open(who.api, { table__sid: ws.table.sid });
    expectStatus(await ws.admin.api.patch(`/organizations/personnel/detail/${who.personnel.sid}/`, { is_archived: 'true' }), 200);
    await assertEnds(s, 'You are no longer an active member of the organization.');
  });
});

// Cells (spec: Cell, Cell endpoints, States "rules about cells", Errors; design: Cells):
// the three shapes, every caller's rights, the row states and the widget's
// addable_at_readonly flag, the spec's plain-text 406 messages, and that a refused
// write changes nothing.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, type Answer } from '../helpers/http.ts';
import {
  needsProjectRole, expectDetail, expectFieldErrors, expectForbidden, expectMethodNotAllowed, expectNotAuthenticated, expectPlainText, expectStatus, MESSAGES,
} from '../helpers/assertions.ts';
import {
  assertRecordPage, assertRecordShape, assertRowUnchanged, createCell, createRow, listCells, listVersions, patchCell, postCell,
  foreignRecords, readRow, recordPaths, ROLE_NAMES, ROLES, ROW_STATES, setRowState, snapshotRow, newWorkspace,
  type Role, type RowState, type Workspace,
} from '../helpers/records.ts';

const cellList = recordPaths.cellList;

/** The 406 texts of a locked or archived row (src/modules/cells/service.ts; POST carries the spec's "Error: " prefix). */
const stateMessage = (state: Exclude<RowState, 'open'>, rowSid: string, onPost: boolean) => (state === 'archived'
  ? `${onPost ? 'Error: ' : ''}The row (${rowSid}) is archived; its cells cannot be ${onPost ? 'created' : 'changed'}.`
  : `${onPost ? 'Error: ' : ''}The row (${rowSid}) is locked; only a widget that may be added at the read-only stage can ${onPost ? 'be added' : 'change'}.`);

const writers: readonly Role[] = ['projectAdmin', 'projectEdit'];

let ws: Workspace;

before(async () => {
  ws = await newWorkspace({
    label: 'cell',
    widgets: { plain: { price: '0.00' }, readonly: { price: '0.00', addable_at_readonly: true }, priced: { price: '0.25' } },
    // Columns written with POST and with PATCH, for each widget flag; then the built-ins.
    columns: {
      postPlain: 'plain', postReadonly: 'readonly', patchPlain: 'plain', patchReadonly: 'readonly',
      text: 'builtinWidgetTxt', signature: 'builtinWidgetSig', priced: 'priced',
    },
  });
});

describe('cell list', () => {
  test('the name, list and detail shapes are the spec\'s, in column order; price is formatted ("$0.25")', async () => {
    const row = await createRow(ws);
    const text = await createCell(ws.projectEdit.api, ws.org.sid, row.sid, ws.columns.text.sid, 'free text');
    const priced = await createCell(ws.projectEdit.api, ws.org.sid, row.sid, ws.columns.priced.sid, 'costs a quarter');
    const plain = await createCell(ws.projectEdit.api, ws.org.sid, row.sid, ws.columns.postPlain.sid, 'plain');
    const inOrder = [plain, text, priced]; // columns postPlain (0), text (4), priced (6)

    const names = assertRecordPage(await ws.projectView.api.get(cellList(ws.org.sid, 'name', { row__sid: row.sid })), 'cell.name', 'name');
    assert.deepEqual(names.results, inOrder.map((c) => ({ sid: c.sid, name: c.column.name })), 'name: {sid, name = the column\'s name}');

    const list = assertRecordPage(await ws.projectView.api.get(cellList(ws.org.sid, 'list', { row__sid: row.sid })), 'cell.list', 'list');
    assert.deepEqual(list.results, [
      { sid: plain.sid, row: { sid: row.sid, name: row.name }, widget: { sid: ws.widgets.plain.sid, name: ws.widgets.plain.name }, price: '$0.00', change_permission: false },
      { sid: text.sid, row: { sid: row.sid, name: row.name }, widget: { sid: 'builtinWidgetTxt', name: 'Text' }, price: '$0.00', change_permission: false },
      { sid: priced.sid, row: { sid: row.sid, name: row.name }, widget: { sid: ws.widgets.priced.sid, name: ws.widgets.priced.name }, price: '$0.25', change_permission: false },
    ]);

    const detail = assertRecordPage(await ws.projectEdit.api.get(cellList(ws.org.sid, 'detail', { row__sid: row.sid })), 'cell.detail', 'detail');
    assert.deepEqual(detail.results, inOrder, 'detail: exactly what POST answered (change_permission true for Project Edit)');
    assert.equal(detail.count, 3);

    const shown = await readRow(ws.projectView.api, row.sid);
    assert.deepEqual(shown.cells, inOrder.map((c) => ({ sid: c.sid, column: c.column, widget: c.widget, data: c.data })), 'the row detail lists its cells');
  });

  test('without row__sid: every cell the caller may read; a row of another organization or an unknown row: an empty page', async () => {
    const row = await createRow(ws);
    const cell = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'listed');
    const all = assertRecordPage(await ws.admin.api.get(cellList(ws.org.sid, 'name', { page_size: 100 })), 'cell.name', 'all cells');
    assert.ok(all.count >= 1 && all.results.some((c) => c.sid === cell.sid), 'the org Admin sees the cell without a filter');
    const none = assertRecordPage(await ws.member.api.get(cellList(ws.org.sid, 'list')), 'cell.list', 'member, no filter');
    assert.equal(none.count, 0, 'a Member without a project role reads no cell');
    const theirRow = (await foreignRecords(ws)).row;
    for (const rowSid of [theirRow.sid, '0000000000000000', 'not a sid']) {
      const page = assertRecordPage(await ws.admin.api.get(cellList(ws.org.sid, 'list', { row__sid: rowSid })), 'cell.list', rowSid);
      assert.equal(page.count, 0, `row__sid=${rowSid}: nothing`);
      assert.equal(page.add_permission, false, `row__sid=${rowSid}: add_permission`);
    }
  });

  test('list errors: 401 without a token, 403 for outsiders and Alumni, 406 for a wrong level, serializer or organization', async () => {
    const row = ws.rows[0];
    expectNotAuthenticated(await anonymous.get(cellList(ws.org.sid, 'list', { row__sid: row.sid })));
    expectDetail(await ws.admin.api.get(cellList(ws.org.sid, 'list'), { token: 'not-a-token' }), 401, MESSAGES.invalidToken);
    expectForbidden(await ws.outsider.api.get(cellList(ws.org.sid, 'list', { row__sid: row.sid })), 'outsider');
    expectForbidden(await ws.alumni.api.get(cellList(ws.org.sid, 'list', { row__sid: row.sid })), 'alumni');
    expectPlainText(await ws.admin.api.get(cellList(ws.org.sid, 'list', undefined, 'user')), 406, MESSAGES.wrongLevel);
    expectPlainText(await ws.admin.api.get(cellList(ws.org.sid, 'full')), 406, MESSAGES.wrongSerializer);
    expectPlainText(await ws.admin.api.get(cellList('0000000000000000', 'list')), 406, MESSAGES.wrongId);
  });

  for (const role of ROLES) {
    test(`read by the ${ROLE_NAMES[role]}: cells, change_permission and add_permission on open, locked and archived rows`, async () => {
      for (const state of ROW_STATES) {
        const row = await createRow(ws);
        const plain = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.patchPlain.sid, 'p');
        const readonly = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.patchReadonly.sid, 'r');
        if (state !== 'open') await setRowState(ws, row.sid, state);
        const res = await ws.api[role].get(cellList(ws.org.sid, 'list', { row__sid: row.sid }));
        const context = `${ROLE_NAMES[role]}, ${state} row`;
        if (role === 'anonymous') { expectNotAuthenticated(res, context); continue; }
        if (role === 'outsider' || role === 'alumni') { expectForbidden(res, context); continue; }
        const page = assertRecordPage(res, 'cell.list', context);
        if (role === 'member') {
          assert.equal(page.count, 0, `${context}: a Member without a project role reads no cell`);
          assert.equal(page.add_permission, false, `${context}: add_permission`);
          continue;
        }
        const writes = writers.includes(role);
        assert.deepEqual(page.results.map((c) => c.sid), [plain.sid, readonly.sid], `${context}: the row's cells`);
        assert.equal(page.add_permission, writes && state !== 'archived', `${context}: add_permission`);
        assert.equal(page.results[0].change_permission, writes && state === 'open', `${context}: change_permission (plain widget)`);
        assert.equal(page.results[1].change_permission, writes && state !== 'archived', `${context}: change_permission (addable_at_readonly widget)`);
      }
    });
  }
});

describe('cell POST', () => {
  test('201 with the detail shape: the widget is the column\'s, the row gets a version with the cell', async () => {
    const row = await createRow(ws);
    const res = await postCell(ws.projectEdit.api, ws.org.sid, row.sid, ws.columns.signature.sid, 'signed');
    expectStatus(res, 201);
    const cell = assertRecordShape(res.json, 'cell.detail', 'created');
    assert.deepEqual(
      { data: cell.data, row: cell.row, column: cell.column, widget: cell.widget, change_permission: cell.change_permission },
      { data: 'signed', row: { sid: row.sid, name: row.name }, column: { sid: ws.columns.signature.sid, name: 'Column signature' }, widget: { sid: 'builtinWidgetSig', name: 'Signature' }, change_permission: true },
    );
    assert.equal(cell.date_created, cell.date_updated);
    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assert.equal(versions.length, 2, 'version 1 (the row) and version 2 (the cell)');
    assert.equal(versions[1].activity_message, 'Created the cell of Column signature');
    assert.equal(versions[1].updated_by, `${ws.projectEdit.first_name} ${ws.projectEdit.last_name}`);
    assert.deepEqual(versions[1].data.cells, { [ws.columns.signature.sid]: 'signed' });
    const short = await postCell(ws.projectEdit.api, ws.org.sid, row.sid, ws.columns.text.sid, 'short', 'name');
    expectStatus(short, 201, 'POST on the name serializer');
    assertRecordShape(short.json, 'cell.detail', 'answered in the detail shape, as the spec says, whatever the URL\'s serializer');
  });

  test('the spec\'s 406 texts word for word: a missing row__sid, a row of another organization; nothing changes', async () => {
    const row = await createRow(ws);
    const before = await snapshotRow(ws, row.sid);
    expectPlainText(await postCell(ws.projectAdmin.api, ws.org.sid, undefined, ws.columns.text.sid, 'x'), 406, 'Error: Missing row__sid in the post link.');
    expectPlainText(await postCell(ws.projectAdmin.api, ws.org.sid, '', ws.columns.text.sid, 'x'), 406, 'Error: Missing row__sid in the post link.', 'empty row__sid');
    expectPlainText(await postCell(ws.member.api, ws.org.sid, undefined, ws.columns.text.sid, 'x'), 406, 'Error: Missing row__sid in the post link.', 'any member');

    // The outsider posts in their own organization, naming our row.
    expectPlainText(await postCell(ws.outsider.api, ws.outsiderOrg.sid, row.sid, ws.columns.text.sid, 'stolen'), 406,
      `Error: The row (${row.sid}) does not belong to the organization (${ws.outsiderOrg.sid})`);
    // Our Project Admin names a row of the other organization, and rows that do not exist.
    const theirs = (await foreignRecords(ws)).row;
    for (const rowSid of [theirs.sid, '0000000000000000', 'nonsense']) {
      expectPlainText(await postCell(ws.projectAdmin.api, ws.org.sid, rowSid, ws.columns.text.sid, 'x'), 406,
        `Error: The row (${rowSid}) does not belong to the organization (${ws.org.sid})`, rowSid);
    }
    await assertRowUnchanged(ws, row.sid, before, 'after the 406s');
    const theirCells = await listCells(ws.outsider.api, ws.outsiderOrg.sid, theirs.sid);
    assert.deepEqual(theirCells, [], 'no cell was added to the other organization\'s row');
  });

  test('400: an unknown or foreign column, a second cell in the same column, unknown or missing fields; nothing changes', async () => {
    const row = await createRow(ws);
    const first = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'first');
    const before = await snapshotRow(ws, row.sid);
    const post = (body: unknown) => ws.projectAdmin.api.post(cellList(ws.org.sid, 'detail', { row__sid: row.sid }), body);
    expectFieldErrors(await post({ column: ws.columns.text.sid, data: 'second' }),
      { column: [`The row already has a cell in this column (${first.sid}); PATCH that cell instead.`] });
    const other = await foreignRecords(ws);
    const otherTable = expectStatus(await ws.admin.api.post(recordPaths.tableList(ws.org.sid), { name: 'Another table' }), 201).json;
    const otherTablesColumn = expectStatus(await ws.admin.api.post(recordPaths.columnList(ws.org.sid, 'detail', { table__sid: otherTable.sid }), { name: 'Elsewhere', widget: 'builtinWidgetTxt' }), 201).json;
    for (const column of ['0000000000000000', 'nonsense', other.column.sid, otherTablesColumn.sid]) {
      expectFieldErrors(await post({ column, data: 'x' }), { column: ["No column with this sid in the row's table."] }, column);
    }
    expectFieldErrors(await post({ column: ws.columns.postPlain.sid }), { data: ['This field is required.'] });
    expectFieldErrors(await post({ data: 'x' }), { column: ['This field is required.'] });
    expectFieldErrors(await post({ column: ws.columns.postPlain.sid, data: 'x', widget: 'builtinWidgetSig' }), { widget: ['Unknown field.'] });
    expectFieldErrors(await post({ column: ws.columns.postPlain.sid, data: 7 }), ['data']);
    expectFieldErrors(await post({ column: ws.columns.postPlain.sid, data: 'x'.repeat(100_001) }), ['data']);
    await assertRowUnchanged(ws, row.sid, before, 'after the 400s');
  });

  test('methods: the list takes GET and POST, a cell detail GET and PATCH (405 with Allow)', async () => {
    const cell = await createCell(ws.projectAdmin.api, ws.org.sid, (await createRow(ws)).sid, ws.columns.text.sid, 'x');
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      expectMethodNotAllowed(await ws.projectAdmin.api.request(method, cellList(ws.org.sid, 'detail'), { body: {} }), ['GET', 'POST'], method);
    }
    for (const method of ['POST', 'PUT', 'DELETE']) {
      expectMethodNotAllowed(await ws.projectAdmin.api.request(method, recordPaths.cellDetail(cell.sid), method === 'DELETE' ? {} : { body: {} }), ['GET', 'PATCH'], method);
    }
    expectMethodNotAllowed(await anonymous.delete(recordPaths.cellDetail(cell.sid)), ['GET', 'PATCH'], '405 before authentication');
  });
});

describe('cell GET and conditional writes (issue 22, point 10)', () => {
  /** The 412 of a cell PATCH whose If-Match is stale: it names the GET that gives the current ETag. */
  const changed = (sid: string) => `The cell changed since you read it: GET /tables/cell/detail/${sid}/ and retry with its ETag.`;

  test("GET: the detail shape, as its row's readers see it in the cell list; 404 for who cannot read the row, 403 for an Alumni", async () => {
    const row = await createRow(ws);
    const cell = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'read me');
    for (const role of ['admin', 'projectAdmin', 'projectEdit', 'projectView'] as const) {
      const res = expectStatus(await ws.api[role].get(recordPaths.cellDetail(cell.sid)), 200, role);
      const [listed] = (await ws.api[role].get(cellList(ws.org.sid, 'detail', { row__sid: row.sid }))).json.results;
      assert.deepEqual(res.json, listed, `${role}: the cell as the detail list shows it to them`);
      assert.equal(res.json.change_permission, role === 'projectAdmin' || role === 'projectEdit', `${role}: change_permission`);
    }
    assert.deepEqual((await ws.projectAdmin.api.get(recordPaths.cellDetail(cell.sid))).json, { ...cell, change_permission: true }, 'as the POST answered it');
    expectDetail(await ws.member.api.get(recordPaths.cellDetail(cell.sid)), 404, MESSAGES.notFound, 'a member without a project role');
    expectDetail(await ws.outsider.api.get(recordPaths.cellDetail(cell.sid)), 404, MESSAGES.notFound, 'another organization');
    expectForbidden(await ws.alumni.api.get(recordPaths.cellDetail(cell.sid)), 'an Alumni');
    expectNotAuthenticated(await anonymous.get(recordPaths.cellDetail(cell.sid)));
    for (const sid of ['0000000000000000', 'nonsense', row.sid]) expectDetail(await ws.projectAdmin.api.get(recordPaths.cellDetail(sid)), 404, MESSAGES.notFound, sid);
  });

  test('ETag: the create (201), the GET and the PATCH answers carry the one If-Match compares; a stale one is refused (412) naming the GET', async () => {
    const row = await createRow(ws);
    const created = await postCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'v1');
    expectStatus(created, 201);
    const first = created.headers.get('etag');
    assert.match(String(first), /^"[A-Za-z0-9_-]{20,}"$/, 'the 201 carries a quoted entity tag');
    const sid = created.json.sid as string;
    const read = expectStatus(await ws.projectAdmin.api.get(recordPaths.cellDetail(sid)), 200);
    assert.equal(read.headers.get('etag'), first, "the GET's ETag is the create's");
    assert.deepEqual(read.json, created.json, 'and so is its body');

    const patched = expectStatus(await ws.projectAdmin.api.patch(recordPaths.cellDetail(sid), { data: 'v2' }, { headers: { 'if-match': first! } }), 200, "If-Match with the create's ETag");
    const second = patched.headers.get('etag');
    assert.notEqual(second, first, 'a new ETag after the change');
    assert.equal((await ws.projectAdmin.api.get(recordPaths.cellDetail(sid))).headers.get('etag'), second, "the PATCH answer's ETag is the GET's");

    const versions = (await listVersions(ws.admin.api, ws.org.sid, row.sid)).length;
    expectDetail(await ws.projectAdmin.api.patch(recordPaths.cellDetail(sid), { data: 'v3' }, { headers: { 'if-match': first! } }), 412, changed(sid), 'the stale ETag');
    const after = expectStatus(await ws.projectAdmin.api.get(recordPaths.cellDetail(sid)), 200);
    assert.equal(after.json.data, 'v2', 'the refused change did not land');
    assert.equal(after.headers.get('etag'), second, 'nor changed the ETag');
    assert.equal((await listVersions(ws.admin.api, ws.org.sid, row.sid)).length, versions, 'nor made a version');

    // Another editor reads the cell with GET and writes with its ETag (the ETag is of the cell as each caller sees it).
    const theirs = expectStatus(await ws.projectEdit.api.get(recordPaths.cellDetail(sid)), 200).headers.get('etag')!;
    expectStatus(await ws.projectEdit.api.patch(recordPaths.cellDetail(sid), { data: 'v3' }, { headers: { 'if-match': theirs } }), 200, "the editor's If-Match from their GET");
    expectDetail(await ws.projectAdmin.api.patch(recordPaths.cellDetail(sid), { data: 'v4' }, { headers: { 'if-match': second! } }), 412, changed(sid), 'the first editor, stale now');
  });
});

describe('cell PATCH', () => {
  test('200 with the detail shape; a new version; the same data again changes nothing', async () => {
    const row = await createRow(ws);
    const cell = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'before');
    const res = await patchCell(ws.projectEdit.api, cell.sid, 'after');
    expectStatus(res, 200);
    const changed = assertRecordShape(res.json, 'cell.detail', 'patched');
    assert.deepEqual({ ...changed, date_updated: cell.date_updated }, { ...cell, data: 'after' }, 'only data and date_updated change');
    assert.ok(changed.date_updated > cell.date_updated, 'date_updated moves on');
    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assert.deepEqual(versions.map((v) => v.activity_message), ['Created the row', 'Created the cell of Column text', 'Changed the cell of Column text']);
    assert.deepEqual(versions[2].data.cells, { [ws.columns.text.sid]: 'after' });
    assert.equal(versions[2].updated_by, `${ws.projectEdit.first_name} ${ws.projectEdit.last_name}`);

    const before = await snapshotRow(ws, row.sid);
    const same = expectStatus(await patchCell(ws.projectAdmin.api, cell.sid, 'after'), 200, 'the same data');
    assert.deepEqual(same.json, changed);
    await assertRowUnchanged(ws, row.sid, before, 'PATCH with the same data');
  });

  test('"Wrong id - the provided sid is not correct" (406) for a sid that is not a cell of the caller\'s organizations', async () => {
    const row = await createRow(ws);
    const cell = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'mine');
    const before = await snapshotRow(ws, row.sid);
    for (const sid of ['0000000000000000', 'nonsense', row.sid, ws.columns.text.sid]) {
      expectPlainText(await patchCell(ws.projectAdmin.api, sid, 'x'), 406, 'Wrong id - the provided sid is not correct', sid);
    }
    expectPlainText(await patchCell(ws.outsider.api, cell.sid, 'x'), 406, 'Wrong id - the provided sid is not correct', 'a cell of another organization');
    await assertRowUnchanged(ws, row.sid, before, 'after the wrong ids');
  });

  test('400: unknown fields, a missing or non-string data; nothing changes', async () => {
    const row = await createRow(ws);
    const cell = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'kept');
    const before = await snapshotRow(ws, row.sid);
    const patch = (body: unknown) => ws.projectAdmin.api.patch(recordPaths.cellDetail(cell.sid), body);
    expectFieldErrors(await patch({}), { data: ['This field is required.'] });
    expectFieldErrors(await patch({ data: 'x', column: ws.columns.postPlain.sid }), { column: ['Unknown field.'] });
    expectFieldErrors(await patch({ data: null }), ['data']);
    await assertRowUnchanged(ws, row.sid, before, 'after the 400s');
  });
});

describe('cell writes × role × row state × widget flag', () => {
  for (const role of ROLES) {
    test(`${ROLE_NAMES[role]}: POST and PATCH on open, locked and archived rows, with and without addable_at_readonly`, async () => {
      for (const state of ROW_STATES) {
        const row = await createRow(ws);
        const existing = {
          plain: await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.patchPlain.sid, 'plain before'),
          readonly: await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.patchReadonly.sid, 'readonly before'),
        };
        if (state !== 'open') await setRowState(ws, row.sid, state);
        let before = await snapshotRow(ws, row.sid);
        for (const flag of ['plain', 'readonly'] as const) {
          for (const op of ['POST', 'PATCH'] as const) {
            const context = `${ROLE_NAMES[role]} ${op} on a ${state} row, widget ${flag === 'readonly' ? 'addable_at_readonly' : 'not addable_at_readonly'}`;
            const data = `${op} by ${role} (${state}, ${flag})`;
            const column = op === 'POST' ? (flag === 'plain' ? ws.columns.postPlain : ws.columns.postReadonly) : null;
            const res: Answer = op === 'POST'
              ? await postCell(ws.api[role], ws.org.sid, row.sid, column!.sid, data)
              : await patchCell(ws.api[role], existing[flag].sid, data);
            const allowed = writers.includes(role) && (state === 'open' || (state === 'locked' && flag === 'readonly'));
            if (!allowed) {
              if (role === 'anonymous') expectNotAuthenticated(res, context);
              else if (role === 'outsider' && op === 'PATCH') expectPlainText(res, 406, MESSAGES.wrongId, context);
              else if (role === 'admin') expectDetail(res, 403, needsProjectRole(ws), `${context}: the Admin is told to join the project`);
              else if (!writers.includes(role)) expectForbidden(res, context);
              else expectPlainText(res, 406, stateMessage(state as Exclude<RowState, 'open'>, row.sid, op === 'POST'), context);
              before = await assertRowUnchanged(ws, row.sid, before, context);
              continue;
            }
            expectStatus(res, op === 'POST' ? 201 : 200, context);
            const cell = assertRecordShape(res.json, 'cell.detail', context);
            assert.equal(cell.data, data, `${context}: data`);
            assert.equal(cell.change_permission, true, `${context}: change_permission`);
            const after = await snapshotRow(ws, row.sid);
            assert.equal(after.versions, before.versions + 1, `${context}: one new version`);
            assert.equal(after.row.version, before.row.version + 1, `${context}: the row's head moved`);
            assert.deepEqual(after.cells.find((c) => c.sid === cell.sid), { ...cell, change_permission: false }, `${context}: the cell as answered (read by the org Admin, who may not change it)`);
            assert.equal(after.credits, before.credits, `${context}: a free widget costs nothing`);
            assert.equal(after.ledger, before.ledger, `${context}: and writes no ledger entry`);
            const [last] = (await listVersions(ws.admin.api, ws.org.sid, row.sid)).slice(-1);
            assert.equal(last.data.cells[cell.column.sid], data, `${context}: the version holds the new data`);
            const writer = ws[role as 'projectAdmin' | 'projectEdit'];
            assert.equal(last.updated_by, `${writer.first_name} ${writer.last_name}`, `${context}: updated_by`);
            before = after;
          }
        }
      }
    });
  }
});

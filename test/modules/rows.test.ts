// Rows (design: Resources the spec relies on; decisions: Records): created by Project
// Admin and Edit with version 1; read by the org Admin and the project's members; name
// and description changed by Project Admin and Edit, is_locked and is_archived by Project
// Admin only; locked and archived rows refuse what the decisions say; refusals change nothing.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous } from '../helpers/http.ts';
import {
  needsProjectRole, expectDetail, expectFieldErrors, expectForbidden, expectMethodNotAllowed, expectNotAuthenticated, expectNotFound, expectPlainText,
  expectStatus, MESSAGES,
} from '../helpers/assertions.ts';
import {
  assertRecordPage, assertRecordShape, assertRowUnchanged, createCell, createRow, foreignRecords, listVersions, newWorkspace, postRow,
  readAll, readRow, recordPaths, ROLE_NAMES, ROLES, ROW_STATES, setRowState, snapshotRow,
  type Role, type RowState, type Workspace,
} from '../helpers/records.ts';

const LOCKED = 'The row is locked; unlock it before changing its name or description.';
const ARCHIVED = 'The row is archived; unarchive it before changing it.';

let ws: Workspace;

before(async () => {
  ws = await newWorkspace({ label: 'row', rows: 0 });
});

const rowList = (query: Record<string, string | number> = {}, serializer = 'list') => recordPaths.rowList(ws.org.sid, serializer, query);
const fullName = (who: { first_name: string; last_name: string }) => `${who.first_name} ${who.last_name}`;

/** How many rows of the project the org Admin sees. */
async function projectRowCount(): Promise<number> {
  return assertRecordPage(await ws.admin.api.get(rowList({ project__sid: ws.project.sid, page_size: 1 }, 'name')), 'row.name').count;
}


describe('row POST', () => {
  test('201 in the detail shape, with version 1 holding the row\'s data', async () => {
    const res = await postRow(ws, { name: 'Sample 1', description: 'first sample' }, ws.projectEdit.api);
    expectStatus(res, 201);
    const row = assertRecordShape(res.json, 'row.detail', 'created row');
    assert.deepEqual(
      { name: row.name, description: row.description, table: row.table, project: row.project, is_locked: row.is_locked, is_archived: row.is_archived,
        version: row.version, cells: row.cells, created_by: row.created_by, change_permission: row.change_permission },
      { name: 'Sample 1', description: 'first sample', table: { sid: ws.table.sid, name: ws.table.name }, project: { sid: ws.project.sid, name: ws.project.name },
        is_locked: false, is_archived: false, version: 1, cells: [], created_by: fullName(ws.projectEdit), change_permission: true },
    );
    const [v1, ...more] = await listVersions(ws.projectView.api, ws.org.sid, row.sid);
    assert.equal(more.length, 0, 'one version');
    assert.deepEqual(
      { version: v1.version, previousHash: v1.previousHash, hash: v1.hash, name: v1.name, activity_message: v1.activity_message, data: v1.data, commit: v1.commit, is_valid: v1.is_valid },
      { version: 1, previousHash: '', hash: row.hash, name: 'Sample 1 (1)', activity_message: 'Created the row',
        data: { name: 'Sample 1', description: 'first sample', is_locked: false, is_archived: false, cells: {} }, commit: null, is_valid: true },
    );
    const named = await postRow(ws, { name: 'Sample 2' }, ws.projectAdmin.api.via('Token'));
    expectStatus(named, 201, 'Authorization: Token');
    assert.equal(named.json.description, '', 'description defaults to ""');
    const short = await ws.projectAdmin.api.post(recordPaths.rowList(ws.org.sid, 'name', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name: 'Short' });
    expectStatus(short, 201, 'POST on the name serializer');
    assertRecordShape(short.json, 'row.name', 'answered in the URL\'s shape');
  });

  for (const role of ROLES) {
    const allowed = role === 'projectAdmin' || role === 'projectEdit';
    test(`${ROLE_NAMES[role]}: ${allowed ? '201' : 'refused, and no row is added'}`, async () => {
      const before = await projectRowCount();
      const res = await postRow(ws, { name: `By ${role}` }, ws.api[role]);
      if (allowed) {
        expectStatus(res, 201, role);
        assert.equal(res.json.created_by, fullName(ws[role as 'projectAdmin']));
        assert.equal(await projectRowCount(), before + 1);
        return;
      }
      if (role === 'anonymous') expectNotAuthenticated(res, role);
      else if (role === 'admin') expectDetail(res, 403, needsProjectRole(ws), 'the org Admin is told to join the project');
      else expectForbidden(res, role);
      assert.equal(await projectRowCount(), before, `${role}: no row added`);
    });
  }

  test('400: missing or foreign table__sid and project__sid, a blank name, unknown fields; nothing is added', async () => {
    const before = await projectRowCount();
    const post = (query: Record<string, string>, body: unknown) => ws.projectAdmin.api.post(recordPaths.rowList(ws.org.sid, 'detail', query), body);
    const both = { table__sid: ws.table.sid, project__sid: ws.project.sid };
    expectFieldErrors(await post({ project__sid: ws.project.sid }, { name: 'x' }), { table__sid: ['This field is required.'] });
    // The project may come as ?project__sid= or as Labii's `projects` in the body: without either, the refusal names both.
    expectFieldErrors(await post({ table__sid: ws.table.sid }, { name: 'x' }), { project__sid: ['Give the row\'s project: ?project__sid= or `projects: [{"sid": …}]` in the body.'] });
    const theirs = await foreignRecords(ws);
    expectFieldErrors(await post({ table__sid: theirs.table.sid, project__sid: theirs.project.sid }, { name: 'x' }), {
      table__sid: ['No table with this sid in this organization.'], project__sid: ['No project with this sid in this organization.'],
    });
    expectFieldErrors(await post({ table__sid: 'nonsense', project__sid: ws.project.sid }, { name: 'x' }), { table__sid: ['No table with this sid in this organization.'] });
    expectFieldErrors(await post(both, {}), { name: ['This field is required.'] });
    expectFieldErrors(await post(both, { name: '' }), { name: ['This field may not be blank.'] });
    expectFieldErrors(await post(both, { name: 'x'.repeat(256) }), ['name']);
    expectFieldErrors(await post(both, { name: 'x', is_locked: true }), { is_locked: ['Unknown field.'] });
    assert.equal(await projectRowCount(), before, 'no row added');
    const theirRows = await readAll(ws.outsider.api, (q) => recordPaths.rowList(ws.outsiderOrg.sid, 'name', q));
    assert.deepEqual(theirRows.map((r) => r.sid), [theirs.row.sid], 'nothing added to the other organization');
  });
});

describe('row list and detail', () => {
  let row: any;
  let other: any; // a row of another project, where only the org Admin and the other project's members see it

  before(async () => {
    row = await createRow(ws, { name: `Listed ${Date.now()}`, description: 'listed' });
    await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'a value');
    row = await readRow(ws.admin.api, row.sid);
    const project = expectStatus(await ws.admin.api.post(recordPaths.projectList(ws.org.sid), { name: 'Other project' }), 201).json;
    expectStatus(await ws.admin.api.post(recordPaths.memberList(project.sid), { personnel: ws.projectView.personnel.sid, permission: 'admin' }), 201);
    other = expectStatus(await ws.projectView.api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: project.sid }), { name: 'Elsewhere' }), 201).json;
  });

  test('the name, list and detail shapes, exactly; filters by table__sid and project__sid', async () => {
    const get = (serializer: string, query: Record<string, string | number>) => ws.projectEdit.api.get(rowList({ page_size: 100, ...query }, serializer));
    const name = assertRecordPage(await get('name', { project__sid: ws.project.sid }), 'row.name', 'name');
    assert.deepEqual(name.results.find((r) => r.sid === row.sid), { sid: row.sid, name: row.name });
    const list = assertRecordPage(await get('list', { project__sid: ws.project.sid }), 'row.list', 'list');
    assert.deepEqual(list.results.find((r) => r.sid === row.sid), {
      sid: row.sid, name: row.name, table: row.table, project: row.project, is_locked: false, is_archived: false, version: 2, change_permission: true,
      uid: row.uid, table__name_plural: row.table__name_plural, projects: [row.project], owner: row.owner, is_template: false, open_to_organization: false,
      column_set: row.column_set,
    });
    const detail = assertRecordPage(await get('detail', { table__sid: ws.table.sid }), 'row.detail', 'detail');
    assert.deepEqual(detail.results.find((r) => r.sid === row.sid), { ...row, change_permission: true });
    assert.equal(row.cells.length, 1);
    const [lastVersion] = (await listVersions(ws.admin.api, ws.org.sid, row.sid)).slice(-1);
    assert.equal(row.hash, lastVersion.hash, 'the row\'s hash is its last version\'s');
    assert.equal(row.version, lastVersion.version);
    assert.ok(!detail.results.some((r) => r.sid === other.sid), 'Project Edit does not see a row of another project');
    const theirs = await foreignRecords(ws);
    for (const query of [{ table__sid: theirs.table.sid }, { project__sid: theirs.project.sid }] as Record<string, string>[]) {
      const page = assertRecordPage(await ws.admin.api.get(rowList(query)), 'row.list', JSON.stringify(query));
      assert.equal(page.count, 0, 'another organization\'s table or project: nothing');
    }
  });

  test('another organization\'s table as table__sid: none of its rows, in any shape, read by the Admin or a member, with or without is_archived', async () => {
    const theirs = await foreignRecords(ws);
    for (const reader of [ws.admin, ws.projectEdit]) {
      for (const serializer of ['name', 'list', 'detail'] as const) {
        for (const query of [{ table__sid: theirs.table.sid }, { table__sid: theirs.table.sid, is_archived: 'false' }] as Record<string, string>[]) {
          const page = assertRecordPage(await reader.api.get(rowList(query, serializer)), `row.${serializer}`, `${serializer} ${JSON.stringify(query)}`);
          assert.deepEqual({ count: page.count, results: page.results }, { count: 0, results: [] }, `${serializer} ${JSON.stringify(query)}`);
        }
      }
    }
    // Their own organization's list of that table holds their row (the filter, not the table, is what found nothing above).
    const own = assertRecordPage(await ws.outsider.api.get(recordPaths.rowList(ws.outsiderOrg.sid, 'name', { table__sid: theirs.table.sid })), 'row.name', 'theirs');
    assert.deepEqual(own.results, [{ sid: theirs.row.sid, name: theirs.row.name }]);
  });

  for (const role of ROLES) {
    test(`read by the ${ROLE_NAMES[role]}`, async () => {
      const api = ws.api[role];
      const listed = await api.get(rowList({ page_size: 100, project__sid: ws.project.sid }));
      const all = await api.get(rowList({ page_size: 100 }));
      const shown = await api.get(recordPaths.rowDetail(row.sid));
      if (role === 'anonymous') {
        for (const res of [listed, all, shown]) expectNotAuthenticated(res, role);
        return;
      }
      if (role === 'alumni') {
        for (const res of [listed, all, shown]) expectForbidden(res, role);
        return;
      }
      if (role === 'outsider') {
        expectForbidden(listed, 'a list of another organization');
        expectForbidden(all, 'a list of another organization');
        expectNotFound(shown, 'a row of another organization');
        return;
      }
      const inProject = assertRecordPage(listed, 'row.list', role);
      const everything = assertRecordPage(all, 'row.list', role);
      const writes = role === 'projectAdmin' || role === 'projectEdit';
      assert.equal(inProject.add_permission, writes, `${role}: add_permission with project__sid`);
      assert.equal(everything.add_permission, false, `${role}: add_permission without project__sid`);
      if (role === 'member') {
        assert.equal(everything.count, 0, 'a Member without a project role sees no row');
        expectNotFound(shown, role);
        return;
      }
      assert.ok(inProject.results.some((r) => r.sid === row.sid), `${role} lists the row`);
      assert.equal(inProject.results.find((r) => r.sid === row.sid).change_permission, writes);
      assert.equal(everything.results.some((r) => r.sid === other.sid), role === 'admin' || role === 'projectView',
        `${role}: a row of another project is listed only for the org Admin and that project's members`);
      const detail = assertRecordShape(expectStatus(shown, 200, role).json, 'row.detail', role);
      assert.deepEqual(detail, { ...row, change_permission: writes });
    });
  }

  test('detail: 404 for an unknown sid; methods other than GET and PATCH are 405 with Allow', async () => {
    expectNotFound(await ws.admin.api.get(recordPaths.rowDetail('0000000000000000')));
    expectNotFound(await ws.admin.api.get(recordPaths.rowDetail('nonsense')));
    for (const method of ['POST', 'PUT', 'DELETE']) {
      expectMethodNotAllowed(await ws.projectAdmin.api.request(method, recordPaths.rowDetail(row.sid), method === 'DELETE' ? {} : { body: {} }), ['GET', 'PATCH'], method);
    }
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      expectMethodNotAllowed(await ws.projectAdmin.api.request(method, rowList(), { body: {} }), ['GET', 'POST'], method);
    }
    expectPlainText(await ws.admin.api.get(recordPaths.rowList(ws.org.sid, 'everything')), 406, MESSAGES.wrongSerializer);
    expectPlainText(await ws.admin.api.get(recordPaths.rowList(ws.org.sid, 'list', undefined, 'project')), 406, MESSAGES.wrongLevel);
    assert.deepEqual(await readRow(ws.admin.api, row.sid), { ...row, change_permission: false }, 'nothing changed');
  });
});

describe('row PATCH × role × row state', () => {
  type Kind = 'rename' | 'lock' | 'archive';
  const KINDS: Kind[] = ['rename', 'lock', 'archive'];

  /** The body of a change of `kind` on a row that is now in `state` (lock and archive toggle). */
  const bodyOf = (kind: Kind, state: RowState, role: Role) => (kind === 'rename'
    ? { name: `Renamed by ${role} (${state})` }
    : kind === 'lock' ? { is_locked: state !== 'locked' } : { is_archived: state !== 'archived' });

  /** What the decisions say happens; null: allowed. */
  function refusal(role: Role, state: RowState, kind: Kind): { status: number; detail: string } | null {
    if (role === 'anonymous') return { status: 401, detail: MESSAGES.notAuthenticated };
    if (role === 'outsider' || role === 'member') return { status: 404, detail: MESSAGES.notFound };
    // The org Admin renaming is told to join the project (issue 12); a lock or archive needs Project Admin: the plain 403.
    if (role === 'admin' && kind === 'rename') return { status: 403, detail: needsProjectRole(ws) };
    if (role === 'alumni' || role === 'admin' || role === 'projectView') return { status: 403, detail: MESSAGES.forbidden };
    if (kind !== 'rename' && role !== 'projectAdmin') return { status: 403, detail: MESSAGES.forbidden };
    if (kind === 'rename' && state !== 'open') return { status: 400, detail: state === 'locked' ? LOCKED : ARCHIVED };
    if (kind === 'lock' && state === 'archived') return { status: 400, detail: ARCHIVED };
    return null;
  }

  const ACTIVITY = {
    rename: () => 'Renamed the row',
    lock: (state: RowState) => (state === 'locked' ? 'Unlocked the row' : 'Locked the row'),
    archive: (state: RowState) => (state === 'archived' ? 'Unarchived the row' : 'Archived the row'),
  };

  /** Back to `state` (is_locked, is_archived) = (open: false, false; locked: true, false; archived: false, true). */
  async function restore(rowSid: string, state: RowState) {
    expectStatus(await ws.projectAdmin.api.patch(recordPaths.rowDetail(rowSid), { is_archived: false, is_locked: state === 'locked' }), 200, 'restoring');
    if (state === 'archived') await setRowState(ws, rowSid, 'archived');
  }

  for (const role of ROLES) {
    test(`${ROLE_NAMES[role]}: rename, lock/unlock and archive/unarchive on open, locked and archived rows`, async () => {
      for (const state of ROW_STATES) {
        const row = await createRow(ws, { name: `Patched by ${role}`, description: 'kept' });
        if (state !== 'open') await setRowState(ws, row.sid, state);
        let before = await snapshotRow(ws, row.sid);
        for (const kind of KINDS) {
          const context = `${ROLE_NAMES[role]} ${kind} on a ${state} row`;
          const body = bodyOf(kind, state, role);
          const res = await ws.api[role].patch(recordPaths.rowDetail(row.sid), body);
          const refused = refusal(role, state, kind);
          if (refused) {
            expectDetail(res, refused.status, refused.detail, context);
            before = await assertRowUnchanged(ws, row.sid, before, context);
            continue;
          }
          expectStatus(res, 200, context);
          const changed = assertRecordShape(res.json, 'row.detail', context);
          assert.deepEqual(changed, {
            ...before.row, ...body, version: before.row.version + 1, hash: changed.hash, date_updated: changed.date_updated, change_permission: true,
            updated_by: fullName(ws[role as 'projectAdmin']),
          }, context);
          assert.ok(changed.date_updated > before.row.date_updated, `${context}: date_updated moves on`);
          const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
          const last = versions[versions.length - 1];
          assert.equal(versions.length, before.versions + 1, `${context}: one new version`);
          assert.equal(last.activity_message, ACTIVITY[kind](state), `${context}: activity_message`);
          assert.equal(last.updated_by, fullName(ws[role as 'projectAdmin']), `${context}: updated_by`);
          assert.equal(last.hash, changed.hash, `${context}: the row's hash is the new version's`);
          assert.deepEqual(last.data, { name: changed.name, description: 'kept', is_locked: changed.is_locked, is_archived: changed.is_archived, cells: {} });
          await restore(row.sid, state);
          before = await snapshotRow(ws, row.sid);
        }
      }
    });
  }

  test('a Project Admin unlocks and renames in one PATCH: one version naming both changes', async () => {
    const row = await createRow(ws);
    await setRowState(ws, row.sid, 'locked');
    const res = expectStatus(await ws.projectAdmin.api.patch(recordPaths.rowDetail(row.sid), { name: 'Unlocked and renamed', is_locked: false }), 200);
    assert.equal(res.json.name, 'Unlocked and renamed');
    assert.equal(res.json.is_locked, false);
    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assert.deepEqual(versions.map((v) => v.activity_message), ['Created the row', 'Locked the row', 'Renamed the row; Unlocked the row']);
  });

  test('a Project Edit sending a name with is_locked is refused whole (403); nothing changes', async () => {
    const row = await createRow(ws);
    const before = await snapshotRow(ws, row.sid);
    expectForbidden(await ws.projectEdit.api.patch(recordPaths.rowDetail(row.sid), { name: 'Sneaky', is_locked: true }));
    await assertRowUnchanged(ws, row.sid, before, 'Project Edit with is_locked');
  });

  test('a PATCH that changes nothing appends no version; bad bodies are 400 and change nothing', async () => {
    const row = await createRow(ws, { name: 'Same', description: 'same' });
    const before = await snapshotRow(ws, row.sid);
    const same = expectStatus(await ws.projectAdmin.api.patch(recordPaths.rowDetail(row.sid), { name: 'Same', description: 'same', is_locked: false, is_archived: false }), 200);
    assert.deepEqual(same.json, { ...before.row, change_permission: true });
    const patch = (body: unknown) => ws.projectAdmin.api.patch(recordPaths.rowDetail(row.sid), body);
    expectFieldErrors(await patch({}), ['non_field_errors']);
    expectFieldErrors(await patch({ name: '' }), { name: ['This field may not be blank.'] });
    expectFieldErrors(await patch({ version: 7 }), { version: ['Unknown field.'] });
    expectFieldErrors(await patch({ is_locked: 'yes' }), ['is_locked']);
    expectFieldErrors(await patch({ description: 'x'.repeat(10_001) }), ['description']);
    await assertRowUnchanged(ws, row.sid, before, 'after the no-op and the 400s');
    expectNotFound(await ws.projectAdmin.api.patch(recordPaths.rowDetail('0000000000000000'), { name: 'x' }), 'unknown row');
    expectNotAuthenticated(await anonymous.patch(recordPaths.rowDetail(row.sid), { name: 'x' }), 'no token');
  });
});

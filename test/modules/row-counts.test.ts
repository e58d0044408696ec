// The row list's and the grid's `count` come from counters kept in every row write's
// transaction (issue 15, target 4: a list over 100,000 rows costs what it costs over
// 1,000). These tests hold each count against the rows the same caller can walk through
// page by page: after creates, archiving, locking and unarchiving, for an Admin and for
// members who see only their projects' rows, under every filter the counters count, after
// creates racing over two server processes, and (PostgreSQL, where a test reaches the
// database) after rows are deleted behind the API.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { DB_KIND, TEST_DATABASE_URL } from '../helpers/env.ts';
import { assertPage, expectStatus } from '../helpers/assertions.ts';
import { unique } from '../helpers/factories.ts';
import { withQuery, type Api, type Query } from '../helpers/http.ts';
import { createRow, newWorkspace, readAll, recordPaths, setRowState, type Workspace } from '../helpers/records.ts';
import { spreadOverServers } from '../helpers/server.ts';

const spread = spreadOverServers();
const grid = (tableSid: string, query?: Query) => withQuery(`/tables/row/list/table/${encodeURIComponent(tableSid)}/grid/`, query);

let ws: Workspace;
let project2: { sid: string };

before(async () => {
  ws = await newWorkspace({ label: 'cnt', rows: 0 });
  const made = await ws.admin.api.post(recordPaths.projectList(ws.org.sid), { name: `Project ${unique('p')}` });
  expectStatus(made, 201);
  project2 = made.json;
  // The Project Admin writes in both projects; the Project View reads only the first; the Member only the second.
  for (const [who, permission] of [[ws.projectAdmin, 'admin'], [ws.member, 'view']] as const) {
    expectStatus(await ws.admin.api.post(recordPaths.memberList(project2.sid), { personnel: who.personnel.sid, permission }), 201);
  }
});

const rowIn = (projectSid: string, name = `Row ${unique('r')}`, api: Api = ws.projectAdmin.api) =>
  api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: projectSid }), { name });

/** The `count` of page 1 of a list. */
async function countOf(api: Api, path: string): Promise<number> {
  return assertPage(await api.get(path)).count;
}

/**
 * Every count the counters answer, held against the rows `api` walks through: the row
 * list (by table, by project, by both, the whole organization) and the grid under each
 * combination of project, is_archived and is_locked. Returns the table's row count.
 */
async function expectExactCounts(api: Api, who: string): Promise<number> {
  const mine = await readAll(api, (q) => recordPaths.rowList(ws.org.sid, 'list', { ...q, table__sid: ws.table.sid }));
  const inOrg = await readAll(api, (q) => recordPaths.rowList(ws.org.sid, 'list', q));
  const lists: [Query, any[]][] = [
    [{ table__sid: ws.table.sid }, mine],
    [{}, inOrg],
    [{ project__sid: ws.project.sid }, inOrg.filter((r) => r.project.sid === ws.project.sid)],
    [{ table__sid: ws.table.sid, project__sid: project2.sid }, mine.filter((r) => r.project.sid === project2.sid)],
    // An empty filter filters nothing, for the page and for its count alike.
    [{ table__sid: '', project__sid: '' }, inOrg],
  ];
  for (const [query, expected] of lists) {
    assert.equal(await countOf(api, recordPaths.rowList(ws.org.sid, 'name', { ...query, page_size: 1 })), expected.length,
      `${who}: the row list's count with ${JSON.stringify(query)}`);
  }
  for (const project of [undefined, ws.project.sid, project2.sid]) {
    for (const archived of [undefined, true, false]) {
      for (const locked of [undefined, true, false]) {
        const expected = mine.filter((r) => (project === undefined || r.project.sid === project)
          && (archived === undefined || r.is_archived === archived) && (locked === undefined || r.is_locked === locked)).length;
        const query = { project__sid: project, is_archived: archived?.toString(), is_locked: locked?.toString(), page_size: 1 };
        assert.equal(await countOf(api, grid(ws.table.sid, query)), expected, `${who}: the grid's count with ${JSON.stringify(query)}`);
      }
    }
  }
  return mine.length;
}

async function expectExactForEveryone(): Promise<number> {
  const all = await expectExactCounts(ws.admin.api, 'the Admin');
  await expectExactCounts(ws.projectView.api, 'a Project View of the first project');
  await expectExactCounts(ws.member.api, 'a Member who views the second project');
  return all;
}

describe('row counts are exact', () => {
  test('after creates in two projects, archiving, locking, both, and unarchiving; for the Admin and for members who see some projects', async () => {
    assert.equal(await expectExactForEveryone(), 0, 'an empty table');
    const first = [];
    for (let i = 0; i < 5; i += 1) first.push((await rowIn(ws.project.sid)).json);
    const second = [];
    for (let i = 0; i < 3; i += 1) second.push((await rowIn(project2.sid)).json);
    assert.equal(await expectExactForEveryone(), 8);

    await setRowState(ws, first[0].sid, 'archived');
    await setRowState(ws, first[1].sid, 'locked');
    await setRowState(ws, first[2].sid, 'locked');
    await setRowState(ws, first[2].sid, 'archived');
    await setRowState(ws, second[0].sid, 'locked');
    assert.equal(await expectExactForEveryone(), 8, 'archiving and locking keep the rows');
    await setRowState(ws, first[0].sid, 'open');
    await setRowState(ws, first[2].sid, 'open');
    expectStatus(await ws.projectAdmin.api.patch(recordPaths.rowDetail(second[1].sid), { name: 'renamed', description: 'changed' }), 200);
    assert.equal(await expectExactForEveryone(), 8);
    // A search is counted row by row, and agrees.
    const res = await ws.admin.api.get(grid(ws.table.sid, { search: 'renamed' }));
    assert.equal(assertPage(res).count, 1);
  });

  test('after row creates racing over two server processes (PostgreSQL: both share the database)', async () => {
    const before = await countOf(ws.admin.api, recordPaths.rowList(ws.org.sid, 'name', { table__sid: ws.table.sid }));
    const racing = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      rowIn(i % 2 ? ws.project.sid : project2.sid, `Racing ${i}`, spread.through(ws.projectAdmin.api, i))));
    for (const res of racing) expectStatus(res, 201);
    assert.equal(await expectExactForEveryone(), before + 30);
  });

  test('after rows are deleted behind the API (PostgreSQL), and the counters agree with the table', async () => {
    const before = await countOf(ws.admin.api, recordPaths.rowList(ws.org.sid, 'name', { table__sid: ws.table.sid }));
    const doomed = [await createRow(ws, { name: 'Doomed one' }), (await rowIn(project2.sid, 'Doomed two')).json];
    await setRowState(ws, doomed[0].sid, 'archived');
    if (DB_KIND !== 'postgres') {
      // The embedded database belongs to the server process: no test reaches it but through HTTP.
      assert.equal(await expectExactForEveryone(), before + 2);
      return;
    }
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL! });
    await client.connect();
    try {
      await client.query('DELETE FROM record_rows WHERE sid = ANY($1)', [doomed.map((r) => r.sid)]);
      assert.equal(await expectExactForEveryone(), before);
      const { rows: [check] } = await client.query(`
        SELECT (SELECT count(*) FROM record_rows WHERE table_sid = $1)::int AS rows,
               (SELECT sum(rows) FROM record_row_counts WHERE table_sid = $1)::int AS counted,
               (SELECT count(*) FILTER (WHERE is_archived AND is_locked) FROM record_rows WHERE table_sid = $1)::int AS both,
               (SELECT sum(archived_locked) FROM record_row_counts WHERE table_sid = $1)::int AS counted_both`, [ws.table.sid]);
      assert.equal(check.rows, before);
      assert.equal(check.counted, check.rows, 'the counters hold the table\'s rows');
      assert.equal(check.counted_both, check.both, 'and its archived and locked rows');
    } finally {
      await client.end();
    }
  });
});

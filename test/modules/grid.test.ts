// The grid's API (issue 13): GET /tables/row/list/table/{table_sid}/grid/ — a page of a
// table's rows, each in the row detail shape with `cells` keyed by column sid (each cell
// as its detail gives it), filtered and ordered on the server, counted exactly, with the
// row list's permission rules, and a number of queries that does not grow with the page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, type Api } from '../helpers/http.ts';
import {
  MESSAGES, assertPage, expectDetail, expectFieldErrors, expectNotAuthenticated, expectForbidden, expectPlainText, expectStatus,
  expectMethodNotAllowed,
} from '../helpers/assertions.ts';
import { unique } from '../helpers/factories.ts';
import {
  createCell, createRow, foreignRecords, listCells, newSmallWorkspaceAt, newWorkspace, readRow, recordPaths, setRowState,
  type ForeignRecords, type Role, type Workspace,
} from '../helpers/records.ts';
import { withQuery, type Query } from '../helpers/http.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { DB_KIND } from '../helpers/env.ts';

const grid = (tableSid: string, query?: Query) => withQuery(`/tables/row/list/table/${encodeURIComponent(tableSid)}/grid/`, query);
/** The row detail's keys but Labii's column_set and section_set (the grid has `cells` by column, and no sections). */
const ROW_DETAIL_KEYS = ['sid', 'uid', 'name', 'description', 'table', 'table__name_plural', 'project', 'projects', 'owner', 'is_template',
  'open_to_organization', 'is_locked', 'is_archived', 'metadata', 'version', 'hash', 'cells', 'created_by', 'updated_by', 'date_created', 'date_updated',
  'change_permission'];

let ws: Workspace;
let project2: any;
/** The rows by key: alpha, beta (locked), gamma (archived), delta in the project; epsilon in project2. */
const rows: Record<string, any> = {};
let foreign: ForeignRecords;

before(async () => {
  ws = await newWorkspace({ label: 'grid', columns: { a: 'builtinWidgetTxt', b: 'builtinWidgetTxt' }, rows: 0 });
  foreign = await foreignRecords(ws);
  const made = async (key: string, name: string, cells: string[], api: Api = ws.projectAdmin.api, inWs: Workspace = ws) => {
    rows[key] = await createRow(inWs, { name }, api);
    for (const column of cells) await createCell(api, ws.org.sid, rows[key].sid, ws.columns[column].sid, `${key} ${column} ${unique('v')}`);
  };
  await made('alpha', 'grid alpha one', ['a', 'b']);
  await made('beta', 'grid beta 100%', ['a']);
  await made('gamma', 'grid gamma_two', []);
  await made('delta', 'grid delta', ['b', 'a']);
  // A second project of the same table, where only the org Admin (as Project Edit) has a role.
  project2 = expectStatus(await ws.admin.api.post(recordPaths.projectList(ws.org.sid), { name: `Project ${unique('p')}` }), 201).json;
  expectStatus(await ws.admin.api.post(recordPaths.memberList(project2.sid), { personnel: ws.admin.personnel.sid, permission: 'edit' }), 201);
  await made('epsilon', 'grid epsilon', ['a'], ws.admin.api, { ...ws, project: project2 });
  await setRowState(ws, rows.beta.sid, 'locked');
  await setRowState(ws, rows.gamma.sid, 'archived');
  expectStatus(await ws.projectAdmin.api.patch(recordPaths.rowDetail(rows.delta.sid), { description: 'changed last' }), 200);
});

/** Every page of the grid as `api` sees it (following `next`), with the first page's envelope. */
async function allPages(api: Api, query: Query = {}): Promise<{ first: any; results: any[] }> {
  const first = assertPage(await api.get(grid(ws.table.sid, query)));
  const results = [...first.results];
  let next = first.next;
  while (next) {
    const page = assertPage(await api.get(next));
    assert.equal(page.count, first.count, 'the same count on every page');
    results.push(...page.results);
    next = page.next;
  }
  assert.equal(results.length, first.count, 'count is exact');
  return { first, results };
}

const names = (results: any[]) => results.map((r) => r.name);

describe('the grid: shape', () => {
  test('each result is the row detail with its cells keyed by column sid, each exactly as the cell list\'s detail shape', async () => {
    const { first, results } = await allPages(ws.projectAdmin.api, { page_size: 100 });
    assert.equal(first.page_size, 100);
    assert.deepEqual(names(results).sort(), ['grid alpha one', 'grid beta 100%', 'grid delta', 'grid gamma_two']);
    for (const result of results) {
      assert.deepEqual(Object.keys(result), ROW_DETAIL_KEYS, 'the row detail keys, in order');
      const detail = await readRow(ws.projectAdmin.api, result.sid);
      const { cells: detailCells, column_set: _columnSet, section_set: _sectionSet, ...detailRest } = detail;
      const { cells, ...rest } = result;
      assert.deepEqual(rest, detailRest, `row ${result.name}: as its detail`);
      assert.deepEqual(Object.keys(cells).sort(), detailCells.map((c: any) => c.column.sid).sort(), `row ${result.name}: one entry per cell`);
      // The cells as the cell list's detail shape gives them for this row.
      const listed = await listCells(ws.projectAdmin.api, ws.org.sid, result.sid, 'detail');
      assert.deepEqual(cells, Object.fromEntries(listed.map((c) => [c.column.sid, c])), `row ${result.name}: the cells as their detail`);
    }
    const alpha = results.find((r) => r.sid === rows.alpha.sid);
    assert.deepEqual(Object.keys(alpha.cells).sort(), [ws.columns.a.sid, ws.columns.b.sid].sort());
    assert.deepEqual(results.find((r) => r.sid === rows.gamma.sid).cells, {}, 'a row without cells: an empty object');
  });

  test('pages: page_size, next/previous, the count on each page, a page past the end 404, page_size capped at 100', async () => {
    const page1 = assertPage(await ws.admin.api.get(grid(ws.table.sid, { page_size: 2 })));
    assert.deepEqual([page1.count, page1.page_count, page1.results.length, page1.previous], [5, 3, 2, null]);
    const page3 = assertPage(await ws.admin.api.get(grid(ws.table.sid, { page_size: 2, page: 3 })));
    assert.deepEqual([page3.results.length, page3.next], [1, null]);
    assert.match(page3.previous!, /page=2/);
    expectDetail(await ws.admin.api.get(grid(ws.table.sid, { page_size: 2, page: 4 })), 404, MESSAGES.invalidPage);
    assert.equal(assertPage(await ws.admin.api.get(grid(ws.table.sid, { page_size: 500 }))).page_size, 100);
  });
});

describe('the grid: filters and ordering', () => {
  const cases: Array<[string, Query, string[]]> = [
    ['project__sid', { project__sid: 'P2' }, ['epsilon']],
    ['search, case-insensitive', { search: 'BETA' }, ['beta']],
    ['search: % is a literal', { search: '%' }, ['beta']],
    ['search: _ is a literal', { search: '_' }, ['gamma']],
    ['search with no match', { search: 'zeta' }, []],
    ['is_archived=true', { is_archived: 'true' }, ['gamma']],
    ['is_archived=false', { is_archived: 'false' }, ['alpha', 'beta', 'delta', 'epsilon']],
    ['is_locked=true', { is_locked: 'true' }, ['beta']],
    ['is_locked=false and is_archived=false', { is_locked: 'false', is_archived: 'false' }, ['alpha', 'delta', 'epsilon']],
    ['project__sid and search', { project__sid: 'P1', search: 'grid' }, ['alpha', 'beta', 'delta', 'gamma']],
  ];
  for (const [what, query, expected] of cases) {
    test(`${what}: exactly the matching rows, counted exactly`, async () => {
      const resolved = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v === 'P1' ? ws.project.sid : v === 'P2' ? project2.sid : v]));
      const { results } = await allPages(ws.admin.api, { ...resolved, page_size: 2 });
      assert.deepEqual(results.map((r) => r.sid).sort(), expected.map((k) => rows[k].sid).sort());
    });
  }

  test('ordering: name, date_created, date_updated, each both ways; default oldest first', async () => {
    const details = await Promise.all(Object.values(rows).map((r) => readRow(ws.admin.api, r.sid)));
    const by = (field: string) => [...details].sort((x, y) => (x[field] < y[field] ? -1 : x[field] > y[field] ? 1 : x.sid < y.sid ? -1 : 1)).map((r) => r.sid);
    const expected: Record<string, string[]> = { name: by('name'), date_created: by('date_created'), date_updated: by('date_updated') };
    assert.deepEqual(expected.name, ['alpha', 'beta', 'delta', 'epsilon', 'gamma'].map((k) => rows[k].sid));
    for (const [ordering, sids] of Object.entries(expected)) {
      const up = await allPages(ws.admin.api, { ordering, page_size: 2 });
      assert.deepEqual(up.results.map((r) => r.sid), sids, ordering);
      const down = await allPages(ws.admin.api, { ordering: `-${ordering}`, page_size: 2 });
      assert.deepEqual(down.results.map((r) => r.sid), [...sids].reverse(), `-${ordering}`);
    }
    assert.deepEqual((await allPages(ws.admin.api)).results.map((r) => r.sid), expected.date_created, 'default');
  });

  test('bad query values: 400 naming the parameter', async () => {
    expectFieldErrors(await ws.admin.api.get(grid(ws.table.sid, { ordering: 'sid' })),
      { ordering: ['Must be one of: name, -name, date_created, -date_created, date_updated, -date_updated.'] });
    expectFieldErrors(await ws.admin.api.get(grid(ws.table.sid, { is_locked: 'maybe' })), { is_locked: ['Must be of type boolean.'] });
    expectFieldErrors(await ws.admin.api.get(grid(ws.table.sid, { search: 'x'.repeat(256) })), { search: ['Ensure this field has no more than 255 characters.'] });
    expectFieldErrors(await ws.admin.api.get(grid(ws.table.sid, { page: 0 })), { page: ['Ensure this value is greater than or equal to 1.'] });
  });
});

describe('the grid: permissions', () => {
  // What each caller sees of the table: rows, change_permission per row, add_permission with project__sid.
  const expectations: Record<Exclude<Role, 'alumni' | 'outsider' | 'anonymous'>, { rows: string[]; change: string[]; add: boolean }> = {
    admin: { rows: ['alpha', 'beta', 'gamma', 'delta', 'epsilon'], change: ['epsilon'], add: false },
    projectAdmin: { rows: ['alpha', 'beta', 'gamma', 'delta'], change: ['alpha', 'beta', 'gamma', 'delta'], add: true },
    projectEdit: { rows: ['alpha', 'beta', 'gamma', 'delta'], change: ['alpha', 'beta', 'gamma', 'delta'], add: true },
    projectView: { rows: ['alpha', 'beta', 'gamma', 'delta'], change: [], add: false },
    member: { rows: [], change: [], add: false },
  };
  for (const [role, want] of Object.entries(expectations)) {
    test(`${role}: the rows the row list shows them, with their change_permission, add_permission and cell flags`, async () => {
      const api = ws.api[role as Role];
      const { first, results } = await allPages(api, { page_size: 100, project__sid: ws.project.sid });
      assert.equal(first.add_permission, want.add, 'add_permission for project__sid');
      const all = await allPages(api, { page_size: 3 });
      assert.deepEqual(all.results.map((r) => r.sid).sort(), want.rows.map((k) => rows[k].sid).sort(), 'the rows');
      assert.equal(all.first.add_permission, false, 'add_permission without project__sid');
      const rowList = await allPages(api, { page_size: 100 });
      assert.equal(rowList.first.count, want.rows.length);
      // The same rows as the row list filtered by the table.
      const listed = assertPage(await api.get(recordPaths.rowList(ws.org.sid, 'name', { table__sid: ws.table.sid, page_size: 100 })));
      assert.deepEqual(listed.results.map((r: any) => r.sid).sort(), all.results.map((r) => r.sid).sort(), 'the row list agrees');
      for (const row of all.results) {
        const key = Object.keys(rows).find((k) => rows[k].sid === row.sid)!;
        assert.equal(row.change_permission, want.change.includes(key), `${key}: change_permission`);
        for (const cell of Object.values<any>(row.cells)) {
          // Cells are writable by those who may change the row, unless it is archived or locked.
          assert.equal(cell.change_permission, want.change.includes(key) && key !== 'beta' && key !== 'gamma', `${key}: a cell's change_permission`);
        }
      }
      assert.ok(results.every((r) => r.project.sid === ws.project.sid));
    });
  }

  test('Alumni 403, no token 401, the Admin of another organization 403', async () => {
    expectForbidden(await ws.api.alumni.get(grid(ws.table.sid)));
    expectNotAuthenticated(await anonymous.get(grid(ws.table.sid)));
    expectForbidden(await ws.api.outsider.get(grid(ws.table.sid)));
    expectForbidden(await ws.api.outsider.get(grid(ws.table.sid, { project__sid: ws.project.sid, search: 'grid' })), 'with filters naming our records');
  });

  test('another organization\'s table is refused (403); its project as a filter finds nothing', async () => {
    expectForbidden(await ws.admin.api.get(grid(foreign.table.sid)));
    const page = assertPage(await ws.admin.api.get(grid(ws.table.sid, { project__sid: foreign.project.sid })));
    assert.deepEqual([page.count, page.results.length], [0, 0]);
    // The outsider sees their own table's grid.
    const own = assertPage(await ws.api.outsider.get(grid(foreign.table.sid)));
    assert.deepEqual(own.results.map((r: any) => r.sid), [foreign.row.sid]);
  });

  test('an unknown or malformed table sid: 406 Wrong id; other serializers at level table 406; other methods 405', async () => {
    expectPlainText(await ws.admin.api.get(grid('AAAAAAAAAAAAAAAA')), 406, MESSAGES.wrongId);
    expectPlainText(await ws.admin.api.get(grid('not a sid')), 406, MESSAGES.wrongId);
    expectPlainText(await ws.admin.api.get(`/tables/row/list/table/${ws.table.sid}/detail/`), 406, MESSAGES.wrongLevel);
    expectPlainText(await ws.admin.api.get(`/tables/row/list/organization/${ws.org.sid}/grid/`), 406, MESSAGES.wrongSerializer);
    expectMethodNotAllowed(await ws.admin.api.post(grid(ws.table.sid), {}), ['GET']);
  });
});

describe('the grid: cost', () => {
  let server: RunningServer;
  after(async () => server?.stop());

  // A page is read a few rows at a time when its rows could be large (ANSWER_MAX_BYTES of rows at
  // ROW_MAX_BYTES each a read: core/answer-stream.ts); with rows bounded at 64 KiB, 40 rows are one read.
  test('the same number of queries for a page of 1, 10 and 40 rows (Server-Timing, SERVER_TIMING=true)', async () => {
    server = await startServer({ env: { SERVER_TIMING: 'true', ROW_MAX_BYTES: String(64 * 1024) } });
    const small = await newSmallWorkspaceAt(server, 'gridcost', 3);
    const rowsPath = recordPaths.rowList(small.org.sid, 'detail', { table__sid: small.table.sid, project__sid: small.project.sid });
    const made = await Promise.all(Array.from({ length: 40 }, (_, i) => small.api.post(rowsPath, { name: `cost ${i}` })));
    for (const res of made) expectStatus(res, 201);
    for (const res of made.slice(0, 40)) {
      for (const column of small.columns) {
        expectStatus(await small.api.post(recordPaths.cellList(small.org.sid, 'detail', { row__sid: res.json.sid }), { column: column.sid, data: 'x' }), 201);
      }
    }
    const queriesOf = async (query: Query) => {
      const res = await small.api.get(grid(small.table.sid, query));
      const page = assertPage(res);
      const timing = res.headers.get('server-timing') ?? '';
      const match = /db;desc="(\d+) queries"/.exec(timing);
      assert.ok(match, `Server-Timing names the queries: "${timing}"`);
      return { queries: Number(match[1]), page };
    };
    const counts: Record<string, number> = {};
    for (const size of [1, 10, 40]) {
      const plain = await queriesOf({ page_size: size });
      assert.equal(plain.page.results.length, size);
      assert.ok(plain.page.results.every((r: any) => Object.keys(r.cells).length === 3), 'every cell of every row');
      counts[`plain ${size}`] = plain.queries;
      const filtered = await queriesOf({ page_size: size, project__sid: small.project.sid, search: 'cost', is_archived: 'false', ordering: '-name' });
      counts[`filtered ${size}`] = filtered.queries;
    }
    assert.equal(new Set([counts['plain 1'], counts['plain 10'], counts['plain 40']]).size, 1, JSON.stringify(counts));
    assert.equal(new Set([counts['filtered 1'], counts['filtered 10'], counts['filtered 40']]).size, 1, JSON.stringify(counts));
    assert.ok(counts['filtered 40'] <= 8, `a handful of queries, got ${JSON.stringify(counts)}`);
  });

  test('at the default row bound, a default page of 10 rows is one read on PostgreSQL, answered whole (3 records a read embedded, written read by read)', async () => {
    const defaults = await startServer();
    try {
      const small = await newSmallWorkspaceAt(defaults, 'gridread', 1);
      const rowsPath = recordPaths.rowList(small.org.sid, 'detail', { table__sid: small.table.sid, project__sid: small.project.sid });
      for (let i = 0; i < 10; i += 1) expectStatus(await small.api.post(rowsPath, { name: `read ${i}` }), 201);
      for (const [what, path] of [
        ['grid', grid(small.table.sid, {})],
        ['row list', recordPaths.rowList(small.org.sid, 'list', { table__sid: small.table.sid })],
      ] as const) {
        const res = await small.api.get(path);
        assert.equal(assertPage(res).results.length, 10, what);
        // A page that fits one read is answered whole (its length known); a page of several reads is written as it is read (chunked).
        const whole = res.headers.get('content-length') !== null && res.headers.get('transfer-encoding') === null;
        assert.equal(whole, DB_KIND === 'postgres', `${what}: content-length ${res.headers.get('content-length')}, transfer-encoding ${res.headers.get('transfer-encoding')}`);
      }
    } finally {
      await defaults.stop();
    }
  });

  test('Server-Timing is off by default', async () => {
    const res = await ws.admin.api.get(grid(ws.table.sid));
    expectStatus(res, 200);
    assert.equal(res.headers.get('server-timing'), null);
  });
});

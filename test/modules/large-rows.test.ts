// Rows at the size limits (issue 12, point 2; docs/decisions.md "Size bounds"): a row holds
// at most ROW_MAX_BYTES (1 MiB: name, description and cells as JSON), and a list of row
// data is read and written a few records at a time (issue 21: pages of up to 100 records,
// about 100 MB, written as they are read; core/answer-stream.ts). A row of ten
// 100,000-character cells with 100 changes (111 versions of about 1 MB each) is read page
// by page in every shape, by two readers at once, and verified, while the server
// process's memory (VmRSS from /proc/<pid>/status) stays bounded. The server is one
// process of its own (WORKERS=1) with the V8 heap limit of a cluster worker (192 MB,
// HEAP_LIMIT_MB's default), so the test measures exactly the process that answers, as
// production bounds it: before the bounds, a page of 100 such versions took it down.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Api, describeAnswer } from '../helpers/http.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { newSmallWorkspaceAt, recordPaths, type SmallWorkspace } from '../helpers/records.ts';

const ROW_MAX_BYTES = 1024 * 1024;
const CELL = 100_000;
const CHANGES = 100;
/** How much the server process may grow while the row is read (it answered 100 MB pages before the bound). */
const RSS_GROWTH_MB = 200;

let server: RunningServer;
let ws: SmallWorkspace;
let row: any;
const cells: any[] = [];

function rssMb(pid: number): number {
  const status = fs.existsSync(`/proc/${pid}/status`) ? fs.readFileSync(`/proc/${pid}/status`, 'utf8') : '';
  const rss = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!rss) throw new Error(`the server process ${pid} is gone (it died while answering)`);
  return Number(rss[1]) / 1024;
}

/** The peak RSS of `pid` while `work` runs, sampled every 20 ms. */
async function peakWhile(pid: number, work: () => Promise<void>): Promise<number> {
  let peak = rssMb(pid);
  let gone: unknown = null;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch (error) {
      gone ??= error;
    }
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  if (gone) throw gone;
  return Math.max(peak, rssMb(pid));
}

/** 100,000 characters, different for each (cell, change). */
const content = (cell: number, change: number) => `${cell}.${change}:`.padEnd(CELL, String.fromCharCode(97 + ((cell + change) % 26)));

before(async () => {
  server = await startServer({ workers: 1, env: { NODE_OPTIONS: '--max-old-space-size=192' } });
  ws = await newSmallWorkspaceAt(server, 'large', 11);
  row = expectStatus(await ws.api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name: 'Wide' }), 201).json;
  for (let c = 0; c < 10; c += 1) {
    cells.push(expectStatus(await ws.api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), { column: ws.columns[c].sid, data: content(c, 0) }), 201, `cell ${c}`).json);
  }
});

after(async () => {
  await server?.stop();
});

const LIMIT = /^The row would hold (\d+) bytes; a row holds at most 1048576 bytes \(ROW_MAX_BYTES: its name, description and cells, as JSON\)\.$/;

describe('a row at ROW_MAX_BYTES', () => {
  test('a cell that would take the row past the limit is refused (400 naming the limit) and changes nothing', async () => {
    const before = expectStatus(await ws.api.get(recordPaths.rowDetail(row.sid)), 200).json;
    const post = await ws.api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), { column: ws.columns[10].sid, data: content(10, 0) });
    assert.equal(post.status, 400, describeAnswer(post));
    assert.deepEqual(Object.keys(post.json), ['data']);
    assert.match(post.json.data[0], LIMIT);
    assert.ok(Number(LIMIT.exec(post.json.data[0])![1]) > ROW_MAX_BYTES);
    // 100,000 quotes are 100,000 characters (the cell's own limit) but 200,002 bytes as JSON.
    const patch = await ws.api.patch(recordPaths.cellDetail(cells[0].sid), { data: '"'.repeat(CELL) });
    assert.equal(patch.status, 400, describeAnswer(patch));
    assert.match(patch.json.data[0], LIMIT);
    const after = expectStatus(await ws.api.get(recordPaths.rowDetail(row.sid)), 200).json;
    assert.equal(after.version, before.version, 'no version');
    assert.deepEqual(after.cells.map((c: any) => c.data.length), before.cells.map((c: any) => c.data.length));
  });

  test(`${CHANGES} changes, then every page of versions, cells and rows in every shape, twice at once: pages of 100, memory bounded`, async () => {
    for (let i = 1; i <= CHANGES; i += 1) {
      expectStatus(await ws.api.patch(recordPaths.cellDetail(cells[i % 10].sid), { data: content(i % 10, i) }), 200, `change ${i}`);
    }
    const versions = 1 + 10 + CHANGES;
    const baseline = rssMb(server.pid);
    let largest = 0;
    const counts: [string, number, number][] = [];
    const readAll = async (api: Api, path: (query: Record<string, string | number>) => string, expected: number) => {
      let seen = 0;
      for (let page = 1; ; page += 1) {
        const res = expectStatus(await api.get(path({ page, page_size: 100 })), 200, path({ page }));
        largest = Math.max(largest, res.text.length);
        assert.ok(res.json.results.length <= res.json.page_size, 'a page holds at most page_size records');
        seen += res.json.results.length;
        if (res.json.next === null) break;
      }
      counts.push([path({}), seen, expected]);
    };
    const reader = async (api: Api) => {
      for (const serializer of ['detail', 'list', 'name']) {
        await readAll(api, (q) => recordPaths.versionList(ws.org.sid, serializer, { row__sid: row.sid, ...q }), versions);
      }
      await readAll(api, (q) => recordPaths.versionList(ws.org.sid, 'detail', { row__sid: row.sid, dataonly: 'true', ...q }), versions);
      await readAll(api, (q) => recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid, ...q }), 10);
      await readAll(api, (q) => recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, ...q }), 1);
      const verified = expectStatus(await api.get(recordPaths.rowVerify(row.sid)), 200).json;
      assert.equal(verified.is_valid, true);
      assert.equal(verified.versions, versions);
    };
    const peak = await peakWhile(server.pid, () => Promise.all([reader(ws.api), reader(ws.api.via('Token'))]).then(() => {}));
    const first = expectStatus(await ws.api.get(recordPaths.versionList(ws.org.sid, 'detail', { row__sid: row.sid, page_size: 100 })), 200).json;
    assert.equal(first.page_size, 100, 'page_size=100 of row data is honoured');
    assert.equal(first.results.length, 100);
    assert.ok(largest > 90 * 1000 * 1000, `a page of 100 versions of about 1 MB each: ${largest} characters`);
    assert.ok(peak - baseline < RSS_GROWTH_MB, `the server grew from ${baseline.toFixed(0)} MB to ${peak.toFixed(0)} MB`);
    expectStatus(await ws.api.get('/health/'), 200, 'the server is still up');
    for (const [path, seen, expected] of counts) assert.equal(seen, expected, `every record of ${path}, page by page`);
  });

  test("an execution's variables, merged by every trigger, stop at ROW_MAX_BYTES (400 naming the limit)", async () => {
    const workflow = expectStatus(await ws.api.post(`/tables/workflow/list/organization/${ws.org.sid}/detail/`, { name: 'Waits' }), 201).json;
    expectStatus(await ws.api.post(`/tables/step/list/organization/${ws.org.sid}/detail/`, {
      name: 'wait', workflow: workflow.sid, widget: 'builtinWidgetWai', data: { event: 'go' },
    }), 201);
    const trigger = (variables: Record<string, string>) => ws.api.patch(`/tables/workflow/detail/${workflow.sid}/?trigger__sid=${row.sid}`, { variables });
    const first = expectStatus(await trigger({ a: 'a'.repeat(600_000) }), 200, 'the first trigger').json.execution;
    assert.equal(first.status, 'waiting');
    const second = await trigger({ b: 'b'.repeat(600_000) });
    assert.equal(second.status, 400, describeAnswer(second));
    assert.deepEqual(Object.keys(second.json), ['variables']);
    assert.match(second.json.variables[0], /^The execution's variables would hold \d+ bytes; they hold at most 1048576 bytes \(ROW_MAX_BYTES, as JSON\)\.$/);
    const execution = expectStatus(await ws.api.get(`/tables/execution/detail/${first.sid}/`), 200).json;
    assert.deepEqual(Object.keys(execution.variables), ['a'], 'the refused trigger changed nothing');
  });
});

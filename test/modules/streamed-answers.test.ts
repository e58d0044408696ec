// Answers written as they are read (issue 21, points 1–3; docs/decisions.md, "Answers are
// written as they are read"). Lists of large records are read a few records at a time and
// written to the socket read by read, so `page_size` is honoured up to 100 on every list
// (the 8-record pages are gone) and a page's bytes no longer decide the process's memory;
// a process past its budget of heavy work (HEAVY_WORK_BYTES) answers 503 with Retry-After
// in the API's own body rather than dying.
//
// The first server bounds rows at 16 KiB and a read at 64 KiB, so a page of 100 records of
// row data is written in reads of 3: small data, the same machinery as 1 MiB rows. The
// second has a small heap (128 MB) and rows filled to the row bound with U+0001 (each
// written as 6 bytes of JSON), read and verified by 32 requests at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Api, describeAnswer, type Answer } from '../helpers/http.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { newSmallWorkspaceAt, recordPaths, type SmallWorkspace } from '../helpers/records.ts';

const grid = (tableSid: string, query: Record<string, string | number>) =>
  `/tables/row/list/table/${encodeURIComponent(tableSid)}/grid/?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`;

/** Runs `work` for 0..n-1, `width` at a time. */
async function inParallel(n: number, width: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) await work(next++);
  }));
}

/** The text of each result of a page answer, as the answer wrote it. */
function resultTexts(text: string): string {
  const at = text.indexOf(',"results":[');
  assert.ok(at > 0 && text.endsWith(']}'), 'a page answer');
  return text.slice(at + ',"results":['.length, -2);
}

describe('page_size up to 100 on lists of row data (pages written read by read)', () => {
  let server: RunningServer;
  let ws: SmallWorkspace;
  let row: any;
  const ROWS = 250;

  before(async () => {
    server = await startServer({ env: { ROW_MAX_BYTES: String(16 * 1024), ANSWER_MAX_BYTES: String(64 * 1024) } });
    ws = await newSmallWorkspaceAt(server, 'pages', 2);
    const rowsPath = recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid });
    row = expectStatus(await ws.api.post(rowsPath, { name: 'Versioned' }), 201).json;
    const cells = [];
    for (const column of ws.columns) {
      cells.push(expectStatus(await ws.api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), { column: column.sid, data: 'v0' }), 201).json);
    }
    // 1 + 2 + 98 = 101 versions.
    for (let i = 1; i <= 98; i += 1) expectStatus(await ws.api.patch(recordPaths.cellDetail(cells[i % 2].sid), { data: `v${i} ${'x'.repeat(i * 40)}` }), 200);
    // 250 more rows, the first 100 with a cell each (102 cells in all).
    await inParallel(ROWS - 1, 8, async (i) => {
      const made = expectStatus(await ws.api.post(rowsPath, { name: `Row ${String(i).padStart(3, '0')}` }), 201).json;
      if (i < 100) expectStatus(await ws.api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: made.sid }), { column: ws.columns[0].sid, data: `cell of ${i}` }), 201);
    });
  });

  after(async () => server?.stop());

  test('page_size=100 gives 100 versions, cells and rows in the detail shape, the envelope exact', async () => {
    const cases: [string, (q: Record<string, string | number>) => string, number][] = [
      ['versions', (q) => recordPaths.versionList(ws.org.sid, 'detail', { row__sid: row.sid, ...q }), 101],
      ['versions (list shape)', (q) => recordPaths.versionList(ws.org.sid, 'list', { row__sid: row.sid, ...q }), 101],
      ['versions (dataonly)', (q) => recordPaths.versionList(ws.org.sid, 'detail', { row__sid: row.sid, dataonly: 'true', ...q }), 101],
      ['cells', (q) => recordPaths.cellList(ws.org.sid, 'detail', q), 102],
      ['rows', (q) => recordPaths.rowList(ws.org.sid, 'detail', q), ROWS],
    ];
    for (const [what, path, count] of cases) {
      const res = expectStatus(await ws.api.get(path({ page_size: 100 })), 200, what);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8', what);
      const { results, ...envelope } = res.json;
      assert.deepEqual(envelope, {
        page_size: 100, page_number: 1, page_count: Math.ceil(count / 100), count,
        next: `${ws.baseUrl}${path({ page_size: 100, page: 2 })}`, previous: null, add_permission: envelope.add_permission,
      }, what);
      assert.equal(results.length, 100, what);
      // The same bytes as the records answered one a page (each of those a page built whole).
      const ones: string[] = [];
      await inParallel(100, 8, async (i) => {
        ones[i] = resultTexts(expectStatus(await ws.api.get(path({ page_size: 1, page: i + 1 })), 200).text);
      });
      assert.equal(res.text, `${JSON.stringify(envelope).slice(0, -1)},"results":[${ones.join(',')}]}`, `${what}: the page, byte for byte`);
      const last = expectStatus(await ws.api.get(path({ page_size: 100, page: Math.ceil(count / 100) })), 200, what).json;
      assert.equal(last.results.length, count - 100 * (last.page_number - 1), what);
      assert.equal(last.next, null);
    }
  });

  test(`a table of ${ROWS} rows is read in ${Math.ceil(ROWS / 100)} requests, of the grid and of the row list in the detail shape, every row once`, async () => {
    const lists: [string, string][] = [
      ['grid', grid(ws.table.sid, { page_size: 100 })],
      ['rows', recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, page_size: 100 })],
    ];
    for (const [what, start] of lists) {
      const seen: string[] = [];
      let requests = 0;
      for (let target: string | null = start; target; requests += 1) {
        const page: any = expectStatus(await ws.api.get(target.replace(ws.baseUrl, '')), 200, what).json;
        assert.equal(page.count, ROWS, what);
        assert.equal(page.page_size, 100, what);
        for (const r of page.results) {
          assert.ok(r.cells && typeof r.cells === 'object', what);
          seen.push(r.sid);
        }
        target = page.next;
      }
      assert.equal(requests, Math.ceil(ROWS / 100), what);
      assert.equal(seen.length, ROWS, what);
      assert.equal(new Set(seen).size, ROWS, `${what}: every row once`);
    }
  });
});

describe('a process with a small heap under parallel large lists and verifications', () => {
  let server: RunningServer;
  let ws: SmallWorkspace;
  let wide: any;
  const ROWS = 24;
  // Two cells of U+0001 fill a row to its bound (1 MiB as JSON): 600,002 + 420,002 bytes.
  const fill = (chars: number, code: number) => String.fromCharCode(code).repeat(chars);

  before(async () => {
    server = await startServer({ workers: 1, env: { NODE_OPTIONS: '--max-old-space-size=128' } });
    ws = await newSmallWorkspaceAt(server, 'heavy', 2);
    const rowsPath = recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid });
    const made: any[] = [];
    await inParallel(ROWS, 4, async (i) => {
      const r = expectStatus(await ws.api.post(rowsPath, { name: `Full ${i}` }), 201).json;
      const cells = [];
      for (const [c, chars] of [[0, 100_000], [1, 70_000]]) {
        cells.push(expectStatus(await ws.api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: r.sid }), { column: ws.columns[c].sid, data: fill(chars, 1) }), 201, `row ${i} cell ${c}`).json);
      }
      made[i] = { ...r, cells };
    });
    wide = made[0];
    // 1 + 2 + 18 = 21 versions of about 1 MB.
    for (let i = 0; i < 18; i += 1) expectStatus(await ws.api.patch(recordPaths.cellDetail(wide.cells[0].sid), { data: fill(100_000, 2 + (i % 20)) }), 200, `change ${i}`);
  });

  after(async () => server?.stop());

  test('32 requests at once (grid, rows, versions at page_size=100, verifications): each answer whole or a 503 with Retry-After; the server stays up', async () => {
    const kinds: [string, string, (res: Answer) => void][] = [
      ['grid', grid(ws.table.sid, { page_size: 100 }), (res) => assert.equal(res.json.results.length, ROWS)],
      ['rows', recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, page_size: 100 }), (res) => assert.equal(res.json.results.length, ROWS)],
      ['versions', recordPaths.versionList(ws.org.sid, 'detail', { row__sid: wide.sid, page_size: 100 }), (res) => assert.equal(res.json.results.length, 21)],
      ['verify', recordPaths.rowVerify(wide.sid), (res) => assert.deepEqual([res.json.is_valid, res.json.versions], [true, 21])],
    ];
    const outcomes: Record<string, number> = {};
    await Promise.all(kinds.flatMap(([what, path, check]) => Array.from({ length: 8 }, async () => {
      // Generous: the answers let in share one process's CPU (hashing every version) on a loaded machine.
      const res = await ws.api.get(path, { timeoutMs: 300_000 });
      if (res.status === 503) {
        assert.equal(res.headers.get('retry-after'), '1', describeAnswer(res));
        assert.deepEqual(res.json, { detail: 'The server is answering too many large requests at once; try again in 1 second.' });
      } else {
        expectStatus(res, 200, what);
        check(res);
      }
      outcomes[`${what} ${res.status}`] = (outcomes[`${what} ${res.status}`] ?? 0) + 1;
    })));
    assert.ok(Object.keys(outcomes).some((k) => k.endsWith(' 200')), `some answers whole: ${JSON.stringify(outcomes)}`);
    expectStatus(await new Api(null, 'token', server.baseUrl).get('/health/'), 200, 'the server still answers');
    // Retried after the crowd, every request is answered whole.
    for (const [what, path, check] of kinds) check(expectStatus(await ws.api.get(path, { timeoutMs: 300_000 }), 200, what));
  });
});

describe('a burst of ordinary pages waits for the heavy-work budget instead of failing', () => {
  let server: RunningServer;
  let ws: SmallWorkspace;

  // One page's reservation fills the budget (3 records of 16 KiB + 4 KiB in a 64 KiB budget):
  // before HEAVY_WORK_WAIT_MS, every request that met another in flight was answered 503.
  before(async () => {
    server = await startServer({
      workers: 1,
      env: { ROW_MAX_BYTES: String(16 * 1024), ANSWER_MAX_BYTES: String(64 * 1024), HEAVY_WORK_BYTES: String(64 * 1024), HEAVY_WORK_WAIT_MS: '60000' },
    });
    ws = await newSmallWorkspaceAt(server, 'burst', 1);
    const rowsPath = recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid });
    for (let i = 0; i < 5; i += 1) expectStatus(await ws.api.post(rowsPath, { name: `Row ${i}` }), 201);
  });

  after(async () => server?.stop());

  test('24 row lists at once in one process: every one answered 200 with its 5 rows', async () => {
    const path = recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, page_size: 10 });
    const answers = await Promise.all(Array.from({ length: 24 }, () => ws.api.get(path, { timeoutMs: 120_000 })));
    const statuses = answers.map((res) => res.status);
    assert.deepEqual(statuses, statuses.map(() => 200), `statuses: ${statuses.join(' ')}`);
    for (const res of answers) assert.deepEqual(res.json.results.map((r: any) => r.name).sort(), ['Row 0', 'Row 1', 'Row 2', 'Row 3', 'Row 4']);
  });
});

describe('a long answer holds one read of the budget at a time, and a slow client only what it was sent', () => {
  let server: RunningServer;
  let ws: SmallWorkspace;
  const ROWS = 60;
  const METRICS = 'metrics-token-streamed-answers-0123';
  // Reads of 2 rows (2 × (1 MiB + 4 KiB) reserved before each) in a budget of 3 MiB: one
  // read's worst case fits, two do not. The rows hold 100 kB each, so the page (6 MB) is more
  // than a loopback socket takes from a client that reads nothing (about 4 MB here).
  before(async () => {
    server = await startServer({
      workers: 1,
      env: { ANSWER_MAX_BYTES: String(2200 * 1024), HEAVY_WORK_BYTES: String(3 * 1024 * 1024), HEAVY_WORK_WAIT_MS: '5000', METRICS_TOKEN: METRICS },
    });
    ws = await newSmallWorkspaceAt(server, 'slow', 1);
    const rowsPath = recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid });
    await inParallel(ROWS, 4, async (i) => {
      const r = expectStatus(await ws.api.post(rowsPath, { name: `Wide ${String(i).padStart(2, '0')}` }), 201).json;
      expectStatus(await ws.api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: r.sid }), { column: ws.columns[0].sid, data: 'x'.repeat(100_000) }), 201);
    });
  });

  after(async () => server?.stop());

  const reserved = async () => {
    const res = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } });
    return Number(/^records_heavy_work_reserved_bytes (\d+)$/m.exec(await res.text())![1]);
  };

  test('a client that stops reading mid-page keeps another page waiting for nothing; resumed, it gets the whole page', async () => {
    const path = recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid, page_size: 100 });
    // The slow client: takes the first bytes, then reads nothing.
    let text = '';
    const slow = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get(`${server.baseUrl}${path}`, { agent: false, headers: { authorization: `Token ${ws.user.token}` } }, (res) => {
        res.setEncoding('utf8');
        res.once('data', (chunk: string) => {
          text += chunk;
          res.pause();
          resolve(res);
        });
      }).on('error', reject);
    });
    assert.equal(slow.statusCode, 200);
    // Another page of the same rows meanwhile: it fits beside what the stalled answer holds
    // (its last read's text, ~400 kB), not beside that read's worst case (2 MiB): while an
    // answer held its reservation until it was written, this one waited 5 s and got a 503.
    const other = await ws.api.get(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid, page_size: 2 }));
    expectStatus(other, 200);
    assert.deepEqual([other.json.count, other.json.results.length], [ROWS, 2]);
    // Once the socket takes no more, the stalled answer holds its last read's text (two rows
    // of ~200 kB as JSON), down from the read's worst case (2 × (1 MiB + 4 KiB)).
    let held = await reserved();
    for (let i = 0; i < 100 && !(held > 0 && held <= 512 * 1024); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      held = await reserved();
    }
    assert.ok(held > 0 && held <= 512 * 1024, `the stalled answer holds its last read's text: ${held} bytes`);
    // Resumed, the slow client gets every row, whole.
    slow.on('data', (chunk: string) => (text += chunk));
    const ended = new Promise((resolve) => slow.once('end', resolve));
    slow.resume();
    await ended;
    const page = JSON.parse(text);
    assert.equal(page.count, ROWS);
    assert.deepEqual(page.results.map((r: any) => r.name).sort(), Array.from({ length: ROWS }, (_, i) => `Wide ${String(i).padStart(2, '0')}`));
    for (const row of page.results) {
      assert.deepEqual([row.cells.length, row.cells[0].data, row.column_set[0].data], [1, 'x'.repeat(100_000), 'x'.repeat(100_000)], `${row.name}: its 100 kB cell, in cells and in column_set`);
    }
    assert.equal(await reserved(), 0, 'and gives the budget back');
  });
});

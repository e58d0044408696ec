// If-Match under real concurrency (issue 12, point 1; docs/decisions.md "If-Match"): the
// precondition is checked in the write's own transaction under the row's lock, the lock
// every writer of a cell takes (a plain PATCH, a workflow's set_cell), so a stale ETag
// never succeeds and no acknowledged write is lost; and one organization's burst of
// If-Match PATCHes does not make another organization's PATCH wait. On PostgreSQL the
// requests are spread over two server processes (the harness's, itself two workers, and
// one started here).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeAnswer, type Answer, type Api } from '../helpers/http.ts';
import { expectDetail, expectStatus } from '../helpers/assertions.ts';
import { spreadOverServers } from '../helpers/server.ts';
import { addMember, newOrganization } from '../helpers/factories.ts';
import { countVersions, createCell, listPath, readRow, newWorkspace, recordPaths, type Workspace } from '../helpers/records.ts';
import { withQuery, type Query } from '../helpers/http.ts';

const workflowList = listPath('tables', 'workflow');
const stepList = listPath('tables', 'step');
const workflowDetail = (sid: string, query?: Query) => withQuery(`/tables/workflow/detail/${sid}/`, query);

/** The 412 of a stale If-Match: it names the record and the GET that gives its current ETag. */
const changed = (path: string) => `The ${path.split('/')[2] === 'personnel' ? 'personnel record' : path.split('/')[2]} changed since you read it: GET ${path} and retry with its ETag.`;
const ROWS = 10;
const ROUNDS = 10; // ROWS × ROUNDS interleavings per kind of writer (100: on PGlite, whose one connection the neighbouring suite shares, 200 took over 400 s)

/** On PostgreSQL the harness's server and a second process on the same database. */
const { urls: servers, through } = spreadOverServers();

/** Sets the cell's data (no If-Match) and returns the ETag its answer carries: the cell as it now is. */
async function setCell(api: Api, cellSid: string, data: string): Promise<string> {
  const res = expectStatus(await api.patch(recordPaths.cellDetail(cellSid), { data }), 200, 'setting the cell');
  const etag = res.headers.get('etag');
  assert.ok(etag, 'the cell answers an ETag');
  return etag;
}

/** The cell's data as its row answers it. */
async function cellData(api: Api, rowSid: string, cellSid: string): Promise<string> {
  return (await readRow(api, rowSid)).cells.find((c: any) => c.sid === cellSid).data;
}

interface Race {
  /** The writer without If-Match: its data, and its answer. */
  other: (api: Api, row: number, round: number) => { data: string; send: () => Promise<Answer> };
}

/**
 * ROUNDS rounds over ROWS rows at once: each round sets each cell and keeps the answer's ETag, then sends the
 * other writer and an If-Match PATCH with that ETag together (in random order, through
 * alternating processes). Whatever the order, the other writer succeeds and its data is
 * the cell's afterwards: the If-Match PATCH either went first (200) or was refused (412),
 * never wrote over the newer value. Every acknowledged write has its version.
 */
async function race(ws: Workspace, cells: any[], api: Api, kind: Race) {
  const acknowledged = new Map<string, number>(ws.rows.map((r) => [r.sid, 0]));
  const versionsBefore = new Map<string, number>();
  for (const row of ws.rows) versionsBefore.set(row.sid, await countVersions(ws.admin.api, ws.org.sid, row.sid));
  let ifMatchWon = 0;
  let refused = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    await Promise.all(cells.map(async (cell, r) => {
      const etag = await setCell(api, cell.sid, `setup ${r}.${round}`);
      acknowledged.set(ws.rows[r].sid, acknowledged.get(ws.rows[r].sid)! + 1);
      const other = kind.other(through(api, round + r), r, round);
      const stale = () => through(api, round + r + 1).patch(recordPaths.cellDetail(cell.sid), { data: `if-match ${r}.${round}` }, { headers: { 'if-match': etag } });
      const [otherAnswer, ifMatchAnswer] = Math.random() < 0.5
        ? await Promise.all([other.send(), stale()])
        : (await Promise.all([stale(), other.send()])).reverse();
      expectStatus(otherAnswer, 200, `round ${round}, row ${r}: the writer without If-Match`);
      acknowledged.set(ws.rows[r].sid, acknowledged.get(ws.rows[r].sid)! + 1);
      if (ifMatchAnswer.status === 200) {
        ifMatchWon += 1;
        acknowledged.set(ws.rows[r].sid, acknowledged.get(ws.rows[r].sid)! + 1);
      } else {
        expectDetail(ifMatchAnswer, 412, changed(recordPaths.cellDetail(cell.sid)), `round ${round}, row ${r}: the If-Match PATCH`);
        refused += 1;
      }
      assert.equal(await cellData(api, ws.rows[r].sid, cell.sid), other.data,
        `round ${round}, row ${r}: the newer write is the cell's (If-Match answered ${ifMatchAnswer.status}: ${describeAnswer(ifMatchAnswer)})`);
    }));
  }
  assert.equal(ifMatchWon + refused, ROWS * ROUNDS);
  for (const row of ws.rows) {
    assert.equal(await countVersions(ws.admin.api, ws.org.sid, row.sid), versionsBefore.get(row.sid)! + acknowledged.get(row.sid)!,
      `row ${row.sid}: one version per acknowledged write`);
  }
}

describe('If-Match races every writer of a cell', () => {
  let ws: Workspace;
  let cells: any[];

  before(async () => {
    ws = await newWorkspace({ label: 'ifmatch', allRoles: false, rows: ROWS, columns: { text: 'builtinWidgetTxt' } });
    cells = await Promise.all(ws.rows.map((row) => createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'initial')));
  });

  test(`${ROWS * ROUNDS} races of an If-Match PATCH against a plain PATCH: the stale one never wins, nothing acknowledged is lost`, async () => {
    const api = ws.projectAdmin.api;
    await race(ws, cells, api, {
      other: (caller, r, round) => {
        const data = `plain ${r}.${round}`;
        return { data, send: () => caller.patch(recordPaths.cellDetail(cells[r].sid), { data }) };
      },
    });
  });

  test(`${ROWS * ROUNDS} races of an If-Match PATCH against a workflow's set_cell: the stale one never wins, nothing acknowledged is lost`, async () => {
    const admin = ws.admin.api;
    const workflow = expectStatus(await admin.post(workflowList(ws.org.sid), { name: 'Set the text' }), 201).json;
    expectStatus(await admin.post(stepList(ws.org.sid), {
      name: 'set', workflow: workflow.sid, widget: 'builtinWidgetSet', data: { column: ws.columns.text.name, value: '{{variables.v}}' },
    }), 201);
    await race(ws, cells, ws.projectAdmin.api, {
      other: (_caller, r, round) => {
        const data = `workflow ${r}.${round}`;
        return {
          data,
          send: async () => {
            const res = await through(admin, r + round).patch(workflowDetail(workflow.sid, { trigger__sid: ws.rows[r].sid }), { variables: { v: data } });
            if (res.status === 200) assert.equal(res.json.execution.status, 'completed', describeAnswer(res));
            return res;
          },
        };
      },
    });
  });
});

describe('If-Match races the writers of a row', () => {
  test(`${ROWS * ROUNDS} races of an If-Match row PATCH against a plain row PATCH and a cell PATCH: the stale one never wins`, async () => {
    const ws = await newWorkspace({ label: 'ifmatchrow', allRoles: false, rows: ROWS, columns: { text: 'builtinWidgetTxt' } });
    const api = ws.projectAdmin.api;
    const cells = await Promise.all(ws.rows.map((row) => createCell(api, ws.org.sid, row.sid, ws.columns.text.sid, 'initial')));
    let ifMatchWon = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      await Promise.all(ws.rows.map(async (row, r) => {
        const set = expectStatus(await api.patch(recordPaths.rowDetail(row.sid), { description: `setup ${r}.${round}` }), 200, 'setting the row');
        const etag = set.headers.get('etag')!;
        // Even rounds race a plain row PATCH, odd rounds a cell PATCH of the row (the row's answer shows its cells).
        const plainRow = round % 2 === 0;
        const other = plainRow
          ? () => through(api, r + round).patch(recordPaths.rowDetail(row.sid), { description: `plain ${r}.${round}` })
          : () => through(api, r + round).patch(recordPaths.cellDetail(cells[r].sid), { data: `cell ${r}.${round}` });
        const stale = () => through(api, r + round + 1).patch(recordPaths.rowDetail(row.sid), { description: `if-match ${r}.${round}` }, { headers: { 'if-match': etag } });
        const [otherAnswer, ifMatchAnswer] = Math.random() < 0.5
          ? await Promise.all([other(), stale()])
          : (await Promise.all([stale(), other()])).reverse();
        expectStatus(otherAnswer, 200, `round ${round}, row ${r}: the other writer`);
        if (ifMatchAnswer.status === 200) ifMatchWon += 1;
        else expectDetail(ifMatchAnswer, 412, changed(recordPaths.rowDetail(row.sid)), `round ${round}, row ${r}`);
        const after = await readRow(api, row.sid);
        if (plainRow) {
          assert.equal(after.description, `plain ${r}.${round}`, `round ${round}, row ${r}: the newer description stands (If-Match answered ${ifMatchAnswer.status})`);
        } else {
          const [last] = (await api.get(recordPaths.versionList(ws.org.sid, 'list', { row__sid: row.sid, page: after.version, page_size: 1 }))).json.results;
          assert.match(last.activity_message, /^Changed the cell/, `round ${round}, row ${r}: the If-Match PATCH (${ifMatchAnswer.status}) did not land after the cell's change`);
        }
      }));
    }
    assert.ok(ifMatchWon <= ROWS * ROUNDS);
  });
});

describe('If-Match races a change of Admins', () => {
  test('100 races of an If-Match personnel PATCH against a plain one, both changing who is Admin: each answers 200 or 412, never 5xx (no deadlock)', async () => {
    const { admin, org } = await newOrganization('ifmatchp');
    const people = await Promise.all(Array.from({ length: 10 }, (_v, i) => addMember(admin, org, { is_administrator: 'true' }, `ifmatchp${i}`)));
    for (let round = 0; round < 10; round += 1) {
      await Promise.all(people.map(async (person, p) => {
        const path = `/organizations/personnel/detail/${person.personnel.sid}/`;
        const set = expectStatus(await admin.api.patch(path, { title: `setup ${round}` }), 200, 'setting the record');
        const etag = set.headers.get('etag')!;
        const flag = round % 2 === 0 ? 'false' : 'true';
        const [plain, conditional] = await Promise.all([
          through(admin.api, p + round).patch(path, { is_administrator: flag, title: `plain ${round}` }),
          through(admin.api, p + round + 1).patch(path, { is_administrator: flag, title: `if-match ${round}` }, { headers: { 'if-match': etag } }),
        ]);
        expectStatus(plain, 200, `round ${round}, person ${p}: the plain PATCH`);
        if (conditional.status !== 200) expectDetail(conditional, 412, changed(path), `round ${round}, person ${p}: the If-Match PATCH`);
      }));
    }
  });
});

describe("one organization's If-Match burst", () => {
  // Order, not time: the machine is shared, and A's burst takes turns on one row by design
  // (each write holds the row until its commit is on disk), so under load one of A's
  // PATCHes may wait long for its turn; what must hold is that B's two PATCHes come back
  // while few of A's are answered, not after A's queue.
  test("does not make another organization's If-Match PATCH wait", async () => {
    const BURST = 300;
    const [a, b] = await Promise.all([
      newWorkspace({ label: 'bursta', allRoles: false, columns: { text: 'builtinWidgetTxt' } }),
      newWorkspace({ label: 'burstb', allRoles: false, columns: { text: 'builtinWidgetTxt' } }),
    ]);
    const [cellA, cellB] = await Promise.all([
      createCell(a.projectAdmin.api, a.org.sid, a.rows[0].sid, a.columns.text.sid, 'a'),
      createCell(b.projectAdmin.api, b.org.sid, b.rows[0].sid, b.columns.text.sid, 'b'),
    ]);
    let answeredA = 0;
    let settledA = 0;
    // A request that is never answered fails here, named, before the file's own timeout.
    const burst = Array.from({ length: BURST }, (_v, i) => through(a.projectAdmin.api, i)
      .patch(recordPaths.cellDetail(cellA.sid), { data: `burst ${i}` }, { headers: { 'if-match': '*' }, timeoutMs: 240_000 })
      .then((res) => { answeredA += 1; return res; })
      .finally(() => { settledA += 1; }));
    // B's PATCH once A's burst is under way.
    while (answeredA < 5 && settledA < BURST) await new Promise((resolve) => setTimeout(resolve, 2));
    const answeredBeforeB = answeredA;
    const etag = await setCell(b.projectAdmin.api, cellB.sid, 'b set');
    const answerB = await b.projectAdmin.api.patch(recordPaths.cellDetail(cellB.sid), { data: 'b changed' }, { headers: { 'if-match': etag } });
    const answeredWhenB = answeredA;
    const answers = await Promise.all(burst);
    expectStatus(answerB, 200, "the other organization's PATCH");
    for (const res of answers) expectStatus(res, 200, 'the burst');
    assert.ok(answeredWhenB - answeredBeforeB < BURST / 4,
      `${answeredWhenB - answeredBeforeB} of A's ${BURST} PATCHes were answered while B's two were in flight: B waited for A's burst`);
    assert.equal(await countVersions(a.admin.api, a.org.sid, a.rows[0].sid), 2 + BURST, "one version per acknowledged PATCH of A's");
  });
});

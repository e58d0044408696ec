// A cell write in as few round trips as its work allows (issue 23: a PATCH in at most 3;
// db/pipelined.ts): its transaction's BEGIN goes out with the row's lock, and when nothing
// is left to do after the write's statement (the row's own creator, no mention), its COMMIT
// goes out with it. That statement then raises its own refusals (no credits, past
// ROW_MAX_BYTES), so the COMMIT behind it never keeps a refused write.
//
// 1. On the run's server (both engines): refusals of a write committed with its statement
//    answer the spec's words and leave the row, its versions and the credits as they were;
//    the next writes of the same caller go through.
// 2. PostgreSQL: a server of its own behind a proxy that reads the wire protocol
//    (bench/lib/wire-counter.ts) counts a PATCH's round trips and what each carried, and a
//    list's (at most 2: the credential with the caller's standing, then the page).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectFieldErrors, expectPlainText, expectStatus } from '../helpers/assertions.ts';
import { DB_KIND, SALES_CONTACT } from '../helpers/env.ts';
import {
  assertRowUnchanged, countVersions, createCell, createRow, listCells, newSmallWorkspaceAt, newWorkspace, patchCell, postCell, readCredits,
  recordPaths, snapshotRow,
} from '../helpers/records.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { paths, uniqueEmail } from '../helpers/factories.ts';
import { notificationPaths } from '../helpers/notifications.ts';
import { scratchDatabase } from '../helpers/scratch-db.ts';
import { WireCounter } from '../../bench/lib/wire-counter.ts';

const NO_CREDITS_PATCH = `Your organization does not have enough credits, contact ${SALES_CONTACT}!`;
const NO_CREDITS_POST = `Error: ${NO_CREDITS_PATCH}`;

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const step of cleanups.reverse()) await step().catch(() => {});
});

describe('a write committed with its statement', () => {
  test("refused by the statement itself (credits): the spec's 406, nothing kept, and the caller's next writes go through", async () => {
    const ws = await newWorkspace({ label: 'pipe', rows: 0, allRoles: false, widgets: { dear: { price: '0.40' }, free: { price: '0' } }, columns: { dear: 'dear', free: 'free' } });
    // The Project Admin writes the rows it created, without mentions: the writes' consequences send nothing.
    const api = ws.projectAdmin.api;
    const row = await createRow(ws, { name: 'Pipelined' });
    const dear = await createCell(api, ws.org.sid, row.sid, ws.columns.dear.sid, 'd1');
    expectStatus(await patchCell(api, dear.sid, 'd2'), 200, 'paid: $0.20 left');
    assert.equal(await readCredits(ws.admin.api, ws.org.sid), '$0.20');
    const before = await snapshotRow(ws, row.sid);
    const versions = await countVersions(ws.admin.api, ws.org.sid, row.sid);

    expectPlainText(await patchCell(api, dear.sid, 'd3'), 406, NO_CREDITS_PATCH, 'PATCH 0.40 with 0.20 left');
    const other = await createRow(ws, { name: 'Another' });
    expectPlainText(await postCell(api, ws.org.sid, other.sid, ws.columns.dear.sid, 'too dear'), 406, NO_CREDITS_POST, 'POST 0.40 with 0.20 left');
    // A POST's statement finds the row's cell in the column itself (and then writes nothing): the 400, nothing kept.
    expectFieldErrors(await postCell(api, ws.org.sid, row.sid, ws.columns.dear.sid, 'again'),
      { column: [`The row already has a cell in this column (${dear.sid}); PATCH that cell instead.`] });
    await assertRowUnchanged(ws, row.sid, before, 'refused for credits');
    assert.equal(await countVersions(ws.admin.api, ws.org.sid, row.sid), versions, 'no version');
    assert.equal(await readCredits(ws.admin.api, ws.org.sid), '$0.20', 'nothing debited');

    // The same caller's next writes, free ones, are kept; the dear cell still holds what was paid for.
    const free = await createCell(api, ws.org.sid, row.sid, ws.columns.free.sid, 'f1');
    expectStatus(await patchCell(api, free.sid, 'f2'), 200);
    const cells = await listCells(api, ws.org.sid, row.sid);
    assert.deepEqual(cells.map((c: any) => [c.sid, c.data]).sort(), [[dear.sid, 'd2'], [free.sid, 'f2']].sort());
    assert.equal(await countVersions(ws.admin.api, ws.org.sid, row.sid), versions + 2, 'the free cell\'s two versions');
  });
});

if (DB_KIND === 'postgres') {
  describe('round trips to PostgreSQL', () => {
    let server: RunningServer;
    let counter: WireCounter;

    test('a cell PATCH: 3 round trips (the credential; BEGIN with the lock; the write with COMMIT); its POST 3 (the column read with the lock); a row list, a grid page, and a page of personnel and of the inbox in the detail shape 2', async () => {
      const { url, drop } = await scratchDatabase('trips');
      cleanups.push(drop);
      const target = new URL(url);
      counter = await WireCounter.start({ host: target.hostname, port: Number(target.port || 5432) });
      cleanups.push(() => counter.close());
      const proxied = new URL(url);
      proxied.port = String(counter.port);
      server = await startServer({ databaseUrl: proxied.toString() });
      cleanups.push(() => server.stop());
      const ws = await newSmallWorkspaceAt(server, 'trips', 1);
      const row = expectStatus(await ws.api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name: 'Counted' }), 201).json;

      // Background work (the jobs, the live listener) may share a window: the fewest of five is the request's.
      // So may the process's sending of live events (db/after-commit.ts): once a write has
      // committed, its events go out with those of every write committed meanwhile, in a
      // statement of their own that nobody waits for; a round trip of that statement alone
      // is the process's, not the request's.
      const publishing = (sql: string) => sql.includes('pg_notify(e->>0, e->>1)');
      const measure = async (request: () => Promise<unknown>) => {
        let fewest: { trips: number; statements: typeof counter.statements } | null = null;
        for (let i = 0; i < 5; i += 1) {
          counter.reset();
          await request();
          const byTrip = new Map<number | undefined, string[]>();
          for (const st of counter.statements) byTrip.set(st.trip, [...(byTrip.get(st.trip) ?? []), st.sql]);
          const trips = counter.roundTrips - [...byTrip.values()].filter((sqls) => sqls.every(publishing)).length;
          if (!fewest || trips < fewest.trips) fewest = { trips, statements: counter.statements };
        }
        return fewest!;
      };
      let n = 0;
      const post = await measure(async () => {
        const column = expectStatus(await ws.api.post(recordPaths.columnList(ws.org.sid, 'detail', { table__sid: ws.table.sid }), { name: `Extra ${n}`, widget: 'builtinWidgetTxt', order: 10 + n }), 201).json;
        n += 1;
        counter.reset();
        expectStatus(await ws.api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), { column: column.sid, data: `first ${n}` }), 201);
      });
      assert.equal(post.trips, 3, 'a cell POST');
      const postTrip = (test: (text: string) => boolean) => post.statements.find((s) => test(s.sql.trim()))?.trip;
      assert.equal(postTrip((s) => s === 'commit'), postTrip((s) => s.includes('records_create_cell(')), 'COMMIT goes out with the POST\'s write');
      const cell = expectStatus(await ws.api.post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), { column: ws.columns[0].sid, data: 'start' }), 201).json;
      let version = 0;
      const patch = await measure(async () => {
        version += 1;
        expectStatus(await ws.api.patch(recordPaths.cellDetail(cell.sid), { data: `changed ${version}` }), 200);
      });
      assert.equal(patch.trips, 3, 'a cell PATCH');
      const tripOf = (test: (text: string) => boolean) => patch.statements.find((s) => test(s.sql.trim()))?.trip;
      assert.equal(tripOf((s) => s === 'begin'), tripOf((s) => s.includes('FOR UPDATE OF r')), 'BEGIN goes out with the row\'s lock');
      assert.equal(tripOf((s) => s === 'commit'), tripOf((s) => s.includes('records_set_cell(')), 'COMMIT goes out with the write');
      assert.notEqual(tripOf((s) => s === 'begin'), tripOf((s) => s === 'commit'));
      // What the pipelined PATCHes wrote is there, in order, each its own version.
      const data = expectStatus(await ws.api.get(recordPaths.cellDetail(cell.sid)), 200).json.data;
      assert.equal(data, `changed ${version}`);
      assert.equal(await countVersions(ws.api, ws.org.sid, row.sid), 1 + n + 1 + version, 'the row\'s creation, each cell created, each change');

      // A list: the credential (with the caller's standing, and the grid's table), then the page with its rows' cells and count.
      const rowList = await measure(async () => {
        const page = expectStatus(await ws.api.get(recordPaths.rowList(ws.org.sid, 'list', { table__sid: ws.table.sid })), 200).json;
        assert.deepEqual(page.results.map((r: any) => r.column_set.map((c: any) => c.data).sort()), [[...Array.from({ length: n }, (_, i) => `first ${i + 1}`), `changed ${version}`].sort()]);
      });
      assert.equal(rowList.trips, 2, 'a row list');
      const grid = await measure(async () => {
        const page = expectStatus(await ws.api.get(`/tables/row/list/table/${ws.table.sid}/grid/`), 200).json;
        assert.equal(page.results[0].cells[ws.columns[0].sid].data, `changed ${version}`);
      });
      assert.equal(grid.trips, 2, 'a grid page');
      assert.ok(grid.statements.some((st) => st.sql.includes('records_credential(') && st.sql.includes('record_tables')), 'the grid\'s table is read with the credential');

      // The personnel's detail shape (metadata that can be large): 8 small records, one read by their real sizes.
      expectStatus(await ws.api.post(paths.personnelList(ws.org.sid, 'detail'), Array.from({ length: 7 }, (_, i) => ({ email: uniqueEmail(`trips${i}`) }))), 201);
      const personnel = await measure(async () => {
        const page = expectStatus(await ws.api.get(paths.personnelList(ws.org.sid, 'detail')), 200).json;
        assert.equal(page.results.length, 8);
      });
      assert.equal(personnel.trips, 2, 'a page of personnel in the detail shape');
      // The inbox's detail shape (messages that can be large): 7 small notifications, one read.
      const me = expectStatus(await ws.api.get(paths.personnelList(ws.org.sid, 'name')), 200).json.results[0].sid;
      for (let i = 0; i < 7; i += 1) {
        expectStatus(await ws.api.post(notificationPaths.list(ws.org.sid), { to: [{ sid: me }], name: `Note ${i}`, body: 'A short message.' }), 201);
      }
      const inbox = await measure(async () => {
        const page = expectStatus(await ws.api.get(notificationPaths.list(ws.org.sid, 'detail')), 200).json;
        assert.equal(page.results.length, 7);
      });
      assert.equal(inbox.trips, 2, 'a page of the inbox in the detail shape');
    });
  });
}

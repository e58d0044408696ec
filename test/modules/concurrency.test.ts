// Writers racing (design: Money, Versions; docs/versions.md): 20 cell writes on one
// organization's last credits debit exactly what the credits cover, no more and no less;
// 20 concurrent cell PATCHes on one row give 20 versions numbered without gap or
// duplicate in an unbroken chain. On PostgreSQL the writes go through two server
// processes (the harness's server, itself two workers, and one started here).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DB_KIND, SALES_CONTACT } from '../helpers/env.ts';
import { describeAnswer, type Answer } from '../helpers/http.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { spreadOverServers } from '../helpers/server.ts';
import {
  assertIntactChain, cents, createCell, createRow, listCells, listLedger, listVersions, newWorkspace, patchCell, postCell, readCredits,
  recomputeHash, recordPaths, verifyRow, type Workspace,
} from '../helpers/records.ts';

/** On PostgreSQL the harness's server and a second process on the same database. */
const { urls: servers, through } = spreadOverServers();

describe('20 cell writes race on one organization\'s last credits', () => {
  test('price 0.10, credits 1.00: exactly 10 succeed, 10 get the credits 406, balance $0.00, 10 ledger debits, versions match', async () => {
    const ws = await newWorkspace({
      label: 'race', allRoles: false, rows: 5, widgets: { dime: { price: '0.00' } },
      columns: { patchA: 'dime', patchB: 'dime', postA: 'dime', postB: 'dime' },
    });
    const api = ws.projectAdmin.api;
    // Free while the cells to PATCH are made; then the Admin sets the price.
    const existing = new Map<string, any[]>();
    for (const row of ws.rows) {
      existing.set(row.sid, [
        await createCell(api, ws.org.sid, row.sid, ws.columns.patchA.sid, 'setup'),
        await createCell(api, ws.org.sid, row.sid, ws.columns.patchB.sid, 'setup'),
      ]);
    }
    expectStatus(await ws.admin.api.patch(recordPaths.widgetDetail(ws.widgets.dime.sid), { price: '0.10' }), 200, 'pricing the widget');
    assert.equal(await readCredits(ws.admin.api, ws.org.sid), '$1.00');
    const versionsBefore = new Map<string, number>();
    for (const row of ws.rows) versionsBefore.set(row.sid, (await listVersions(ws.admin.api, ws.org.sid, row.sid)).length);

    type Write = { op: 'POST' | 'PATCH'; row: string; column: string; cell?: string; data: string };
    const writes: Write[] = [];
    ws.rows.forEach((row, r) => {
      const [a, b] = existing.get(row.sid)!;
      writes.push(
        { op: 'PATCH', row: row.sid, column: ws.columns.patchA.sid, cell: a.sid, data: `patch A of row ${r}` },
        { op: 'POST', row: row.sid, column: ws.columns.postA.sid, data: `post A of row ${r}` },
        { op: 'PATCH', row: row.sid, column: ws.columns.patchB.sid, cell: b.sid, data: `patch B of row ${r}` },
        { op: 'POST', row: row.sid, column: ws.columns.postB.sid, data: `post B of row ${r}` },
      );
    });
    assert.equal(writes.length, 20);

    const answers: Answer[] = await Promise.all(writes.map((w, i) => (w.op === 'POST'
      ? postCell(through(api, i), ws.org.sid, w.row, w.column, w.data)
      : patchCell(through(api, i), w.cell!, w.data))));

    const won: { write: Write; cell: string }[] = [];
    answers.forEach((res, i) => {
      const w = writes[i];
      if (res.status === 201 || res.status === 200) {
        assert.equal(res.status, w.op === 'POST' ? 201 : 200, describeAnswer(res));
        assert.equal(res.json.data, w.data);
        won.push({ write: w, cell: res.json.sid });
        return;
      }
      assert.equal(res.status, 406, `a lost race is the credits 406: ${describeAnswer(res)}`);
      assert.equal(res.text, w.op === 'POST'
        ? `Error: Your organization does not have enough credits, contact ${SALES_CONTACT}!`
        : `Your organization does not have enough credits, contact ${SALES_CONTACT}!`, describeAnswer(res));
    });
    assert.equal(won.length, 10, 'exactly the 10 writes the credits cover succeed');

    assert.equal(await readCredits(ws.admin.api, ws.org.sid), '$0.00', 'the balance is exactly $0.00');
    const ledger = await listLedger(ws.admin.api, ws.org.sid);
    assert.equal(ledger.length, 10, 'exactly 10 ledger entries');
    assert.ok(ledger.every((e) => e.amount === '-$0.10'), 'each a debit of $0.10');
    assert.deepEqual(ledger.map((e) => e.balance_after), ['$0.00', '$0.10', '$0.20', '$0.30', '$0.40', '$0.50', '$0.60', '$0.70', '$0.80', '$0.90'],
      'newest first, each balance once: no debit lost or doubled');
    assert.equal(ledger.reduce((sum, e) => sum + cents(e.amount), 0), -100, 'the entries sum to the change in balance');
    assert.deepEqual(ledger.map((e) => e.cell).sort(), won.map((w) => w.cell).sort(), 'one debit per successful write, of its cell');

    for (const row of ws.rows) {
      const mine = won.filter((w) => w.write.row === row.sid);
      const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
      assertIntactChain(versions, `row ${row.sid}`);
      assert.equal(versions.length, versionsBefore.get(row.sid)! + mine.length, 'one new version per successful write on the row, none for the refused');
      const cells = await listCells(ws.admin.api, ws.org.sid, row.sid);
      const expected = new Map<string, string>([[ws.columns.patchA.sid, 'setup'], [ws.columns.patchB.sid, 'setup']]);
      for (const { write } of mine) expected.set(write.column, write.data);
      assert.deepEqual(new Map(cells.map((c) => [c.column.sid, c.data])), expected, 'the row holds exactly what was paid for');
      assert.deepEqual(versions[versions.length - 1].data.cells, Object.fromEntries(expected), 'and so does its last version');
    }
  });
});

describe('20 concurrent cell PATCHes on one row', () => {
  let ws: Workspace;

  before(async () => {
    ws = await newWorkspace({ label: 'concur', rows: 0, columns: { a: 'builtinWidgetTxt', b: 'builtinWidgetTxt', c: 'builtinWidgetTxt', d: 'builtinWidgetTxt' } });
  });

  test(`give 20 new versions without gap or duplicate, an unbroken chain, all valid (${DB_KIND === 'postgres' ? 'two server processes' : 'one PGlite server'})`, async () => {
    if (DB_KIND === 'postgres') assert.equal(servers.length, 2, 'a second server process on the same database');
    const row = await createRow(ws, { name: 'Contended' });
    const keys = ['a', 'b', 'c', 'd'] as const;
    const cells: Record<string, any> = {};
    for (const key of keys) cells[key] = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns[key].sid, `${key}0`);
    const head = (await listVersions(ws.admin.api, ws.org.sid, row.sid)).length;
    assert.equal(head, 5);

    const writers = [ws.projectAdmin, ws.projectEdit];
    const patches = Array.from({ length: 20 }, (_v, i) => ({
      key: keys[i % 4], data: `${keys[i % 4]}${Math.floor(i / 4) + 1} from request ${i}`, writer: writers[i % 2], server: servers[Math.floor(i / 2) % servers.length],
    }));
    const answers = await Promise.all(patches.map((p) => patchCell(p.writer.api.at(p.server), cells[p.key].sid, p.data)));
    answers.forEach((res, i) => {
      expectStatus(res, 200, `PATCH ${i}`);
      assert.equal(res.json.data, patches[i].data);
    });
    if (DB_KIND === 'postgres') assert.equal(new Set(patches.map((p) => p.server)).size, 2, 'both server processes took writes');

    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assert.equal(versions.length, head + 20, '20 new versions');
    assertIntactChain(versions, 'after the race');
    const report = await verifyRow(ws.admin.api, row.sid);
    assert.deepEqual([report.is_valid, report.versions, report.head_version, report.first_invalid_version, report.problems], [true, 25, 25, null, []]);

    // Each new version changes exactly one cell, to one PATCH's data, and every PATCH appears exactly once.
    const bySender = new Map(writers.map((w) => [`${w.first_name} ${w.last_name}`, w.sid]));
    const seen: string[] = [];
    for (let i = head; i < versions.length; i += 1) {
      const previous = versions[i - 1].data.cells;
      const current = versions[i].data.cells;
      const changed = Object.keys(current).filter((column) => current[column] !== previous[column]);
      assert.equal(changed.length, 1, `version ${versions[i].version} changes one cell`);
      const patch = patches.find((p) => p.data === current[changed[0]]);
      assert.ok(patch, `version ${versions[i].version} holds a PATCH's data`);
      assert.equal(ws.columns[patch.key].sid, changed[0], 'in the PATCHed cell\'s column');
      assert.equal(versions[i].updated_by, `${patch.writer.first_name} ${patch.writer.last_name}`, 'by its sender');
      assert.equal(versions[i].activity_message, `Changed the cell of Column ${patch.key}`);
      assert.equal(recomputeHash(row.sid, versions[i], bySender.get(versions[i].updated_by)!), versions[i].hash, `version ${versions[i].version}: hash recomputed`);
      seen.push(patch.data);
    }
    assert.deepEqual(seen.sort(), patches.map((p) => p.data).sort(), 'no PATCH lost, none applied twice');
    const final = await listCells(ws.admin.api, ws.org.sid, row.sid);
    assert.deepEqual(final.map((c) => c.data), keys.map((k) => versions[versions.length - 1].data.cells[ws.columns[k].sid]), 'the cells end as the last version says');
  });
});

describe('racing writes that may not all win', () => {
  let ws: Workspace;

  before(async () => {
    ws = await newWorkspace({ label: 'clash', rows: 0, widgets: { nickel: { price: '0.05' } }, columns: { nickel: 'nickel', text: 'builtinWidgetTxt' } });
  });

  test('10 POSTs of the same cell at once: one 201, nine 400s naming it, one debit, one version', async () => {
    const row = await createRow(ws, { name: 'One cell' });
    const answers = await Promise.all(Array.from({ length: 10 }, (_v, i) =>
      postCell(through(i % 2 ? ws.projectAdmin.api : ws.projectEdit.api, i), ws.org.sid, row.sid, ws.columns.nickel.sid, `attempt ${i}`)));
    const won = answers.filter((res) => res.status === 201);
    assert.equal(won.length, 1, `exactly one POST creates the cell: ${answers.map((a) => a.status).join(', ')}`);
    const cell = won[0].json;
    for (const res of answers.filter((a) => a !== won[0])) {
      assert.equal(res.status, 400, describeAnswer(res));
      assert.deepEqual(res.json, { column: [`The row already has a cell in this column (${cell.sid}); PATCH that cell instead.`] });
    }
    assert.equal(await readCredits(ws.admin.api, ws.org.sid), '$0.95', 'charged once');
    const ledger = await listLedger(ws.admin.api, ws.org.sid);
    assert.deepEqual(ledger.map((e) => [e.amount, e.cell]), [['-$0.05', cell.sid]]);
    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assertIntactChain(versions, 'one cell');
    assert.deepEqual(versions.map((v) => v.activity_message), ['Created the row', 'Created the cell of Column nickel']);
    assert.deepEqual((await listCells(ws.admin.api, ws.org.sid, row.sid)).map((c) => [c.sid, c.data]), [[cell.sid, cell.data]]);
  });

  test('a lock racing with 12 cell PATCHes: every write lands before the lock or is refused after it', async () => {
    const row = await createRow(ws, { name: 'Locked in the middle' });
    const cell = await createCell(ws.projectEdit.api, ws.org.sid, row.sid, ws.columns.text.sid, 'start');
    const head = (await listVersions(ws.admin.api, ws.org.sid, row.sid)).length;
    const patches = Array.from({ length: 12 }, (_v, i) => patchCell(through(ws.projectEdit.api, i), cell.sid, `write ${i}`));
    const lock = ws.projectAdmin.api.at(servers[servers.length - 1]).patch(recordPaths.rowDetail(row.sid), { is_locked: true });
    const [locked, ...answers] = await Promise.all([lock, ...patches]);
    expectStatus(locked, 200, 'the lock');
    const landed = answers.filter((res) => res.status === 200).map((res) => res.json.data);
    for (const res of answers.filter((a) => a.status !== 200)) {
      assert.equal(res.status, 406, describeAnswer(res));
      assert.equal(res.text, `The row (${row.sid}) is locked; only a widget that may be added at the read-only stage can change.`);
    }
    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assertIntactChain(versions, 'lock race');
    const added = versions.slice(head);
    assert.equal(added.length, landed.length + 1, 'a version per landed write, and the lock');
    assert.equal(added[added.length - 1].activity_message, 'Locked the row', 'no cell changes after the lock');
    assert.deepEqual(added.slice(0, -1).map((v) => v.data.cells[ws.columns.text.sid]).sort(), [...landed].sort(), 'the landed writes, each once');
    const final = (await listCells(ws.admin.api, ws.org.sid, row.sid))[0].data;
    assert.equal(final, added.length > 1 ? added[added.length - 2].data.cells[ws.columns.text.sid] : 'start', 'the cell holds the last landed write');
    assert.equal((await verifyRow(ws.admin.api, row.sid)).is_valid, true);
  });
});

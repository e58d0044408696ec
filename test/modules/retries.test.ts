// Retries without duplicates (issue 7): Idempotency-Key on POST answers a retry with the
// first answer and writes once; If-Match on PATCH refuses (412) a change to a record that
// changed since it was read, so two editors never overwrite each other unseen.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectDetail, expectFieldErrors, expectStatus } from '../helpers/assertions.ts';
import { unique } from '../helpers/factories.ts';
import {
  cents, countVersions, createCell, createRow, listCells, newWorkspace, postCell, postRow, readCredits, readRow,
  recordPaths, type Workspace,
} from '../helpers/records.ts';

/** The 412 of a stale If-Match: it names the record and the GET that gives its current ETag. */
const changed = (model: 'row' | 'cell', sid: string) => `The ${model} changed since you read it: GET /tables/${model}/detail/${sid}/ and retry with its ETag.`;

describe('Idempotency-Key on POST', () => {
  let ws: Workspace;

  before(async () => {
    ws = await newWorkspace({
      label: 'idem', widgets: { priced: { price: '0.10' } }, columns: { priced: 'priced', text: 'builtinWidgetTxt' },
    });
  });

  const rowCount = async () => (await ws.admin.api.get(recordPaths.rowList(ws.org.sid, 'name', { table__sid: ws.table.sid }))).json.count as number;

  test('a retry with the same key and body answers the first answer and creates nothing more', async () => {
    const before = await rowCount();
    const key = unique('key');
    const body = { name: `Row ${unique('r')}` };
    const first = await postRow(ws, body, ws.projectAdmin.api.with({ 'idempotency-key': key }));
    expectStatus(first, 201, 'first POST');
    assert.equal(first.headers.get('idempotent-replayed'), null, 'the first answer is not a replay');
    const again = await postRow(ws, body, ws.projectAdmin.api.with({ 'idempotency-key': key }));
    expectStatus(again, 201, 'the retry answers as the first did');
    assert.equal(again.headers.get('idempotent-replayed'), 'true', 'the retry says it is a replay');
    assert.deepEqual(again.json, first.json, 'the same body, the same row');
    assert.equal(await rowCount(), before + 1, 'one row created');
    assert.equal(await countVersions(ws.admin.api, ws.org.sid, first.json.sid), 1, 'and one version');
  });

  test('a cell POST retried with its key is debited and versioned once', async () => {
    const row = await createRow(ws);
    const credits = cents(await readCredits(ws.admin.api, ws.org.sid));
    const api = ws.projectAdmin.api.with({ 'idempotency-key': unique('cell') });
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push(await postCell(api, ws.org.sid, row.sid, ws.columns.priced.sid, 'once'));
    answers.forEach((res, i) => expectStatus(res, 201, `POST ${i + 1}`));
    assert.equal(new Set(answers.map((res) => res.json.sid)).size, 1, 'every answer names the same cell');
    assert.equal((await listCells(ws.admin.api, ws.org.sid, row.sid)).length, 1, 'one cell');
    assert.equal(cents(await readCredits(ws.admin.api, ws.org.sid)), credits - 10, 'debited once (0.10)');
    assert.equal(await countVersions(ws.admin.api, ws.org.sid, row.sid), 2, 'one version for the cell');
  });

  test('the same key with a different request is refused (422) and writes nothing', async () => {
    const key = unique('key');
    expectStatus(await postRow(ws, { name: `Row ${unique('r')}` }, ws.projectAdmin.api.with({ 'idempotency-key': key })), 201);
    const before = await rowCount();
    const other = await postRow(ws, { name: `Other ${unique('r')}` }, ws.projectAdmin.api.with({ 'idempotency-key': key }));
    expectDetail(other, 422, 'This Idempotency-Key was already used for a different request.');
    assert.equal(await rowCount(), before, 'nothing created');
  });

  test('keys are per user: the same key from another user is a new request', async () => {
    const key = unique('shared');
    const mine = await postRow(ws, { name: `Mine ${unique('r')}` }, ws.projectAdmin.api.with({ 'idempotency-key': key }));
    const theirs = await postRow(ws, { name: `Theirs ${unique('r')}` }, ws.projectEdit.api.with({ 'idempotency-key': key }));
    expectStatus(mine, 201);
    expectStatus(theirs, 201);
    assert.notEqual(mine.json.sid, theirs.json.sid, 'two rows');
    assert.equal(theirs.headers.get('idempotent-replayed'), null);
  });

  test('a refused request frees its key: the corrected retry goes through', async () => {
    const row = await createRow(ws);
    const api = ws.projectAdmin.api.with({ 'idempotency-key': unique('fix') });
    expectFieldErrors(await postCell(api, ws.org.sid, row.sid, 'NoSuchColumn0000', 'x'), { column: ["No column with this sid in the row's table."] });
    const fixed = await postCell(api, ws.org.sid, row.sid, ws.columns.text.sid, 'x');
    expectStatus(fixed, 201, 'the same key after a refusal');
    assert.equal(fixed.headers.get('idempotent-replayed'), null, 'not a replay of the refusal');
  });

  test('concurrent requests with one key create one record', async () => {
    const before = await rowCount();
    const api = ws.projectAdmin.api.with({ 'idempotency-key': unique('race') });
    const body = { name: `Race ${unique('r')}` };
    const answers = await Promise.all(Array.from({ length: 6 }, () => postRow(ws, body, api)));
    for (const res of answers) assert.ok([201, 409].includes(res.status), `201 or 409, got ${res.status} ${res.text}`);
    const created = answers.filter((res) => res.status === 201);
    assert.ok(created.length >= 1, 'at least one answer carries the row');
    assert.equal(new Set(created.map((res) => res.json.sid)).size, 1, 'every 201 names the same row');
    for (const res of answers.filter((r) => r.status === 409)) {
      assert.equal(res.json.detail, 'A request with this Idempotency-Key is still in progress; retry shortly.');
      assert.equal(res.headers.get('retry-after'), '1');
    }
    assert.equal(await rowCount(), before + 1, 'one row created');
  });

  test('a key longer than 255 characters is refused (400) and nothing is written', async () => {
    const before = await rowCount();
    const res = await postRow(ws, { name: `Row ${unique('r')}` }, ws.projectAdmin.api.with({ 'idempotency-key': 'k'.repeat(256) }));
    expectFieldErrors(res, { 'Idempotency-Key': ['Send a key of 1 to 255 characters.'] });
    assert.equal(await rowCount(), before);
  });
});

describe('ETag and If-Match on PATCH', () => {
  let ws: Workspace;

  before(async () => {
    ws = await newWorkspace({ label: 'etag', allRoles: false, columns: { text: 'builtinWidgetTxt' } });
  });

  test('a detail answer carries an ETag that changes with the record', async () => {
    const row = await createRow(ws);
    const read = await ws.projectAdmin.api.get(recordPaths.rowDetail(row.sid));
    expectStatus(read, 200);
    const etag = read.headers.get('etag');
    assert.match(String(etag), /^"[A-Za-z0-9_-]{20,}"$/, 'a quoted entity tag');
    const same = await ws.projectAdmin.api.get(recordPaths.rowDetail(row.sid));
    assert.equal(same.headers.get('etag'), etag, 'unchanged record, same ETag');
    const changed = await ws.projectAdmin.api.patch(recordPaths.rowDetail(row.sid), { name: `Renamed ${unique('r')}` }, { headers: { 'if-match': etag! } });
    expectStatus(changed, 200, 'PATCH with the current ETag');
    assert.notEqual(changed.headers.get('etag'), etag, 'a new ETag after the change');
    const reread = await ws.projectAdmin.api.get(recordPaths.rowDetail(row.sid));
    assert.equal(reread.headers.get('etag'), changed.headers.get('etag'), "the PATCH answer's ETag is the record's");
  });

  test('a PATCH with a stale If-Match is refused (412) and changes nothing', async () => {
    const row = await createRow(ws);
    const etag = (await ws.projectAdmin.api.get(recordPaths.rowDetail(row.sid))).headers.get('etag')!;
    expectStatus(await ws.projectAdmin.api.patch(recordPaths.rowDetail(row.sid), { description: 'first editor' }), 200);
    const stale = await ws.projectAdmin.api.patch(recordPaths.rowDetail(row.sid), { description: 'second editor' }, { headers: { 'if-match': etag } });
    expectDetail(stale, 412, changed('row', row.sid));
    const after = await readRow(ws.projectAdmin.api, row.sid);
    assert.equal(after.description, 'first editor', 'the first change stands');
    assert.equal(after.version, 2, 'no version for the refused change');
    const any = await ws.projectAdmin.api.patch(recordPaths.rowDetail(row.sid), { description: 'anyway' }, { headers: { 'if-match': '*' } });
    expectStatus(any, 200, 'If-Match: * accepts any current record');
  });

  test('of concurrent PATCHes with the same If-Match exactly one wins', async () => {
    const row = await createRow(ws);
    const etag = (await ws.projectAdmin.api.get(recordPaths.rowDetail(row.sid))).headers.get('etag')!;
    const answers = await Promise.all(Array.from({ length: 8 }, (_v, i) =>
      ws.projectAdmin.api.patch(recordPaths.rowDetail(row.sid), { name: `Editor ${i}` }, { headers: { 'if-match': etag } })));
    const won = answers.filter((res) => res.status === 200);
    assert.equal(won.length, 1, `one 200, got ${answers.map((res) => res.status).join(', ')}`);
    for (const res of answers.filter((r) => r.status !== 200)) expectDetail(res, 412, changed('row', row.sid));
    const after = await readRow(ws.projectAdmin.api, row.sid);
    assert.equal(after.name, won[0].json.name, "the winner's name stands");
    assert.equal(after.version, 2, 'one version');
  });

  test('cells: If-Match compares with the cell as its PATCH answers it', async () => {
    const row = await createRow(ws);
    const cell = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'v1');
    const first = await ws.projectAdmin.api.patch(recordPaths.cellDetail(cell.sid), { data: 'v2' });
    expectStatus(first, 200);
    const etag = first.headers.get('etag')!;
    assert.ok(etag, 'the PATCH answer carries an ETag');
    expectStatus(await ws.projectAdmin.api.patch(recordPaths.cellDetail(cell.sid), { data: 'v3' }, { headers: { 'if-match': etag } }), 200);
    expectDetail(await ws.projectAdmin.api.patch(recordPaths.cellDetail(cell.sid), { data: 'v4' }, { headers: { 'if-match': etag } }), 412, changed('cell', cell.sid));
    assert.deepEqual((await listCells(ws.admin.api, ws.org.sid, row.sid)).map((c) => c.data), ['v3'], 'the stale change did not land');
  });
});

// File cells (issue 25): a column whose widget is of kind `file` holds files. Through HTTP on
// the harness's server (its folder store under DATA_DIR): an upload straight to a cell is one
// write — the file attached, the cell listing its descriptor, a version carrying its SHA-256,
// the widget's price debited; an uploaded file attached by a cell write; 20 parallel uploads
// to one row each their own version, chained; a one-byte change of a stored object makes
// verify/ name the file; replacing, removing and archiving keep the old bytes readable from
// their version; who may read an attached file is who may read its row; a client that closes
// its connection before its upload commits keeps nothing.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DATA_DIR, DB_KIND } from '../helpers/env.ts';
import { whileHeld } from '../helpers/scratch-db.ts';
import type { Api, Answer } from '../helpers/http.ts';
import { expectDetail, expectFieldErrors, expectStatus, expectNotFound, expectForbidden, expectPlainText } from '../helpers/assertions.ts';
import {
  canonicalJson, listLedger, listVersions, newWorkspace, patchCell, postCell, readCredits, recordPaths, setRowState, createRow, verifyRow, type Workspace,
} from '../helpers/records.ts';
import { filePaths, multipart, randomFile, sha256, tus, tusMetadata, upload } from '../helpers/files.ts';

const rowFiles = (row: string, query: Record<string, string> = {}, serializer = 'detail') =>
  `/files/file/list/row/${row}/${serializer}/${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`;

/** POSTs one file to a row's file cell (multipart, the part "file"). */
function uploadToRow(api: Api, row: string, column: string, name: string, content: Buffer | string, query: Record<string, string> = {}): Promise<Answer> {
  const { body, contentType } = multipart([{ name: 'file', filename: name, content, contentType: 'application/octet-stream' }]);
  return api.request('POST', rowFiles(row, { column, ...query }), { rawBody: body, contentType });
}

const objectPath = (hash: string) => path.join(DATA_DIR, 'files', 'objects', hash.slice(0, 2), hash);

async function download(api: Api, sid: string): Promise<Buffer> {
  const res = await fetch(`${api.baseUrl}${filePaths.download(sid)}`, { headers: { token: api.token! } });
  assert.equal(res.status, 200, `downloading ${sid}`);
  return Buffer.from(await res.arrayBuffer());
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

describe('file cells', () => {
  let ws: Workspace;
  let files: string; // the free file column
  let priced: string; // a file column whose widget costs 0.25

  before(async () => {
    ws = await newWorkspace({ label: 'fcell', columns: { text: 'builtinWidgetTxt', files: 'builtinWidgetFil' } });
    files = ws.columns.files.sid;
    const widget = expectStatus(await ws.admin.api.post(recordPaths.widgetList(ws.org.sid), {
      name: 'Priced files', description: 'files at a price', price: '0.25', kind: 'file',
    }), 201).json;
    assert.equal(widget.kind, 'file');
    priced = expectStatus(await ws.admin.api.post(recordPaths.columnList(ws.org.sid, 'detail', { table__sid: ws.table.sid }), {
      name: 'Priced files', widget: widget.sid, order: 9,
    }), 201).json.sid;
  });

  test('an upload to a cell is one write: the file attached, the cell its descriptors, a version with its hash, the price debited', async () => {
    const row = await createRow(ws);
    const before = await readCredits(ws.admin.api, ws.org.sid);
    assert.equal(before, '$1.00');
    const res = expectStatus(await uploadToRow(ws.projectEdit.api, row.sid, priced, 'gel image.png', PNG), 201);
    const file = res.json;
    assert.deepEqual(Object.keys(file).sort(), ['cell', 'change_permission', 'date_created', 'media_type', 'name', 'row', 'sha256', 'sid', 'size', 'uploaded_by', 'version'].sort());
    assert.equal(file.row, row.sid);
    assert.equal(file.version, 2);
    assert.equal(file.sha256, sha256(PNG));
    assert.equal(file.media_type, 'image/png');
    assert.equal(file.change_permission, false, 'an attached file is its row\'s history: nobody deletes it');
    const descriptor = {
      date_created: file.date_created, media_type: 'image/png', name: 'gel image.png', sha256: sha256(PNG), sid: file.sid, size: PNG.length,
      uploaded_by: file.uploaded_by,
    };
    assert.equal(file.uploaded_by.sid, ws.projectEdit.personnel.sid);
    // The cell's data: the descriptors, as canonical JSON.
    const cell = expectStatus(await ws.admin.api.get(recordPaths.cellDetail(file.cell)), 200).json;
    assert.deepEqual(JSON.parse(cell.data), [descriptor]);
    assert.equal(cell.data, canonicalJson([descriptor]), 'canonical JSON: keys sorted, no spaces');
    // The version carries the hash; the chain is whole.
    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assert.equal(versions.length, 2);
    assert.deepEqual(JSON.parse(versions[1].data.cells[priced]), [descriptor]);
    const report = await verifyRow(ws.admin.api, row.sid);
    assert.equal(report.is_valid, true);
    assert.deepEqual(report.problems, []);
    // Debited as any priced widget: the ledger names the cell.
    assert.equal(await readCredits(ws.admin.api, ws.org.sid), '$0.75');
    const [entry] = await listLedger(ws.admin.api, ws.org.sid);
    assert.equal(entry.amount, '-$0.25');
    assert.equal(entry.cell?.sid ?? entry.cell, file.cell);
    // Downloaded whole by whoever reads the row.
    assert.deepEqual(await download(ws.projectView.api, file.sid), PNG);
    // The row's files list.
    const listed = expectStatus(await ws.projectView.api.get(rowFiles(row.sid)), 200).json;
    assert.equal(listed.count, 1);
    assert.equal(listed.results[0].sid, file.sid);
    assert.equal(listed.add_permission, false, 'a Project View writes no cell');
    assert.equal(expectStatus(await ws.projectEdit.api.get(rowFiles(row.sid)), 200).json.add_permission, true);
  });

  test('the credits refuse an upload to a priced cell: 406, no file, no version', async () => {
    const poor = await newWorkspace({ label: 'fpoor', allRoles: false, columns: { files: 'builtinWidgetFil' } });
    const widget = expectStatus(await poor.admin.api.post(recordPaths.widgetList(poor.org.sid), { name: 'Dear files', price: '5.00', kind: 'file' }), 201).json;
    const column = expectStatus(await poor.admin.api.post(recordPaths.columnList(poor.org.sid, 'detail', { table__sid: poor.table.sid }), {
      name: 'Dear', widget: widget.sid,
    }), 201).json.sid;
    const row = poor.rows[0];
    expectPlainText(await uploadToRow(poor.projectAdmin.api, row.sid, column, 'x.bin', randomFile(100)), 406,
      'Error: Your organization does not have enough credits, contact sales@example.test!');
    assert.equal(expectStatus(await poor.admin.api.get(rowFiles(row.sid)), 200).json.count, 0);
    assert.equal((await listVersions(poor.admin.api, poor.org.sid, row.sid)).length, 1);
    assert.equal(expectStatus(await poor.admin.api.get(filePaths.list(poor.org.sid)), 200).json.count, 0);
  });

  test('an uploaded file is attached by a cell write; then it is the row\'s: not deleted, not attached elsewhere, read by the row\'s rules', async () => {
    const row = await createRow(ws);
    const other = await createRow(ws);
    const bytes = randomFile(2000);
    const up = expectStatus(await upload(ws.projectEdit.api, ws.org.sid, 'plate.csv', bytes), 201).json;
    assert.equal(up.row, null);
    // A member without a project role reads an unattached file of the organization...
    expectStatus(await ws.member.api.get(filePaths.detail(up.sid)), 200);
    const cell = expectStatus(await postCell(ws.projectEdit.api, ws.org.sid, row.sid, files, JSON.stringify([up.sid])), 201).json;
    const listed = JSON.parse(cell.data);
    assert.equal(listed.length, 1);
    assert.equal(listed[0].sid, up.sid);
    assert.equal(listed[0].sha256, sha256(bytes));
    // ...but no longer once it is the row's (they cannot read the row): 404, like the row.
    expectNotFound(await ws.member.api.get(filePaths.detail(up.sid)));
    expectNotFound(await ws.member.api.get(filePaths.download(up.sid)));
    expectNotFound(await ws.outsider.api.get(filePaths.download(up.sid)));
    expectForbidden(await ws.alumni.api.get(filePaths.download(up.sid)));
    expectStatus(await ws.projectView.api.get(filePaths.download(up.sid)), 200);
    assert.equal(expectStatus(await ws.admin.api.get(filePaths.detail(up.sid)), 200).json.row, row.sid);
    // The organization's list shows only files not attached yet.
    const orgList = expectStatus(await ws.admin.api.get(filePaths.list(ws.org.sid)), 200).json;
    assert.equal(orgList.results.some((f: any) => f.sid === up.sid), false);
    // Not deleted, even by its uploader.
    expectDetail(await ws.projectEdit.api.delete(filePaths.detail(up.sid)), 409,
      `The file is attached to the row ${row.sid}, whose versions refer to it: it stays as long as the row. Remove it from the cell instead (its versions keep it).`);
    // Not attached to another row.
    expectFieldErrors(await postCell(ws.projectEdit.api, ws.org.sid, other.sid, files, JSON.stringify([up.sid])), {
      data: [`The file ${up.sid} is attached to another row; upload its bytes again to attach them here (they are stored once).`],
    });
    // Bad data: 400 naming it.
    expectFieldErrors(await postCell(ws.projectEdit.api, ws.org.sid, other.sid, files, 'gel.png'), {
      data: ['A file cell\'s data is a JSON array of file sids (or of file descriptors with their "sid"), e.g. ["Fx1…"].'],
    });
    expectFieldErrors(await postCell(ws.projectEdit.api, ws.org.sid, other.sid, files, '["NoSuchFile000000"]'), {
      data: ['No file NoSuchFile000000 in this organization (upload it first: POST /files/file/list/organization/{sid}/detail/).'],
    });
    expectFieldErrors(await patchCell(ws.projectEdit.api, cell.sid, JSON.stringify([up.sid, up.sid])), { data: [`The file ${up.sid} is listed twice.`] });
    // Sent back as descriptors (what GET gave), the same data: nothing changes.
    const same = expectStatus(await patchCell(ws.projectEdit.api, cell.sid, cell.data), 200).json;
    assert.equal(same.data, cell.data);
    assert.equal((await listVersions(ws.admin.api, ws.org.sid, row.sid)).length, 2);
  });

  test('20 parallel uploads to one row all land, each its own version, chained', async () => {
    const row = await createRow(ws);
    // 8 KiB each in the suite; FILE_CELLS_PARALLEL_BYTES=52428800 runs issue 25's 20 × 50 MB.
    const bytes = Number(process.env.FILE_CELLS_PARALLEL_BYTES ?? 8 * 1024);
    const contents = Array.from({ length: 20 }, (_, i) => randomFile(bytes + i));
    const answers = await Promise.all(contents.map((c, i) => uploadToRow(ws.projectAdmin.api, row.sid, files, `part ${i}.bin`, c)));
    const uploaded = answers.map((res) => expectStatus(res, 201).json);
    const versions = uploaded.map((f) => f.version).sort((a, b) => a - b);
    assert.deepEqual(versions, Array.from({ length: 20 }, (_, i) => i + 2), 'versions 2..21, one each');
    const chain = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assert.equal(chain.length, 21);
    for (let i = 1; i < chain.length; i += 1) {
      assert.equal(chain[i].previousHash, chain[i - 1].hash, `version ${chain[i].version} links to the one before`);
      const listed = JSON.parse(chain[i].data.cells[files]);
      assert.equal(listed.length, i, `version ${chain[i].version} lists one file more than the one before`);
      assert.deepEqual(listed.slice(0, i - 1).map((f: any) => f.sid), JSON.parse(chain[i - 1].data.cells[files] ?? '[]').map((f: any) => f.sid));
    }
    const last = JSON.parse(chain[20].data.cells[files]);
    assert.deepEqual(new Set(last.map((f: any) => f.sha256)), new Set(contents.map(sha256)));
    const report = await verifyRow(ws.admin.api, row.sid);
    assert.equal(report.is_valid, true);
    assert.equal(report.versions, 21);
  });

  test('a client that closes its connection once its body is whole, before the upload is stored, keeps nothing', async () => {
    const row = await createRow(ws);
    const content = randomFile(64 * 1024);
    const { body, contentType } = multipart([{ name: 'file', filename: 'cancelled late.bin', content, contentType: 'application/octet-stream' }]);
    if (DB_KIND === 'postgres') {
      // Hold the row: the upload, its body whole, waits for the row's lock; its client goes
      // away meanwhile (a cancel that came late); then the row is let go.
      await whileHeld('SELECT 1 FROM record_rows WHERE sid = $1 FOR UPDATE', [row.sid], async (holder) => {
        const url = new URL(`${ws.projectEdit.api.baseUrl}${rowFiles(row.sid, { column: files })}`);
        const request = http.request(url, { method: 'POST', headers: { token: ws.projectEdit.api.token!, 'content-type': contentType, 'content-length': body.length } });
        const closed = new Promise<void>((resolve) => request.on('close', () => resolve()));
        request.on('error', () => {});
        request.end(body);
        const waiting = async () => (await holder.query(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))',
        )).rows[0].n;
        for (let i = 0; i < 200 && (await waiting()) === 0; i += 1) await new Promise((r) => setTimeout(r, 25));
        assert.equal(await waiting(), 1, 'the upload waits for the row\'s lock, its body whole');
        request.destroy();
        await closed;
      });
      // An upload sent after it takes the row's lock after it: once answered, the first has ended.
      const next = expectStatus(await uploadToRow(ws.projectEdit.api, row.sid, files, 'kept.bin', PNG), 201).json;
      assert.equal(next.version, 2, 'the cancelled upload wrote no version');
    } else {
      // One process and one in-process database: nothing holds the row from outside, and a
      // client that stays gets its file.
      expectStatus(await ws.projectEdit.api.request('POST', rowFiles(row.sid, { column: files }), { rawBody: body, contentType }), 201);
    }
    const listed = expectStatus(await ws.admin.api.get(rowFiles(row.sid)), 200).json;
    assert.deepEqual(listed.results.map((f: { name: string }) => f.name), DB_KIND === 'postgres' ? ['kept.bin'] : ['cancelled late.bin']);
    assert.equal((await listVersions(ws.admin.api, ws.org.sid, row.sid)).length, 2);
    assert.equal((await verifyRow(ws.admin.api, row.sid)).is_valid, true);
  });

  test('one byte changed in a stored object: verify/ fails at the version that added it, naming the file', async () => {
    const row = await createRow(ws);
    expectStatus(await uploadToRow(ws.projectAdmin.api, row.sid, files, 'fine.txt', randomFile(500)), 201);
    const bytes = randomFile(4096);
    const victim = expectStatus(await uploadToRow(ws.projectAdmin.api, row.sid, files, 'spectrum.csv', bytes), 201).json;
    assert.equal(victim.version, 3);
    const file = objectPath(victim.sha256);
    const stored = fs.readFileSync(file);
    assert.deepEqual(stored, bytes, 'the folder store keeps the bytes as they are');
    const changed = Buffer.from(stored);
    changed[1000] ^= 0x01;
    fs.chmodSync(file, 0o600);
    fs.writeFileSync(file, changed);
    try {
      const report = await verifyRow(ws.projectView.api, row.sid);
      assert.equal(report.is_valid, false);
      assert.equal(report.first_invalid_version, 3);
      assert.deepEqual(report.problems, [{
        version: 3,
        problem: `the file "spectrum.csv" (${victim.sid}) no longer matches its SHA-256: its stored bytes hash to ${sha256(changed)}`,
        file: { sid: victim.sid, name: 'spectrum.csv', sha256: victim.sha256 },
      }]);
    } finally {
      fs.writeFileSync(file, stored);
    }
    assert.equal((await verifyRow(ws.admin.api, row.sid)).is_valid, true, 'the bytes put back, the row verifies');
  });

  test('replacing, removing and archiving keep the old bytes, downloadable from their version', async () => {
    const row = await createRow(ws);
    const first = randomFile(3000);
    const second = randomFile(3001);
    const a = expectStatus(await uploadToRow(ws.projectAdmin.api, row.sid, files, 'protocol v1.pdf', first), 201).json;
    const b = expectStatus(await uploadToRow(ws.projectAdmin.api, row.sid, files, 'protocol v2.pdf', second, { replace: a.sid }), 201).json;
    assert.equal(b.version, 3);
    assert.equal(b.cell, a.cell);
    const cell = expectStatus(await ws.admin.api.get(recordPaths.cellDetail(a.cell)), 200).json;
    assert.deepEqual(JSON.parse(cell.data).map((f: any) => f.sid), [b.sid]);
    // A file the cell does not list cannot be replaced.
    expectFieldErrors(await uploadToRow(ws.projectAdmin.api, row.sid, files, 'x.bin', 'x', { replace: a.sid }), {
      replace: [`The cell does not list the file ${a.sid}; nothing was stored.`],
    });
    // Removed from the cell: a version without it.
    expectStatus(await patchCell(ws.projectAdmin.api, a.cell, '[]'), 200);
    await setRowState(ws, row.sid, 'archived');
    const versions = await listVersions(ws.projectView.api, ws.org.sid, row.sid);
    assert.deepEqual(versions.map((v) => JSON.parse(v.data.cells[files] ?? '[]').map((f: any) => f.name)),
      [[], ['protocol v1.pdf'], ['protocol v2.pdf'], [], []]);
    // Every file a version lists is still there, whole.
    const fromVersion2 = JSON.parse(versions[1].data.cells[files])[0];
    assert.deepEqual(await download(ws.projectView.api, fromVersion2.sid), first);
    assert.deepEqual(await download(ws.projectView.api, b.sid), second);
    const history = expectStatus(await ws.projectView.api.get(rowFiles(row.sid)), 200).json;
    assert.deepEqual(history.results.map((f: any) => f.name), ['protocol v1.pdf', 'protocol v2.pdf']);
    // An archived row takes no upload.
    expectPlainText(await uploadToRow(ws.projectAdmin.api, row.sid, files, 'late.bin', 'late'), 406,
      `Error: The row (${row.sid}) is archived; its cells cannot be created.`);
    assert.equal((await verifyRow(ws.admin.api, row.sid)).is_valid, true);
  });

  test('a resumable (tus) upload with row and column in its metadata lands in the cell as one write', async () => {
    const row = await createRow(ws);
    const bytes = randomFile(5000);
    const created = await tus(ws.projectEdit.api, 'POST', filePaths.resumable(ws.org.sid), {
      'upload-length': String(bytes.length), 'upload-metadata': tusMetadata({ filename: 'trace.dat', row: row.sid, column: files }),
    });
    expectStatus(created, 201);
    const done = expectStatus(await tus(ws.projectEdit.api, 'PATCH', created.headers.get('location')!, { 'upload-offset': '0' }, bytes), 200).json;
    assert.equal(done.row, row.sid);
    assert.equal(done.version, 2);
    assert.equal(done.sha256, sha256(bytes));
    const versions = await listVersions(ws.admin.api, ws.org.sid, row.sid);
    assert.deepEqual(JSON.parse(versions[1].data.cells[files]).map((f: any) => f.sid), [done.sid]);
    // Checked at creation: a column without a row, a text column, a Project View.
    expectFieldErrors(await tus(ws.projectEdit.api, 'POST', filePaths.resumable(ws.org.sid), {
      'upload-length': '10', 'upload-metadata': tusMetadata({ filename: 'x.dat', column: files }),
    }), { row: ['Name the row in Upload-Metadata (row <its sid, base64>) with a column.'] });
    expectFieldErrors(await tus(ws.projectEdit.api, 'POST', filePaths.resumable(ws.org.sid), {
      'upload-length': '10', 'upload-metadata': tusMetadata({ filename: 'x.dat', row: row.sid, column: ws.columns.text.sid }),
    }), { column: ['The column Column text does not hold files (its widget is not of kind file).'] });
    expectForbidden(await tus(ws.projectView.api, 'POST', filePaths.resumable(ws.org.sid), {
      'upload-length': '10', 'upload-metadata': tusMetadata({ filename: 'x.dat', row: row.sid, column: files }),
    }));
    assert.equal((await listVersions(ws.admin.api, ws.org.sid, row.sid)).length, 2);
  });

  test('bad uploads to a row: no column, not a file column, another table\'s column, who may not write', async () => {
    const row = await createRow(ws);
    const { body, contentType } = multipart([{ name: 'file', filename: 'a.txt', content: 'a' }]);
    expectFieldErrors(await ws.projectAdmin.api.request('POST', rowFiles(row.sid), { rawBody: body, contentType }), {
      column: ['Name the file column to upload to: ?column=<column sid>.'],
    });
    expectFieldErrors(await uploadToRow(ws.projectAdmin.api, row.sid, ws.columns.text.sid, 'a.txt', 'a'), {
      column: ['The column Column text does not hold files (its widget is not of kind file).'],
    });
    expectFieldErrors(await uploadToRow(ws.projectAdmin.api, row.sid, 'nosuchcolumn0000', 'a.txt', 'a'), { column: ["No column with this sid in the row's table."] });
    expectFieldErrors(await upload(ws.projectAdmin.api, ws.org.sid, 'a.txt', 'a').then(() => ws.projectAdmin.api.request('POST', `${filePaths.list(ws.org.sid)}?column=${files}`, { rawBody: body, contentType })), {
      column: ['Only an upload to a row (level row) names a column or a file to replace.'],
    });
    expectForbidden(await uploadToRow(ws.projectView.api, row.sid, files, 'a.txt', 'a'));
    expectNotFound(await uploadToRow(ws.member.api, row.sid, files, 'a.txt', 'a'));
    expectNotFound(await uploadToRow(ws.outsider.api, row.sid, files, 'a.txt', 'a'));
    assert.equal(expectStatus(await ws.admin.api.get(rowFiles(row.sid)), 200).json.count, 0);
  });
});

// A project as an .eln archive (issue 26): GET /projects/project/detail/{sid}/eln/ — an
// RO-Crate 1.1 in a zip that passes the ELN Consortium's published checks (its structure,
// its JSON Schema, its mandatory keys; test/helpers/eln.ts), each row a Dataset with its
// cells, its files and its whole version chain; `cli verify-archive` re-verifies it offline
// and names the row and the version when one byte of the archive changes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BASE_URL, PROJECT_ROOT } from '../helpers/env.ts';
import { anonymous } from '../helpers/http.ts';
import { MESSAGES, expectDetail, expectStatus } from '../helpers/assertions.ts';
import { cleanEnv } from '../helpers/server.ts';
import { createCell, createRow, listVersions, newWorkspace, patchCell, recordPaths, setRowState, type Workspace } from '../helpers/records.ts';
import { multipart, sha256, upload } from '../helpers/files.ts';
import { ELABFTW_EXAMPLE, archiveStructureErrors, metadataOf, parameterErrors, schemaErrors, unzip } from '../helpers/eln.ts';

const elnPath = (projectSid: string) => `/projects/project/detail/${encodeURIComponent(projectSid)}/eln/`;
const OLD_VALUE = 'first draft 4711';
const FILE_BYTES = Buffer.from('well,absorbance\nA1,0.125\nA2,0.250\n');

let ws: Workspace;
let dir: string;
let archive: string;
const rows: Record<string, any> = {};
let file: any;

/** Runs the CLI with no settings at all: verify-archive needs no database. */
function cli(...args: string[]): Promise<{ code: number | null; json: any; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/cli.js', ...args], { cwd: PROJECT_ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, json: stdout.trim() ? JSON.parse(stdout) : undefined, stderr }));
  });
}

async function download(token: string, projectSid: string): Promise<{ status: number; type: string | null; disposition: string | null; bytes: Buffer }> {
  const res = await fetch(`${BASE_URL}${elnPath(projectSid)}`, { headers: { token } });
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), bytes: Buffer.from(await res.arrayBuffer()) };
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eln-test-'));
  ws = await newWorkspace({ label: 'eln', columns: { text: 'builtinWidgetTxt', data: 'builtinWidgetTxt' }, rows: 0 });
  const api = ws.projectEdit.api;
  file = expectStatus(await upload(ws.projectEdit.api, ws.org.sid, 'plate reader/run 1.csv', FILE_BYTES), 201).json;
  rows.sample = await createRow(ws, { name: 'Sample A', description: 'blood, 5 ml' });
  const cell = await createCell(api, ws.org.sid, rows.sample.sid, ws.columns.text.sid, OLD_VALUE);
  expectStatus(await patchCell(api, cell.sid, 'final text ✓'), 200);
  await createCell(api, ws.org.sid, rows.sample.sid, ws.columns.data.sid, file.sid);
  rows.empty = await createRow(ws, { name: 'Sample B' });
  await setRowState(ws, rows.empty.sid, 'locked');
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the archive', () => {
  test('a zip download named after the project; a Project View may export', async () => {
    const res = await download(ws.projectView.api.token!, ws.project.sid);
    assert.equal(res.status, 200);
    assert.equal(res.type, 'application/zip');
    assert.match(res.disposition ?? '', new RegExp(`^attachment; filename="${ws.project.name} \\d{4}-\\d{2}-\\d{2}\\.eln"$`));
    archive = path.join(dir, 'project.eln');
    fs.writeFileSync(archive, res.bytes);
  });

  test('passes the ELN Consortium\'s checks: one root folder, its JSON Schema, its mandatory keys (as eLabFTW\'s example does)', async () => {
    for (const file of [archive, ELABFTW_EXAMPLE]) {
      const entries = await unzip(file);
      assert.deepEqual(archiveStructureErrors([...entries.keys()]), [], file);
      const metadata = metadataOf(entries);
      assert.deepEqual(schemaErrors(metadata), [], file);
      assert.deepEqual(parameterErrors(metadata), [], file);
    }
  });

  test('each row a Dataset with its cells, its files and its whole version chain, as the API shows them', async () => {
    const entries = await unzip(archive);
    const root = [...entries.keys()][0].split('/')[0];
    const metadata = metadataOf(entries);
    const graph = new Map(metadata['@graph'].map((n: any) => [n['@id'], n]));
    assert.equal(metadata['@context'], 'https://w3id.org/ro/crate/1.1/context');
    assert.deepEqual(graph.get('./').hasPart, [{ '@id': `./rows/${rows.sample.sid}/` }, { '@id': `./rows/${rows.empty.sid}/` }]);
    const sample = graph.get(`./rows/${rows.sample.sid}/`);
    const versions = await listVersions(ws.admin.api, ws.org.sid, rows.sample.sid);
    assert.deepEqual({ ...sample, dateCreated: undefined, dateModified: undefined }, {
      '@id': `./rows/${rows.sample.sid}/`, '@type': 'Dataset', genre: 'record', identifier: rows.sample.sid, name: 'Sample A',
      description: 'blood, 5 ml', author: { '@id': `#person-${ws.projectAdmin.sid}` }, dateCreated: undefined, dateModified: undefined,
      version: String(versions.length), creativeWorkStatus: 'open', about: { '@id': `#table-${ws.table.sid}` },
      variableMeasured: [ws.columns.text.sid, ws.columns.data.sid].map((c) => ({ '@id': `#cell-${rows.sample.sid}-${c}` })),
      hasPart: [{ '@id': `./rows/${rows.sample.sid}/versions.ndjson` }, { '@id': `./rows/${rows.sample.sid}/${file.sid}-plate reader_run 1.csv` }],
    });
    assert.equal(sample.dateModified, versions.at(-1).date_created);
    assert.deepEqual(graph.get(`#cell-${rows.sample.sid}-${ws.columns.text.sid}`), {
      '@id': `#cell-${rows.sample.sid}-${ws.columns.text.sid}`, '@type': 'PropertyValue', propertyID: 'Column text', identifier: ws.columns.text.sid, value: 'final text ✓',
    });
    const fileNode = graph.get(`./rows/${rows.sample.sid}/${file.sid}-plate reader_run 1.csv`);
    assert.deepEqual({ ...fileNode, dateCreated: undefined }, {
      '@id': `./rows/${rows.sample.sid}/${file.sid}-plate reader_run 1.csv`, '@type': 'File', name: 'plate reader/run 1.csv', identifier: file.sid,
      encodingFormat: file.media_type, contentSize: String(FILE_BYTES.length), sha256: sha256(FILE_BYTES), dateCreated: undefined,
    });
    assert.deepEqual(entries.get(`${root}/rows/${rows.sample.sid}/${file.sid}-plate reader_run 1.csv`), FILE_BYTES);
    // The chain: one line a version, each as the version list's detail shows it.
    const lines = entries.get(`${root}/rows/${rows.sample.sid}/versions.ndjson`)!.toString('utf8').split('\n');
    assert.equal(lines.pop(), '');
    const detail = await Promise.all(versions.map(async (v: any) => expectStatus(await ws.admin.api.get(recordPaths.versionDetail(v.sid)), 200).json));
    assert.deepEqual(lines.map((l) => JSON.parse(l)), versions.map((v: any, i: number) => ({
      row: rows.sample.sid, version: v.version, previousHash: v.previousHash, hash: v.hash, data: v.data, updated_by: detail[i].updated_by.sid,
      date_created: v.date_created, activity_message: v.activity_message, commit: null,
    })));
    assert.equal(graph.get(`./rows/${rows.empty.sid}/`).creativeWorkStatus, 'locked');
    const person = graph.get(`#person-${ws.projectEdit.sid}`);
    assert.equal(person.name, `${ws.projectEdit.first_name} ${ws.projectEdit.last_name}`);
  });

  test('roles: an Admin and every project role export; a Member without a role, an Alumni, another organization may not', async () => {
    for (const api of [ws.admin.api, ws.projectAdmin.api, ws.projectEdit.api]) assert.equal((await download(api.token!, ws.project.sid)).status, 200);
    expectDetail(await ws.member.api.get(elnPath(ws.project.sid)), 403, MESSAGES.forbidden);
    expectDetail(await ws.alumni.api.get(elnPath(ws.project.sid)), 403, MESSAGES.forbidden);
    expectStatus(await ws.outsider.api.get(elnPath(ws.project.sid)), 403);
    expectDetail(await anonymous.get(elnPath(ws.project.sid)), 401, MESSAGES.notAuthenticated);
  });
});

describe('cli verify-archive', () => {
  test('the archive verifies offline: every row, version and file', async () => {
    const res = await cli('verify-archive', archive);
    assert.equal(res.code, 0, res.stderr);
    const versions = (await listVersions(ws.admin.api, ws.org.sid, rows.sample.sid)).length + (await listVersions(ws.admin.api, ws.org.sid, rows.empty.sid)).length;
    assert.deepEqual(res.json, { archive, rows: 2, versions, files: 1, is_valid: true, problems: [] });
  });

  test('one byte changed in an old version: the verifier names the row and the version', async () => {
    const bytes = fs.readFileSync(archive);
    const at = bytes.indexOf(Buffer.from(OLD_VALUE));
    assert.ok(at > 0 && bytes.indexOf(Buffer.from(OLD_VALUE), at + 1) === -1, 'the old value is stored once, uncompressed');
    bytes[at + OLD_VALUE.length - 1] = '2'.charCodeAt(0);
    const tampered = path.join(dir, 'tampered.eln');
    fs.writeFileSync(tampered, bytes);
    const res = await cli('verify-archive', tampered);
    assert.equal(res.code, 1);
    assert.deepEqual(res.json.problems, [{ row: rows.sample.sid, name: 'Sample A', version: 2, problem: 'version 2: the hash does not match its content' }]);
    assert.equal(res.json.is_valid, false);
  });

  test('one byte changed in a file: the verifier names the row and the file', async () => {
    const bytes = fs.readFileSync(archive);
    const at = bytes.indexOf(FILE_BYTES);
    bytes[at + 20] ^= 1;
    const tampered = path.join(dir, 'tampered-file.eln');
    fs.writeFileSync(tampered, bytes);
    const res = await cli('verify-archive', tampered);
    assert.equal(res.code, 1);
    assert.deepEqual(res.json.problems, [{
      row: rows.sample.sid, name: 'Sample A', version: null,
      problem: `the file plate reader/run 1.csv (./rows/${rows.sample.sid}/${file.sid}-plate reader_run 1.csv): its bytes do not match its SHA-256`,
    }]);
  });

  test('not a zip: exit 1 with the reason', async () => {
    const junk = path.join(dir, 'junk.eln');
    fs.writeFileSync(junk, 'not a zip');
    const res = await cli('verify-archive', junk);
    assert.equal(res.code, 1);
    assert.match(JSON.parse(res.stderr).error, /cannot be read as a zip archive/);
  });
});

describe('importing an .eln', () => {
  const postEln = (api: any, projectSid: string, tableSid: string, bytes: Buffer) =>
    api.request('POST', `${elnPath(projectSid)}?table__sid=${tableSid}`, { rawBody: bytes, contentType: 'application/zip' });
  const newProject = async (name: string) => {
    const project = expectStatus(await ws.admin.api.post(recordPaths.projectList(ws.org.sid), { name }), 201).json;
    expectStatus(await ws.admin.api.post(recordPaths.memberList(project.sid), { personnel: ws.projectEdit.personnel.sid, permission: 'edit' }), 201);
    return project;
  };
  const rowsOf = async (projectSid: string) => expectStatus(await ws.admin.api.get(`/tables/row/export/table/${ws.table.sid}/?format=ndjson&project__sid=${projectSid}`), 200)
    .text.split('\n').filter(Boolean).map((l: string) => JSON.parse(l));

  test('our archive round trips: the same rows, cells and file bytes in another project, whose own archive verifies', async () => {
    const copy = await newProject('Imported copy');
    const res = await postEln(ws.projectEdit.api, copy.sid, ws.table.sid, fs.readFileSync(archive));
    expectStatus(res, 200);
    assert.deepEqual([res.json.created, res.json.files, res.json.unmapped], [2, 1, []]);
    const versions = await listVersions(ws.admin.api, ws.org.sid, rows.sample.sid);
    assert.deepEqual(res.json.rows.map((r: any) => [r.name, r.source]), [['Sample A', `${rows.sample.sid}, version ${versions.length}`], ['Sample B', `${rows.empty.sid}, version 2`]]);
    const [original, imported] = [await rowsOf(ws.project.sid), await rowsOf(copy.sid)];
    const newFile = imported[0].cells[ws.columns.data.sid];
    assert.notEqual(newFile, file.sid, 'the cell names the new file');
    const bytes = await fetch(`${BASE_URL}/files/file/download/${newFile}/`, { headers: { token: ws.admin.api.token! } });
    assert.deepEqual(Buffer.from(await bytes.arrayBuffer()), FILE_BYTES);
    const comparable = (r: any) => [r.name, r.description, { ...r.cells, [ws.columns.data.sid]: r.cells[ws.columns.data.sid] ? 'file' : undefined }];
    assert.deepEqual(imported.map(comparable), original.map(comparable));
    const first = (await listVersions(ws.admin.api, ws.org.sid, imported[0].sid))[0];
    assert.equal(first.activity_message, `Created the row (imported from ${rows.sample.sid}, version ${versions.length})`);
    const again = await download(ws.projectEdit.api.token!, copy.sid);
    const copyArchive = path.join(dir, 'copy.eln');
    fs.writeFileSync(copyArchive, again.bytes);
    const verified = await cli('verify-archive', copyArchive);
    assert.deepEqual([verified.code, verified.json.is_valid, verified.json.rows, verified.json.files], [0, true, 2, 1]);
  });

  test('an archive that does not verify is refused, naming the row and version; nothing is written', async () => {
    const bytes = fs.readFileSync(archive);
    const at = bytes.indexOf(Buffer.from(OLD_VALUE));
    bytes[at] = 'F'.charCodeAt(0);
    const target = await newProject('Refused copy');
    const res = await postEln(ws.projectEdit.api, target.sid, ws.table.sid, bytes);
    assert.deepEqual([res.status, res.json], [400, { file: [`The archive does not verify: row ${rows.sample.sid}, version 2: version 2: the hash does not match its content`] }]);
    assert.deepEqual(await rowsOf(target.sid), []);
    const junk = await postEln(ws.projectEdit.api, target.sid, ws.table.sid, Buffer.from('not a zip'));
    assert.equal(junk.status, 400);
    expectDetail(await postEln(ws.projectView.api, target.sid, ws.table.sid, bytes), 403, MESSAGES.forbidden);
  });

  test("eLabFTW's example: its 12 experiments and resources become rows, their 2 attachments files", async () => {
    const target = await newProject('From eLabFTW');
    const res = await postEln(ws.projectEdit.api, target.sid, ws.table.sid, fs.readFileSync(ELABFTW_EXAMPLE));
    expectStatus(res, 200);
    assert.deepEqual([res.json.created, res.json.files], [12, 2]);
    const imported = await rowsOf(target.sid);
    assert.equal(imported.length, 12);
    assert.equal(imported[0].name, 'Gold master experiment');
    assert.ok(imported.some((r: any) => r.name === 'フルーツフライの食性に関する研究'));
    assert.ok(imported[0].description.length > 0, 'the text as the description');
  });

  test('file cells: every file the row\'s versions list goes into the archive and comes back, the same bytes and SHA-256 under new sids; both chains verify', async () => {
    const fw = await newWorkspace({ label: 'elnf', columns: { files: 'builtinWidgetFil', text: 'builtinWidgetTxt' }, rows: 0, allRoles: false });
    const api = fw.projectAdmin.api;
    const row = await createRow(fw, { name: 'Gel run' });
    const toCell = (name: string, content: Buffer, query = '') => {
      const { body, contentType } = multipart([{ name: 'file', filename: name, content }]);
      return api.request('POST', `/files/file/list/row/${row.sid}/detail/?column=${fw.columns.files.sid}${query}`, { rawBody: body, contentType });
    };
    const [old, gel, trace] = [Buffer.from('gel, first exposure'), Buffer.from('gel, second exposure'), Buffer.from('trace\n1,2\n')];
    const first = expectStatus(await toCell('gel.png', old), 201).json;
    expectStatus(await toCell('gel v2.png', gel, `&replace=${first.sid}`), 201);
    expectStatus(await toCell('trace.csv', trace), 201);
    const exported = await download(api.token!, fw.project.sid);
    assert.equal(exported.status, 200);
    const fileArchive = path.join(dir, 'files.eln');
    fs.writeFileSync(fileArchive, exported.bytes);
    const report = await cli('verify-archive', fileArchive);
    assert.deepEqual([report.code, report.json.rows, report.json.files, report.json.problems], [0, 1, 3, []], 'the replaced file is in too: version 2 lists it');
    const entries = await unzip(fileArchive);
    const held = [...entries.entries()].filter(([name]) => name.includes(`/rows/${row.sid}/`) && !name.endsWith('versions.ndjson')).map(([, bytes]) => sha256(bytes)).sort();
    assert.deepEqual(held, [old, gel, trace].map(sha256).sort());

    const copy = expectStatus(await fw.admin.api.post(recordPaths.projectList(fw.org.sid), { name: 'Files copy' }), 201).json;
    expectStatus(await fw.admin.api.post(recordPaths.memberList(copy.sid), { personnel: fw.projectAdmin.personnel.sid, permission: 'admin' }), 201);
    const res = await postEln(api, copy.sid, fw.table.sid, exported.bytes);
    expectStatus(res, 200);
    assert.deepEqual([res.json.created, res.json.files], [1, 3]);
    const ndjson = async (projectSid: string) => JSON.parse(expectStatus(await api.get(`/tables/row/export/table/${fw.table.sid}/?format=ndjson&project__sid=${projectSid}`), 200).text.trim());
    const [source, imported] = [await ndjson(fw.project.sid), await ndjson(copy.sid)];
    const listed = (r: any) => JSON.parse(r.cells[fw.columns.files.sid]) as any[];
    const same = (f: any) => [f.name, f.size, f.media_type, f.sha256];
    assert.deepEqual(listed(imported).map(same), listed(source).map(same), 'the same files, in the same order, with the same hashes');
    assert.deepEqual(listed(source).map((f) => f.sha256), [sha256(gel), sha256(trace)]);
    for (const [i, f] of listed(imported).entries()) {
      assert.notEqual(f.sid, listed(source)[i].sid, 'a new file of the organization');
      const bytes = await fetch(`${BASE_URL}/files/file/download/${f.sid}/`, { headers: { token: api.token! } });
      assert.equal(sha256(Buffer.from(await bytes.arrayBuffer())), f.sha256);
    }
    // The new row's chain verifies, its files' bytes included; so does the copy's own archive.
    const verified = expectStatus(await api.get(`/tables/row/detail/${imported.sid}/verify/`), 200).json;
    assert.equal(verified.is_valid, true);
    const again = path.join(dir, 'files-copy.eln');
    fs.writeFileSync(again, (await download(api.token!, copy.sid)).bytes);
    const copied = await cli('verify-archive', again);
    assert.deepEqual([copied.code, copied.json.files, copied.json.is_valid], [0, 2, true]);
  });
});

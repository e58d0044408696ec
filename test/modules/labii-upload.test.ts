// labii-sdk 1.13.14's LabiiObject.upload(file_path, projects), replayed byte for byte (issue 25).
// Written from reading the SDK (sdk.py, api_client.py), none of its code copied: get_file_table
// asks Table.list(query="name_system=file", serializer="detail") and takes results[0]; upload()
// reads its columns' widget.sid (KNQT0a40x5fMRW27bgl: the size, JMPS0a40x5eLQV16afk: the path),
// creates the record at /tables/row/list/organization/{org}/detail/?table__sid=…&presigned_post=true
// with a compact JSON body {projects, name, <path column>: name, <size column>: size}, then —
// the answer's presigned_post.url holding "/row/upload/" — POSTs with Python requests'
// data=presigned_post.fields, files={"file": <the open file>} and its own headers with
// Content-Type overridden to a bare "multipart/form-data": requests then keeps that header
// (no boundary) and builds the body as urllib3's encode_multipart_formdata does — a random
// 32-hex-digit boundary, the fields' parts first (only a Content-Disposition each), then the
// file's part (Content-Disposition with the file's base name, no Content-Type: the SDK gives
// none), CRLF between, "--boundary--" CRLF at the end. The request goes out on a raw socket,
// its bytes exactly as http.client writes them (Host first, then requests' default headers,
// then the SDK's, then Content-Length).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { BASE_URL } from '../helpers/env.ts';
import { newOrganization, type TestMember } from '../helpers/factories.ts';

const SIZE_WIDGET = 'KNQT0a40x5fMRW27bgl';
const PATH_WIDGET = 'JMPS0a40x5eLQV16afk';

interface Reply { status: number; json: any; text: string }

/** The SDK's APIObject headers, then a request as requests sends it for a JSON body. */
function sdkHeaders(token: string): Record<string, string> {
  return { 'X-Forwarded-For': 'batch', 'Content-Type': 'application/json', Authorization: `Token ${token}` };
}

async function sdkSend(token: string, method: string, url: string, data?: unknown): Promise<Reply> {
  const res = await fetch(`${BASE_URL}${url}`, { method, headers: sdkHeaders(token), ...(data === undefined ? {} : { body: JSON.stringify(data) }) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** The bytes of requests.post(url, data=fields, files={"file": open(path, "rb")}, headers=…) with the SDK's headers. */
function requestsMultipart(url: string, token: string, fields: Record<string, string>, fileName: string, bytes: Buffer): { head: string; body: Buffer } {
  const boundary = randomBytes(16).toString('hex');
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n\r\n`), bytes, Buffer.from('\r\n'));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const body = Buffer.concat(parts);
  const { host, pathname, search } = new URL(url);
  const head = `POST ${pathname}${search} HTTP/1.1\r\nHost: ${host}\r\n`
    + 'User-Agent: python-requests/2.32.3\r\nAccept-Encoding: gzip, deflate\r\nAccept: */*\r\nConnection: keep-alive\r\n'
    + `X-Forwarded-For: batch\r\nContent-Type: multipart/form-data\r\nAuthorization: Token ${token}\r\n`
    + `Content-Length: ${body.length}\r\n\r\n`;
  return { head, body };
}

/** Sends raw request bytes and reads one answer (by its Content-Length). */
function sendRaw(url: string, head: string, body: Buffer): Promise<Reply> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(head, 'latin1');
      socket.write(body);
    });
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers = received.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headers)?.[1] ?? 0);
      if (received.length < end + 4 + length) return;
      socket.destroy();
      const text = received.subarray(end + 4, end + 4 + length).toString('utf8');
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(headers.split(' ')[1]), json, text });
    });
    socket.on('error', reject);
  });
}

describe("labii-sdk's upload() against the service, byte for byte", () => {
  let admin: TestMember;
  let org: { sid: string };
  let token: string;
  let project: { sid: string };

  before(async () => {
    ({ admin, org } = await newOrganization('labiiupload'));
    const auth = await fetch(`${BASE_URL}/accounts/auth/`, {
      method: 'POST', headers: { 'X-Forwarded-For': 'batch', 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: admin.email, password: admin.password }),
    });
    token = (await auth.json()).token;
    const made = await sdkSend(token, 'POST', `/projects/project/list/organization/${org.sid}/detail/`, { name: 'Plate reader runs' });
    assert.equal(made.status, 201, made.text);
    project = made.json;
    // An Admin writes rows only with a project role of their own.
    const member = await sdkSend(token, 'POST', `/projects/member/list/project/${project.sid}/detail/`, { personnel: admin.personnel.sid, permission: 'edit' });
    assert.equal(member.status, 201, member.text);
  });

  test('a new organization has its files table: get_file_table finds it with the columns of Labii\'s size and path widgets', async () => {
    const res = await sdkSend(token, 'GET', `/tables/table/list/organization/${org.sid}/detail/?page=1&page_size=10&name_system=file`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.count, 1);
    const [table] = res.json.results;
    assert.deepEqual([table.name, table.name_singular, table.name_system, table.unique_code], ['Files', 'File', 'file', 'FIL']);
    assert.deepEqual(table.columns.map((c: any) => [c.name, c.widget.sid]), [['File', PATH_WIDGET], ['Size', SIZE_WIDGET]]);
  });

  test('upload(): the record with presigned_post, then the boundary-less multipart POST to /row/upload/ stores the file; it downloads identical', async () => {
    // get_file_table
    const tables = await sdkSend(token, 'GET', `/tables/table/list/organization/${org.sid}/detail/?page=1&page_size=10&name_system=file`);
    const fileTable = tables.json.results[0];
    const bytes = Buffer.concat([Buffer.from('well,A1,A2\r\nOD600,0.118,0.231\r\n'), randomBytes(300_000)]);
    const fileName = 'plate-reader-2024-07-01.csv';
    const data: Record<string, unknown> = { projects: [{ sid: project.sid }], name: fileName };
    let pathColumn = '';
    let sizeColumn = '';
    for (const column of fileTable.columns) {
      if (column.widget.sid === SIZE_WIDGET) { data[column.sid] = bytes.length; sizeColumn = column.sid; }
      if (column.widget.sid === PATH_WIDGET) { data[column.sid] = fileName; pathColumn = column.sid; }
    }
    // Record.create(data, query=f"table__sid={sid}&presigned_post=true")
    const record = await sdkSend(token, 'POST', `/tables/row/list/organization/${org.sid}/detail/?table__sid=${fileTable.sid}&presigned_post=true`, data);
    assert.equal(record.status, 201, record.text);
    assert.deepEqual(record.json.presigned_post, { url: `${BASE_URL}/tables/row/upload/${record.json.sid}/`, fields: { column: pathColumn } });
    assert.ok(record.json.presigned_post.url.includes('/row/upload/'));
    assert.deepEqual(record.json.column_set.map((c: any) => [c.column.sid, c.data]), [[sizeColumn, String(bytes.length)]], 'the size is a cell; the path waits for the file');
    assert.equal(record.json.version, 1);

    // requests.post(url, data=fields, files={'file': file_ob}, headers=get_headers(True) with Content-Type: multipart/form-data)
    const { head, body } = requestsMultipart(record.json.presigned_post.url, token, record.json.presigned_post.fields, fileName, bytes);
    const upload = await sendRaw(record.json.presigned_post.url, head, body);
    assert.equal(upload.status, 201, upload.text);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    assert.deepEqual([upload.json.name, upload.json.size, upload.json.sha256, upload.json.row, upload.json.version], [fileName, bytes.length, sha256, record.json.sid, 2]);

    // The row: its file cell lists the file; version 2 carries its hash, and the chain verifies.
    const row = await sdkSend(token, 'GET', `/tables/row/detail/${record.json.sid}/`);
    assert.equal(row.status, 200, row.text);
    const pathCell = row.json.column_set.find((c: any) => c.column.sid === pathColumn);
    assert.deepEqual(JSON.parse(pathCell.data).map((f: any) => [f.sid, f.name, f.size, f.sha256]), [[upload.json.sid, fileName, bytes.length, sha256]]);
    assert.equal(row.json.version, 2);
    const verified = await sdkSend(token, 'GET', `/tables/row/detail/${record.json.sid}/verify/`);
    assert.equal(verified.json.is_valid, true, verified.text);

    const download = await fetch(`${BASE_URL}/files/file/download/${upload.json.sid}/`, { headers: { Authorization: `Token ${token}` } });
    assert.equal(download.status, 200);
    assert.ok(Buffer.from(await download.arrayBuffer()).equals(bytes), 'the download is the uploaded bytes');
  });

  test('refusals: a table without a file column, a presigned post outside the detail shape, an upload without its field or to a row one may not see', async () => {
    const plain = await sdkSend(token, 'POST', `/tables/table/list/organization/${org.sid}/detail/`, { name: 'Plain' });
    assert.equal(plain.status, 201, plain.text);
    const refused = await sdkSend(token, 'POST', `/tables/row/list/organization/${org.sid}/detail/?table__sid=${plain.json.sid}&presigned_post=true`, { name: 'x', projects: [{ sid: project.sid }] });
    assert.deepEqual([refused.status, refused.json], [400, { presigned_post: ['The table has no file column (a column whose widget is of kind file) to upload to.'] }]);
    const rows = await sdkSend(token, 'GET', `/tables/row/list/organization/${org.sid}/name/?table__sid=${plain.json.sid}`);
    assert.equal(rows.json.count, 0, 'nothing was created');

    const tables = await sdkSend(token, 'GET', `/tables/table/list/organization/${org.sid}/detail/?name_system=file`);
    const fileTable = tables.json.results[0];
    const listShape = await sdkSend(token, 'POST', `/tables/row/list/organization/${org.sid}/list/?table__sid=${fileTable.sid}&presigned_post=true`, { name: 'y', projects: [{ sid: project.sid }] });
    assert.deepEqual([listShape.status, listShape.json], [400, { presigned_post: ['A presigned post is answered in the detail shape: POST to …/detail/.'] }]);

    const record = await sdkSend(token, 'POST', `/tables/row/list/organization/${org.sid}/detail/?table__sid=${fileTable.sid}&presigned_post=true`, { name: 'z.txt', projects: [{ sid: project.sid }] });
    assert.equal(record.status, 201, record.text);
    const noField = requestsMultipart(record.json.presigned_post.url, token, {}, 'z.txt', Buffer.from('zzz'));
    const missing = await sendRaw(record.json.presigned_post.url, noField.head, noField.body);
    assert.deepEqual([missing.status, missing.json], [400, { column: ['Send the field "column" (from presigned_post.fields) before the file.'] }]);

    const stranger = await newOrganization('labiistranger');
    const auth = await fetch(`${BASE_URL}/accounts/auth/`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: stranger.admin.email, password: stranger.admin.password }),
    });
    const strangerToken = (await auth.json()).token;
    const theirs = requestsMultipart(record.json.presigned_post.url, strangerToken, record.json.presigned_post.fields, 'z.txt', Buffer.from('zzz'));
    const notFound = await sendRaw(record.json.presigned_post.url, theirs.head, theirs.body);
    assert.deepEqual([notFound.status, notFound.json], [404, { detail: 'Not found.' }]);
    const row = await sdkSend(token, 'GET', `/tables/row/detail/${record.json.sid}/`);
    assert.deepEqual([row.json.version, row.json.column_set], [1, []], 'no file landed');
  });
});

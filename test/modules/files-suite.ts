// The files tests (issue 25), one suite run against each store: files.test.ts on the
// folder store (the embedded default), files-s3.test.ts on S3 (Ceph's RADOS Gateway).
// Each run starts a server of its own with small limits (FILE_MAX_BYTES 4 MiB,
// FILES_QUOTA_BYTES 10 MiB), clamd with the EICAR signature, and the GC every second.
// Through HTTP: bytes and hash identical both ways, Range, Content-Disposition for hostile
// names, sniffed types and active content never inline, the size limit and the quota
// (413, nothing stored), an upload cut off mid-body (nothing left), tus resumed after a cut,
// EICAR refused, the same bytes stored once, the GC, and who may do what.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Api } from '../helpers/http.ts';
import { expectDetail, expectFieldErrors, expectStatus, expectNotFound, expectForbidden, MESSAGES } from '../helpers/assertions.ts';
import { createOrganization, listPersonnel, newUser, postPersonnel, type TestUser } from '../helpers/factories.ts';
import { newSmallWorkspaceAt } from '../helpers/records.ts';
import {
  cutOff, EICAR, eventually, filePaths, multipart, randomFile, sha256, startClamd, startSuiteServer, tus, tusMetadata, upload,
  type Clamd, type SuiteServer,
} from '../helpers/files.ts';

const MiB = 1024 * 1024;
export const SUITE_ENV = {
  FILE_MAX_BYTES: String(4 * MiB),
  FILES_QUOTA_BYTES: String(10 * MiB),
  FILES_GC_SECONDS: '1',
  FILES_GC_GRACE_SECONDS: '3600',
};

/** What a test may look at in the store behind the server (never through it). */
export interface StoreView {
  has(hash: string): Promise<boolean>;
  /** Temporary objects: writes in progress, or left behind. */
  temporaries(): Promise<number>;
  /** Resumable uploads kept (their parts on disk). */
  resumables(): number;
  /** Makes a resumable upload look `hours` old (its creation date), behind the API. */
  age(uploadId: string, hours: number): void;
}

export interface StoreUnderTest {
  /** The store's settings for the server; `dataDir` is the server's DATA_DIR. */
  env(): Record<string, string>;
  view(dataDir: string): StoreView;
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

export function fileSuite(kind: string, store: StoreUnderTest): void {
  describe(`files on the ${kind} store`, () => {
    let clamd: Clamd;
    let suite: SuiteServer;
    let view: StoreView;
    let admin: TestUser;
    let member: TestUser;
    let outsider: TestUser;
    let org: string;
    const at = (user: TestUser) => user.api.at(suite.server.baseUrl);
    const serverOf = () => ({ baseUrl: suite.server.baseUrl, dataDir: suite.server.dataDir });
    const count = async (api: Api, orgSid = org) => expectStatus(await api.get(filePaths.list(orgSid, 'name')), 200).json.count as number;

    before(async () => {
      clamd = await startClamd();
      suite = await startSuiteServer({ ...SUITE_ENV, CLAMD_SOCKET: clamd.socket, ...store.env() });
      view = store.view(suite.server.dataDir);
      admin = await newUser('filer', serverOf());
      org = (await createOrganization({ ...admin, api: at(admin) })).sid;
      member = await newUser('member', serverOf());
      expectStatus(await postPersonnel(at(admin), org, {
        email: member.email, first_name: 'Mem', last_name: 'Ber', is_administrator: 'false', is_archived: 'false',
      }), 201);
      outsider = await newUser('outsider', serverOf());
      await createOrganization({ ...outsider, api: at(outsider) });
    });
    after(async () => {
      await suite?.stop();
      await clamd?.stop();
    });

    /** A fresh organization of the admin's, so quotas and counts are the test's own. */
    const freshOrg = async () => (await createOrganization({ ...admin, api: at(admin) })).sid;

    test('a streamed upload downloads identical: hash, size, sniffed type, descriptor, one stored object', async () => {
      const bytes = randomFile(3 * MiB + 17);
      const created = expectStatus(await upload(at(member), org, 'plate-reader.bin', bytes), 201).json;
      assert.deepEqual(Object.keys(created).sort(), ['change_permission', 'date_created', 'media_type', 'name', 'row', 'sha256', 'sid', 'size', 'uploaded_by']);
      assert.equal(created.row, null, 'not attached to a row');
      assert.equal(created.sha256, sha256(bytes));
      assert.equal(created.size, bytes.length);
      assert.equal(created.name, 'plate-reader.bin');
      assert.equal(created.media_type, 'application/octet-stream');
      assert.equal(created.uploaded_by.name, 'Mem Ber');
      assert.equal(created.change_permission, true);
      assert.deepEqual(expectStatus(await at(admin).get(filePaths.detail(created.sid)), 200).json, { ...created, change_permission: true });
      const down = await fetch(`${suite.server.baseUrl}${filePaths.download(created.sid)}`, { headers: { token: admin.token } });
      assert.equal(down.status, 200);
      const got = Buffer.from(await down.arrayBuffer());
      assert.equal(sha256(got), created.sha256, 'the bytes downloaded are the bytes uploaded');
      assert.equal(down.headers.get('content-length'), String(bytes.length));
      assert.equal(down.headers.get('etag'), `"${created.sha256}"`);
      assert.equal(down.headers.get('content-type'), 'application/octet-stream');
      assert.equal(down.headers.get('content-disposition'), 'attachment; filename=plate-reader.bin');
      assert.match(down.headers.get('content-security-policy') ?? '', /^sandbox;/);
      assert.equal(down.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(await view.has(created.sha256), true);
      assert.equal(await view.temporaries(), 0, 'no temporary object is left');
      const listed = expectStatus(await at(member).get(filePaths.list(org, 'list')), 200).json;
      assert.ok(listed.results.some((f: any) => f.sid === created.sid && f.sha256 === created.sha256 && f.size === bytes.length));
      assert.equal(listed.add_permission, true);
    });

    test('Range: 206 with Content-Range, suffix and open ranges, 416 past the end, 304 for the ETag, several ranges get the whole', async () => {
      const bytes = randomFile(1000);
      const { sid, sha256: hash } = expectStatus(await upload(at(admin), org, 'r.bin', bytes), 201).json;
      const get = (headers: Record<string, string>) => fetch(`${suite.server.baseUrl}${filePaths.download(sid)}`, { headers: { token: admin.token, ...headers } });
      for (const [range, start, end] of [['bytes=10-19', 10, 19], ['bytes=-5', 995, 999], ['bytes=990-', 990, 999], ['bytes=0-5000', 0, 999]] as const) {
        const res = await get({ range });
        assert.equal(res.status, 206, range);
        assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/1000`, range);
        assert.equal(res.headers.get('content-length'), String(end - start + 1), range);
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes.subarray(start, end + 1), range);
      }
      const past = await get({ range: 'bytes=1000-1010' });
      assert.equal(past.status, 416);
      assert.equal(past.headers.get('content-range'), 'bytes */1000');
      assert.deepEqual(await past.json(), { detail: "The range is not within the file's 1000 bytes." });
      const several = await get({ range: 'bytes=0-1,5-6' });
      assert.equal(several.status, 200);
      assert.equal((await several.arrayBuffer()).byteLength, 1000);
      const stale = await get({ range: 'bytes=0-1', 'if-range': '"other"' });
      assert.equal(stale.status, 200, 'If-Range of another ETag: the whole file');
      await stale.arrayBuffer();
      const same = await get({ 'if-none-match': `"${hash}"` });
      assert.equal(same.status, 304);
      const head = await fetch(`${suite.server.baseUrl}${filePaths.download(sid)}`, { method: 'HEAD', headers: { token: admin.token } });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), '1000');
    });

    test('hostile names are kept as typed; the download offers a name safe on any disk', async () => {
      const cases: Array<[typed: string, star: string | null, offered: string]> = [
        ['../../etc/passwd', null, '_.._etc_passwd'],
        ['a/b\\c.txt', null, 'a_b_c.txt'],
        [`${'é'.repeat(296)}.csv`, null, `${'é'.repeat(196)}.csv`],
        ['invoice\u202Egnp.exe', null, 'invoicegnp.exe'],
        ['"quoted"; name.txt', null, '"quoted"; name.txt'],
        ['Résumé 🧪.pdf', null, 'Résumé 🧪.pdf'],
      ];
      for (const [typed, , offered] of cases) {
        const { body, contentType } = multipart([{ name: 'file', filenameStar: `UTF-8''${encodeURIComponent(typed)}`, content: 'x' }]);
        const created = expectStatus(await at(admin).request('POST', filePaths.list(org), { rawBody: body, contentType }), 201, typed).json;
        assert.equal(created.name, typed, 'the name is kept as typed');
        assert.equal(expectStatus(await at(admin).get(filePaths.detail(created.sid)), 200).json.name, typed);
        const down = await fetch(`${suite.server.baseUrl}${filePaths.download(created.sid)}`, { headers: { token: admin.token } });
        const disposition = down.headers.get('content-disposition') ?? '';
        await down.arrayBuffer();
        assert.match(disposition, /^attachment; filename=("[\x20-\x7e]*"|[!#$%&'*+.^_`|~0-9A-Za-z-]+)(; filename\*=UTF-8''[A-Za-z0-9%!#$&+.^_`|~-]+)?$/, `${typed}: ${disposition}`);
        const star = /filename\*=UTF-8''(.+)$/.exec(disposition)?.[1];
        const quoted = /filename="((?:[^"\\]|\\.)*)"/.exec(disposition)?.[1].replace(/\\(.)/g, '$1');
        const plain = quoted ?? /filename=([^;\s]+)/.exec(disposition)![1];
        assert.equal(star ? decodeURIComponent(star) : plain, offered, typed);
      }
      const before = await count(at(admin));
      for (const [filenameStar, message] of [
        [`UTF-8''a%00b.txt`, 'Null characters are not allowed in a file name.'],
        [`UTF-8''a%07b.txt`, 'Control characters are not allowed in a file name.'],
        [`UTF-8''${'x'.repeat(1001)}`, 'Ensure the file name has no more than 1000 characters.'],
      ]) {
        const { body, contentType } = multipart([{ name: 'file', filenameStar, content: 'x' }]);
        expectFieldErrors(await at(admin).request('POST', filePaths.list(org), { rawBody: body, contentType }), { file: [message] });
      }
      const blank = multipart([{ name: 'file', filename: '', content: 'x' }]);
      expectFieldErrors(await at(admin).request('POST', filePaths.list(org), { rawBody: blank.body, contentType: blank.contentType }), { file: ['The file name may not be blank.'] });
      assert.equal(await count(at(admin)), before, 'nothing was stored');
    });

    test('media types are sniffed from the bytes; HTML, SVG, XML and scripts are never inline', async () => {
      const cases: Array<[name: string, claimed: string, content: Buffer | string, type: string, inline: boolean]> = [
        ['pixel.txt', 'text/plain', PNG, 'image/png', true],
        ['%PDF.bin', 'application/octet-stream', '%PDF-1.4\n1 0 obj\n<<>>\nendobj\n', 'application/pdf', true],
        ['page.png', 'image/png', '<!DOCTYPE html><script>alert(1)</script>', 'text/html', false],
        ['  spaced.jpg', 'image/jpeg', '\n\n  <html><body onload=alert(1)>', 'text/html', false],
        ['logo.png', 'image/png', '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml', false],
        ['bare.svg', 'image/png', '<svg onload="alert(1)"/>', 'image/svg+xml', false],
        ['data.xml', 'text/plain', '<?xml version="1.0"?><doc/>', 'application/xml', false],
        ['app.js', 'image/png', 'alert(document.cookie)', 'text/plain', false],
      ];
      for (const [name, claimed, content, type, inline] of cases) {
        const created = expectStatus(await upload(at(admin), org, name, Buffer.from(content), { partType: claimed }), 201, name).json;
        assert.equal(created.media_type, type, name);
        const down = await fetch(`${suite.server.baseUrl}${filePaths.download(created.sid)}`, { headers: { token: admin.token } });
        await down.arrayBuffer();
        assert.equal(down.headers.get('content-type'), type === 'text/plain' ? 'text/plain; charset=utf-8' : type, name);
        assert.match(down.headers.get('content-disposition') ?? '', inline ? /^inline;/ : /^attachment;/, name);
        assert.match(down.headers.get('content-security-policy') ?? '', /^sandbox; default-src 'none'/, name);
        if (inline) {
          const forced = await fetch(`${suite.server.baseUrl}${filePaths.download(created.sid)}?attachment=true`, { headers: { token: admin.token } });
          await forced.arrayBuffer();
          assert.match(forced.headers.get('content-disposition') ?? '', /^attachment;/, `${name} ?attachment=true`);
        }
      }
    });

    test('past FILE_MAX_BYTES: 413 with the API\'s body, the bytes discarded, nothing stored', async () => {
      const orgSid = await freshOrg();
      const detail = 'The file is larger than the limit of 4 MiB (4194304 bytes, FILE_MAX_BYTES); nothing was stored.';
      const over = randomFile(4 * MiB + 1);
      expectDetail(await upload(at(admin), orgSid, 'big.bin', over), 413, detail);
      // Declared by Content-Length far past the limit: refused before the body is read.
      const huge = randomFile(7 * MiB);
      expectDetail(await upload(at(admin), orgSid, 'huge.bin', huge), 413, detail);
      // Chunked (no Content-Length): refused as the bytes pass the limit.
      const { body, contentType } = multipart([{ name: 'file', filename: 'chunked.bin', content: over }]);
      const chunked = await fetch(`${suite.server.baseUrl}${filePaths.list(orgSid)}`, {
        method: 'POST', headers: { token: admin.token, 'content-type': contentType },
        body: new ReadableStream({ start(c) { for (let i = 0; i < body.length; i += 65536) c.enqueue(body.subarray(i, i + 65536)); c.close(); } }),
        duplex: 'half',
      } as RequestInit);
      assert.equal(chunked.status, 413);
      assert.deepEqual(await chunked.json(), { detail });
      assert.equal(await count(at(admin), orgSid), 0);
      for (const bytes of [over, huge]) assert.equal(await view.has(sha256(bytes)), false);
      assert.ok(await eventually(async () => (await view.temporaries()) === 0), 'no temporary object is left');
      // Exactly the limit is taken.
      expectStatus(await upload(at(admin), orgSid, 'exact.bin', randomFile(4 * MiB)), 201);
    });

    test('FILES_QUOTA_BYTES: 413 past the organization\'s quota, also for racing uploads; a deleted file gives its room back', async () => {
      const orgSid = await freshOrg();
      const three = await Promise.all([0, 1, 2].map(() => randomFile(3 * MiB)));
      for (const [i, bytes] of three.entries()) expectStatus(await upload(at(admin), orgSid, `q${i}.bin`, bytes), 201);
      // 9 MiB used of 10: four racing 600 KiB uploads, room for one.
      const racing = await Promise.all([0, 1, 2, 3].map((i) => upload(at(admin), orgSid, `r${i}.bin`, randomFile(600 * 1024))));
      assert.deepEqual(racing.map((r) => r.status).sort(), [201, 413, 413, 413], racing.map((r) => r.text).join('\n'));
      const refused = racing.find((r) => r.status === 413)!;
      assert.match(refused.json.detail, /^The organization's files would go past its storage quota \(FILES_QUOTA_BYTES; \d+ bytes left\); nothing was stored\.$/);
      assert.equal(await count(at(admin), orgSid), 4);
      const [first] = expectStatus(await at(admin).get(filePaths.list(orgSid, 'list')), 200).json.results;
      expectStatus(await at(admin).delete(filePaths.detail(first.sid)), 200);
      expectStatus(await upload(at(admin), orgSid, 'after.bin', randomFile(2 * MiB)), 201);
    });

    test('an upload cut off mid-body leaves no file, no object and no temporary object', async () => {
      const orgSid = await freshOrg();
      const bytes = randomFile(2 * MiB);
      const { body, contentType } = multipart([{ name: 'file', filename: 'cut.bin', content: bytes }]);
      await cutOff(suite.server.baseUrl, {
        method: 'POST', path: filePaths.list(orgSid), headers: { token: admin.token, 'content-type': contentType, 'content-length': String(body.length) },
      }, body, MiB);
      assert.ok(await eventually(async () => (await view.temporaries()) === 0), 'the temporary object is dropped');
      assert.equal(await count(at(admin), orgSid), 0);
      assert.equal(await view.has(sha256(bytes)), false);
      // The same bytes, whole, are taken.
      expectStatus(await at(admin).request('POST', filePaths.list(orgSid), { rawBody: body, contentType }), 201);
    });

    test('a resumable (tus) upload resumes after its connection is cut, and answers the descriptor', async () => {
      const bytes = randomFile(3 * MiB);
      const created = await tus(at(member), 'POST', filePaths.resumable(org), {
        'upload-length': String(bytes.length), 'upload-metadata': tusMetadata({ filename: 'spectrum ⚗.dat' }),
      });
      expectStatus(created, 201);
      const location = created.headers.get('location')!;
      assert.match(location, /^\/files\/upload\/detail\/[0-9a-f]{32}\/$/);
      // Nobody else sees it.
      assert.equal((await tus(at(admin), 'HEAD', location)).status, 404, 'HEAD: 404');
      expectStatus(await tus(at(member), 'PATCH', location, { 'upload-offset': '0' }, bytes.subarray(0, MiB)), 204);
      // The next part is cut off halfway.
      await cutOff(suite.server.baseUrl, {
        method: 'PATCH', path: location,
        headers: { token: member.token, 'tus-resumable': '1.0.0', 'upload-offset': String(MiB), 'content-type': 'application/offset+octet-stream', 'content-length': String(MiB) },
      }, bytes.subarray(MiB, 2 * MiB), MiB / 2);
      let offset = 0;
      assert.ok(await eventually(async () => {
        const head = await tus(at(member), 'HEAD', location);
        offset = Number(head.headers.get('upload-offset'));
        return head.status === 200 && offset > MiB;
      }), 'what arrived of the cut part is kept');
      assert.ok(offset <= 1.5 * MiB);
      assert.equal(view.resumables(), 1);
      const done = expectStatus(await tus(at(member), 'PATCH', location, { 'upload-offset': String(offset) }, bytes.subarray(offset)), 200).json;
      assert.equal(done.sha256, sha256(bytes));
      assert.equal(done.name, 'spectrum ⚗.dat');
      assert.equal(done.size, bytes.length);
      const got = Buffer.from(await (await fetch(`${suite.server.baseUrl}${filePaths.download(done.sid)}`, { headers: { token: member.token } })).arrayBuffer());
      assert.equal(sha256(got), done.sha256);
      assert.equal(view.resumables(), 0, 'a finished upload keeps no parts');
      assert.equal((await tus(at(member), 'HEAD', location)).status, 404, 'HEAD: 404');
    });

    test('resumable uploads: limits at creation, termination, and expiry after FILES_RESUMABLE_HOURS', async () => {
      const orgSid = await freshOrg();
      expectDetail(await tus(at(admin), 'POST', filePaths.resumable(orgSid), {
        'upload-length': String(4 * MiB + 1), 'upload-metadata': tusMetadata({ filename: 'big' }),
      }), 413, 'The file is larger than the limit of 4 MiB (4194304 bytes, FILE_MAX_BYTES); nothing was stored.');
      expectDetail(await tus(at(admin), 'POST', filePaths.resumable(orgSid), { 'upload-length': '10' }), 400,
        'Send the file name in Upload-Metadata: filename <the name, base64>.');
      expectDetail(await tus(at(outsider), 'POST', filePaths.resumable(orgSid), { 'upload-length': '10', 'upload-metadata': tusMetadata({ filename: 'x' }) }), 403, MESSAGES.forbidden);
      const open = async () => {
        const res = expectStatus(await tus(at(admin), 'POST', filePaths.resumable(orgSid), { 'upload-length': '100', 'upload-metadata': tusMetadata({ filename: 'x' }) }), 201);
        const location = res.headers.get('location')!;
        expectStatus(await tus(at(admin), 'PATCH', location, { 'upload-offset': '0' }, randomFile(40)), 204);
        return location;
      };
      const dropped = await open();
      expectStatus(await tus(at(admin), 'DELETE', dropped), 204);
      assert.equal((await tus(at(admin), 'HEAD', dropped)).status, 404, 'HEAD: 404');
      const stale = await open();
      const fresh = await open();
      view.age(stale.split('/')[4], 25);
      assert.ok(await eventually(async () => (await tus(at(admin), 'HEAD', stale)).status === 404), 'the GC deletes an upload past its time');
      assert.equal((await tus(at(admin), 'HEAD', fresh)).status, 200, 'and keeps a younger one');
      expectStatus(await tus(at(admin), 'DELETE', fresh), 204);
      assert.equal(await count(at(admin), orgSid), 0);
    });

    test('the EICAR test file is refused (422 naming it), multipart and resumable, and nothing is stored', async () => {
      const orgSid = await freshOrg();
      const detail = 'The file is infected (Records-Test-EICAR.UNOFFICIAL) and was refused; nothing was stored.';
      expectDetail(await upload(at(admin), orgSid, 'eicar.com', EICAR), 422, detail);
      const res = expectStatus(await tus(at(admin), 'POST', filePaths.resumable(orgSid), {
        'upload-length': String(EICAR.length), 'upload-metadata': tusMetadata({ filename: 'eicar.com' }),
      }), 201);
      expectDetail(await tus(at(admin), 'PATCH', res.headers.get('location')!, { 'upload-offset': '0' }, EICAR), 422, detail);
      assert.equal(await count(at(admin), orgSid), 0);
      assert.equal(await view.has(sha256(EICAR)), false);
      assert.equal(view.resumables(), 0);
      // A clean file passes the same scanner.
      expectStatus(await upload(at(admin), orgSid, 'clean.txt', 'EICAR is not in here'), 201);
    });

    test('the same bytes uploaded twice are two files and one stored object; the GC deletes an object once no file names it', async () => {
      const shared = randomFile(64 * 1024);
      const a = expectStatus(await upload(at(admin), org, 'one.bin', shared), 201).json;
      const b = expectStatus(await upload(at(member), org, 'two.bin', shared), 201).json;
      assert.notEqual(a.sid, b.sid);
      assert.equal(a.sha256, b.sha256);
      assert.equal(await view.has(a.sha256), true);
      const lone = randomFile(1000);
      const young = randomFile(1000);
      const l = expectStatus(await upload(at(admin), org, 'lone.bin', lone), 201).json;
      const y = expectStatus(await upload(at(admin), org, 'young.bin', young), 201).json;
      for (const sid of [a.sid, l.sid, y.sid]) expectStatus(await at(admin).delete(filePaths.detail(sid)), 200);
      expectNotFound(await at(admin).get(filePaths.detail(a.sid)));
      // The shared and the lone objects are made to look stored two days ago; the young one is not.
      await suite.behind(async (run) => {
        await run(`UPDATE file_objects SET date_stored = now() - interval '2 days' WHERE sha256 = ANY($1)`, [[a.sha256, l.sha256]]);
      });
      assert.ok(await eventually(async () => !(await view.has(l.sha256))), 'the old unreferenced object is deleted');
      assert.equal(await view.has(a.sha256), true, 'an object a file still names is kept');
      assert.equal(await view.has(y.sha256), true, 'an unreferenced object within its grace period is kept');
      const got = Buffer.from(await (await fetch(`${suite.server.baseUrl}${filePaths.download(b.sid)}`, { headers: { token: admin.token } })).arrayBuffer());
      assert.equal(sha256(got), b.sha256);
      // Uploaded again, the deleted bytes are stored again.
      const again = expectStatus(await upload(at(admin), org, 'lone again.bin', lone), 201).json;
      assert.equal(await view.has(again.sha256), true);
    });

    test('the GC keeps what a version refers to: a file replaced in its cell stays, whole, while a deleted upload goes', async () => {
      const small = await newSmallWorkspaceAt(serverOf(), 'gcfiles', 0);
      const column = expectStatus(await small.api.post(`/tables/column/list/organization/${small.org.sid}/detail/?table__sid=${small.table.sid}`, {
        name: 'Files', widget: 'builtinWidgetFil',
      }), 201).json.sid;
      const row = expectStatus(await small.api.post(`/tables/row/list/organization/${small.org.sid}/detail/?table__sid=${small.table.sid}&project__sid=${small.project.sid}`, {
        name: 'Gel',
      }), 201).json;
      const toRow = (name: string, content: Buffer, query = '') => {
        const { body, contentType } = multipart([{ name: 'file', filename: name, content }]);
        return small.api.request('POST', `/files/file/list/row/${row.sid}/detail/?column=${column}${query}`, { rawBody: body, contentType });
      };
      const old = randomFile(5000);
      const a = expectStatus(await toRow('gel v1.png', old), 201).json;
      const b = expectStatus(await toRow('gel v2.png', randomFile(5001), `&replace=${a.sid}`), 201).json;
      assert.equal(b.version, 3);
      const gone = randomFile(700);
      const loose = expectStatus(await upload(small.api, small.org.sid, 'loose.bin', gone), 201).json;
      expectStatus(await small.api.delete(filePaths.detail(loose.sid)), 200);
      expectDetail(await small.api.delete(filePaths.detail(a.sid)), 409,
        `The file is attached to the row ${row.sid}, whose versions refer to it: it stays as long as the row. Remove it from the cell instead (its versions keep it).`);
      await suite.behind(async (run) => {
        await run(`UPDATE file_objects SET date_stored = now() - interval '2 days' WHERE sha256 = ANY($1)`, [[a.sha256, b.sha256, loose.sha256]]);
      });
      assert.ok(await eventually(async () => !(await view.has(loose.sha256))), 'the deleted upload\'s object goes');
      assert.equal(await view.has(a.sha256), true, 'the replaced file stays: version 2 refers to it');
      assert.equal(await view.has(b.sha256), true);
      const got = Buffer.from(await (await fetch(`${suite.server.baseUrl}${filePaths.download(a.sid)}`, { headers: { token: small.user.token } })).arrayBuffer());
      assert.equal(sha256(got), sha256(old));
      // (On PGlite, behind() restarted the server: its address may be new.)
      const report = expectStatus(await small.api.at(suite.server.baseUrl).get(`/tables/row/detail/${row.sid}/verify/`), 200).json;
      assert.equal(report.is_valid, true);
    });

    test('who may: members upload and read, the uploader or an Admin deletes, others get 404, no token 401', async () => {
      const mine = expectStatus(await upload(at(member), org, 'mine.txt', 'mine'), 201).json;
      const admins = expectStatus(await upload(at(admin), org, 'admins.txt', 'admins'), 201).json;
      expectStatus(await at(admin).get(filePaths.download(mine.sid)), 200);
      expectNotFound(await at(outsider).get(filePaths.detail(mine.sid)));
      expectNotFound(await at(outsider).get(filePaths.download(mine.sid)));
      expectNotFound(await at(outsider).delete(filePaths.detail(mine.sid)));
      expectForbidden(await at(outsider).get(filePaths.list(org)));
      expectForbidden(await upload(at(outsider), org, 'in.txt', 'x'));
      const anon = new Api(null, 'token', suite.server.baseUrl);
      expectDetail(await anon.get(filePaths.download(mine.sid)), 401, MESSAGES.notAuthenticated);
      expectDetail(await upload(anon, org, 'x.txt', 'x'), 401, MESSAGES.notAuthenticated);
      assert.equal(expectStatus(await at(member).get(filePaths.detail(admins.sid)), 200).json.change_permission, false);
      expectForbidden(await at(member).delete(filePaths.detail(admins.sid)));
      expectStatus(await at(member).get(filePaths.detail(admins.sid)), 200);
      assert.deepEqual(expectStatus(await at(member).delete(filePaths.detail(mine.sid)), 200).json, {});
      // An archived member (Alumni) reads nothing.
      const record = (await listPersonnel(at(admin), org)).find((p) => p.email === member.email);
      expectStatus(await at(admin).patch(`/organizations/personnel/detail/${record.sid}/`, { is_archived: 'true' }), 200);
      expectForbidden(await at(member).get(filePaths.detail(admins.sid)));
      expectStatus(await at(admin).patch(`/organizations/personnel/detail/${record.sid}/`, { is_archived: 'false' }), 200);
    });

    test('bad input: not multipart (415), no boundary (read from the body, or 400), no file, two files, unknown fields (400)', async () => {
      const before = await count(at(admin));
      expectDetail(await at(admin).post(filePaths.list(org), { name: 'x' }), 415,
        'Unsupported media type "application/json" in request; send multipart/form-data with the file as the part "file".');
      const { body, boundary } = multipart([{ name: 'file', filename: 'no-boundary.txt', content: 'labii-sdk sends no boundary' }]);
      const taken = expectStatus(await at(admin).request('POST', filePaths.list(org), { rawBody: body, contentType: 'multipart/form-data' }), 201).json;
      assert.equal(taken.name, 'no-boundary.txt');
      assert.equal(taken.sha256, sha256('labii-sdk sends no boundary'));
      expectDetail(await at(admin).request('POST', filePaths.list(org), { rawBody: 'not a multipart body', contentType: 'multipart/form-data' }), 400,
        'Content-Type multipart/form-data has no boundary, and the body does not begin with one ("--" and the boundary, then CRLF).');
      const fieldOnly = multipart([{ name: 'note', content: 'no file' }]);
      expectDetail(await at(admin).request('POST', filePaths.list(org), { rawBody: fieldOnly.body, contentType: fieldOnly.contentType }), 400,
        'The multipart/form-data body holds no file: send the file as a part with a filename (field "file").');
      const two = multipart([{ name: 'file', filename: 'a', content: 'a' }, { name: 'file', filename: 'b', content: 'b' }]);
      expectDetail(await at(admin).request('POST', filePaths.list(org), { rawBody: two.body, contentType: two.contentType }), 400, 'Send one file per request.');
      const extra = multipart([{ name: 'file', filename: 'a', content: 'a' }, { name: 'colour', content: 'red' }]);
      expectFieldErrors(await at(admin).request('POST', filePaths.list(org), { rawBody: extra.body, contentType: extra.contentType }), { colour: ['Unknown field.'] });
      const wrongField = multipart([{ name: 'upload', filename: 'a', content: 'a' }]);
      expectFieldErrors(await at(admin).request('POST', filePaths.list(org), { rawBody: wrongField.body, contentType: wrongField.contentType }),
        { upload: ['Unknown field: send the file as the part "file".'] });
      expectDetail(await at(admin).request('POST', filePaths.list(org), { rawBody: Buffer.concat([body.subarray(0, 80)]), contentType: `multipart/form-data; boundary=${boundary}` }), 400,
        'The multipart/form-data body is malformed: Unexpected end of multipart data.');
      assert.equal(await count(at(admin)), before + 1);
      assert.equal(await view.temporaries(), 0);
    });
  });
}

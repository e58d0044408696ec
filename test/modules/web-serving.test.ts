// Serving the web app (issue 13, docs/ARCHITECTURE.md "The web app and its session"): a
// small fixture build in WEB_DIR stands in for Vite's dist/web. Hashed assets are
// immutable, index.html is no-cache, both compressed; a browser's navigation to a path
// without an API GET route gets index.html (the app's router shows the verify-email and
// reset-password pages of the links in mail); every other unknown path keeps the JSON 404.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { http } from '../helpers/http.ts';
import { MESSAGES, expectDetail, expectFieldErrors, expectPlainText, expectStatus } from '../helpers/assertions.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const INDEX = '<!doctype html><html><head><title>Records</title><script type="module" src="/assets/index-3f2a9c1b.js"></script>'
  + '<link rel="stylesheet" href="/assets/index-77aa01c2.css"></head><body><div id="app"></div></body></html>\n';
const SCRIPT = `export const app = ${JSON.stringify('records '.repeat(2000))};\n`;
const CSS = `body { margin: 0; }\n${'.cell { padding: 2px; }\n'.repeat(200)}`;
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

let folder: string;
let server: RunningServer;
let apiOnly: RunningServer;
const get = (target: string, headers: Record<string, string> = {}, baseUrl = server.baseUrl) => http('GET', target, { baseUrl, headers });

before(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'records-web-'));
  fs.mkdirSync(path.join(folder, 'assets'));
  fs.writeFileSync(path.join(folder, 'index.html'), INDEX);
  fs.writeFileSync(path.join(folder, 'assets', 'index-3f2a9c1b.js'), SCRIPT);
  fs.writeFileSync(path.join(folder, 'assets', 'index-77aa01c2.css'), CSS);
  fs.writeFileSync(path.join(folder, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  [server, apiOnly] = await Promise.all([
    startServer({ env: { WEB_DIR: folder } }),
    startServer({ env: { WEB_DIR: path.join(folder, 'not-built') } }),
  ]);
});

after(async () => {
  await Promise.all([server?.stop(), apiOnly?.stop()]);
  fs.rmSync(folder, { recursive: true, force: true });
});

/** The answer is the app's index.html, not cached without revalidation. */
function expectIndex(res: Awaited<ReturnType<typeof get>>, context: string) {
  expectStatus(res, 200, context);
  assert.equal(res.text, INDEX, context);
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8', context);
  assert.equal(res.headers.get('cache-control'), 'no-cache', context);
  assert.match(res.headers.get('content-security-policy') ?? '', /^default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;/, context);
}

describe('the built app', () => {
  test('hashed assets: immutable for a year, compressed (br, gzip) when the client takes it', async () => {
    for (const [file, body, type] of [['index-3f2a9c1b.js', SCRIPT, /javascript/], ['index-77aa01c2.css', CSS, /^text\/css/]] as const) {
      for (const encoding of ['br', 'gzip']) {
        const res = await get(`/assets/${file}`, { 'accept-encoding': encoding });
        expectStatus(res, 200, `${file} ${encoding}`);
        assert.equal(res.text, body, 'the file, decompressed');
        assert.equal(res.headers.get('content-encoding'), encoding);
        assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        assert.match(res.headers.get('content-type') ?? '', type);
      }
      const plain = await get(`/assets/${file}`, { 'accept-encoding': 'identity' });
      assert.equal(plain.headers.get('content-encoding'), null, 'not compressed when not asked for');
      assert.equal(plain.text, body);
    }
  });

  test('/ and /index.html: the page, no-cache, compressed too', async () => {
    expectIndex(await get('/', { 'accept-encoding': 'identity' }), '/');
    expectIndex(await get('/', { ...HTML, 'accept-encoding': 'identity' }), '/ from a browser');
    expectIndex(await get('/index.html'), '/index.html');
    const gzip = await get('/', { 'accept-encoding': 'gzip' });
    expectIndex(gzip, '/ gzip');
    assert.equal(gzip.headers.get('content-encoding'), 'gzip');
    const br = await get('/', { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.equal(br.text, INDEX);
    const other = await get('/favicon.svg');
    expectStatus(other, 200);
    assert.equal(other.headers.get('cache-control'), 'no-cache', 'files outside assets/ are not hashed');
  });

  test('a navigation (Accept: text/html) to a client route or an emailed link gets the page', async () => {
    for (const target of ['/app/', '/app/tables/a1B2c3D4e5F6g7H8/rows', '/signin', '/accounts/verifyemail/?tag=abc123',
      '/accounts/resetpassword/?tag=abc123', '/organizations/no-such-thing/']) {
      expectIndex(await get(target, HTML), target);
    }
  });

  test('the emailed links still work as the API: POST to /accounts/resetpassword/ is the API', async () => {
    const res = await http('POST', '/accounts/resetpassword/?tag=abc123', { baseUrl: server.baseUrl, body: { password: 'a-new-password-1' }, headers: HTML });
    expectPlainText(res, 406, 'Error: Wrong Tag! - Tag is not valid');
  });

  test('API GET routes answer as the API even for a browser', async () => {
    const health = await get('/health/', HTML);
    expectStatus(health, 200);
    assert.match(health.headers.get('content-type') ?? '', /^application\/json/);
    expectDetail(await get('/accounts/checktoken/', HTML), 401, MESSAGES.notAuthenticated);
  });

  test('everything else keeps the JSON 404', async () => {
    expectDetail(await get('/app/tables/x/'), 404, MESSAGES.notFound, 'no text/html in Accept');
    expectDetail(await get('/app/tables/x/', { accept: 'application/json' }), 404, MESSAGES.notFound);
    expectDetail(await get('/assets/missing-0000.js'), 404, MESSAGES.notFound, 'a missing asset');
    expectDetail(await http('POST', '/app/tables/x/', { baseUrl: server.baseUrl, headers: HTML, body: {} }), 404, MESSAGES.notFound, 'POST');
    expectDetail(await get('/accounts/resetpassword/?tag=abc123'), 405, 'Method "GET" not allowed.', 'GET without text/html');
  });
});

describe('without a build (API only)', () => {
  test('/ says how to build the app; navigations get the JSON 404', async () => {
    const root = await get('/', HTML, apiOnly.baseUrl);
    expectStatus(root, 404);
    assert.match(root.json.detail, /^The web app is not built \(no .*index\.html\): run `npm run build`, then `npm start`\. The API and \/docs\/ work without it\.$/);
    expectDetail(await get('/app/tables/x/', HTML, apiOnly.baseUrl), 404, MESSAGES.notFound);
    expectDetail(await get('/accounts/resetpassword/?tag=abc123', HTML, apiOnly.baseUrl), 405, 'Method "GET" not allowed.');
    expectStatus(await get('/health/', {}, apiOnly.baseUrl), 200);
  });
});

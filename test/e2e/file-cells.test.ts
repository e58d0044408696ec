// File cells in the app (issue 25): a file dropped on a cell of the grid uploads with a
// progress bar (its speed and time left), lands in the cell with its size and, once made, its thumbnail, previews
// in the side panel and downloads identical; a second upload is cancelled and leaves nothing;
// the history tells which version added the file. The upload is slowed by Chromium's network
// emulation so that its progress is seen.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { expectStatus } from '../helpers/assertions.ts';
import { BASE_URL, DATA_DIR } from '../helpers/env.ts';
import { recordPaths } from '../helpers/records.ts';
import { assertAccessible, launchBrowser, newPerson, newWorkspaceAt, pageProblems, screenshot, signInContext, type Workspace } from './lib.ts';

let browser: Browser;
let ws: Workspace;
let fileColumn = '';
let rowSid = '';
const ROW = 'Gel run 7';

/**
 * Drops a generated file on `selector` — a 320×200 PNG drawn on a canvas (a gel's lanes),
 * followed by `padding` bytes that PNG readers ignore — built in the page, as a DataTransfer
 * cannot cross from Node; returns its SHA-256.
 */
async function dropFile(page: Page, selector: string, name: string, padding: number): Promise<string> {
  const transfer = await page.evaluateHandle(async ({ name, padding }) => {
    const canvas = document.createElement('canvas');
    canvas.width = 320;
    canvas.height = 200;
    const g = canvas.getContext('2d')!;
    g.fillStyle = '#111827';
    g.fillRect(0, 0, 320, 200);
    for (let lane = 0; lane < 8; lane += 1) {
      for (let band = 0; band < 6; band += 1) {
        g.fillStyle = `rgba(94, 234, 212, ${0.3 + ((lane * 3 + band * 5) % 7) / 10})`;
        g.fillRect(14 + lane * 38, 20 + band * 28 + ((lane * band) % 9), 28, 6);
      }
    }
    const png = new Uint8Array(await (await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), 'image/png'))).arrayBuffer());
    const bytes = new Uint8Array(png.length + padding);
    bytes.set(png);
    for (let i = png.length; i < bytes.length; i += 1) bytes[i] = (i * 7919) % 251;
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], name, { type: 'image/png' }));
    (window as unknown as { dropped: Uint8Array }).dropped = bytes;
    return dt;
  }, { name, padding });
  const hash = await page.evaluate(async () => {
    const digest = await crypto.subtle.digest('SHA-256', (window as unknown as { dropped: Uint8Array<ArrayBuffer> }).dropped);
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  });
  await page.dispatchEvent(selector, 'dragenter', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: transfer });
  return hash;
}

before(async () => {
  browser = await launchBrowser();
  ws = await newWorkspaceAt(BASE_URL, 'efiles', ['Sample']);
  const api = ws.admin.api;
  fileColumn = expectStatus(await api.post(recordPaths.columnList(ws.org.sid, 'detail', { table__sid: ws.table.sid }), {
    name: 'Files', widget: 'builtinWidgetFil', order: 1,
  }), 201).json.sid;
  rowSid = expectStatus(await api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name: ROW }), 201).json.sid;
});

after(async () => {
  await browser?.close();
});

test('a file dropped on a cell uploads with its progress, previews in the side panel and downloads identical', async () => {
  const { context, page } = await newPerson(browser, BASE_URL);
  await signInContext(context, ws.admin);
  await page.goto(`/o/${ws.org.sid}/tables/${ws.table.sid}/rows?project=${ws.project.sid}`);
  const cell = page.getByRole('gridcell', { name: `Files of ${ROW}` });
  await cell.getByText('Drop files here').waitFor();
  const target = `[data-testid="file-cell-${rowSid}-${fileColumn}"]`;

  // Slowed to about 1 MB/s, a 1.5 MB upload takes a second or two: long enough to be seen.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 1024 * 1024 });

  const answered = page.waitForResponse((res) => res.url().includes(`/files/file/list/row/${rowSid}/`) && res.request().method() === 'POST');
  const hash = await dropFile(page, target, 'gel.png', 1_500_000);
  const bar = page.getByRole('progressbar', { name: 'Uploading gel.png' });
  await bar.waitFor();
  const uploads = page.getByRole('group', { name: `Uploads to Files of ${ROW}` });
  await uploads.getByText(/\d+% · .* of 1\.4 MB · .*\/s · .* left/).waitFor();
  await screenshot(page, 'file-upload-progress');
  const res = await answered;
  assert.equal(res.status(), 201);
  const uploaded = await res.json();
  assert.equal(uploaded.sha256, hash, 'the server hashed the bytes the browser sent');
  assert.equal(uploaded.version, 2);
  await bar.waitFor({ state: 'detached' });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

  // In the cell: its name (a preview button), its size, a download link.
  const name = cell.getByRole('button', { name: 'gel.png' });
  await name.waitFor();
  await cell.getByText('1.4 MB').waitFor();
  await cell.getByRole('link', { name: 'Download gel.png' }).waitFor();
  // Its thumbnail, made in the background after the upload (a WebP of at most 256 pixels a side: 256 x 160 here).
  await cell.getByRole('img', { name: 'Thumbnail of gel.png' }).waitFor({ timeout: 60_000 });
  await page.waitForFunction(() => {
    const thumb = document.querySelector('.file-thumb') as HTMLImageElement | null;
    return thumb !== null && !thumb.classList.contains('is-loading') && thumb.naturalWidth === 256 && thumb.naturalHeight === 160;
  }, undefined, { timeout: 60_000 });
  await screenshot(page, 'file-cell');

  // The preview: the image itself, loaded.
  await name.click();
  const panel = page.getByRole('dialog', { name: 'gel.png' });
  await panel.waitFor();
  const image = panel.getByRole('img', { name: 'Preview of gel.png' });
  await image.waitFor();
  await page.waitForFunction(() => (document.querySelector('.file-preview img') as HTMLImageElement | null)?.naturalWidth === 320);
  await panel.getByText(hash).waitFor();
  await screenshot(page, 'file-preview');
  await assertAccessible(page, 'the grid with a file previewed');

  // The download: the same bytes.
  const downloading = page.waitForEvent('download');
  await panel.getByRole('link', { name: 'Download gel.png' }).click();
  const download = await downloading;
  assert.equal(download.suggestedFilename(), 'gel.png');
  const saved = fs.readFileSync((await download.path())!);
  assert.equal(createHash('sha256').update(saved).digest('hex'), hash);
  await panel.getByRole('button', { name: 'Close' }).click();
  await panel.waitFor({ state: 'detached' });

  // A second upload, cancelled while it goes: nothing lands.
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
  await dropFile(page, target, 'too slow.png', 3_000_000);
  await page.getByRole('progressbar', { name: 'Uploading too slow.png' }).waitFor();
  await uploads.getByRole('button', { name: 'Cancel too slow.png' }).click();
  await page.getByRole('progressbar', { name: 'Uploading too slow.png' }).waitFor({ state: 'detached' });
  // The upload stays slowed from here on: the page forgets the request at once, Chromium's
  // network process a moment later, and at full speed the rest of the body would reach the
  // server whole before that (the server then keeps nothing if the connection closes before
  // its commit, but that is a race the test must not run).
  const files = expectStatus(await ws.admin.api.get(`/files/file/list/row/${rowSid}/name/`), 200).json;
  assert.deepEqual(files.results.map((f: { name: string }) => f.name), ['gel.png'], 'the cancelled upload left no file');

  // The history says which version added it.
  await page.goto(`/o/${ws.org.sid}/rows/${rowSid}`);
  const history = page.getByRole('region', { name: 'Files' });
  await history.getByText(/Version 2\s+added in Files:/).waitFor();
  await page.getByRole('button', { name: 'Verify chain' }).click();
  await page.getByText('Chain valid: all 2 versions verified.').waitFor();
  assert.equal(await history.getByText('Bytes do not match').count(), 0);

  // One byte of the stored object changed behind the service: verifying marks the file.
  const object = path.join(DATA_DIR, 'files', 'objects', hash.slice(0, 2), hash);
  const stored = fs.readFileSync(object);
  const changed = Buffer.from(stored);
  changed[100] ^= 0x01;
  fs.chmodSync(object, 0o600);
  fs.writeFileSync(object, changed);
  try {
    await page.getByRole('button', { name: 'Verify chain' }).click();
    await page.getByRole('alert').filter({ hasText: 'Chain broken' }).waitFor();
    await history.getByRole('alert').filter({ hasText: `The file "gel.png" (${uploaded.sid}) no longer matches its SHA-256` }).waitFor();
    await history.getByText('Bytes do not match').waitFor();
    await screenshot(page, 'file-history-mismatch');
  } finally {
    fs.writeFileSync(object, stored);
  }
  assert.deepEqual(pageProblems(page), []);
  await context.close();
});

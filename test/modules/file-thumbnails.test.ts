// Thumbnails (issue 25): an uploaded image gets a WebP thumbnail made in the background (the
// thumbnails job), served at /files/file/thumbnail/{sid}/ by the file's own rules; a file
// that is not an image has none. The test waits for the job by polling the answer (no timing).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { BASE_URL } from '../helpers/env.ts';
import { newOrganization, type TestMember } from '../helpers/factories.ts';
import { eventually, upload } from '../helpers/files.ts';

const thumbnailPath = (sid: string) => `/files/file/thumbnail/${sid}/`;

async function getThumbnail(token: string, sid: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${BASE_URL}${thumbnailPath(sid)}`, { headers: { authorization: `Token ${token}`, ...headers } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(bytes.toString('utf8')) : undefined };
}

describe('file thumbnails', () => {
  let admin: TestMember;
  let org: { sid: string };

  before(async () => {
    ({ admin, org } = await newOrganization('thumbs'));
  });

  test('an image gets a WebP thumbnail of at most 256 pixels a side after the job; its ETag answers 304; another organization gets 404', async () => {
    const png = await sharp({ create: { width: 600, height: 400, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toBuffer();
    const uploaded = await upload(admin.api, org.sid, 'gel.png', png);
    assert.equal(uploaded.status, 201, uploaded.text);
    assert.equal(uploaded.json.media_type, 'image/png');
    let answer = await getThumbnail(admin.token, uploaded.json.sid);
    assert.ok(await eventually(async () => {
      answer = await getThumbnail(admin.token, uploaded.json.sid);
      return answer.status === 200;
    }, 60), `the thumbnail appears: ${answer.status} ${answer.bytes.toString('utf8').slice(0, 200)}`);
    assert.equal(answer.headers.get('content-type'), 'image/webp');
    assert.equal(answer.headers.get('content-length'), String(answer.bytes.length));
    const meta = await sharp(answer.bytes).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 256, 171]);
    const again = await getThumbnail(admin.token, uploaded.json.sid, { 'if-none-match': answer.headers.get('etag')! });
    assert.equal(again.status, 304);

    const stranger = await newOrganization('thumbstranger');
    const theirs = await getThumbnail(stranger.admin.token, uploaded.json.sid);
    assert.deepEqual([theirs.status, theirs.json], [404, { detail: 'Not found.' }]);
  });

  test('a file that is not an image has no thumbnail: 404 saying so once the job has looked at it', async () => {
    const uploaded = await upload(admin.api, org.sid, 'plate.csv', 'well,OD\nA1,0.12\n');
    assert.equal(uploaded.status, 201, uploaded.text);
    let answer = await getThumbnail(admin.token, uploaded.json.sid);
    assert.equal(answer.status, 404);
    assert.ok(await eventually(async () => {
      answer = await getThumbnail(admin.token, uploaded.json.sid);
      return answer.json?.detail !== 'The thumbnail is not made yet (it is made in the background); try again shortly.';
    }, 60), 'the job looks at it');
    assert.deepEqual([answer.status, answer.json], [404, { detail: 'This file has no thumbnail: only images have one.' }]);
  });
});

// GET /health/ (design: Starting and operating).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous } from '../helpers/http.ts';
import { assertJsonType, expectMethodNotAllowed, expectStatus } from '../helpers/assertions.ts';
import { PATHS } from '../helpers/factories.ts';

test('GET /health/ answers 200 {"status": "ok"} without a token', async () => {
  const res = await anonymous.get(PATHS.health);
  expectStatus(res, 200);
  assertJsonType(res);
  assert.deepEqual(res.json, { status: 'ok' });
});

test('GET /health/ ignores a bad token: health needs no credentials', async () => {
  const res = await anonymous.get(PATHS.health, { token: 'not-a-token' });
  expectStatus(res, 200);
  assert.deepEqual(res.json, { status: 'ok' });
});

test('other methods on /health/ answer 405 with Allow: GET', async () => {
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    expectMethodNotAllowed(await anonymous.request(method, PATHS.health), ['GET'], method);
  }
});

test('an unknown path answers 404 {"detail": "Not found."}', async () => {
  const res = await anonymous.get('/no/such/path/');
  expectStatus(res, 404);
  assert.deepEqual(res.json, { detail: 'Not found.' });
});

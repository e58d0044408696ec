// API keys (design: "created by a user for themself, sent as Authorization: Bearer <key>").
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Api, anonymous } from '../helpers/http.ts';
import {
  assertPage, assertShape, expectDetail, expectFieldErrors, expectForbidden, expectInvalidToken, expectMethodNotAllowed,
  expectNotAuthenticated, expectNotFound, expectPlainText, expectStatus, MESSAGES, SESSION_ONLY,
} from '../helpers/assertions.ts';
import { PATHS, newUser, paths, uniqueEmail, type TestUser } from '../helpers/factories.ts';

async function createKey(user: TestUser, name: string) {
  const res = await user.api.post(paths.apikeyList(user.sid, 'detail'), { name });
  expectStatus(res, 201, `creating API key ${name}`);
  return res.json as { sid: string; name: string; key: string; date_created: string };
}

describe('API keys', () => {
  test('POST answers 201 {sid, name, key, date_created}; the key authenticates as Bearer', async () => {
    const user = await newUser('keys');
    const res = await user.api.post(paths.apikeyList(user.sid, 'detail'), { name: 'CI script' });
    expectStatus(res, 201);
    assertShape(res.json, 'apikey.created');
    assert.equal(res.json.name, 'CI script');
    assert.ok(res.json.key.length >= 32, 'keys are long random strings');
    const check = await new Api(res.json.key, 'Bearer').get(PATHS.checktoken);
    expectStatus(check, 200);
    // An API key reaches the same resources as the user's session.
    const orgs = await new Api(res.json.key, 'Bearer').get(paths.organizationList(user.sid, 'name'));
    assertPage(orgs, 'organization.name');
  });

  test('the list is a page of the caller\'s keys in each shape, newest first, and never shows a key', async () => {
    const user = await newUser('keylist');
    const first = await createKey(user, 'first');
    const second = await createKey(user, 'second');
    for (const serializer of ['name', 'list', 'detail'] as const) {
      const res = await user.api.get(paths.apikeyList(user.sid, serializer));
      const page = assertPage(res, `apikey.${serializer}`);
      assert.equal(page.count, 2);
      assert.equal(page.add_permission, true);
      assert.deepEqual(page.results.map((k) => k.sid), [second.sid, first.sid]);
      assert.ok(!res.text.includes(first.key) && !res.text.includes(second.key), `${serializer}: the key is shown only once`);
    }
    const detail = await user.api.get(paths.apikeyDetail(first.sid));
    expectStatus(detail, 200);
    assertShape(detail.json, 'apikey.detail');
    assert.equal(detail.json.name, 'first');
    assert.equal(detail.json.date_created, first.date_created);
    assert.ok(!detail.text.includes(first.key));
  });

  test('session tokens are not listed as keys', async () => {
    const user = await newUser('nosessions');
    const page = assertPage(await user.api.get(paths.apikeyList(user.sid, 'list')), 'apikey.list');
    assert.equal(page.count, 0);
  });

  test('DELETE answers {} and the key stops working at once; logout with a key does not end it', async () => {
    const user = await newUser('keydelete');
    const key = await createKey(user, 'temporary');
    const bearer = new Api(key.key, 'Bearer');
    expectDetail(await bearer.get(PATHS.logout), 403, SESSION_ONLY('end sessions'), 'an API key cannot end sessions');
    expectStatus(await bearer.get(PATHS.checktoken), 200, 'logout ends sessions, not API keys');
    const res = await user.api.delete(paths.apikeyDetail(key.sid));
    expectStatus(res, 200);
    assert.deepEqual(res.json, {});
    expectInvalidToken(await bearer.get(PATHS.checktoken));
    expectNotFound(await user.api.get(paths.apikeyDetail(key.sid)));
    expectNotFound(await user.api.delete(paths.apikeyDetail(key.sid)), 'deleting twice');
    assert.equal(assertPage(await user.api.get(paths.apikeyList(user.sid, 'list'))).count, 0);
  });

  test('a key can delete itself', async () => {
    const user = await newUser('selfdelete');
    const key = await createKey(user, 'self');
    const bearer = new Api(key.key, 'Bearer');
    expectStatus(await bearer.delete(paths.apikeyDetail(key.sid)), 200);
    expectInvalidToken(await bearer.get(PATHS.checktoken));
  });

  test('an API key may not create keys, delete another key, change the password or the sign-in address (403 saying so); a session may', async () => {
    const user = await newUser('keyrules');
    const key = await createKey(user, 'script');
    const other = await createKey(user, 'other');
    const bearer = new Api(key.key, 'Bearer');
    expectDetail(await bearer.post(paths.apikeyList(user.sid, 'detail'), { name: 'another' }), 403, SESSION_ONLY('create API keys'));
    expectDetail(await bearer.delete(paths.apikeyDetail(other.sid)), 403, SESSION_ONLY('delete another API key'));
    expectDetail(await bearer.post('/accounts/changepassword/', { current_password: user.password, new_password: 'a brand new password for keys 7' }),
      403, SESSION_ONLY('change the password'));
    expectDetail(await bearer.post('/accounts/changeemail/', { email: uniqueEmail('moved') }), 403, SESSION_ONLY('change the sign-in address'),
      'refused as a credential action, before whether the address is proved');
    // It reads the keys; add_permission and change_permission say what it may do.
    const page = assertPage(await bearer.get(paths.apikeyList(user.sid, 'list')), 'apikey.list');
    assert.equal(page.add_permission, false);
    assert.deepEqual(Object.fromEntries(page.results.map((k) => [k.name, k.change_permission])), { script: true, other: false });
    // Nothing changed: two keys, the old password, the other key works.
    assert.equal(assertPage(await user.api.get(paths.apikeyList(user.sid, 'list'))).count, 2);
    expectStatus(await anonymous.post(PATHS.auth, { username: user.email, password: user.password }), 200, 'the password is unchanged');
    expectStatus(await new Api(other.key, 'Bearer').get(PATHS.checktoken), 200);
    expectStatus(await user.api.post(paths.apikeyList(user.sid, 'detail'), { name: 'from a session' }), 201, 'a session may');
  });

  test('another user can neither list (403) nor read or delete (404) someone else\'s keys', async () => {
    const owner = await newUser('keyowner');
    const intruder = await newUser('keyintruder');
    const key = await createKey(owner, 'private');
    for (const serializer of ['name', 'list', 'detail']) {
      expectForbidden(await intruder.api.get(paths.apikeyList(owner.sid, serializer)), `list ${serializer}`);
    }
    expectForbidden(await intruder.api.post(paths.apikeyList(owner.sid, 'detail'), { name: 'planted' }), 'creating a key for someone else');
    expectNotFound(await intruder.api.get(paths.apikeyDetail(key.sid)));
    expectNotFound(await intruder.api.delete(paths.apikeyDetail(key.sid)));
    // Nothing changed for the owner.
    expectStatus(await new Api(key.key, 'Bearer').get(PATHS.checktoken), 200);
    const page = assertPage(await owner.api.get(paths.apikeyList(owner.sid, 'list')), 'apikey.list');
    assert.deepEqual(page.results.map((k) => k.name), ['private']);
  });

  test('no token: 401 on every endpoint', async () => {
    const owner = await newUser('keyanon');
    const key = await createKey(owner, 'anon');
    expectNotAuthenticated(await anonymous.get(paths.apikeyList(owner.sid, 'list')));
    expectNotAuthenticated(await anonymous.post(paths.apikeyList(owner.sid, 'detail'), { name: 'x' }));
    expectNotAuthenticated(await anonymous.get(paths.apikeyDetail(key.sid)));
    expectNotAuthenticated(await anonymous.delete(paths.apikeyDetail(key.sid)));
  });

  test('bad names are refused with field errors and create nothing', async () => {
    const user = await newUser('keybad');
    const list = paths.apikeyList(user.sid, 'detail');
    expectFieldErrors(await user.api.post(list, {}), { name: ['This field is required.'] });
    expectFieldErrors(await user.api.post(list, { name: '' }), { name: ['This field may not be blank.'] });
    expectFieldErrors(await user.api.post(list, { name: 'x'.repeat(151) }), { name: ['Ensure this field has no more than 150 characters.'] });
    expectFieldErrors(await user.api.post(list, { name: 7 }), { name: ['Must be of type string.'] });
    expectFieldErrors(await user.api.post(list, { name: 'ok', scope: 'all' }), { scope: ['Unknown field.'] });
    expectFieldErrors(await user.api.post(list, { name: 'nul\u0000name' }), { name: [MESSAGES.nulCharacter] });
    assert.equal(assertPage(await user.api.get(paths.apikeyList(user.sid, 'list'))).count, 0);
  });

  test('level and method checks: level=user, or organization as Labii\'s SDK names it (one of the caller\'s organizations); PUT/PATCH refused with 405', async () => {
    const user = await newUser('keylevel');
    expectPlainText(await user.api.get(paths.apikeyList(user.sid, 'list', undefined, 'project')), 406, MESSAGES.wrongLevel);
    // At level organization the sid is an organization's: the user's own sid there is a wrong id.
    expectPlainText(await user.api.get(paths.apikeyList(user.sid, 'list', undefined, 'organization')), 406, MESSAGES.wrongId);
    expectMethodNotAllowed(await anonymous.put(paths.apikeyList(user.sid, 'list'), {}), ['GET', 'POST']);
    expectMethodNotAllowed(await anonymous.patch(paths.apikeyDetail('a'.repeat(16)), {}), ['GET', 'DELETE']);
  });
});

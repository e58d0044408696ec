// The account screen's endpoints (issue 14): POST /accounts/changepassword/ (the current
// password required, the new one checked as signup checks it, every other session ended,
// one transaction) and POST /accounts/logoutall/ (every session of the account ends; API
// keys stay). And the inbox's `is_read` filter, whose count is the app's unread count.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Api, anonymous } from '../helpers/http.ts';
import {
  MESSAGES, SESSION_ONLY, expectDetail, expectFieldErrors, expectInvalidToken, expectMethodNotAllowed, expectNotAuthenticated, expectStatus,
} from '../helpers/assertions.ts';
import { PATHS, addMember, authenticate, login, newOrganization, newUser, paths } from '../helpers/factories.ts';
import { notificationPaths, openStream, sendNotification } from '../helpers/notifications.ts';

const CHANGE = '/accounts/changepassword/';
const EVERYWHERE = '/accounts/logoutall/';
const WEB = { 'x-requested-with': 'records-web' };

async function newKey(api: Api, userSid: string): Promise<Api> {
  const res = expectStatus(await api.post(paths.apikeyList(userSid, 'detail'), { name: 'script' }), 201, 'an API key');
  return new Api(res.json.key, 'Bearer');
}

describe('POST /accounts/changepassword/', () => {
  test('changes the password: the old one is refused, the new one signs in; other sessions end, the caller\'s and API keys stay', async () => {
    const user = await newUser('changer');
    const other = new Api(await login(user), 'token');
    const key = await newKey(user.api, user.sid);
    const stream = await openStream(other);
    assert.equal(stream.status, 200);
    const next = 'a completely new password 7';
    const res = await user.api.post(CHANGE, { current_password: user.password, new_password: next });
    expectDetail(res, 200, 'Password has been changed.');
    expectDetail(await authenticate(user.email, user.password), 406, MESSAGES.badCredentials, 'the old password');
    expectStatus(await authenticate(user.email, next), 200, 'the new password');
    expectStatus(await user.api.get(PATHS.checktoken), 200, 'the session that changed it stays signed in');
    expectInvalidToken(await other.get(PATHS.checktoken), 'another session of the account ends');
    expectStatus(await key.get(PATHS.checktoken), 200, 'API keys are not sessions: they stay');
    await stream.waitForEnd(10_000);
    assert.deepEqual(stream.events.at(-1), { id: null, event: 'end', data: { detail: MESSAGES.invalidToken } });
  });

  test('a wrong current password is 400 on current_password and changes nothing', async () => {
    const user = await newUser('wrongcurrent');
    const other = new Api(await login(user), 'token');
    expectFieldErrors(await user.api.post(CHANGE, { current_password: `${user.password}x`, new_password: 'another password 12' }), {
      current_password: ['This is not your current password.'],
    });
    expectStatus(await authenticate(user.email, user.password), 200, 'the password is unchanged');
    expectStatus(await other.get(PATHS.checktoken), 200, 'no session ended');
  });

  test('the new password is checked as signup checks it; unknown and missing fields are 400', async () => {
    const user = await newUser('weaknew');
    for (const [body, fields] of [
      [{ current_password: user.password, new_password: 'short' }, ['new_password']],
      [{ current_password: user.password, new_password: 'x'.repeat(129) }, ['new_password']],
      [{ current_password: user.password }, ['new_password']],
      [{ new_password: 'long enough password' }, ['current_password']],
      [{ current_password: user.password, new_password: 'long enough password', password: 'x' }, ['password']],
    ] as const) {
      const res = await user.api.post(CHANGE, body);
      expectStatus(res, 400, JSON.stringify(body));
      assert.ok(fields.some((f) => f in (res.json as object)), `${JSON.stringify(body)}: an error on ${fields} in ${res.text}`);
    }
    expectStatus(await authenticate(user.email, user.password), 200, 'the password is unchanged');
  });

  test('needs a credential; other methods are 405', async () => {
    expectNotAuthenticated(await anonymous.post(CHANGE, { current_password: 'whatever1', new_password: 'whatever2' }));
    const user = await newUser('changemethods');
    expectMethodNotAllowed(await user.api.get(CHANGE), ['POST']);
  });

  test('with the session cookie it needs X-Requested-With, and the cookie\'s session stays signed in', async () => {
    const user = await newUser('changecookie');
    const signedIn = expectStatus(await anonymous.post('/accounts/session/', { username: user.email, password: user.password }), 200);
    const cookie = /^(records_session=[^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')![1];
    const body = { current_password: user.password, new_password: 'cookie changed password' };
    expectStatus(await anonymous.post(CHANGE, body, { headers: { cookie } }), 403, 'without X-Requested-With');
    expectDetail(await anonymous.post(CHANGE, body, { headers: { cookie, ...WEB } }), 200, 'Password has been changed.');
    expectStatus(await anonymous.get('/accounts/session/', { headers: { cookie } }), 200, 'the cookie still signs in');
    expectInvalidToken(await user.api.get(PATHS.checktoken), 'the token session ended');
  });
});

describe('POST /accounts/logoutall/', () => {
  test('ends every session of the account, the caller\'s included; API keys stay; another account is untouched', async () => {
    const user = await newUser('everywhere');
    const second = new Api(await login(user), 'token');
    const key = await newKey(user.api, user.sid);
    const stranger = await newUser('stranger');
    const third = new Api(await login(user), 'token');
    expectDetail(await key.post(EVERYWHERE), 403, SESSION_ONLY('end sessions'), 'an API key cannot end sessions');
    expectStatus(await third.get(PATHS.checktoken), 200, 'nothing ended');
    const res = await second.post(EVERYWHERE);
    expectStatus(res, 200);
    assert.deepEqual(res.json, { detail: 'Every session of the account has ended.', ended: 3 });
    expectInvalidToken(await user.api.get(PATHS.checktoken));
    expectInvalidToken(await second.get(PATHS.checktoken));
    expectStatus(await key.get(PATHS.checktoken), 200, 'the API key stays');
    expectStatus(await stranger.api.get(PATHS.checktoken), 200, 'another account keeps its session');
    // An API key cannot end sessions (403), and stays.
    expectDetail(await key.post(EVERYWHERE), 403, SESSION_ONLY('end sessions'));
    expectStatus(await key.get(PATHS.checktoken), 200);
  });

  test('with the session cookie: clears the cookie; needs a credential; other methods are 405', async () => {
    const user = await newUser('everywherecookie');
    const signedIn = expectStatus(await anonymous.post('/accounts/session/', { username: user.email, password: user.password }), 200);
    const cookie = /^(records_session=[^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')![1];
    expectStatus(await anonymous.post(EVERYWHERE, undefined, { headers: { cookie } }), 403, 'without X-Requested-With');
    const res = await anonymous.post(EVERYWHERE, undefined, { headers: { cookie, ...WEB } });
    expectStatus(res, 200);
    assert.match(res.headers.get('set-cookie') ?? '', /^records_session=;/);
    expectStatus(await anonymous.get('/accounts/session/', { headers: { cookie } }), 401);
    expectInvalidToken(await user.api.get(PATHS.checktoken));
    expectNotAuthenticated(await anonymous.post(EVERYWHERE));
    expectMethodNotAllowed(await new Api(await login(user), 'token').get(EVERYWHERE), ['POST']);
  });
});

describe('the inbox\'s is_read filter', () => {
  test('is_read=false lists the unread notifications (its count is the unread count), is_read=true the read ones', async () => {
    const { admin, org } = await newOrganization('unread');
    const member = await addMember(admin, org, {}, 'reader');
    const to = [{ sid: member.personnel.sid, name: 'Reader' }];
    const first = await sendNotification(admin.api, org.sid, to, { name: 'first' });
    await sendNotification(admin.api, org.sid, to, { name: 'second' });
    const unread = () => member.api.get(notificationPaths.list(org.sid, 'list', { is_read: false, page_size: 1 }));
    let res = expectStatus(await unread(), 200);
    assert.equal(res.json.count, 2);
    assert.deepEqual(res.json.results.map((n: { name: string }) => n.name), ['second']);
    // Reading one (GET detail) marks it read: the unread count goes down.
    const copy = (await member.api.get(notificationPaths.list(org.sid, 'list'))).json.results.find((n: { name: string }) => n.name === 'first');
    expectStatus(await member.api.get(notificationPaths.detail(copy.sid)), 200);
    res = expectStatus(await unread(), 200);
    assert.equal(res.json.count, 1);
    const read = expectStatus(await member.api.get(notificationPaths.list(org.sid, 'list', { is_read: 'True' })), 200).json;
    assert.deepEqual([read.count, read.results.map((n: { name: string; is_read: boolean }) => [n.name, n.is_read])], [1, [['first', true]]]);
    assert.equal(expectStatus(await member.api.get(notificationPaths.list(org.sid, 'list')), 200).json.count, 2, 'without the filter: all');
    // The sender's own inbox is not the recipient's.
    assert.equal(expectStatus(await admin.api.get(notificationPaths.list(org.sid, 'list', { is_read: false })), 200).json.count, 0);
    expectStatus(await member.api.get(notificationPaths.list(org.sid, 'list', { is_read: 'maybe' })), 400);
    assert.ok(first.sid);
  });
});

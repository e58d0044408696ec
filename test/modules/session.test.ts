// The browser session (issue 13, docs/ARCHITECTURE.md "The web app and its session"):
// POST /accounts/session/ sets an HttpOnly, SameSite=Strict cookie the API accepts beside
// the token headers; a state-changing request signed in with it must carry
// X-Requested-With: records-web; DELETE ends the session on the server; the live stream
// opens with the cookie alone; every answer carries the Content-Security-Policy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import nodeHttp from 'node:http';
import { BASE_URL } from '../helpers/env.ts';
import { Api, anonymous } from '../helpers/http.ts';
import {
  MESSAGES, expectDetail, expectFieldErrors, expectInvalidToken, expectNotAuthenticated, expectStatus,
} from '../helpers/assertions.ts';
import { PATHS, addMember, newOrganization, newUser, paths, unique, type TestMember, type TestUser } from '../helpers/factories.ts';
import { startServer } from '../helpers/server.ts';
import { notificationPaths, openStream, sendNotification, type Stream } from '../helpers/notifications.ts';

const SESSION = '/accounts/session/';
const WEB = { 'x-requested-with': 'records-web' };
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
  + "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";
const missingHeader = (method: string) =>
  `The header "X-Requested-With: records-web" is missing: a ${method} signed in with the session cookie must carry it.`;

/** Signs in through the session endpoint; returns the answer and the cookie's value. */
async function signIn(user: { email: string; password: string }, baseUrl?: string) {
  const res = await new Api(null, 'token', baseUrl).post(SESSION, { username: user.email, password: user.password });
  expectStatus(res, 200, 'signing in with the session endpoint');
  const cookies = res.headers.getSetCookie();
  const setCookie = cookies.find((c) => c.startsWith('records_session=')) ?? '';
  const match = /^records_session=([^;]+);/.exec(setCookie);
  assert.ok(match, `a records_session cookie, got "${cookies.join(' | ')}"`);
  return { res, setCookie, token: match[1], deviceCookie: cookies.find((c) => c.startsWith('records_device=')) ?? '' };
}

/** POST JSON from a chosen local address: the server sees another client address. */
function postFrom(localAddress: string, target: string, body: unknown): Promise<{ status: number; retryAfter?: string; setCookie?: string[] }> {
  const url = new URL(target, BASE_URL);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = nodeHttp.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress, agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (res) => {
      res.resume().on('end', () => resolve({
        status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, setCookie: res.headers['set-cookie'],
      }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A caller that sends only the session cookie (and `headers`). */
const cookieApi = (token: string, headers: Record<string, string> = {}) =>
  anonymous.with({ cookie: `records_session=${token}`, ...headers });

let user: TestUser;
const streams: Stream[] = [];
after(() => {
  for (const s of streams) s.close();
});

before(async () => {
  user = await newUser('cookie');
});

describe('signing in from the web app', () => {
  test('POST /accounts/session/ answers the user and sets an HttpOnly, SameSite=Strict cookie (not Secure over http)', async () => {
    const { res, setCookie, token, deviceCookie } = await signIn(user);
    assert.equal(res.json.token, undefined, 'the token never reaches the page');
    assert.deepEqual(res.json, { user: { sid: user.sid, first_name: user.first_name, last_name: user.last_name, email: user.email, is_email_verified: true, pending_email: null, is_instance_admin: false } });
    const attributes = setCookie.split(';').map((a) => a.trim().toLowerCase());
    assert.deepEqual(attributes.slice(1).sort(), ['httponly', 'path=/', 'samesite=strict'], setCookie);
    // And the device cookie (issue 21): this browser signed in before; sent only to /accounts/, for a year.
    const device = deviceCookie.split(';').map((a) => a.trim().toLowerCase());
    assert.deepEqual(device.slice(1).sort(), ['httponly', 'max-age=31536000', 'path=/accounts/', 'samesite=strict'], deviceCookie);
    assert.ok(token.length >= 32, 'an unguessable token');
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  test('wrong password 406 and no cookie; a missing field 400', async () => {
    const wrong = await anonymous.post(SESSION, { username: user.email, password: 'not-the-password' });
    expectDetail(wrong, 406, MESSAGES.badCredentials);
    assert.equal(wrong.headers.get('set-cookie'), null);
    expectFieldErrors(await anonymous.post(SESSION, { username: user.email }), { password: ['This field is required.'] });
  });

  test('GET /accounts/session/: the user with the cookie; 401 without one or with an unknown one', async () => {
    const { token } = await signIn(user);
    const me = await cookieApi(token).get(SESSION);
    expectStatus(me, 200);
    assert.deepEqual(me.json, { user: { sid: user.sid, first_name: user.first_name, last_name: user.last_name, email: user.email, is_email_verified: true, pending_email: null, is_instance_admin: false } });
    expectNotAuthenticated(await anonymous.get(SESSION), 'no cookie');
    expectInvalidToken(await cookieApi('not-a-session').get(SESSION), 'unknown cookie');
  });

  test('the same throttling as /accounts/auth/: failures through either endpoint lock both (429 with Retry-After)', async () => {
    // From an address of its own (127.0.0.0/8 is loopback), so no other file's sign-ins count.
    const from = '127.0.0.13';
    const victim = await newUser('throttled');
    let locked: Awaited<ReturnType<typeof postFrom>> | null = null;
    for (let i = 0; i < 40 && !locked; i += 1) {
      const res = await postFrom(from, i % 2 ? SESSION : PATHS.auth, { username: victim.email, password: `wrong-${i}-password` });
      if (res.status === 429) locked = res;
      else assert.equal(res.status, 406, `failure ${i + 1}`);
    }
    assert.ok(locked, 'locked within 40 failures');
    const right = await postFrom(from, SESSION, { username: victim.email, password: victim.password });
    assert.equal(right.status, 429, 'the right password while locked');
    assert.match(right.retryAfter ?? '', /^\d+$/);
    assert.equal(right.setCookie, undefined, 'no cookie while locked');
  });
});

describe('the cookie beside the token headers', () => {
  let admin: TestMember;
  let org: { sid: string; name: string };
  let token: string;

  before(async () => {
    ({ admin, org } = await newOrganization('cookieorg'));
    ({ token } = await signIn(admin));
  });

  test('reads need only the cookie', async () => {
    const list = await cookieApi(token).get(paths.personnelList(org.sid, 'name'));
    expectStatus(list, 200);
    assert.equal(list.json.count, 1);
  });

  test('a write with the cookie but without X-Requested-With: records-web is refused (403) and changes nothing', async () => {
    const name = `Renamed ${unique('n')}`;
    for (const headers of [{}, { 'x-requested-with': 'XMLHttpRequest' }] as Record<string, string>[]) {
      expectDetail(await cookieApi(token, headers).patch(paths.organizationDetail(org.sid), { name }), 403, missingHeader('PATCH'));
      expectDetail(await cookieApi(token, headers).post(paths.organizationList(admin.sid, 'detail'), { name }), 403, missingHeader('POST'));
    }
    const read = await admin.api.get(paths.organizationDetail(org.sid));
    assert.equal(read.json.name, org.name, 'the organization keeps its name');
    const mine = await admin.api.get(paths.organizationList(admin.sid, 'name', { page_size: 100 }));
    assert.equal(mine.json.count, 1, 'no organization was created');
  });

  test('the same write with the header is accepted', async () => {
    const name = `Renamed ${unique('n')}`;
    const res = await cookieApi(token, WEB).patch(paths.organizationDetail(org.sid), { name });
    expectStatus(res, 200);
    assert.equal((await admin.api.get(paths.organizationDetail(org.sid))).json.name, name);
  });

  test('a token header wins over the cookie, and needs no X-Requested-With', async () => {
    const other = await newUser('headerwins');
    const both = anonymous.with({ cookie: `records_session=${token}`, token: other.token });
    const me = await both.get(SESSION);
    assert.equal(me.json.user.sid, other.sid);
    expectStatus(await both.post(paths.organizationList(other.sid, 'detail'), { name: `Own ${unique('o')}` }), 201);
  });
});

describe('signing out', () => {
  test('DELETE without the header is refused and the session lives on; with it: 204, the cookie cleared, the session gone on the server', async () => {
    const { token } = await signIn(user);
    const other = await signIn(user);
    expectDetail(await cookieApi(token).delete(SESSION), 403, missingHeader('DELETE'));
    expectStatus(await cookieApi(token).get(SESSION), 200, 'still signed in');
    const out = await cookieApi(token, WEB).delete(SESSION);
    expectStatus(out, 204);
    assert.equal(out.text, '');
    const cleared = out.headers.get('set-cookie') ?? '';
    assert.match(cleared, /^records_session=;/, cleared);
    assert.match(cleared, /Expires=Thu, 01 Jan 1970 00:00:00 GMT/i, cleared);
    assert.match(cleared, /HttpOnly/i);
    assert.match(cleared, /SameSite=Strict/i);
    // The token itself no longer works: not as a cookie, not as a header.
    expectInvalidToken(await cookieApi(token).get(SESSION), 'the old cookie');
    expectInvalidToken(await new Api(token).get(PATHS.checktoken), 'the old token as a header');
    // Other sessions of the same account are not touched.
    expectStatus(await cookieApi(other.token).get(SESSION), 200, 'another session');
    expectStatus(await new Api(user.token).get(PATHS.checktoken), 200, 'the token from /accounts/auth/');
  });

  test('DELETE with an expired or unknown cookie still clears it (204)', async () => {
    const out = await cookieApi('not-a-session', WEB).delete(SESSION);
    expectStatus(out, 204);
    assert.match(out.headers.get('set-cookie') ?? '', /^records_session=;/);
    expectStatus(await anonymous.delete(SESSION), 204, 'no cookie at all');
  });
});

describe('the live stream', () => {
  test('opens with the cookie alone (EventSource sends no headers) and delivers the user\'s notifications', async () => {
    const { admin, org } = await newOrganization('cookiestream');
    const alice = await addMember(admin, org, {}, 'cookiealice');
    const { token } = await signIn(alice);
    const s = await openStream(anonymous, undefined, { cookie: `records_session=${token}` });
    streams.push(s);
    assert.equal(s.status, 200);
    assert.match(s.headers.get('content-type') ?? '', /^text\/event-stream/);
    const name = `Cookie ${unique('c')}`;
    await sendNotification(admin.api, org.sid, [alice.personnel], { name });
    await s.waitFor((e) => e.data.name === name, 'the notification on the cookie\'s stream');
    s.close();
    const refused = await openStream(anonymous, undefined, { cookie: 'records_session=not-a-session' });
    assert.equal(refused.status, 401);
    expectInvalidToken(await cookieApi('not-a-session').get(notificationPaths.stream()));
  });
});

describe('Content-Security-Policy', () => {
  test('every answer of the API carries the strict policy (no inline script)', async () => {
    for (const res of [await anonymous.get('/health/'), await anonymous.get(SESSION), await anonymous.get('/no/such/path/')]) {
      assert.equal(res.headers.get('content-security-policy'), CSP, res.path);
    }
  });
});

describe('PUBLIC_URL https', () => {
  test('the cookie is Secure', async () => {
    const server = await startServer({ env: { PUBLIC_URL: 'https://records.example.test' } });
    try {
      const anon = new Api(null, 'token', server.baseUrl);
      const who = { email: `${unique('secure')}@example.test`, password: `pw-${unique('p')}-long` };
      expectStatus(await anon.post(PATHS.signup, who), 201);
      const { setCookie } = await signIn(who, server.baseUrl);
      assert.match(setCookie, /; Secure/, setCookie);
    } finally {
      await server.stop();
    }
  });
});

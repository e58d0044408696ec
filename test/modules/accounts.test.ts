// Accounts: signup, sign-in, the three credential headers, logout, password reset
// (design: Identity and authentication).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Api, anonymous } from '../helpers/http.ts';
import {
  MESSAGES, assertShape, expectDetail, expectFieldErrors, expectInvalidToken, expectMethodNotAllowed,
  expectNotAuthenticated, expectStatus, expectPlainText,
} from '../helpers/assertions.ts';
import { PATHS, authenticate, login, newUser, paths, proveEmail, signup, strongPassword, uniqueEmail } from '../helpers/factories.ts';
import { mailTo, readMail } from '../helpers/mail.ts';

const checktoken = (api: Api) => api.get(PATHS.checktoken);

/** Sets a new password for `email` through the reset mail; returns it. */
async function resetAgain(email: string): Promise<string> {
  expectStatus(await anonymous.post(PATHS.forgetpassword, { email }), 200);
  const mail = await readMail(email);
  const password = strongPassword();
  expectStatus(await anonymous.post(PATHS.resetpassword, { password }, { query: { tag: mail.tag } }), 200);
  return password;
}

describe('signup', () => {
  test('201 {sid, email, first_name, last_name, is_email_verified: false}; the password is not echoed; the mailed link proves the email', async () => {
    const email = uniqueEmail('signup');
    const password = strongPassword();
    const res = await signup({ email, password, first_name: 'Ada', last_name: 'Lovelace' });
    expectStatus(res, 201);
    const { sid: _sid, ...rest } = res.json;
    assert.deepEqual(rest, { email, first_name: 'Ada', last_name: 'Lovelace', is_email_verified: false });
    assert.ok(!res.text.includes(password), 'the password must not appear in the answer');
    assert.ok(!/password/i.test(res.text), 'no password field in the answer');
    // The account signs in, but may only prove its email until it has.
    const auth = await authenticate(email, password);
    expectStatus(auth, 200);
    assert.equal(auth.json.user.sid, res.json.sid);
    const api = new Api(auth.json.token);
    expectStatus(await checktoken(api), 200, 'checktoken works before the proof');
    expectDetail(await api.get(paths.organizationList(res.json.sid, 'name')), 403, MESSAGES.emailNotVerified, 'anything else waits for the proof');
    await proveEmail(email);
    expectStatus(await api.get(paths.organizationList(res.json.sid, 'name')), 200, 'the same token works once the email is proved');
  });

  test('first and last name are optional (empty strings)', async () => {
    const email = uniqueEmail('noname');
    const res = await signup({ email, password: strongPassword() });
    expectStatus(res, 201);
    assert.equal(res.json.first_name, '');
    assert.equal(res.json.last_name, '');
  });

  test('an email that has an account (in any case) gets the same 201; the address is told, the first account is untouched', async () => {
    const user = await newUser('dup');
    for (const email of [user.email, user.email.toUpperCase()]) {
      const res = await signup({ email, password: strongPassword(), first_name: 'Mallory' });
      expectStatus(res, 201, 'the same answer as for a new email');
      const { sid, ...rest } = res.json;
      assert.deepEqual(rest, { email, first_name: 'Mallory', last_name: '', is_email_verified: false });
      assert.notEqual(sid, user.sid, 'the answer does not name the existing account');
      const mail = await readMail(user.email);
      assert.equal(mail.subject, 'You already have a Records Service account');
      assert.ok(mail.tag && !mail.verifyTag, `a reset link, no proof link:\n${mail.body}`);
    }
    expectStatus(await authenticate(user.email, user.password), 200, 'the first password still signs in');
    expectStatus(await user.api.get(paths.organizationList(user.sid, 'name')), 200, 'the account is still proven');
  });

  test('bad email, short password and an unknown field: 400 with every field error at once, nothing written', async () => {
    const email = uniqueEmail('bad');
    const res = await signup({ email: 'not-an-email', password: 'short', first_name: 'A', is_staff: true });
    expectFieldErrors(res, {
      email: ['Enter a valid email.'],
      password: ['Ensure this field has at least 8 characters.'],
      is_staff: ['Unknown field.'],
    });
    // A good email with a short password creates nothing: the same email signs up afterwards.
    expectFieldErrors(await signup({ email, password: 'short' }), ['password']);
    expectStatus(await signup({ email, password: strongPassword() }), 201);
  });

  test('missing fields are named', async () => {
    expectFieldErrors(await signup({}), { email: ['This field is required.'], password: ['This field is required.'] });
  });

  test('other methods answer 405 with Allow: POST', async () => {
    expectMethodNotAllowed(await anonymous.get(PATHS.signup), ['POST']);
    expectMethodNotAllowed(await anonymous.put(PATHS.signup, {}), ['POST']);
  });
});

describe('auth', () => {
  test('200 {token, user: {sid, first_name, last_name, email}}', async () => {
    const user = await newUser('auth');
    const res = await authenticate(user.email, user.password);
    expectStatus(res, 200);
    assert.deepEqual(Object.keys(res.json).sort(), ['token', 'user']);
    assert.equal(typeof res.json.token, 'string');
    assert.ok(res.json.token.length >= 32, 'tokens are long random strings');
    assertShape(res.json.user, 'user');
    assert.deepEqual(res.json.user, { sid: user.sid, first_name: user.first_name, last_name: user.last_name, email: user.email });
    assert.notEqual(res.json.token, user.token, 'each sign-in gets its own token');
  });

  test('the email is matched without regard to case', async () => {
    const user = await newUser('case');
    expectStatus(await authenticate(user.email.toUpperCase(), user.password), 200);
  });

  test('a wrong password or an unknown email: 406 {"detail": "Unable to log in with provided credentials."}', async () => {
    const user = await newUser('wrong');
    expectDetail(await authenticate(user.email, `${user.password}x`), 406, MESSAGES.badCredentials);
    expectDetail(await authenticate(uniqueEmail('nobody'), 'whatever-password'), 406, MESSAGES.badCredentials);
  });

  test('a body without username or password is a 400 naming the field', async () => {
    expectFieldErrors(await anonymous.post(PATHS.auth, { username: 'x@y.test' }), { password: ['This field is required.'] });
    expectFieldErrors(await anonymous.post(PATHS.auth, { password: 'x' }), { username: ['This field is required.'] });
  });

  test('after 10 failures for one account: 429 with Retry-After; other accounts and existing tokens keep working', async () => {
    const user = await newUser('ratelimit');
    for (let i = 1; i <= 10; i += 1) {
      expectDetail(await authenticate(user.email, `wrong-password-${i}`), 406, MESSAGES.badCredentials, `failure ${i}`);
    }
    for (const password of ['wrong-password-11', user.password]) {
      const res = await authenticate(user.email, password);
      expectStatus(res, 429, 'the account is throttled, even with the right password');
      const retryAfter = Number(res.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 900, `Retry-After in seconds, got ${res.headers.get('retry-after')}`);
      assert.deepEqual(Object.keys(res.json), ['detail']);
      assert.match(res.json.detail, new RegExp(`Try again in ${retryAfter} seconds`));
    }
    expectStatus(await checktoken(user.api), 200, 'the token issued before keeps working');
    const other = await newUser('ratelimit-other');
    expectStatus(await authenticate(other.email, other.password), 200, 'another account signs in');
  });
});

describe('checktoken and the credential headers', () => {
  test('`token: t`, `Authorization: Token t` and `Authorization: Bearer <api key>` all authenticate', async () => {
    const user = await newUser('headers');
    for (const api of [user.api, user.api.via('Token')]) {
      const res = await checktoken(api);
      expectStatus(res, 200, `scheme ${api.scheme}`);
      assert.deepEqual(res.json, { detail: 'Valid token.' });
    }
    const key = await user.api.post(`/accounts/apikey/list/user/${user.sid}/detail/`, { name: 'header test' });
    expectStatus(key, 201);
    const res = await checktoken(new Api(key.json.key, 'Bearer'));
    expectStatus(res, 200);
    assert.deepEqual(res.json, { detail: 'Valid token.' });
  });

  test('no token: 401 {"detail": "Authentication credentials were not provided."}', async () => {
    expectNotAuthenticated(await checktoken(anonymous));
  });

  test('an unknown token in any header form: 401 {"detail": "Invalid token."}', async () => {
    const bogus = 'x'.repeat(43);
    expectInvalidToken(await checktoken(new Api(bogus)));
    expectInvalidToken(await checktoken(new Api(bogus, 'Token')));
    expectInvalidToken(await checktoken(new Api(bogus, 'Bearer')));
    expectInvalidToken(await checktoken(new Api('y'.repeat(5000))), 'an over-long token');
  });

  test('a session token also works as `Authorization: Bearer`, and an API key in the `token` header', async () => {
    const user = await newUser('crossed');
    expectStatus(await checktoken(user.api.via('Bearer')), 200);
    const key = await user.api.post(`/accounts/apikey/list/user/${user.sid}/detail/`, { name: 'crossed' });
    expectStatus(await checktoken(new Api(key.json.key)), 200);
  });
});

describe('logout', () => {
  test('ends the token it was called with, and only that one', async () => {
    const user = await newUser('logout');
    const second = new Api(await login(user));
    const res = await user.api.get(PATHS.logout);
    expectStatus(res, 200);
    assert.deepEqual(res.json, { detail: 'Successfully logged out.' });
    expectInvalidToken(await checktoken(user.api));
    expectInvalidToken(await user.api.get(PATHS.logout), 'a second logout with the same token');
    expectStatus(await checktoken(second), 200, 'another session of the same user stays');
    expectStatus(await second.post(PATHS.logout), 200, 'POST works too');
    expectInvalidToken(await checktoken(second));
  });

  test('without a token: 401', async () => {
    expectNotAuthenticated(await anonymous.get(PATHS.logout));
  });
});

describe('password reset', () => {
  test('forgetpassword mails a tag; resetpassword sets the password once, ends old tokens, and the old password stops working', async () => {
    const user = await newUser('reset');
    const other = new Api(await login(user));
    const forget = await anonymous.post(PATHS.forgetpassword, { email: user.email });
    expectStatus(forget, 200);
    assert.deepEqual(forget.json, { detail: 'Password reset e-mail has been sent.' });

    const mail = await readMail(user.email);
    assert.equal(mail.subject, 'Reset your Records Service password');
    assert.ok(mail.tag, `the mail carries a reset link with a tag:\n${mail.body}`);
    assert.ok(mail.body.includes(`Reset tag: ${mail.tag}`), 'the tag is also given on its own line');

    const newPassword = strongPassword();
    const reset = await anonymous.post(PATHS.resetpassword, { password: newPassword }, { query: { tag: mail.tag } });
    expectStatus(reset, 200);
    assert.deepEqual(reset.json, { detail: 'Password has been reset.' });

    expectDetail(await authenticate(user.email, user.password), 406, MESSAGES.badCredentials, 'the old password');
    expectInvalidToken(await checktoken(user.api), 'a token from before the reset');
    expectInvalidToken(await checktoken(other), 'every token from before the reset');
    const fresh = await authenticate(user.email, newPassword);
    expectStatus(fresh, 200, 'the new password');

    const again = await anonymous.post(PATHS.resetpassword, { password: strongPassword() }, { query: { tag: mail.tag } });
    expectPlainText(again, 406, 'Error: Wrong Tag! - Tag is not valid', 'the tag is used up (Labii\'s answer)');
    expectPlainText(await anonymous.post(PATHS.resetpassword, { password: strongPassword() }), 406, 'Error: Missing Tag in GET! - Tag is missing in the url', 'no tag');
    expectPlainText(await anonymous.post(PATHS.resetpassword, { password: strongPassword() }, { query: { tag: '' } }), 406, 'Error: Missing Tag in GET! - Tag is missing in the url', 'an empty tag');
    expectStatus(await authenticate(user.email, newPassword), 200, 'the refused reuse changed nothing');
  });

  test('the reset mail lists the API keys, which stay valid after the reset; the owner lists and deletes them', async () => {
    const user = await newUser('resetkeys');
    const key = await user.api.post(paths.apikeyList(user.sid, 'detail'), { name: 'nightly import' });
    expectStatus(key, 201);
    expectStatus(await anonymous.post(PATHS.forgetpassword, { email: user.email }), 200);
    const mail = await readMail(user.email);
    assert.match(mail.body, /Your API keys stay valid after a reset\. They are:/);
    assert.ok(mail.body.includes(`nightly import (sid ${key.json.sid}), created ${key.json.date_created}`), mail.body);
    assert.ok(!mail.body.includes(key.json.key), 'never the key itself');
    expectStatus(await anonymous.post(PATHS.resetpassword, { password: strongPassword() }, { query: { tag: mail.tag } }), 200);
    const bearer = new Api(key.json.key, 'Bearer');
    expectStatus(await checktoken(bearer), 200, 'the key stays valid, as the mail said');
    const fresh = new Api((await authenticate(user.email, (await resetAgain(user.email)))).json.token);
    const listed = await fresh.get(paths.apikeyList(user.sid, 'list'));
    assert.deepEqual(listed.json.results.map((k: { sid: string }) => k.sid), [key.json.sid], 'the owner sees it');
    expectStatus(await fresh.delete(paths.apikeyDetail(key.json.sid)), 200);
    expectInvalidToken(await checktoken(bearer), 'and revokes it');
  });

  test('a newer request leaves an older tag valid until one is used; then both are spent', async () => {
    const user = await newUser('tworesets');
    expectStatus(await anonymous.post(PATHS.forgetpassword, { email: user.email }), 200);
    const first = await readMail(user.email);
    expectStatus(await anonymous.post(PATHS.forgetpassword, { email: user.email }), 200);
    const second = await readMail(user.email);
    assert.notEqual(first.tag, second.tag);
    const password = strongPassword();
    expectStatus(await anonymous.post(PATHS.resetpassword, { password }, { query: { tag: first.tag } }), 200);
    expectPlainText(await anonymous.post(PATHS.resetpassword, { password: strongPassword() }, { query: { tag: second.tag } }), 406, 'Error: Wrong Tag! - Tag is not valid');
    expectStatus(await authenticate(user.email, password), 200);
  });

  test('an unknown email gets the same 200 and no mail is sent', async () => {
    const nobody = uniqueEmail('nobody');
    const res = await anonymous.post(PATHS.forgetpassword, { email: nobody });
    expectStatus(res, 200);
    assert.deepEqual(res.json, { detail: 'Password reset e-mail has been sent.' });
    // A request for a real account made afterwards is delivered: by then the first would be too.
    const user = await newUser('barrier');
    expectStatus(await anonymous.post(PATHS.forgetpassword, { email: user.email }), 200);
    await readMail(user.email);
    await sleep(1500);
    assert.deepEqual(mailTo(nobody), [], 'no mail to an address without an account');
  });

  test('a bad or missing tag: 406 with Labii\'s texts; a short password: 400; the password stays', async () => {
    const user = await newUser('badtag');
    expectPlainText(await anonymous.post(PATHS.resetpassword, { password: strongPassword() }, { query: { tag: 'no-such-tag' } }), 406, 'Error: Wrong Tag! - Tag is not valid');
    expectPlainText(await anonymous.post(PATHS.resetpassword, { password: strongPassword() }), 406, 'Error: Missing Tag in GET! - Tag is missing in the url');
    expectStatus(await anonymous.post(PATHS.forgetpassword, { email: user.email }), 200);
    const mail = await readMail(user.email);
    expectFieldErrors(await anonymous.post(PATHS.resetpassword, { password: 'short' }, { query: { tag: mail.tag } }), ['password']);
    expectStatus(await authenticate(user.email, user.password), 200, 'the old password still works');
    // The refused attempt did not spend the tag.
    expectStatus(await anonymous.post(PATHS.resetpassword, { password: strongPassword() }, { query: { tag: mail.tag } }), 200);
  });
});
